/*
 * marks.c — what each choice of a decision points at, for the click-to-play
 * picture (CAS_RENDER_SVG_ACTIONS, docs/abi.md "ABI 1.2: click to play"):
 * first the card or place it starts from (a stack, a column's NOBLE or
 * WIZARD, the WIFE, the draw pile, the discard pile, a card in play), then
 * what it needs next (how deep to top off, the column a card moves to, the
 * stack a WITCH flies to) as a chip in the strip under the Kingdoms.
 * Where that still leaves two actions on one element (a MAGICIAN or a
 * block on one WIZARD), each gets a chip with its own text as the last
 * step.  "pass", "let go", "no block" and "accept" are left unmarked: the
 * client lists them as buttons.
 */
#include <stdio.h>
#include <string.h>

#include "castles.h"

static int mkey(int type, int a, int b)
{
    return type << 16 | (a & 0xFF) << 8 | (b & 0xFF);
}

/* The slot a loss source or a place is drawn at, or -1. */
static int source_slot(int source)
{
    if (source < N_STACKS)
        return source;
    switch (source) {
    case SRC_WIFE: return SL_WIFE;
    case SRC_HEIR: return SL_HEIR;
    case SRC_ARMY: return S_GENERAL;
    case SRC_NOBLES: return SL_NOBLE0;
    case SRC_WIZARDS: return SL_WIZARD0;
    default: return source >= SRC_WIZARD0 && source < N_SOURCES ? SL_WIZARD0 + source - SRC_WIZARD0
                                                                : -1;
    }
}

static int place_slot(int place)
{
    if (place < P_WIZARD0)
        return SL_NOBLE0 + place - P_NOBLE0;
    if (place < P_WIFE)
        return SL_WIZARD0 + place - P_WIZARD0;
    return place == P_WIFE ? SL_WIFE : -1;
}

static int group_slot(int group)
{
    if (group == G_CHAMPION)
        return S_CHAMPION;
    if (group == G_CHAMPION_ARMS)
        return S_ARMS;
    int w = (group - G_WIZARD0) / 3, part = (group - G_WIZARD0) % 3;
    return part == 0 ? MINION_STACK(w) : part == 2 ? MAGICK_STACK(w) : SL_WIZARD0 + w;
}

/* The keys of action a for player p: how many (0: a button). */
static int action_keys(const cas_state *s, int p, cas_action a, int k[3])
{
    int x = act_a(a), y = act_b(a), o = opponent(p), slot;
    switch (act_kind(a)) {
    case K_DRAW: k[0] = mkey(MK_PILE, 0, 0); return 1;
    case K_DISCARD: k[0] = mkey(MK_DISCARD, 0, 0); return 1;
    case K_TOPOFF:
        k[0] = mkey(MK_SLOT, p, x);
        k[1] = mkey(MK_DEPTH, y, 0);
        return 2;
    case K_MOVE:
    case K_SWAP:
        k[0] = mkey(MK_SLOT, p, act_kind(a) == K_MOVE ? x : place_slot(x));
        k[1] = mkey(MK_TO, y, 0);
        return 2;
    case K_WITCH:
        k[0] = mkey(MK_SLOT, p, place_slot(x));
        k[1] = mkey(MK_STACK, y, 0);
        return 2;
    case K_WAR:
        k[0] = mkey(MK_SLOT, o, x == SRC_NOBLES ? SL_NOBLE0 : SL_WIZARD0);
        return 1;
    case K_KEEP:
        k[0] = mkey(MK_HAND, s->nhand > 1 && s->hand[1] == x && s->hand[0] != x, 0);
        return 1;
    case K_PLACE:
        slot = place_slot(y);
        k[0] = slot < 0 ? mkey(MK_HAND, 0, 0) : mkey(MK_SLOT, p, slot);
        return 1;
    case K_LOSE:
        slot = source_slot(x);
        k[0] = mkey(MK_SLOT, p, slot);
        return slot >= 0;
    case K_BLOCK: k[0] = mkey(MK_SLOT, p, group_slot(x)); return 1;
    case K_MAGE:
    case K_SACRIFICE:
    case K_SNATCH:
    case K_MAGICIAN:
    case K_ADEPT:
    case K_WARLOCK: k[0] = mkey(MK_SLOT, p, place_slot(x)); return 1;
    default: return 0;
    }
}

/* Whether action i's keys leave another action beside it after its last
 * click: the same keys, or its keys a beginning of the other's. */
static int ambiguous(const struct castles_marks *m, size_t i, size_t n)
{
    for (size_t j = 0; j < n; j++) {
        if (j == i || m->nkeys[j] < m->nkeys[i])
            continue;
        int same = 1;
        for (int t = 0; t < m->nkeys[i] && same; t++)
            same = m->keys[j][t] == m->keys[i][t];
        if (same)
            return 1;
    }
    return 0;
}

void castles_marks(const cas_state *s, const cas_action *actions, size_t n,
                   struct castles_marks *m)
{
    int p = turn_actor(s);
    m->n = n < CASTLES_MARKS_MAX ? n : CASTLES_MARKS_MAX;
    for (size_t i = 0; i < m->n; i++)
        m->nkeys[i] = p >= 0 && p < NPLAYERS ? (uint8_t)action_keys(s, p, actions[i], m->keys[i])
                                             : 0;
    /* decided before any is added: a chip changes no other action's keys */
    uint8_t extra[CASTLES_MARKS_MAX];
    for (size_t i = 0; i < m->n; i++)
        extra[i] = m->nkeys[i] && ambiguous(m, i, m->n);
    for (size_t i = 0; i < m->n; i++)
        if (extra[i])
            m->keys[i][m->nkeys[i]++] = mkey(MK_VERB, (int)(i >> 8), (int)i);
}
