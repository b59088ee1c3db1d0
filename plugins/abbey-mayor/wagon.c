/*
 * wagon.c — wagons move on after their feature scores.  feature_scored
 * remembers every wagon on a feature scored during the game, with the part
 * it stood on; the phase `wagon` after scoring then asks each owner in turn,
 * clockwise from the active player (the host asks that player, in anybody's
 * turn): `wagon X,Y FEATURE` moves it onto an unoccupied, incomplete road,
 * city or cloister part, `wagon home` leaves it in the supply.  An owner with
 * nowhere to go is not asked.  Reach (option wagon-move): C2, the rulebook's,
 * any part on the wagon's tile or the 8 around it (10 around a 2x1 castle,
 * each tile counted once); C1 (first edition), only
 * features directly connected to the scored one: on a tile of the scored
 * feature, joined to it as the FAQ reads "connected" (roads that lead to
 * a crossing, a road heading into a city or cloister), tile by tile as the
 * tile sets' `wagon-links` say (api part_links; the option c1-reach picks
 * their reading), and across a tile's side a road heading into an abbey
 * (docs/rules/abbey-mayor.md 15).
 */
#include "abbey_mayor.h"

#include <stdio.h>
#include <string.h>

#define WAGON_HOME 0
#define WAGON_PARTS_MAX 64 /* parts on one tile, at the most */
#define WAGON_DESTINATIONS_MAX 1024
#define WAGON_NEAR_MAX 12  /* tiles on a 2x1 tile's spaces and around them */

/* CALL-ALL: wagons on a feature scored during the game wait for a move. */
void cas__am_feature_scored(void *xctx, cas_carc *c, int player, cas_carc_feature f,
                            enum cas_carc_when when, const int64_t *points)
{
    (void)player;
    (void)points;
    const struct am_ctx *ctx = xctx;
    const struct cas_carc_api *api = ctx->api;
    if (when != CAS_CARC_DURING)
        return;
    struct cas_carc_figure on[AM_FIGURES_ON_MAX];
    size_t n;
    if (api->figures_on(c, f, on, AM_FIGURES_ON_MAX, &n) != CAS_OK)
        return;
    struct am_state *st = cas__am_block(xctx, c);
    for (size_t i = 0; i < n; i++) {
        if (on[i].kind != ctx->wagon || on[i].player >= AM_MAX_PLAYERS)
            continue;
        int k = 0; /* the owner's first free slot: one per wagon */
        while (k < ctx->wagons && st->wagons[cas__am_slot(ctx, on[i].player, k)].waiting)
            k++;
        if (k == ctx->wagons)
            continue;
        struct am_wagon *w = &st->wagons[cas__am_slot(ctx, on[i].player, k)];
        *w = (struct am_wagon){.player = (uint8_t)on[i].player, .waiting = 1,
                               .part = (uint16_t)api->figure_part(c, on[i].id)};
        st->wagons_waiting++;
    }
}

void cas__am_turn_end(void *xctx, cas_carc *c, int player)
{
    (void)player;
    struct am_state *st = cas__am_block(xctx, c);
    memset(st->wagons, 0, sizeof st->wagons);
    st->wagons_waiting = 0;
}

/* The classes a wagon stands on: never a field. */
#define WAGON_CLASSES                                                                     \
    (CAS_CARC_CLASS_BIT(CAS_CARC_ROAD) | CAS_CARC_CLASS_BIT(CAS_CARC_CITY) |               \
     CAS_CARC_CLASS_BIT(CAS_CARC_CLOISTER))

/* May a wagon move onto part p, of a class it stands on: is its feature
 * neither complete nor occupied?  The cheap test first. */
static int open_destination(const struct cas_carc_api *api, const cas_carc *c,
                            cas_carc_feature p)
{
    struct cas_carc_figure on[1];
    size_t n;
    return api->figures_on(c, p, on, 1, &n) == CAS_OK && n == 0 &&
           !api->feature_complete(c, p);
}

/* C1: is part p, on a tile whose parts are numbered from `first`, linked
 * by its tile kind (`wagon-links` in the tile sets, in the reading the
 * option c1-reach picks) to a part of the scored feature?  (A field is
 * never part of the scored feature.) */
static int connected_on_tile(const struct am_ctx *ctx, const cas_carc *c,
                             cas_carc_feature first, cas_carc_feature p,
                             cas_carc_feature scored)
{
    const struct cas_carc_api *api = ctx->api;
    for (unsigned links = api->part_links(c, p, ctx->c1_reading); links; links &= links - 1)
        if (api->same_feature(c, first + __builtin_ctz(links), scored))
            return 1;
    return 0;
}

/* The monastery of the abbey that road part r heads into across one of the
 * sides it touches, or NO_FEATURE.  (An abbey's edges take any feature: a
 * road that reaches one ends there, "into" its cloister.) */
static cas_carc_feature abbey_ahead(const struct am_ctx *ctx, const cas_carc *c,
                                    cas_carc_feature r)
{
    static const int dx[4] = {0, 1, 0, -1}, dy[4] = {-1, 0, 1, 0};
    const struct cas_carc_api *api = ctx->api;
    struct cas_carc_tile_info at = {.struct_size = sizeof at}, next = at;
    unsigned sides = api->feature_class(c, r) == CAS_CARC_ROAD ? api->part_edges(c, r) & 15 : 0;
    if (!sides || api->tile_info(c, api->part_tile(c, r), &at) != CAS_OK)
        return CAS_CARC_NO_FEATURE;
    for (int s = 0; s < 4; s++) {
        int t = sides >> s & 1 ? api->tile_at(c, at.x + dx[s], at.y + dy[s]) : -1;
        cas_carc_feature first;
        if (t >= 0 && api->tile_info(c, t, &next) == CAS_OK && next.kind == ctx->abbey &&
            api->tile_parts_of(c, t, CAS_CARC_CLASS_BIT(CAS_CARC_CLOISTER), &first))
            return first;
    }
    return CAS_CARC_NO_FEATURE;
}

/* C1 across a tile's side (the FAQ: a road heading into a cloister is
 * connected to it): road part p heads into the abbey whose monastery is of
 * the scored feature, or p is an abbey's monastery that a road of the
 * scored feature heads into. */
static int connected_by_abbey(const struct am_ctx *ctx, const cas_carc *c,
                              cas_carc_feature p, cas_carc_feature scored)
{
    static const int dx[4] = {0, 1, 0, -1}, dy[4] = {-1, 0, 1, 0};
    const struct cas_carc_api *api = ctx->api;
    cas_carc_feature abbey = abbey_ahead(ctx, c, p);
    if (abbey != CAS_CARC_NO_FEATURE)
        return api->same_feature(c, abbey, scored);
    struct cas_carc_tile_info at = {.struct_size = sizeof at};
    if (api->feature_class(c, p) != CAS_CARC_CLOISTER ||
        api->tile_info(c, api->part_tile(c, p), &at) != CAS_OK || at.kind != ctx->abbey)
        return 0;
    for (int s = 0; s < 4; s++) {
        int t = api->tile_at(c, at.x + dx[s], at.y + dy[s]);
        cas_carc_feature first;
        unsigned roads = t < 0 ? 0 : api->tile_parts_of(c, t, CAS_CARC_CLASS_BIT(CAS_CARC_ROAD),
                                                          &first);
        for (; roads; roads &= roads - 1) {
            cas_carc_feature q = first + __builtin_ctz(roads);
            if (api->same_feature(c, q, scored) && abbey_ahead(ctx, c, q) == p)
                return 1;
        }
    }
    return 0;
}

/* Wagon w's destinations on placement `tile` into found[*n...] (at most
 * cap), ascending: open parts no deploy veto forbids it (the stubs of
 * IC-5); with C1, only those connected to the scored feature its part
 * w->part is of. */
static void tile_destinations(const struct am_ctx *ctx, const cas_carc *c, int tile,
                              const struct am_wagon *w, cas_carc_feature *found, size_t cap,
                              size_t *n)
{
    const struct cas_carc_api *api = ctx->api;
    cas_carc_feature first;
    unsigned parts = tile < 0 ? 0 : api->tile_parts_of(c, tile, WAGON_CLASSES, &first);
    for (unsigned left = parts; left && *n < cap; left &= left - 1) {
        cas_carc_feature p = first + __builtin_ctz(left);
        if (open_destination(api, c, p) &&
            (ctx->reach == AM_REACH_C2 ||
             connected_on_tile(ctx, c, first, p, w->part) ||
             connected_by_abbey(ctx, c, p, w->part)) &&
            !api->deploy_vetoed(c, w->player, ctx->wagon, p))
            found[(*n)++] = p;
    }
}

/* The distinct tiles on tile `tile`'s spaces and the spaces around them
 * (the 8 around a tile of one space, the 10 around a 2x1 castle), into
 * near[]; how many.  A 2x1 tile is found by its second space holding it. */
static size_t tiles_around(const struct cas_carc_api *api, const cas_carc *c, int tile,
                           int *near)
{
    static const int cell1_dx[4] = {1, 0, -1, 0}, cell1_dy[4] = {0, 1, 0, -1};
    struct cas_carc_tile_info at = {.struct_size = sizeof at};
    if (api->tile_info(c, tile, &at) != CAS_OK)
        return 0;
    int x1 = at.x + cell1_dx[at.rot], y1 = at.y + cell1_dy[at.rot];
    if (api->tile_at(c, x1, y1) != tile) { /* one space */
        x1 = at.x;
        y1 = at.y;
    }
    size_t n = 0;
    for (int y = (y1 < at.y ? y1 : at.y) - 1; y <= (y1 > at.y ? y1 : at.y) + 1; y++)
        for (int x = (x1 < at.x ? x1 : at.x) - 1; x <= (x1 > at.x ? x1 : at.x) + 1; x++) {
            int t = api->tile_at(c, x, y), seen = t < 0;
            for (size_t i = 0; i < n && !seen; i++)
                seen = near[i] == t;
            if (!seen)
                near[n++] = t;
        }
    return n;
}

/* The destinations of wagon w, freed from part w->part, ascending (parts are
 * numbered in placement order); at most cap, so cap 1 asks whether there
 * is any.  C2: the wagon's tile and the tiles around it; C1: the tiles of the
 * scored feature. */
static size_t destinations(const struct am_ctx *ctx, const cas_carc *c, const struct am_wagon *w,
                           cas_carc_feature *found, size_t cap)
{
    const struct cas_carc_api *api = ctx->api;
    size_t n = 0;
    if (ctx->reach == AM_REACH_C1) {
        int tiles = api->tile_count(c);
        for (int t = 0; t < tiles && n < cap; t++)
            tile_destinations(ctx, c, t, w, found, cap, &n);
        return n;
    }
    int near[WAGON_NEAR_MAX];
    size_t nn = tiles_around(api, c, api->part_tile(c, w->part), near);
    for (size_t i = 0; i < nn && n < cap; i++)
        tile_destinations(ctx, c, near[i], w, found, cap, &n);
    for (size_t i = 1; i < n; i++) /* insertion sort: a few dozen parts */
        for (size_t j = i; j > 0 && found[j - 1] > found[j]; j--) {
            cas_carc_feature t = found[j];
            found[j] = found[j - 1];
            found[j - 1] = t;
        }
    return n;
}

/* The slot of the waiting wagon whose owner decides now: clockwise from
 * the active player, the first with somewhere to go (a seat's wagons in
 * slot order); -1 when none. */
static int deciding(const struct am_ctx *ctx, const cas_carc *c)
{
    const struct am_state *st = cas__am_block_const(ctx, c);
    int players = ctx->players, active = ctx->api->active_player(c);
    for (int i = 0; i < players; i++)
        for (int k = 0; k < ctx->wagons; k++) {
            int slot = cas__am_slot(ctx, (active + i) % players, k);
            cas_carc_feature any;
            if (st->wagons[slot].waiting && destinations(ctx, c, &st->wagons[slot], &any, 1))
                return slot;
        }
    return -1;
}

int cas__am_wagon_actor(void *xctx, const cas_carc *c)
{
    const struct am_ctx *ctx = xctx;
    const struct am_state *st = cas__am_block_const(xctx, c);
    if (!st->wagons_waiting)
        return CAS_CARC_PHASE_SKIP; /* the common case: no wagon was freed */
    int slot = deciding(ctx, c);
    return slot >= 0 ? st->wagons[slot].player : CAS_CARC_PHASE_SKIP;
}

int cas__am_wagon_legal(void *xctx, const cas_carc *c, uint64_t *payloads, size_t cap,
                        size_t *count)
{
    int slot = deciding(xctx, c);
    const struct am_wagon *w = slot >= 0 ? &cas__am_block_const(xctx, c)->wagons[slot] : NULL;
    cas_carc_feature found[WAGON_DESTINATIONS_MAX];
    size_t n = w ? destinations(xctx, c, w, found, WAGON_DESTINATIONS_MAX) : 0;
    *count = n + 1;
    /* a short buffer gets the first payloads (the buffer protocol) */
    for (size_t i = 0; i <= n && i < cap; i++)
        payloads[i] = i == 0 ? WAGON_HOME : (uint64_t)found[i - 1] + 1;
    return n + 1 > cap ? CAS_ENOSPC : CAS_OK;
}

int cas__am_wagon_apply(void *xctx, cas_carc *c, uint64_t payload)
{
    const struct am_ctx *ctx = xctx;
    int slot = deciding(ctx, c);
    if (slot < 0)
        return CAS_EILLEGAL;
    struct am_wagon *mine = &cas__am_block(xctx, c)->wagons[slot];
    mine->waiting = 0;
    if (payload != WAGON_HOME) {
        int rc = ctx->api->deploy(c, mine->player, ctx->wagon,
                                  (cas_carc_feature)(payload - 1));
        if (rc != CAS_OK)
            return rc;
    }
    return CAS_CARC_PHASE_AGAIN;
}

int cas__am_wagon_text(void *xctx, const cas_carc *c, uint64_t payload, char *buf,
                       size_t cap)
{
    const struct cas_carc_api *api = ((const struct am_ctx *)xctx)->api;
    if (payload == WAGON_HOME)
        return cas__am_text_result(snprintf(buf, cap, "wagon home"), cap);
    cas_carc_feature part = (cas_carc_feature)(payload - 1);
    struct cas_carc_tile_info ti = {.struct_size = sizeof ti};
    char where[64];
    if (api->tile_info(c, api->part_tile(c, part), &ti) != CAS_OK ||
        api->part_text(c, part, where, sizeof where) < 0)
        return CAS_EINVAL;
    return cas__am_text_result(snprintf(buf, cap, "wagon %d,%d %s", ti.x, ti.y, where), cap);
}

int cas__am_wagon_parse(void *xctx, const cas_carc *c, const char *text, uint64_t *payload)
{
    const struct cas_carc_api *api = ((const struct am_ctx *)xctx)->api;
    int x, y, used = 0;
    if (strcmp(text, "wagon home") == 0 || strcmp(text, "pass") == 0) { /* lenient */
        *payload = WAGON_HOME;
        return CAS_OK;
    }
    if (sscanf(text, "wagon %d,%d %n", &x, &y, &used) != 2 || used == 0)
        return CAS_EPARSE;
    cas_carc_feature parts[WAGON_PARTS_MAX];
    size_t np;
    int tile = api->tile_at(c, x, y);
    if (tile < 0 || api->tile_features(c, tile, parts, WAGON_PARTS_MAX, &np) != CAS_OK)
        return CAS_EPARSE;
    for (size_t i = 0; i < np; i++) {
        char where[64];
        if (api->part_text(c, parts[i], where, sizeof where) >= 0 &&
            strcmp(where, text + used) == 0) {
            *payload = (uint64_t)parts[i] + 1;
            return CAS_OK;
        }
    }
    return CAS_EPARSE;
}
