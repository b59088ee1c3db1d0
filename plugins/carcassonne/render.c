/*
 * render.c — what a viewer sees: the board as text (3x3 characters per
 * space when it fits 80 columns, 1 otherwise) with figures where they
 * stand, open spots ('o', '?' where the drawn tile fits), scores, supplies,
 * figures and whose decision it is; the same with ANSI colours; and JSON
 * with the full public state.  Nothing is hidden in Carcassonne: the bag is
 * public as counts and the draw order does not exist until chance picks.
 *
 * The board never shows tile ids: a space shows its terrain only, so the
 * one upper-case letter on it is a figure (R B G Y K P, the player's
 * initial) and digits are choice numbers.  The decision view
 * (cas__carc_render_choices) adds the drawn tile in each rotation, or the
 * placed tile with its deploy choices, and numbers the choices on the board.
 */
#include <stdio.h>

#include <castellan/outbuf.h>

#include "carc.h"

static const char player_letter[CARC_MAX_PLAYERS] = {'R', 'B', 'G', 'Y', 'K', 'P'};
static const char *const player_ansi[CARC_MAX_PLAYERS] = {"31", "34", "32", "33", "90", "35"};

/* What a board character stands for, beyond its glyph: a figure of a
 * player (>= 0), terrain, or a choice number. */
#define OWNER_TERRAIN (-1)
#define OWNER_CHOICE (-2)

#define TRY(expr)            \
    do {                     \
        int rc_ = (expr);    \
        if (rc_ < 0)         \
            return rc_;      \
    } while (0)

struct bounds {
    int minx, maxx, miny, maxy;
};

static struct bounds board_bounds(const struct cas_state *s)
{
    struct bounds b = {0, 0, 0, 0};
    for (int i = 0; i < s->ncells; i++) {
        const struct carc_cell *c = &C_CELLS(s)[i];
        b.minx = c->x < b.minx ? c->x : b.minx;
        b.maxx = c->x > b.maxx ? c->x : b.maxx;
        b.miny = c->y < b.miny ? c->y : b.miny;
        b.maxy = c->y > b.maxy ? c->y : b.maxy;
    }
    return b;
}

static char edge_char(int edge, int side)
{
    switch (edge) {
    case EDGE_CITY: return '#';
    case EDGE_ROAD: return side % 2 ? '-' : '|';
    case EDGE_FIELD: return '.';
    case EDGE_RIVER: return '~';
    case EDGE_ANY: return '*';
    default: return ' ';
    }
}

/* The letter of a cloister-class feature: 'm' for a monastery, else the
 * first letter of its name ('c' for Castles in Germany's castle). */
static char cloister_char(const struct carc_feature_def *f)
{
    char first = f->name[0];
    return strcmp(f->name, "monastery") == 0 || first < 'a' || first > 'z' ? 'm' : first;
}

/* The letter of k's cloister (it has one). */
static char kind_cloister_char(const struct carc_kind *k)
{
    for (int f = 0; f < k->nf; f++)
        if (k->f[f].cls == CAS_CARC_CLOISTER)
            return cloister_char(&k->f[f]);
    return 'm';
}

/* The terrain at the middle of a space: a monastery (or another cloister,
 * by its letter), where roads meet or run straight, a city that joins
 * sides, else field. */
static char centre_char(const struct carc_kind *k, const struct carc_rot *r, int sub)
{
    if (k->has_cloister)
        return kind_cloister_char(k);
    int roads = 0, road_sides = 0;
    for (int b = 0; b < 4; b++)
        if (r->edge[sub][b] == EDGE_ROAD) {
            roads++;
            road_sides |= 1 << b;
        }
    if (roads == 2 && road_sides == 0x5)
        return '|';
    if (roads == 2 && road_sides == 0xA)
        return '-';
    if (roads)
        return '+';
    for (int b = 0; b < 4; b++) {
        int a = r->seg[sub][b][1];
        for (int o = b + 1; o < 4; o++)
            if (a != 0xFF && a == r->seg[sub][o][1] && k->f[a].cls == CAS_CARC_CITY)
                return '#';
    }
    for (int b = 0; b < 4; b++)
        if (r->edge[sub][b] == EDGE_RIVER)
            return '~';
    return '.';
}

/* One placed space as 3x3 characters, figures drawn where they stand;
 * owner[] holds the player of each figure cell, -1 for terrain. */
static void draw_space(const struct cas_state *s, int ci, char out[3][3], int8_t owner[3][3])
{
    const struct carc_cell *c = &C_CELLS(s)[ci];
    const struct carc_tile *t = &C_TILES(s)[c->tile];
    const struct carc_kind *k = &s->game->kinds[t->kind];
    const struct carc_rot *r = &k->rot[t->rot];
    static const int side_pos[4][2] = {{0, 1}, {1, 2}, {2, 1}, {1, 0}};
    static const int corner_pos[4][2] = {{0, 2}, {2, 2}, {2, 0}, {0, 0}}; /* NE SE SW NW */
    static const int half_pos[8][2] = {{0, 0}, {0, 2}, {0, 2}, {2, 2},
                                       {2, 2}, {2, 0}, {2, 0}, {0, 0}};
    for (int y = 0; y < 3; y++)
        for (int x = 0; x < 3; x++) {
            out[y][x] = '.';
            owner[y][x] = OWNER_TERRAIN;
        }
    for (int b = 0; b < 4; b++) {
        out[side_pos[b][0]][side_pos[b][1]] =
            r->edge[c->sub][b] == EDGE_NONE && k->has_cloister /* inside a large tile */
                ? kind_cloister_char(k)
                : edge_char(r->edge[c->sub][b], b);
        /* a corner between two sides of one city is city too */
        int a = r->seg[c->sub][b][1], next = r->seg[c->sub][(b + 1) % 4][1];
        if (a != 0xFF && a == next && k->f[a].cls == CAS_CARC_CITY)
            out[corner_pos[b][0]][corner_pos[b][1]] = '#';
    }
    out[1][1] = centre_char(k, r, c->sub);
    for (int i = 0; i < s->nfigs; i++) {
        const struct carc_fig *f = &C_FIGS(s)[i];
        const struct carc_node *n = &C_NODES(s)[f->node];
        if (n->tile != c->tile)
            continue;
        int py = 1, px = 1;
        for (int b = 0; b < 4; b++)
            for (int slot = 0; slot < 3; slot++)
                if (r->seg[c->sub][b][slot] == n->local) {
                    const int *pos = slot == 1 ? side_pos[b] : half_pos[b * 2 + slot / 2];
                    py = pos[0];
                    px = pos[1];
                }
        out[py][px] = player_letter[f->player];
        owner[py][px] = (int8_t)f->player;
    }
}

/* '?' where the drawn tile fits (some rotation), 'o' elsewhere. */
static char open_mark(const struct cas_state *s, const struct carc_cell *c)
{
    if (s->stage != ST_PLACE)
        return 'o';
    const struct carc_kind *k = &s->game->kinds[s->drawn];
    if (k->ncells == 1 && s->game->nexp == 0)
        return k->fitmask[c->pattern] ? '?' : 'o';
    for (int rot = 0; rot < 4; rot++)
        if (cas__carc_fits(s, s->drawn, c->x, c->y, rot))
            return '?';
    return 'o';
}

/* The choices a decision view numbers: the actions in the order the host
 * lists them (choice i + 1 is actions[i]); NULL in a plain render. */
struct choices {
    const struct cas_state *state; /* the actions' state: codes decode in it */
    const cas_action *actions;
    size_t n;
    int spots; /* some expansion's action names a spot (any_spot) */
};

/* The range of choice numbers placing the tile with its anchor at x,y:
 * *first..*last (1-based), or 0 when no choice goes there.  The actions
 * are sorted by code, so the rotations of one spot are consecutive. */
/* The spot an expansion's action puts a tile on: the first X,Y word of its
 * text ("abbey 1,1", "castle CG-3 4,-1 270"); 0 when it names none. */
static int phase_spot(const struct cas_state *s, cas_action a, int *x, int *y)
{
    char text[128];
    if (ACT_KIND(a) != ACT_PHASE || cas__carc_action_text(s, a, text, sizeof text) < 0)
        return 0;
    for (const char *w = text; *w; w += strspn(w, " ")) {
        int used = 0;
        size_t len = strcspn(w, " ");
        if (sscanf(w, "%d,%d%n", x, y, &used) == 2 && (size_t)used == len)
            return 1;
        w += len;
    }
    return 0;
}

/* Whether choice i puts a tile with its anchor at x,y. */
static int choice_at(const struct choices *ch, size_t i, int x, int y)
{
    int kind, ax, ay, rot;
    if (ACT_KIND(ch->actions[i]) == ACT_PLACE)
        return cas__carc_placement_of(ch->state, ch->actions[i], &kind, &ax, &ay, &rot) ==
                   CAS_OK && ax == x && ay == y;
    return phase_spot(ch->state, ch->actions[i], &ax, &ay) && ax == x && ay == y;
}

/* Whether an expansion's action among the choices names a spot. */
static int any_spot(const struct choices *ch)
{
    int x, y;
    for (size_t i = 0; ch && i < ch->n; i++)
        if (phase_spot(ch->state, ch->actions[i], &x, &y))
            return 1;
    return 0;
}

/* The range of choice numbers putting a tile with its anchor at x,y:
 * *first..*last (1-based), or 0 when no choice goes there; *gaps is set
 * when other choices lie between them (two castles at one spot: the
 * board then shows the first only).  A
 * placement's rotations of one spot are consecutive: actions are sorted
 * by code. */
static size_t spot_choices(const struct choices *ch, int x, int y, size_t *last, int *gaps)
{
    size_t first = 0, count = 0;
    *last = 0;
    for (size_t i = 0; ch && i < ch->n; i++) {
        if (!choice_at(ch, i, x, y))
            continue;
        if (!first)
            first = i + 1;
        *last = i + 1;
        count++;
    }
    *gaps = first && count != *last - first + 1;
    return first;
}

/* A choice number as one character: 1-9, then a-z for 10-35, '*' beyond. */
static char choice_char(size_t number)
{
    if (number < 10)
        return (char)('0' + number);
    return number < 36 ? (char)('a' + number - 10) : '*';
}

/* An open spot in the decision view: the number of the first choice
 * placing the tile there and, under it, "-N" for the last when there are
 * several (rotations of one spot are consecutive); 'o' when none goes
 * there.  One space is one character at scale 1: the first number only,
 * as choice_char writes it. */
static void open_choice_cell(const struct choices *ch, const struct carc_cell *c, int scale,
                             char cell[3][3], int8_t who[3][3])
{
    int gaps;
    size_t last, first = spot_choices(ch, c->x, c->y, &last, &gaps);
    char text[24];
    if (!first) {
        cell[1][1] = 'o';
        return;
    }
    memset(who, OWNER_CHOICE, 9);
    if (scale == 1) {
        cell[1][1] = choice_char(first);
        return;
    }
    snprintf(text, sizeof text, first < 10 ? " %zu" : "%zu", first);
    memcpy(cell[1], text, strlen(text) > 3 ? 3 : strlen(text));
    if (last != first && !gaps) { /* with gaps, the list tells the others */
        snprintf(text, sizeof text, "-%zu", last);
        memcpy(cell[2], text, strlen(text) > 3 ? 3 : strlen(text));
    }
}

#define LINE_MAX_COLS 80
#define LINE_BYTES (LINE_MAX_COLS * 16)

static size_t put_text(char *line, size_t n, const char *text)
{
    size_t len = strlen(text);
    memcpy(line + n, text, len);
    return n + len;
}

/* Append one character, coloured in ANSI for figures (inverse, in the
 * player's colour), choice numbers (bold yellow) and city walls (cyan).
 * At most 16 bytes. */
static size_t put_char(char *line, size_t n, char ch, int player, int ansi)
{
    if (ansi && player == OWNER_CHOICE && ch != ' ') {
        n = put_text(line, n, "\x1b[1;33m");
        line[n++] = ch;
        return put_text(line, n, "\x1b[0m");
    }
    if (ansi && player >= 0) {
        n = put_text(line, n, "\x1b[1;7;");
        n = put_text(line, n, player_ansi[player]);
        line[n++] = 'm';
        line[n++] = ch;
        return put_text(line, n, "\x1b[0m");
    }
    if (ansi && ch == '#')
        return put_text(line, n, "\x1b[36m#\x1b[0m");
    line[n] = ch;
    return n + 1;
}

/* One board row of spaces (3 text lines at scale 3, 1 at scale 1) for
 * columns x0..x1, from the cells of that row, written line by line. */
static int render_row(const struct cas_state *s, const uint16_t *row, int n, int x0, int x1,
                      int scale, int ansi, const struct choices *ch,
                      const struct cas_writer *out)
{
    char grid[3][LINE_MAX_COLS];
    int8_t owner[3][LINE_MAX_COLS];
    int cols = (x1 - x0 + 1) * scale;
    memset(grid, ' ', sizeof grid);
    memset(owner, OWNER_TERRAIN, sizeof owner);
    for (int j = 0; j < n; j++) {
        const struct carc_cell *c = &C_CELLS(s)[row[j]];
        if (c->x < x0 || c->x > x1)
            continue;
        char cell[3][3];
        int8_t who[3][3];
        memset(cell, ' ', sizeof cell);
        memset(who, OWNER_TERRAIN, sizeof who);
        if (c->tile != CARC_NONE) {
            draw_space(s, row[j], cell, who);
        } else if (ch && (s->stage == ST_PLACE || ch->spots)) {
            open_choice_cell(ch, c, scale, cell, who);
        } else {
            cell[1][1] = open_mark(s, c);
        }
        for (int r = 0; r < scale; r++)
            for (int i = 0; i < scale; i++) {
                int cr = scale == 1 ? 1 : r, cc = scale == 1 ? 1 : i;
                grid[r][(c->x - x0) * scale + i] = cell[cr][cc];
                owner[r][(c->x - x0) * scale + i] = who[cr][cc];
            }
    }
    for (int r = 0; r < scale; r++) {
        char line[LINE_BYTES];
        size_t len = 0;
        for (int i = 0; i < cols; i++)
            len = put_char(line, len, grid[r][i], owner[r][i], ansi);
        line[len++] = '\n';
        TRY(out->write(out->ctx, line, len));
    }
    return CAS_OK;
}

/* The board's cells grouped by row (counting sort on y): row r holds
 * order[start[r] .. start[r + 1]).  One block from the host; *block is
 * what to release. */
static int rows_of_cells(const struct cas_state *s, int miny, int rows, int **start,
                         uint16_t **order, void **block)
{
    const struct cas_host *host = s->game->host;
    size_t ints = (size_t)(2 * rows + 1);
    *block = host->alloc(host->ctx, ints * sizeof(int) + (size_t)s->ncells * sizeof(uint16_t));
    if (!*block)
        return CAS_ENOMEM;
    *start = *block;
    int *cursor = *start + rows + 1;
    *order = (uint16_t *)(cursor + rows);
    memset(*start, 0, (size_t)(rows + 1) * sizeof(int));
    for (int i = 0; i < s->ncells; i++)
        (*start)[C_CELLS(s)[i].y - miny + 1]++;
    for (int r = 1; r <= rows; r++)
        (*start)[r] += (*start)[r - 1];
    memcpy(cursor, *start, (size_t)rows * sizeof(int));
    for (int i = 0; i < s->ncells; i++)
        (*order)[cursor[C_CELLS(s)[i].y - miny]++] = (uint16_t)i;
    return CAS_OK;
}

/* The legend under the board: every glyph it may hold, and the figures'
 * letters with the players they stand for. */
static int render_key(const struct cas_state *s, const struct choices *ch, int scale,
                      const struct cas_writer *out)
{
    const struct cas_game *g = s->game;
    TRY(cas_writef(out, "key: # city  -|+ road  . field  m monastery  ~ river  o open"));
    char named[26] = "";
    for (int k = 0; k < g->nkinds; k++) /* other cloisters: "c castle" */
        for (int f = 0; f < g->kinds[k].nf; f++) {
            const struct carc_feature_def *d = &g->kinds[k].f[f];
            char c = d->cls == CAS_CARC_CLOISTER ? cloister_char(d) : 'm';
            if (c != 'm' && !named[c - 'a']) {
                named[c - 'a'] = 1;
                TRY(cas_writef(out, "  %c %s", c, d->name));
            }
        }
    if (ch && (s->stage == ST_PLACE || ch->spots))
        TRY(cas_writef(out, "\n     %s\n",
                       scale == 1 ? "1-9 a-z: the first choice placing the tile there"
                                  : "3 over -4: choices 3 to 4 place the tile there"));
    else if (s->stage == ST_PLACE)
        TRY(cas_writef(out, "  ? drawn tile fits\n"));
    else
        TRY(cas_writef(out, "\n"));
    TRY(cas_writef(out, "     figures:"));
    for (int p = 0; p < g->nplayers; p++)
        TRY(cas_writef(out, " %c %s", player_letter[p], cas__carc_colours[p]));
    return cas_writef(out, "\n");
}

/* Scale 3 when the board fits 72 columns, else 1; a board wider than 78
 * spaces shows the 78 columns around this turn's tile. */
static int render_board(const struct cas_state *s, int ansi, const struct choices *ch,
                        const struct cas_writer *out)
{
    struct bounds b = board_bounds(s);
    int width = b.maxx - b.minx + 1, rows = b.maxy - b.miny + 1;
    int scale = width * 3 <= 72 ? 3 : 1;
    int x0 = b.minx, x1 = b.maxx;
    if (width > LINE_MAX_COLS - 2) {
        int cx = s->placed >= 0 ? C_TILES(s)[s->placed].x : 0;
        x0 = cx - (LINE_MAX_COLS - 2) / 2;
        x0 = x0 < b.minx ? b.minx : x0 + (LINE_MAX_COLS - 2) > b.maxx + 1
                                        ? b.maxx + 1 - (LINE_MAX_COLS - 2) : x0;
        x1 = x0 + LINE_MAX_COLS - 3;
    }
    int *start;
    uint16_t *order;
    void *block;
    TRY(rows_of_cells(s, b.miny, rows, &start, &order, &block));
    int rc = cas_writef(out, "board x %d..%d, y %d..%d (north up)%s\n", x0, x1, b.miny,
                        b.maxy, x0 != b.minx || x1 != b.maxx ? ", cropped" : "");
    for (int r = 0; r < rows && rc >= 0; r++)
        rc = render_row(s, order + start[r], start[r + 1] - start[r], x0, x1, scale, ansi,
                        ch, out);
    if (rc >= 0)
        rc = render_key(s, ch, scale, out);
    s->game->host->release(s->game->host->ctx, block);
    return rc < 0 ? rc : CAS_OK;
}

static int render_status(const struct cas_state *s, const struct cas_writer *out)
{
    const struct cas_game *g = s->game;
    const char *who = cas__carc_colours[s->player];
    switch ((enum carc_stage)s->stage) {
    case ST_DRAW:
        return cas_writef(out, "%s draws (%d tiles in the bag)\n", who, s->bag_left);
    case ST_PLACE:
        return cas_writef(out, "%s places %s (%d tiles left in the bag)\n", who,
                          g->kinds[s->drawn].id, s->bag_left);
    case ST_DEPLOY: {
        const struct carc_tile *t = &C_TILES(s)[s->placed];
        return cas_writef(out, "%s may deploy a figure on %s at %d,%d or pass\n", who,
                          g->kinds[t->kind].id, t->x, t->y);
    }
    case ST_XPHASE:
        if (s->xactor != s->player) /* a decision out of turn (wagon) */
            return cas_writef(out, "%s decides: %s (in %s's turn)\n",
                              cas__carc_colours[s->xactor],
                              g->phases[s->xphase].phase->name, who);
        return cas_writef(out, "%s decides: %s\n", cas__carc_colours[s->xactor],
                          g->phases[s->xphase].phase->name);
    default:
        break;
    }
    char text[160];
    cas__carc_winners_text(s, text, sizeof text);
    return cas_writef(out, "%s\n", text);
}

static int render_players(const struct cas_state *s, const struct cas_writer *out)
{
    const struct cas_game *g = s->game;
    for (int p = 0; p < g->nplayers; p++) {
        TRY(cas_writef(out, "%-6s %4lld points  supply:", cas__carc_colours[p],
                       (long long)s->score[p]));
        for (int f = 0; f < g->nfig; f++)
            TRY(cas_writef(out, " %d %s", s->supply[p][f], g->fig[f].def.name));
        TRY(out->write(out->ctx, "\n", 1));
    }
    struct cas_outbuf jb = CAS_OUTBUF_INIT(out);
    for (int i = 0; i < s->nfigs; i++) {
        const struct carc_fig *f = &C_FIGS(s)[i];
        const struct carc_node *n = &C_NODES(s)[f->node];
        const struct carc_tile *t = &C_TILES(s)[n->tile];
        cas_outs(&jb, "  ");
        cas_outs(&jb, cas__carc_colours[f->player]);
        cas_outs(&jb, " ");
        cas_outs(&jb, g->fig[f->kind].def.name);
        cas_outs(&jb, " on ");
        cas_outs(&jb, g->kinds[t->kind].rot[t->rot].ftext[n->local]);
        cas_outs(&jb, " of ");
        cas_outs(&jb, g->kinds[t->kind].id);
        cas_outs(&jb, " at ");
        cas_outi(&jb, t->x);
        cas_outs(&jb, ",");
        cas_outi(&jb, t->y);
        cas_outs(&jb, "\n");
    }
    return cas_out_finish(&jb);
}

static int render_expansions(const struct cas_state *s, int viewer,
                             enum cas_render_format format, const struct cas_writer *out)
{
    const struct cas_game *g = s->game;
    for (int e = 0; e < g->nexp; e++)
        if (g->exp[e].desc->render)
            TRY(g->exp[e].desc->render(g->exp[e].xctx, CARC_COF(s), viewer, format, out));
    return CAS_OK;
}

static int render_text(const struct cas_state *s, int viewer, int ansi,
                       const struct choices *ch, const struct cas_writer *out)
{
    TRY(render_board(s, ansi, ch, out));
    TRY(render_players(s, out));
    TRY(render_expansions(s, viewer, ansi ? CAS_RENDER_ANSI : CAS_RENDER_TEXT, out));
    return render_status(s, out);
}

/* ------------------------------------------------------- decision view */

/* A tile drawn large, 5x5 characters per space, so half-edges show. */
#define ART 5
#define ART_MAX_COLS (CARC_MAX_CELLS * ART)

/* Where each side's three slots sit, clockwise (N: Nw, N, Ne), the inner
 * end of each side, and the corner after each side (NE SE SW NW) outside
 * and inside. */
static const int art_slot[4][3][2] = {{{0, 1}, {0, 2}, {0, 3}}, {{1, 4}, {2, 4}, {3, 4}},
                                      {{4, 3}, {4, 2}, {4, 1}}, {{3, 0}, {2, 0}, {1, 0}}};
static const int art_inner[4][2] = {{1, 2}, {2, 3}, {3, 2}, {2, 1}};
static const int art_corner[4][2] = {{0, 4}, {4, 4}, {4, 0}, {0, 0}};
static const int art_inner_corner[4][2] = {{1, 3}, {3, 3}, {3, 1}, {1, 1}};

struct art {
    int rows, cols;
    int y0[CARC_MAX_CELLS], x0[CARC_MAX_CELLS]; /* where each cell is drawn */
    char ch[ART * CARC_MAX_CELLS][ART_MAX_COLS];
    int8_t owner[ART * CARC_MAX_CELLS][ART_MAX_COLS];
};

static int same_city(const struct carc_kind *k, int a, int b)
{
    return a != 0xFF && a == b && k->f[a].cls == CAS_CARC_CITY;
}

/* One space of kind k in rotation r, cell sub, at row y0, column x0. */
static void art_space(struct art *art, const struct carc_kind *k, const struct carc_rot *r,
                      int sub, int y0, int x0)
{
    char (*ch)[ART_MAX_COLS] = art->ch;
    for (int y = 0; y < ART; y++)
        memset(&ch[y0 + y][x0], '.', ART);
    for (int b = 0; b < 4; b++) {
        int edge = r->edge[sub][b], next = (b + 1) % 4;
        for (int slot = 0; slot < 3; slot++) {
            int f = r->seg[sub][b][slot];
            int city = edge == EDGE_CITY || (f != 0xFF && k->f[f].cls == CAS_CARC_CITY);
            char c = slot == 1 ? edge_char(edge, b) : city ? '#' : '.';
            ch[y0 + art_slot[b][slot][0]][x0 + art_slot[b][slot][1]] = c;
        }
        if (edge == EDGE_CITY || edge == EDGE_ROAD || edge == EDGE_RIVER)
            ch[y0 + art_inner[b][0]][x0 + art_inner[b][1]] = edge_char(edge, b);
        if (edge == EDGE_NONE && k->has_cloister) { /* inside a large tile: its */
            char c = kind_cloister_char(k);           /* cloister spans the tile */
            ch[y0 + art_slot[b][1][0]][x0 + art_slot[b][1][1]] = c;
            ch[y0 + art_inner[b][0]][x0 + art_inner[b][1]] = c;
        }
        if (same_city(k, r->seg[sub][b][2], r->seg[sub][next][0]))
            ch[y0 + art_corner[b][0]][x0 + art_corner[b][1]] = '#';
        if (same_city(k, r->seg[sub][b][1], r->seg[sub][next][1]))
            ch[y0 + art_inner_corner[b][0]][x0 + art_inner_corner[b][1]] = '#';
    }
    ch[y0 + 2][x0 + 2] = centre_char(k, r, sub);
}

/* Kind k in rotation rot, every space it covers where it lies. */
static void art_tile(struct art *art, const struct carc_kind *k, int rot)
{
    const struct carc_rot *r = &k->rot[rot];
    int minx = 0, miny = 0, maxx = 0, maxy = 0;
    for (int c = 0; c < k->ncells; c++) {
        minx = r->dx[c] < minx ? r->dx[c] : minx;
        maxx = r->dx[c] > maxx ? r->dx[c] : maxx;
        miny = r->dy[c] < miny ? r->dy[c] : miny;
        maxy = r->dy[c] > maxy ? r->dy[c] : maxy;
    }
    art->rows = (maxy - miny + 1) * ART;
    art->cols = (maxx - minx + 1) * ART;
    memset(art->ch, ' ', sizeof art->ch);
    memset(art->owner, OWNER_TERRAIN, sizeof art->owner);
    for (int c = 0; c < k->ncells; c++) {
        art->y0[c] = (r->dy[c] - miny) * ART;
        art->x0[c] = (r->dx[c] - minx) * ART;
        art_space(art, k, r, c, art->y0[c], art->x0[c]);
    }
}

/* Arts side by side, each under its title and over its caption (wrapped
 * at commas to the art's column), ART_GAP spaces apart. */
#define ART_GAP 4
#define ART_TITLE 64

static int write_arts(const struct art *arts, const char (*titles)[ART_TITLE],
                      const char (*captions)[ART_TITLE], int n, int ansi,
                      const struct cas_writer *out)
{
    char line[LINE_BYTES];
    int rows = 0;
    const char *rest[4];
    for (int i = 0; i < n; i++) {
        TRY(cas_writef(out, "%-*s", arts[i].cols + ART_GAP, titles[i]));
        rows = arts[i].rows > rows ? arts[i].rows : rows;
        rest[i] = captions ? captions[i] : "";
    }
    TRY(out->write(out->ctx, "\n", 1));
    for (int y = 0; y < rows; y++) {
        size_t len = 0;
        for (int i = 0; i < n; i++) {
            for (int x = 0; x < arts[i].cols; x++)
                len = put_char(line, len, y < arts[i].rows ? arts[i].ch[y][x] : ' ',
                               y < arts[i].rows ? arts[i].owner[y][x] : OWNER_TERRAIN, ansi);
            for (int g = 0; g < ART_GAP && i + 1 < n; g++)
                line[len++] = ' ';
        }
        line[len++] = '\n';
        TRY(out->write(out->ctx, line, len));
    }
    for (int more = 1; more;) {
        more = 0;
        size_t len = 0;
        for (int i = 0; i < n; i++) {
            size_t width = (size_t)(arts[i].cols + ART_GAP - 1), take = strlen(rest[i]);
            if (take > width) {
                take = width;
                while (take > 0 && rest[i][take - 1] != ',')
                    take--;
                take = take ? take : width;
            }
            memcpy(line + len, rest[i], take);
            memset(line + len + take, ' ', width + 1 - take);
            len += width + 1;
            rest[i] += take;
            more |= *rest[i] != '\0';
        }
        while (len > 0 && line[len - 1] == ' ')
            len--;
        line[len++] = '\n';
        if (len > 1)
            TRY(out->write(out->ctx, line, len));
    }
    return CAS_OK;
}

/* The drawn tile in each of its four rotations, each titled with its
 * degrees, over the numbers of the choices that turn it so. */
static int render_drawn_tile(const struct cas_state *s, const struct choices *ch, int ansi,
                             const struct cas_writer *out)
{
    const struct carc_kind *k = &s->game->kinds[s->drawn];
    struct art arts[4];
    char titles[4][ART_TITLE], captions[4][ART_TITLE];
    for (int rot = 0; rot < 4; rot++) {
        art_tile(&arts[rot], k, rot);
        snprintf(titles[rot], sizeof titles[rot], "%d", rot * 90);
        size_t n = 0;
        captions[rot][0] = '\0';
        for (size_t i = 0; i < ch->n && n + 8 < sizeof captions[rot]; i++)
            if (ACT_KIND(ch->actions[i]) == ACT_PLACE && ACT_PLACE_ROT(ch->actions[i]) == rot)
                n += (size_t)snprintf(captions[rot] + n, sizeof captions[rot] - n, "%s%zu",
                                      n ? "," : "", i + 1);
    }
    TRY(cas_writef(out, "Tile %s turned 0, 90, 180, 270 degrees clockwise; under each, "
                        "its choices:\n", k->id));
    return write_arts(arts, (const char (*)[ART_TITLE])titles,
                      (const char (*)[ART_TITLE])captions, 4, ansi, out);
}

/* Where on the art of its tile a figure on feature `local` stands: the
 * middle of a side for a road or city, else its first half-edge; the
 * centre when it touches no side (a monastery). */
static void art_feature_pos(const struct art *art, const struct carc_kind *k,
                            const struct carc_rot *r, int local, int *y, int *x)
{
    *y = art->y0[0] + 2;
    *x = art->x0[0] + 2;
    for (int middle_only = 1; middle_only >= 0; middle_only--)
        for (int c = 0; c < k->ncells; c++)
            for (int b = 0; b < 4; b++)
                for (int slot = 0; slot < 3; slot++)
                    if ((!middle_only || slot == 1) && r->seg[c][b][slot] == local) {
                        *y = art->y0[c] + art_slot[b][slot][0];
                        *x = art->x0[c] + art_slot[b][slot][1];
                        return;
                    }
}

/* The tile just placed, as it lies, with the number of the first deploy
 * choice on each feature where a figure would stand. */
static int render_deploy_choices(const struct cas_state *s, const struct choices *ch, int ansi,
                                 const struct cas_writer *out)
{
    const struct carc_tile *t = &C_TILES(s)[s->placed];
    const struct carc_kind *k = &s->game->kinds[t->kind];
    const struct carc_rot *r = &k->rot[t->rot];
    struct art art;
    art_tile(&art, k, t->rot);
    for (size_t i = ch->n; i-- > 0;) { /* backwards: the first choice wins */
        if (ACT_KIND(ch->actions[i]) != ACT_DEPLOY || ACT_DEPLOY_LOCAL(ch->actions[i]) >= k->nf)
            continue;
        int y, x;
        art_feature_pos(&art, k, r, ACT_DEPLOY_LOCAL(ch->actions[i]), &y, &x);
        art.ch[y][x] = choice_char(i + 1);
        art.owner[y][x] = OWNER_CHOICE;
    }
    char title[1][ART_TITLE];
    snprintf(title[0], sizeof title[0], "at %d,%d", t->x, t->y);
    TRY(cas_writef(out, "Tile %s as placed; the first choice on each feature (1-9, then "
                        "a-z):\n", k->id));
    return write_arts(&art, (const char (*)[ART_TITLE])title, NULL, 1, ansi, out);
}

/* Whether `word` stands in text as a whole word. */
static int has_word(const char *text, const char *word)
{
    size_t n = strlen(word);
    for (const char *at = strstr(text, word); at; at = strstr(at + 1, word))
        if ((at == text || at[-1] == ' ') && (at[n] == ' ' || at[n] == '\0'))
            return 1;
    return 0;
}

/* The tiles an expansion's choices name (castles to pick or to place, kept
 * out of the bag), as they look turned 0, four to a row, each over the
 * numbers of the choices that name it: a player sees a castle before
 * picking it. */
static int render_hand_tiles(const struct cas_state *s, const struct choices *ch, int ansi,
                             const struct cas_writer *out)
{
    static struct art arts[4];
    char titles[4][ART_TITLE], captions[4][ART_TITLE], text[128];
    int n = 0, said = 0;
    for (int k = 0; k < s->game->nkinds; k++) {
        const struct carc_kind *kind = &s->game->kinds[k];
        size_t len = 0;
        captions[n][0] = '\0';
        for (size_t i = 0; kind->hand && i < ch->n && len + 8 < sizeof captions[n]; i++)
            if (ACT_KIND(ch->actions[i]) == ACT_PHASE &&
                cas__carc_action_text(s, ch->actions[i], text, sizeof text) >= 0 &&
                has_word(text, kind->id))
                len += (size_t)snprintf(captions[n] + len, sizeof captions[n] - len, "%s%zu",
                                        len ? "," : "", i + 1);
        if (!len)
            continue;
        if (!said++)
            TRY(cas_writef(out, "The tiles these choices name, turned 0; under each, its "
                                "choices:\n"));
        art_tile(&arts[n], kind, 0);
        snprintf(titles[n], sizeof titles[n], "%s", kind->id);
        if (++n == 4) {
            TRY(write_arts(arts, (const char (*)[ART_TITLE])titles,
                           (const char (*)[ART_TITLE])captions, n, ansi, out));
            n = 0;
        }
    }
    return n ? write_arts(arts, (const char (*)[ART_TITLE])titles,
                          (const char (*)[ART_TITLE])captions, n, ansi, out)
             : CAS_OK;
}

int cas__carc_render_choices(const struct cas_state *s, int viewer,
                             enum cas_render_format format, const cas_action *actions,
                             size_t n, const struct cas_writer *out)
{
    if (format == CAS_RENDER_SVG || format == CAS_RENDER_SVG_ACTIONS)
        return cas__carc_render_svg_choices(s, viewer, format == CAS_RENDER_SVG_ACTIONS,
                                            actions, n, out);
    if (format != CAS_RENDER_TEXT && format != CAS_RENDER_ANSI)
        return cas__carc_render(s, viewer, format, out);
    int ansi = format == CAS_RENDER_ANSI;
    struct choices ch = {.state = s, .actions = actions, .n = n};
    ch.spots = any_spot(&ch);
    TRY(render_text(s, viewer, ansi, &ch, out));
    if (s->stage == ST_PLACE)
        return render_drawn_tile(s, &ch, ansi, out);
    if (s->stage == ST_DEPLOY && s->placed >= 0)
        return render_deploy_choices(s, &ch, ansi, out);
    return render_hand_tiles(s, &ch, ansi, out);
}

/* ---------------------------------------------------------------- JSON */

static const char *stage_name(const struct cas_state *s)
{
    switch ((enum carc_stage)s->stage) {
    case ST_DRAW: return "draw";
    case ST_PLACE: return "place";
    case ST_DEPLOY: return "deploy";
    case ST_XPHASE: return s->game->phases[s->xphase].phase->name;
    default: return "over";
    }
}

static int json_players(const struct cas_state *s, const struct cas_writer *out)
{
    const struct cas_game *g = s->game;
    TRY(cas_writef(out, "\"players\":["));
    for (int p = 0; p < g->nplayers; p++) {
        TRY(cas_writef(out, "%s{\"name\":\"%s\",\"score\":%lld,\"supply\":{", p ? "," : "",
                       cas__carc_colours[p], (long long)s->score[p]));
        for (int f = 0; f < g->nfig; f++)
            TRY(cas_writef(out, "%s\"%s\":%d", f ? "," : "", g->fig[f].def.name,
                           s->supply[p][f]));
        TRY(cas_writef(out, "}}"));
    }
    return cas_writef(out, "],");
}

static void json_tiles(const struct cas_state *s, struct cas_outbuf *jb)
{
    const struct cas_game *g = s->game;
    cas_outs(jb, "\"tiles\":[");
    for (int i = 0; i < s->ntiles; i++) {
        const struct carc_tile *t = &C_TILES(s)[i];
        cas_outs(jb, i ? ",{\"id\":\"" : "{\"id\":\"");
        cas_out_json_text(jb, g->kinds[t->kind].id);
        cas_outs(jb, "\",\"x\":");
        cas_outi(jb, t->x);
        cas_outs(jb, ",\"y\":");
        cas_outi(jb, t->y);
        cas_outs(jb, ",\"rotation\":");
        cas_outi(jb, t->rot * 90);
        cas_outs(jb, ",\"player\":");
        cas_outi(jb, t->player);
        cas_outs(jb, "}");
    }
}

static void json_figures(const struct cas_state *s, struct cas_outbuf *jb)
{
    const struct cas_game *g = s->game;
    cas_outs(jb, "],\"figures\":[");
    for (int i = 0; i < s->nfigs; i++) {
        const struct carc_fig *f = &C_FIGS(s)[i];
        const struct carc_node *n = &C_NODES(s)[f->node];
        const struct carc_tile *t = &C_TILES(s)[n->tile];
        cas_outs(jb, i ? ",{\"player\":" : "{\"player\":");
        cas_outi(jb, f->player);
        cas_outs(jb, ",\"kind\":\"");
        cas_outs(jb, g->fig[f->kind].def.name);
        cas_outs(jb, "\",\"x\":");
        cas_outi(jb, t->x);
        cas_outs(jb, ",\"y\":");
        cas_outi(jb, t->y);
        cas_outs(jb, ",\"feature\":\"");
        cas_outs(jb, g->kinds[t->kind].rot[t->rot].ftext[n->local]);
        cas_outs(jb, "\"}");
    }
}

static void json_open_and_bag(const struct cas_state *s, struct cas_outbuf *jb)
{
    const struct cas_game *g = s->game;
    cas_outs(jb, "],\"open\":[");
    for (int i = 0; i < s->nfront; i++) {
        const struct carc_cell *c = &C_CELLS(s)[C_FRONT(s)[i]];
        cas_outs(jb, i ? ",[" : "[");
        cas_outi(jb, c->x);
        cas_outs(jb, ",");
        cas_outi(jb, c->y);
        cas_outs(jb, "]");
    }
    cas_outs(jb, "],\"bag\":{");
    int first = 1;
    for (int k = 0; k < g->nkinds; k++)
        if (C_BAG(s)[k]) {
            cas_outs(jb, first ? "\"" : ",\"");
            cas_out_json_text(jb, g->kinds[k].id);
            cas_outs(jb, "\":");
            cas_outi(jb, C_BAG(s)[k]);
            first = 0;
        }
    cas_outs(jb, "},");
}

static int json_board(const struct cas_state *s, const struct cas_writer *out)
{
    struct cas_outbuf jb = CAS_OUTBUF_INIT(out);
    json_tiles(s, &jb);
    json_figures(s, &jb);
    json_open_and_bag(s, &jb);
    return cas_out_finish(&jb);
}

static int json_expansions(const struct cas_state *s, int viewer,
                           const struct cas_writer *out)
{
    const struct cas_game *g = s->game;
    TRY(cas_writef(out, "\"expansions\":{"));
    int first = 1;
    for (int e = 0; e < g->nexp; e++) {
        if (!g->exp[e].desc->render)
            continue;
        TRY(cas_writef(out, "%s\"%s\":", first ? "" : ",", g->exp[e].id));
        TRY(g->exp[e].desc->render(g->exp[e].xctx, CARC_COF(s), viewer, CAS_RENDER_JSON,
                                   out));
        first = 0;
    }
    return cas_writef(out, "}");
}

static int json_drawn(const struct cas_state *s, const struct cas_writer *out)
{
    struct cas_outbuf jb;
    cas_out_init(&jb, out);
    cas_outs(&jb, "\"drawn\":\"");
    cas_out_json_text(&jb, s->game->kinds[s->drawn].id);
    cas_outs(&jb, "\",");
    return cas_out_finish(&jb);
}

static int render_json(const struct cas_state *s, int viewer, const struct cas_writer *out)
{
    const struct cas_game *g = s->game;
    TRY(cas_writef(out, "{\"game\":\"carcassonne\",\"stage\":\"%s\",\"current\":%d,",
                   stage_name(s), cas__carc_current(s)));
    if (s->stage == ST_PLACE)
        TRY(json_drawn(s, out));
    TRY(cas_writef(out, "\"bag_left\":%d,\"discarded\":%d,\"farmers\":%s,", s->bag_left,
                   s->discarded, g->farmers ? "true" : "false"));
    TRY(json_players(s, out));
    TRY(json_board(s, out));
    TRY(json_expansions(s, viewer, out));
    return cas_writef(out, "}\n");
}

int cas__carc_render(const struct cas_state *s, int viewer, enum cas_render_format format,
                     const struct cas_writer *out)
{
    switch (format) {
    case CAS_RENDER_TEXT: return render_text(s, viewer, 0, NULL, out);
    case CAS_RENDER_ANSI: return render_text(s, viewer, 1, NULL, out);
    case CAS_RENDER_JSON: return render_json(s, viewer, out);
    case CAS_RENDER_SVG: return cas__carc_render_svg(s, viewer, out);
    default: return CAS_EINVAL;
    }
}
