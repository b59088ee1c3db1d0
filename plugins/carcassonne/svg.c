/*
 * svg.c — the board as a picture (CAS_RENDER_SVG): one self-contained SVG
 * 1.1 document drawn from each tile kind's own feature data, so a new tile
 * set or an expansion's tiles draw themselves.
 *
 * Every kind on the board is drawn once, in its reference orientation, as
 * a <symbol> (100 units a space) and placed with <use> and a rotation.
 * Cities are the sides they hold joined by curved walls; roads run from
 * their edges to the space's centre (curving between two sides); fields
 * are the ground; cloisters are a building (a monastery) or a garden;
 * attributes (coat, inn, cathedral, goods, ...) are small marks by their
 * feature.  Figures stand at their feature's spot in their player's
 * colour, one shape per kind.  Integer coordinates only: the bytes are the
 * same for the same state on every machine.  Drawn for a server relative to
 * the viewer's last picture (render_since, ABI 1.4), the elements a stamp
 * of that picture shows unchanged are written as placeholders.
 */
#include <stdio.h>
#include <stdlib.h>

#include <castellan/outbuf.h>

#include "carc.h"

#define SPACE 100           /* units per board space                    */
#define MARGIN 30           /* around the board                         */
#define PANEL_W 300         /* score panel on the right                 */
#define HEAD_H 56           /* title and status band                    */
#define MIN_BOARD 5         /* the board area is at least 5x5 spaces     */

static const char *const fill_of[CARC_MAX_PLAYERS] = {"#d7261e", "#1f5fbf", "#2e9a3e",
                                                      "#f2c21b", "#2b2b2b", "#e46fb0"};

/* The elements drawn at every move (placeholders, fits marks, hit
 * areas) are written as pieces into room reserved once: each literal
 * copied with its length known when compiled, each number in place, no
 * format walked and no bounds checked per piece.  ELEMENT_ROOM bounds
 * what one room takes: its literals and numbers of at most 20 bytes. */
#define ELEMENT_ROOM 512

static inline char *piece_room(struct cas_outbuf *v)
{
    return cas_out_room(v, ELEMENT_ROOM);
}

static inline char *piece_n(char *at, const char *text, size_t n)
{
    memcpy(at, text, n);
    return at + n;
}

/* A string literal, its length a constant. */
#define PIECE(at, lit) ((at) = piece_n((at), (lit), sizeof(lit) - 1))

/* v as printf's %d writes it: in 32-bit arithmetic, which every number
 * of a picture but a score fits (cas_out_sdigits' 64-bit path cost the
 * draw 5 % of its instructions). */
static inline char *piece_int(char *at, int v)
{
    if (v < 0) {
        *at++ = '-';
        return at + cas_out_digits32(at, 0u - (unsigned)v);
    }
    return at + cas_out_digits32(at, (unsigned)v);
}

/* a and b as "%d %d" writes them (a translate, half a viewBox). */
static inline char *piece_pair(char *at, int a, int b)
{
    at = piece_int(at, a);
    *at++ = ' ';
    return piece_int(at, b);
}

/* x, then y's attribute and number: an element's place after its
 * opening x=" (the caller writes y's closing quote, with what follows). */
static inline char *piece_xy(char *at, int x, int y)
{
    at = piece_int(at, x);
    PIECE(at, "\" y=\"");
    return piece_int(at, y);
}

/* A box's y, width and height after its x's number, up to the height's
 * closing quote (the caller writes it, with what follows). */
static inline char *piece_y_size(char *at, int y, int w, int h)
{
    PIECE(at, "\" y=\"");
    at = piece_int(at, y);
    PIECE(at, "\" width=\"");
    at = piece_int(at, w);
    PIECE(at, "\" height=\"");
    return piece_int(at, h);
}

static inline void piece_end(struct cas_outbuf *v, char *at)
{
    v->n = (size_t)(at - v->buf);
}

/* Text content with the XML specials escaped (ids and names come from data
 * files): the plain runs between them copied whole. */
static void put_escaped(struct cas_outbuf *v, const char *text)
{
    for (;;) {
        size_t run = strcspn(text, "<>&\"");
        cas_outn(v, text, run);
        text += run;
        switch (*text) {
        case '<': cas_outs(v, "&lt;"); break;
        case '>': cas_outs(v, "&gt;"); break;
        case '&': cas_outs(v, "&amp;"); break;
        case '"': cas_outs(v, "&quot;"); break;
        default: return;
        }
        text++;
    }
}

/* ------------------------------------------------------- tile geometry */

struct pt {
    int x, y;
};

static const struct pt corner[4] = {{0, 0}, {SPACE, 0}, {SPACE, SPACE}, {0, SPACE}};
static const struct pt side_mid[4] = {{SPACE / 2, 0}, {SPACE, SPACE / 2},
                                      {SPACE / 2, SPACE}, {0, SPACE / 2}};
static const struct pt centre = {SPACE / 2, SPACE / 2};

/* The side of cell c that faces the tile's other cell, or -1 (one-space
 * tiles, in the reference orientation: cell 1 lies east of cell 0). */
static int inner_side(const struct carc_kind *k, int c)
{
    return k->ncells < 2 ? -1 : c == 0 ? 1 : 3;
}

/* The sides of cell c that feature f holds at their middle (city and road
 * edges), counting the inner side of a feature that spans both cells. */
static unsigned feature_sides(const struct carc_kind *k, int c, int f)
{
    const struct carc_rot *r = &k->rot[0];
    unsigned mask = 0;
    for (int s = 0; s < 4; s++)
        if (r->seg[c][s][1] == f)
            mask |= 1u << s;
    int in = inner_side(k, c);
    if (mask && in >= 0 && k->f[f].cellmask == 3u && k->f[f].cls != CAS_CARC_FIELD)
        mask |= 1u << in;
    return mask;
}

static int popcount4(unsigned m)
{
    return (int)(m & 1) + (int)(m >> 1 & 1) + (int)(m >> 2 & 1) + (int)(m >> 3 & 1);
}

/* Where a wall bows between the ends of a run of `len` sides that are not
 * city, starting at side j: the control point of a quadratic curve. */
static struct pt wall_control(int j, int len)
{
    if (len == 1) { /* a narrow field side: the wall dips in from it */
        struct pt m = side_mid[j];
        return (struct pt){m.x + (centre.x - m.x) * 9 / 10, m.y + (centre.y - m.y) * 9 / 10};
    }
    if (len == 2) { /* a corner city: the wall bulges toward the field corner */
        struct pt c = corner[(j + 1) % 4];
        return (struct pt){centre.x + (c.x - centre.x) * 3 / 10,
                           centre.y + (c.y - centre.y) * 3 / 10};
    }
    /* one city side: a cap */
    struct pt m = side_mid[(j + 3) % 4];
    return (struct pt){m.x + (centre.x - m.x) * 13 / 10, m.y + (centre.y - m.y) * 13 / 10};
}

/* A city of cell c holding the sides in mask: the filled shape, then its
 * walls (only the curves; sides shared with the other cell stay open). */
static void draw_city_shape(struct cas_outbuf *v, unsigned mask, int ox)
{
    if (mask == 15u) {
        cas_outf(v, "<rect class=\"city\" x=\"%d\" y=\"0\" width=\"%d\" height=\"%d\"/>", ox,
                 SPACE, SPACE);
        return;
    }
    int start = 0;
    while (!((mask >> start & 1u) && !(mask >> ((start + 3) % 4) & 1u)))
        start++;
    char walls[512];
    size_t wl = 0;
    cas_outf(v, "<path class=\"city\" d=\"M%d %d", corner[start].x + ox, corner[start].y);
    for (int i = 0; i < 4;) {
        int s = (start + i) % 4;
        if (mask >> s & 1u) {
            cas_outf(v, " L%d %d", corner[(s + 1) % 4].x + ox, corner[(s + 1) % 4].y);
            i++;
            continue;
        }
        int len = 0;
        while (i + len < 4 && !(mask >> ((s + len) % 4) & 1u))
            len++;
        struct pt c = wall_control(s, len), from = corner[s], to = corner[(s + len) % 4];
        cas_outf(v, " Q%d %d %d %d", c.x + ox, c.y, to.x + ox, to.y);
        wl += (size_t)snprintf(walls + wl, sizeof walls - wl, "M%d %d Q%d %d %d %d ",
                               from.x + ox, from.y, c.x + ox, c.y, to.x + ox, to.y);
        i += len;
    }
    cas_outf(v, "Z\"/>");
    if (wl)
        cas_outf(v, "<path class=\"wall\" d=\"%.*s\"/>", (int)wl - 1, walls);
}

/* The spot of feature f on its first cell: where its figure stands and its
 * marks go, in the kind's reference orientation. */
static struct pt feature_spot(const struct carc_kind *k, int f)
{
    const struct carc_rot *r = &k->rot[0];
    const struct carc_feature_def *d = &k->f[f];
    int c = d->cellmask & 1u ? 0 : 1, ox = c * SPACE;
    if (d->cls == CAS_CARC_CLOISTER) /* a cloister on both spaces stands between them */
        return (struct pt){(d->cellmask == 3u ? SPACE / 2 : ox) + centre.x, centre.y + 12};
    if (d->cls == CAS_CARC_FIELD) {
        static const struct pt half_pt[8] = {{25, 0}, {75, 0}, {100, 25}, {100, 75},
                                             {75, 100}, {25, 100}, {0, 75}, {0, 25}};
        int first = -1;
        for (int h = 0; h < 8; h++) {
            int next = (h + 1) % 8;
            int here = r->seg[c][h / 2][(h % 2) * 2] == f;
            if (here && first < 0)
                first = h;
            /* two halves meeting at a corner: the corner is field */
            if (here && h % 2 == 1 && r->seg[c][next / 2][(next % 2) * 2] == f) {
                struct pt q = corner[(h / 2 + 1) % 4];
                return (struct pt){ox + q.x + (centre.x - q.x) * 9 / 20,
                                   q.y + (centre.y - q.y) * 9 / 20};
            }
        }
        if (first < 0)
            return (struct pt){ox + centre.x, centre.y};
        struct pt q = half_pt[first];
        return (struct pt){ox + q.x + (centre.x - q.x) * 3 / 10,
                           q.y + (centre.y - q.y) * 3 / 10};
    }
    unsigned mask = feature_sides(k, c, f) & ~(inner_side(k, c) >= 0
                                                    ? 1u << inner_side(k, c) : 0u);
    int n = popcount4(mask), sx = 0, sy = 0;
    for (int s = 0; s < 4; s++)
        if (mask >> s & 1u) {
            sx += side_mid[s].x;
            sy += side_mid[s].y;
        }
    if (n == 0)
        return (struct pt){ox + centre.x, centre.y};
    if (d->cls == CAS_CARC_ROAD && n == 2) { /* halfway along the curve */
        return (struct pt){ox + (sx + 2 * centre.x) / 4, (sy + 2 * centre.y) / 4};
    }
    if (d->cls == CAS_CARC_ROAD && n == 1)
        return (struct pt){ox + (sx + centre.x) / 2, (sy + centre.y) / 2};
    return (struct pt){ox + centre.x + (sx / n - centre.x) * 6 / 10,
                       centre.y + (sy / n - centre.y) * 6 / 10};
}

/* Road ends of cell c that meet in its centre (one-edge roads). */
static int road_ends(const struct carc_kind *k, int c)
{
    int ends = 0;
    for (int f = 0; f < k->nf; f++)
        if (k->f[f].cls == CAS_CARC_ROAD && popcount4(feature_sides(k, c, f)) == 1)
            ends++;
    return ends;
}

static int cell_has_cloister(const struct carc_kind *k, int c)
{
    for (int f = 0; f < k->nf; f++)
        if (k->f[f].cls == CAS_CARC_CLOISTER && (k->f[f].cellmask >> c & 1u))
            return 1;
    return 0;
}

/* One road (or river) path from its sides on cell c. */
static void road_path(struct cas_outbuf *v, unsigned mask, int ox, int stop_short)
{
    int sides[4], n = 0;
    for (int s = 0; s < 4; s++)
        if (mask >> s & 1u)
            sides[n++] = s;
    if (n == 2) {
        struct pt a = side_mid[sides[0]], b = side_mid[sides[1]];
        cas_outf(v, "M%d %d Q%d %d %d %d", a.x + ox, a.y, centre.x + ox, centre.y, b.x + ox, b.y);
        return;
    }
    for (int i = 0; i < n; i++) {
        struct pt a = side_mid[sides[i]];
        /* a road into a monastery stops at its door */
        int ex = centre.x, ey = centre.y;
        if (stop_short && n == 1) {
            ex = a.x + (centre.x - a.x) * 6 / 10;
            ey = a.y + (centre.y - a.y) * 6 / 10;
        }
        cas_outf(v, "%sM%d %d L%d %d", i ? " " : "", a.x + ox, a.y, ex + ox, ey);
    }
}

static void draw_roads(struct cas_outbuf *v, const struct carc_kind *k, int c)
{
    int ox = c * SPACE, cloister = cell_has_cloister(k, c);
    for (int f = 0; f < k->nf; f++) {
        if (k->f[f].cls != CAS_CARC_ROAD)
            continue;
        unsigned mask = feature_sides(k, c, f);
        if (!mask)
            continue;
        /* drawn edge then surface: a later road crossing an earlier one
         * passes over it, as a bridge does */
        cas_outf(v, "<path class=\"road-edge\" d=\"");
        road_path(v, mask, ox, cloister);
        cas_outf(v, "\"/><path class=\"road\" d=\"");
        road_path(v, mask, ox, cloister);
        cas_outf(v, "\"/>");
    }
    if (road_ends(k, c) >= 2 || (road_ends(k, c) == 1 && !cloister))
        cas_outf(v, "<rect class=\"junction\" x=\"%d\" y=\"%d\" width=\"16\" height=\"16\" "
                    "rx=\"3\"/>", ox + centre.x - 8, centre.y - 8);
}

static void draw_rivers(struct cas_outbuf *v, const struct carc_kind *k, int c)
{
    const struct carc_rot *r = &k->rot[0];
    unsigned mask = 0;
    for (int s = 0; s < 4; s++)
        if (r->edge[c][s] == EDGE_RIVER)
            mask |= 1u << s;
    if (!mask)
        return;
    cas_outf(v, "<path class=\"river\" d=\"");
    road_path(v, mask, c * SPACE, 0);
    cas_outf(v, "\"/>");
}

/* A castle's pennant colour, from its tile id: six castles, six colours
 * (the id written under it says which one without colour). */
static const char *pennant_of(const char *id)
{
    static const char *const fills[] = {"#c0392b", "#1f6fb5", "#e6b800",
                                        "#2e8b3d", "#7d3c98", "#e67e22"};
    unsigned number = 0, letters = 0; /* "CG-3": 3; an id without digits: its letters */
    int digits = 0;
    for (const char *c = id; *c; c++) {
        if (*c >= '0' && *c <= '9') {
            number = number * 10u + (unsigned)(*c - '0');
            digits = 1;
        }
        letters += (unsigned char)*c;
    }
    return fills[(digits ? number + 5u : letters) % 6u];
}

static void draw_cloister(struct cas_outbuf *v, const struct carc_feature_def *d, struct pt at,
                          const char *kind_id)
{
    int x = at.x, y = at.y;
    if (strcmp(d->name, "garden") == 0) {
        cas_outf(v, "<g class=\"garden\"><circle cx=\"%d\" cy=\"%d\" r=\"22\"/>"
                    "<circle class=\"bush\" cx=\"%d\" cy=\"%d\" r=\"8\"/>"
                    "<circle class=\"bush\" cx=\"%d\" cy=\"%d\" r=\"8\"/>"
                    "<circle class=\"bush\" cx=\"%d\" cy=\"%d\" r=\"8\"/></g>",
                 x, y, x - 9, y + 5, x + 9, y + 5, x, y - 9);
        return;
    }
    if (strcmp(d->name, "castle") == 0) { /* Castles in Germany: towers and a gate */
        char *at = piece_room(v);
        PIECE(at, "<g class=\"castle\"><path d=\"M");
        at = piece_pair(at, x - 25, y + 18);
        PIECE(at, " v-30 h8 v5 h6 v-5 h8 v5 h6 v-5 h8 v5 h6 v-5 h8 v30z\"/><path d=\"M");
        at = piece_pair(at, x - 28, y + 18);
        PIECE(at, " v-40 h5 v4 h4 v-4 h5 v40z M");
        at = piece_pair(at, x + 14, y + 18);
        PIECE(at, " v-40 h5 v4 h4 v-4 h5 v40z\"/><path class=\"gate\" d=\"M");
        at = piece_pair(at, x - 6, y + 18);
        PIECE(at, " v-10 a6 6 0 0 1 12 0 v10z\"/>");
        piece_end(v, at);
        /* each castle its pennant and its name: six castles, told apart */
        const char *pennant = pennant_of(kind_id);
        at = piece_room(v);
        PIECE(at, "<path class=\"pennant\" fill=\"");
        at = piece_n(at, pennant, strlen(pennant));
        PIECE(at, "\" d=\"M");
        at = piece_pair(at, x - 21, y - 22);
        PIECE(at, " v-16 l14 5 l-14 5\"/><text class=\"castle-name\" x=\"");
        at = piece_xy(at, x, y + 34);
        PIECE(at, "\">");
        piece_end(v, at);
        put_escaped(v, kind_id);
        cas_outs(v, "</text></g>");
        return;
    }
    /* a monastery, or any other cloister building */
    char *p = piece_room(v);
    PIECE(p, "<g class=\"monastery\"><rect x=\"");
    p = piece_xy(p, x - 18, y - 6);
    PIECE(p, "\" width=\"36\" height=\"26\"/><path d=\"M");
    p = piece_pair(p, x - 22, y - 6);
    PIECE(p, " L");
    p = piece_pair(p, x, y - 26);
    PIECE(p, " L");
    p = piece_pair(p, x + 22, y - 6);
    PIECE(p, "Z\"/>");
    piece_end(v, p);
    p = piece_room(v);
    if (strcmp(d->name, "monastery") == 0) {
        PIECE(p, "<path class=\"cross\" d=\"M");
        p = piece_pair(p, x, y - 38);
        PIECE(p, " V");
        p = piece_int(p, y - 26);
        PIECE(p, " M");
        p = piece_pair(p, x - 5, y - 33);
        PIECE(p, " H");
        p = piece_int(p, x + 5);
        PIECE(p, "\"/>");
    } else {
        PIECE(p, "<text class=\"cloister-name\" x=\"");
        p = piece_xy(p, x, y + 14);
        PIECE(p, "\">");
        *p++ = d->name[0];
        PIECE(p, "</text>");
    }
    PIECE(p, "<rect class=\"door\" x=\"");
    p = piece_xy(p, x - 5, y + 6);
    PIECE(p, "\" width=\"10\" height=\"14\"/></g>");
    piece_end(v, p);
}

/* The marks of a feature's attributes, beside its spot `at`. */
static void draw_attributes(struct cas_outbuf *v, const struct cas_game *g,
                            const struct carc_kind *k, int f, struct pt at)
{
    int mark = 0;
    for (int a = 0; a < g->nattrs; a++)
        for (int n = 0; n < k->f[f].attr[a]; n++, mark++) {
            int x = at.x + 14 + 12 * mark, y = at.y - 16;
            const char *name = g->attrs[a];
            if (a == g->coat_attr)
                cas_outf(v, "<path class=\"coat\" d=\"M%d %d h16 v8 q0 9 -8 13 q-8 -4 -8 -13z\"/>",
                         x - 8, y - 10);
            else if (strcmp(name, "inn") == 0)
                cas_outf(v, "<g class=\"inn\"><rect x=\"%d\" y=\"%d\" width=\"14\" height=\"10\"/>"
                            "<path d=\"M%d %d l9 -8 l9 8z\"/></g>", x - 7, y - 2, x - 9, y - 2);
            else if (strcmp(name, "cathedral") == 0)
                cas_outf(v, "<g class=\"cathedral\"><rect x=\"%d\" y=\"%d\" width=\"20\" "
                            "height=\"14\"/><path d=\"M%d %d v-10 l3 -5 l3 5 v10 M%d %d v-10 "
                            "l3 -5 l3 5 v10\"/></g>", x - 10, y - 4, x - 10, y - 4, x + 4, y - 4);
            else {
                cas_outf(v, "<g class=\"good %s\"><circle cx=\"%d\" cy=\"%d\" r=\"8\"/><text "
                            "x=\"%d\" y=\"%d\">", name, x, y, x, y + 4);
                cas_outf(v, "%c</text></g>", name[0] >= 'a' && name[0] <= 'z' ? name[0] - 32 : '?');
            }
        }
}

/* The symbol of tile kind ki, in its reference orientation. */
static void draw_kind_symbol(struct cas_outbuf *v, const struct cas_game *g, int ki)
{
    const struct carc_kind *k = &g->kinds[ki];
    cas_outf(v, "<defs data-cas-key=\"k%d\"><symbol id=\"k%d\" viewBox=\"0 0 %d %d\" width=\"%d\" "
                "height=\"%d\"><rect class=\"ground\" width=\"%d\" height=\"%d\"/>", ki, ki,
             SPACE * k->ncells,
             SPACE, SPACE * k->ncells, SPACE, SPACE * k->ncells, SPACE);
    for (int c = 0; c < k->ncells; c++) {
        draw_rivers(v, k, c);
        for (int f = 0; f < k->nf; f++)
            if (k->f[f].cls == CAS_CARC_CITY && feature_sides(k, c, f))
                draw_city_shape(v, feature_sides(k, c, f), c * SPACE);
        draw_roads(v, k, c);
    }
    cas_outf(v, "<rect class=\"edge\" x=\"0.5\" y=\"0.5\" width=\"%d\" height=\"%d\"/>"
                "</symbol></defs>\n", SPACE * k->ncells - 1, SPACE - 1);
}

int cas__carc_kind_symbol(const struct cas_game *g, int ki, const struct cas_writer *out)
{
    struct cas_outbuf v = CAS_OUTBUF_INIT(out);
    draw_kind_symbol(&v, g, ki);
    return cas_out_finish(&v);
}

/* ------------------------------------------------- relative pictures */

/* What a picture drawn through render_since (ABI 1.4) is stamped with:
 * enough to tell which of its elements a later picture repeats byte for
 * byte.  The host hands it back as it was, for the same game and viewer,
 * and never after a move taken back; the digests check that anyway. */
struct stamp {
    uint32_t magic;     /* STAMP_MAGIC: this layout */
    int32_t viewer;
    uint32_t ntiles;    /* tiles placed: each keeps its element for good */
    uint32_t ncells;    /* cells known (an open one keeps its element) */
    uint64_t tiles;     /* digest of tiles[0..ntiles): kind, turn, space */
    uint64_t cells;     /* digest of cells[0..ncells): space */
    int32_t frame[12];  /* struct frame: the ruler, the ground, the heading */
    uint8_t kinds[(CARC_MAX_KINDS + 7) / 8]; /* the symbols defined */
    int64_t score[CARC_MAX_PLAYERS];  /* each player's card, */
    uint8_t supply[CARC_MAX_PLAYERS][CARC_MAX_FIGKINDS]; /* and supply counts */
    int32_t turn;       /* whose turn the frame over the cards shows */
    int32_t last;       /* the tile outlined as placed last, or -1 */
    uint32_t nfigs;     /* figures standing: each keeps its element while */
    uint64_t figs;      /* the digest of figs[0..nfigs) stays: node, kind, player */
    uint64_t notes;     /* digest of the expansions' notes, as drawn */
};

_Static_assert(sizeof(struct stamp) <= CAS_RENDER_STAMP_MIN, "a stamp fits any host's room");

#define STAMP_MAGIC 0x43535432u /* "CST2" */
#define DIGEST_START 0xcbf29ce484222325u

/* h with one more word: a multiply and a fold per word (a tile, a cell,
 * a figure packed into one), not per byte. */
static uint64_t digest_word(uint64_t h, uint64_t word)
{
    h = (h ^ word) * 0x9E3779B97F4A7C15u;
    return h ^ h >> 32;
}

/* One render's view of the last picture: which of its parts repeat. */
struct since {
    const struct stamp *last; /* NULL: none, everything is drawn */
    int tiles_kept;           /* last's tiles are this state's first tiles */
    int cells_kept;           /* and so are its cells */
    int figs_kept;            /* and its figures */
    int frame_kept;           /* the frame lies where it lay */
    int runs;                 /* the host takes runs of placeholders (ABI 1.5) */
    struct stamp next;        /* this picture's */
};

/* A placeholder, with the line's end every element of the picture has,
 * for the element keyed by what is written between SAME_OPEN and
 * SAME_CLOSE: the last picture's element of that key, byte for byte. */
#define SAME_OPEN "<g data-cas-key=\""
#define SAME_CLOSE "\" " CAS_SAME_ATTR "=\"\"/>\n"

/* The key prefix alone (pair < 0), prefix and a (pair 0), or prefix and
 * a,b (pair > 0), at `at`; prefix is a key's few letters. */
static char *piece_key(char *at, const char *prefix, int a, int b, int pair)
{
    at = piece_n(at, prefix, strlen(prefix));
    if (pair >= 0)
        at = piece_int(at, a);
    if (pair > 0) {
        *at++ = ',';
        at = piece_int(at, b);
    }
    return at;
}

/* The placeholder keyed as piece_key writes it. */
static void put_same(struct cas_outbuf *v, const char *prefix, int a, int b, int pair)
{
    char *at = piece_room(v);
    PIECE(at, SAME_OPEN);
    at = piece_key(at, prefix, a, b, pair);
    PIECE(at, SAME_CLOSE);
    piece_end(v, at);
}

/* The end of a run placeholder (ABI 1.5) of count elements, after its key. */
static char *piece_run_close(char *at, int count)
{
    PIECE(at, "\" " CAS_SAME_ATTR "=\"");
    at = piece_int(at, count);
    PIECE(at, "\"/>\n");
    return at;
}

/* The one placeholder for `count` elements that follow one another in the
 * last picture from the one keyed as piece_key writes it on (ABI 1.5), when
 * the host takes runs and count > 1: whether it was written (else the
 * caller writes one placeholder each). */
static int put_run(struct cas_outbuf *v, const struct since *sn, const char *prefix, int a,
                   int b, int pair, int count)
{
    if (!sn || !sn->runs || count < 2)
        return 0;
    char *at = piece_room(v);
    PIECE(at, SAME_OPEN);
    at = piece_key(at, prefix, a, b, pair);
    at = piece_run_close(at, count);
    piece_end(v, at);
    return 1;
}

/* Kind ki's symbol: copied from the shared tables where they hold it (it
 * is a fifth of a five-expansion move's instructions drawn each time),
 * else drawn; a placeholder where the last picture defined it (a symbol
 * is the same bytes in every picture of the game). */
static void define_kind(struct cas_outbuf *v, const struct cas_game *g, int ki,
                        struct since *sn)
{
    if (sn) {
        sn->next.kinds[ki / 8] |= (uint8_t)(1u << ki % 8);
        if (sn->last && sn->last->kinds[ki / 8] >> ki % 8 & 1u) {
            put_same(v, "k", ki, 0, 0);
            return;
        }
    }
    const struct carc_tables *t = g->tables;
    if (!t || !t->symbols_at) {
        draw_kind_symbol(v, g, ki);
        return;
    }
    const uint32_t *at = (const uint32_t *)((const char *)t + t->symbols_at);
    const char *text = (const char *)(at + g->nkinds + 1);
    cas_outn(v, text + at[ki], at[ki + 1] - at[ki]);
}

/* ------------------------------------------------------------ figures */

/* Figure shapes, 40 units around their foot point (0, 0). */
static const char figure_defs[] =
    "<symbol id=\"fig-meeple\" overflow=\"visible\"><path d=\"M0 -34 c6 0 9 4 9 9 "
    "c0 3 -1 5 -3 6 l12 5 c4 2 4 8 -1 8 l-7 -1 l6 15 h-10 l-6 -9 l-6 9 h-10 l6 -15 "
    "l-7 1 c-5 0 -5 -6 -1 -8 l12 -5 c-2 -1 -3 -3 -3 -6 c0 -5 3 -9 9 -9z\"/></symbol>"
    "<symbol id=\"fig-builder\" overflow=\"visible\"><path d=\"M-9 -40 h18 v5 h-4 "
    "c3 2 4 4 4 7 c0 3 -1 4 -3 5 l7 4 v10 h-5 l3 17 h-8 l-3 -10 l-3 10 h-8 l3 -17 h-5 "
    "v-10 l7 -4 c-2 -1 -3 -2 -3 -5 c0 -3 1 -5 4 -7 h-4z\"/></symbol>"
    "<symbol id=\"fig-pig\" overflow=\"visible\"><path d=\"M-15 -20 c4 -6 22 -6 26 0 "
    "l3 -4 l1 6 c3 2 5 5 5 8 h-3 c0 4 -2 6 -4 7 v7 h-5 v-5 h-12 v5 h-5 v-7 c-4 -2 -7 "
    "-6 -7 -10 c0 -3 1 -5 1 -7z\"/></symbol>"
    "<symbol id=\"fig-mayor\" overflow=\"visible\"><path d=\"M0 -36 c6 0 9 4 9 9 "
    "c0 3 -1 5 -3 6 l14 6 c3 2 3 7 -1 7 l-6 -1 l8 19 h-42 l8 -19 l-6 1 c-4 0 -4 -5 -1 -7 "
    "l14 -6 c-2 -1 -3 -3 -3 -6 c0 -5 3 -9 9 -9z M-7 -41 l3 -5 l4 4 l4 -4 l3 5z\"/></symbol>"
    "<symbol id=\"fig-wagon\" overflow=\"visible\"><path d=\"M-18 -22 h36 l-4 14 h-28z "
    "M-12 -22 c2 -10 22 -10 24 0z\"/><circle cx=\"-9\" cy=\"-4\" r=\"5\"/>"
    "<circle cx=\"9\" cy=\"-4\" r=\"5\"/></symbol>"
    "<symbol id=\"fig-barn\" overflow=\"visible\"><path d=\"M-17 0 v-18 l6 -10 h22 l6 10 "
    "v18z M-5 0 v-10 h10 v10\"/></symbol>"
    "<symbol id=\"fig-other\" overflow=\"visible\"><path d=\"M0 -30 l14 10 v20 h-28 "
    "v-20z\"/></symbol>"
    /* an open spot the tile to place fits, laid over the spot (use.fits) */
    "<g id=\"fit\"><rect class=\"fits\" x=\"4\" y=\"4\" width=\"92\" height=\"92\" rx=\"6\"/>"
    "<text class=\"fits-mark\" x=\"50\" y=\"60\">+</text></g>\n";

static const char *figure_symbol(const char *kind)
{
    if (strcmp(kind, "meeple") == 0 || strcmp(kind, "large-meeple") == 0)
        return "fig-meeple";
    if (strcmp(kind, "builder") == 0)
        return "fig-builder";
    if (strcmp(kind, "pig") == 0)
        return "fig-pig";
    if (strcmp(kind, "mayor") == 0)
        return "fig-mayor";
    if (strcmp(kind, "wagon") == 0)
        return "fig-wagon";
    if (strcmp(kind, "barn") == 0)
        return "fig-barn";
    return "fig-other";
}

/* A point of the kind's reference frame on the board: rotated with the
 * tile about its anchor space's centre, then moved to board units. */
static struct pt board_point(const struct carc_tile *t, struct pt p, int bx, int by)
{
    for (int i = 0; i < t->rot; i++) {
        int x = p.x;
        p.x = SPACE - p.y;
        p.y = x;
    }
    return (struct pt){bx + t->x * SPACE + p.x, by + t->y * SPACE + p.y};
}

static void draw_figure(struct cas_outbuf *v, const struct cas_game *g, int player, int kind,
                        struct pt at, int on_field, int node, int before)
{
    const char *name = g->fig[kind].def.name;
    int large = strcmp(name, "large-meeple") == 0;
    /* a meeple on a field lies down: a farmer */
    int lying = on_field && (large || strcmp(name, "meeple") == 0);
    cas_outf(v, "<use class=\"figure %s\" data-cas-key=\"f%d.%d\" xlink:href=\"#%s\" fill=\"%s\" "
                "transform=\"translate(%d %d)%s%s\"/>\n", name, node, before, figure_symbol(name),
             fill_of[player],
             at.x + (lying ? 17 : 0), at.y + (lying ? 10 : 14), lying ? " rotate(-90)" : "",
             large ? " scale(1.3)" : "");
}

/* ------------------------------------------------------------ the board */

struct frame {
    int minx, maxx, miny, maxy; /* spaces shown */
    int cols, rows;             /* spaces the board area holds */
    int bx, by;                 /* board units of space 0,0's corner */
    int width, height;
    int ox, oy;                 /* where the frame's corner lies on the board */
};

static void frame_take(struct frame *fr, int x, int y)
{
    fr->minx = x < fr->minx ? x : fr->minx;
    fr->maxx = x > fr->maxx ? x : fr->maxx;
    fr->miny = y < fr->miny ? y : fr->miny;
    fr->maxy = y > fr->maxy ? y : fr->maxy;
}

/* The spaces shown: every cell, and in a decision view every space a
 * choice names (a castle's anchor may lie beyond the open spots); the
 * panel grows by `panel_extra` units for the choices drawn in it. */
static struct frame frame_of(const struct cas_state *s, const struct carc_marks *mk,
                             int panel_extra)
{
    struct frame fr = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < s->ncells; i++)
        frame_take(&fr, C_CELLS(s)[i].x, C_CELLS(s)[i].y);
    for (size_t i = 0; mk && i < mk->n; i++)
        if (mk->items[i].key.type == MARK_SPACE)
            frame_take(&fr, mk->items[i].key.a, mk->items[i].key.b);
    int w = fr.maxx - fr.minx + 1, h = fr.maxy - fr.miny + 1;
    int cols = w < MIN_BOARD ? MIN_BOARD : w, rows = h < MIN_BOARD ? MIN_BOARD : h;
    fr.cols = cols;
    fr.rows = rows;
    fr.bx = MARGIN + (cols - w) * SPACE / 2 - fr.minx * SPACE;
    fr.by = HEAD_H + MARGIN + (rows - h) * SPACE / 2 - fr.miny * SPACE;
    fr.width = 2 * MARGIN + cols * SPACE + PANEL_W;
    int panel_h = 260 + 96 * s->game->nplayers + 18 * (s->game->nplayers + 1) * s->game->nexp +
                  panel_extra;
    fr.height = HEAD_H + 2 * MARGIN + rows * SPACE;
    fr.height = fr.height < panel_h ? panel_h : fr.height;
    fr.ox = -fr.bx;
    fr.oy = -fr.by;
    return fr;
}

static const char style[] =
    "<style type=\"text/css\" data-cas-key=\"style\"><![CDATA[\n"
    "text{font-family:'DejaVu Sans',Verdana,sans-serif;fill:#2a2118}\n"
    ".ground{fill:#8fbf5a}.city{fill:#c9925a}.wall{fill:none;stroke:#6b4423;"
    "stroke-width:4;stroke-linecap:round}\n"
    ".road-edge{fill:none;stroke:#6d6250;stroke-width:15;stroke-linecap:butt}"
    ".road{fill:none;stroke:#f4ecd8;stroke-width:10;stroke-linecap:butt}"
    ".junction{fill:#b8562e;stroke:#5c2a14;stroke-width:2}\n"
    ".river{fill:none;stroke:#4a90d9;stroke-width:16}"
    ".edge{fill:none;stroke:#4d6a2e;stroke-width:1}\n"
    ".monastery rect,.monastery path{fill:#efe6d2;stroke:#5a4632;stroke-width:2}"
    ".monastery .cross{fill:none;stroke-width:3}.monastery .door{fill:#5a4632}"
    ".cloister-name{font-size:12px;text-anchor:middle}\n"
    ".garden circle{fill:#5f9e3a;stroke:#2f5a1a;stroke-width:2}.garden .bush{fill:#3f7f2a}\n"
    ".coat{fill:#2354a8;stroke:#f5f0e0;stroke-width:2}"
    ".inn rect{fill:#f0e2c0;stroke:#5a3a1a}.inn path{fill:#b03020}"
    ".cathedral rect,.cathedral path{fill:#d8d4e8;stroke:#4a3f6b;stroke-width:1.5}\n"
    ".good circle{stroke:#3a2a1a;stroke-width:1.5}.good text{font-size:10px;"
    "font-weight:bold;text-anchor:middle;fill:#fff}.wine circle{fill:#7a2a6a}"
    ".grain circle{fill:#c8a020}.cloth circle{fill:#2a70b0}\n"
    ".figure{stroke:#1a1a1a;stroke-width:2;stroke-linejoin:round}"
    ".open{fill:#e6dfca;stroke:#c2b797;stroke-width:2;stroke-dasharray:6 5}"
    ".fits{fill:#fbf3cf;stroke:#d4a21c;stroke-width:2.5;stroke-dasharray:8 4}"
    ".fits-mark{font-size:30px;text-anchor:middle;fill:#d4a21c}"
    ".last{fill:none;stroke:#ffd21f;stroke-width:6}"
    ".last-inner{fill:none;stroke:#6a4b00;stroke-width:1.5}"
    ".spot{fill:#fff;fill-opacity:0.75;stroke:#1a1a1a;stroke-width:2;stroke-dasharray:3 2}\n"
    ".title{font-size:24px;font-weight:bold}.status{font-size:16px}"
    ".name{font-size:18px;font-weight:bold}.score{font-size:28px;font-weight:bold;"
    "text-anchor:end}.small{font-size:13px}.panel{fill:#f6f1e4;stroke:#cbbf9f}"
    ".turn{fill:none;stroke:#2a2118;stroke-width:3}\n"
    ".coords{font-size:12px;fill:#7a6a4a;text-anchor:middle}.coords.row{text-anchor:end}"
    ".castle path{fill:#d9cdb0;stroke:#4a3f30;stroke-width:2;stroke-linejoin:round}"
    ".castle .gate{fill:#4a3f30}.pennant{stroke:#1a1a1a;stroke-width:1.5}"
    ".castle-name{font-size:13px;font-weight:bold;text-anchor:middle;fill:#1a1a1a;"
    "paint-order:stroke;stroke:#f5f0e0;stroke-width:3}\n"
    "]]></style>\n";

/* The kinds on the board, the drawn one and those in `also` (hand tiles
 * the notes name), each defined once. */
static void define_kinds(struct cas_outbuf *v, const struct cas_state *s, const uint8_t *also,
                         struct since *sn)
{
    const struct cas_game *g = s->game;
    uint8_t used[CARC_MAX_KINDS];
    memcpy(used, also, sizeof used);
    for (int i = 0; i < s->ntiles; i++)
        used[C_TILES(s)[i].kind] = 1;
    if (s->stage == ST_PLACE)
        used[s->drawn] = 1;
    for (int k = 0; k < g->nkinds; k++)
        if (used[k])
            define_kind(v, g, k, sn);
}

/* The board's x coordinates along its top edge and y coordinates down its
 * left edge, for every space whose middle lies in the board area: what a
 * player types ("place D 2,-1 90").  Each label is keyed by its column or
 * row, so a board that grows sends its new labels (and, when the edge a
 * ruler runs along moves, that ruler's labels), not the whole ruler. */
static void draw_coordinates(struct cas_outbuf *v, const struct frame *fr, int same,
                             const struct since *sn)
{
    int left = MARGIN, top = HEAD_H + MARGIN;
    int right = left + fr->cols * SPACE, bottom = top + fr->rows * SPACE;
    if (same) { /* where the frame lay, the labels are the last picture's, in a row */
        int n = 0, first = 0;
        const char *prefix = "cx";
        for (int x = fr->minx - MIN_BOARD; x <= fr->maxx + MIN_BOARD; x++) {
            int mid = fr->bx + x * SPACE + SPACE / 2;
            if (mid > left && mid < right && n++ == 0)
                first = x;
        }
        for (int y = fr->miny - MIN_BOARD; y <= fr->maxy + MIN_BOARD; y++) {
            int mid = fr->by + y * SPACE + SPACE / 2;
            if (mid > top && mid < bottom && n++ == 0) {
                first = y;
                prefix = "cy";
            }
        }
        if (put_run(v, sn, prefix, first, 0, 0, n))
            return;
    }
    for (int x = fr->minx - MIN_BOARD; x <= fr->maxx + MIN_BOARD; x++) {
        int mid = fr->bx + x * SPACE + SPACE / 2;
        if (mid > left && mid < right && same) {
            put_same(v, "cx", x, 0, 0);
        } else if (mid > left && mid < right) {
            char *at = piece_room(v);
            PIECE(at, "<text class=\"coords\" data-cas-key=\"cx");
            at = piece_int(at, x);
            PIECE(at, "\" x=\"");
            at = piece_xy(at, fr->ox + mid, fr->oy + top - 8);
            PIECE(at, "\">");
            at = piece_int(at, x);
            PIECE(at, "</text>\n");
            piece_end(v, at);
        }
    }
    for (int y = fr->miny - MIN_BOARD; y <= fr->maxy + MIN_BOARD; y++) {
        int mid = fr->by + y * SPACE + SPACE / 2;
        if (mid > top && mid < bottom && same) {
            put_same(v, "cy", y, 0, 0);
        } else if (mid > top && mid < bottom) {
            char *at = piece_room(v);
            PIECE(at, "<text class=\"coords row\" data-cas-key=\"cy");
            at = piece_int(at, y);
            PIECE(at, "\" x=\"");
            at = piece_xy(at, fr->ox + left - 4, fr->oy + mid + 4);
            PIECE(at, "\">");
            at = piece_int(at, y);
            PIECE(at, "</text>\n");
            piece_end(v, at);
        }
    }
}

static int fits_somewhere_here(const struct cas_state *s, const struct carc_cell *c)
{
    const struct carc_kind *k = &s->game->kinds[s->drawn];
    if (k->ncells == 1 && !k->vetoed) /* the placement lists' table: no edge to compare */
        return k->fitmask[c->pattern] != 0;
    for (int rot = 0; rot < 4; rot++)
        if (cas__carc_fits(s, s->drawn, c->x, c->y, rot))
            return 1;
    return 0;
}

/* An open spot's place row by row (y, then x) above its index i in the
 * front: spaces lie within 2^19 of the start tile (a placement's text is
 * refused beyond 30000), the front holds fewer than 2^24. */
static uint64_t spot_key(const struct carc_cell *c, int i)
{
    return (uint64_t)(uint32_t)(c->y + (1 << 19)) << 44 |
           (uint64_t)(uint32_t)(c->x + (1 << 19)) << 24 | (uint64_t)i;
}

/* Each open spot keyed by its space, and where the tile to place fits a
 * mark laid over it (the #fit drawing, keyed apart): a picture's changes
 * carry the spots that opened or closed and the few marks, not the whole
 * front again at every stage. */
static void draw_open_spots(struct cas_outbuf *v, const struct cas_state *s, const struct frame *fr,
                            const struct since *sn)
{
    /* an open spot's element is its space's: the last picture drew it
     * when the cell was known then (an empty cell is always open) */
    int kept = sn && sn->cells_kept ? (int)sn->last->ncells : 0;
    /* row by row, so a spot keeps its place among the others as the front
     * changes (the state keeps them in no order) */
    uint64_t *order = malloc(2 * ((size_t)s->nfront + 1) * sizeof *order);
    if (!order) {
        v->rc = CAS_ENOMEM;
        return;
    }
    for (int i = 0; i < s->nfront; i++)
        order[i] = spot_key(&C_CELLS(s)[C_FRONT(s)[i]], i);
    cas__carc_sort_words(order, s->nfront, order + s->nfront);
    for (int i = 0; i < s->nfront; i++) {
        const struct carc_cell *c = &C_CELLS(s)[C_FRONT(s)[order[i] & 0xffffffu]];
        int x = fr->bx + c->x * SPACE, y = fr->by + c->y * SPACE;
        if (c - C_CELLS(s) < kept) {
            put_same(v, "o", c->x, c->y, 1);
        } else {
            char *at = piece_room(v);
            PIECE(at, "<rect class=\"open\" data-cas-key=\"o");
            at = piece_int(at, c->x);
            *at++ = ',';
            at = piece_int(at, c->y);
            PIECE(at, "\" x=\"");
            at = piece_int(at, x + 4);
            at = piece_y_size(at, y + 4, SPACE - 8, SPACE - 8);
            PIECE(at, "\" rx=\"6\"/>\n");
            piece_end(v, at);
        }
        if (s->stage == ST_PLACE && fits_somewhere_here(s, c)) {
            char *at = piece_room(v);
            PIECE(at, "<use class=\"fits\" data-cas-key=\"x");
            at = piece_int(at, c->x);
            *at++ = ',';
            at = piece_int(at, c->y);
            PIECE(at, "\" xlink:href=\"#fit\" x=\"");
            at = piece_xy(at, x, y);
            PIECE(at, "\"/>\n");
            piece_end(v, at);
        }
    }
    free(order);
}

/* Buildings and marks stand upright whatever the tile's rotation, so they
 * are drawn over the tile at their rotated spots. */
static void draw_upright_marks(struct cas_outbuf *v, const struct cas_game *g,
                               const struct carc_kind *k, const struct carc_tile *t, int bx,
                               int by)
{
    for (unsigned m = k->of_class[CAS_CARC_CLOISTER]; m; m &= m - 1) {
        int f = __builtin_ctz(m);
        struct pt spot = feature_spot(k, f);
        spot.y -= 12; /* the building stands on the space's centre */
        draw_cloister(v, &k->f[f], board_point(t, spot, bx, by), k->id);
    }
    for (int f = 0; f < k->nf; f++) {
        int marked = 0; /* the spot is worked out only for a feature with marks */
        for (int a = 0; a < g->nattrs && !marked; a++)
            marked = k->f[f].attr[a] != 0;
        if (marked)
            draw_attributes(v, g, k, f, board_point(t, feature_spot(k, f), bx, by));
    }
}

static void draw_tiles(struct cas_outbuf *v, const struct cas_state *s, const struct frame *fr,
                       const struct since *sn)
{
    const struct cas_game *g = s->game;
    int kept = sn && sn->tiles_kept ? (int)sn->last->ntiles : 0; /* never change once placed */
    /* the last picture's tiles lie one after the other there: one run */
    int from = kept && put_run(v, sn, "t", C_TILES(s)[0].x, C_TILES(s)[0].y, 1, kept) ? kept : 0;
    for (int i = from; i < s->ntiles; i++) {
        const struct carc_tile *t = &C_TILES(s)[i];
        if (i < kept) {
            put_same(v, "t", t->x, t->y, 1);
            continue;
        }
        int x = fr->bx + t->x * SPACE, y = fr->by + t->y * SPACE;
        char *at = piece_room(v);
        PIECE(at, "<g class=\"tile\" data-cas-key=\"t");
        at = piece_int(at, t->x);
        *at++ = ',';
        at = piece_int(at, t->y);
        PIECE(at, "\"><use xlink:href=\"#k");
        at = piece_int(at, t->kind);
        PIECE(at, "\" transform=\"translate(");
        at = piece_pair(at, x, y);
        PIECE(at, ") rotate(");
        at = piece_int(at, t->rot * 90);
        PIECE(at, " 50 50)\"/>");
        piece_end(v, at);
        draw_upright_marks(v, g, &g->kinds[t->kind], t, fr->bx, fr->by);
        cas_outs(v, "</g>\n");
    }
}

/* The tile draw_last_tile outlines, or -1. */
static int last_tile(const struct cas_state *s)
{
    int last = s->placed >= 0 ? s->placed : s->ntiles - 1;
    return s->ntiles < 2 ? -1 : last;
}

/* The tile placed last (this turn's, or the previous turn's), outlined. */
static void draw_last_tile(struct cas_outbuf *v, const struct cas_state *s, const struct frame *fr,
                           const struct since *sn)
{
    int last = last_tile(s);
    if (last < 0)
        return;
    if (sn && sn->tiles_kept && sn->last->last == last && (uint32_t)last < sn->last->ntiles) {
        put_same(v, "last", 0, 0, -1);
        return;
    }
    const struct carc_tile *t = &C_TILES(s)[last];
    const struct carc_kind *k = &s->game->kinds[t->kind];
    cas_outs(v, "<g data-cas-key=\"last\">");
    for (int c = 0; c < k->ncells; c++) {
        int x = fr->bx + (t->x + k->rot[t->rot].dx[c]) * SPACE;
        int y = fr->by + (t->y + k->rot[t->rot].dy[c]) * SPACE;
        char *at = piece_room(v);
        PIECE(at, "<rect class=\"last\" x=\"");
        at = piece_int(at, x + 3);
        at = piece_y_size(at, y + 3, SPACE - 6, SPACE - 6);
        PIECE(at, "\"/><rect class=\"last-inner\" x=\"");
        at = piece_int(at, x + 6);
        at = piece_y_size(at, y + 6, SPACE - 12, SPACE - 12);
        PIECE(at, "\"/>");
        piece_end(v, at);
    }
    cas_outs(v, "</g>\n");
}

static void draw_figures(struct cas_outbuf *v, const struct cas_state *s, const struct frame *fr,
                         const struct since *sn)
{
    const struct cas_game *g = s->game;
    /* a figure's element follows from the figures up to it (its key counts
     * those before it on its feature) and the tiles (where its node is) */
    int kept = sn && sn->figs_kept ? (int)sn->last->nfigs : 0, from = 0;
    if (kept > 1 && sn->runs) { /* the last picture's, one after the other there */
        char *at = piece_room(v);
        PIECE(at, SAME_OPEN "f");
        at = piece_int(at, C_FIGS(s)[0].node);
        PIECE(at, ".0"); /* the first on its feature */
        at = piece_run_close(at, kept);
        piece_end(v, at);
        from = kept;
    }
    for (int i = from; i < s->nfigs; i++) {
        const struct carc_fig *f = &C_FIGS(s)[i];
        const struct carc_node *n = &C_NODES(s)[f->node];
        const struct carc_tile *t = &C_TILES(s)[n->tile];
        int before = 0; /* figures earlier on the same feature of this tile */
        for (int j = 0; j < i; j++)
            before += C_FIGS(s)[j].node == f->node;
        if (i < kept) {
            char *at = piece_room(v);
            PIECE(at, SAME_OPEN "f");
            at = piece_int(at, f->node);
            *at++ = '.';
            at = piece_int(at, before);
            PIECE(at, SAME_CLOSE);
            piece_end(v, at);
            continue;
        }
        struct pt at = board_point(t, feature_spot(&g->kinds[t->kind], n->local), fr->bx,
                                   fr->by);
        at.x += 18 * before;
        draw_figure(v, g, f->player, f->kind, at, n->cls == CAS_CARC_FIELD, f->node, before);
    }
}

/* Where this turn's player may deploy: a ring on each feature's spot. */
static void draw_deploy_spots(struct cas_outbuf *v, const struct cas_state *s,
                              const struct frame *fr)
{
    if (s->stage != ST_DEPLOY || s->placed < 0)
        return;
    const struct cas_game *g = s->game;
    const struct carc_tile *t = &C_TILES(s)[s->placed];
    const struct carc_kind *k = &g->kinds[t->kind];
    cas_outs(v, "<g data-cas-key=\"spots\">");
    for (int f = 0; f < k->nf; f++) {
        int legal = 0;
        for (int fk = 0; fk < g->nfig && !legal; fk++)
            legal = s->supply[s->player][fk] &&
                    cas__carc_deploy_legal(s, s->player, fk, t->node_base + f);
        if (!legal)
            continue;
        struct pt at = board_point(t, feature_spot(k, f), fr->bx, fr->by);
        cas_outf(v, "<circle class=\"spot\" cx=\"%d\" cy=\"%d\" r=\"8\"/>", at.x, at.y);
    }
    cas_outs(v, "</g>\n");
}

/* ------------------------------------------------------------ the panel */

/* A player's panel at frame point x, y, drawn about its own corner: the
 * card (colour, name, score, the supply's figures) and, as an element of
 * its own, the supply's counts, which change at most deploys and returns
 * while the card changes only with the score (and the frame). */
static void draw_player(struct cas_outbuf *v, const struct cas_state *s, int p, int x, int y,
                        const struct frame *fr, const struct since *sn)
{
    const struct cas_game *g = s->game;
    /* the supply row shares the panel's width among the figure kinds */
    int step = (PANEL_W - 84) / (g->nfig ? g->nfig : 1);
    step = step > 48 ? 48 : step;
    int narrow = step < 40;
    /* both drawn about the frame's corner: the same bytes while it stays
     * and the score (the counts) did */
    int kept = sn && sn->frame_kept;
    if (kept && sn->last->score[p] == s->score[p]) {
        put_same(v, "p", p, 0, 0);
    } else {
        char *at = piece_room(v);
        PIECE(at, "<g class=\"player\" data-cas-key=\"p");
        at = piece_int(at, p);
        PIECE(at, "\" transform=\"translate(");
        at = piece_pair(at, fr->ox + x, fr->oy + y);
        PIECE(at, ")\"><rect class=\"panel\" x=\"0\" y=\"0\" width=\"");
        at = piece_int(at, PANEL_W - 20);
        PIECE(at, "\" height=\"84\" rx=\"8\"/><g fill=\"");
        at = piece_n(at, fill_of[p], strlen(fill_of[p]));
        PIECE(at, "\" stroke=\"#1a1a1a\" stroke-width=\"2\">"
                  "<use xlink:href=\"#fig-meeple\" transform=\"translate(24 48)\"/>");
        piece_end(v, at);
        for (int f = 0, fx = 52; f < g->nfig; f++, fx += step) {
            const char *name = g->fig[f].def.name, *symbol = figure_symbol(name);
            int large = strcmp(name, "large-meeple") == 0;
            const char *scale = narrow ? (large ? "0.5" : "0.38") : (large ? "0.66" : "0.5");
            at = piece_room(v);
            PIECE(at, "<use xlink:href=\"#");
            at = piece_n(at, symbol, strlen(symbol));
            PIECE(at, "\" transform=\"translate(");
            at = piece_int(at, fx);
            PIECE(at, " 72) scale(");
            at = piece_n(at, scale, strlen(scale));
            PIECE(at, ")\"/>");
            piece_end(v, at);
        }
        at = piece_room(v);
        PIECE(at, "</g><text class=\"name\" x=\"56\" y=\"30\">");
        at = piece_n(at, cas__carc_colours[p], strlen(cas__carc_colours[p]));
        PIECE(at, "</text><text class=\"score\" x=\"");
        at = piece_int(at, PANEL_W - 34);
        PIECE(at, "\" y=\"34\">");
        at += cas_out_sdigits(at, s->score[p]);
        PIECE(at, "</text></g>\n");
        piece_end(v, at);
    }
    if (kept && memcmp(sn->last->supply[p], s->supply[p], sizeof s->supply[p]) == 0) {
        put_same(v, "n", p, 0, 0);
        return;
    }
    char *at = piece_room(v);
    PIECE(at, "<g class=\"supply\" data-cas-key=\"n");
    at = piece_int(at, p);
    PIECE(at, "\" transform=\"translate(");
    at = piece_pair(at, fr->ox + x, fr->oy + y);
    PIECE(at, ")\">");
    piece_end(v, at);
    for (int f = 0, fx = 52; f < g->nfig; f++, fx += step) {
        at = piece_room(v);
        PIECE(at, "<text class=\"small\" x=\"");
        at = piece_int(at, fx + (narrow ? 9 : 10));
        PIECE(at, "\" y=\"72\">");
        at = piece_int(at, s->supply[p][f]);
        PIECE(at, "</text>");
        piece_end(v, at);
    }
    cas_outs(v, "</g>\n");
}

/* What an expansion's text render says (goods held, ...), caught line by
 * line: the picture shows it without knowing what it means. */
struct caught {
    char text[2048];
    size_t len;
};

static int catch_text(void *ctx, const char *data, size_t len)
{
    struct caught *c = ctx;
    size_t room = sizeof c->text - 1 - c->len;
    len = len < room ? len : room;
    memcpy(c->text + c->len, data, len);
    c->len += len;
    c->text[c->len] = '\0';
    return CAS_OK;
}

#define NOTE_ICONS 8 /* hand tiles drawn under one note line */
#define ICON_ROW 36  /* a note line's row of hand tiles */

/* The expansions' text renders for one picture, caught once: their
 * non-empty lines, each NUL-terminated, one after another, in expansion
 * order; and the hand tiles (castles, abbeys) the lines name. */
struct notes {
    const struct cas_game *g;
    int hand[CARC_MAX_KINDS]; /* the kinds that may be held in a hand */
    uint64_t hand_id[CARC_MAX_KINDS][2]; /* and their ids, NUL-padded words */
    int nhand;
    char firsts[CARC_MAX_KINDS + 1]; /* the bytes hand tiles' ids start with */
    char text[CARC_MAX_EXPANSIONS * sizeof ((struct caught *)0)->text];
    size_t len;
    uint8_t named[CARC_MAX_KINDS]; /* the hand tiles some line names */
    int lines;                     /* lines that name some */
    int height;                    /* what they take, drawn */
    uint64_t digest;               /* of the text */
};

static int note_separator(char c)
{
    return c == ' ' || c == ',' || c == ';' || c == ':';
}

/* The hand tile kinds a note line names, word by word: "Red castles in
 * hand: CG-2 CG-5" shows those castles. */
static int hand_kinds_named(const struct notes *nt, const char *text, int *kinds)
{
    int n = 0;
    if (!nt->nhand)
        return 0;
    /* only words that start as some hand tile's id does ("CG-2", not
     * "Red" or "wine:"): found by strpbrk's scan, not byte by byte */
    for (const char *w = text; n < NOTE_ICONS && (w = strpbrk(w, nt->firsts));) {
        size_t len = 0;
        while (w[len] && !note_separator(w[len]))
            len++;
        if (w > text && !note_separator(w[-1])) { /* inside a word: its end */
            w += len ? len : 1;
            continue;
        }
        uint64_t word[2] = {0, 0}; /* as the ids are kept: two compares a hand tile */
        if (len && len < sizeof word)
            memcpy(word, w, len);
        for (int h = 0; len && len < sizeof word && h < nt->nhand; h++)
            if (nt->hand_id[h][0] == word[0] && nt->hand_id[h][1] == word[1])
                kinds[n++] = nt->hand[h];
        w += len ? len : 1;
    }
    return n;
}

static void notes_add(struct notes *nt, const char *line, size_t len)
{
    memcpy(nt->text + nt->len, line, len);
    nt->text[nt->len + len] = '\0';
    int kinds[NOTE_ICONS], n = hand_kinds_named(nt, nt->text + nt->len, kinds);
    for (int i = 0; i < n; i++)
        nt->named[kinds[i]] = 1;
    nt->lines += n > 0;
    nt->height += 18 + (n ? ICON_ROW - 6 : 0);
    nt->len += len + 1;
}

/* The notes of the expansions' text renders for `viewer`. */
static void notes_collect(struct notes *nt, const struct cas_state *s, int viewer)
{
    const struct cas_game *g = s->game;
    nt->g = g;
    nt->nhand = 0;
    size_t nfirsts = 0;
    nt->firsts[0] = '\0';
    nt->len = 0;
    nt->lines = 0;
    nt->height = 0;
    nt->digest = DIGEST_START;
    memset(nt->named, 0, sizeof nt->named);
    if (!g->nexp)
        return;
    for (int k = 0; k < g->nkinds; k++)
        if (g->kinds[k].hand) {
            if (g->kinds[k].id[0] && !memchr(nt->firsts, g->kinds[k].id[0], nfirsts))
                nt->firsts[nfirsts++] = g->kinds[k].id[0];
            memset(nt->hand_id[nt->nhand], 0, sizeof nt->hand_id[nt->nhand]);
            memcpy(nt->hand_id[nt->nhand], g->kinds[k].id, strnlen(g->kinds[k].id, CARC_ID_LEN - 1));
            nt->hand[nt->nhand++] = k;
        }
    nt->firsts[nfirsts] = '\0';
    for (int e = 0; e < g->nexp; e++) {
        if (!g->exp[e].desc->render)
            continue;
        struct caught c;
        c.len = 0;
        c.text[0] = '\0';
        struct cas_writer out = {.struct_size = sizeof out, .ctx = &c, .write = catch_text};
        if (g->exp[e].desc->render(g->exp[e].xctx, CARC_COF(s), viewer, CAS_RENDER_TEXT, &out) !=
            CAS_OK)
            continue;
        for (const char *at = c.text; *at;) {
            size_t len = strcspn(at, "\n");
            if (len)
                notes_add(nt, at, len);
            at += len + (at[len] == '\n');
        }
    }
    /* eight bytes a word; the length closes it (a tail of NULs then
     * differs from none) */
    for (size_t i = 0; i < nt->len; i += 8) {
        uint64_t word = 0;
        memcpy(&word, nt->text + i, nt->len - i < 8 ? nt->len - i : 8);
        nt->digest = digest_word(nt->digest, word);
    }
    nt->digest = digest_word(nt->digest, nt->len);
}

/* Each note line at x, y and down, and under it the hand tiles it names,
 * each at a third of its size; returns the next y. */
static int draw_notes(struct cas_outbuf *v, const struct notes *nt, int x, int y)
{
    for (const char *text = nt->text; text < nt->text + nt->len; text += strlen(text) + 1) {
        char *at = piece_room(v);
        PIECE(at, "<text class=\"small note\" x=\"");
        at = piece_xy(at, x, y);
        PIECE(at, "\">");
        piece_end(v, at);
        put_escaped(v, text);
        cas_outs(v, "</text>");
        y += 18;
        int kinds[NOTE_ICONS], n = hand_kinds_named(nt, text, kinds), ix = x;
        for (int i = 0; i < n; i++) {
            const struct carc_kind *k = &nt->g->kinds[kinds[i]];
            struct carc_tile t = {.kind = (uint16_t)kinds[i], .rot = 0, .x = 0, .y = 0};
            at = piece_room(v);
            PIECE(at, "<g class=\"hand-tile\" transform=\"translate(");
            at = piece_pair(at, ix, y - 10);
            PIECE(at, ") scale(0.3)\"><use xlink:href=\"#k");
            at = piece_int(at, kinds[i]);
            PIECE(at, "\"/>");
            piece_end(v, at);
            draw_upright_marks(v, nt->g, k, &t, 0, 0);
            cas_outs(v, "</g>");
            ix += 30 * k->ncells + 6;
        }
        y += n ? ICON_ROW - 6 : 0;
    }
    return y;
}

/* The players, the notes, the bag and the tile to place; returns the y
 * below them. */
static int draw_panel(struct cas_outbuf *v, const struct cas_state *s, const struct notes *nt,
                      const struct frame *fr, const struct since *sn)
{
    const struct cas_game *g = s->game;
    int x = fr->width - PANEL_W + 4, y = HEAD_H + 10;
    for (int p = 0; p < g->nplayers; p++, y += 96)
        draw_player(v, s, p, x, y, fr, sn);
    /* whose turn: a frame of its own over that player's panel */
    int turn = cas__carc_current(s);
    if (turn >= 0 && turn < g->nplayers && sn && sn->frame_kept && sn->last->turn == turn) {
        put_same(v, "turn", 0, 0, -1);
    } else if (turn >= 0 && turn < g->nplayers) {
        char *at = piece_room(v);
        PIECE(at, "<rect class=\"turn\" data-cas-key=\"turn\" x=\"");
        at = piece_xy(at, fr->ox + x, fr->oy + HEAD_H + 10 + 96 * turn);
        PIECE(at, "\" width=\"");
        at = piece_int(at, PANEL_W - 20);
        PIECE(at, "\" height=\"84\" rx=\"8\"/>\n");
        piece_end(v, at);
    }
    /* the notes, the bag and the tile to place: each its own element about
     * its own corner, so a new count in the bag is a line's change */
    if (sn && sn->frame_kept && sn->last->notes == nt->digest) {
        put_same(v, "notes", 0, 0, -1); /* the same lines where they were */
        y += nt->height;
    } else {
        char *at = piece_room(v);
        PIECE(at, "<g data-cas-key=\"notes\" transform=\"translate(");
        at = piece_pair(at, fr->ox + x, fr->oy + y + 8);
        PIECE(at, ")\">");
        piece_end(v, at);
        y += draw_notes(v, nt, 0, 0);
        cas_outs(v, "</g>\n");
    }
    char *at = piece_room(v);
    PIECE(at, "<text class=\"status\" data-cas-key=\"bag\" x=\"");
    at = piece_xy(at, fr->ox + x, fr->oy + y + 18);
    PIECE(at, "\">");
    at = piece_int(at, s->bag_left);
    PIECE(at, " tiles in the bag</text>\n");
    piece_end(v, at);
    if (s->stage == ST_PLACE) {
        at = piece_room(v);
        PIECE(at, "<g data-cas-key=\"drawn\" transform=\"translate(");
        at = piece_pair(at, fr->ox + x, fr->oy + y + 48);
        PIECE(at, ")\"><text class=\"status\" x=\"0\" y=\"0\">To place: ");
        piece_end(v, at);
        put_escaped(v, g->kinds[s->drawn].id);
        struct carc_tile preview = {.kind = s->drawn, .x = 0, .y = 0};
        at = piece_room(v);
        PIECE(at, "</text><g class=\"drawn\"><use xlink:href=\"#k");
        at = piece_int(at, s->drawn);
        PIECE(at, "\" transform=\"translate(20 14)\"/>");
        piece_end(v, at);
        draw_upright_marks(v, g, &g->kinds[s->drawn], &preview, 20, 14);
        cas_outs(v, "</g></g>\n");
        return y + 62 + SPACE + 10;
    }
    return y + 30;
}

/* The status line, as snprintf would cut it into buf[0..cap), written
 * piece by piece (every picture has one). */
static void status_line(const struct cas_state *s, char *buf, size_t cap)
{
    const struct cas_game *g = s->game;
    struct carc_text t = {.buf = buf, .cap = cap, .len = 0};
    switch ((enum carc_stage)s->stage) {
    case ST_DRAW:
        carc_text_s(&t, cas__carc_colours[s->player]);
        carc_text_s(&t, " draws a tile");
        break;
    case ST_PLACE:
        carc_text_s(&t, cas__carc_colours[s->player]);
        carc_text_s(&t, " places ");
        carc_text_s(&t, g->kinds[s->drawn].id);
        break;
    case ST_DEPLOY:
        carc_text_s(&t, cas__carc_colours[s->player]);
        carc_text_s(&t, " may deploy a figure or pass");
        break;
    case ST_XPHASE: {
        const char *name = g->phases[s->xphase].phase->name; /* unchecked: printf's NULL */
        carc_text_s(&t, cas__carc_colours[s->xactor]);
        carc_text_s(&t, " decides: ");
        carc_text_s(&t, name ? name : "(null)");
        break;
    }
    default: cas__carc_winners_text(s, buf, cap); return;
    }
    carc_text_end(&t);
}

/* ------------------------------------------------------------ the choices */

/* How the decision view marks its choices: numbered for a player who
 * types them (CAS_RENDER_SVG), or with the click-to-play attributes and
 * no numbers for a pointer (`attributes`: CAS_RENDER_SVG_ACTIONS). */
struct view {
    const struct carc_marks *mk;
    const cas_action *actions;
    int attributes;
};

#define BOX 60      /* a tile or figure drawn in the panel, units a side */
#define BOX_STEP 68 /* from one box to the next in a row */
#define BOX_ROW 124 /* from one row of boxes to the next */
#define ROW_BOXES 4 /* boxes in a row */

/* The choice numbers of a run of items, as a player types them: "3-6,9";
 * cut short with "..." past the room. */
static void numbers_text(const struct carc_mark_item *it, size_t n, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < n;) {
        size_t j = i;
        while (j + 1 < n && it[j + 1].index == it[j].index + 1)
            j++;
        char part[32];
        int pl = j == i ? snprintf(part, sizeof part, "%s%u", len ? "," : "", it[i].index + 1)
                        : snprintf(part, sizeof part, "%s%u-%u", len ? "," : "", it[i].index + 1,
                                   it[j].index + 1);
        if (len + (size_t)pl + 4 > cap) {
            snprintf(buf + len, cap - len, "...");
            return;
        }
        memcpy(buf + len, part, (size_t)pl + 1);
        len += (size_t)pl;
        i = j + 1;
    }
}

/* The opening of a marked element: a group carrying, in the click-to-play
 * view, the choices it narrows to, its step and a label. */
static void mark_open(struct cas_outbuf *v, const struct view *vw, const char *cls,
                      const struct carc_mark_item *it, size_t n, const char *label,
                      const int *box)
{
    char *at = piece_room(v);
    PIECE(at, "<g class=\"mark ");
    at = piece_n(at, cls, strlen(cls)); /* a word of ours: "space", "rotation" */
    *at++ = '"';
    piece_end(v, at);
    if (vw->attributes) {
        cas_outs(v, " data-cas-choices=\"");
        for (size_t i = 0; i < n;) { /* sixteen numbers of ten digits to a room */
            char *at = piece_room(v);
            for (size_t end = i + 16 < n ? i + 16 : n; i < end; i++) {
                if (i)
                    *at++ = ' ';
                at += cas_out_digits32(at, it[i].index);
            }
            piece_end(v, at);
        }
        at = piece_room(v);
        PIECE(at, "\" data-cas-step=\"");
        at = piece_int(at, it[0].key.step);
        PIECE(at, "\" data-cas-label=\"");
        piece_end(v, at);
        put_escaped(v, label);
        cas_outs(v, "\"");
        if (box) { /* where a ghost of the tile lies (docs/abi.md) */
            at = piece_room(v);
            PIECE(at, " data-cas-box=\"");
            at = piece_pair(at, box[0], box[1]);
            *at++ = ' ';
            at = piece_pair(at, box[2], box[3]);
            *at++ = '"';
            piece_end(v, at);
        }
    }
    cas_outs(v, ">");
}

/* The numbers of an element's choices at x,y (text centred there), in
 * lines of at most `width` characters broken after commas; none in the
 * click-to-play view, where they would only cover the board. */
static void mark_numbers(struct cas_outbuf *v, const struct view *vw,
                         const struct carc_mark_item *it, size_t n, int x, int y, size_t width)
{
    if (vw->attributes)
        return;
    char numbers[48];
    numbers_text(it, n, numbers, sizeof numbers);
    for (const char *at = numbers; *at; y += 15) {
        size_t take = strlen(at);
        if (take > width) {
            take = width;
            while (take > 0 && at[take - 1] != ',')
                take--;
            take = take ? take : width;
        }
        cas_outf(v, "<text class=\"choice\" x=\"%d\" y=\"%d\">%.*s</text>", x, y, (int)take,
                 at);
        at += take;
    }
}

/* A mark's label when it stands for one action: its text; else 0. */
static int action_label(const struct cas_state *s, const struct view *vw,
                        const struct carc_mark_item *it, size_t n, char *buf, size_t cap)
{
    return n == 1 && cas__carc_action_text(s, vw->actions[it[0].index], buf, cap) >= 0;
}

#define LABEL_CAP 160   /* a mark's label */
#define FALLBACK_CAP 64 /* one that names no action: at most 63 bytes */

/* Where a mark's label names the element itself, not an action. */
static struct carc_text fallback_label(char *label)
{
    return (struct carc_text){.buf = label, .cap = FALLBACK_CAP, .len = 0};
}

/* The one-space hand tile an expansion's action on a space puts there
 * unturned, when its text starts with the kind's id in any case ("abbey
 * 1,1" places ABBEY): its kind, else -1 (a placement from the bag, whose
 * ghost the rotation step carries, or an action that places nothing). */
static int space_piece(const struct cas_state *s, const struct view *vw,
                       const struct carc_mark_item *it)
{
    const struct cas_game *g = s->game;
    cas_action a = vw->actions[it->index];
    char text[128];
    if (ACT_KIND(a) != ACT_PHASE || cas__carc_action_text(s, a, text, sizeof text) < 0)
        return -1;
    size_t len = strcspn(text, " ");
    for (int k = 0; k < g->nkinds; k++) {
        const char *id = g->kinds[k].id;
        size_t i = 0;
        while (i < len && id[i] && (text[i] | 0x20) == (id[i] | 0x20))
            i++;
        if (i == len && !id[i] && g->kinds[k].hand && g->kinds[k].ncells == 1)
            return k;
    }
    return -1;
}

/* Inside a space's mark: the hand tile its action places, as a hidden
 * ghost the client lays on the space while the click waits for Confirm
 * (docs/abi.md, data-cas-ghost). */
static void draw_space_ghost(struct cas_outbuf *v, const struct cas_state *s, int kind)
{
    const struct cas_game *g = s->game;
    struct carc_tile t = {.kind = (uint16_t)kind, .rot = 0, .x = 0, .y = 0};
    cas_outf(v, "<g data-cas-ghost=\"%d\" display=\"none\"><use xlink:href=\"#k%d\"/>",
             SPACE, kind);
    draw_upright_marks(v, g, &g->kinds[kind], &t, 0, 0);
    cas_outs(v, "</g>");
}

/* Board elements: the spaces, features and corners choices name. */
static void draw_board_marks(struct cas_outbuf *v, const struct cas_state *s,
                             const struct view *vw, const struct frame *fr)
{
    const struct carc_marks *mk = vw->mk;
    const struct cas_game *g = s->game;
    cas_outs(v, "<g class=\"marks\" data-cas-key=\"marks\">\n");
    for (size_t i = 0, end; i < mk->n; i = end) {
        end = cas__carc_mark_run(mk, i);
        const struct carc_mark_key *k = &mk->items[i].key;
        const struct carc_mark_item *it = &mk->items[i];
        char label[LABEL_CAP];
        struct carc_text fallback = fallback_label(label);
        struct pt at;
        if (k->type == MARK_SPACE) {
            if (!action_label(s, vw, it, end - i, label, sizeof label)) {
                carc_text_s(&fallback, "space ");
                carc_text_i(&fallback, k->a);
                carc_text_n(&fallback, ",", 1);
                carc_text_i(&fallback, k->b);
                carc_text_end(&fallback);
            }
            int x = fr->bx + k->a * SPACE, y = fr->by + k->b * SPACE;
            const int box[4] = {x, y, SPACE, SPACE};
            mark_open(v, vw, "space", it, end - i, label, box);
            char *at = piece_room(v);
            PIECE(at, "<rect class=\"hit\" x=\"");
            at = piece_int(at, x + 4);
            at = piece_y_size(at, y + 4, SPACE - 8, SPACE - 8);
            PIECE(at, "\" rx=\"6\"/>");
            piece_end(v, at);
            int piece = vw->attributes ? space_piece(s, vw, it) : -1;
            if (piece >= 0) {
                cas_outf(v, "<g transform=\"translate(%d %d)\">", x, y);
                draw_space_ghost(v, s, piece);
                cas_outs(v, "</g>");
            }
            mark_numbers(v, vw, it, end - i, x + SPACE / 2, y + SPACE - 12, 12);
            cas_outs(v, "</g>\n");
            continue;
        }
        if (k->type != MARK_FEATURE && k->type != MARK_CORNER)
            continue;
        const struct carc_tile *t = &C_TILES(s)[k->a];
        const struct carc_kind *kd = &g->kinds[t->kind];
        int named = action_label(s, vw, it, end - i, label, sizeof label);
        if (k->type == MARK_FEATURE) {
            at = board_point(t, feature_spot(kd, k->b), fr->bx, fr->by);
            if (!named) {
                carc_text_s(&fallback, kd->rot[t->rot].ftext[k->b]);
                carc_text_s(&fallback, " at ");
            }
        } else { /* corners 0 NW, 1 NE, 2 SE, 3 SW of the tile's anchor space */
            static const char *const names[4] = {"NW", "NE", "SE", "SW"};
            struct pt q = corner[k->b];
            at = (struct pt){fr->bx + t->x * SPACE + q.x + (k->b == 1 || k->b == 2 ? -14 : 14),
                             fr->by + t->y * SPACE + q.y + (k->b >= 2 ? -14 : 14)};
            if (!named) {
                carc_text_s(&fallback, "corner ");
                carc_text_s(&fallback, names[k->b]);
                carc_text_s(&fallback, " of ");
            }
        }
        if (!named) {
            carc_text_i(&fallback, t->x);
            carc_text_n(&fallback, ",", 1);
            carc_text_i(&fallback, t->y);
            carc_text_end(&fallback);
        }
        mark_open(v, vw, k->type == MARK_FEATURE ? "feature" : "corner", it, end - i, label,
                  NULL);
        char *p = piece_room(v);
        PIECE(p, "<circle class=\"hit spot-hit\" cx=\"");
        p = piece_int(p, at.x);
        PIECE(p, "\" cy=\"");
        p = piece_int(p, at.y);
        PIECE(p, "\" r=\"14\"/>");
        piece_end(v, p);
        mark_numbers(v, vw, it, end - i, at.x, at.y + 5, 12);
        cas_outs(v, "</g>\n");
    }
    cas_outs(v, "</g>\n");
}

/* Tile kind `kind` turned `rot`, fitted into a BOX square at x,y, or at
 * full box height into two boxes side by side when `wide` (a 2x1 tile
 * shown for itself, unturned).  With `ghost` the drawing is also the
 * ghost the client lays on the space chosen (data-cas-ghost: one space is
 * SPACE units of it, the space's corner at 0,0). */
static void draw_kind_box(struct cas_outbuf *v, const struct cas_game *g, int kind, int rot,
                          int x, int y, int wide, int ghost)
{
    const struct carc_kind *k = &g->kinds[kind];
    const struct carc_rot *r = &k->rot[rot];
    int mx = 0, my = 0;
    for (int c = 0; c < k->ncells; c++) {
        mx = r->dx[c] < mx ? r->dx[c] : mx;
        my = r->dy[c] < my ? r->dy[c] : my;
    }
    struct carc_tile t = {.kind = (uint16_t)kind, .rot = (uint8_t)rot, .x = 0, .y = 0};
    char *at = piece_room(v);
    PIECE(at, "<rect class=\"box\" x=\"");
    at = piece_int(at, x - 3);
    at = piece_y_size(at, y - 3, (wide ? BOX_STEP : 0) + BOX + 6, BOX + 6);
    PIECE(at, "\" rx=\"4\"/><g transform=\"translate(");
    at = piece_pair(at, x, y);
    if (k->ncells > 1 && !wide)
        PIECE(at, ") scale(0.3) translate(");
    else
        PIECE(at, ") scale(0.6) translate(");
    at = piece_pair(at, -mx * SPACE, -my * SPACE);
    PIECE(at, ")\">");
    if (ghost)
        PIECE(at, "<g data-cas-ghost=\"100\">");
    PIECE(at, "<use xlink:href=\"#k");
    at = piece_int(at, kind);
    PIECE(at, "\" transform=\"rotate(");
    at = piece_int(at, rot * 90);
    PIECE(at, " 50 50)\"/>");
    piece_end(v, at);
    draw_upright_marks(v, g, k, &t, 0, 0);
    if (ghost)
        cas_outs(v, "</g>");
    if (k->ncells > 1 && !wide) /* the half that goes on the space clicked */
        cas_outs(v, "<circle class=\"anchor\" cx=\"50\" cy=\"50\" r=\"16\"/>");
    cas_outs(v, "</g>");
}

/* Which panel rows the choices need: the tiles in a hand, each kind's
 * rotations, the figure kinds. */
struct panel_rows {
    int picks, rot_kinds[CARC_MAX_KINDS > 8 ? 8 : CARC_MAX_KINDS], nrot_kinds, figures;
};

static struct panel_rows panel_rows(const struct carc_marks *mk)
{
    struct panel_rows pr = {.picks = 0, .nrot_kinds = 0, .figures = 0};
    for (size_t i = 0, end; i < mk->n; i = end) {
        end = cas__carc_mark_run(mk, i);
        const struct carc_mark_key *k = &mk->items[i].key;
        if (k->type == MARK_PICK)
            pr.picks++;
        else if (k->type == MARK_FIGURE)
            pr.figures++;
        else if (k->type == MARK_ROT &&
                 (pr.nrot_kinds == 0 || pr.rot_kinds[pr.nrot_kinds - 1] != k->a) &&
                 pr.nrot_kinds < (int)(sizeof pr.rot_kinds / sizeof pr.rot_kinds[0]))
            pr.rot_kinds[pr.nrot_kinds++] = k->a;
    }
    return pr;
}

static int rows_of(int boxes)
{
    return (boxes + ROW_BOXES - 1) / ROW_BOXES;
}

/* Units the panel's choices take below the rest of the panel. */
static int panel_marks_height(const struct carc_marks *mk)
{
    struct panel_rows pr = panel_rows(mk);
    int rows = rows_of(2 * pr.picks) + pr.nrot_kinds + rows_of(pr.figures); /* 2x1 picks: 2 boxes */
    return rows ? 40 + rows * (BOX_ROW + 22) : 0;
}

/* The panel's elements from y down: picks, rotations, figure kinds, each
 * group under a heading. */
static void draw_panel_marks(struct cas_outbuf *v, const struct cas_state *s,
                             const struct view *vw, const struct frame *fr, int y)
{
    const struct carc_marks *mk = vw->mk;
    const struct cas_game *g = s->game;
    int x0 = fr->width - PANEL_W + 8;
    static const char *const heading[] = {[MARK_PICK] = "Tiles to choose:",
                                          [MARK_ROT] = "Turn the tile:",
                                          [MARK_FIGURE] = "Figure to deploy:"};
    for (int type = MARK_PICK; type <= MARK_FIGURE; type++) {
        if (type != MARK_PICK && type != MARK_ROT && type != MARK_FIGURE)
            continue;
        int col = 0, last_kind = -1, any = 0;
        size_t first = 0; /* the items are sorted by type first */
        while (first < mk->n && mk->items[first].key.type < type)
            first++;
        for (size_t i = first, end; i < mk->n && mk->items[i].key.type == type; i = end) {
            end = cas__carc_mark_run(mk, i);
            const struct carc_mark_key *k = &mk->items[i].key;
            if (!any) {
                cas_outf(v, "<text class=\"status\" x=\"%d\" y=\"%d\">%s</text>\n", x0, y + 24,
                         heading[type]);
                y += 40;
                any = 1;
            } else if (col == ROW_BOXES || (type == MARK_ROT && k->a != last_kind)) {
                y += BOX_ROW;
                col = 0;
            }
            int wide = type == MARK_PICK && g->kinds[k->a].ncells > 1;
            if (wide && col + 2 > ROW_BOXES) {
                y += BOX_ROW;
                col = 0;
            }
            int slot = type == MARK_ROT ? k->b : col;
            int x = x0 + slot * BOX_STEP;
            char label[LABEL_CAP];
            if (!action_label(s, vw, &mk->items[i], end - i, label, sizeof label)) {
                struct carc_text fallback = fallback_label(label);
                carc_text_s(&fallback,
                            type == MARK_FIGURE ? g->fig[k->a].def.name : g->kinds[k->a].id);
                if (type == MARK_ROT) {
                    carc_text_s(&fallback, " turned ");
                    carc_text_i(&fallback, k->b * 90);
                }
                carc_text_end(&fallback);
            }
            mark_open(v, vw, type == MARK_PICK ? "pick" : type == MARK_ROT ? "rotation" : "figure",
                      &mk->items[i], end - i, label, NULL);
            if (type == MARK_FIGURE) {
                const char *name = g->fig[k->a].def.name;
                cas_outf(v, "<rect class=\"box\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
                            "rx=\"4\"/><use xlink:href=\"#%s\" fill=\"%s\" stroke=\"#1a1a1a\" "
                            "stroke-width=\"2\" transform=\"translate(%d %d)\"/>"
                            "<text class=\"figure-name\" x=\"%d\" y=\"%d\">",
                         x - 3, y - 3, BOX + 6, BOX + 6, figure_symbol(name),
                         fill_of[cas__carc_current(s)], x + BOX / 2, y + BOX - 14, x + BOX / 2,
                         y + BOX);
                put_escaped(v, name);
                cas_outs(v, "</text>");
            } else {
                draw_kind_box(v, g, k->a, type == MARK_ROT ? k->b : 0, x, y, wide,
                              type == MARK_ROT && vw->attributes);
                if (type == MARK_PICK) {
                    cas_outf(v, "<text class=\"small pick-id\" x=\"%d\" y=\"%d\">", x,
                             y + BOX + 16);
                    put_escaped(v, g->kinds[k->a].id);
                    cas_outs(v, "</text>");
                }
            }
            mark_numbers(v, vw, &mk->items[i], end - i, x + BOX / 2 + (wide ? BOX_STEP / 2 : 0),
                         y + BOX + 20, 9);
            cas_outs(v, "</g>\n");
            last_kind = k->a;
            col = slot + 1 + wide;
        }
        if (any)
            y += BOX_ROW + 22;
    }
}

/* The kinds the panel's choices draw that the board does not (castles in
 * a hand). */
static void define_mark_kinds(struct cas_outbuf *v, const struct cas_state *s,
                              const struct view *vw, const uint8_t *defined, struct since *sn)
{
    const struct carc_marks *mk = vw->mk;
    const struct cas_game *g = s->game;
    uint8_t done[CARC_MAX_KINDS];
    memcpy(done, defined, sizeof done);
    for (int i = 0; i < s->ntiles; i++)
        done[C_TILES(s)[i].kind] = 1;
    if (s->stage == ST_PLACE)
        done[s->drawn] = 1;
    for (size_t i = 0; i < mk->n; i++) {
        const struct carc_mark_key *k = &mk->items[i].key;
        int kind = k->type == MARK_PICK || k->type == MARK_ROT ? k->a
                   : k->type == MARK_SPACE && vw->attributes ? space_piece(s, vw, &mk->items[i])
                                                              : -1;
        if (kind >= 0 && !done[kind]) {
            define_kind(v, g, kind, sn);
            done[kind] = 1;
        }
    }
}

/* ------------------------------------------------------------ the picture */

static const char choice_style[] =
    "<style type=\"text/css\" data-cas-key=\"choice-style\"><![CDATA[\n"
    ".mark .hit{fill:#fff;fill-opacity:0.01;stroke:#c0392b;stroke-width:3;cursor:pointer}"
    ".mark .spot-hit{fill-opacity:0.85}.anchor{fill:#c0392b;stroke:#fff;stroke-width:4}"
    ".figure-name{font-size:11px;text-anchor:middle}"
    ".mark.space .hit{stroke-dasharray:8 4}"
    ".mark .box{fill:#fffaf0;stroke:#c0392b;stroke-width:2;cursor:pointer}"
    ".choice{font-size:15px;font-weight:bold;text-anchor:middle;fill:#8e1f14;"
    "paint-order:stroke;stroke:#fff;stroke-width:3}\n"
    "]]></style>\n";

static void stamp_frame(int32_t *to, const struct frame *fr)
{
    const int from[12] = {fr->minx, fr->maxx, fr->miny, fr->maxy, fr->cols,  fr->rows,
                          fr->bx,   fr->by,   fr->width, fr->height, fr->ox, fr->oy};
    for (int i = 0; i < 12; i++)
        to[i] = from[i];
}

/* Every top-level element carries a data-cas-key (docs/abi.md "Keyed
 * pictures"), so a host sends only what changed from one picture to the
 * next.  The board is drawn in board units (space 0,0 at the origin) and
 * the viewBox moves as the board grows, so a tile, once placed, is the
 * same bytes in every later picture; the frame's own parts (heading,
 * coordinates, panel) follow the viewBox's corner. */
static int draw(const struct cas_state *s, int viewer, const struct view *vw,
                const struct cas_writer *out, struct since *sn)
{
    struct cas_outbuf v;
    cas_out_init(&v, out);
    struct notes nt;
    notes_collect(&nt, s, viewer);
    if (sn)
        sn->next.notes = nt.digest;
    struct frame fr = frame_of(s, vw ? vw->mk : NULL,
                               ICON_ROW * nt.lines + (vw ? panel_marks_height(vw->mk) : 0));
    struct frame board = fr;
    board.bx = board.by = 0;
    if (sn) {
        stamp_frame(sn->next.frame, &fr);
        sn->frame_kept = sn->last && memcmp(sn->last->frame, sn->next.frame,
                                            sizeof sn->next.frame) == 0;
    }
    char status[200];
    status_line(s, status, sizeof status);
    char *at = piece_room(&v);
    PIECE(at, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
              "<svg xmlns=\"http://www.w3.org/2000/svg\" "
              "xmlns:xlink=\"http://www.w3.org/1999/xlink\" version=\"1.1\" width=\"100%\" "
              "height=\"100%\" viewBox=\"");
    at = piece_pair(at, fr.ox, fr.oy);
    *at++ = ' ';
    at = piece_pair(at, fr.width, fr.height);
    PIECE(at, "\">\n");
    piece_end(&v, at);
    /* The same four in every picture of the game, marked or not
     * (choice-style too: it never travels again): placeholders where the
     * last picture (any of the game's, for the viewer) had them. */
    if (sn && sn->last) {
        if (!put_run(&v, sn, "title", 0, 0, -1, 4)) {
            put_same(&v, "title", 0, 0, -1);
            put_same(&v, "style", 0, 0, -1);
            put_same(&v, "choice-style", 0, 0, -1);
            put_same(&v, "figures", 0, 0, -1);
        }
    } else {
        cas_outs(&v, "<title data-cas-key=\"title\">Carcassonne</title>\n");
        cas_outs(&v, style);
        cas_outs(&v, choice_style);
        cas_outs(&v, "<defs data-cas-key=\"figures\">");
        cas_outs(&v, figure_defs);
        cas_outs(&v, "</defs>\n");
    }
    define_kinds(&v, s, nt.named, sn);
    if (vw)
        define_mark_kinds(&v, s, vw, nt.named, sn);
    /* the heading apart from the status line, which changes every ply */
    int frame_kept = sn && sn->frame_kept;
    if (frame_kept && !put_run(&v, sn, "ground", 0, 0, -1, 2)) {
        put_same(&v, "ground", 0, 0, -1);
        put_same(&v, "head", 0, 0, -1);
    } else if (!frame_kept) {
        cas_outf(&v, "<rect data-cas-key=\"ground\" x=\"%d\" y=\"%d\" width=\"%d\" "
                     "height=\"%d\" fill=\"#efe8d6\"/>\n<g data-cas-key=\"head\" "
                     "transform=\"translate(%d %d)\"><text class=\"title\" x=\"%d\" "
                     "y=\"36\">Carcassonne</text></g>\n",
                 fr.ox, fr.oy, fr.width, fr.height, fr.ox, fr.oy, MARGIN);
    }
    at = piece_room(&v);
    PIECE(at, "<g data-cas-key=\"status\" transform=\"translate(");
    at = piece_pair(at, fr.ox, fr.oy);
    PIECE(at, ")\"><text class=\"status\" x=\"");
    at = piece_int(at, MARGIN + 190);
    PIECE(at, "\" y=\"36\">");
    piece_end(&v, at);
    put_escaped(&v, status);
    cas_outs(&v, "</text></g>\n");
    draw_coordinates(&v, &fr, frame_kept, sn);
    draw_open_spots(&v, s, &board, sn);
    draw_tiles(&v, s, &board, sn);
    draw_last_tile(&v, s, &board, sn);
    draw_figures(&v, s, &board, sn);
    draw_deploy_spots(&v, s, &board);
    if (vw)
        draw_board_marks(&v, s, vw, &board);
    int y = draw_panel(&v, s, &nt, &fr, sn);
    if (vw) {
        at = piece_room(&v);
        PIECE(at, "<g data-cas-key=\"panel-marks\" transform=\"translate(");
        at = piece_pair(at, fr.ox, fr.oy);
        PIECE(at, ")\">");
        piece_end(&v, at);
        draw_panel_marks(&v, s, vw, &fr, y);
        cas_outs(&v, "</g>\n");
    }
    cas_outs(&v, "</svg>\n");
    return cas_out_finish(&v);
}

int cas__carc_render_svg(const struct cas_state *s, int viewer, const struct cas_writer *out)
{
    return draw(s, viewer, NULL, out, NULL);
}

static int draw_choices(const struct cas_state *s, int viewer, int attributes,
                        const cas_action *actions, size_t n, const struct cas_writer *out,
                        struct since *sn)
{
    struct carc_marks mk;
    int rc = cas__carc_marks(s, actions, n, &mk);
    if (rc != CAS_OK)
        return rc;
    struct view vw = {.mk = &mk, .actions = actions, .attributes = attributes};
    rc = attributes && mk.n == 0 ? CAS_EINVAL : draw(s, viewer, &vw, out, sn);
    cas__carc_marks_free(s, &mk);
    return rc;
}

int cas__carc_render_svg_choices(const struct cas_state *s, int viewer, int attributes,
                                 const cas_action *actions, size_t n,
                                 const struct cas_writer *out)
{
    return draw_choices(s, viewer, attributes, actions, n, out, NULL);
}

/* The digest of tiles[from..to) (kind, turn, space), cells[from..to)
 * (space) and figs[from..to) (node, kind, player), as a stamp keeps them:
 * each packed whole into one word. */
static uint64_t digest_tiles(const struct cas_state *s, int from, int to, uint64_t h)
{
    for (int i = from; i < to; i++) {
        const struct carc_tile *t = &C_TILES(s)[i];
        h = digest_word(h, (uint64_t)t->kind | (uint64_t)t->rot << 16 |
                               (uint64_t)(uint16_t)t->x << 32 | (uint64_t)(uint16_t)t->y << 48);
    }
    return h;
}

static uint64_t digest_cells(const struct cas_state *s, int from, int to, uint64_t h)
{
    for (int i = from; i < to; i++)
        h = digest_word(h, (uint64_t)(uint16_t)C_CELLS(s)[i].x |
                               (uint64_t)(uint16_t)C_CELLS(s)[i].y << 16);
    return h;
}

static uint64_t digest_figs(const struct cas_state *s, int from, int to, uint64_t h)
{
    for (int i = from; i < to; i++) {
        const struct carc_fig *f = &C_FIGS(s)[i];
        h = digest_word(h, (uint64_t)f->node | (uint64_t)f->kind << 16 |
                               (uint64_t)f->player << 24);
    }
    return h;
}

/* sn for a picture of s for viewer after the one stamped last[0..len)
 * (NULL: none): its stamp begun, and what of the last picture the state
 * still holds: the tiles placed then, the cells known then. */
static void since_open(struct since *sn, struct stamp *last_copy, const struct cas_state *s,
                       int viewer, const unsigned char *last, size_t len)
{
    memset(sn, 0, sizeof *sn);
    struct stamp *next = &sn->next;
    next->magic = STAMP_MAGIC;
    next->viewer = viewer;
    next->ntiles = s->ntiles;
    next->ncells = s->ncells;
    memcpy(next->score, s->score, sizeof next->score);
    memcpy(next->supply, s->supply, sizeof next->supply);
    next->turn = cas__carc_current(s); /* the frame drawn over its card, if a player's */
    next->last = last_tile(s);
    next->nfigs = s->nfigs;
    if (last && len == sizeof *last_copy) {
        memcpy(last_copy, last, sizeof *last_copy);
        if (last_copy->magic == STAMP_MAGIC && last_copy->viewer == viewer)
            sn->last = last_copy;
    }
    int kept_tiles = sn->last && sn->last->ntiles <= s->ntiles ? (int)sn->last->ntiles : 0;
    int kept_cells = sn->last && sn->last->ncells <= s->ncells ? (int)sn->last->ncells : 0;
    next->tiles = digest_tiles(s, 0, kept_tiles, DIGEST_START);
    sn->tiles_kept = sn->last && sn->last->ntiles <= s->ntiles && next->tiles == sn->last->tiles;
    next->tiles = digest_tiles(s, kept_tiles, s->ntiles, next->tiles);
    next->cells = digest_cells(s, 0, kept_cells, DIGEST_START);
    sn->cells_kept = sn->tiles_kept && sn->last->ncells <= s->ncells &&
                     next->cells == sn->last->cells;
    next->cells = digest_cells(s, kept_cells, s->ncells, next->cells);
    int kept_figs = sn->last && sn->last->nfigs <= s->nfigs ? (int)sn->last->nfigs : 0;
    next->figs = digest_figs(s, 0, kept_figs, DIGEST_START);
    sn->figs_kept = sn->tiles_kept && sn->last->nfigs <= s->nfigs && next->figs == sn->last->figs;
    next->figs = digest_figs(s, kept_figs, s->nfigs, next->figs);
}

int cas__carc_render_since(const struct cas_state *s, struct cas_render_since *req)
{
    struct since sn;
    struct stamp last;
    since_open(&sn, &last, s, req->viewer, req->since, req->since_len);
    sn.runs = CAS_HAS_FIELD(req, struct cas_render_since, runs) && req->runs;
    int rc;
    if (req->format == CAS_RENDER_SVG)
        rc = draw(s, req->viewer, NULL, req->out, &sn);
    else if (req->format == CAS_RENDER_SVG_ACTIONS)
        rc = draw_choices(s, req->viewer, 1, req->actions, req->n, req->out, &sn);
    else
        rc = CAS_EINVAL;
    if (rc == CAS_OK && req->stamp_cap >= sizeof sn.next) {
        memcpy(req->stamp, &sn.next, sizeof sn.next);
        req->stamp_len = sizeof sn.next;
    }
    return rc;
}
