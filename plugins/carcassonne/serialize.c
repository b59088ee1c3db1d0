/*
 * serialize.c — the state as bytes (encoding 1, little-endian) and its hash.
 *
 * The bytes hold the logical state, not the memory layout: turn counters,
 * scores, supplies, the bag, every placement in order with which of its
 * features are already scored, the figures by (placement, feature), and each
 * expansion's block verbatim.  Deserializing replays the placements, which
 * rebuilds the union-find exactly, and validates everything on the way.
 * The hash mixes the same bytes eight at a time, so equal states hash equal.
 */
#include "carc.h"

#define MAGIC 0x43524143u /* "CARC" */

/* Writes what fits into buf[0..cap) and counts everything in len. */
struct writer {
    uint8_t *buf;
    size_t cap, len;
};

static void put_bytes(struct writer *w, const void *data, size_t n)
{
    if (w->len + n <= w->cap)
        memcpy(w->buf + w->len, data, n);
    w->len += n;
}

static void put_uint(struct writer *w, uint64_t v, int bytes)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* all eight bytes at once where there is room: the ones past `bytes`
     * are written over next (the hash serializes every move) */
    if (w->len + 8 <= w->cap) {
        memcpy(w->buf + w->len, &v, 8);
        w->len += (size_t)bytes;
        return;
    }
#endif
    if (w->len + (size_t)bytes <= w->cap)
        for (int i = 0; i < bytes; i++)
            w->buf[w->len + (size_t)i] = (uint8_t)(v >> (8 * i));
    w->len += (size_t)bytes;
}

static void write_state(const struct cas_state *s, struct writer *w)
{
    const struct cas_game *g = s->game;
    put_uint(w, MAGIC, 4);
    put_uint(w, CARC_ENCODING, 4);
    put_uint(w, (uint64_t)g->nplayers, 1);
    put_uint(w, (uint64_t)g->nkinds, 2);
    put_uint(w, (uint64_t)g->nfig, 1);
    put_uint(w, (uint64_t)g->nexp, 1);
    uint8_t turn[] = {s->stage, s->resume, s->player, s->xphase, (uint8_t)s->xactor,
                      s->extra_turn, s->in_extra_turn};
    put_bytes(w, turn, sizeof turn);
    put_uint(w, s->drawn, 2);
    put_uint(w, (uint16_t)s->placed, 2);
    put_uint(w, s->discarded, 2);
    for (int p = 0; p < g->nplayers; p++)
        put_uint(w, (uint64_t)s->score[p], 8);
    for (int p = 0; p < g->nplayers; p++)
        put_bytes(w, s->supply[p], (size_t)g->nfig);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    put_bytes(w, C_BAG(s), (size_t)g->nkinds * sizeof *C_BAG(s)); /* the counts as they lie */
#else
    for (int k = 0; k < g->nkinds; k++)
        put_uint(w, C_BAG(s)[k], 2);
#endif
    put_uint(w, s->ntiles, 2);
    const struct carc_node *nodes = C_NODES(s);
    for (int t = 0; t < s->ntiles; t++) {
        const struct carc_tile *tile = &C_TILES(s)[t];
        const struct carc_node *first = nodes + tile->node_base;
        uint16_t scored = 0;
        for (int f = 0, nf = g->kinds[tile->kind].nf; f < nf; f++)
            scored |= (uint16_t)((nodes[first[f].root].flags & NODE_SCORED ? 1u : 0u) << f);
        /* kind, turn, owner and space in one word (the hash writes every
         * tile at every move) */
        put_uint(w, (uint64_t)tile->kind | (uint64_t)tile->rot << 16 |
                        (uint64_t)(uint8_t)tile->player << 24 | (uint64_t)(uint16_t)tile->x << 32 |
                        (uint64_t)(uint16_t)tile->y << 48, 8);
        put_uint(w, scored, 2);
    }
    put_uint(w, s->nfigs, 2);
    for (int i = 0; i < s->nfigs; i++) {
        const struct carc_fig *f = &C_FIGS(s)[i];
        const struct carc_node *n = &C_NODES(s)[f->node];
        put_uint(w, f->player, 1);
        put_uint(w, f->kind, 1);
        put_uint(w, n->tile, 2);
        put_uint(w, n->local, 1);
    }
    for (int e = 0; e < g->nexp; e++) {
        put_uint(w, g->exp[e].desc->state_size, 4);
        put_bytes(w, (const char *)s + g->exp[e].state_off, g->exp[e].desc->state_size);
    }
}

int cas__carc_serialize(const struct cas_state *s, uint8_t *buf, size_t cap, size_t *len)
{
    struct writer w = {.buf = buf, .cap = cap};
    write_state(s, &w);
    *len = w.len;
    return w.len > cap ? CAS_ENOSPC : CAS_OK;
}

static uint64_t mix_bytes(const uint8_t *p, size_t n)
{
    uint64_t h = 0x243F6A8885A308D3ull ^ n;
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t word = 0;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        memcpy(&word, p + i, 8); /* one load: the bytes' little-endian value */
#else
        for (int b = 0; b < 8; b++)
            word |= (uint64_t)p[i + (size_t)b] << (8 * b);
#endif
        h = (h ^ word) * 0x9E3779B97F4A7C15ull;
        h ^= h >> 32;
    }
    for (; i < n; i++)
        h = (h ^ p[i]) * 0x100000001B3ull;
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return h ^ (h >> 32);
}

/* Hash of the serialized bytes; a state too big for the stack buffer is
 * serialized into a block from the host (hash cannot fail, so without one
 * the first bytes stand for the state). */
uint64_t cas__carc_hash(const struct cas_state *s)
{
    uint8_t local[16384];
    struct writer w = {.buf = local, .cap = sizeof local};
    write_state(s, &w);
    if (w.len <= w.cap)
        return mix_bytes(local, w.len);
    const struct cas_host *host = s->game->host;
    uint8_t *big = host->alloc(host->ctx, w.len);
    if (!big)
        return mix_bytes(local, sizeof local);
    struct writer all = {.buf = big, .cap = w.len};
    write_state(s, &all);
    uint64_t h = mix_bytes(big, all.len);
    host->release(host->ctx, big);
    return h;
}

/* ---------------------------------------------------------------- reading */

struct reader {
    const uint8_t *buf;
    size_t len, at;
    int bad;
};

static uint64_t get_uint(struct reader *r, int bytes)
{
    if (r->at + (size_t)bytes > r->len) {
        r->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)r->buf[r->at++] << (8 * i);
    return v;
}

static int corrupt(const struct cas_game *g, const char *what)
{
    cas_host_errorf(g->host, "serialized carcassonne state: %s", what);
    return CAS_ECORRUPT;
}

static int read_header(const struct cas_game *g, struct reader *r, struct cas_state *s)
{
    if (get_uint(r, 4) != MAGIC)
        return corrupt(g, "not a carcassonne state (bad magic)");
    uint64_t enc = get_uint(r, 4);
    if (enc != CARC_ENCODING) {
        cas_host_errorf(g->host, "serialized carcassonne state: encoding %llu, this "
                        "plugin reads %u", (unsigned long long)enc, CARC_ENCODING);
        return CAS_EVERSION;
    }
    if (get_uint(r, 1) != (uint64_t)g->nplayers || get_uint(r, 2) != (uint64_t)g->nkinds ||
        get_uint(r, 1) != (uint64_t)g->nfig || get_uint(r, 1) != (uint64_t)g->nexp)
        return corrupt(g, "made by a game with other players, tiles or expansions");
    s->stage = (uint8_t)get_uint(r, 1);
    s->resume = (uint8_t)get_uint(r, 1);
    s->player = (uint8_t)get_uint(r, 1);
    s->xphase = (uint8_t)get_uint(r, 1);
    s->xactor = (int8_t)get_uint(r, 1);
    s->extra_turn = (uint8_t)get_uint(r, 1);
    s->in_extra_turn = (uint8_t)get_uint(r, 1);
    s->drawn = (uint16_t)get_uint(r, 2);
    s->placed = (int16_t)get_uint(r, 2);
    s->discarded = (uint16_t)get_uint(r, 2);
    int waiting = s->stage == ST_DRAW || s->stage == ST_PLACE || s->stage == ST_DEPLOY ||
                  s->stage == ST_XPHASE || s->stage == ST_END;
    int slot = s->resume == ST_SLOT_BEFORE_DRAW || s->resume == ST_SLOT_AFTER_PLACE ||
               s->resume == ST_SLOT_AFTER_DEPLOY || s->resume == ST_SLOT_AFTER_SCORING ||
               s->resume == ST_SLOT_TURN_END;
    if (!waiting || s->player >= g->nplayers || s->drawn >= g->nkinds ||
        (s->stage == ST_XPHASE && (s->xphase >= g->nphases || !slot || s->xactor < 0 ||
                                   s->xactor >= g->nplayers)))
        return corrupt(g, "turn counters out of range");
    for (int p = 0; p < g->nplayers; p++)
        s->score[p] = (int64_t)get_uint(r, 8);
    for (int p = 0; p < g->nplayers; p++)
        for (int f = 0; f < g->nfig; f++)
            s->supply[p][f] = (uint8_t)get_uint(r, 1);
    for (int k = 0; k < g->nkinds; k++) {
        S_BAG(s)[k] = (uint16_t)get_uint(r, 2);
        if (S_BAG(s)[k] > (g->kinds[k].hand ? 0 : g->kinds[k].count))
            return corrupt(g, "more tiles in the bag than the game has");
    }
    cas__carc_bag_index(s);
    return r->bad ? corrupt(g, "truncated") : CAS_OK;
}

static int read_tiles(const struct cas_game *g, struct reader *r, struct cas_state *s)
{
    int ntiles = (int)get_uint(r, 2);
    if (ntiles < 1 || ntiles > g->cap_tiles)
        return corrupt(g, "placement count out of range");
    int placed[CARC_MAX_KINDS] = {0};
    for (int t = 0; t < ntiles && !r->bad; t++) {
        int kind = (int)get_uint(r, 2), rot = (int)get_uint(r, 1);
        int player = (int8_t)get_uint(r, 1);
        int x = (int16_t)get_uint(r, 2), y = (int16_t)get_uint(r, 2);
        unsigned scored = (unsigned)get_uint(r, 2);
        if (kind >= g->nkinds || rot > 3 || player < -1 || player >= g->nplayers)
            return corrupt(g, "placement with an unknown tile, rotation or player");
        int start_ok = kind == g->start_kind && x == 0 && y == 0 && rot == 0 && player == -1;
        if (t == 0 ? !start_ok : !cas__carc_fits_edges(s, &g->kinds[kind], x, y, rot))
            return corrupt(g, "a placement does not fit the board");
        if (++placed[kind] > g->kinds[kind].count)
            return corrupt(g, "more copies of a tile than the game has");
        int idx = cas__carc_place(s, kind, x, y, rot, player);
        for (int f = 0; f < g->kinds[kind].nf; f++)
            if (scored & (1u << f))
                S_NODES(s)[carc_root(s, C_TILES(s)[idx].node_base + f)].flags |= NODE_SCORED;
    }
    int from_bag = 0, bag_total = 0;
    for (int k = 0; k < g->nkinds; k++)
        if (!g->kinds[k].hand) {
            from_bag += placed[k];
            bag_total += g->kinds[k].count;
        }
    if (s->placed >= s->ntiles || s->placed < -1 ||
        from_bag + s->bag_left + s->discarded + (s->stage == ST_PLACE) != bag_total)
        return corrupt(g, "tile counts do not add up");
    if ((s->stage == ST_DEPLOY && s->placed < 0) ||
        (s->stage == ST_PLACE && !cas__carc_fits_anywhere(s, s->drawn)))
        return corrupt(g, "the turn's tile is missing or fits nowhere");
    return r->bad ? corrupt(g, "truncated") : CAS_OK;
}

static int read_figures(const struct cas_game *g, struct reader *r, struct cas_state *s)
{
    int nfigs = (int)get_uint(r, 2);
    if (nfigs > g->cap_figs)
        return corrupt(g, "too many figures");
    int used[CARC_MAX_PLAYERS][CARC_MAX_FIGKINDS] = {{0}};
    for (int i = 0; i < nfigs && !r->bad; i++) {
        int player = (int)get_uint(r, 1), kind = (int)get_uint(r, 1);
        int tile = (int)get_uint(r, 2), local = (int)get_uint(r, 1);
        if (player >= g->nplayers || kind >= g->nfig || tile >= s->ntiles ||
            local >= g->kinds[C_TILES(s)[tile].kind].nf)
            return corrupt(g, "a figure on an unknown player, kind or feature");
        used[player][kind]++;
        cas__carc_stand_figure(s, player, kind, C_TILES(s)[tile].node_base + local);
    }
    for (int p = 0; p < g->nplayers; p++)
        for (int f = 0; f < g->nfig; f++)
            if (used[p][f] + s->supply[p][f] != g->fig[f].def.per_player)
                return corrupt(g, "figures on the board and in supply do not add up");
    return r->bad ? corrupt(g, "truncated") : CAS_OK;
}

static int read_expansions(const struct cas_game *g, struct reader *r, struct cas_state *s)
{
    for (int e = 0; e < g->nexp; e++) {
        size_t size = g->exp[e].desc->state_size;
        if (get_uint(r, 4) != size || r->at + size > r->len)
            return corrupt(g, "an expansion block has the wrong size");
        void *block = (char *)s + g->exp[e].state_off;
        memcpy(block, r->buf + r->at, size);
        r->at += size;
        if (g->exp[e].desc->state_check &&
            g->exp[e].desc->state_check(g->exp[e].xctx, CARC_COF(s), block) != CAS_OK)
            return corrupt(g, "an expansion rejected its block");
    }
    return r->at == r->len ? CAS_OK : corrupt(g, "trailing bytes");
}

int cas__carc_deserialize(const struct cas_game *g, const uint8_t *buf, size_t len,
                          struct cas_state **out)
{
    struct cas_state *s;
    *out = NULL;
    int rc = cas__carc_state_alloc(g, &s);
    if (rc != CAS_OK)
        return rc;
    struct reader r = {.buf = buf, .len = len};
    rc = read_header(g, &r, s);
    if (rc == CAS_OK)
        rc = read_tiles(g, &r, s);
    if (rc == CAS_OK)
        rc = read_figures(g, &r, s);
    if (rc == CAS_OK)
        rc = read_expansions(g, &r, s);
    if (rc != CAS_OK) {
        g->host->release(g->host->ctx, s);
        return rc;
    }
    *out = s;
    return CAS_OK;
}
