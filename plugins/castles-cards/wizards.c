/*
 * wizards.c — the WIZARD powers played as a turn's action (WITCH's Skip
 * Row, MAGE's Draw Discard, any WIZARD sacrificed to draw two and keep
 * one) and at the end of a turn (MAGICIAN's Block Draw, ADEPT's Block
 * Move).  WARLOCK and SORCERER are answers out of turn; turn.c offers them.
 * A WIZARD whose power is used is discarded; its MINION and MAGICK stay.
 */
#include "castles.h"

/* The middle column a WITCH flies over must hold a card.  The WITCH itself
 * does not count: it is discarded as its power is used (docs/rules, 29). */
static bool middle_has_card(const struct kingdom *k, int stack, int witch_col)
{
    if (stack < S_GENERAL) {
        if (k->noble[1] != NO_CARD)
            return true;
        for (int row = 0; row < 3; row++)
            if (k->st[MATRIX_STACK(row, 1)].n > 0)
                return true;
        return false;
    }
    return (k->wizard[1] != NO_CARD && witch_col != 1) || k->st[MINION_STACK(1)].n > 0 ||
           k->st[MAGICK_STACK(1)].n > 0;
}

static void witch_options(const cas_state *s, int p, int w, struct action_list *out)
{
    const struct kingdom *k = &s->k[p];
    if (k->castle == NO_CARD || under_block(s, PEND_ADEPT))
        return;
    unsigned occupied = stack_occupancy(k);
    for (int src = 0; src < N_STACKS; src++) {
        if ((src >= S_GENERAL && src < S_WIZARD0) || stack_column(src) != 0)
            continue;
        int dst = stack_in_column(src, 2);
        if (k->st[src].n > 0 && middle_has_card(k, src, w) &&
            !move_makes_hole(k, occupied, src, dst))
            actions_add(out, act(K_WITCH, P_WIZARD0 + w, src));
    }
}

void wizard_turn_options(const cas_state *s, int p, struct action_list *out)
{
    bool can_draw = !under_block(s, PEND_MAGICIAN) && s->npile + s->ndiscard >= 2;
    for (int w = 0; w < COLS; w++) {
        uint8_t wizard = s->k[p].wizard[w];
        if (wizard == NO_CARD)
            continue;
        if (can_draw)
            actions_add(out, act(K_SACRIFICE, P_WIZARD0 + w, 0));
        if (type_of(s, wizard) == T_WITCH)
            witch_options(s, p, w, out);
        if (type_of(s, wizard) == T_MAGE && s->ndiscard > 0)
            actions_add(out, act(K_MAGE, P_WIZARD0 + w, 0));
    }
}

void wizard_end_options(const cas_state *s, int p, struct action_list *out)
{
    for (int w = 0; w < COLS; w++) {
        uint8_t wizard = s->k[p].wizard[w];
        if (wizard != NO_CARD && type_of(s, wizard) == T_MAGICIAN)
            actions_add(out, act(K_MAGICIAN, P_WIZARD0 + w, 0));
        if (wizard != NO_CARD && type_of(s, wizard) == T_ADEPT)
            actions_add(out, act(K_ADEPT, P_WIZARD0 + w, 0));
    }
}

void witch_fly(cas_state *s, int w, int stack, const struct cas_event_sink *ev)
{
    int p = s->turn, dst = stack_in_column(stack, 2);
    struct kingdom *k = &s->k[p];
    discard_wizard(s, p, w);
    stack_push(&k->st[dst], stack_pop(&k->st[stack]));
    note(ev, p, "%s's WITCH flies %s from %s to %s", player_name(p),
         kind_of(s, stack_top(&k->st[dst]))->name, stack_name(stack), stack_name(dst));
    end_action(s, ev);
}

void mage_draw(cas_state *s, int w, const struct cas_event_sink *ev)
{
    int p = s->turn;
    /* take the card before the MAGE itself lands on the discard pile */
    s->hand[0] = s->discard[--s->ndiscard];
    s->nhand = 1;
    discard_wizard(s, p, w);
    note(ev, p, "%s's MAGE takes %s from the discard pile", player_name(p),
         kind_of(s, s->hand[0])->name);
    acquire(s, ev);
}

void sacrifice_draw(cas_state *s, int w, const struct cas_event_sink *ev)
{
    int p = s->turn;
    note(ev, p, "%s sacrifices %s to draw two cards", player_name(p),
         kind_of(s, s->k[p].wizard[w])->name);
    discard_wizard(s, p, w);
    enter_draw(s, DRAW_DOUBLE1, ev);
}
