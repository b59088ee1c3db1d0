/*
 * turn.c — the flow of decisions: the opening draws, a turn's one action,
 * the draw and what follows it (block, Sorcerer window, placement), the
 * end-of-turn block and the Warlock's answer, turn and deck limits, and
 * the end of the game.  Every decision belongs to the player who makes it,
 * in turn or out of it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "castles.h"

void actions_add(struct action_list *l, cas_action a)
{
    if (l->n < sizeof l->a / sizeof l->a[0])
        l->a[l->n++] = a;
}

void note_emit(const struct cas_event_sink *ev, int player, const char *fmt, ...)
{
    char text[256];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    struct cas_event e = {
        .struct_size = sizeof e, .kind = CAS_EVENT_INFO, .player = player,
        .visible_to = CAS_VIEWER_PUBLIC, .points = 0, .text = text,
    };
    ev->emit(ev->ctx, &e);
}

void state_reset(cas_state *s, const cas_game *game)
{
    memset(s, 0, sizeof *s);
    s->game = game;
    s->winner = -1;
    s->phase = PH_SETUP_DRAW;
    s->setup_card[0] = s->setup_card[1] = NO_CARD;
    s->hand[0] = s->hand[1] = NO_CARD;
    for (int k = 0; k < game->deck.nkinds; k++) {
        s->pile[k] = game->deck.kind[k].copies;
        s->npile += game->deck.kind[k].copies;
    }
    for (int p = 0; p < NPLAYERS; p++) {
        struct kingdom *k = &s->k[p];
        k->castle = k->wife = NO_CARD;
        for (int c = 0; c < COLS; c++)
            k->noble[c] = k->wizard[c] = NO_CARD;
        for (int i = 0; i < MAX_HEIRS; i++)
            k->heir[i] = NO_CARD;
    }
}

int turn_actor(const cas_state *s)
{
    switch (s->phase) {
    case PH_SETUP_DRAW:
    case PH_DRAW:
        return CAS_ACTOR_CHANCE;
    case PH_SNATCH:
    case PH_WARLOCK:
        return opponent(s->turn);
    case PH_PLACE:
        return s->holder;
    case PH_LOSS:
        return s->loss_player;
    case PH_OVER:
        return CAS_ACTOR_TERMINAL;
    default:
        return s->turn;
    }
}

/* ------------------------------------------------------------ the end */

static void finish(cas_state *s, int winner, int reason, const struct cas_event_sink *ev)
{
    static const char *const why[] = {"", "completes a Kingdom",
                                      "leads when the turn limit is reached",
                                      "leads when the deck is spent"};
    s->phase = PH_OVER;
    s->winner = (int8_t)winner;
    s->end_reason = (uint8_t)reason;
    for (int i = 0; i < s->nhand; i++)
        discard_card(s, s->hand[i]); /* a draw cut short by the end */
    s->nhand = 0;
    if (!ev)
        return;
    char text[128];
    if (winner >= 0)
        snprintf(text, sizeof text, "%s wins: %s %s", player_name(winner),
                 player_name(winner), why[reason]);
    else
        snprintf(text, sizeof text, "Draw: the game stops with both Kingdoms level");
    struct cas_event e = {
        .struct_size = sizeof e, .kind = CAS_EVENT_END, .player = winner,
        .visible_to = CAS_VIEWER_PUBLIC, .text = text,
    };
    ev->emit(ev->ctx, &e);
}

/* Stopped by a limit: more of a complete Kingdom wins, then more points. */
static void finish_by_limit(cas_state *s, int reason, const struct cas_event_sink *ev)
{
    int a = kingdom_progress(s, 0), b = kingdom_progress(s, 1);
    if (a == b) {
        a = kingdom_value(s, 0);
        b = kingdom_value(s, 1);
    }
    finish(s, a > b ? 0 : a < b ? 1 : -1, reason, ev);
}

static bool check_win(cas_state *s, int p, const struct cas_event_sink *ev)
{
    if (!kingdom_complete(s, p))
        return false;
    finish(s, p, END_KINGDOM, ev);
    return true;
}

/* ------------------------------------------------------------ drawing */

/* Make sure the draw pile has a card: shuffle the discard pile back in (the
 * order is never stored, so "shuffling" is moving counts).  False when the
 * game ended because the deck is spent. */
static bool refill_pile(cas_state *s, const struct cas_event_sink *ev)
{
    if (s->npile > 0)
        return true;
    if (s->ndiscard == 0 || s->reshuffles >= s->game->max_reshuffles) {
        finish_by_limit(s, END_DECK, ev);
        return false;
    }
    for (int i = 0; i < s->ndiscard; i++)
        s->pile[s->discard[i]]++;
    s->npile = s->ndiscard;
    s->ndiscard = 0;
    s->reshuffles++;
    note(ev, -1, "The discard pile is shuffled into a new draw pile (%d of %d)",
         s->reshuffles, s->game->max_reshuffles);
    return true;
}

void enter_draw(cas_state *s, int purpose, const struct cas_event_sink *ev)
{
    if (!refill_pile(s, ev))
        return;
    s->phase = PH_DRAW;
    s->purpose = (uint8_t)purpose;
}

static void start_turn(cas_state *s, int p, const struct cas_event_sink *ev)
{
    s->turn = (uint8_t)p;
    s->turns++;
    if (s->turns > s->game->max_turns) {
        finish_by_limit(s, END_TURNS, ev);
        return;
    }
    s->phase = PH_TURN;
}

static void next_turn(cas_state *s, const struct cas_event_sink *ev)
{
    start_turn(s, opponent(s->turn), ev);
}

/* ------------------------------------------------------------ setup */

static void setup_draw(cas_state *s, const struct cas_event_sink *ev)
{
    if (refill_pile(s, ev))
        s->phase = PH_SETUP_DRAW;
}

/* The CASTLE always goes first; otherwise the higher card. */
static int opening_rank(const cas_state *s, uint8_t card)
{
    return type_of(s, card) == T_CASTLE ? 100000 : value_of(s, card);
}

static void setup_next(cas_state *s, const struct cas_event_sink *ev)
{
    if (s->setup_player == 0) {
        s->setup_player = 1;
        setup_draw(s, ev);
        return;
    }
    int a = opening_rank(s, s->setup_card[0]), b = opening_rank(s, s->setup_card[1]);
    s->setup_player = 0;
    if (a == b) {
        note(ev, -1, "The opening cards tie: both players draw again");
        setup_draw(s, ev);
        return;
    }
    note(ev, a > b ? 0 : 1, "%s has the high card and goes first", player_name(a > b ? 0 : 1));
    start_turn(s, a > b ? 0 : 1, ev);
}

/* ------------------------------------------------------------ acquiring */

static void finish_place(cas_state *s, cas_action choice, const struct cas_event_sink *ev)
{
    uint8_t card = s->hand[0];
    place_card(s, s->holder, card, choice);
    s->nhand = 0;
    s->hand[0] = NO_CARD;
    note(ev, s->holder, "%s %s %s", player_name(s->holder),
         act_kind(choice) == K_DISCARD ? "discards" : "keeps", kind_of(s, card)->name);
    if (check_win(s, s->holder, ev))
        return;
    if (s->place_after == AFTER_SETUP)
        setup_next(s, ev);
    else
        end_action(s, ev);
}

/* hand[0] goes to holder's Kingdom: decide now if the rules leave no choice. */
static void place_step(cas_state *s, int holder, int after, const struct cas_event_sink *ev)
{
    struct action_list options;
    options.n = 0;
    s->holder = (uint8_t)holder;
    s->place_after = (uint8_t)after;
    placement_options(s, holder, s->hand[0], &options);
    if (options.n == 1)
        finish_place(s, options.a[0], ev);
    else
        s->phase = PH_PLACE;
}

void acquire(cas_state *s, const struct cas_event_sink *ev)
{
    if (wizard_column(s, opponent(s->turn), T_SORCERER) >= 0)
        s->phase = PH_SNATCH;
    else
        place_step(s, s->turn, AFTER_TURN, ev);
}

void after_loss(cas_state *s, const struct cas_event_sink *ev)
{
    if (s->loss_after == AFTER_ACQUIRE)
        acquire(s, ev);
    else
        end_action(s, ev);
}

/* A card of the turn player's own draw: blocked or kept. */
static void drawn(cas_state *s, bool blockable, const struct cas_event_sink *ev)
{
    if (blockable && under_block(s, PEND_CARDS))
        block_resolve(s, ev);
    else
        acquire(s, ev);
}

/* ------------------------------------------------------------ turn ends */

void end_action(cas_state *s, const struct cas_event_sink *ev)
{
    if (check_win(s, s->turn, ev))
        return;
    if (s->pending != PEND_NONE && s->pending_by != s->turn)
        s->pending = PEND_NONE; /* the other player's block held for this turn only */
    struct action_list options;
    options.n = 0;
    block_options(s, s->turn, &options);
    wizard_end_options(s, s->turn, &options);
    if (options.n > 0)
        s->phase = PH_BLOCK;
    else
        next_turn(s, ev);
}

static void announce(cas_state *s, int kind, int group, const struct cas_event_sink *ev)
{
    s->pending = (uint8_t)kind;
    s->pending_group = (uint8_t)group;
    s->pending_by = s->turn;
    if (kind != PEND_ADEPT && wizard_column(s, opponent(s->turn), T_WARLOCK) >= 0)
        s->phase = PH_WARLOCK;
    else
        next_turn(s, ev);
}

/* ------------------------------------------------------------ options */

/* Matrix and wizard stacks: the ones whose top card may Move. */
#define MOVABLE_STACKS (MATRIX_CELLS | (0x3Fu << S_WIZARD0))

static void move_options(const cas_state *s, int p, struct action_list *out)
{
    const struct kingdom *k = &s->k[p];
    if (k->castle == NO_CARD || under_block(s, PEND_ADEPT))
        return;
    unsigned occupied = stack_occupancy(k), holes_now = layout_holes(occupied);
    for (unsigned left = occupied & MOVABLE_STACKS; left; left &= left - 1) {
        int src = __builtin_ctz(left);
        int col = stack_column(src), first = src < S_GENERAL ? P_NOBLE0 : P_WIZARD0;
        unsigned without = k->st[src].n == 1 ? occupied & ~(1u << src) : occupied;
        for (int to = col - 1; to <= col + 1; to += 2) {
            if (to < 0 || to >= COLS)
                continue;
            unsigned after = without | 1u << stack_in_column(src, to);
            if (!(layout_holes(after) & ~holes_now))
                actions_add(out, act(K_MOVE, src, first + to));
        }
    }
    for (int c = 0; c + 1 < COLS; c++)
        if (k->noble[c] != NO_CARD && k->noble[c + 1] != NO_CARD)
            actions_add(out, act(K_SWAP, P_NOBLE0 + c, P_NOBLE0 + c + 1));
}

static bool draw_open(const cas_state *s)
{
    return !under_block(s, PEND_MAGICIAN) && s->npile + s->ndiscard > 0;
}

static void topoff_options(const struct kingdom *k, int st, struct action_list *out)
{
    for (int depth = 2; depth <= k->st[st].n; depth++)
        actions_add(out, act(K_TOPOFF, st, depth));
}

void turn_options(const cas_state *s, struct action_list *out)
{
    int p = s->turn;
    const struct kingdom *k = &s->k[p];
    if (draw_open(s))
        actions_add(out, act(K_DRAW, 0, 0));
    for (int st = 0; st < N_STACKS; st++)
        topoff_options(k, st, out);
    war_options(s, p, out);
    move_options(s, p, out);
    wizard_turn_options(s, p, out);
    if (out->n == 0)
        actions_add(out, act(K_PASS, 0, 0));
}

void turn_options_like(const cas_state *s, cas_action a, struct action_list *out)
{
    int p = s->turn;
    switch (act_kind(a)) {
    case K_DRAW:
        if (draw_open(s))
            actions_add(out, act(K_DRAW, 0, 0));
        break;
    case K_TOPOFF:
        if (act_a(a) < N_STACKS)
            topoff_options(&s->k[p], act_a(a), out);
        break;
    case K_WAR:
        war_options(s, p, out);
        break;
    case K_MOVE:
    case K_SWAP:
        move_options(s, p, out);
        break;
    case K_WITCH:
    case K_MAGE:
    case K_SACRIFICE:
        wizard_turn_options(s, p, out);
        break;
    default:
        turn_options(s, out);
    }
}

static void wizard_answers(const cas_state *s, int p, int type, int kind, struct action_list *out)
{
    for (int w = 0; w < COLS; w++)
        if (s->k[p].wizard[w] != NO_CARD && type_of(s, s->k[p].wizard[w]) == type)
            actions_add(out, act(kind, P_WIZARD0 + w, 0));
}

void legal_list(const cas_state *s, struct action_list *out)
{
    out->n = 0;
    switch (s->phase) {
    case PH_SETUP_DRAW:
    case PH_DRAW:
        for (int k = 0; k < s->game->deck.nkinds; k++)
            if (s->pile[k] > 0)
                actions_add(out, act(K_CHANCE, k, 0));
        break;
    case PH_TURN:
        turn_options(s, out);
        break;
    case PH_KEEP:
        actions_add(out, act(K_KEEP, s->hand[0], 0));
        actions_add(out, act(K_KEEP, s->hand[1], 0));
        break;
    case PH_SNATCH:
        wizard_answers(s, opponent(s->turn), T_SORCERER, K_SNATCH, out);
        actions_add(out, act(K_LETGO, 0, 0));
        break;
    case PH_PLACE:
        placement_options(s, s->holder, s->hand[0], out);
        break;
    case PH_LOSS:
        loss_options(s, out);
        break;
    case PH_BLOCK:
        actions_add(out, act(K_NOBLOCK, 0, 0));
        block_options(s, s->turn, out);
        wizard_end_options(s, s->turn, out);
        break;
    case PH_WARLOCK:
        wizard_answers(s, opponent(s->turn), T_WARLOCK, K_WARLOCK, out);
        actions_add(out, act(K_ACCEPT, 0, 0));
        break;
    default:
        break;
    }
}

/* ------------------------------------------------------------ applying */

static void apply_chance(cas_state *s, uint8_t card, const struct cas_event_sink *ev)
{
    s->pile[card]--;
    s->npile--;
    if (s->phase == PH_SETUP_DRAW) {
        s->setup_card[s->setup_player] = card;
        s->hand[0] = card;
        s->nhand = 1;
        note(ev, s->setup_player, "%s opens with %s", player_name(s->setup_player),
             kind_of(s, card)->name);
        place_step(s, s->setup_player, AFTER_SETUP, ev);
        return;
    }
    note(ev, s->turn, "%s draws %s", player_name(s->turn), kind_of(s, card)->name);
    s->hand[s->nhand++] = card;
    switch (s->purpose) {
    case DRAW_DOUBLE1:
        enter_draw(s, DRAW_DOUBLE2, ev);
        break;
    case DRAW_DOUBLE2:
        s->phase = PH_KEEP;
        break;
    default:
        drawn(s, s->purpose == DRAW_NORMAL, ev);
    }
}

static void keep(cas_state *s, uint8_t card, const struct cas_event_sink *ev)
{
    uint8_t other = s->hand[0] == card ? s->hand[1] : s->hand[0];
    s->hand[0] = card;
    s->hand[1] = NO_CARD;
    s->nhand = 1;
    discard_card(s, other);
    note(ev, s->turn, "%s keeps %s and discards %s", player_name(s->turn),
         kind_of(s, card)->name, kind_of(s, other)->name);
    drawn(s, true, ev);
}

static void top_off(cas_state *s, int stack, int depth, const struct cas_event_sink *ev)
{
    struct stack *st = &s->k[s->turn].st[stack];
    int at = st->n - depth;
    uint8_t card = st->card[at];
    memmove(&st->card[at], &st->card[at + 1], (size_t)(depth - 1));
    st->card[st->n - 1] = card;
    note(ev, s->turn, "%s tops off %s with %s", player_name(s->turn), stack_name(stack),
         kind_of(s, card)->name);
    end_action(s, ev);
}

static void move_card(cas_state *s, int stack, int place, const struct cas_event_sink *ev)
{
    struct kingdom *k = &s->k[s->turn];
    int dst = stack_in_column(stack, place < P_WIZARD0 ? place : place - P_WIZARD0);
    stack_push(&k->st[dst], stack_pop(&k->st[stack]));
    note(ev, s->turn, "%s moves %s from %s to %s", player_name(s->turn),
         kind_of(s, stack_top(&k->st[dst]))->name, stack_name(stack), stack_name(dst));
    end_action(s, ev);
}

static void swap_nobles(cas_state *s, int a, int b, const struct cas_event_sink *ev)
{
    struct kingdom *k = &s->k[s->turn];
    uint8_t t = k->noble[a];
    k->noble[a] = k->noble[b];
    k->noble[b] = t;
    note(ev, s->turn, "%s swaps the NOBLEs of %s and %s", player_name(s->turn),
         place_name(a), place_name(b));
    end_action(s, ev);
}

static void warlock(cas_state *s, int w, const struct cas_event_sink *ev)
{
    int p = opponent(s->turn);
    note(ev, p, "%s's WARLOCK stops the block and draws freely", player_name(p));
    discard_wizard(s, p, w);
    s->pending = PEND_NONE;
    start_turn(s, p, ev);
    if (s->phase == PH_TURN)
        enter_draw(s, DRAW_FREE, ev);
}

static void snatch(cas_state *s, int w, const struct cas_event_sink *ev)
{
    int p = opponent(s->turn);
    const char *why = unkeepable_reason(s, p, s->hand[0]);
    if (why)
        note(ev, p, "%s's SORCERER snatches %s, which %s cannot keep (%s)", player_name(p),
             kind_of(s, s->hand[0])->name, player_name(p), why);
    else
        note(ev, p, "%s's SORCERER snatches %s", player_name(p), kind_of(s, s->hand[0])->name);
    discard_wizard(s, p, w);
    place_step(s, p, AFTER_TURN, ev);
}

static void apply_end_of_turn(cas_state *s, int kind, int a, const struct cas_event_sink *ev)
{
    int p = s->turn;
    switch (kind) {
    case K_BLOCK:
        note(ev, p, "%s announces Block! %d with %s", player_name(p), block_value(s, p, a),
             group_name(a));
        announce(s, PEND_CARDS, a, ev);
        break;
    case K_MAGICIAN:
        note(ev, p, "%s's MAGICIAN blocks the next draw", player_name(p));
        discard_wizard(s, p, a - P_WIZARD0);
        announce(s, PEND_MAGICIAN, 0, ev);
        break;
    case K_ADEPT:
        note(ev, p, "%s's ADEPT blocks the next move", player_name(p));
        discard_wizard(s, p, a - P_WIZARD0);
        announce(s, PEND_ADEPT, 0, ev);
        break;
    default:
        next_turn(s, ev);
    }
}

void turn_apply(cas_state *s, cas_action action, const struct cas_event_sink *ev)
{
    int kind = act_kind(action), a = act_a(action), b = act_b(action);
    switch (kind) {
    case K_CHANCE: apply_chance(s, (uint8_t)a, ev); break;
    case K_DRAW: enter_draw(s, DRAW_NORMAL, ev); break;
    case K_TOPOFF: top_off(s, a, b, ev); break;
    case K_WAR: war_wage(s, a, ev); break;
    case K_MOVE: move_card(s, a, b, ev); break;
    case K_SWAP: swap_nobles(s, a, b, ev); break;
    case K_WITCH: witch_fly(s, a - P_WIZARD0, b, ev); break;
    case K_MAGE: mage_draw(s, a - P_WIZARD0, ev); break;
    case K_SACRIFICE: sacrifice_draw(s, a - P_WIZARD0, ev); break;
    case K_PASS: end_action(s, ev); break;
    case K_KEEP: keep(s, (uint8_t)a, ev); break;
    case K_SNATCH: snatch(s, a - P_WIZARD0, ev); break;
    case K_LETGO: place_step(s, s->turn, AFTER_TURN, ev); break;
    case K_PLACE:
    case K_DISCARD: finish_place(s, action, ev); break;
    case K_LOSE: loss_take(s, a, ev); break;
    case K_WARLOCK: warlock(s, a - P_WIZARD0, ev); break;
    case K_ACCEPT: next_turn(s, ev); break;
    default: apply_end_of_turn(s, kind, a, ev);
    }
}
