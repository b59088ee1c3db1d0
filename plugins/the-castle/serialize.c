/*
 * serialize.c — the state as bytes (little-endian, encoding CASTLE_ENCODING)
 * and back, and the state hash (a multiply-xorshift of the bytes).
 *
 * The bytes hold the placements in order rather than the feature nodes:
 * the reader replays them through place_tile, checking each one fits, so
 * the union-find is rebuilt exactly and never trusted from outside.  Then
 * it checks every count: tiles (bag + board + set aside + in hand = the
 * tile file's copies), followers (supply + board = 6 each), wall tiles
 * (pool + held = the board file's copies), and every reference.
 */
#include <string.h>

#include "castle.h"

struct writer {
    uint8_t *buf;
    size_t cap, len;
};

static void put(struct writer *w, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++, w->len++)
        if (w->len < w->cap)
            w->buf[w->len] = (uint8_t)(v >> (8 * i));
}

static void put_state(struct writer *w, const cas_state *s)
{
    const cas_game *g = s->game;
    put(w, CASTLE_ENCODING, 4);
    put(w, (uint64_t)g->tiles.nkinds, 1);
    put(w, (uint64_t)g->board.nstarts, 1);
    put(w, (uint64_t)g->board.ntowers, 1);
    put(w, s->phase, 1);
    put(w, s->turn, 1);
    put(w, s->drawn, 1);
    put(w, s->last, 1);
    put(w, (uint8_t)s->reveal_player, 1);
    put(w, s->set_aside, 1);
    put(w, s->turns, 2);
    for (int p = 0; p < NPLAYERS; p++) {
        const struct player_state *ps = &s->p[p];
        put(w, (uint32_t)ps->score, 4);
        put(w, ps->supply, 1);
        put(w, ps->keep_size, 1);
        put(w, ps->keep_at, 1);
        for (int k = 1; k <= WALL_KINDS; k++) {
            put(w, ps->held[k], 1);
            put(w, ps->fresh[k], 1);
        }
    }
    for (int k = 1; k <= WALL_KINDS; k++)
        put(w, s->pool[k], 1);
    for (int t = 0; t < g->board.ntowers; t++)
        put(w, s->tower_holds[t], 1);
    for (int k = 0; k < g->tiles.nkinds; k++)
        put(w, s->bag[k], 1);
    put(w, s->nplaced, 1);
    for (int i = g->board.nstarts; i < s->nplaced; i++) {
        put(w, s->placed[i].cell, 2);
        put(w, s->placed[i].kind, 1);
        put(w, s->placed[i].rot, 1);
    }
    put(w, s->nfigs, 1);
    for (int i = 0; i < s->nfigs; i++) {
        const struct node *n = &s->nodes[s->figs[i].node];
        put(w, n->placed, 1);
        put(w, n->local, 1);
        put(w, s->figs[i].player, 1);
    }
    put(w, s->npending, 1);
    for (int i = 0; i < s->npending; i++) {
        const struct node *n = &s->nodes[s->pending[i]];
        put(w, n->placed, 1);
        put(w, n->local, 1);
    }
}

int state_serialize(const cas_state *s, uint8_t *buf, size_t cap, size_t *len)
{
    struct writer w = {.buf = buf, .cap = cap};
    put_state(&w, s);
    *len = w.len;
    return w.len > cap ? CAS_ENOSPC : CAS_OK;
}

uint64_t state_hash(const cas_state *s)
{
    uint8_t buf[2048];
    struct writer w = {.buf = buf, .cap = sizeof buf};
    put_state(&w, s);
    size_t len = w.len < sizeof buf ? w.len : sizeof buf;
    uint64_t h = 0xcbf29ce484222325ull ^ w.len;
    for (size_t at = 0; at < len; at += 8) {
        uint64_t word = 0;
        for (size_t i = 0; i < 8 && at + i < len; i++)
            word |= (uint64_t)buf[at + i] << (8 * i);
        h = (h ^ word) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    return h;
}

/* ------------------------------------------------------------ reading */

struct reader {
    const uint8_t *buf;
    size_t len, at;
    bool bad;
    size_t bad_at;
};

static void mark_bad(struct reader *r, size_t at)
{
    if (!r->bad)
        r->bad_at = at;
    r->bad = true;
}

static uint64_t get(struct reader *r, int bytes)
{
    if (r->bad || r->at + (size_t)bytes > r->len) {
        mark_bad(r, r->at);
        return 0;
    }
    uint64_t v = 0;
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)r->buf[r->at++] << (8 * i);
    return v;
}

/* A value within [0, max] (or NONE8 when none_ok); else bad and 0. */
static unsigned get_max(struct reader *r, int bytes, unsigned max, bool none_ok)
{
    uint64_t v = get(r, bytes);
    if (v > max && !(none_ok && v == NONE8)) {
        mark_bad(r, r->at - (size_t)bytes);
        return 0;
    }
    return (unsigned)v;
}

static void get_players(struct reader *r, cas_state *s)
{
    for (int p = 0; p < NPLAYERS; p++) {
        struct player_state *ps = &s->p[p];
        ps->score = (int32_t)get_max(r, 4, 1000000, false);
        ps->supply = (uint8_t)get_max(r, 1, FOLLOWERS, false);
        ps->keep_size = (uint8_t)get_max(r, 1, MAX_PLACED, false);
        ps->keep_at = (uint8_t)get_max(r, 1, MAX_PLACED - 1, true);
        for (int k = 1; k <= WALL_KINDS; k++) {
            ps->held[k] = (uint8_t)get_max(r, 1, s->game->board.wall_copies[k], false);
            ps->fresh[k] = (uint8_t)get_max(r, 1, ps->held[k], false);
        }
    }
}

/* Node of placement `placed`, local feature `local`, or NONE16. */
static unsigned get_node(struct reader *r, const cas_state *s)
{
    unsigned placed = get_max(r, 1, s->nplaced ? s->nplaced - 1u : 0u, false);
    unsigned local = (unsigned)get(r, 1);
    if (r->bad || local >= s->game->tiles.kind[s->placed[placed].kind].nf) {
        mark_bad(r, r->at - 1);
        return NONE16;
    }
    return s->placed[placed].node_base + local;
}

static void get_placements(struct reader *r, cas_state *s)
{
    const cas_game *g = s->game;
    unsigned n = get_max(r, 1, MAX_PLACED, false);
    if (n < (unsigned)g->board.nstarts || n - (unsigned)g->board.nstarts > (unsigned)g->tiles.total)
        mark_bad(r, r->at - 1);
    for (unsigned i = (unsigned)g->board.nstarts; i < n && !r->bad; i++) {
        size_t at = r->at;
        unsigned cell = get_max(r, 2, MAX_GRID - 1, false);
        unsigned kind = get_max(r, 1, (unsigned)g->tiles.nkinds - 1, false);
        unsigned rot = get_max(r, 1, 3, false);
        if (r->bad || (int)cell >= g->board.w * g->board.h || g->tiles.kind[kind].start ||
            !placement_fits(s, (int)cell, (int)kind, (int)rot)) {
            mark_bad(r, at);
            return;
        }
        place_tile(s, (int)cell, (int)kind, (int)rot, NULL, NULL);
    }
}

static void get_figures(struct reader *r, cas_state *s)
{
    int on_board[NPLAYERS] = {0, 0};
    s->nfigs = (uint8_t)get_max(r, 1, MAX_FIGS, false);
    for (int i = 0; i < s->nfigs && !r->bad; i++) {
        unsigned node = get_node(r, s);
        unsigned p = get_max(r, 1, NPLAYERS - 1, false);
        if (r->bad)
            return;
        struct node *root = &s->nodes[root_of(s, node)];
        /* at most one colour's followers share a feature only by joining,
         * and one tile holds at most one follower */
        for (int j = 0; j < i; j++)
            if (s->nodes[s->figs[j].node].placed == s->nodes[node].placed)
                mark_bad(r, r->at - 3);
        s->figs[i] = (struct figure){.node = (uint16_t)node, .player = (uint8_t)p};
        root->figs[p]++;
        on_board[p]++;
    }
    for (int p = 0; p < NPLAYERS; p++)
        if (on_board[p] + s->p[p].supply != FOLLOWERS)
            mark_bad(r, r->at);
}

static void get_pending(struct reader *r, cas_state *s)
{
    s->npending = (uint8_t)get_max(r, 1, MAX_PENDING, false);
    for (int i = 0; i < s->npending && !r->bad; i++) {
        unsigned node = get_node(r, s);
        if (!r->bad && !feature_complete(s, root_of(s, node)))
            mark_bad(r, r->at - 2);
        s->pending[i] = r->bad ? 0 : root_of(s, node);
    }
}

/* Cross-field checks of a state read back. */
static bool consistent(const cas_state *s)
{
    const cas_game *g = s->game;
    int tiles[MAX_KINDS] = {0};
    for (int i = g->board.nstarts; i < s->nplaced; i++)
        tiles[s->placed[i].kind]++;
    if (s->drawn != NONE8)
        tiles[s->drawn]++;
    int nbag = 0, lost = s->set_aside;
    for (int k = 0; k < g->tiles.nkinds; k++) {
        if (tiles[k] + s->bag[k] > g->tiles.kind[k].count)
            return false;
        lost -= g->tiles.kind[k].count - tiles[k] - s->bag[k];
        nbag += s->bag[k];
    }
    if (lost != 0 || nbag != s->nbag)
        return false;
    for (int w = 1; w <= WALL_KINDS; w++)
        if (s->pool[w] + s->p[0].held[w] + s->p[1].held[w] > g->board.wall_copies[w])
            return false;
    bool needs_drawn = s->phase == PH_PLACE;
    bool needs_last = s->phase == PH_FOLLOW || s->phase == PH_SCORE || s->phase == PH_REVEAL;
    if ((s->drawn != NONE8) != needs_drawn || (s->last != NONE8 && s->last >= s->nplaced) ||
        (needs_last && s->last == NONE8) || (s->reveal_player >= 0) != (s->phase == PH_REVEAL))
        return false;
    for (int p = 0; p < NPLAYERS; p++)
        if ((s->p[p].keep_size == 0) != (s->p[p].keep_at == NONE8) ||
            (s->p[p].keep_at != NONE8 && s->p[p].keep_at >= s->nplaced))
            return false;
    return s->phase != PH_PLACE || s->game->tiles.kind[s->drawn].count;
}

int state_deserialize(const cas_game *game, const uint8_t *buf, size_t len, cas_state *s)
{
    struct reader r = {.buf = buf, .len = len};
    const struct cas_host *host = game->host;
    if (get(&r, 4) != CASTLE_ENCODING) {
        cas_host_errorf(host, "the-castle state: unknown encoding (this build reads %u)",
                        CASTLE_ENCODING);
        return CAS_EVERSION;
    }
    state_reset(s, game);
    if (get(&r, 1) != (uint64_t)game->tiles.nkinds || get(&r, 1) != (uint64_t)game->board.nstarts ||
        get(&r, 1) != (uint64_t)game->board.ntowers)
        mark_bad(&r, 4);
    s->phase = (uint8_t)get_max(&r, 1, N_PHASES - 1, false);
    s->turn = (uint8_t)get_max(&r, 1, NPLAYERS - 1, false);
    s->drawn = (uint8_t)get_max(&r, 1, (unsigned)game->tiles.nkinds - 1, true);
    s->last = (uint8_t)get_max(&r, 1, MAX_PLACED - 1, true);
    unsigned reveal = get_max(&r, 1, NPLAYERS - 1, true);
    s->reveal_player = reveal == NONE8 ? -1 : (int8_t)reveal;
    s->set_aside = (uint8_t)get_max(&r, 1, (unsigned)game->tiles.total, false);
    s->turns = (uint16_t)get(&r, 2);
    get_players(&r, s);
    for (int k = 1; k <= WALL_KINDS; k++)
        s->pool[k] = (uint8_t)get_max(&r, 1, game->board.wall_copies[k], false);
    for (int t = 0; t < game->board.ntowers; t++)
        s->tower_holds[t] = (uint8_t)get_max(&r, 1, game->board.tower[t].holds, false);
    s->nbag = 0;
    for (int k = 0; k < game->tiles.nkinds; k++) {
        s->bag[k] = (uint8_t)get_max(&r, 1, game->tiles.kind[k].count, false);
        s->nbag = (uint8_t)(s->nbag + s->bag[k]);
    }
    get_placements(&r, s);
    get_figures(&r, s);
    get_pending(&r, s);
    if (r.bad || r.at != len || !consistent(s)) {
        cas_host_errorf(host, "the-castle state: damaged or inconsistent bytes (at offset %zu "
                        "of %zu)", r.bad ? r.bad_at : r.at, len);
        return CAS_ECORRUPT;
    }
    return CAS_OK;
}
