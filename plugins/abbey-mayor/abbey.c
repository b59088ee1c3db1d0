/*
 * abbey.c — the abbey: instead of drawing, the active player holding an
 * abbey may place it (`abbey X,Y`) into a hole, an empty space whose four
 * orthogonal neighbours are all tiles, or keep it and draw (`abbey keep`).
 * The tile (edges `*`, a monastery) goes down through api->place_tile, so
 * the turn goes on with the figure decision and the scoring of what its
 * edges close.  With the option final-abbey-round, once the bag is empty
 * every seat gets one more turn, in order, to place a held abbey
 * (bag_empty); without it the game ends with the bag.
 */
#include "abbey_mayor.h"

#include <stdio.h>
#include <string.h>

#define ABBEY_KEEP 0
#define ABBEY_SPOTS_MAX 4096
#define ABBEY_PAYLOAD(x, y)                                                    \
    (1 + (((uint64_t)(uint16_t)((x) + 0x8000) << 16) | (uint16_t)((y) + 0x8000)))
#define ABBEY_X(p) ((int)((((p)-1) >> 16) & 0xFFFF) - 0x8000)
#define ABBEY_Y(p) ((int)(((p)-1) & 0xFFFF) - 0x8000)

static const int side_dx[4] = {0, 1, 0, -1}, side_dy[4] = {-1, 0, 1, 0};

/* Has the empty space x,y a tile on each of its four sides? */
static int hole_around(const struct cas_carc_api *api, const cas_carc *c, int x, int y)
{
    for (int b = 0; b < 4; b++)
        if (api->tile_at(c, x + side_dx[b], y + side_dy[b]) < 0)
            return 0;
    return 1;
}

/* Payloads of the holes into payloads[*n...] (counting past cap); the
 * game lists them sorted by x then y, so the payloads are ascending. */
static int list_holes(const struct am_ctx *ctx, const cas_carc *c, uint64_t *payloads,
                      size_t cap, size_t *n, int first_only)
{
    const struct cas_carc_api *api = ctx->api;
    int xy[2 * ABBEY_SPOTS_MAX];
    size_t holes;
    int rc = api->enclosed_spots(c, xy, ABBEY_SPOTS_MAX, &holes);
    if (rc != CAS_OK)
        return rc;
    for (size_t i = 0; i < holes; i++) {
        if (!api->can_place(c, ctx->abbey, xy[2 * i], xy[2 * i + 1], 0))
            continue;
        if (*n < cap)
            payloads[*n] = ABBEY_PAYLOAD(xy[2 * i], xy[2 * i + 1]);
        (*n)++;
        if (first_only)
            break;
    }
    return CAS_OK;
}

int cas__am_abbey_held(const struct am_ctx *ctx, const struct am_state *st)
{
    int used = 0;
    for (unsigned left = st->abbey_used; left; left &= left - 1)
        used++; /* no popcount call: this runs at every placement */
    return used < ctx->abbeys;
}

int cas__am_abbey_actor(void *xctx, const cas_carc *c)
{
    const struct am_ctx *ctx = xctx;
    const struct cas_carc_api *api = ctx->api;
    const struct am_state *st = cas__am_block_const(xctx, c);
    int p = api->active_player(c);
    if (!cas__am_abbey_held(ctx, st))
        return ctx->retire; /* the game's abbeys (`tiles`) are all placed */
    if (st->abbey_used >> p & 1)
        return CAS_CARC_PHASE_SKIP;
    if (api->bag_left(c) == 0 && (!ctx->final_abbey_round || st->final_seen >> p & 1))
        return CAS_CARC_PHASE_SKIP;
    size_t holes = 0;
    if (st->holes == 0 || list_holes(ctx, c, NULL, 0, &holes, 1) != CAS_OK || holes == 0)
        return CAS_CARC_PHASE_SKIP;
    return p;
}

int cas__am_abbey_legal(void *xctx, const cas_carc *c, uint64_t *payloads, size_t cap,
                        size_t *count)
{
    size_t n = 0;
    if (cap > 0)
        payloads[0] = ABBEY_KEEP;
    n++;
    int rc = list_holes(xctx, c, payloads, cap, &n, 0);
    if (rc != CAS_OK)
        return rc;
    *count = n;
    return n > cap ? CAS_ENOSPC : CAS_OK;
}

/* Without listing: keep, or a hole the abbey can go into (what
 * list_holes would list). */
int cas__am_abbey_is_legal(void *xctx, const cas_carc *c, uint64_t payload)
{
    const struct am_ctx *ctx = xctx;
    if (payload == ABBEY_KEEP)
        return 1;
    int x = ABBEY_X(payload), y = ABBEY_Y(payload);
    return payload == ABBEY_PAYLOAD(x, y) && hole_around(ctx->api, c, x, y) &&
           ctx->api->can_place(c, ctx->abbey, x, y, 0);
}

int cas__am_abbey_apply(void *xctx, cas_carc *c, uint64_t payload)
{
    const struct am_ctx *ctx = xctx;
    const struct cas_carc_api *api = ctx->api;
    if (payload == ABBEY_KEEP)
        return CAS_CARC_PHASE_DONE;
    int rc = api->place_tile(c, ctx->abbey, ABBEY_X(payload), ABBEY_Y(payload), 0);
    if (rc != CAS_OK)
        return rc;
    struct am_state *st = cas__am_block(xctx, c);
    int p = api->active_player(c);
    st->abbey_used |= (uint8_t)(1u << p);
    if (api->bag_left(c) == 0)
        st->final_seen |= (uint8_t)(1u << p);
    return CAS_CARC_PHASE_DONE;
}

int cas__am_abbey_text(void *xctx, const cas_carc *c, uint64_t payload, char *buf,
                       size_t cap)
{
    (void)xctx;
    (void)c;
    if (payload == ABBEY_KEEP)
        return cas__am_text_result(snprintf(buf, cap, "abbey keep"), cap);
    return cas__am_text_result(
        snprintf(buf, cap, "abbey %d,%d", ABBEY_X(payload), ABBEY_Y(payload)), cap);
}

int cas__am_abbey_parse(void *xctx, const cas_carc *c, const char *text, uint64_t *payload)
{
    (void)xctx;
    (void)c;
    int x, y, used = 0;
    if (strcmp(text, "abbey keep") == 0 || strcmp(text, "pass") == 0) { /* lenient */
        *payload = ABBEY_KEEP;
        return CAS_OK;
    }
    if (sscanf(text, "abbey %d,%d%n", &x, &y, &used) != 2 || text[used] ||
        x < -30000 || x > 30000 || y < -30000 || y > 30000)
        return CAS_EPARSE;
    *payload = ABBEY_PAYLOAD(x, y);
    return CAS_OK;
}


int cas__am_count_holes(const struct am_ctx *ctx, const cas_carc *c)
{
    int xy[2 * ABBEY_SPOTS_MAX];
    size_t spots;
    int holes = 0;
    if (ctx->api->open_spots(c, xy, ABBEY_SPOTS_MAX, &spots) != CAS_OK)
        return -1;
    for (size_t i = 0; i < spots; i++)
        holes += hole_around(ctx->api, c, xy[2 * i], xy[2 * i + 1]);
    return holes;
}

/* CALL-ALL: the count of holes follows the game's while a seat may still
 * place an abbey (it is part of the state, so it keeps its value after). */
void cas__am_tile_placed(void *xctx, cas_carc *c, int player, int tile)
{
    (void)player;
    (void)tile;
    const struct am_ctx *ctx = xctx;
    const struct cas_carc_api *api = ctx->api;
    struct am_state *st = cas__am_block(xctx, c);
    size_t holes;
    if (!cas__am_abbey_held(ctx, st))
        return; /* nobody can place an abbey any more: holes no longer matter */
    int rc = api->enclosed_spots(c, NULL, 0, &holes);
    if (rc == CAS_OK || rc == CAS_ENOSPC)
        st->holes = (uint16_t)holes;
}

/* ANY: with the final abbey round on, each seat has one turn once the bag
 * is empty, starting with the seat whose turn first finds it empty (the
 * one after whoever placed the last tile) and ending with that placer. */
int cas__am_bag_empty(void *xctx, cas_carc *c, int player)
{
    const struct am_ctx *ctx = xctx;
    if (!ctx->final_abbey_round)
        return 0;
    const struct cas_carc_api *api = ctx->api;
    struct am_state *st = cas__am_block(xctx, c);
    st->final_seen |= (uint8_t)(1u << player);
    int next = (player + 1) % api->nplayers(api->game(c));
    return !(st->final_seen >> next & 1);
}
