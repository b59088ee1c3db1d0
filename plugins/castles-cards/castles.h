/*
 * castles.h — internal interfaces of the Castles card-game plugin: card
 * kinds and the deck, the Kingdom layout, the game and state handles, and
 * the cross-file functions of the rule subsystems (kingdom, block, war,
 * wizards, turn flow, notation, render, serialize).
 *
 * Everything a state holds is plain data without pointers except `game`,
 * so copies are memcpy and serialization is field by field.  Cards are
 * stored as kind indexes into the game's deck (NO_CARD for none).
 */
#ifndef CASTLES_H
#define CASTLES_H

#include <castellan/plugin.h>
#include <stdbool.h>
#include <stdint.h>

#define NPLAYERS 2
#define MAX_KINDS 128  /* distinct (type, value) cards in a deck file     */
#define MAX_CARDS 250  /* copies in a whole deck                          */
#define STACK_CAP 64   /* copies of one stackable type in a deck          */
#define NO_CARD 0xFF
#define COLS 3         /* noble columns and wizard columns               */
#define MAX_HEIRS 3

enum card_type {
    T_CASTLE, T_WIFE, T_HEIR, T_DUKE, T_COUNT, T_BARON, T_LANDS, T_FRUITS,
    T_SERFS, T_GENERAL, T_CHAMPION, T_ARMS, T_WARLOCK, T_WITCH, T_MAGICIAN,
    T_MAGE, T_SORCERER, T_ADEPT, T_MINION, T_MAGICK, N_TYPES
};

/* Stacks of one Kingdom.  The LANDS/FRUITS/SERFS matrix is row * COLS +
 * column (row 0 LANDS, column 0 the innermost noble, next to the CASTLE);
 * then the ARMY column; then MINION and MAGICK of each wizard column
 * (column 0 innermost). */
enum stack_id {
    S_MATRIX = 0,
    S_GENERAL = 9, S_CHAMPION = 10, S_ARMS = 11,
    S_WIZARD0 = 12, /* S_WIZARD0 + 2 * w + (0 MINION, 1 MAGICK) */
    N_STACKS = 18
};
#define MATRIX_STACK(row, col) (S_MATRIX + (row) * COLS + (col))
#define MINION_STACK(w) (S_WIZARD0 + 2 * (w))
#define MAGICK_STACK(w) (S_WIZARD0 + 2 * (w) + 1)

struct card_kind {
    uint8_t type;       /* enum card_type */
    uint16_t value;     /* points; 0 for the CASTLE */
    uint16_t copies;
    char name[24];      /* canonical lower-case name: "duke70", "castle" */
    uint8_t name_len;
};

struct deck {
    struct card_kind kind[MAX_KINDS];
    int nkinds;
    int total;
    bool provisional;
};

struct cas_game {
    const struct cas_host *host;
    struct deck deck;
    uint32_t max_turns;
    uint8_t max_reshuffles;
};

struct stack {
    uint8_t n;
    uint8_t card[STACK_CAP]; /* card[n - 1] is the top */
};

struct kingdom {
    uint8_t castle, wife;
    uint8_t nheirs, heir[MAX_HEIRS];
    uint8_t noble[COLS];
    uint8_t wizard[COLS];
    struct stack st[N_STACKS];
};

enum phase {
    PH_SETUP_DRAW, /* chance: the opening draw of setup_player            */
    PH_TURN,       /* the turn player picks the turn's one action        */
    PH_DRAW,       /* chance: a draw of the turn player (see purpose)     */
    PH_KEEP,       /* turn player keeps one of the two cards drawn        */
    PH_SNATCH,     /* opponent: Sorcerer snatch or let go                 */
    PH_PLACE,      /* holder picks where the acquired card goes          */
    PH_LOSS,       /* loss_player picks where the next lost card comes from */
    PH_BLOCK,      /* turn player's end of turn: block or not            */
    PH_WARLOCK,    /* blocked player: Warlock or accept                   */
    PH_OVER,
    N_PHASES
};

enum draw_purpose { DRAW_NORMAL, DRAW_FREE, DRAW_DOUBLE1, DRAW_DOUBLE2 };
enum pending_kind { PEND_NONE, PEND_CARDS, PEND_MAGICIAN, PEND_ADEPT };
enum loss_kind { LOSS_BLOCK_ARMY, LOSS_BLOCK_WIZARD, LOSS_WAR_NOBLES, LOSS_WAR_WIZARDS };
enum after_kind { AFTER_SETUP, AFTER_TURN, AFTER_ACQUIRE };
enum end_reason { END_NONE, END_KINGDOM, END_TURNS, END_DECK };

struct cas_state {
    const cas_game *game;
    uint8_t phase, turn, purpose;
    /* the end-of-turn block of `pending_by`, against the other player's next turn */
    uint8_t pending, pending_group, pending_by;
    /* cards in flight: drawn, not yet in a Kingdom nor discarded */
    uint8_t nhand, hand[2];
    uint8_t holder, place_after;    /* PH_PLACE: who places hand[0], then what */
    uint8_t loss_player, loss_kind, loss_col, loss_army_next, loss_after;
    int32_t loss_left;
    uint8_t setup_player, setup_card[NPLAYERS];
    uint8_t reshuffles;
    uint8_t end_reason;
    int8_t winner;                   /* -1: none yet, or a draw */
    uint32_t turns;
    uint16_t npile, ndiscard;
    uint16_t pile[MAX_KINDS];        /* copies of each kind in the draw pile */
    uint8_t discard[MAX_CARDS];      /* discard[ndiscard - 1] is the top */
    struct kingdom k[NPLAYERS];
};

/* True when the other player's end-of-turn block of `kind` binds the turn
 * player now. */
static inline bool under_block(const cas_state *s, int kind)
{
    return s->pending == kind && s->pending_by != s->turn;
}

/* ---------------------------------------------------------- actions */

enum action_kind {
    K_CHANCE = 1, K_DRAW, K_TOPOFF, K_WAR, K_MOVE, K_SWAP, K_WITCH, K_MAGE,
    K_SACRIFICE, K_PASS, K_KEEP, K_SNATCH, K_LETGO, K_PLACE, K_DISCARD,
    K_LOSE, K_BLOCK, K_NOBLOCK, K_MAGICIAN, K_ADEPT, K_WARLOCK, K_ACCEPT,
    N_ACTION_KINDS
};

/* Places: noble columns n1..n3 (0..2), wizard columns w1..w3 (3..5), the
 * WIFE, and `home`: the one place the rules give (CASTLE, HEIR, stacks). */
enum { P_NOBLE0 = 0, P_WIZARD0 = 3, P_WIFE = 6, P_HOME = 7, N_PLACES = 8 };

/* Loss sources: a stack (0..17), or these. */
enum {
    SRC_WIFE = N_STACKS, SRC_HEIR, SRC_ARMY, SRC_NOBLES, SRC_WIZARDS,
    SRC_WIZARD0, /* SRC_WIZARD0 + w: the WIZARD card of column w */
    N_SOURCES = SRC_WIZARD0 + COLS
};

/* Blocking groups: CHAMPION, CHAMPION+ARMS, then per wizard column
 * MINION, MINION+MAGICK, MAGICK alone. */
enum { G_CHAMPION, G_CHAMPION_ARMS, G_WIZARD0, N_GROUPS = G_WIZARD0 + 3 * COLS };

static inline cas_action act(int kind, int a, int b)
{
    return ((cas_action)kind << 24) | ((cas_action)(a & 0xFF) << 16) |
           ((cas_action)(b & 0xFF) << 8);
}
static inline int act_kind(cas_action a) { return (int)((a >> 24) & 0xFF); }
static inline int act_a(cas_action a) { return (int)((a >> 16) & 0xFF); }
static inline int act_b(cas_action a) { return (int)((a >> 8) & 0xFF); }

/* A growing list of legal actions, in a fixed-capacity buffer. */
struct action_list {
    cas_action a[1024];
    size_t n;
};
#define ACTION_LIST_CAP (sizeof ((struct action_list *)0)->a / sizeof(cas_action))
/* Inline: every rule file's option listing calls it once per action. */
static inline void actions_add(struct action_list *l, cas_action a)
{
    if (l->n < ACTION_LIST_CAP)
        l->a[l->n++] = a;
}

/* ---------------------------------------------------------- deck.c */

/* Parse the deck file at `path` into *deck (overwritten only on success).
 * Errors name path:line, the bad value and the fix via host->set_error;
 * returns CAS_EIO or CAS_EDATA. */
int deck_load(const struct cas_host *host, const char *path, struct deck *deck);
/* Upper-case name of a card type ("DUKE"). */
const char *type_name(int type);
bool type_is_wizard(int type);
bool type_is_noble(int type);

/* ---------------------------------------------------------- kingdom.c */

static inline const struct card_kind *kind_of(const cas_state *s, uint8_t card)
{
    return &s->game->deck.kind[card];
}
static inline int type_of(const cas_state *s, uint8_t card) { return kind_of(s, card)->type; }
static inline int value_of(const cas_state *s, uint8_t card) { return kind_of(s, card)->value; }
static inline int opponent(int p) { return 1 - p; }

/* Push onto / pop from the top; pop needs a non-empty stack. */
void stack_push(struct stack *st, uint8_t card);
uint8_t stack_pop(struct stack *st);
static inline uint8_t stack_top(const struct stack *st) { return st->n ? st->card[st->n - 1] : NO_CARD; }
/* Put a card on the discard pile. */
void discard_card(cas_state *s, uint8_t card);
/* True when LANDS/FRUITS/SERFS cell (row, col) is joined to its NOBLE. */
bool matrix_attached(const struct kingdom *k, int row, int col);
/* True when the stack is a Dangler of player p's Kingdom right now. */
bool stack_dangles(const struct kingdom *k, int stack);
/* One bit per stack of k: bit i set when stack i holds a card (N_STACKS
 * is 18). */
unsigned stack_occupancy(const struct kingdom *k);
/* Matrix cells (bit MATRIX_STACK(row, col)): all nine, and those of the
 * first two columns, which have a cell to their right; the MINION stacks,
 * each with its MAGICK stack one bit above. */
#define MATRIX_CELLS 0x1FFu
#define CELLS_WITH_RIGHT 0x0DBu
#define MINION_STACKS ((1u << MINION_STACK(0)) | (1u << MINION_STACK(1)) | (1u << MINION_STACK(2)))

/* The holes of a layout whose occupied stacks are `occupied`: one bit per
 * empty matrix cell with a filled cell below it or to its right, and per
 * wizard column's empty MINION stack under a MAGICK (decision 13). */
static inline unsigned layout_holes(unsigned occupied)
{
    unsigned matrix = occupied & MATRIX_CELLS;
    unsigned matrix_holes = ~matrix & MATRIX_CELLS &
                            ((matrix >> COLS) | ((matrix >> 1) & CELLS_WITH_RIGHT));
    return matrix_holes | (~occupied & (occupied >> 1) & MINION_STACKS);
}

/* True when moving the top card of `src` onto `dst` would make a hole that
 * the layout does not have now: behind the card, or where it lands (a card
 * under an empty cell, or right of one).  docs/rules/castles-cards.md, 16.
 * `occupied` is stack_occupancy(k), computed once for many candidates. */
static inline bool move_makes_hole(const struct kingdom *k, unsigned occupied, int src, int dst)
{
    unsigned after = occupied | 1u << dst;
    if (k->st[src].n == 1)
        after &= ~(1u << src);
    return (layout_holes(after) & ~layout_holes(occupied)) != 0;
}
/* Why holder's Kingdom cannot keep card (a static phrase such as "a WIFE
 * needs a CASTLE"), or NULL when it can. */
const char *unkeepable_reason(const cas_state *s, int holder, uint8_t card);
/* The stack a LANDS/FRUITS/SERFS card of `row` joins (no choice in the rules). */
int matrix_home(const struct kingdom *k, int row);
/* Count of the 18 things a complete Kingdom needs that p already has. */
int kingdom_progress(const cas_state *s, int p);
bool kingdom_complete(const cas_state *s, int p);
/* Points of every card in p's Kingdom. */
int kingdom_value(const cas_state *s, int p);
/* The column (0..2) of a matrix or wizard stack, and the same-row stack of
 * another column. */
static inline int stack_column(int stack)
{
    return stack < S_GENERAL ? stack % COLS : (stack - S_WIZARD0) / 2;
}
static inline int stack_in_column(int stack, int col)
{
    return stack < S_GENERAL ? stack - stack % COLS + col
                             : S_WIZARD0 + 2 * col + (stack - S_WIZARD0) % 2;
}
/* Where hand[0] may go in holder's Kingdom: K_PLACE / K_DISCARD actions. */
void placement_options(const cas_state *s, int holder, uint8_t card, struct action_list *out);
/* Put `card` where `action` (a placement option) says; replaced cards are
 * discarded. */
void place_card(cas_state *s, int holder, uint8_t card, cas_action action);
/* First wizard column of player p holding a WIZARD of `type`, or -1. */
int wizard_column(const cas_state *s, int p, int type);
/* Discard the WIZARD of column w of player p. */
void discard_wizard(cas_state *s, int p, int w);

/* ---------------------------------------------------------- block.c */

/* Blocking groups player p may announce (K_BLOCK actions). */
void block_options(const cas_state *s, int p, struct action_list *out);
/* Point value of group g of player p (0 when it has no cards). */
int block_value(const cas_state *s, int p, int group);
/* Resolve hand[0], drawn by the turn player, against the pending card
 * block.  Continues the flow (acquire, loss, end of turn). */
void block_resolve(cas_state *s, const struct cas_event_sink *ev);

/* ---------------------------------------------------------- war.c */

/* True when p has a CASTLE and a card on each ARMY stack. */
bool war_possible(const cas_state *s, int p);
/* The K_WAR actions of turn player p: each side of the opponent with a card. */
void war_options(const cas_state *s, int p, struct action_list *out);
/* The turn player attacks side SRC_NOBLES or SRC_WIZARDS; starts the loss. */
void war_wage(cas_state *s, int side_source, const struct cas_event_sink *ev);
/* Start a loss of `amount` points for player p; runs forced steps at once
 * and stops at the first choice.  `after` says how the flow continues. */
void loss_start(cas_state *s, int p, int kind, int col, int amount, int after,
                const struct cas_event_sink *ev);
/* The K_LOSE sources open to loss_player now. */
void loss_options(const cas_state *s, struct action_list *out);
/* Lose the next card of `source`, then continue the loss. */
void loss_take(cas_state *s, int source, const struct cas_event_sink *ev);

/* ---------------------------------------------------------- wizards.c */

/* WIZARD actions of the turn player p as the turn's action (K_SACRIFICE,
 * K_WITCH, K_MAGE) and at its end (K_MAGICIAN, K_ADEPT). */
void wizard_turn_options(const cas_state *s, int p, struct action_list *out);
void wizard_end_options(const cas_state *s, int p, struct action_list *out);
/* The powers, for the turn player, with the WIZARD of column w; each
 * continues the flow. */
void witch_fly(cas_state *s, int w, int stack, const struct cas_event_sink *ev);
void mage_draw(cas_state *s, int w, const struct cas_event_sink *ev);
void sacrifice_draw(cas_state *s, int w, const struct cas_event_sink *ev);

/* ---------------------------------------------------------- turn.c */

/* The turn player's possible one actions ("pass" when there is none). */
void turn_options(const cas_state *s, struct action_list *out);
/* Those of turn_options that share action a's kind (all of them for a
 * pass or an unknown kind): a is a legal turn action exactly when it is
 * among them, found without listing every other kind. */
void turn_options_like(const cas_state *s, cas_action a, struct action_list *out);
/* Legal actions of the current actor (unsorted, may repeat). */
void legal_list(const cas_state *s, struct action_list *out);
/* Apply a legal action; continues the flow to the next decision. */
void turn_apply(cas_state *s, cas_action a, const struct cas_event_sink *ev);
/* Whose decision it is (ABI current()). */
int turn_actor(const cas_state *s);
/* The card in hand[0] was drawn by the turn player and may be kept:
 * Sorcerer window, then placement. */
void acquire(cas_state *s, const struct cas_event_sink *ev);
/* The turn player's one action is over: end-of-turn block, next turn. */
void end_action(cas_state *s, const struct cas_event_sink *ev);
/* Continue after a loss finished. */
void after_loss(cas_state *s, const struct cas_event_sink *ev);
/* Enter a chance draw for the turn player (reshuffling if needed). */
void enter_draw(cas_state *s, int purpose, const struct cas_event_sink *ev);
/* A fresh state of `game` before the opening draws. */
void state_reset(cas_state *s, const cas_game *game);

/* Emit an INFO event, visible to all, about `player` (-1: nobody); ev may
 * be NULL (playouts), and then the arguments are not even evaluated. */
void note_emit(const struct cas_event_sink *ev, int player, const char *fmt, ...)
    CAS_PRINTF(3, 4);
#define note(ev, ...) ((ev) ? note_emit((ev), __VA_ARGS__) : (void)0)

/* ---------------------------------------------------------- notation.c */

/* Canonical text of a well-formed code (ABI action_text; CAS_EINVAL for a
 * malformed one) and its parser (ABI parse_action). */
int notation_text(const cas_state *s, cas_action a, char *buf, size_t cap);
int notation_parse(const cas_state *s, const char *text, cas_action *out);
/* Names used in action texts and renders (static strings). */
const char *stack_name(int stack);
const char *source_name(int source);
const char *place_name(int place);
const char *group_name(int group);

/* ---------------------------------------------------------- render.c */

/* ABI render: what `viewer` may see, in TEXT, ANSI or JSON. */
int render_state(const cas_state *s, int viewer, enum cas_render_format format,
                 const struct cas_writer *out);
/* ABI render in SVG (svg.c): both Kingdoms as card grids, for `viewer`. */
int render_svg(const cas_state *s, int viewer, const struct cas_writer *out);
/* The decision as a picture (svg.c): both Kingdoms with each choice's
 * number where it starts, and with the click-to-play marks when
 * `attributes` (CAS_RENDER_SVG_ACTIONS; CAS_EINVAL when nothing is
 * marked). */
int render_svg_choices(const cas_state *s, int viewer, int attributes,
                       const cas_action *actions, size_t n, const struct cas_writer *out);
/* ABI render_choices: the render with the choices numbered at the rows of
 * the deciding player's Kingdom they concern, and the cards in play drawn
 * out with what they do. */
int render_choices(const cas_state *s, int viewer, enum cas_render_format format,
                   const cas_action *actions, size_t n, const struct cas_writer *out);
/* ABI notation_help: how actions are written. */
int notation_help(const struct cas_writer *out);
/* Seat name: "Red", "Blue" ("nobody" otherwise). */
const char *player_name(int p);

/* ---------------------------------------------------------- marks.c */

/* Card slots of a Kingdom as the picture draws them: the 18 stacks
 * (enum stack_id), then these. */
enum { SL_NOBLE0 = N_STACKS, SL_WIZARD0 = SL_NOBLE0 + COLS, SL_CASTLE = SL_WIZARD0 + COLS,
       SL_WIFE, SL_HEIR, N_SLOTS };
/* What a click names: a slot of a Kingdom (a = player, b = slot), the
 * draw pile, the discard pile, a card in play (a = its index), and the
 * chips of later steps: a depth to top off, a place to move to, a stack a
 * WITCH flies to, one action by its text (a, b = its index). */
enum { MK_SLOT, MK_PILE, MK_DISCARD, MK_HAND, MK_DEPTH, MK_TO, MK_STACK, MK_VERB };
#define MK_TYPE(key) ((key) >> 16)
#define MK_A(key) (((key) >> 8) & 0xFF)
#define MK_B(key) ((key) & 0xFF)
#define CASTLES_MARKS_MAX 1024
/* Each action's keys, one per click (key t is step t + 1); none for an
 * action the client shows as a button. */
struct castles_marks {
    size_t n;
    uint8_t nkeys[CASTLES_MARKS_MAX];
    int keys[CASTLES_MARKS_MAX][4];
};
void castles_marks(const cas_state *s, const cas_action *actions, size_t n,
                   struct castles_marks *m);

/* ---------------------------------------------------------- serialize.c */

/* ABI serialize / deserialize (into caller's *out, which holds garbage on
 * failure) / hash: FNV-1a of the serialized bytes. */
int state_serialize(const cas_state *s, uint8_t *buf, size_t cap, size_t *len);
int state_deserialize(const cas_game *game, const uint8_t *buf, size_t len, cas_state *out);
uint64_t state_hash(const cas_state *s);
/* Every copy of every kind is in exactly one place (pile, discard,
 * Kingdoms, hand).  Used by deserialize and tests. */
bool cards_conserved(const cas_state *s);

#define CASTLES_ENCODING 1u

#endif
