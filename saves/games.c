/*
 * games.c — reading games back from the store (for resume, replay, export
 * and listings) and deleting them, on either backend (sqlite_read.c,
 * pg_read.c read them).
 */
#include <stdlib.h>
#include <string.h>

#include "saves_int.h"
#include "sql.h"

void cas__saves_game_free(struct cas__saves_game *g)
{
    free(g->campaign);
    free(g->castellan_version);
    free(g->game.id);
    free(g->game.version);
    for (size_t i = 0; i < g->n_expansions; i++) {
        free(g->expansions[i].id);
        free(g->expansions[i].version);
    }
    free(g->expansions);
    for (size_t i = 0; i < g->n_options; i++) {
        free(g->options[i].key);
        free(g->options[i].value);
    }
    free(g->options);
    for (size_t i = 0; i < g->n_players; i++) {
        free(g->players[i].name);
        free(g->players[i].agent);
        free(g->players[i].registered);
    }
    free(g->players);
    free(g->config_text);
    free(g->created_at);
    free(g->updated_at);
    for (size_t i = 0; i < g->n_actions && g->actions; i++)
        free(g->actions[i].text);
    free(g->actions);
    memset(g, 0, sizeof *g);
}

int cas__saves_game_load(struct cas__saves *s, int64_t id, int with_actions,
                         struct cas__saves_game *out)
{
    return CAS__SAVES_METHOD(s, game_load)(s, id, with_actions, out);
}

int cas__saves_game_ids(struct cas__saves *s, const char *campaign,
                        int64_t **ids, size_t *n)
{
    return CAS__SAVES_METHOD(s, ids)(s, CAS__SQL_GAME_IDS, 1, campaign, ids, n);
}

int cas__saves_game_delete(struct cas__saves *s, int64_t id)
{
    return CAS__SAVES_METHOD(s, game_delete)(s, id);
}
