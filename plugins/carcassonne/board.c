/*
 * board.c — spaces of the board: a small open-addressing hash from x,y to
 * cells, the frontier of open spots with the edge types each requires,
 * placement legality and enumeration, and putting a tile down (which merges
 * its features with its neighbours' through features.c).
 *
 * Coordinates follow JCloisterZone: start tile at 0,0, x east, y south.
 * Sides are 0 N, 1 E, 2 S, 3 W; the side facing side b is (b + 2) % 4, and
 * slot k of one side meets slot 2 - k of the facing side.
 */
#include "carc.h"

static const int dir_x[4] = {0, 1, 0, -1}, dir_y[4] = {-1, 0, 1, 0};

static uint32_t pack_key(int x, int y)
{
    return ((uint32_t)(uint16_t)(x + 0x8000) << 16) | (uint16_t)(y + 0x8000);
}

static uint32_t hash_slot(const struct cas_state *s, uint32_t key)
{
    return (key * 2654435761u >> 7) & (uint32_t)(s->game->hash_size - 1);
}

/* The cell at x,y, or -1 with *slot set to where it would be inserted. */
static int cell_lookup(const struct cas_state *s, int x, int y, uint32_t *slot)
{
    const uint16_t *hash = C_HASH(s);
    const struct carc_cell *cells = C_CELLS(s);
    uint32_t mask = (uint32_t)s->game->hash_size - 1;
    for (uint32_t h = hash_slot(s, pack_key(x, y));; h = (h + 1) & mask) {
        if (hash[h] == 0) {
            *slot = h;
            return -1;
        }
        const struct carc_cell *c = &cells[hash[h] - 1];
        if (c->x == x && c->y == y)
            return hash[h] - 1;
    }
}

int cas__carc_cell_find(const struct cas_state *s, int x, int y)
{
    uint32_t slot;
    return cell_lookup(s, x, y, &slot);
}

int cas__carc_tile_at(const struct cas_state *s, int x, int y)
{
    int ci = cas__carc_cell_find(s, x, y);
    if (ci < 0 || C_CELLS(s)[ci].tile == CARC_NONE)
        return -1;
    return C_CELLS(s)[ci].tile;
}

/* The frontier is kept sorted by (x, y) so that placements come out in
 * action-code order without sorting. */
static uint32_t cell_key(const struct carc_cell *c)
{
    return pack_key(c->x, c->y);
}

/* Lower bound of key, branch-free (the comparison becomes a cmov). */
static int frontier_search(const struct cas_state *s, uint32_t key)
{
    const struct carc_open *front = C_FRONT(s), *base = front;
    int n = s->nfront;
    if (n == 0)
        return 0;
    while (n > 1) {
        int half = n / 2;
        base = base[half].key < key ? base + half : base;
        n -= half;
    }
    return (int)(base - front) + (base->key < key);
}

static void frontier_insert(struct cas_state *s, int ci)
{
    struct carc_open *front = S_FRONT(s);
    uint32_t key = cell_key(&C_CELLS(s)[ci]);
    int pos = frontier_search(s, key);
    memmove(front + pos + 1, front + pos, (size_t)(s->nfront - pos) * sizeof *front);
    front[pos] = (struct carc_open){.key = key, .cell = (uint16_t)ci,
                                    .pattern = C_CELLS(s)[ci].pattern};
    s->nfront++;
    S_CELLS(s)[ci].open = 1;
}

static void frontier_remove(struct cas_state *s, int ci)
{
    if (!C_CELLS(s)[ci].open)
        return;
    struct carc_open *front = S_FRONT(s);
    int pos = frontier_search(s, cell_key(&C_CELLS(s)[ci]));
    memmove(front + pos, front + pos + 1, (size_t)(s->nfront - pos - 1) * sizeof *front);
    s->nfront--;
    S_CELLS(s)[ci].open = 0;
}

/* A new empty cell at hash slot `slot` (from cell_lookup). */
static int cell_add(struct cas_state *s, uint32_t slot, int x, int y)
{
    int ci = s->ncells++;
    S_HASH(s)[slot] = (uint16_t)(ci + 1);
    S_CELLS(s)[ci] = (struct carc_cell){.x = (int16_t)x, .y = (int16_t)y,
                                        .tile = CARC_NONE};
    return ci;
}

static const struct carc_rot *tile_rot(const struct cas_state *s, int tile)
{
    const struct carc_tile *t = &C_TILES(s)[tile];
    return &s->game->kinds[t->kind].rot[t->rot];
}

/* Join the three slots of one side with the facing side of a neighbour. */
static void connect_side(struct cas_state *s, int base, const uint8_t *mine,
                         int nbase, const uint8_t *theirs)
{
    struct carc_node *nodes = S_NODES(s);
    for (int k = 0; k < 3; k++) {
        int a = mine[k], b = theirs[2 - k];
        int ha = a != 0xFF, hb = b != 0xFF;
        if (k != 1) {
            if (ha && hb)
                cas__carc_union(s, base + a, nbase + b);
            continue;
        }
        if (ha && hb)
            nodes[cas__carc_union(s, base + a, nbase + b)].open -= 2;
        else if (ha)  /* the other side closes it (abbey edge) */
            nodes[nodes[base + a].root].open -= 1;
        else if (hb)
            nodes[nodes[nbase + b].root].open -= 1;
    }
}

/* An open spot learns the edge type its side `side` must have. */
static void require_side(struct carc_cell *c, int side, int edge)
{
    uint32_t shift = 8u * (uint32_t)side;
    c->req = (c->req & ~(0xFFu << shift)) | ((uint32_t)edge << shift);
    if (edge != EDGE_ANY)
        c->care |= 0xFFu << shift;
    int pattern = 0;
    for (int b = 3; b >= 0; b--)
        pattern = pattern * 5 + (int)((c->req & c->care) >> (8 * b) & 0xFF);
    c->pattern = (uint16_t)pattern;
}

/* The side of open spot (nx, ny) facing a new tile's edge: a new spot
 * enters the frontier with its requirement, a known one is updated. */
static void touch_open_spot(struct cas_state *s, int ci, int is_new, int side, int edge)
{
    struct carc_cell *c = &S_CELLS(s)[ci];
    require_side(c, side, edge);
    if (is_new)
        frontier_insert(s, ci);
    else
        S_FRONT(s)[frontier_search(s, cell_key(c))].pattern = c->pattern;
}

static void init_nodes(struct cas_state *s, const struct carc_kind *k, int tile)
{
    struct carc_node *nodes = S_NODES(s);
    int base = s->nnodes;
    for (int f = 0; f < k->nf; f++) {
        struct carc_node *n = &nodes[base + f];
        const struct carc_feature_def *d = &k->f[f];
        *n = (struct carc_node){.root = (uint16_t)(base + f),
                                .next = (uint16_t)(base + f), .size = 1,
                                .tile = (uint16_t)tile, .local = (uint8_t)f,
                                .cls = d->cls};
        if (d->cls == CAS_CARC_ROAD || d->cls == CAS_CARC_CITY)
            n->open = d->nedges;
        memcpy(n->attr, d->attr, sizeof n->attr);
    }
    s->nnodes = (uint16_t)(s->nnodes + k->nf);
}

int cas__carc_place(struct cas_state *s, int kind, int x, int y, int rot, int player)
{
    const struct carc_kind *k = &s->game->kinds[kind];
    const struct carc_rot *r = &k->rot[rot];
    int t = s->ntiles++;
    struct carc_tile *tile = &S_TILES(s)[t];
    *tile = (struct carc_tile){.kind = (uint16_t)kind, .rot = (uint8_t)rot,
                               .player = (int8_t)player, .x = (int16_t)x,
                               .y = (int16_t)y, .node_base = s->nnodes};
    init_nodes(s, k, t);
    if (k->has_cloister)
        S_CLOISTERS(s)[s->ncloisters++] = (uint16_t)t;
    for (int c = 0; c < k->ncells; c++) {
        int cx = x + r->dx[c], cy = y + r->dy[c];
        uint32_t slot = 0;
        int ci = cell_lookup(s, cx, cy, &slot);
        if (ci < 0)
            ci = cell_add(s, slot, cx, cy);
        frontier_remove(s, ci);
        S_CELLS(s)[ci].tile = (uint16_t)t;
        S_CELLS(s)[ci].sub = (uint8_t)c;
    }
    for (int c = 0; c < k->ncells; c++) {
        int cx = x + r->dx[c], cy = y + r->dy[c];
        for (int b = 0; b < 4; b++) {
            int edge = r->edge[c][b];
            if (edge == EDGE_NONE)
                continue;
            int nx = cx + dir_x[b], ny = cy + dir_y[b];
            uint32_t slot = 0;
            int ni = cell_lookup(s, nx, ny, &slot), is_new = ni < 0;
            if (is_new)
                ni = cell_add(s, slot, nx, ny);
            struct carc_cell *nc = &S_CELLS(s)[ni];
            if (nc->tile == CARC_NONE) {
                touch_open_spot(s, ni, is_new, (b + 2) % 4, edge);
                continue;
            }
            const struct carc_rot *nr = tile_rot(s, nc->tile);
            connect_side(s, tile->node_base, r->seg[c][b],
                         C_TILES(s)[nc->tile].node_base, nr->seg[nc->sub][(b + 2) % 4]);
        }
    }
    return t;
}

int cas__carc_fits_edges(const struct cas_state *s, const struct carc_kind *k, int x,
                      int y, int rot)
{
    const struct carc_rot *r = &k->rot[rot];
    const struct carc_cell *cells = C_CELLS(s);
    int touches = 0;
    for (int c = 0; c < k->ncells; c++) {
        int ci = cas__carc_cell_find(s, x + r->dx[c], y + r->dy[c]);
        if (ci < 0)
            continue;
        if (cells[ci].tile != CARC_NONE)
            return 0;
        if (((r->sig[c] ^ cells[ci].req) & cells[ci].care & r->care[c]) != 0)
            return 0;
        touches |= cells[ci].open;
    }
    return touches;
}

int cas__carc_fits(const struct cas_state *s, int kind, int x, int y, int rot)
{
    const struct carc_kind *k = &s->game->kinds[kind];
    return cas__carc_fits_edges(s, k, x, y, rot) &&
           !cas__carc_hook_veto_place(s, kind, x, y, rot);
}

int cas__carc_fits_fast(const struct cas_state *s, int kind, int x, int y, int rot)
{
    const struct carc_kind *k = &s->game->kinds[kind];
    if (k->ncells != 1 || s->game->vetoes_placement)
        return cas__carc_fits(s, kind, x, y, rot);
    uint32_t key = pack_key(x, y);
    int pos = frontier_search(s, key);
    return pos < s->nfront && C_FRONT(s)[pos].key == key &&
           (k->fitmask[C_FRONT(s)[pos].pattern] >> rot & 1u);
}

/* Shell sort, then drop duplicates; returns the new length. */
size_t cas__carc_sort_unique(cas_action *a, size_t n)
{
    static const size_t gaps[] = {57, 23, 10, 4, 1};
    for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++)
        for (size_t i = gaps[g]; i < n; i++) {
            cas_action v = a[i];
            size_t j = i;
            for (; j >= gaps[g] && a[j - gaps[g]] > v; j -= gaps[g])
                a[j] = a[j - gaps[g]];
            a[j] = v;
        }
    size_t out = 0;
    for (size_t i = 0; i < n; i++)
        if (out == 0 || a[out - 1] != a[i])
            a[out++] = a[i];
    return out;
}

static void emit(cas_action *buf, size_t cap, size_t *n, cas_action a)
{
    if (*n < cap)
        buf[*n] = a;
    (*n)++;
}

/* For each mask of fitting rotations: how many fit, and the rotations in
 * ascending order, padded to four so a spot's codes go out in four
 * unconditional stores. */
static const uint8_t fit_count[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
static const uint64_t fit_rotations[16][4] = {
    {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 1, 1, 1}, {0, 1, 1, 1},
    {2, 2, 2, 2}, {0, 2, 2, 2}, {1, 2, 2, 2}, {0, 1, 2, 2},
    {3, 3, 3, 3}, {0, 3, 3, 3}, {1, 3, 3, 3}, {0, 1, 3, 3},
    {2, 3, 3, 3}, {0, 2, 3, 3}, {1, 2, 3, 3}, {0, 1, 2, 3},
};

/* The placement code of kind at open spot `key`, rotation 0. */
static cas_action spot_code(int kind, uint32_t key)
{
    return ACT_PLACE_CODE(kind, (int)(key >> 16) - 0x8000, (int)(key & 0xFFFF) - 0x8000, 0);
}

/* The hot path for one-space tiles when no expansion vetoes: the sorted
 * frontier yields codes in ascending order, each spot's rotations come
 * from the kind's pattern table, and while four more codes fit in buf
 * they are written without a branch.  Returns how many codes there are. */
static size_t unvetoed_single_placements(const struct cas_state *s, int kind,
                                         cas_action *buf, size_t cap)
{
    const uint8_t *fitmask = s->game->kinds[kind].fitmask;
    const struct carc_open *front = C_FRONT(s);
    size_t out = 0;
    for (int i = 0; i < s->nfront; i++) {
        unsigned fits = fitmask[front[i].pattern];
        cas_action code = spot_code(kind, front[i].key);
        const uint64_t *rot = fit_rotations[fits];
        if (out + 4 <= cap) {
            for (int j = 0; j < 4; j++)
                buf[out + (size_t)j] = code | rot[j];
        } else {
            for (size_t j = 0; j < fit_count[fits] && out + j < cap; j++)
                buf[out + j] = code | rot[j];
        }
        out += fit_count[fits];
    }
    return out;
}

/* One-space tiles: only open spots can take them.  With first_only, stop
 * at the first fit. */
static void single_placements(const struct cas_state *s, int kind, cas_action *buf,
                              size_t cap, size_t *n, int first_only)
{
    const struct carc_kind *k = &s->game->kinds[kind];
    const struct carc_open *front = C_FRONT(s);
    int vetoes = s->game->vetoes_placement;
    if (!vetoes && !first_only) {
        *n = unvetoed_single_placements(s, kind, buf, cap);
        return;
    }
    for (int i = 0; i < s->nfront; i++) {
        unsigned fits = k->fitmask[front[i].pattern];
        if (!fits)
            continue;
        int x = (int)(front[i].key >> 16) - 0x8000, y = (int)(front[i].key & 0xFFFF) - 0x8000;
        for (int rot = 0; rot < 4; rot++) {
            if (!(fits & (1u << rot)))
                continue;
            if (vetoes && cas__carc_hook_veto_place(s, kind, x, y, rot))
                continue;
            emit(buf, cap, n, ACT_PLACE_CODE(kind, x, y, rot));
            if (first_only)
                return;
        }
    }
}

/* Any tile shape: try every cell of the tile on every open spot.  With
 * first_only, stop at the first fit (n becomes 1). */
static void scan_placements(const struct cas_state *s, int kind, cas_action *buf,
                            size_t cap, size_t *n, int first_only)
{
    const struct carc_kind *k = &s->game->kinds[kind];
    const struct carc_cell *cells = C_CELLS(s);
    const struct carc_open *front = C_FRONT(s);
    for (int i = 0; i < s->nfront; i++) {
        const struct carc_cell *c = &cells[front[i].cell];
        for (int rot = 0; rot < 4; rot++)
            for (int sub = 0; sub < k->ncells; sub++) {
                int x = c->x - k->rot[rot].dx[sub], y = c->y - k->rot[rot].dy[sub];
                if (!cas__carc_fits(s, kind, x, y, rot))
                    continue;
                emit(buf, cap, n, ACT_PLACE_CODE(kind, x, y, rot));
                if (first_only)
                    return;
            }
    }
}

int cas__carc_placements(const struct cas_state *s, int kind, cas_action *buf,
                         size_t cap, size_t *count)
{
    size_t n = 0;
    int single = s->game->kinds[kind].ncells == 1;
    if (single)
        single_placements(s, kind, buf, cap, &n, 0);
    else
        scan_placements(s, kind, buf, cap, &n, 0);
    if (n > cap) {
        *count = n;
        return CAS_ENOSPC;
    }
    *count = single ? n : cas__carc_sort_unique(buf, n);
    return CAS_OK;
}

int cas__carc_fits_anywhere(const struct cas_state *s, int kind)
{
    size_t n = 0;
    if (s->game->kinds[kind].ncells == 1)
        single_placements(s, kind, NULL, 0, &n, 1);
    else
        scan_placements(s, kind, NULL, 0, &n, 1);
    return n > 0;
}
