/*
 * render.c — what a viewer may see: both Kingdoms, the discard pile, the
 * card being resolved, the pending block, whose decision it is.  Drawn
 * cards are shown (the rules compare them openly); the draw pile is only a
 * count, and its make-up is shown to the omniscient viewer alone.  The
 * pile has no order to leak: a draw is a chance outcome when it happens.
 */
#include <string.h>

#include <castellan/outbuf.h>

#include "castles.h"

static const char *const players[NPLAYERS] = {"Red", "Blue"};
static const char *const phase_names[N_PHASES] = {
    "setup-draw", "turn", "draw", "keep", "snatch", "place", "loss", "block", "warlock", "over",
};
static const char *const pending_names[] = {"none", "block", "magician", "adept"};

const char *player_name(int p)
{
    return p >= 0 && p < NPLAYERS ? players[p] : "nobody";
}

/* The rows of a Kingdom in TEXT: the royals' line, the ARMY, the noble
 * columns n1..n3 and the wizard columns w1..w3. */
enum { ROW_ROYALS, ROW_ARMY, ROW_NOBLE0, ROW_WIZARD0 = ROW_NOBLE0 + COLS,
       N_ROWS = ROW_WIZARD0 + COLS, NO_ROW = -1 };

#define MARK_MAX 40

/* Renders run at every step of a conformance check: they avoid printf
 * where they can and write through a buffer. */
struct view {
    const cas_state *s;
    bool ansi, json;
    size_t column; /* TEXT: characters since the last newline */
    /* the decision view: choice numbers at the end of the rows of the
     * deciding player's Kingdom they concern ("" for none) */
    int marked;    /* whose Kingdom carries them, -1 none */
    char marks[N_ROWS][MARK_MAX];
    struct cas_outbuf ob;
};

static void emit(struct view *v, const char *text)
{
    size_t n = strlen(text);
    if (!v->json) {
        size_t line_start = n;
        while (line_start > 0 && text[line_start - 1] != '\n')
            line_start--;
        v->column = line_start ? n - line_start : v->column + n;
    }
    cas_outn(&v->ob, text, n);
}

static void emitf(struct view *v, const char *fmt, ...) CAS_PRINTF(2, 3);
static void emitf(struct view *v, const char *fmt, ...)
{
    char text[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    emit(v, text);
}

static void emit_int(struct view *v, int n)
{
    char digits[16], *at = digits + sizeof digits;
    unsigned u = n < 0 ? 0u - (unsigned)n : (unsigned)n;
    *--at = '\0';
    do
        *--at = (char)('0' + u % 10);
    while (u /= 10);
    if (n < 0)
        *--at = '-';
    emit(v, at);
}

/* `text` left-aligned in `width` columns. */
static void emit_padded(struct view *v, const char *text, size_t width)
{
    static const char spaces[] = "                        ";
    size_t n = strlen(text);
    emit(v, text);
    if (n < width && width - n < sizeof spaces)
        emit(v, spaces + sizeof spaces - 1 - (width - n));
}

static const char *card_text(const cas_state *s, uint8_t card)
{
    return card == NO_CARD ? "-" : s->game->deck.kind[card].name;
}

/* Cards bottom to top: "[a b c]" in text, ["a","b","c"] in JSON (the hot
 * path of a render: one call per stack). */
static void emit_cards(struct view *v, const uint8_t *cards, int n)
{
    if (v->json) {
        cas_outn(&v->ob, "[", 1);
        for (int i = 0; i < n; i++) {
            bool none = cards[i] == NO_CARD; /* an empty NOBLE or WIZARD column */
            const struct card_kind *kind = none ? NULL : kind_of(v->s, cards[i]);
            cas_outn(&v->ob, &",\""[!i], 2 - !i);
            cas_outn(&v->ob, none ? "-" : kind->name, none ? 1 : kind->name_len);
            cas_outn(&v->ob, "\"", 1);
        }
        cas_outn(&v->ob, "]", 1);
        return;
    }
    emit(v, "[");
    for (int i = 0; i < n; i++) {
        /* TEXT fits 80 columns: long stacks wrap under themselves */
        if (i && v->column + strlen(card_text(v->s, cards[i])) + 2 > 80)
            emit(v, "\n                   ");
        else if (i)
            emit(v, " ");
        emit(v, card_text(v->s, cards[i]));
    }
    emit(v, "]");
}

/* The CASTLE, WIFE and HEIRS, each after its label in `label` (the one
 * sequence both formats share; only the labels differ). */
static void emit_royals(struct view *v, const struct kingdom *k, const char *const label[3])
{
    emit(v, label[0]);
    emit(v, card_text(v->s, k->castle));
    emit(v, label[1]);
    emit(v, card_text(v->s, k->wife));
    emit(v, label[2]);
    emit_cards(v, k->heir, k->nheirs);
}

/* The draw pile's make-up for the omniscient viewer: each kind still in
 * it as `lead` (`first_lead` the first time), its name, `mid`, its count. */
static void emit_pile(struct view *v, const char *first_lead, const char *lead, const char *mid)
{
    const cas_state *s = v->s;
    bool first = true;
    for (int k = 0; k < s->game->deck.nkinds; k++) {
        if (!s->pile[k])
            continue;
        emit(v, first ? first_lead : lead);
        emit(v, card_text(s, (uint8_t)k));
        emit(v, mid);
        emit_int(v, s->pile[k]);
        first = false;
    }
}

/* ------------------------------------------------------------ JSON */

static void json_kingdom(struct view *v, int p)
{
    const cas_state *s = v->s;
    const struct kingdom *k = &s->k[p];
    static const char *const labels[3] = {"\",\"castle\":\"", "\",\"wife\":\"", "\",\"heirs\":"};
    emit(v, "{\"name\":\"");
    emit(v, player_name(p));
    emit_royals(v, k, labels);
    emit(v, ",\"nobles\":");
    emit_cards(v, k->noble, COLS);
    emit(v, ",\"wizards\":");
    emit_cards(v, k->wizard, COLS);
    emit(v, ",\"stacks\":{"); /* the stacks that hold cards */
    bool first = true;
    for (int st = 0; st < N_STACKS; st++) {
        if (!k->st[st].n)
            continue;
        emit(v, first ? "\"" : ",\"");
        emit(v, stack_name(st));
        emit(v, "\":");
        emit_cards(v, k->st[st].card, k->st[st].n);
        first = false;
    }
    emit(v, "},\"progress\":");
    emit_int(v, kingdom_progress(s, p));
    emit(v, ",\"value\":");
    emit_int(v, kingdom_value(s, p));
    emit(v, "}");
}

static void json_state(struct view *v, int viewer)
{
    const cas_state *s = v->s;
    emit(v, "{\"game\":\"castles-cards\",\"viewer\":");
    emit_int(v, viewer);
    emit(v, ",\"phase\":\"");
    emit(v, phase_names[s->phase]);
    emit(v, "\",\"actor\":");
    emit_int(v, turn_actor(s));
    emit(v, ",\"turn\":");
    emit_int(v, s->turn);
    emit(v, ",\"turns\":");
    emit_int(v, (int)s->turns);
    emit(v, ",\"winner\":");
    emit_int(v, s->winner);
    emit(v, ",\"draw_pile\":");
    emit_int(v, s->npile);
    emit(v, ",\"reshuffles\":");
    emit_int(v, s->reshuffles);
    emit(v, ",\"discard\":");
    emit_cards(v, s->discard, s->ndiscard);
    emit(v, ",\"hand\":");
    emit_cards(v, s->hand, s->nhand);
    emitf(v, ",\"pending\":{\"kind\":\"%s\",\"by\":%d", pending_names[s->pending],
          s->pending ? s->pending_by : -1);
    if (s->pending == PEND_CARDS)
        emitf(v, ",\"with\":\"%s\",\"value\":%d", group_name(s->pending_group),
              block_value(s, s->pending_by, s->pending_group));
    emit(v, "}");
    if (viewer == CAS_VIEWER_OMNISCIENT) {
        emit(v, ",\"draw_pile_cards\":{");
        emit_pile(v, "\"", ",\"", "\":");
        emit(v, "}");
    }
    emit(v, ",\"players\":[");
    for (int p = 0; p < NPLAYERS; p++) {
        emit(v, p ? "," : "");
        json_kingdom(v, p);
    }
    emit(v, "]}\n");
}

/* ------------------------------------------------------------ text */

static void text_stack(struct view *v, const struct kingdom *k, int st)
{
    if (k->st[st].n == 0)
        return;
    const char *dot = strchr(stack_name(st), '.');
    const char *label = dot ? dot + 1 : stack_name(st);
    size_t first = strlen(card_text(v->s, k->st[st].card[0]));
    emit(v, v->column + strlen(label) + first + 3 > 80 ? "\n                  " : " ");
    emit(v, label);
    emit_cards(v, k->st[st].card, k->st[st].n);
    if (stack_dangles(k, st))
        emit(v, "*");
}

/* A column's row in TEXT starts with its place and its NOBLE or WIZARD. */
static void text_column_head(struct view *v, int place, uint8_t card)
{
    emit(v, "  ");
    emit(v, place_name(place));
    emit(v, " ");
    emit_padded(v, card_text(v->s, card), 12);
}

/* "  <- 1,3" after a row that choices concern, in the decision view. */
static void text_marks(struct view *v, int p, int row)
{
    if (v->marked != p || !v->marks[row][0])
        return;
    emit(v, v->ansi ? "  \x1b[1;33m<- " : "  <- ");
    emit(v, v->marks[row]);
    emit(v, v->ansi ? "\x1b[0m" : "");
}

static void text_kingdom(struct view *v, int p)
{
    static const char *const labels[3] = {"  CASTLE ", "  WIFE ", "  HEIRS "};
    const cas_state *s = v->s;
    const struct kingdom *k = &s->k[p];
    emit(v, v->ansi ? (p ? "\x1b[1;34m" : "\x1b[1;31m") : "");
    emit(v, player_name(p));
    emit(v, v->ansi ? "\x1b[0m" : "");
    emit(v, "  progress ");
    emit_int(v, kingdom_progress(s, p));
    emit(v, "/18, ");
    emit_int(v, kingdom_value(s, p));
    emit(v, " points\n");
    emit_royals(v, k, labels);
    text_marks(v, p, ROW_ROYALS);
    emit(v, "\n  ARMY");
    for (int st = S_GENERAL; st <= S_ARMS; st++)
        text_stack(v, k, st);
    text_marks(v, p, ROW_ARMY);
    emit(v, "\n");
    for (int c = 0; c < COLS; c++) {
        text_column_head(v, P_NOBLE0 + c, k->noble[c]);
        for (int row = 0; row < 3; row++)
            text_stack(v, k, MATRIX_STACK(row, c));
        text_marks(v, p, ROW_NOBLE0 + c);
        emit(v, "\n");
    }
    for (int w = 0; w < COLS; w++) {
        text_column_head(v, P_WIZARD0 + w, k->wizard[w]);
        text_stack(v, k, MINION_STACK(w));
        text_stack(v, k, MAGICK_STACK(w));
        text_marks(v, p, ROW_WIZARD0 + w);
        emit(v, "\n");
    }
}

static void text_state(struct view *v, int viewer)
{
    const cas_state *s = v->s;
    emitf(v, "Castles  turn %u  %s", (unsigned)s->turns, phase_names[s->phase]);
    if (s->phase == PH_OVER)
        emitf(v, ": %s\n", s->winner >= 0 ? player_name(s->winner) : "draw");
    else
        emitf(v, ", decision of %s\n",
              turn_actor(s) == CAS_ACTOR_CHANCE ? "chance" : player_name(turn_actor(s)));
    emitf(v, "Draw pile %d cards (reshuffled %d)  Discard %d, top %s\n", s->npile,
          s->reshuffles, s->ndiscard, s->ndiscard ? card_text(s, s->discard[s->ndiscard - 1]) : "-");
    if (s->nhand) {
        emit(v, "In play ");
        emit_cards(v, s->hand, s->nhand);
        emit(v, "\n");
    }
    if (s->pending == PEND_CARDS)
        emitf(v, "%s blocks with %s (%d)\n", player_name(s->pending_by),
              group_name(s->pending_group), block_value(s, s->pending_by, s->pending_group));
    else if (s->pending != PEND_NONE)
        emitf(v, "%s's %s holds\n", player_name(s->pending_by), pending_names[s->pending]);
    if (viewer == CAS_VIEWER_OMNISCIENT) {
        emit(v, "Pile:");
        emit_pile(v, " ", " ", " x");
        emit(v, "\n");
    }
    for (int p = 0; p < NPLAYERS; p++)
        text_kingdom(v, p);
}

int render_state(const cas_state *s, int viewer, enum cas_render_format format,
                 const struct cas_writer *out)
{
    if (viewer < CAS_VIEWER_OMNISCIENT || viewer >= NPLAYERS)
        return CAS_EINVAL;
    if (format == CAS_RENDER_SVG)
        return render_svg(s, viewer, out);
    if (format != CAS_RENDER_JSON && format != CAS_RENDER_TEXT && format != CAS_RENDER_ANSI)
        return CAS_EINVAL;
    struct view v = {.s = s, .ob = CAS_OUTBUF_INIT(out), .ansi = format == CAS_RENDER_ANSI,
                     .json = format == CAS_RENDER_JSON, .marked = -1};
    if (v.json)
        json_state(&v, viewer);
    else
        text_state(&v, viewer);
    return cas_out_finish(&v.ob);
}

/* ------------------------------------------------------- decision view */

/* What each type of card is for, in a line (the rulebook's "The Cards"). */
static const char *const type_meanings[N_TYPES] = {
    [T_CASTLE] = "unites the Kingdom; needed to win; never lost, never blocked",
    [T_WIFE] = "needs a CASTLE; one per Kingdom, may be upgraded; a Dangler",
    [T_HEIR] = "needs a WIFE; up to three; a Dangler",
    [T_DUKE] = "NOBLE: heads a column; you need DUKE, COUNT, BARON in that order",
    [T_COUNT] = "NOBLE: heads a column; you need DUKE, COUNT, BARON in that order",
    [T_BARON] = "NOBLE: heads a column; you need DUKE, COUNT, BARON in that order",
    [T_LANDS] = "stacks in the first row under a NOBLE",
    [T_FRUITS] = "stacks in the second row under a NOBLE, below LANDS",
    [T_SERFS] = "stacks in the third row under a NOBLE, below FRUITS",
    [T_GENERAL] = "ARMY: controls CHAMPION and ARMS once there is a CASTLE",
    [T_CHAMPION] = "ARMY and Blocker, alone or with ARMS",
    [T_ARMS] = "ARMY: adds to a CHAMPION's Block; no power alone",
    [T_WARLOCK] = "WIZARD, Stop Block: when you are blocked, discard it and draw freely",
    [T_WITCH] = "WIZARD, Skip Row: fly a card from an inner column over a full one",
    [T_MAGICIAN] = "WIZARD, Block Draw: at the end of your turn, stop the next draw",
    [T_MAGE] = "WIZARD, Draw Discard: take the top of the discard pile, unblocked",
    [T_SORCERER] = "WIZARD, Snatch Draw: take the card the opponent just drew",
    [T_ADEPT] = "WIZARD, Block Move: at the end of your turn, stop the next move",
    [T_MINION] = "Blocker under a WIZARD, alone or with MAGICK",
    [T_MAGICK] = "stacks on a MINION and adds to its Block; no power alone",
};

#define CARD_WIDTH 14

/* The cards in play drawn as cards side by side (type, value), each
 * followed by a line on what its type does. */
static void text_cards_in_play(struct view *v)
{
    const cas_state *s = v->s;
    static const char edge[] = "+------------+";
    char line[3][64];
    for (int row = 0; row < 3; row++)
        line[row][0] = '\0';
    for (int i = 0; i < s->nhand; i++) {
        const struct card_kind *kind = kind_of(s, s->hand[i]);
        char value[8] = "";
        if (kind->type != T_CASTLE)
            snprintf(value, sizeof value, "%u", (unsigned)kind->value);
        size_t at = strlen(line[0]);
        snprintf(line[0] + at, sizeof line[0] - at, "%s  ", edge);
        snprintf(line[1] + at, sizeof line[1] - at, "| %-10s |  ", type_name(kind->type));
        snprintf(line[2] + at, sizeof line[2] - at, "| %10s |  ", value);
    }
    emit(v, s->nhand > 1 ? "Cards in play:\n" : "Card in play:\n");
    for (int row = 0; row < 3; row++) {
        size_t len = strlen(line[row]);
        while (len > 0 && line[row][len - 1] == ' ')
            line[row][--len] = '\0';
    }
    for (int row = 0; row < 4; row++) {
        emit(v, row == 3 ? line[0] : line[row]);
        emit(v, "\n");
    }
    for (int i = 0; i < s->nhand; i++) {
        const struct card_kind *kind = kind_of(s, s->hand[i]);
        emitf(v, "  %s: %s\n", kind->name, type_meanings[kind->type]);
    }
}

static int row_of_stack(int stack)
{
    if (stack < S_GENERAL)
        return ROW_NOBLE0 + stack % COLS;
    if (stack <= S_ARMS)
        return ROW_ARMY;
    return stack < N_STACKS ? ROW_WIZARD0 + (stack - S_WIZARD0) / 2 : NO_ROW;
}

/* The row a card placed at `place` by p ends up in. */
static int row_of_place(const cas_state *s, int p, int place, uint8_t card)
{
    if (place < P_WIZARD0)
        return ROW_NOBLE0 + place - P_NOBLE0;
    if (place < P_WIFE)
        return ROW_WIZARD0 + place - P_WIZARD0;
    if (place == P_WIFE || card == NO_CARD)
        return ROW_ROYALS;
    int type = type_of(s, card);
    if (type >= T_LANDS && type <= T_SERFS)
        return row_of_stack(matrix_home(&s->k[p], type - T_LANDS));
    if (type >= T_GENERAL && type <= T_ARMS)
        return ROW_ARMY;
    return ROW_ROYALS;
}

static int row_of_source(int source)
{
    if (source < N_STACKS)
        return row_of_stack(source);
    if (source == SRC_WIFE || source == SRC_HEIR)
        return ROW_ROYALS;
    if (source == SRC_ARMY)
        return ROW_ARMY;
    if (source >= SRC_WIZARD0 && source < N_SOURCES)
        return ROW_WIZARD0 + source - SRC_WIZARD0;
    return NO_ROW;
}

/* The row of the actor's Kingdom that action a changes or uses first, or
 * NO_ROW (a draw, a war on the other Kingdom, a discard, a block). */
static int row_of_action(const cas_state *s, int p, cas_action a)
{
    switch (act_kind(a)) {
    case K_PLACE: return row_of_place(s, p, act_b(a), (uint8_t)act_a(a));
    case K_TOPOFF:
    case K_MOVE: return row_of_stack(act_a(a));
    case K_LOSE: return row_of_source(act_a(a));
    case K_SWAP:
    case K_WITCH:
    case K_MAGE:
    case K_SACRIFICE:
    case K_SNATCH:
    case K_MAGICIAN:
    case K_ADEPT:
    case K_WARLOCK: return row_of_place(s, p, act_a(a), NO_CARD);
    default: return NO_ROW;
    }
}

static void mark_choices(struct view *v, const cas_action *actions, size_t n)
{
    int p = turn_actor(v->s);
    if (p < 0 || p >= NPLAYERS)
        return;
    v->marked = p;
    for (size_t i = 0; i < n; i++) {
        int row = row_of_action(v->s, p, actions[i]);
        if (row == NO_ROW)
            continue;
        char *mark = v->marks[row];
        size_t len = strlen(mark);
        if (len + 6 < MARK_MAX)
            snprintf(mark + len, MARK_MAX - len, "%s%zu", len ? "," : "", i + 1);
    }
}

int render_choices(const cas_state *s, int viewer, enum cas_render_format format,
                   const cas_action *actions, size_t n, const struct cas_writer *out)
{
    if (format == CAS_RENDER_JSON)
        return render_state(s, viewer, format, out);
    if (format == CAS_RENDER_SVG || format == CAS_RENDER_SVG_ACTIONS)
        return render_svg_choices(s, viewer, format == CAS_RENDER_SVG_ACTIONS, actions, n, out);
    if (viewer < CAS_VIEWER_OMNISCIENT || viewer >= NPLAYERS ||
        (format != CAS_RENDER_TEXT && format != CAS_RENDER_ANSI))
        return CAS_EINVAL;
    struct view v = {.s = s, .ob = CAS_OUTBUF_INIT(out), .ansi = format == CAS_RENDER_ANSI,
                     .marked = -1};
    mark_choices(&v, actions, n);
    text_state(&v, viewer);
    if (s->nhand)
        text_cards_in_play(&v);
    bool any_mark = false;
    for (int row = 0; row < N_ROWS; row++)
        any_mark |= v.marks[row][0] != '\0';
    if (any_mark)
        emitf(&v, "(<- N: choice N changes or uses that row of %s's Kingdom)\n",
              player_name(v.marked));
    return cas_out_finish(&v.ob);
}
