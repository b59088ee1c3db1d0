/*
 * bag.c — the draw pile: how many copies of each tile kind are left, the
 * kinds with copies left in ascending order, so a draw lists and weighs
 * only those (a combined game has dozens of kinds, most soon used up)
 * while its outcomes keep the canonical order replays depend on, and a
 * Fenwick tree of the copies per kind, so the host's ticket finds its
 * kind without a listing (chance_pick, plugin ABI 1.1).
 */
#include "carc.h"

/* Node i (1-based) of the tree holds the copies of kinds (i - lowbit(i), i]. */
static void build_tree(struct cas_state *s)
{
    uint16_t *tree = S_BAG_TREE(s);
    int n = s->game->nkinds;
    for (int i = 1; i <= n; i++)
        tree[i] = C_BAG(s)[i - 1];
    for (int i = 1; i <= n; i++) {
        int up = i + (i & -i);
        if (up <= n)
            tree[up] = (uint16_t)(tree[up] + tree[i]);
    }
}

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
    build_tree(s);
}

int cas__carc_bag_kind_of_ticket(const struct cas_state *s, uint64_t ticket)
{
    const uint16_t *tree = C_BAG_TREE(s);
    int n = s->game->nkinds, at = 0;
    /* without a branch on the ticket: which way each step goes cannot be
     * predicted, and a game of 80 kinds takes 7 steps a draw (a step past
     * the last kind reads the unused node 0 and is not taken) */
    for (int step = s->game->bag_tree_step; step > 0; step >>= 1) {
        int next = at + step;
        unsigned inside = next <= n;
        uint64_t weight = tree[(unsigned)next & (0u - inside)];
        uint64_t take = 0 - (uint64_t)(inside & (weight <= ticket)); /* all ones or 0 */
        at += (int)((uint64_t)step & take);
        ticket -= weight & take;
    }
    return at;
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
    uint16_t *tree = S_BAG_TREE(s);
    for (int i = kind + 1; i <= s->game->nkinds; i += i & -i)
        tree[i]--;
    s->bag_left--;
    if (--S_BAG(s)[kind] > 0)
        return;
    uint16_t *kinds = S_BAG_KINDS(s);
    int at = 0, last = s->bag_kinds - 1; /* ascending, and kind is among them */
    while (at < last) {
        int mid = (at + last) / 2;
        if (kinds[mid] < kind)
            at = mid + 1;
        else
            last = mid;
    }
    memmove(kinds + at, kinds + at + 1, (size_t)(s->bag_kinds - at - 1) * sizeof *kinds);
    s->bag_kinds--;
}
