/*
 * served.c — what `castellan serve` keeps beside the journal: which games
 * it hosts, their time control, each seat's invite token and whether the
 * seat is still open, so a restarted server brings every unfinished game
 * back with the links its players hold.  Both backends keep it
 * (sqlite_served.c, pg_served.c).
 */
#include <stdlib.h>
#include <string.h>

#include "saves_int.h"
#include "sql.h"

void cas__saves_served_free(struct cas__saves_served *g)
{
    for (size_t i = 0; g->seats && i < g->n_seats; i++)
    {
        free(g->seats[i].token);
        free(g->seats[i].bot);
    }
    free(g->seats);
    free(g->seed_nonce);
    memset(g, 0, sizeof *g);
}

int cas__saves_served_insert(struct cas__saves *s, const struct cas__saves_served *g)
{
    return CAS__SAVES_METHOD(s, served_insert)(s, g);
}

int cas__saves_served_claim(struct cas__saves *s, int64_t game, int seat, const char *name,
                            const char *token_hash)
{
    return CAS__SAVES_METHOD(s, served_claim)(s, game, seat, name, token_hash);
}

int cas__saves_served_start(struct cas__saves *s, int64_t game, int64_t first_deadline)
{
    return CAS__SAVES_METHOD(s, served_start)(s, game, first_deadline);
}

int cas__saves_served_flag(struct cas__saves *s, int64_t game, int seat, int forfeit)
{
    return CAS__SAVES_METHOD(s, served_flag)(s, game, seat, forfeit != 0);
}

int cas__saves_served_bot(struct cas__saves *s, int64_t game, int seat, const char *agent)
{
    return CAS__SAVES_METHOD(s, served_bot)(s, game, seat, agent);
}

int cas__saves_served_load(struct cas__saves *s, int64_t game, struct cas__saves_served *out)
{
    return CAS__SAVES_METHOD(s, served_load)(s, game, out);
}

int cas__saves_served_unfinished(struct cas__saves *s, int64_t **ids, size_t *n)
{
    return CAS__SAVES_METHOD(s, ids)(s, CAS__SQL_SERVED_UNFINISHED, 0, NULL, ids, n);
}

int cas__saves_served_orphans(struct cas__saves *s, int64_t **ids, size_t *n)
{
    return CAS__SAVES_METHOD(s, served_orphans)(s, ids, n);
}
