/*
 * render.c — what a viewer sees: the board as text (3x3 characters per
 * space when it fits 80 columns, 1 otherwise) with figures where they
 * stand, open spots ('+', '?' where the drawn tile fits), scores, supplies,
 * figures and whose decision it is; the same with ANSI colours; and JSON
 * with the full public state.  Nothing is hidden in Carcassonne: the bag is
 * public as counts and the draw order does not exist until chance picks.
 */
#include "carc.h"

#include <stdio.h>

static const char player_letter[CARC_MAX_PLAYERS] = {'R', 'B', 'G', 'Y', 'K', 'P'};
static const char *const player_ansi[CARC_MAX_PLAYERS] = {"31", "34", "32", "33", "90", "35"};

#define TRY(expr)            \
    do {                     \
        int rc_ = (expr);    \
        if (rc_ < 0)         \
            return rc_;      \
    } while (0)

/* A buffered appender for long outputs: snprintf per item would dominate
 * a checker that renders every viewer at every step. */
struct jbuf {
    const struct cas_writer *out;
    int rc;
    size_t n;
    char data[4096];
};

static void jb_flush(struct jbuf *jb)
{
    if (jb->rc == CAS_OK && jb->n)
        jb->rc = jb->out->write(jb->out->ctx, jb->data, jb->n);
    jb->n = 0;
}

static void jb_str(struct jbuf *jb, const char *text)
{
    size_t len = strlen(text);
    if (jb->n + len > sizeof jb->data)
        jb_flush(jb);
    if (len > sizeof jb->data) {
        if (jb->rc == CAS_OK)
            jb->rc = jb->out->write(jb->out->ctx, text, len);
        return;
    }
    memcpy(jb->data + jb->n, text, len);
    jb->n += len;
}

static void jb_int(struct jbuf *jb, long long v)
{
    char digits[24], *at = digits + sizeof digits;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    *--at = '\0';
    do {
        *--at = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *--at = '-';
    jb_str(jb, at);
}

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
            owner[y][x] = -1;
        }
    for (int b = 0; b < 4; b++) {
        out[side_pos[b][0]][side_pos[b][1]] = edge_char(r->edge[c->sub][b], b);
        /* a corner between two sides of one city is city too */
        int a = r->seg[c->sub][b][1], next = r->seg[c->sub][(b + 1) % 4][1];
        if (a != 0xFF && a == next && k->f[a].cls == CAS_CARC_CITY)
            out[corner_pos[b][0]][corner_pos[b][1]] = '#';
    }
    out[1][1] = k->has_cloister ? 'm' : k->id[0];
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

/* '?' where the drawn tile fits (some rotation), '+' elsewhere. */
static char open_mark(const struct cas_state *s, const struct carc_cell *c)
{
    if (s->stage != ST_PLACE)
        return '+';
    const struct carc_kind *k = &s->game->kinds[s->drawn];
    if (k->ncells == 1 && s->game->nexp == 0)
        return k->fitmask[c->pattern] ? '?' : '+';
    for (int rot = 0; rot < 4; rot++)
        if (cas__carc_fits(s, s->drawn, c->x, c->y, rot))
            return '?';
    return '+';
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
 * player's colour) and city walls (cyan).  At most 16 bytes. */
static size_t put_char(char *line, size_t n, char ch, int player, int ansi)
{
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
                      int scale, int ansi, const struct cas_writer *out)
{
    char grid[3][LINE_MAX_COLS];
    int8_t owner[3][LINE_MAX_COLS];
    int cols = (x1 - x0 + 1) * scale;
    memset(grid, ' ', sizeof grid);
    memset(owner, -1, sizeof owner);
    for (int j = 0; j < n; j++) {
        const struct carc_cell *c = &C_CELLS(s)[row[j]];
        if (c->x < x0 || c->x > x1)
            continue;
        char cell[3][3];
        int8_t who[3][3];
        memset(cell, ' ', sizeof cell);
        memset(who, -1, sizeof who);
        if (c->tile != CARC_NONE)
            draw_space(s, row[j], cell, who);
        else
            cell[1][1] = open_mark(s, c);
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

/* Scale 3 when the board fits 72 columns, else 1; a board wider than 78
 * spaces shows the 78 columns around this turn's tile. */
static int render_board(const struct cas_state *s, int ansi, const struct cas_writer *out)
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
                        out);
    if (rc >= 0)
        rc = cas_writef(out, "key: #city -|road .field m monastery A-X tile "
                             "RBGYKP figures +open ?fits here\n");
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
    struct jbuf jb = {.out = out, .rc = CAS_OK};
    for (int i = 0; i < s->nfigs; i++) {
        const struct carc_fig *f = &C_FIGS(s)[i];
        const struct carc_node *n = &C_NODES(s)[f->node];
        const struct carc_tile *t = &C_TILES(s)[n->tile];
        jb_str(&jb, "  ");
        jb_str(&jb, cas__carc_colours[f->player]);
        jb_str(&jb, " ");
        jb_str(&jb, g->fig[f->kind].def.name);
        jb_str(&jb, " on ");
        jb_str(&jb, g->kinds[t->kind].rot[t->rot].ftext[n->local]);
        jb_str(&jb, " of ");
        jb_str(&jb, g->kinds[t->kind].id);
        jb_str(&jb, " at ");
        jb_int(&jb, t->x);
        jb_str(&jb, ",");
        jb_int(&jb, t->y);
        jb_str(&jb, "\n");
    }
    jb_flush(&jb);
    return jb.rc;
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
                       const struct cas_writer *out)
{
    TRY(render_board(s, ansi, out));
    TRY(render_players(s, out));
    TRY(render_expansions(s, viewer, ansi ? CAS_RENDER_ANSI : CAS_RENDER_TEXT, out));
    return render_status(s, out);
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

static void json_tiles(const struct cas_state *s, struct jbuf *jb)
{
    const struct cas_game *g = s->game;
    jb_str(jb, "\"tiles\":[");
    for (int i = 0; i < s->ntiles; i++) {
        const struct carc_tile *t = &C_TILES(s)[i];
        jb_str(jb, i ? ",{\"id\":\"" : "{\"id\":\"");
        jb_str(jb, g->kinds[t->kind].id);
        jb_str(jb, "\",\"x\":");
        jb_int(jb, t->x);
        jb_str(jb, ",\"y\":");
        jb_int(jb, t->y);
        jb_str(jb, ",\"rotation\":");
        jb_int(jb, t->rot * 90);
        jb_str(jb, ",\"player\":");
        jb_int(jb, t->player);
        jb_str(jb, "}");
    }
}

static void json_figures(const struct cas_state *s, struct jbuf *jb)
{
    const struct cas_game *g = s->game;
    jb_str(jb, "],\"figures\":[");
    for (int i = 0; i < s->nfigs; i++) {
        const struct carc_fig *f = &C_FIGS(s)[i];
        const struct carc_node *n = &C_NODES(s)[f->node];
        const struct carc_tile *t = &C_TILES(s)[n->tile];
        jb_str(jb, i ? ",{\"player\":" : "{\"player\":");
        jb_int(jb, f->player);
        jb_str(jb, ",\"kind\":\"");
        jb_str(jb, g->fig[f->kind].def.name);
        jb_str(jb, "\",\"x\":");
        jb_int(jb, t->x);
        jb_str(jb, ",\"y\":");
        jb_int(jb, t->y);
        jb_str(jb, ",\"feature\":\"");
        jb_str(jb, g->kinds[t->kind].rot[t->rot].ftext[n->local]);
        jb_str(jb, "\"}");
    }
}

static void json_open_and_bag(const struct cas_state *s, struct jbuf *jb)
{
    const struct cas_game *g = s->game;
    jb_str(jb, "],\"open\":[");
    for (int i = 0; i < s->nfront; i++) {
        const struct carc_cell *c = &C_CELLS(s)[C_FRONT(s)[i]];
        jb_str(jb, i ? ",[" : "[");
        jb_int(jb, c->x);
        jb_str(jb, ",");
        jb_int(jb, c->y);
        jb_str(jb, "]");
    }
    jb_str(jb, "],\"bag\":{");
    int first = 1;
    for (int k = 0; k < g->nkinds; k++)
        if (C_BAG(s)[k]) {
            jb_str(jb, first ? "\"" : ",\"");
            jb_str(jb, g->kinds[k].id);
            jb_str(jb, "\":");
            jb_int(jb, C_BAG(s)[k]);
            first = 0;
        }
    jb_str(jb, "},");
}

static int json_board(const struct cas_state *s, const struct cas_writer *out)
{
    struct jbuf jb = {.out = out, .rc = CAS_OK};
    json_tiles(s, &jb);
    json_figures(s, &jb);
    json_open_and_bag(s, &jb);
    jb_flush(&jb);
    return jb.rc;
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

static int render_json(const struct cas_state *s, int viewer, const struct cas_writer *out)
{
    const struct cas_game *g = s->game;
    TRY(cas_writef(out, "{\"game\":\"carcassonne\",\"stage\":\"%s\",\"current\":%d,",
                   stage_name(s), cas__carc_current(s)));
    if (s->stage == ST_PLACE)
        TRY(cas_writef(out, "\"drawn\":\"%s\",", g->kinds[s->drawn].id));
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
    case CAS_RENDER_TEXT: return render_text(s, viewer, 0, out);
    case CAS_RENDER_ANSI: return render_text(s, viewer, 1, out);
    case CAS_RENDER_JSON: return render_json(s, viewer, out);
    case CAS_RENDER_SVG: return cas__carc_render_svg(s, viewer, out);
    default: return CAS_EINVAL;
    }
}
