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

static void draw_tile(struct cas_outbuf *v, const cas_state *s, int pi)
{
    const struct board *b = &s->game->board;
    const struct placement *p = &s->placed[pi];
    const struct tile_kind *k = &s->game->tiles.kind[p->kind];
    const struct rotation *r = &k->rot[p->rot];
    int x0 = cell_x(b, p->cell), y0 = cell_y(b, p->cell), cx = x0 + SPACE / 2,
        cy = y0 + SPACE / 2;
    cas_outf(v, "<g class=\"tile\">");
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
    cas_outf(v, "<rect class=\"edge\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/></g>\n", x0, y0,
             SPACE, SPACE);
}

static void draw_grid(struct cas_outbuf *v, const cas_state *s)
{
    const struct board *b = &s->game->board;
    bool place = s->phase == PH_PLACE;
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
        cas_outf(v, "<use class=\"figure follower\" xlink:href=\"#follower\" fill=\"%s\" "
                    "transform=\"translate(%d %d)\"/>", fills[s->figs[i].player],
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
        cas_outf(v, "<g class=\"player\"><rect class=\"panel%s\" x=\"%d\" y=\"%d\" width=\"%d\" "
                    "height=\"80\" rx=\"8\"/><use xlink:href=\"#follower\" fill=\"%s\" "
                    "transform=\"translate(%d %d) scale(1.3)\"/><text class=\"name\" x=\"%d\" "
                    "y=\"%d\">%s</text><text class=\"score\" x=\"%d\" y=\"%d\">%d</text>"
                    "<text class=\"small\" x=\"%d\" y=\"%d\">%d followers, keep %d, %d wall "
                    "tile%s</text></g>\n",
                 turn_actor(s) == p ? " turn" : "", x, y, PANEL_W - 20, fills[p], x + 22, y + 44,
                 x + 44, y + 30, player_name(p), x + PANEL_W - 34, y + 34, (int)ps->score, x + 44,
                 y + 60, ps->supply, ps->keep_size, held, held == 1 ? "" : "s");
    }
    cas_outf(v, "<text class=\"status\" x=\"%d\" y=\"%d\">%d tiles in the bag</text>", x, y + 18,
             s->nbag);
    if (s->phase == PH_PLACE)
        cas_outf(v, "<text class=\"status\" x=\"%d\" y=\"%d\">To place: %s</text>", x, y + 46,
                 s->game->tiles.kind[s->drawn].id);
}

static const char style[] =
    "<style type=\"text/css\"><![CDATA[\n"
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
    "]]></style>\n";

int render_svg(const cas_state *s, const struct cas_writer *out)
{
    const struct board *b = &s->game->board;
    struct cas_outbuf v = CAS_OUTBUF_INIT(out);
    int width = 2 * MARGIN + b->w * SPACE + PANEL_W;
    int height = HEAD_H + 2 * MARGIN + b->h * SPACE;
    height = height < 320 ? 320 : height;
    cas_outf(&v, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
                 "<svg xmlns=\"http://www.w3.org/2000/svg\" "
                 "xmlns:xlink=\"http://www.w3.org/1999/xlink\" version=\"1.1\" width=\"%d\" "
                 "height=\"%d\" viewBox=\"0 0 %d %d\">\n<title>The Castle</title>\n",
             width, height, width, height);
    cas_outn(&v, style, sizeof style - 1);
    cas_outf(&v, "<defs><symbol id=\"follower\" overflow=\"visible\"><path d=\"M0 -22 c4 0 6 3 6 6 "
                 "c0 2 -1 3 -2 4 l8 3 c3 1 3 5 -1 5 l-4 0 l4 10 h-7 l-4 -6 l-4 6 h-7 l4 -10 l-4 0 "
                 "c-4 0 -4 -4 -1 -5 l8 -3 c-1 -1 -2 -2 -2 -4 c0 -3 2 -6 6 -6z\"/></symbol></defs>\n"
                 "<rect width=\"%d\" height=\"%d\" fill=\"#efe8d6\"/><text class=\"title\" x=\"%d\" "
                 "y=\"34\">The Castle</text><text class=\"status\" x=\"%d\" y=\"34\">%s</text>\n",
             width, height, MARGIN, MARGIN + 150,
             s->phase == PH_OVER ? "game over"
                                 : turn_actor(s) == CAS_ACTOR_CHANCE ? "chance draws"
                                                                     : player_name(turn_actor(s)));
    cas_outf(&v, "<g class=\"board\">\n");
    draw_grid(&v, s);
    for (int i = 0; i < s->nplaced; i++)
        draw_tile(&v, s, i);
    /* the tile placed last: this turn's, or the latest castle tile */
    int last = s->last != NONE8 ? s->last : s->nplaced - 1;
    if (last >= b->nstarts && last < s->nplaced)
        cas_outf(&v, "<rect class=\"last\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\"/>",
                 cell_x(b, s->placed[last].cell) + 2, cell_y(b, s->placed[last].cell) + 2, SPACE - 4,
                 SPACE - 4);
    draw_followers(&v, s);
    cas_outf(&v, "</g>\n");
    draw_panel(&v, s, width - PANEL_W + 4);
    cas_outf(&v, "</svg>\n");
    return cas_out_finish(&v);
}
