/*
 * svg.c — the castle as a picture (CAS_RENDER_SVG): one self-contained SVG
 * 1.1 document.  The grid is drawn from the board file (wall spaces as
 * stone, the interior as ground, start spaces marked) and every placed tile
 * from its kind's own slots: each of its eight half-sides is a wedge from
 * the centre in its feature's colour (house, tower, court), paths run from
 * their sides to the centre, with a fountain where a path has one and the
 * markets of a court as dots.  Followers stand on their feature in their
 * player's colour; the last tile is framed, the spaces where the drawn tile
 * fits are marked; the panel shows scores, followers, keeps, wall tiles
 * held and the bag.  Nothing is hidden in this game (render.c).
 */
#include <stdio.h>
#include <string.h>

#include <castellan/outbuf.h>

#include "castle.h"

#define SPACE 64
#define MARGIN 24
#define HEAD_H 52
#define PANEL_W 280

static const char *const fills[NPLAYERS] = {"#d7261e", "#1f5fbf"};
static const char *const cls_fill[N_CLS] = {"#efe3c4", "#c4553a", "#8c8c96", "#9cc46a"};

/* Corners of a space clockwise from the north-west, and side middles. */
static const int corner_xy[4][2] = {{0, 0}, {SPACE, 0}, {SPACE, SPACE}, {0, SPACE}};
static const int mid_xy[4][2] = {{SPACE / 2, 0}, {SPACE, SPACE / 2}, {SPACE / 2, SPACE},
                                 {0, SPACE / 2}};

static int cell_x(const struct board *b, int cell) { return MARGIN + (cell % b->w) * SPACE; }
static int cell_y(const struct board *b, int cell) { return HEAD_H + MARGIN + (cell / b->w) * SPACE; }

/* The spot of a feature on a placed tile: the average of its slots' points,
 * pulled toward the centre. */
static void feature_spot(const struct rotation *r, int local, int *x, int *y)
{
    int sx = 0, sy = 0, n = 0;
    for (int slot = 0; slot < SLOTS; slot++) {
        if (r->slot[slot] != local)
            continue;
        int side = SLOT_SIDE(slot), part = SLOT_PART(slot);
        const int *a = part == 0 ? corner_xy[side] : part == 2 ? corner_xy[(side + 1) % 4]
                                                               : mid_xy[side];
        sx += (a[0] + mid_xy[side][0]) / 2;
        sy += (a[1] + mid_xy[side][1]) / 2;
        n++;
    }
    *x = n ? SPACE / 2 + (sx / n - SPACE / 2) * 7 / 10 : SPACE / 2;
    *y = n ? SPACE / 2 + (sy / n - SPACE / 2) * 7 / 10 : SPACE / 2;
}

/* Tile kind k turned rot with its north-west corner at x0,y0 (the body of
 * a <g>). */
static void draw_kind(struct cas_outbuf *v, const struct tile_kind *k, int rot, int x0, int y0)
{
    const struct rotation *r = &k->rot[rot];
    int cx = x0 + SPACE / 2, cy = y0 + SPACE / 2;
    for (int side = 0; side < 4; side++)
        for (int part = 0; part < 3; part += 2) {
            int f = r->slot[SLOT(side, part)];
            const int *a = part == 0 ? corner_xy[side] : corner_xy[(side + 1) % 4];
            cas_outf(v, "<path fill=\"%s\" d=\"M%d %d L%d %d L%d %dZ\"/>",
                     f == NONE8 ? "#d9cfb4" : cls_fill[k->f[f].cls], cx, cy, x0 + a[0], y0 + a[1],
                     x0 + mid_xy[side][0], y0 + mid_xy[side][1]);
        }
    /* lines between halves of different features: walls of houses and towers */
    for (int slot = 0; slot < SLOTS; slot += 3) {
        int side = SLOT_SIDE(slot);
        int before = r->slot[SLOT(side, 0)], after = r->slot[SLOT(side, 2)];
        int next = r->slot[SLOT((side + 1) % 4, 0)];
        if (before != after && !(r->path_sides >> side & 1u))
            cas_outf(v, "<path class=\"seam\" d=\"M%d %d L%d %d\"/>", cx, cy, x0 + mid_xy[side][0],
                     y0 + mid_xy[side][1]);
        if (after != next)
            cas_outf(v, "<path class=\"seam\" d=\"M%d %d L%d %d\"/>", cx, cy,
                     x0 + corner_xy[(side + 1) % 4][0], y0 + corner_xy[(side + 1) % 4][1]);
    }
    for (int side = 0; side < 4; side++)
        if (r->path_sides >> side & 1u)
            cas_outf(v, "<path class=\"path\" d=\"M%d %d L%d %d\"/>", x0 + mid_xy[side][0],
                     y0 + mid_xy[side][1], cx, cy);
    for (int f = 0; f < k->nf; f++) {
        int fx, fy;
        feature_spot(r, f, &fx, &fy);
        if (k->f[f].fountain)
            cas_outf(v, "<circle class=\"fountain\" cx=\"%d\" cy=\"%d\" r=\"6\"/>", cx, cy);
        for (int m = 0; m < k->f[f].markets; m++)
            cas_outf(v, "<rect class=\"market\" x=\"%d\" y=\"%d\" width=\"7\" height=\"7\"/>",
                     x0 + fx - 10 + 9 * m, y0 + fy - 3);
    }
    cas_outf(v, "<rect class=\"edge\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", x0, y0,
             SPACE, SPACE);
}

static void draw_tile(struct cas_outbuf *v, const cas_state *s, int pi)
{
    const struct board *b = &s->game->board;
    const struct placement *p = &s->placed[pi];
    cas_outf(v, "<g class=\"tile\" data-cas-key=\"t%d\">", pi);
    draw_kind(v, &s->game->tiles.kind[p->kind], p->rot, cell_x(b, p->cell), cell_y(b, p->cell));
    cas_outf(v, "</g>\n");
}

static void draw_grid(struct cas_outbuf *v, const cas_state *s)
{
    const struct board *b = &s->game->board;
    bool place = s->phase == PH_PLACE;
    cas_outs(v, "<g class=\"grid\" data-cas-key=\"grid\">");
    for (int cell = 0; cell < b->w * b->h; cell++) {
        int x = cell_x(b, cell), y = cell_y(b, cell);
        if (b->cell[cell] == CELL_WALL) {
            cas_outf(v, "<rect class=\"wall\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>", x, y,
                     SPACE, SPACE);
            continue;
        }
        if (s->at[cell] != NONE8)
            continue;
        bool fits = false;
        for (int rot = 0; place && rot < 4 && !fits; rot++)
            fits = placement_fits(s, cell, s->drawn, rot);
        cas_outf(v, "<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\"/>",
                 fits ? "fits" : "empty", x + 3, y + 3, SPACE - 6, SPACE - 6);
    }
    cas_outs(v, "</g>\n");
}

static void draw_followers(struct cas_outbuf *v, const cas_state *s)
{
    const struct board *b = &s->game->board;
    for (int i = 0; i < s->nfigs; i++) {
        const struct node *n = &s->nodes[s->figs[i].node];
        const struct placement *p = &s->placed[n->placed];
        const struct rotation *r = &s->game->tiles.kind[p->kind].rot[p->rot];
        int fx, fy;
        feature_spot(r, n->local, &fx, &fy);
        cas_outf(v, "<use class=\"figure follower\" data-cas-key=\"f%d\" xlink:href=\"#follower\" "
                    "fill=\"%s\" transform=\"translate(%d %d)\"/>\n", (int)s->figs[i].node,
                 fills[s->figs[i].player],
                 cell_x(b, p->cell) + fx, cell_y(b, p->cell) + fy + 10);
    }
}

static void draw_panel(struct cas_outbuf *v, const cas_state *s, int x)
{
    int y = HEAD_H + 10;
    for (int p = 0; p < NPLAYERS; p++, y += 92) {
        const struct player_state *ps = &s->p[p];
        int held = 0;
        for (int w = 1; w <= WALL_KINDS; w++)
            held += ps->held[w];
        cas_outf(v, "<g class=\"player\" data-cas-key=\"p%d\"><rect class=\"panel%s\" x=\"%d\" "
                    "y=\"%d\" width=\"%d\" "
                    "height=\"80\" rx=\"8\"/><use xlink:href=\"#follower\" fill=\"%s\" "
                    "transform=\"translate(%d %d) scale(1.3)\"/><text class=\"name\" x=\"%d\" "
                    "y=\"%d\">%s</text><text class=\"score\" x=\"%d\" y=\"%d\">%d</text>"
                    "<text class=\"small\" x=\"%d\" y=\"%d\">%d followers, keep %d, %d wall "
                    "tile%s</text></g>\n",
                 p, turn_actor(s) == p ? " turn" : "", x, y, PANEL_W - 20, fills[p], x + 22, y + 44,
                 x + 44, y + 30, player_name(p), x + PANEL_W - 34, y + 34, (int)ps->score, x + 44,
                 y + 60, ps->supply, ps->keep_size, held, held == 1 ? "" : "s");
    }
    cas_outf(v, "<g data-cas-key=\"bag\"><text class=\"status\" x=\"%d\" y=\"%d\">%d tiles in the "
                "bag</text>", x, y + 18, s->nbag);
    if (s->phase == PH_PLACE)
        cas_outf(v, "<text class=\"status\" x=\"%d\" y=\"%d\">To place: %s</text>", x, y + 46,
                 s->game->tiles.kind[s->drawn].id);
    cas_outs(v, "</g>\n");
}

/* Column letters over the grid and row numbers beside it, as cells are
 * written ("place T06 d4 90"). */
static void draw_coordinates(struct cas_outbuf *v, const struct board *b)
{
    cas_outs(v, "<g class=\"coords\" data-cas-key=\"coords\">");
    for (int c = 0; c < b->w; c++)
        cas_outf(v, "<text x=\"%d\" y=\"%d\">%c</text>", MARGIN + c * SPACE + SPACE / 2,
                 HEAD_H + MARGIN - 6, 'a' + c);
    for (int r = 0; r < b->h; r++)
        cas_outf(v, "<text class=\"row\" x=\"%d\" y=\"%d\">%d</text>", MARGIN - 4,
                 HEAD_H + MARGIN + r * SPACE + SPACE / 2 + 4, r + 1);
    cas_outs(v, "</g>\n");
}

#define TRACK_ROW 20 /* track positions a row */
#define TRACK_CELL 12

/* Units the score track and the legend take in the panel. */
static int track_height(const struct board *b)
{
    return 30 + (b->track + TRACK_ROW - 1) / TRACK_ROW * TRACK_CELL + 16 + 5 * 18 + 20;
}

/* The score track, rows of TRACK_ROW positions from 0 (a score past the
 * end goes round again: its position is the score modulo the length), the
 * corner towers over their two positions (dark where a wall tile waits),
 * each player's marker on its position; then the legend. */
static void draw_track_and_legend(struct cas_outbuf *v, const cas_state *s, int x0, int y)
{
    const struct board *b = &s->game->board;
    cas_outf(v, "<g class=\"track\" data-cas-key=\"track\"><text class=\"status\" x=\"%d\" y=\"%d\">Score track "
                "0-%d</text>", x0, y + 18, b->track - 1);
    y += 28;
    for (int pos = 0; pos < b->track; pos++) {
        int tower = 0;
        for (int t = 0; t < b->ntowers; t++)
            if (pos == b->tower[t].pos || pos == (b->tower[t].pos + 1) % b->track)
                tower = 1 + (s->tower_holds[t] != 0);
        int x = x0 + pos % TRACK_ROW * TRACK_CELL, ty = y + pos / TRACK_ROW * TRACK_CELL;
        cas_outf(v, "<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>",
                 tower == 2 ? "pos tower holds" : tower ? "pos tower" : "pos", x, ty,
                 TRACK_CELL - 1, TRACK_CELL - 1);
        if (pos % TRACK_ROW == 0)
            cas_outf(v, "<text class=\"pos-label\" x=\"%d\" y=\"%d\">%d</text>",
                     x0 + TRACK_ROW * TRACK_CELL + 4, ty + TRACK_CELL - 2, pos);
    }
    for (int p = 0; p < NPLAYERS; p++) {
        int pos = (int)(s->p[p].score % b->track);
        cas_outf(v, "<circle class=\"marker\" fill=\"%s\" cx=\"%d\" cy=\"%d\" r=\"%d\"/>",
                 fills[p], x0 + pos % TRACK_ROW * TRACK_CELL + TRACK_CELL / 2 - 1 + 3 * p,
                 y + pos / TRACK_ROW * TRACK_CELL + TRACK_CELL / 2 - 1 + 2 * p, 4);
    }
    y += (b->track + TRACK_ROW - 1) / TRACK_ROW * TRACK_CELL + 16;
    static const char *const names[N_CLS] = {"path", "house", "tower", "court"};
    cas_outs(v, "</g>\n<g class=\"legend\" data-cas-key=\"legend\">");
    for (int c = C_HOUSE; c < N_CLS; c++)
        cas_outf(v, "<rect x=\"%d\" y=\"%d\" width=\"14\" height=\"14\" fill=\"%s\"/>"
                    "<text class=\"small\" x=\"%d\" y=\"%d\">%s</text>",
                 x0 + (c - C_HOUSE) * 86, y, cls_fill[c], x0 + (c - C_HOUSE) * 86 + 20, y + 12,
                 names[c]);
    y += 22;
    cas_outf(v, "<path class=\"path\" d=\"M%d %d h14\"/><text class=\"small\" x=\"%d\" y=\"%d\">"
                "path</text><circle class=\"fountain\" cx=\"%d\" cy=\"%d\" r=\"6\"/>"
                "<text class=\"small\" x=\"%d\" y=\"%d\">fountain</text><rect class=\"market\" "
                "x=\"%d\" y=\"%d\" width=\"7\" height=\"7\"/><text class=\"small\" x=\"%d\" "
                "y=\"%d\">market</text>",
             x0, y + 7, x0 + 20, y + 12, x0 + 93, y + 7, x0 + 106, y + 12, x0 + 176, y + 3,
             x0 + 192, y + 12);
    y += 22;
    cas_outf(v, "<rect class=\"wall\" x=\"%d\" y=\"%d\" width=\"14\" height=\"14\"/>"
                "<text class=\"small\" x=\"%d\" y=\"%d\">wall</text><rect class=\"fits\" "
                "x=\"%d\" y=\"%d\" width=\"14\" height=\"14\"/><text class=\"small\" x=\"%d\" "
                "y=\"%d\">the tile fits</text><rect class=\"pos tower holds\" x=\"%d\" y=\"%d\" "
                "width=\"11\" height=\"11\"/><text class=\"small\" x=\"%d\" y=\"%d\">"
                "tower, wall tile</text></g>\n",
             x0, y, x0 + 20, y + 12, x0 + 58, y, x0 + 78, y + 12, x0 + 162, y + 1, x0 + 178, y + 12);
}

static const char style[] =
    "<style type=\"text/css\" data-cas-key=\"style\"><![CDATA[\n"
    "text{font-family:'DejaVu Sans',Verdana,sans-serif;fill:#2a2118}\n"
    ".wall{fill:#8a8072;stroke:#5e564b;stroke-width:1}.empty{fill:#e6dfca;stroke:#c2b797;"
    "stroke-width:1.5;stroke-dasharray:5 4}.fits{fill:#fbf3cf;stroke:#d4a21c;"
    "stroke-width:2;stroke-dasharray:6 3}\n"
    ".seam{stroke:#5a4632;stroke-width:2}.path{stroke:#f7f1e0;stroke-width:9;"
    "stroke-linecap:round}.edge{fill:none;stroke:#5a4632;stroke-width:1}\n"
    ".fountain{fill:#4a90d9;stroke:#1f4f80;stroke-width:1.5}.market{fill:#e0b000;"
    "stroke:#6a5000}\n"
    ".figure{stroke:#1a1a1a;stroke-width:1.5}.last{fill:none;stroke:#ffd21f;stroke-width:4}\n"
    ".panel{fill:#f6f1e4;stroke:#cbbf9f}.panel.turn{stroke:#2a2118;stroke-width:3}"
    ".name{font-size:18px;font-weight:bold}.score{font-size:26px;font-weight:bold;"
    "text-anchor:end}.small{font-size:12px}.title{font-size:22px;font-weight:bold}"
    ".status{font-size:15px}\n"
    ".coords text{font-size:12px;fill:#7a6a4a;text-anchor:middle}.coords .row{text-anchor:end}"
    ".pos{fill:#f3ecd9;stroke:#b8a987;stroke-width:0.5}.pos.tower{fill:#c9c2b2}"
    ".pos.tower.holds{fill:#7d7466}.pos-label{font-size:9px;fill:#7a6a4a}"
    ".marker{stroke:#1a1a1a;stroke-width:1}\n"
    "]]></style>\n";

/* ------------------------------------------------------------ choices */

/* The decision view: choices numbered where they point, with the
 * click-to-play attributes (docs/abi.md "ABI 1.2: click to play") when
 * asked.  A placement is a space then a rotation, a follower the feature
 * of the new tile, a scoring the feature (then "single" or "double" when
 * both may be chosen); pass, extra turn and end turn stay buttons. */
struct choice_view {
    const cas_state *s;
    const cas_action *actions;
    size_t n;
    int attributes;
};

enum { TK_NONE, TK_CELL, TK_ROT, TK_FEATURE, TK_DOUBLE };
#define TK(type, value) ((type) << 24 | (value))
#define TK_TYPE(key) ((key) >> 24)
#define TK_VALUE(key) ((key)&0xFFFFFF)

/* Whether feature `root` may be scored both single and double now. */
static int both_scorings(const struct choice_view *cv, unsigned root)
{
    int single = 0, twice = 0;
    for (size_t i = 0; i < cv->n; i++)
        if (act_kind(cv->actions[i]) == A_SCORE && act_a(cv->actions[i]) == root) {
            single |= act_b(cv->actions[i]) == 0;
            twice |= act_b(cv->actions[i]) != 0;
        }
    return single && twice;
}

/* The key of action i's click `step` (0 first), or 0 (TK_NONE). */
static int action_key(const struct choice_view *cv, size_t i, int step)
{
    const cas_state *s = cv->s;
    cas_action a = cv->actions[i];
    switch (act_kind(a)) {
    case A_PLACE: return step == 0 ? TK(TK_CELL, (int)act_a(a)) : step == 1 ? TK(TK_ROT, (int)act_b(a)) : 0;
    case A_FOLLOW:
        return step == 0 && s->last != NONE8
                   ? TK(TK_FEATURE, s->placed[s->last].node_base + (int)act_a(a))
                   : 0;
    case A_SCORE:
        if (step == 0)
            return TK(TK_FEATURE, feature_canonical(s, act_a(a)));
        return step == 1 && both_scorings(cv, act_a(a)) ? TK(TK_DOUBLE, (int)act_b(a)) : 0;
    default: return 0;
    }
}

/* Opens the element of `key` at `step`: its choices, and their numbers for
 * a player who types them (none in the click-to-play view, where they
 * would only cover the board). */
static void mark_open(struct cas_outbuf *v, const struct choice_view *cv, int key, int step,
                      const char *cls, const char *extra, char *numbers, size_t cap)
{
    size_t len = 0;
    int first = 1;
    numbers[0] = '\0';
    cas_outf(v, "<g class=\"mark %s\"", cls);
    if (cv->attributes)
        cas_outs(v, " data-cas-choices=\"");
    for (size_t i = 0; i < cv->n; i++) {
        if (action_key(cv, i, step - 1) != key)
            continue;
        if (cv->attributes)
            cas_outf(v, "%s%zu", first ? "" : " ", i);
        if (!cv->attributes && len + 8 < cap)
            len += (size_t)snprintf(numbers + len, cap - len, "%s%zu", first ? "" : ",", i + 1);
        first = 0;
    }
    if (cv->attributes)
        cas_outf(v, "\" data-cas-step=\"%d\"%s", step, extra ? extra : "");
    cas_outs(v, ">");
}

/* Choice numbers centred at x,y, in lines of at most `width` characters
 * broken after commas. */
static void put_numbers(struct cas_outbuf *v, const char *numbers, int x, int y, size_t width)
{
    for (const char *at = numbers; *at; y += 15) {
        size_t take = strlen(at);
        if (take > width) {
            take = width;
            while (take > 0 && at[take - 1] != ',')
                take--;
            take = take ? take : width;
        }
        cas_outf(v, "<text class=\"choice\" x=\"%d\" y=\"%d\">%.*s</text>", x, y, (int)take, at);
        at += take;
    }
}

static int first_with(const struct choice_view *cv, size_t i, int step)
{
    int key = action_key(cv, i, step);
    for (size_t j = 0; key && j < i; j++)
        if (action_key(cv, j, step) == key)
            return 0;
    return key != 0;
}

/* Spaces and features on the board. */
static void draw_board_marks(struct cas_outbuf *v, const struct choice_view *cv)
{
    const cas_state *s = cv->s;
    const struct board *b = &s->game->board;
    char numbers[48];
    cas_outs(v, "<g class=\"marks\" data-cas-key=\"marks\">\n");
    for (size_t i = 0; i < cv->n; i++) {
        if (!first_with(cv, i, 0))
            continue;
        int key = action_key(cv, i, 0);
        if (TK_TYPE(key) == TK_CELL) {
            int cell = TK_VALUE(key), x = cell_x(b, cell), y = cell_y(b, cell);
            char box[64]; /* where a ghost of the tile lies (docs/abi.md) */
            snprintf(box, sizeof box, " data-cas-box=\"%d %d %d %d\"", x, y, SPACE, SPACE);
            mark_open(v, cv, key, 1, "space", box, numbers, sizeof numbers);
            cas_outf(v, "<rect class=\"hit\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"4\"/>"
                        "<text class=\"choice\" x=\"%d\" y=\"%d\">%s</text></g>\n", x + 3, y + 3,
                     SPACE - 6, SPACE - 6, x + SPACE / 2, y + SPACE - 8, numbers);
            continue;
        }
        const struct node *nd = &s->nodes[TK_VALUE(key)];
        const struct placement *p = &s->placed[nd->placed];
        int fx, fy;
        feature_spot(&s->game->tiles.kind[p->kind].rot[p->rot], nd->local, &fx, &fy);
        fx += cell_x(b, p->cell);
        fy += cell_y(b, p->cell);
        mark_open(v, cv, key, 1, "feature", NULL, numbers, sizeof numbers);
        cas_outf(v, "<circle class=\"hit spot-hit\" cx=\"%d\" cy=\"%d\" r=\"11\"/>"
                    "<text class=\"choice\" x=\"%d\" y=\"%d\">%s</text></g>\n", fx, fy, fx, fy + 5,
                 numbers);
    }
    cas_outs(v, "</g>\n");
}

/* Units the panel's second-step elements take. */
static int choices_height(const struct choice_view *cv)
{
    for (size_t i = 0; i < cv->n; i++)
        if (action_key(cv, i, 1))
            return 40 + SPACE + 80;
    return 0;
}

/* Rotations of the drawn tile, or single/double, in the panel from y. */
static void draw_panel_marks(struct cas_outbuf *v, const struct choice_view *cv, int x0, int y)
{
    const cas_state *s = cv->s;
    char numbers[48];
    int heading = 0;
    for (size_t i = 0; i < cv->n; i++) {
        if (!first_with(cv, i, 1))
            continue;
        int key = action_key(cv, i, 1), slot = TK_VALUE(key);
        if (!heading)
            cas_outf(v, "<text class=\"status\" x=\"%d\" y=\"%d\">%s</text>\n", x0, y + 20,
                     TK_TYPE(key) == TK_ROT ? "Turn the tile:" : "Score it:");
        heading = 1;
        int x = x0 + slot * (SPACE + 4), ty = y + 34;
        if (TK_TYPE(key) == TK_ROT) {
            mark_open(v, cv, key, 2, "rotation", NULL, numbers, sizeof numbers);
            if (cv->attributes) /* the drawing is also the ghost, its corner at 0,0 */
                cas_outf(v, "<g transform=\"translate(%d %d)\"><g data-cas-ghost=\"%d\">"
                            "<g transform=\"translate(%d %d)\">", x, ty, SPACE, -x, -ty);
            draw_kind(v, &s->game->tiles.kind[s->drawn], slot, x, ty);
            if (cv->attributes)
                cas_outs(v, "</g></g></g>");
        } else {
            x = x0 + slot * (2 * SPACE);
            mark_open(v, cv, key, 2, "scoring", NULL, numbers, sizeof numbers);
            cas_outf(v, "<rect class=\"hit chip\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"32\" "
                        "rx=\"8\"/><text class=\"small\" x=\"%d\" y=\"%d\">%s</text>", x, ty,
                     2 * SPACE - 8, x + 10, ty + 20, slot ? "double" : "single");
        }
        put_numbers(v, numbers, x + SPACE / 2, ty + SPACE + 18, 8);
        cas_outs(v, "</g>\n");
    }
}

static const char choice_style[] =
    "<style type=\"text/css\" data-cas-key=\"choice-style\"><![CDATA[\n"
    ".mark .hit{fill:#fff;fill-opacity:0.01;stroke:#c0392b;stroke-width:3;cursor:pointer}"
    ".mark .spot-hit,.mark .chip{fill-opacity:0.85}"
    ".choice{font-size:13px;font-weight:bold;text-anchor:middle;fill:#8e1f14;"
    "paint-order:stroke;stroke:#fff;stroke-width:3}\n"
    "]]></style>\n";

static int draw(const cas_state *s, const struct choice_view *cv, const struct cas_writer *out)
{
    const struct board *b = &s->game->board;
    struct cas_outbuf v = CAS_OUTBUF_INIT(out);
    int width = 2 * MARGIN + b->w * SPACE + PANEL_W;
    int height = HEAD_H + 2 * MARGIN + b->h * SPACE;
    int marks_y = HEAD_H + 10 + 2 * 92 + 60, track_y = marks_y + (cv ? choices_height(cv) : 0);
    if (height < track_y + track_height(b))
        height = track_y + track_height(b);
    cas_outf(&v, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" "
                 "xmlns:xlink=\"http://www.w3.org/1999/xlink\" version=\"1.1\" width=\"100%%\" "
                 "height=\"100%%\" viewBox=\"0 0 %d %d\">\n<title data-cas-key=\"title\">The Castle</title>\n",
             width, height);
    cas_outn(&v, style, sizeof style - 1);
    /* in every picture, marked or not: it never travels again */
    cas_outn(&v, choice_style, sizeof choice_style - 1);
    cas_outf(&v, "<defs data-cas-key=\"defs\"><symbol id=\"follower\" overflow=\"visible\"><path d=\"M0 -22 c4 0 6 3 6 6 "
                 "c0 2 -1 3 -2 4 l8 3 c3 1 3 5 -1 5 l-4 0 l4 10 h-7 l-4 -6 l-4 6 h-7 l4 -10 l-4 0 "
                 "c-4 0 -4 -4 -1 -5 l8 -3 c-1 -1 -2 -2 -2 -4 c0 -3 2 -6 6 -6z\"/></symbol></defs>\n"
                 "<rect data-cas-key=\"ground\" width=\"%d\" height=\"%d\" fill=\"#efe8d6\"/>\n"
                 "<g data-cas-key=\"head\"><text class=\"title\" x=\"%d\" y=\"34\">The Castle</text>"
                 "<text class=\"status\" x=\"%d\" y=\"34\">%s</text></g>\n",
             width, height, MARGIN, MARGIN + 150,
             s->phase == PH_OVER ? "game over"
                                 : turn_actor(s) == CAS_ACTOR_CHANCE ? "chance draws"
                                                                     : player_name(turn_actor(s)));
    draw_coordinates(&v, b);
    draw_grid(&v, s);
    for (int i = 0; i < s->nplaced; i++)
        draw_tile(&v, s, i);
    /* the tile placed last: this turn's, or the latest castle tile */
    int last = s->last != NONE8 ? s->last : s->nplaced - 1;
    if (last >= b->nstarts && last < s->nplaced)
        cas_outf(&v, "<rect class=\"last\" data-cas-key=\"last\" x=\"%d\" y=\"%d\" width=\"%d\" "
                     "height=\"%d\"/>\n",
                 cell_x(b, s->placed[last].cell) + 2, cell_y(b, s->placed[last].cell) + 2, SPACE - 4,
                 SPACE - 4);
    draw_followers(&v, s);
    if (cv)
        draw_board_marks(&v, cv);
    draw_panel(&v, s, width - PANEL_W + 4);
    if (cv) {
        cas_outs(&v, "<g data-cas-key=\"panel-marks\">");
        draw_panel_marks(&v, cv, width - PANEL_W + 4, marks_y);
        cas_outs(&v, "</g>\n");
    }
    draw_track_and_legend(&v, s, width - PANEL_W + 4, track_y);
    cas_outf(&v, "</svg>\n");
    return cas_out_finish(&v);
}

int render_svg(const cas_state *s, const struct cas_writer *out)
{
    return draw(s, NULL, out);
}

int render_svg_choices(const cas_state *s, int attributes, const cas_action *actions, size_t n,
                       const struct cas_writer *out)
{
    struct choice_view cv = {.s = s, .actions = actions, .n = n, .attributes = attributes};
    int any = 0;
    for (size_t i = 0; i < n; i++)
        any |= action_key(&cv, i, 0) != 0;
    return attributes && !any ? CAS_EINVAL : draw(s, &cv, out);
}
