/*
 * kingdom.c — the Kingdom layout: stacks, where an acquired card goes
 * (NOBLEs left to right, WIZARDs from the centre out, the LANDS/FRUITS/SERFS
 * matrix without holes), what is joined and what dangles, and what a
 * complete Kingdom needs.
 */
#include "castles.h"

void stack_push(struct stack *st, uint8_t card)
{
    /* deck_load bounds every stackable type's copies by STACK_CAP */
    st->card[st->n++] = card;
}

uint8_t stack_pop(struct stack *st)
{
    return st->card[--st->n];
}

void discard_card(cas_state *s, uint8_t card)
{
    s->discard[s->ndiscard++] = card;
}

bool matrix_attached(const struct kingdom *k, int row, int col)
{
    if (k->noble[col] == NO_CARD)
        return false;
    for (int r = 0; r <= row; r++)
        if (k->st[MATRIX_STACK(r, col)].n == 0)
            return false;
    return true;
}

bool stack_dangles(const struct kingdom *k, int stack)
{
    if (k->st[stack].n == 0)
        return false;
    if (stack < S_GENERAL)
        return !matrix_attached(k, stack / COLS, stack % COLS);
    /* with or without a CASTLE: docs/rules/castles-cards.md, 14 */
    if (stack == S_CHAMPION || stack == S_ARMS)
        return k->st[S_GENERAL].n == 0;
    if (stack >= S_WIZARD0)
        return k->wizard[(stack - S_WIZARD0) / 2] == NO_CARD;
    return false;
}

/* Written out stack by stack: it runs at every listing of Moves, and the
 * loop cost twice the test itself. */
unsigned stack_occupancy(const struct kingdom *k)
{
#define HOLDS(i) ((unsigned)(k->st[i].n > 0) << (i))
    return HOLDS(0) | HOLDS(1) | HOLDS(2) | HOLDS(3) | HOLDS(4) | HOLDS(5) | HOLDS(6) |
           HOLDS(7) | HOLDS(8) | HOLDS(9) | HOLDS(10) | HOLDS(11) | HOLDS(12) | HOLDS(13) |
           HOLDS(14) | HOLDS(15) | HOLDS(16) | HOLDS(17);
#undef HOLDS
}

int matrix_home(const struct kingdom *k, int row)
{
    for (int col = 0; col < COLS; col++) {
        if (k->st[MATRIX_STACK(row, col)].n > 0 || k->noble[col] == NO_CARD)
            continue;
        bool above = row == 0 || k->st[MATRIX_STACK(row - 1, col)].n > 0;
        bool left = col == 0 || k->st[MATRIX_STACK(row, col - 1)].n > 0;
        if (above && left)
            return MATRIX_STACK(row, col);
    }
    return MATRIX_STACK(row, 0); /* piles up beneath the first NOBLE */
}

static bool noble_is(const cas_state *s, const struct kingdom *k, int col, int type)
{
    return k->noble[col] != NO_CARD && type_of(s, k->noble[col]) == type;
}

int kingdom_progress(const cas_state *s, int p)
{
    const struct kingdom *k = &s->k[p];
    int got = (k->castle != NO_CARD) + (k->wife != NO_CARD) + (k->nheirs > 0);
    got += noble_is(s, k, 0, T_DUKE) + noble_is(s, k, 1, T_COUNT) + noble_is(s, k, 2, T_BARON);
    for (int row = 0; row < 3; row++)
        for (int col = 0; col < COLS; col++)
            got += matrix_attached(k, row, col);
    for (int st = S_GENERAL; st <= S_ARMS; st++)
        got += k->st[st].n > 0;
    return got;
}

/* All 18 things of kingdom_progress, the cheap ones asked first: it runs
 * after every card kept and every turn action. */
bool kingdom_complete(const cas_state *s, int p)
{
    const struct kingdom *k = &s->k[p];
    if (k->castle == NO_CARD || k->wife == NO_CARD || k->nheirs == 0 ||
        k->st[S_GENERAL].n == 0 || k->st[S_CHAMPION].n == 0 || k->st[S_ARMS].n == 0 ||
        !noble_is(s, k, 0, T_DUKE) || !noble_is(s, k, 1, T_COUNT) || !noble_is(s, k, 2, T_BARON))
        return false;
    for (int cell = 0; cell < 3 * COLS; cell++)
        if (k->st[S_MATRIX + cell].n == 0)
            return false; /* with every NOBLE there, a full matrix is all joined */
    return true;
}

static int card_points(const cas_state *s, uint8_t card)
{
    return card == NO_CARD ? 0 : value_of(s, card);
}

int kingdom_value(const cas_state *s, int p)
{
    const struct kingdom *k = &s->k[p];
    int sum = card_points(s, k->wife);
    for (int i = 0; i < k->nheirs; i++)
        sum += card_points(s, k->heir[i]);
    for (int c = 0; c < COLS; c++)
        sum += card_points(s, k->noble[c]) + card_points(s, k->wizard[c]);
    for (int st = 0; st < N_STACKS; st++)
        for (int i = 0; i < k->st[st].n; i++)
            sum += card_points(s, k->st[st].card[i]);
    return sum;
}

int wizard_column(const cas_state *s, int p, int type)
{
    for (int w = 0; w < COLS; w++)
        if (s->k[p].wizard[w] != NO_CARD && type_of(s, s->k[p].wizard[w]) == type)
            return w;
    return -1;
}

void discard_wizard(cas_state *s, int p, int w)
{
    discard_card(s, s->k[p].wizard[w]);
    s->k[p].wizard[w] = NO_CARD;
}

static int first_free(const uint8_t *slots)
{
    for (int c = 0; c < COLS; c++)
        if (slots[c] == NO_CARD)
            return c;
    return -1;
}

/* NOBLEs and WIZARDs fill the next free column; with all three taken the
 * new card may Upgrade (replace) any of them, or be discarded. */
static void column_card_options(uint8_t card, const uint8_t *slots, int first_place,
                                struct action_list *out)
{
    int free_col = first_free(slots);
    if (free_col >= 0) {
        actions_add(out, act(K_PLACE, card, first_place + free_col));
        return;
    }
    for (int c = 0; c < COLS; c++)
        actions_add(out, act(K_PLACE, card, first_place + c));
    actions_add(out, act(K_DISCARD, card, 0));
}

const char *unkeepable_reason(const cas_state *s, int holder, uint8_t card)
{
    const struct kingdom *k = &s->k[holder];
    switch (type_of(s, card)) {
    case T_CASTLE:
        return k->castle != NO_CARD ? "a second CASTLE" : NULL;
    case T_WIFE:
        if (k->castle == NO_CARD)
            return "a WIFE needs a CASTLE";
        return k->wife != NO_CARD && value_of(s, k->wife) >= value_of(s, card)
                   ? "the WIFE kept is worth as much or more" : NULL;
    case T_HEIR:
        if (k->wife == NO_CARD)
            return "an HEIR needs a WIFE";
        return k->nheirs >= MAX_HEIRS ? "three HEIRs already" : NULL;
    default:
        return NULL;
    }
}

void placement_options(const cas_state *s, int holder, uint8_t card, struct action_list *out)
{
    const struct kingdom *k = &s->k[holder];
    int type = type_of(s, card);
    bool home = !unkeepable_reason(s, holder, card);
    if (type == T_WIFE) {
        /* a WIFE beside a kept one is an Upgrade: keeping the old is a choice */
        if (home)
            actions_add(out, act(K_PLACE, card, P_WIFE));
        if (!home || k->wife != NO_CARD)
            actions_add(out, act(K_DISCARD, card, 0));
        return;
    }
    if (type_is_noble(type)) {
        column_card_options(card, k->noble, P_NOBLE0, out);
        return;
    } else if (type_is_wizard(type)) {
        column_card_options(card, k->wizard, P_WIZARD0, out);
        return;
    } else if (type == T_MINION || type == T_MAGICK) {
        for (int w = 0; w < COLS; w++)
            actions_add(out, act(K_PLACE, card, P_WIZARD0 + w));
        return;
    }
    actions_add(out, home ? act(K_PLACE, card, P_HOME) : act(K_DISCARD, card, 0));
}

static void replace_slot(cas_state *s, uint8_t *slot, uint8_t card)
{
    if (*slot != NO_CARD)
        discard_card(s, *slot);
    *slot = card;
}

static int home_stack(const struct kingdom *k, int type)
{
    switch (type) {
    case T_LANDS: return matrix_home(k, 0);
    case T_FRUITS: return matrix_home(k, 1);
    case T_SERFS: return matrix_home(k, 2);
    case T_GENERAL: return S_GENERAL;
    case T_CHAMPION: return S_CHAMPION;
    default: return S_ARMS;
    }
}

void place_card(cas_state *s, int holder, uint8_t card, cas_action action)
{
    struct kingdom *k = &s->k[holder];
    int type = type_of(s, card), place = act_b(action);
    if (act_kind(action) == K_DISCARD) {
        discard_card(s, card);
    } else if (type == T_CASTLE) {
        k->castle = card;
    } else if (type == T_HEIR) {
        k->heir[k->nheirs++] = card;
    } else if (place == P_WIFE) {
        replace_slot(s, &k->wife, card);
    } else if (type_is_noble(type)) {
        replace_slot(s, &k->noble[place - P_NOBLE0], card);
    } else if (type_is_wizard(type)) {
        replace_slot(s, &k->wizard[place - P_WIZARD0], card);
    } else if (type == T_MINION || type == T_MAGICK) {
        int w = place - P_WIZARD0;
        stack_push(&k->st[type == T_MINION ? MINION_STACK(w) : MAGICK_STACK(w)], card);
    } else {
        stack_push(&k->st[home_stack(k, type)], card);
    }
}
