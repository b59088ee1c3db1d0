/*
 * bag.c — the draw pile: how many copies of each tile kind are left, and
 * the kinds with copies left in ascending order, so a draw lists and weighs
 * only those (a combined game has dozens of kinds, most soon used up)
 * while its outcomes keep the canonical order replays depend on.
 */
#include "carc.h"

void cas__carc_bag_index(struct cas_state *s)
{
    uint16_t *kinds = S_BAG_KINDS(s);
    s->bag_left = 0;
    s->bag_kinds = 0;
    for (int k = 0; k < s->game->nkinds; k++) {
        if (!C_BAG(s)[k])
            continue;
        kinds[s->bag_kinds++] = (uint16_t)k;
        s->bag_left = (uint16_t)(s->bag_left + C_BAG(s)[k]);
    }
}

void cas__carc_bag_fill(struct cas_state *s)
{
    const struct cas_game *g = s->game;
    for (int k = 0; k < g->nkinds; k++)
        S_BAG(s)[k] = (uint16_t)(g->kinds[k].hand ? 0 : g->kinds[k].count);
    cas__carc_bag_index(s);
}

void cas__carc_bag_take(struct cas_state *s, int kind)
{
    s->bag_left--;
    if (--S_BAG(s)[kind] > 0)
        return;
    uint16_t *kinds = S_BAG_KINDS(s);
    int at = 0;
    while (kinds[at] != kind)
        at++;
    memmove(kinds + at, kinds + at + 1, (size_t)(s->bag_kinds - at - 1) * sizeof *kinds);
    s->bag_kinds--;
}
