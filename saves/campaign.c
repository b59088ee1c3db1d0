/*
 * campaign.c — campaigns: games grouped under a name, with standings
 * (finished games, wins and points per player) and the game to resume, on
 * either backend (sqlite_campaign.c, pg_read.c read them).
 */
#include <stdlib.h>

#include "saves_int.h"

void cas__saves_campaigns_free(struct cas__saves_campaign *c, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(c[i].name);
        free(c[i].last_played);
    }
    free(c);
}

void cas__saves_standings_free(struct cas__saves_standing *st, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(st[i].player);
    free(st);
}


int cas__saves_campaigns(struct cas__saves *s, struct cas__saves_campaign **out,
                         size_t *n)
{
    return CAS__SAVES_METHOD(s, campaigns)(s, out, n);
}

int cas__saves_campaign_standings(struct cas__saves *s, const char *name,
                                  struct cas__saves_campaign *summary,
                                  struct cas__saves_standing **out, size_t *n)
{
    return CAS__SAVES_METHOD(s, campaign_standings)(s, name, summary, out, n);
}
