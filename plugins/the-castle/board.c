/*
 * board.c — the board file: the castle's interior inside its wall, the
 * start spaces on the wall's inner edge with their printed tiles, the
 * scoring track with its corner towers, and the wall tiles.  Format:
 *
 *   provisional yes|no
 *   grid                     then rows of equal width, ended by 'end':
 *     '.' an interior space, '=' wall, 'A'..'P' a start space
 *   end
 *   start LETTER TILE ROTATION   the start tile printed there, 0/90/180/270
 *   track LENGTH                 spaces on the track (0..LENGTH-1)
 *   tower POS [empty]            a corner tower over POS and POS+1; 'empty':
 *                                no wall tile is dealt onto it
 *   wall-tile NUMBER COPIES EFFECT [AMOUNT]
 *     EFFECT: extra-turn double-house double-tower incomplete-path
 *     incomplete-house incomplete-tower market-bonus (AMOUNT: points per
 *     market) keep-bonus (AMOUNT: spaces) points (AMOUNT: points)
 *
 * Errors name path:line, the bad value and the fix; the caller's board is
 * overwritten only on success.
 */
#include <stdio.h>
#include <string.h>

#include "castle.h"

const char *const effect_names[N_EFFECTS] = {
    "extra-turn", "double-house", "double-tower", "incomplete-path", "incomplete-house",
    "incomplete-tower", "market-bonus", "keep-bonus", "points",
};

static bool effect_has_amount(int e)
{
    return e == W_MARKET_BONUS || e == W_KEEP_BONUS || e == W_POINTS;
}

struct board_reader {
    struct line_reader lr;
    const struct tileset *tiles;
    struct board *b;
    bool seen_provisional, seen_grid, seen_track;
    int start_line[MAX_STARTS];
};

/* Fill b->next once the grid's size is known. */
static void link_cells(struct board *b)
{
    static const int dx[4] = {0, 1, 0, -1}, dy[4] = {-1, 0, 1, 0};
    for (int cell = 0; cell < b->w * b->h; cell++)
        for (int side = 0; side < 4; side++) {
            int x = cell % b->w + dx[side], y = cell / b->w + dy[side];
            b->next[cell][side] =
                (int16_t)(x < 0 || y < 0 || x >= b->w || y >= b->h ? -1 : y * b->w + x);
        }
}

static struct start_space *start_by_letter(struct board *b, char letter)
{
    for (int i = 0; i < b->nstarts; i++)
        if (b->start[i].letter == letter)
            return &b->start[i];
    return NULL;
}

static int read_grid_row(struct board_reader *r, int y)
{
    struct line_reader *lr = &r->lr;
    struct board *b = r->b;
    const char *row = lr->word[0];
    int w = (int)strlen(row);
    if (lr->nwords != 1)
        return lines_fail(lr, "grid row '%s %s' has blanks: a row is one word of '.', '=' "
                          "and start letters, and the grid ends with 'end'", lr->word[0],
                          lr->word[1]);
    if (y == 0) {
        if (w < 3 || w > MAX_GRID_W)
            return lines_fail(lr, "grid rows must be 3 to %d characters wide, not %d",
                              MAX_GRID_W, w);
        b->w = w;
    } else if (w != b->w) {
        return lines_fail(lr, "grid row is %d wide, the first row %d; make every row as "
                          "wide", w, b->w);
    }
    if (y == MAX_GRID_H)
        return lines_fail(lr, "more than %d grid rows; end the grid with 'end'", MAX_GRID_H);
    for (int x = 0; x < w; x++) {
        char c = row[x];
        int cell = y * b->w + x;
        if (c == '.') {
            b->cell[cell] = CELL_INTERIOR;
            if (b->ninterior == MAX_INTERIOR)
                return lines_fail(lr, "more than %d interior spaces", MAX_INTERIOR);
            b->interior[b->ninterior++] = (uint16_t)cell;
        } else if (c == '=') {
            b->cell[cell] = CELL_WALL;
        } else if (c >= 'A' && c < 'A' + MAX_STARTS) {
            if (start_by_letter(b, c))
                return lines_fail(lr, "start space %c appears twice in the grid", c);
            b->cell[cell] = CELL_START;
            struct start_space *st = &b->start[b->nstarts++];
            st->letter = c;
            st->cell = (uint16_t)cell;
            st->kind = NONE8;
        } else {
            return lines_fail(lr, "grid character '%c' is not '.', '=' or a start letter "
                              "A..%c", c, 'A' + MAX_STARTS - 1);
        }
    }
    b->h = y + 1;
    return CAS_OK;
}

static int read_grid(struct board_reader *r)
{
    struct line_reader *lr = &r->lr;
    if (r->seen_grid)
        return lines_fail(lr, "a second 'grid'; a board has one");
    if (lr->nwords != 1)
        return lines_fail(lr, "'grid' stands alone; the rows follow on their own lines");
    r->seen_grid = true;
    int rc, y = 0;
    while ((rc = lines_next(lr)) > 0) {
        if (strcmp(lr->word[0], "end") == 0)
            break;
        if ((rc = read_grid_row(r, y++)) != CAS_OK)
            return rc;
    }
    if (rc < 0)
        return rc;
    if (rc == 0)
        return lines_fail(lr, "the grid has no 'end' line; end it with 'end'");
    if (y < 3)
        return lines_fail(lr, "the grid has %d row(s); give at least 3", y);
    if (r->b->ninterior == 0)
        return lines_fail(lr, "the grid has no interior space ('.')");
    link_cells(r->b);
    return CAS_OK;
}

static int read_start(struct board_reader *r)
{
    struct line_reader *lr = &r->lr;
    if (!r->seen_grid)
        return lines_fail(lr, "'start' before the grid; give the grid first");
    if (lr->nwords != 4)
        return lines_fail(lr, "'start' takes LETTER TILE ROTATION, e.g. 'start A S1 180'");
    struct start_space *st = lr->word[1][1] ? NULL : start_by_letter(r->b, lr->word[1][0]);
    if (!st)
        return lines_fail(lr, "start letter '%s' is not in the grid", lr->word[1]);
    if (st->kind != NONE8)
        return lines_fail(lr, "start space %c is given twice", st->letter);
    int kind = tiles_find(r->tiles, lr->word[2]);
    if (kind < 0 || !r->tiles->kind[kind].start)
        return lines_fail(lr, "'%s' is not a start-tile of the tile file", lr->word[2]);
    long deg;
    if (!parse_number(lr->word[3], 0, 270, &deg) || deg % 90)
        return lines_fail(lr, "rotation '%s' must be 0, 90, 180 or 270", lr->word[3]);
    st->kind = (uint8_t)kind;
    st->rot = (uint8_t)(deg / 90);
    r->start_line[st - r->b->start] = lr->line;
    return CAS_OK;
}

static int read_track(struct board_reader *r)
{
    struct line_reader *lr = &r->lr;
    long n;
    if (r->seen_track)
        return lines_fail(lr, "a second 'track' line; keep one");
    if (lr->nwords != 2 || !parse_number(lr->word[1], 10, 250, &n))
        return lines_fail(lr, "'track' takes the number of spaces, 10 to 250 (e.g. 'track 100')");
    r->b->track = (int)n;
    r->seen_track = true;
    return CAS_OK;
}

static int read_tower(struct board_reader *r)
{
    struct line_reader *lr = &r->lr;
    struct board *b = r->b;
    long pos;
    if (!r->seen_track)
        return lines_fail(lr, "'tower' before 'track'; give the track length first");
    if (lr->nwords < 2 || lr->nwords > 3 || !parse_number(lr->word[1], 0, b->track - 1, &pos) ||
        (lr->nwords == 3 && strcmp(lr->word[2], "empty") != 0))
        return lines_fail(lr, "'tower' takes a track space 0..%d and optionally 'empty'",
                          b->track - 1);
    if (b->ntowers == MAX_TOWERS)
        return lines_fail(lr, "more than %d towers", MAX_TOWERS);
    for (int t = 0; t < b->ntowers; t++) {
        int d = ((int)pos - b->tower[t].pos + b->track) % b->track;
        if (d <= 1 || d == b->track - 1)
            return lines_fail(lr, "tower %ld overlaps the tower at %d (each covers two spaces)",
                              pos, b->tower[t].pos);
    }
    b->tower[b->ntowers++] = (struct tower){.pos = (uint8_t)pos, .holds = lr->nwords == 2};
    return CAS_OK;
}

static int read_wall_tile(struct board_reader *r)
{
    struct line_reader *lr = &r->lr;
    struct board *b = r->b;
    long number, copies, amount = 0;
    if (lr->nwords < 4 || lr->nwords > 5)
        return lines_fail(lr, "'wall-tile' takes NUMBER COPIES EFFECT [AMOUNT], e.g. "
                          "'wall-tile 9 2 points 5'");
    if (!parse_number(lr->word[1], 1, WALL_KINDS, &number))
        return lines_fail(lr, "wall tile number '%s' must be 1..%d", lr->word[1], WALL_KINDS);
    if (b->wall_copies[number])
        return lines_fail(lr, "wall tile %ld is given twice", number);
    if (!parse_number(lr->word[2], 1, 9, &copies))
        return lines_fail(lr, "copies '%s' must be 1..9", lr->word[2]);
    int effect = -1;
    for (int e = 0; e < N_EFFECTS; e++)
        if (strcmp(lr->word[3], effect_names[e]) == 0)
            effect = e;
    if (effect < 0)
        return lines_fail(lr, "unknown effect '%s'; use extra-turn, double-house, "
                          "double-tower, incomplete-path, incomplete-house, incomplete-tower, "
                          "market-bonus, keep-bonus or points", lr->word[3]);
    if (effect_has_amount(effect) != (lr->nwords == 5) ||
        (lr->nwords == 5 && !parse_number(lr->word[4], 1, 99, &amount)))
        return lines_fail(lr, "%s %s", lr->word[3],
                          effect_has_amount(effect) ? "needs an AMOUNT 1..99 after it"
                                                    : "takes no amount");
    b->wall_copies[number] = (uint8_t)copies;
    b->wall_effect[number] = (uint8_t)effect;
    b->wall_amount[number] = (uint8_t)amount;
    return CAS_OK;
}

static int read_statement(struct board_reader *r)
{
    const char *w = r->lr.word[0];
    if (strcmp(w, "grid") == 0)
        return read_grid(r);
    if (strcmp(w, "start") == 0)
        return read_start(r);
    if (strcmp(w, "track") == 0)
        return read_track(r);
    if (strcmp(w, "tower") == 0)
        return read_tower(r);
    if (strcmp(w, "wall-tile") == 0)
        return read_wall_tile(r);
    if (strcmp(w, "provisional") == 0)
        return lines_provisional(&r->lr, &r->seen_provisional, &r->b->provisional);
    return lines_fail(&r->lr, "unknown statement '%s'; use grid, start, track, tower, "
                      "wall-tile or provisional", w);
}

static bool touches_interior(const struct board *b, int cell)
{
    for (int side = 0; side < 4; side++) {
        int n = board_neighbour(b, cell, side);
        if (n >= 0 && b->cell[n] == CELL_INTERIOR)
            return true;
    }
    return false;
}

/* Whole-file checks, once everything is read. */
static int check_board(struct board_reader *r)
{
    const struct board *b = r->b;
    const char *path = r->lr.path;
    const struct cas_host *host = r->lr.host;
    if (!r->seen_grid || !r->seen_track || !r->seen_provisional || b->nstarts == 0 ||
        b->ntowers == 0) {
        cas_host_errorf(host, "%s: missing %s", path,
                        !r->seen_grid          ? "the 'grid'"
                        : b->nstarts == 0      ? "a start space (a letter in the grid)"
                        : !r->seen_track       ? "the 'track LENGTH' line"
                        : b->ntowers == 0      ? "'tower' lines"
                                               : "the 'provisional yes|no' line");
        return CAS_EDATA;
    }
    int holding = 0, copies = 0;
    for (int t = 0; t < b->ntowers; t++)
        holding += b->tower[t].holds;
    for (int n = 1; n <= WALL_KINDS; n++)
        copies += b->wall_copies[n];
    if (holding > copies) {
        cas_host_errorf(host, "%s: %d towers hold a wall tile but only %d wall tiles are given; "
                        "add wall-tile copies or mark towers 'empty'", path, holding, copies);
        return CAS_EDATA;
    }
    for (int i = 0; i < b->nstarts; i++) {
        const struct start_space *st = &b->start[i];
        if (st->kind == NONE8) {
            cas_host_errorf(host, "%s: start space %c has no 'start %c TILE ROTATION' line",
                            path, st->letter, st->letter);
            return CAS_EDATA;
        }
        if (!touches_interior(b, st->cell)) {
            cas_host_errorf(host, "%s:%d: start space %c touches no interior space; put it on "
                            "the wall's inner edge", path, r->start_line[i], st->letter);
            return CAS_EDATA;
        }
    }
    return CAS_OK;
}

int board_load(const struct cas_host *host, const char *path, const struct tileset *tiles,
               struct board *out)
{
    struct board_reader r = {.tiles = tiles};
    int rc = lines_open(&r.lr, host, path, "board");
    if (rc)
        return rc;
    r.b = host->alloc(host->ctx, sizeof *r.b);
    if (!r.b) {
        lines_close(&r.lr);
        return CAS_ENOMEM;
    }
    memset(r.b, 0, sizeof *r.b);
    while ((rc = lines_next(&r.lr)) > 0 && (rc = read_statement(&r)) == CAS_OK)
        ;
    if (rc == CAS_OK)
        rc = check_board(&r);
    if (rc == CAS_OK && tiles->total > r.b->ninterior) {
        cas_host_errorf(host, "%s: %d castle tiles do not fit in %d interior spaces; "
                        "use a larger grid or fewer tiles", path, tiles->total, r.b->ninterior);
        rc = CAS_EDATA;
    }
    if (rc == CAS_OK)
        *out = *r.b;
    host->release(host->ctx, r.b);
    lines_close(&r.lr);
    return rc;
}
