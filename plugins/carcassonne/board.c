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

#include <stddef.h>

_Static_assert(offsetof(struct carc_cell, y) == offsetof(struct carc_cell, x) + sizeof(int16_t),
               "cell_lookup reads a cell's x and y as one word");

static const int dir_x[4] = {0, 1, 0, -1}, dir_y[4] = {-1, 0, 1, 0};

static uint32_t pack_key(int x, int y)
{
    return ((uint32_t)(uint16_t)(x + 0x8000) << 16) | (uint16_t)(y + 0x8000);
}

/* Fibonacci hashing: the top bits of the key times 2^64 / phi, so
 * neighbouring spaces land far apart. */
static uint32_t hash_slot(const struct cas_state *s, uint32_t key)
{
    return (uint32_t)(((uint64_t)key * 0x9E3779B97F4A7C15ull) >> s->game->hash_shift);
}

/* The cell at x,y, or -1 with *slot set to where it would be inserted.
 * A cell's x,y are compared as one packed word; inlined into its callers,
 * as it is the board's hot path. */
static inline __attribute__((always_inline)) int cell_lookup(const struct cas_state *s, int x,
                                                             int y, uint32_t *slot)
{
    const uint16_t *hash = C_HASH(s);
    const struct carc_cell *cells = C_CELLS(s);
    uint32_t mask = (uint32_t)s->game->hash_size - 1;
    const int16_t want[2] = {(int16_t)x, (int16_t)y};
    uint32_t want_xy;
    memcpy(&want_xy, want, sizeof want_xy);
    for (uint32_t h = hash_slot(s, pack_key(x, y));; h = (h + 1) & mask) {
        unsigned at = hash[h];
        if (at == 0) {
            *slot = h;
            return -1;
        }
        uint32_t xy;
        memcpy(&xy, &cells[at - 1].x, sizeof xy); /* x, y: adjacent int16_t */
        if (xy == want_xy)
            return (int)at - 1;
    }
}

int cas__carc_cell_find(const struct cas_state *s, int x, int y)
{
    uint32_t slot;
    return cell_lookup(s, x, y, &slot);
}

int cas__carc_tile_at(const struct cas_state *s, int x, int y)
{
    uint32_t slot;
    int ci = cell_lookup(s, x, y, &slot);
    if (ci < 0 || C_CELLS(s)[ci].tile == CARC_NONE)
        return -1;
    return C_CELLS(s)[ci].tile;
}

void cas__carc_diagonal_tiles(const struct cas_state *s, int x, int y, int tile[4])
{
    static const int8_t dx[4] = {-1, 1, 1, -1}, dy[4] = {-1, -1, 1, 1};
    const struct carc_cell *cells = C_CELLS(s);
    for (int d = 0; d < 4; d++) {
        uint32_t slot;
        int ci = cell_lookup(s, x + dx[d], y + dy[d], &slot);
        tile[d] = ci < 0 || cells[ci].tile == CARC_NONE ? -1 : cells[ci].tile;
    }
}

/* The frontier: every open spot's cell once, in no particular order (each
 * cell knows its place, so a spot leaves in O(1)); sorted copies are made
 * where order is promised (api open_spots). */
/* Open spot ci joins the group of its pattern (at its head: position 0). */
static void group_add(struct cas_state *s, int ci)
{
    struct carc_cell *cells = S_CELLS(s);
    int p = cells[ci].pattern;
    uint64_t bit = 1ull << (p % 64);
    if (!(s->groups[p / 64] & bit)) {
        s->groups[p / 64] |= bit;
        S_GHEAD(s)[p] = CARC_NONE;
        S_GCOUNT(s)[p] = 0;
    }
    int head = S_GHEAD(s)[p];
    cells[ci].gprev = CARC_NONE;
    cells[ci].gnext = (uint16_t)head;
    if (head != CARC_NONE)
        cells[head].gprev = (uint16_t)ci;
    S_GHEAD(s)[p] = (uint16_t)ci;
    S_GCOUNT(s)[p]++;
}

static void group_remove(struct cas_state *s, int ci)
{
    struct carc_cell *cells = S_CELLS(s), *c = &cells[ci];
    int p = c->pattern;
    if (c->gprev != CARC_NONE)
        cells[c->gprev].gnext = c->gnext;
    else
        S_GHEAD(s)[p] = c->gnext;
    if (c->gnext != CARC_NONE)
        cells[c->gnext].gprev = c->gprev;
    if (--S_GCOUNT(s)[p] == 0)
        s->groups[p / 64] &= ~(1ull << (p % 64));
}

/* The open spot at position pos of pattern p's group, or -1. */
static int group_member(const struct cas_state *s, int p, int pos)
{
    if (p >= CARC_PATTERNS || !(s->groups[p / 64] >> (p % 64) & 1) ||
        pos >= C_GCOUNT(s)[p])
        return -1;
    int ci = C_GHEAD(s)[p];
    while (pos-- > 0)
        ci = C_CELLS(s)[ci].gnext;
    return ci;
}

/* Position of open spot ci in its group. */
static int group_position(const struct cas_state *s, int ci)
{
    int pos = 0;
    for (int at = C_GHEAD(s)[C_CELLS(s)[ci].pattern]; at != ci; at = C_CELLS(s)[at].gnext)
        pos++;
    return pos;
}

static void frontier_insert(struct cas_state *s, int ci)
{
    S_FRONT(s)[s->nfront] = (uint16_t)ci;
    S_CELLS(s)[ci].fpos = s->nfront++;
    S_CELLS(s)[ci].open = 1;
    group_add(s, ci);
}

static void frontier_remove(struct cas_state *s, int ci)
{
    if (!C_CELLS(s)[ci].open)
        return;
    group_remove(s, ci);
    uint16_t *front = S_FRONT(s);
    int pos = C_CELLS(s)[ci].fpos;
    front[pos] = front[--s->nfront];
    S_CELLS(s)[front[pos]].fpos = (uint16_t)pos;
    if (C_CELLS(s)[ci].open == 4)
        s->nenclosed--;
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

/* Root's feature loses `edges` open edges; a road or city left with none
 * is counted closed. */
static void close_edges(struct cas_state *s, int root, int edges)
{
    struct carc_node *n = &S_NODES(s)[root];
    n->open = (int16_t)(n->open - edges);
    if (n->open == 0 && (n->cls == CAS_CARC_ROAD || n->cls == CAS_CARC_CITY))
        s->nclosed[n->cls]++;
}

/* Join the three slots of one side with the facing side of a neighbour. */
static void connect_side(struct cas_state *s, int base, const uint8_t *mine,
                         int nbase, const uint8_t *theirs)
{
    const struct carc_node *nodes = C_NODES(s);
    for (int k = 0; k < 3; k++) {
        int a = mine[k], b = theirs[2 - k];
        int ha = a != 0xFF, hb = b != 0xFF;
        if (k != 1) {
            if (ha && hb)
                cas__carc_union(s, base + a, nbase + b);
            continue;
        }
        if (ha && hb)
            close_edges(s, cas__carc_union(s, base + a, nbase + b), 2);
        else if (ha)  /* the other side closes it (abbey edge) */
            close_edges(s, nodes[base + a].root, 1);
        else if (hb)
            close_edges(s, nodes[nbase + b].root, 1);
    }
}

/* An open spot learns the edge type its side `side` must have (each side
 * faces one space, so it is learnt once): one base-5 digit of its pattern,
 * 0 for an edge that fits anything. */
static void require_side(struct carc_cell *c, int side, int edge)
{
    static const uint16_t digit[4] = {1, 5, 25, 125};
    if (edge != EDGE_ANY)
        c->pattern = (uint16_t)(c->pattern + edge * digit[side]);
}

/* The side of open spot (nx, ny) facing a new tile's edge: a new spot
 * enters the frontier with its requirement, a known one is updated. */
static void touch_open_spot(struct cas_state *s, int ci, int is_new, int side, int edge)
{
    struct carc_cell *c = &S_CELLS(s)[ci];
    if (!is_new)
        group_remove(s, ci);
    require_side(c, side, edge);
    if (is_new) {
        frontier_insert(s, ci);
        return;
    }
    group_add(s, ci);
    if (++c->open == 4)
        s->nenclosed++;
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
        if (d->cls == CAS_CARC_ROAD || d->cls == CAS_CARC_CITY) {
            n->open = d->nedges;
            s->nclosed[d->cls] += d->nedges == 0; /* a feature with no edge */
        }
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
    s->placed_sides = 0;
    if (k->has_cloister)
        cas__carc_add_cloisters(s, t);
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
            if (c == 0) {
                s->placed_sides |= (uint8_t)(1u << b);
                s->placed_beside[b] = nc->tile;
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
        int p = cells[ci].pattern;
        if (((r->sig[c] ^ s->game->pattern_req[p]) & s->game->pattern_care[p] & r->care[c]) != 0)
            return 0;
        touches |= cells[ci].open;
    }
    return touches;
}

void cas__carc_placement_refusal(const struct cas_state *s, int kind, int x, int y, int rot,
                                 char *buf, size_t cap)
{
    static const char *const edge_names[] = {"nothing", "field", "road", "city", "river",
                                             "anything"};
    static const int side_dx[] = {0, 1, 0, -1}, side_dy[] = {-1, 0, 1, 0};
    const struct carc_kind *k = &s->game->kinds[kind];
    const struct carc_rot *r = &k->rot[rot];
    const struct carc_cell *cells = C_CELLS(s);
    int touches = 0;
    for (int c = 0; c < k->ncells; c++) {
        int cx = x + r->dx[c], cy = y + r->dy[c];
        int ci = cas__carc_cell_find(s, cx, cy);
        if (ci >= 0 && cells[ci].tile != CARC_NONE) {
            snprintf(buf, cap, "%d,%d already holds a tile", cx, cy);
            return;
        }
        for (int d = 0; d < 4; d++) {
            int ni = cas__carc_cell_find(s, cx + side_dx[d], cy + side_dy[d]);
            if (ni < 0 || cells[ni].tile == CARC_NONE)
                continue;
            touches = 1;
            const struct carc_tile *t = &C_TILES(s)[cells[ni].tile];
            int theirs = s->game->kinds[t->kind].rot[t->rot].edge[cells[ni].sub][(d + 2) % 4],
                mine = r->edge[c][d];
            if (mine != theirs && mine != EDGE_ANY && theirs != EDGE_ANY) {
                snprintf(buf, cap, "its %c side (%s) meets the %s of tile %s at %d,%d",
                         "NESW"[d], edge_names[mine < 6 ? mine : 0],
                         edge_names[theirs < 6 ? theirs : 0], s->game->kinds[t->kind].id,
                         cx + side_dx[d], cy + side_dy[d]);
                return;
            }
        }
    }
    snprintf(buf, cap, touches ? "the rules of an expansion in play forbid it there"
                               : "it touches no tile");
}

int cas__carc_fits(const struct cas_state *s, int kind, int x, int y, int rot)
{
    const struct carc_kind *k = &s->game->kinds[kind];
    return cas__carc_fits_edges(s, k, x, y, rot) &&
           !(k->vetoed && cas__carc_hook_veto_place(s, kind, x, y, rot));
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

/* For each mask of fitting rotations: how many fit, and which, ascending. */
static const uint8_t fit_count[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
static const uint8_t fit_rotations[16][4] = {
    {0, 0, 0, 0}, {0, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0},
    {2, 0, 0, 0}, {0, 2, 0, 0}, {1, 2, 0, 0}, {0, 1, 2, 0},
    {3, 0, 0, 0}, {0, 3, 0, 0}, {1, 3, 0, 0}, {0, 1, 3, 0},
    {2, 3, 0, 0}, {0, 2, 3, 0}, {1, 2, 3, 0}, {0, 1, 2, 3},
};

/* The codes of a group of n spots with nrot rotations each: position by
 * position, a loop for each count of rotations, so no test per code. */
static void write_group(cas_action *o, size_t n, int nrot, cas_action base,
                        const uint8_t *rot)
{
    const cas_action step = (cas_action)1 << 8;
    cas_action c0 = base | rot[0];
    switch (nrot) {
    case 1:
        for (size_t pos = 0; pos < n; pos++, c0 += step)
            o[pos] = c0;
        return;
    case 2: {
        cas_action c1 = base | rot[1];
        for (size_t pos = 0; pos < n; pos++, o += 2, c0 += step, c1 += step) {
            o[0] = c0;
            o[1] = c1;
        }
        return;
    }
    case 3: {
        cas_action c1 = base | rot[1], c2 = base | rot[2];
        for (size_t pos = 0; pos < n; pos++, o += 3, c0 += step, c1 += step, c2 += step) {
            o[0] = c0;
            o[1] = c1;
            o[2] = c2;
        }
        return;
    }
    default: /* all four: rotations 0..3 */
        for (size_t pos = 0; pos < n; pos++, o += 4, c0 += step) {
            o[0] = c0;
            o[1] = c0 | 1;
            o[2] = c0 | 2;
            o[3] = c0 | 3;
        }
    }
}

/* What of a group's codes fits in buf[out..cap): a buffer too small. */
__attribute__((noinline)) static void write_group_part(cas_action *buf, size_t out,
                                                       size_t cap, size_t codes, int nrot,
                                                       cas_action base, const uint8_t *rot)
{
    for (size_t i = 0; out + i < cap && i < codes; i++)
        buf[out + i] = (base + ((cas_action)(i / (size_t)nrot) << 8)) | rot[i % (size_t)nrot];
}

/* The hot path for one-space tiles when no expansion vetoes: for every
 * group of open spots whose pattern the kind fits (ascending pattern), its
 * size times the fitting rotations in codes, written from the size alone.
 * Costs the codes written plus a few instructions per fitting group and a
 * word per 64 patterns, whatever the size of the board.
 * Returns how many codes there are. */
static size_t unvetoed_single_placements(const struct cas_state *s, int kind,
                                         cas_action *buf, size_t cap)
{
    const struct carc_kind *k = &s->game->kinds[kind];
    const uint16_t *count = C_GCOUNT(s);
    const cas_action kind_base = ACT_SPOT_CODE(kind, 0, 0, 0);
    size_t out = 0;
    for (int w = 0; w < CARC_PATTERN_WORDS; w++)
        for (uint64_t bits = s->groups[w] & k->fitting[w]; bits; bits &= bits - 1) {
            unsigned p = (unsigned)(w * 64 + __builtin_ctzll(bits)), mask = k->fitmask[p];
            int nrot = fit_count[mask];
            size_t codes = (size_t)count[p] * (size_t)nrot;
            cas_action base = kind_base | ((cas_action)p << 32);
            if (out + codes <= cap)
                write_group(buf + out, count[p], nrot, base, fit_rotations[mask]);
            else
                write_group_part(buf, out, cap, codes, nrot, base, fit_rotations[mask]);
            out += codes;
        }
    return out;
}

/* The position in its group and the rotation of code i of a group whose
 * spots each take the nrot rotations of `mask` (the listing's order:
 * position by position, rotations ascending); no division for 1, 2, 4. */
static void group_code(uint64_t i, unsigned mask, uint64_t *pos, int *rot)
{
    unsigned nrot = fit_count[mask];
    *pos = nrot == 4 ? i >> 2 : nrot == 2 ? i >> 1 : nrot == 1 ? i : i / 3;
    *rot = fit_rotations[mask][i - *pos * nrot];
}

int cas__carc_random_placement(const struct cas_state *s, int kind, const struct cas_rng *rng,
                               cas_action *out)
{
    const struct carc_kind *k = &s->game->kinds[kind];
    struct carc_veto veto;
    if (k->ncells != 1 || (k->vetoed && cas__carc_veto_begin(s, kind, &veto)))
        return CAS_ENOTFOUND;
    const uint16_t *count = C_GCOUNT(s);
    uint64_t total = 0, upto[CARC_PATTERN_WORDS]; /* codes up to each word's end */
    for (int w = 0; w < CARC_PATTERN_WORDS; w++) {
        for (uint64_t bits = s->groups[w] & k->fitting[w]; bits; bits &= bits - 1) {
            unsigned p = (unsigned)(w * 64 + __builtin_ctzll(bits));
            total += (uint64_t)count[p] * fit_count[k->fitmask[p]];
        }
        upto[w] = total;
    }
    if (total == 0)
        return CAS_EINVAL;
    uint64_t i = rng->below(rng->ctx, total);
    int w = 0;
    while (upto[w] <= i)
        w++;
    i -= w ? upto[w - 1] : 0; /* the code's word found, its groups walked */
    for (uint64_t bits = s->groups[w] & k->fitting[w]; bits; bits &= bits - 1) {
        unsigned p = (unsigned)(w * 64 + __builtin_ctzll(bits)), mask = k->fitmask[p];
        uint64_t codes = (uint64_t)count[p] * fit_count[mask], pos;
        int rot;
        if (i >= codes) {
            i -= codes;
            continue;
        }
        group_code(i, mask, &pos, &rot);
        *out = ACT_SPOT_CODE(kind, p, pos, rot);
        return CAS_OK;
    }
    return CAS_EINVAL; /* unreachable: i < total */
}

/* One-space tiles: only open spots can take them, group by group.  With
 * first_only, stop at the first fit. */
static void single_placements(const struct cas_state *s, int kind, cas_action *buf,
                              size_t cap, size_t *n, int first_only)
{
    const struct carc_kind *k = &s->game->kinds[kind];
    struct carc_veto veto;
    int vetoes = k->vetoed && cas__carc_veto_begin(s, kind, &veto);
    if (!vetoes && !first_only) {
        *n = unvetoed_single_placements(s, kind, buf, cap);
        return;
    }
    for (int w = 0; w < CARC_PATTERN_WORDS; w++)
        for (uint64_t bits = s->groups[w] & k->fitting[w]; bits; bits &= bits - 1) {
            int p = w * 64 + __builtin_ctzll(bits);
            unsigned fits = k->fitmask[p];
            int pos = 0;
            for (int ci = C_GHEAD(s)[p]; ci != CARC_NONE; ci = C_CELLS(s)[ci].gnext, pos++)
                for (int rot = 0; rot < 4; rot++) {
                    if (!(fits & (1u << rot)) ||
                        (vetoes && cas__carc_veto_hits(s, &veto, kind, C_CELLS(s)[ci].x,
                                                       C_CELLS(s)[ci].y, rot)))
                        continue;
                    emit(buf, cap, n, ACT_SPOT_CODE(kind, p, pos, rot));
                    if (first_only)
                        return;
                }
        }
}

cas_action cas__carc_placement_code(const struct cas_state *s, int kind, int x, int y,
                                    int rot)
{
    int ci = s->game->kinds[kind].ncells == 1 ? cas__carc_cell_find(s, x, y) : -1;
    if (ci < 0 || !C_CELLS(s)[ci].open)
        return ACT_PLACE_CODE(kind, x, y, rot);
    return ACT_SPOT_CODE(kind, C_CELLS(s)[ci].pattern, group_position(s, ci), rot);
}

int cas__carc_placement_of(const struct cas_state *s, cas_action a, int *kind, int *x,
                           int *y, int *rot)
{
    const struct cas_game *g = s->game;
    *rot = ACT_PLACE_ROT(a);
    if (!(a & ACT_SPOT_FLAG)) {
        *kind = ACT_PLACE_KIND(a);
        *x = ACT_PLACE_X(a);
        *y = ACT_PLACE_Y(a);
        return *kind < g->nkinds && g->kinds[*kind].ncells != 1 &&
                       a == ACT_PLACE_CODE(*kind, *x, *y, *rot)
                   ? CAS_OK
                   : CAS_EINVAL;
    }
    int p = ACT_SPOT_PATTERN(a), pos = ACT_SPOT_POS(a);
    *kind = ACT_SPOT_KIND(a);
    if (*kind >= g->nkinds || g->kinds[*kind].ncells != 1 ||
        a != ACT_SPOT_CODE(*kind, p, pos, *rot))
        return CAS_EINVAL;
    int ci = group_member(s, p, pos);
    if (ci < 0)
        return CAS_EINVAL;
    *x = C_CELLS(s)[ci].x;
    *y = C_CELLS(s)[ci].y;
    return CAS_OK;
}

int cas__carc_placement_legal_at(const struct cas_state *s, cas_action a, int kind, int *x,
                                 int *y, int *rot)
{
    int k;
    if (cas__carc_placement_of(s, a, &k, x, y, rot) != CAS_OK || k != kind)
        return 0;
    if (!(a & ACT_SPOT_FLAG))
        return cas__carc_fits(s, kind, *x, *y, *rot);
    return (s->game->kinds[kind].fitmask[ACT_SPOT_PATTERN(a)] >> *rot & 1u) &&
           !(s->game->kinds[kind].vetoed && cas__carc_hook_veto_place(s, kind, *x, *y, *rot));
}

int cas__carc_placement_legal(const struct cas_state *s, cas_action a, int kind)
{
    int x, y, rot;
    return cas__carc_placement_legal_at(s, a, kind, &x, &y, &rot);
}

/* A placement found with cell `sub` of rotation r on an open spot whose
 * edges it fits, anchored at x,y: do the tile's other cells fit too (empty,
 * edges)?  Each placement is taken only from the first of its cells that
 * is an open spot, so none comes twice. */
static int other_cells_fit(const struct cas_state *s, const struct carc_kind *k,
                           const struct carc_rot *r, int x, int y, int sub)
{
    const struct carc_cell *cells = C_CELLS(s);
    for (int c = 0; c < k->ncells; c++) {
        int ci = c == sub ? -1 : cas__carc_cell_find(s, x + r->dx[c], y + r->dy[c]);
        if (ci < 0)
            continue;
        const struct carc_cell *o = &cells[ci];
        int p = o->pattern;
        if (o->tile != CARC_NONE || (c < sub && o->open) ||
            ((r->sig[c] ^ s->game->pattern_req[p]) & s->game->pattern_care[p] & r->care[c]) != 0)
            return 0;
    }
    return 1;
}

/* Any tile shape: try every cell of the tile on every open spot.  With
 * first_only, stop at the first fit (n becomes 1).  The vetoes are
 * gathered once for the whole scan. */
static void scan_placements(const struct cas_state *s, int kind, cas_action *buf,
                            size_t cap, size_t *n, int first_only)
{
    const struct carc_kind *k = &s->game->kinds[kind];
    struct carc_veto veto;
    int vetoes = k->vetoed && cas__carc_veto_begin(s, kind, &veto);
    const struct carc_cell *cells = C_CELLS(s);
    const uint16_t *front = C_FRONT(s);
    for (int i = 0; i < s->nfront; i++) {
        const struct carc_cell *c = &cells[front[i]];
        if (vetoes && cas__carc_veto_covers(&veto, c->x, c->y))
            continue; /* a forbidden space: every placement on it is vetoed */
        /* the rotations and cells whose edges fit this spot: no lookups for
         * the others */
        for (unsigned fits = k->fitmask[c->pattern]; fits; fits &= fits - 1) {
            int bit = __builtin_ctz(fits), rot = bit / CARC_MAX_CELLS,
                sub = bit % CARC_MAX_CELLS;
            const struct carc_rot *r = &k->rot[rot];
            int x = c->x - r->dx[sub], y = c->y - r->dy[sub];
            if (!other_cells_fit(s, k, r, x, y, sub) ||
                (vetoes && cas__carc_veto_hits(s, &veto, kind, x, y, rot)))
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
