/*
 * bag.c — the draw pile: how many copies of each tile kind are left, the
 * kinds with copies left in ascending order, so a draw lists and weighs
 * only those (a combined game has dozens of kinds, most soon used up)
 * while its outcomes keep the canonical order replays depend on, and the
 * copies left as a run of tickets, kind by kind, so the host's ticket finds
 * its kind with one read (chance_pick, plugin ABI 1.1).
 */
#include "carc.h"

_Static_assert(CARC_MAX_KINDS <= 256, "a ticket holds its kind in a byte");

/* Ticket i holds the kind of the i-th copy left, the kinds in ascending
 * order; ends[k] counts the tickets of kinds up to k. */
static void build_tickets(struct cas_state *s)
{
    uint8_t *tickets = S_BAG_TICKETS(s);
    uint16_t *ends = S_BAG_ENDS(s);
    int n = 0;
    for (int k = 0; k < s->game->nkinds; k++) {
        for (int c = 0; c < C_BAG(s)[k]; c++)
            tickets[n++] = (uint8_t)k;
        ends[k] = (uint16_t)n;
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
    build_tickets(s);
}

int cas__carc_bag_kind_of_ticket(const struct cas_state *s, uint64_t ticket)
{
    return C_BAG_TICKETS(s)[ticket];
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
    /* the kind's last ticket goes: the later tickets move down one (a
     * short copy) and the later kinds' runs end one sooner (a loop without
     * a branch on the data) */
    uint8_t *tickets = S_BAG_TICKETS(s);
    uint16_t *ends = S_BAG_ENDS(s);
    int gone = ends[kind] - 1, nkinds = s->game->nkinds;
    memmove(tickets + gone, tickets + gone + 1, (size_t)(s->bag_left - gone - 1));
    for (int k = kind; k < nkinds; k++)
        ends[k]--;
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
