/*
 * block.c — Blocking: which Blockers a player may announce at the end of a
 * turn, and how a blocked draw resolves (lower: discarded; equal: both
 * lost; higher: Blockers lost, and after a CASTLE the blocker digs deeper),
 * with the CASTLE that cannot be blocked and its penalty on the blocker.
 */
#include "castles.h"

/* The stacks whose top cards form group g; returns how many (1 or 2). */
static int group_stacks(int group, int stacks[2])
{
    if (group == G_CHAMPION) {
        stacks[0] = S_CHAMPION;
        return 1;
    }
    if (group == G_CHAMPION_ARMS) {
        stacks[0] = S_CHAMPION;
        stacks[1] = S_ARMS;
        return 2;
    }
    int w = (group - G_WIZARD0) / 3, form = (group - G_WIZARD0) % 3;
    if (form == 2) {
        stacks[0] = MAGICK_STACK(w);
        return 1;
    }
    stacks[0] = MINION_STACK(w);
    stacks[1] = MAGICK_STACK(w);
    return form == 0 ? 1 : 2;
}

/* The groups in ascending order: CHAMPION (after a CASTLE only under a
 * GENERAL), CHAMPION+ARMS, then per wizard column (after a CASTLE only
 * with its WIZARD) MINION, MINION+MAGICK, and a linked MAGICK alone,
 * pre-CASTLE only. */
void block_options(const cas_state *s, int p, struct action_list *out)
{
    const struct kingdom *k = &s->k[p];
    bool castle = k->castle != NO_CARD;
    if (k->st[S_CHAMPION].n > 0 && (!castle || k->st[S_GENERAL].n > 0)) {
        actions_add(out, act(K_BLOCK, G_CHAMPION, 0));
        if (k->st[S_ARMS].n > 0)
            actions_add(out, act(K_BLOCK, G_CHAMPION_ARMS, 0));
    }
    for (int w = 0; w < COLS; w++) {
        if (k->st[MINION_STACK(w)].n == 0 || (castle && k->wizard[w] == NO_CARD))
            continue; /* after a CASTLE, no WIZARD means no Blocking */
        int first = G_WIZARD0 + 3 * w;
        actions_add(out, act(K_BLOCK, first, 0));
        if (k->st[MAGICK_STACK(w)].n > 0) {
            actions_add(out, act(K_BLOCK, first + 1, 0));
            if (!castle)
                actions_add(out, act(K_BLOCK, first + 2, 0));
        }
    }
}

int block_value(const cas_state *s, int p, int group)
{
    int stacks[2], n = group_stacks(group, stacks), sum = 0;
    for (int i = 0; i < n; i++) {
        uint8_t top = stack_top(&s->k[p].st[stacks[i]]);
        if (top != NO_CARD)
            sum += value_of(s, top);
    }
    return sum;
}

static void lose_blockers(cas_state *s, int p, int group)
{
    int stacks[2], n = group_stacks(group, stacks);
    for (int i = 0; i < n; i++)
        if (s->k[p].st[stacks[i]].n > 0)
            discard_card(s, stack_pop(&s->k[p].st[stacks[i]]));
}

/* A blocked CASTLE: the blocker loses every card in the stacks of the
 * blocking column (the ARMY column, or the wizard column's MINION and
 * MAGICK; the WIZARD itself is not a stack card). */
static void castle_penalty(cas_state *s, int p, int group)
{
    int first = S_GENERAL, last = S_ARMS;
    if (group >= G_WIZARD0) {
        int w = (group - G_WIZARD0) / 3;
        first = MINION_STACK(w);
        last = MAGICK_STACK(w);
    }
    for (int st = first; st <= last; st++)
        while (s->k[p].st[st].n > 0)
            discard_card(s, stack_pop(&s->k[p].st[st]));
}

void block_resolve(cas_state *s, const struct cas_event_sink *ev)
{
    int blocker = s->pending_by, group = s->pending_group;
    uint8_t card = s->hand[0];
    s->pending = PEND_NONE;
    if (type_of(s, card) == T_CASTLE) {
        note(ev, blocker, "%s cannot block the CASTLE and loses the blocking column's stacks",
             player_name(blocker));
        castle_penalty(s, blocker, group);
        acquire(s, ev);
        return;
    }
    int drawn = value_of(s, card), block = block_value(s, blocker, group);
    if (drawn < block) {
        note(ev, blocker, "%s blocks %s (%d against %d): the card is discarded",
             player_name(blocker), kind_of(s, card)->name, block, drawn);
        discard_card(s, card);
        s->nhand = 0;
        end_action(s, ev);
        return;
    }
    lose_blockers(s, blocker, group);
    if (drawn == block) {
        note(ev, blocker, "%s's block of %d matches %s: both are lost",
             player_name(blocker), block, kind_of(s, card)->name);
        discard_card(s, card);
        s->nhand = 0;
        end_action(s, ev);
        return;
    }
    note(ev, blocker, "%s's block of %d is overwhelmed by %s", player_name(blocker), block,
         kind_of(s, card)->name);
    if (s->k[blocker].castle == NO_CARD) {
        acquire(s, ev); /* pre-CASTLE: only the Blockers are at risk */
        return;
    }
    int kind = group < G_WIZARD0 ? LOSS_BLOCK_ARMY : LOSS_BLOCK_WIZARD;
    int col = group < G_WIZARD0 ? 0 : (group - G_WIZARD0) / 3;
    loss_start(s, blocker, kind, col, drawn - block, AFTER_ACQUIRE, ev);
}
