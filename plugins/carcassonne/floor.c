/*
 * floor.c — the bare placement loop behind `castellan bench --floor`: random
 * games that only put the game's tiles down legally, with none of the rules
 * around them, so the engine's speed has a reproducible yardstick built from
 * the same tile data (count overrides and expansion tiles included).
 *
 * What it does, and no more: a dense grid board (no hashing), open spots in
 * an unordered list each with its packed edge requirement (8 bits a side,
 * updated where a tile lands), a draw uniform over the copies left, every
 * spot tried in every rotation with one mask test, a uniform choice among
 * the fits (a tile that fits nowhere is set aside), and a union-find with
 * path halving joining the roads and cities of neighbouring tiles.  No
 * figures, fields, scoring, sorting, events, vetoes or action codes.
 * Every random number comes from the host (run->rng).
 */
#include "carc.h"

/* One open spot: where, and the edge types its sides require. */
struct floor_spot {
    int x, y;
    uint32_t req, care;
};

struct floor {
    const struct cas_game *g;
    int side;              /* the grid is side x side, the start tile central */
    int32_t *grid;         /* 0 empty, t + 1 tile t, -(s + 1) open spot s */
    struct floor_spot *spots;
    int nspots;
    int *touched;          /* grid cells written this game, to clear them */
    int ntouched;
    uint16_t *tile_kind;   /* per placement */
    uint8_t *tile_rot;
    int *node_base;        /* first union-find node of each placement */
    int ntiles, nnodes;
    int *parent;           /* union-find over the features of placed tiles */
    uint16_t *bag;         /* kind of each copy left */
    int bag_left;
    int *candidates;       /* spot * 4 + rotation */
};

static const int dir_x[4] = {0, 1, 0, -1}, dir_y[4] = {-1, 0, 1, 0};

static int cell_of(const struct floor *f, int x, int y)
{
    return (y + f->side / 2) * f->side + (x + f->side / 2);
}

static int find(int *parent, int n)
{
    while (parent[n] != n) {
        parent[n] = parent[parent[n]];
        n = parent[n];
    }
    return n;
}

static void join(int *parent, int a, int b)
{
    a = find(parent, a);
    b = find(parent, b);
    if (a != b)
        parent[a] = b;
}

static void set_cell(struct floor *f, int cell, int32_t value)
{
    if (f->grid[cell] == 0)
        f->touched[f->ntouched++] = cell;
    f->grid[cell] = value;
}

static void remove_spot(struct floor *f, int s)
{
    f->spots[s] = f->spots[--f->nspots];
    if (s < f->nspots)
        f->grid[cell_of(f, f->spots[s].x, f->spots[s].y)] = -(s + 1);
}

/* The side `side` of the spot at x,y must show `edge`; the spot is created
 * if the space was empty. */
static void require(struct floor *f, int x, int y, int side, int edge)
{
    int cell = cell_of(f, x, y);
    if (f->grid[cell] > 0)
        return;
    if (f->grid[cell] == 0) {
        f->spots[f->nspots] = (struct floor_spot){.x = x, .y = y};
        set_cell(f, cell, -(f->nspots + 1));
        f->nspots++;
    }
    struct floor_spot *s = &f->spots[-f->grid[cell] - 1];
    uint32_t shift = 8u * (uint32_t)side;
    s->req = (s->req & ~(0xFFu << shift)) | ((uint32_t)edge << shift);
    if (edge != EDGE_ANY)
        s->care |= 0xFFu << shift;
}

static void place(struct floor *f, int kind, int x, int y, int rot)
{
    const struct carc_kind *k = &f->g->kinds[kind];
    const struct carc_rot *r = &k->rot[rot];
    int t = f->ntiles++, cell = cell_of(f, x, y);
    f->tile_kind[t] = (uint16_t)kind;
    f->tile_rot[t] = (uint8_t)rot;
    f->node_base[t] = f->nnodes;
    for (int i = 0; i < k->nf; i++)
        f->parent[f->nnodes + i] = f->nnodes + i;
    f->nnodes += k->nf;
    if (f->grid[cell] < 0)
        remove_spot(f, -f->grid[cell] - 1);
    set_cell(f, cell, t + 1);
    for (int b = 0; b < 4; b++) {
        if (r->edge[0][b] == EDGE_NONE)
            continue;
        int nx = x + dir_x[b], ny = y + dir_y[b], next = f->grid[cell_of(f, nx, ny)];
        if (next <= 0) {
            require(f, nx, ny, (b + 2) % 4, r->edge[0][b]);
            continue;
        }
        int o = next - 1;
        const struct carc_rot *orot = &f->g->kinds[f->tile_kind[o]].rot[f->tile_rot[o]];
        int mine = r->seg[0][b][1], theirs = orot->seg[0][(b + 2) % 4][1];
        if (mine != 0xFF && theirs != 0xFF)
            join(f->parent, f->node_base[t] + mine, f->node_base[o] + theirs);
    }
}

/* Every spot in every rotation; the fits into f->candidates. */
static int list_fits(struct floor *f, const struct carc_kind *k)
{
    int n = 0;
    for (int s = 0; s < f->nspots; s++)
        for (int rot = 0; rot < 4; rot++)
            if (((k->rot[rot].sig[0] ^ f->spots[s].req) & f->spots[s].care &
                 k->rot[rot].care[0]) == 0)
                f->candidates[n++] = s * 4 + rot;
    return n;
}

static void new_game(struct floor *f)
{
    const struct cas_game *g = f->g;
    for (int i = 0; i < f->ntouched; i++)
        f->grid[f->touched[i]] = 0;
    f->ntouched = f->nspots = f->ntiles = f->nnodes = f->bag_left = 0;
    for (int k = 0; k < g->nkinds; k++)
        for (int c = g->kinds[k].hand ? 0 : g->kinds[k].count - (k == g->start_kind); c > 0;
             c--)
            f->bag[f->bag_left++] = (uint16_t)k;
    place(f, g->start_kind, 0, 0, 0);
}

static void play(struct floor *f, struct cas_floor_run *run)
{
    new_game(f);
    while (f->bag_left > 0) {
        int at = (int)run->rng->below(run->rng->ctx, (uint64_t)f->bag_left);
        int kind = f->bag[at];
        f->bag[at] = f->bag[--f->bag_left];
        int n = list_fits(f, &f->g->kinds[kind]);
        run->steps += 1 + (n > 0);
        if (n == 0)
            continue;
        int c = f->candidates[run->rng->below(run->rng->ctx, (uint64_t)n)];
        const struct floor_spot *s = &f->spots[c / 4];
        run->checksum = (run->checksum ^ (uint64_t)(uint32_t)(s->x * 7919 + s->y)) *
                        0x100000001B3ull + (uint64_t)(c & 3);
        place(f, kind, s->x, s->y, c & 3);
    }
    run->checksum += (uint64_t)find(f->parent, f->nnodes - 1);
}

/* Every array sized for the whole pool; NULL members on failure. */
static int floor_alloc(struct floor *f, const struct cas_game *g)
{
    const struct cas_host *h = g->host;
    int tiles = g->cap_tiles, spots = 2 * tiles + 2;
    f->side = 2 * tiles + 3;
    size_t cells = (size_t)f->side * (size_t)f->side;
    f->grid = h->alloc(h->ctx, cells * sizeof *f->grid);
    f->spots = h->alloc(h->ctx, (size_t)spots * sizeof *f->spots);
    f->touched = h->alloc(h->ctx, (size_t)(tiles + spots) * sizeof *f->touched);
    f->tile_kind = h->alloc(h->ctx, (size_t)tiles * sizeof *f->tile_kind);
    f->tile_rot = h->alloc(h->ctx, (size_t)tiles);
    f->node_base = h->alloc(h->ctx, (size_t)tiles * sizeof *f->node_base);
    f->parent = h->alloc(h->ctx, (size_t)g->cap_nodes * sizeof *f->parent);
    f->bag = h->alloc(h->ctx, (size_t)tiles * sizeof *f->bag);
    f->candidates = h->alloc(h->ctx, (size_t)spots * 4 * sizeof *f->candidates);
    if (!f->grid || !f->spots || !f->touched || !f->tile_kind || !f->tile_rot ||
        !f->node_base || !f->parent || !f->bag || !f->candidates)
        return CAS_ENOMEM;
    memset(f->grid, 0, cells * sizeof *f->grid);
    return CAS_OK;
}

static void floor_free(struct floor *f, const struct cas_host *h)
{
    void *blocks[] = {f->grid, f->spots, f->touched, f->tile_kind, f->tile_rot,
                      f->node_base, f->parent, f->bag, f->candidates};
    for (size_t i = 0; i < sizeof blocks / sizeof blocks[0]; i++)
        h->release(h->ctx, blocks[i]);
}

int cas__carc_bench_floor(const struct cas_game *g, struct cas_floor_run *run)
{
    for (int k = 0; k < g->nkinds; k++)
        if (g->kinds[k].ncells != 1 && !g->kinds[k].hand) {
            cas_host_errorf(g->host, "the floor places one-space tiles only; tile %s "
                            "covers %d", g->kinds[k].id, g->kinds[k].ncells);
            return CAS_EINVAL;
        }
    struct floor f = {.g = g};
    int rc = floor_alloc(&f, g);
    for (int i = 0; rc == CAS_OK && i < run->games; i++)
        play(&f, run);
    floor_free(&f, g->host);
    return rc;
}
