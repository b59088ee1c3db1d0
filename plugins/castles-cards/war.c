/*
 * war.c — Waging War and taking losses.  A loss of N points is paid card by
 * card until N is covered (a card worth more than the shortfall is still
 * lost).  Each card comes from a source (a Dangler stack, the WIFE, the
 * HEIRs, the ARMY in layers, the attacked side of the Kingdom, a WIZARD);
 * which sources are open depends on the kind of loss, and the loser picks
 * among them only where the rules give a choice.
 */
#include "castles.h"

static bool side_has_cards(const struct kingdom *k, int side)
{
    for (int c = 0; c < COLS; c++) {
        if (side == SRC_NOBLES) {
            if (k->noble[c] != NO_CARD)
                return true;
            for (int row = 0; row < 3; row++)
                if (k->st[MATRIX_STACK(row, c)].n > 0)
                    return true;
        } else if (k->wizard[c] != NO_CARD || k->st[MINION_STACK(c)].n > 0 ||
                   k->st[MAGICK_STACK(c)].n > 0) {
            return true;
        }
    }
    return false;
}

static bool army_has_cards(const struct kingdom *k)
{
    return k->st[S_GENERAL].n + k->st[S_CHAMPION].n + k->st[S_ARMS].n > 0;
}

bool war_possible(const cas_state *s, int p)
{
    const struct kingdom *k = &s->k[p];
    return k->castle != NO_CARD && k->st[S_GENERAL].n > 0 && k->st[S_CHAMPION].n > 0 &&
           k->st[S_ARMS].n > 0;
}

void war_options(const cas_state *s, int p, struct action_list *out)
{
    if (!war_possible(s, p))
        return;
    const struct kingdom *victim = &s->k[opponent(p)];
    if (side_has_cards(victim, SRC_NOBLES))
        actions_add(out, act(K_WAR, SRC_NOBLES, 0));
    if (side_has_cards(victim, SRC_WIZARDS))
        actions_add(out, act(K_WAR, SRC_WIZARDS, 0));
}

void war_wage(cas_state *s, int side, const struct cas_event_sink *ev)
{
    int p = s->turn, strength = 0;
    for (int st = S_GENERAL; st <= S_ARMS; st++) {
        uint8_t card = stack_pop(&s->k[p].st[st]);
        strength += value_of(s, card);
        discard_card(s, card);
    }
    note(ev, p, "%s wages war with %d on %s's %s", player_name(p), strength,
         player_name(opponent(p)), source_name(side));
    loss_start(s, opponent(p), side == SRC_NOBLES ? LOSS_WAR_NOBLES : LOSS_WAR_WIZARDS, 0,
               strength, AFTER_TURN, ev);
}

static void add_danglers(const struct kingdom *k, struct action_list *out)
{
    if (k->wife != NO_CARD)
        actions_add(out, act(K_LOSE, SRC_WIFE, 0));
    if (k->nheirs > 0)
        actions_add(out, act(K_LOSE, SRC_HEIR, 0));
    for (int st = 0; st < N_STACKS; st++)
        if (stack_dangles(k, st))
            actions_add(out, act(K_LOSE, st, 0));
}

static void add_if(struct action_list *out, bool open, int source)
{
    if (open)
        actions_add(out, act(K_LOSE, source, 0));
}

void loss_options(const cas_state *s, struct action_list *out)
{
    const struct kingdom *k = &s->k[s->loss_player];
    int w = s->loss_col;
    switch (s->loss_kind) {
    case LOSS_BLOCK_WIZARD:
        /* MAGICK first, then MINION, then the WIZARD or Danglers */
        if (k->st[MAGICK_STACK(w)].n > 0) {
            add_if(out, true, MAGICK_STACK(w));
        } else if (k->st[MINION_STACK(w)].n > 0) {
            add_if(out, true, MINION_STACK(w));
        } else {
            add_if(out, k->wizard[w] != NO_CARD, SRC_WIZARD0 + w);
            add_danglers(k, out);
        }
        break;
    case LOSS_BLOCK_ARMY:
        /* Danglers and the ARMY as the loser likes; then the NOBLE columns */
        add_danglers(k, out);
        if (army_has_cards(k))
            add_if(out, true, SRC_ARMY);
        else
            add_if(out, side_has_cards(k, SRC_NOBLES), SRC_NOBLES);
        break;
    default: {
        int side = s->loss_kind == LOSS_WAR_NOBLES ? SRC_NOBLES : SRC_WIZARDS;
        add_danglers(k, out);
        add_if(out, army_has_cards(k), SRC_ARMY);
        add_if(out, side_has_cards(k, side), side);
    }
    }
}

/* The ARMY is lost in layers: ARMS, CHAMPION, GENERAL, then ARMS again. */
static uint8_t take_army(cas_state *s, struct kingdom *k)
{
    static const int layer[3] = {S_ARMS, S_CHAMPION, S_GENERAL};
    for (int i = 0; i < 3; i++) {
        int at = (s->loss_army_next + i) % 3;
        if (k->st[layer[at]].n > 0) {
            s->loss_army_next = (uint8_t)((at + 1) % 3);
            return stack_pop(&k->st[layer[at]]);
        }
    }
    return NO_CARD;
}

/* The outermost column with a card loses first, from its lowest stack up:
 * SERFS, FRUITS, LANDS, then the NOBLE (or MAGICK, MINION, WIZARD). */
static uint8_t take_side(struct kingdom *k, int side)
{
    for (int c = COLS - 1; c >= 0; c--) {
        uint8_t *head = side == SRC_NOBLES ? &k->noble[c] : &k->wizard[c];
        int stacks[3] = {MATRIX_STACK(2, c), MATRIX_STACK(1, c), MATRIX_STACK(0, c)};
        if (side == SRC_WIZARDS) {
            stacks[0] = MAGICK_STACK(c);
            stacks[1] = MINION_STACK(c);
            stacks[2] = -1;
        }
        for (int i = 0; i < 3; i++)
            if (stacks[i] >= 0 && k->st[stacks[i]].n > 0)
                return stack_pop(&k->st[stacks[i]]);
        if (*head != NO_CARD) {
            uint8_t card = *head;
            *head = NO_CARD;
            return card;
        }
    }
    return NO_CARD;
}

static uint8_t take_from(cas_state *s, struct kingdom *k, int source)
{
    uint8_t card;
    if (source < N_STACKS)
        return stack_pop(&k->st[source]);
    switch (source) {
    case SRC_WIFE:
        card = k->wife;
        k->wife = NO_CARD;
        return card;
    case SRC_HEIR:
        card = k->heir[--k->nheirs];
        k->heir[k->nheirs] = NO_CARD;
        return card;
    case SRC_ARMY:
        return take_army(s, k);
    case SRC_NOBLES:
    case SRC_WIZARDS:
        return take_side(k, source);
    default:
        card = k->wizard[source - SRC_WIZARD0];
        k->wizard[source - SRC_WIZARD0] = NO_CARD;
        return card;
    }
}

static void take_one(cas_state *s, int source, const struct cas_event_sink *ev)
{
    int p = s->loss_player;
    uint8_t card = take_from(s, &s->k[p], source);
    s->loss_left -= value_of(s, card);
    discard_card(s, card);
    note(ev, p, "%s loses %s from %s (%d still to cover)", player_name(p),
         kind_of(s, card)->name, source_name(source), s->loss_left > 0 ? s->loss_left : 0);
}

/* Take forced losses until the loss is covered, nothing is left, or the
 * loser has a choice to make. */
static void loss_continue(cas_state *s, const struct cas_event_sink *ev)
{
    for (;;) {
        struct action_list open;
        open.n = 0;
        if (s->loss_left > 0)
            loss_options(s, &open);
        if (s->loss_left > 0 && open.n == 0)
            note(ev, s->loss_player, "%s has nothing left to lose: %d points are forgiven",
                 player_name(s->loss_player), s->loss_left);
        if (open.n == 0) {
            after_loss(s, ev);
            return;
        }
        if (open.n > 1) {
            s->phase = PH_LOSS;
            return;
        }
        take_one(s, act_a(open.a[0]), ev);
    }
}

void loss_start(cas_state *s, int p, int kind, int col, int amount, int after,
                const struct cas_event_sink *ev)
{
    s->loss_player = (uint8_t)p;
    s->loss_kind = (uint8_t)kind;
    s->loss_col = (uint8_t)col;
    s->loss_left = amount;
    s->loss_after = (uint8_t)after;
    s->loss_army_next = 0;
    loss_continue(s, ev);
}

void loss_take(cas_state *s, int source, const struct cas_event_sink *ev)
{
    take_one(s, source, ev);
    loss_continue(s, ev);
}
