/*
 * svg.c — both Kingdoms as card grids (CAS_RENDER_SVG): one self-contained
 * SVG 1.1 document.  Each Kingdom is a row of columns: the royals (CASTLE,
 * WIFE, HEIRS), the ARMY (GENERAL, CHAMPION, ARMS), three noble columns
 * (NOBLE over LANDS, FRUITS, SERFS) and three wizard columns (WIZARD over
 * MINION, MAGICK); a stack shows its top card and how many lie under it.
 * The middle band holds the draw pile (face down: a count, and only for
 * the omniscient viewer what is in it), the discard pile, the cards in
 * play and a pending block — what render_state shows as text, no more.
 * The viewer's own Kingdom is at the bottom, nearest to them.
 */
#include <stdio.h>
#include <string.h>

#include <castellan/outbuf.h>

#include "castles.h"

#define CARD_W 92
#define CARD_H 58
#define GAP 10
#define LEFT 24
#define KINGDOM_H (4 * (CARD_H + GAP) + 40)
#define BAND_H 132
#define WIDTH (LEFT * 2 + 8 * (CARD_W + GAP) + 40)
#define HEIGHT (56 + 2 * KINGDOM_H + BAND_H + 10)

/* The colour family of a card type. */
static const char *family(int type)
{
    switch (type) {
    case T_CASTLE: case T_WIFE: case T_HEIR: return "royal";
    case T_DUKE: case T_COUNT: case T_BARON: return "noble";
    case T_LANDS: case T_FRUITS: case T_SERFS: return "land";
    case T_GENERAL: case T_CHAMPION: case T_ARMS: return "army";
    case T_MINION: case T_MAGICK: return "magic";
    default: return "wizard";
    }
}

/* One card face at x,y; `under` cards lie beneath it (a stack). */
static void card(struct cas_outbuf *v, const cas_state *s, uint8_t c, int x, int y, int under)
{
    const struct card_kind *k = kind_of(s, c);
    for (int i = under < 2 ? under : 2; i > 0; i--)
        cas_outf(v, "<rect class=\"card under\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                    "rx=\"6\"/>", x + 3 * i, y + 3 * i, CARD_W, CARD_H);
    cas_outf(v, "<g class=\"card %s\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"6\"/>"
                "<rect class=\"band\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"16\" rx=\"6\"/>"
                "<text class=\"type\" x=\"%d\" y=\"%d\">%s</text>",
             family(k->type), x, y, CARD_W, CARD_H, x, y, CARD_W, x + 6, y + 12, type_name(k->type));
    if (k->value)
        cas_outf(v, "<text class=\"value\" x=\"%d\" y=\"%d\">%u</text>", x + CARD_W - 8,
                 y + CARD_H - 9, k->value);
    if (under)
        cas_outf(v, "<text class=\"count\" x=\"%d\" y=\"%d\">%d cards</text>", x + 6, y + CARD_H - 9,
                 under + 1);
    cas_outf(v, "</g>");
}

static void empty_slot(struct cas_outbuf *v, const char *label, int x, int y)
{
    cas_outf(v, "<g class=\"slot\"><rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"6\"/>"
                "<text x=\"%d\" y=\"%d\">%s</text></g>", x, y, CARD_W, CARD_H, x + CARD_W / 2,
             y + CARD_H / 2 + 4, label);
}

static void slot_card(struct cas_outbuf *v, const cas_state *s, uint8_t c, const char *label, int x,
                      int y)
{
    if (c == NO_CARD)
        empty_slot(v, label, x, y);
    else
        card(v, s, c, x, y, 0);
}

static void slot_stack(struct cas_outbuf *v, const cas_state *s, const struct kingdom *k, int st,
                       int x, int y)
{
    const char *dot = strchr(stack_name(st), '.');
    const char *label = dot ? dot + 1 : stack_name(st);
    if (k->st[st].n == 0)
        empty_slot(v, label, x, y);
    else
        card(v, s, stack_top(&k->st[st]), x, y, k->st[st].n - 1);
}

static void kingdom(struct cas_outbuf *v, const cas_state *s, int p, int top, int turn)
{
    const struct kingdom *k = &s->k[p];
    int y0 = top + 34;
    cas_outf(v, "<g class=\"kingdom %s\" data-cas-key=\"kingdom-%s\"><rect class=\"area\" x=\"%d\" "
                "y=\"%d\" width=\"%d\" height=\"%d\" rx=\"10\"/>", p ? "blue" : "red",
             p ? "blue" : "red", LEFT - 12, top, WIDTH - 2 * LEFT + 24,
             KINGDOM_H - 8);
    if (turn)
        cas_outf(v, "<rect class=\"turn\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"10\"/>",
                 LEFT - 12, top, WIDTH - 2 * LEFT + 24, KINGDOM_H - 8);
    cas_outf(v, "<text class=\"name\" x=\"%d\" y=\"%d\">%s</text><text class=\"info\" x=\"%d\" "
                "y=\"%d\">progress %d/18, %d points</text>",
             LEFT, top + 24, player_name(p), LEFT + 80, top + 24, kingdom_progress(s, p),
             kingdom_value(s, p));
    int x = LEFT;
    slot_card(v, s, k->castle, "CASTLE", x, y0);
    slot_card(v, s, k->wife, "WIFE", x, y0 + CARD_H + GAP);
    for (int h = 0; h < MAX_HEIRS; h++)
        if (h < k->nheirs)
            card(v, s, k->heir[h], x + 6 * h, y0 + 2 * (CARD_H + GAP) + 6 * h, 0);
    if (!k->nheirs)
        empty_slot(v, "HEIRS", x, y0 + 2 * (CARD_H + GAP));
    x += CARD_W + GAP + 10;
    for (int st = S_GENERAL; st <= S_ARMS; st++)
        slot_stack(v, s, k, st, x, y0 + (st - S_GENERAL) * (CARD_H + GAP));
    x += CARD_W + GAP + 10;
    for (int c = 0; c < COLS; c++, x += CARD_W + GAP) {
        slot_card(v, s, k->noble[c], "NOBLE", x, y0);
        for (int row = 0; row < 3; row++)
            slot_stack(v, s, k, MATRIX_STACK(row, c), x, y0 + (row + 1) * (CARD_H + GAP));
    }
    x += 10;
    for (int w = 0; w < COLS; w++, x += CARD_W + GAP) {
        slot_card(v, s, k->wizard[w], "WIZARD", x, y0);
        slot_stack(v, s, k, MINION_STACK(w), x, y0 + CARD_H + GAP);
        slot_stack(v, s, k, MAGICK_STACK(w), x, y0 + 2 * (CARD_H + GAP));
    }
    cas_outf(v, "</g>\n");
}

/* Draw pile, discard, cards in play and the pending block. */
static void middle_band(struct cas_outbuf *v, const cas_state *s, int viewer, int y)
{
    int x = LEFT;
    cas_outs(v, "<g data-cas-key=\"band\">");
    cas_outf(v, "<g class=\"pile\"><rect class=\"back\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                "rx=\"6\"/><text class=\"back-text\" x=\"%d\" y=\"%d\">%d</text><text class=\"label\" "
                "x=\"%d\" y=\"%d\">draw pile</text></g>", x, y + 20, CARD_W, CARD_H, x + CARD_W / 2,
             y + 20 + CARD_H / 2 + 7, s->npile, x, y + 14);
    x += CARD_W + 2 * GAP;
    cas_outf(v, "<text class=\"label\" x=\"%d\" y=\"%d\">discard (%d)</text>", x, y + 14, s->ndiscard);
    if (s->ndiscard)
        card(v, s, s->discard[s->ndiscard - 1], x, y + 20, 0);
    else
        empty_slot(v, "none", x, y + 20);
    x += CARD_W + 2 * GAP;
    cas_outf(v, "<text class=\"label\" x=\"%d\" y=\"%d\">in play</text>", x, y + 14);
    for (int i = 0; i < s->nhand; i++, x += CARD_W + GAP)
        card(v, s, s->hand[i], x, y + 20, 0);
    int note_x = LEFT + 2 * (CARD_W + 2 * GAP);
    x += s->nhand ? GAP : CARD_W + 2 * GAP;
    if (s->pending == PEND_CARDS)
        cas_outf(v, "<text class=\"note\" x=\"%d\" y=\"%d\">%s blocks with %s (%d)</text>", note_x,
                 y + 104,
                 player_name(s->pending_by), group_name(s->pending_group),
                 block_value(s, s->pending_by, s->pending_group));
    else if (s->pending != PEND_NONE)
        cas_outf(v, "<text class=\"note\" x=\"%d\" y=\"%d\">%s's %s holds</text>", note_x, y + 104,
                 player_name(s->pending_by), s->pending == PEND_MAGICIAN ? "MAGICIAN" : "ADEPT");
    if (viewer != CAS_VIEWER_OMNISCIENT) {
        cas_outs(v, "</g>\n");
        return;
    }
    /* the pile's make-up, six kinds a line, as many lines as the band holds */
    int shown = 0, line = 0;
    cas_outf(v, "<text class=\"label\" x=\"%d\" y=\"%d\">in the draw pile:</text>", x, y + 14);
    for (int kd = 0; kd < s->game->deck.nkinds && line < 7; kd++) {
        if (!s->pile[kd])
            continue;
        if (shown % 6 == 0)
            cas_outf(v, "%s<text class=\"pile-list\" x=\"%d\" y=\"%d\">", shown ? "</text>" : "", x,
                     y + 30 + 14 * line++);
        cas_outf(v, " %s\xc3\x97%d", s->game->deck.kind[kd].name, s->pile[kd]);
        shown++;
    }
    if (shown)
        cas_outf(v, "</text>");
    cas_outs(v, "</g>\n");
}

static const char style[] =
    "<style type=\"text/css\" data-cas-key=\"style\"><![CDATA[\n"
    "text{font-family:'DejaVu Sans',Verdana,sans-serif;fill:#2a2118}\n"
    ".area{fill:#f7f1e2;stroke:#cfc2a0}.turn{fill:none;stroke:#2a2118;stroke-width:3}\n"
    ".red .name{fill:#b01e18}.blue .name{fill:#1f4fa0}.name{font-size:20px;font-weight:bold}"
    ".info{font-size:14px}\n"
    ".card rect{fill:#fffdf6;stroke:#5a4a32;stroke-width:1.5}.card.under{fill:#e9dfc6;"
    "stroke:#8a7a5a}\n"
    ".card .band{stroke:none}.type{font-size:11px;font-weight:bold;fill:#fff}"
    ".value{font-size:22px;font-weight:bold;text-anchor:end}.count{font-size:10px;fill:#6b5b45}\n"
    ".royal .band{fill:#b8860b}.noble .band{fill:#7b3fa0}.land .band{fill:#3f8a3a}"
    ".army .band{fill:#b0302a}.wizard .band{fill:#2a5fa8}.magic .band{fill:#1f8a8a}\n"
    ".slot rect{fill:none;stroke:#bfb191;stroke-width:1.5;stroke-dasharray:5 4}"
    ".slot text{font-size:10px;fill:#a09070;text-anchor:middle}\n"
    ".back{fill:#6b3f1f;stroke:#3a2010;stroke-width:2}.back-text{font-size:22px;font-weight:bold;"
    "fill:#f5e6c8;text-anchor:middle}\n"
    ".label{font-size:12px;fill:#6b5b45}.note{font-size:15px;font-weight:bold}"
    ".pile-list{font-size:11px;fill:#6b5b45}\n"
    ".title{font-size:24px;font-weight:bold}.status{font-size:16px}\n"
    "]]></style>\n";

static void status_text(const cas_state *s, char *buf, size_t cap)
{
    int actor = turn_actor(s);
    if (s->phase == PH_OVER)
        snprintf(buf, cap, "game over: %s", s->winner >= 0 ? player_name(s->winner) : "a draw");
    else
        snprintf(buf, cap, "turn %u, decision of %s", (unsigned)s->turns,
                 actor == CAS_ACTOR_CHANCE ? "chance" : player_name(actor));
}

/* ------------------------------------------------------------ choices */

/* Where slot `slot` of the Kingdom drawn from `top` lies (kingdom()'s
 * layout). */
static void slot_xy(int top, int slot, int *x, int *y)
{
    int y0 = top + 34, royals = LEFT, army = royals + CARD_W + GAP + 10,
        nobles = army + CARD_W + GAP + 10, wizards = nobles + COLS * (CARD_W + GAP) + 10;
    int row = CARD_H + GAP;
    if (slot < S_GENERAL) {
        *x = nobles + (slot % COLS) * (CARD_W + GAP);
        *y = y0 + (slot / COLS + 1) * row;
    } else if (slot <= S_ARMS) {
        *x = army;
        *y = y0 + (slot - S_GENERAL) * row;
    } else if (slot < N_STACKS) {
        *x = wizards + (slot - S_WIZARD0) / 2 * (CARD_W + GAP);
        *y = y0 + (1 + (slot - S_WIZARD0) % 2) * row;
    } else if (slot < SL_WIZARD0) {
        *x = nobles + (slot - SL_NOBLE0) * (CARD_W + GAP);
        *y = y0;
    } else if (slot < SL_CASTLE) {
        *x = wizards + (slot - SL_WIZARD0) * (CARD_W + GAP);
        *y = y0;
    } else {
        *x = royals;
        *y = y0 + (slot - SL_CASTLE) * row;
    }
}

/* Where the element of a first-step key lies: a card's place. */
static void key_xy(int key, int viewer_bottom, int *x, int *y)
{
    int band = 56 + KINGDOM_H;
    switch (MK_TYPE(key)) {
    case MK_SLOT:
        slot_xy(MK_A(key) == viewer_bottom ? band + BAND_H : 56, MK_B(key), x, y);
        return;
    case MK_PILE: *x = LEFT; *y = band + 20; return;
    case MK_DISCARD: *x = LEFT + CARD_W + 2 * GAP; *y = band + 20; return;
    default: *x = LEFT + 2 * (CARD_W + 2 * GAP) + MK_A(key) * (CARD_W + GAP); *y = band + 20;
    }
}

/* The text of a chip (a later step). */
static void chip_text(const cas_state *s, const cas_action *actions, int key, char *buf,
                      size_t cap)
{
    switch (MK_TYPE(key)) {
    case MK_DEPTH: snprintf(buf, cap, "top off %d", MK_A(key)); return;
    case MK_TO: snprintf(buf, cap, "to %s", place_name(MK_A(key))); return;
    case MK_STACK: snprintf(buf, cap, "onto %s", stack_name(MK_A(key))); return;
    default:
        if (notation_text(s, actions[MK_A(key) << 8 | MK_B(key)], buf, cap) < 0)
            snprintf(buf, cap, "?");
    }
}

/* How a decision's marks are drawn: numbers always, the click-to-play
 * attributes when asked. */
struct choice_view {
    const cas_state *s;
    const cas_action *actions;
    const struct castles_marks *m;
    int attributes;
};

/* The choices (and step) of every action whose key at step `step` is
 * `key`, as an opening tag's attributes and the numbers' text. */
static void mark_open(struct cas_outbuf *v, const struct choice_view *cv, int key, int step,
                      const char *cls, char *numbers, size_t cap)
{
    const struct castles_marks *m = cv->m;
    size_t len = 0;
    numbers[0] = '\0';
    cas_outf(v, "<g class=\"mark %s\"", cls);
    if (cv->attributes)
        cas_outs(v, " data-cas-choices=\"");
    int first = 1;
    for (size_t i = 0; i < m->n; i++) {
        if (m->nkeys[i] < step || m->keys[i][step - 1] != key)
            continue;
        if (cv->attributes)
            cas_outf(v, "%s%zu", first ? "" : " ", i);
        if (!cv->attributes && len + 8 < cap) /* typed numbers: not for a pointer */
            len += (size_t)snprintf(numbers + len, cap - len, "%s%zu", first ? "" : ",", i + 1);
        first = 0;
    }
    if (cv->attributes)
        cas_outf(v, "\" data-cas-step=\"%d\"", step);
    cas_outs(v, ">");
}

/* Whether key k of action i is the first with that key at that step. */
static int first_of(const struct castles_marks *m, size_t i, int t)
{
    for (size_t j = 0; j < i; j++)
        if (m->nkeys[j] > t && m->keys[j][t] == m->keys[i][t])
            return 0;
    return 1;
}

#define CHIP_W 140
#define CHIP_H 28
#define CHIPS_ROW 6

/* The chips of later steps, in rows under the Kingdoms from y. */
static int chips_height(const struct castles_marks *m)
{
    int chips = 0;
    for (size_t i = 0; i < m->n; i++)
        for (int t = 1; t < m->nkeys[i]; t++)
            chips += first_of(m, i, t);
    return chips ? 36 + (chips + CHIPS_ROW - 1) / CHIPS_ROW * (CHIP_H + 8) : 0;
}

static void draw_marks(struct cas_outbuf *v, const struct choice_view *cv, int viewer_bottom,
                       int y)
{
    const struct castles_marks *m = cv->m;
    char numbers[64], text[96];
    int chip = 0;
    cas_outs(v, "<g class=\"marks\" data-cas-key=\"marks\">\n");
    for (size_t i = 0; i < m->n; i++)
        if (m->nkeys[i] && first_of(m, i, 0)) {
            int x, cy;
            key_xy(m->keys[i][0], viewer_bottom, &x, &cy);
            mark_open(v, cv, m->keys[i][0], 1, "card-place", numbers, sizeof numbers);
            cas_outf(v, "<rect class=\"hit\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"6\"/>"
                        "<text class=\"choice\" x=\"%d\" y=\"%d\">%s</text></g>\n", x - 2, cy - 2,
                     CARD_W + 4, CARD_H + 4, x + CARD_W - 5, cy + 13, numbers);
        }
    for (int t = 1; t < 4; t++)
        for (size_t i = 0; i < m->n; i++) {
            if (m->nkeys[i] <= t || !first_of(m, i, t))
                continue;
            if (chip == 0)
                cas_outf(v, "<text class=\"label\" x=\"%d\" y=\"%d\">then choose:</text>\n", LEFT,
                         y + 20);
            int x = LEFT + chip % CHIPS_ROW * (CHIP_W + 8),
                cy = y + 30 + chip / CHIPS_ROW * (CHIP_H + 8);
            chip_text(cv->s, cv->actions, m->keys[i][t], text, sizeof text);
            mark_open(v, cv, m->keys[i][t], t + 1, "chip", numbers, sizeof numbers);
            cas_outf(v, "<rect class=\"hit chip\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                        "rx=\"8\"/><text class=\"chip-text\" x=\"%d\" y=\"%d\">%s</text>"
                        "<text class=\"chip-numbers\" x=\"%d\" y=\"%d\">%s</text></g>\n",
                     x, cy, CHIP_W, CHIP_H, x + 8, cy + 18, text, x + CHIP_W - 6, cy + 18, numbers);
            chip++;
        }
    cas_outs(v, "</g>\n");
}

static const char choice_style[] =
    "<style type=\"text/css\" data-cas-key=\"choice-style\"><![CDATA[\n"
    ".mark .hit{fill:#fff;fill-opacity:0.01;stroke:#c0392b;stroke-width:3;cursor:pointer}"
    ".mark .chip{fill:#fffaf0;fill-opacity:1}"
    ".choice{font-size:13px;font-weight:bold;text-anchor:end;fill:#8e1f14;"
    "paint-order:stroke;stroke:#fff;stroke-width:3}"
    ".chip-text{font-size:12px}.chip-numbers{font-size:12px;font-weight:bold;"
    "text-anchor:end;fill:#8e1f14}\n"
    "]]></style>\n";

static int draw(const cas_state *s, int viewer, const struct choice_view *cv,
                const struct cas_writer *out)
{
    struct cas_outbuf v = CAS_OUTBUF_INIT(out);
    char status[96];
    int height = HEIGHT + (cv ? chips_height(cv->m) : 0);
    status_text(s, status, sizeof status);
    cas_outf(&v, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"100%%\" "
                 "height=\"100%%\" viewBox=\"0 0 %d %d\">\n<title data-cas-key=\"title\">Castles</title>\n",
             WIDTH, height);
    cas_outn(&v, style, sizeof style - 1);
    /* in every picture, marked or not: it never travels again */
    cas_outn(&v, choice_style, sizeof choice_style - 1);
    cas_outf(&v, "<rect data-cas-key=\"ground\" width=\"%d\" height=\"%d\" fill=\"#efe8d6\"/>\n"
                 "<g data-cas-key=\"head\"><text class=\"title\" x=\"%d\" y=\"36\">Castles</text>"
                 "<text class=\"status\" x=\"%d\" y=\"36\">%s</text></g>\n",
             WIDTH, height, LEFT, LEFT + 120, status);
    /* the viewer's own Kingdom nearest to them, at the bottom */
    int bottom = viewer == 1 ? 1 : 0, actor = turn_actor(s);
    kingdom(&v, s, 1 - bottom, 56, actor == 1 - bottom);
    middle_band(&v, s, viewer, 56 + KINGDOM_H);
    kingdom(&v, s, bottom, 56 + KINGDOM_H + BAND_H, actor == bottom);
    if (cv)
        draw_marks(&v, cv, bottom, HEIGHT - 10);
    cas_outf(&v, "</svg>\n");
    return cas_out_finish(&v);
}

int render_svg(const cas_state *s, int viewer, const struct cas_writer *out)
{
    return draw(s, viewer, NULL, out);
}

int render_svg_choices(const cas_state *s, int viewer, int attributes,
                       const cas_action *actions, size_t n, const struct cas_writer *out)
{
    const struct cas_host *host = s->game->host;
    struct castles_marks *m = host->alloc(host->ctx, sizeof *m); /* 20 KB: not on the stack */
    if (!m)
        return CAS_ENOMEM;
    castles_marks(s, actions, n, m);
    int any = 0;
    for (size_t i = 0; i < m->n; i++)
        any |= m->nkeys[i] != 0;
    struct choice_view cv = {.s = s, .actions = actions, .m = m, .attributes = attributes};
    int rc = attributes && !any ? CAS_EINVAL : draw(s, viewer, &cv, out);
    host->release(host->ctx, m);
    return rc;
}
