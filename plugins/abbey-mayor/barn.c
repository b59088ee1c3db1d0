/*
 * barn.c — barns.  A barn is a CORNER figure: the engine offers it on a
 * corner of the placed tile where four tiles meet with field in all four
 * corners (`deploy barn corner X,Y NW`); can_deploy refuses a field that
 * already has a barn.  In the turn's scoring step (turn_scoring):
 *  - a barn placed this turn scores its field's farmers as at the end (3 per
 *    completed city, majority; a winner's pig 1 more) and they go home;
 *  - a tile that joined farmers to a barn's field scores those farmers 1 per
 *    completed city (a pig 1 more: 2) and they go home.
 * No farmer may be deployed into a field with a barn: the barn is a figure
 * on it, so the engine's occupancy rule refuses every figure kind that does
 * not join (a pig joins, beside its owner's farmer on the joining tile;
 * a barn is no farmer to escort a pig: veto_deploy, and pigs go home
 * after a barn scoring with the farmers).
 * At the end each seat with a barn on a field scores 4 per completed city
 * of it, once however many of its barns stand there (final_scoring).
 */
#include "abbey_mayor.h"

#include <stdio.h>

#define BARN_END_POINTS 4 /* per completed city */
#define BARN_JOIN_POINTS 1
#define FIELD_POINTS 3

int cas__am_barn_can_deploy(void *xctx, const cas_carc *c, int player,
                            cas_carc_feature feature)
{
    (void)player;
    const struct am_ctx *ctx = xctx;
    return cas__am_has_figure(ctx, c, -1, ctx->barn, feature);
}

/* Does `player` (anyone if negative) have a farmer, a figure other than a
 * barn or pig, on f? */
static int own_farmer(const struct am_ctx *ctx, const cas_carc *c, int player,
                      cas_carc_feature f)
{
    struct cas_carc_figure on[AM_FIGURES_ON_MAX];
    size_t n;
    if (ctx->api->figures_on(c, f, on, AM_FIGURES_ON_MAX, &n) != CAS_OK)
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((player < 0 || on[i].player == player) && on[i].kind != ctx->barn &&
            on[i].kind != ctx->pig)
            return 1;
    return 0;
}

/* VETO: a barn is no farmer, so it escorts no pig (the engine's escort
 * rule counts any figure without ESCORTED): a pig needs its owner's
 * farmer. */
int cas__am_veto_deploy(void *xctx, const cas_carc *c, int player, int kind,
                        cas_carc_feature f)
{
    const struct am_ctx *ctx = xctx;
    return kind == ctx->pig && kind >= 0 && !own_farmer(ctx, c, player, f);
}

int cas__am_vetoes_deploy(void *xctx, const cas_carc_game *game, int tile_kind,
                          int figure_kind)
{
    (void)game;
    (void)tile_kind;
    const struct am_ctx *ctx = xctx;
    return figure_kind == ctx->pig && figure_kind >= 0;
}

/* After a barn scoring sent the farmers home: pigs left beside their
 * owner's barn only go home too ("After scoring your pig, return it"). */
static void send_pigs_home(const struct am_ctx *ctx, cas_carc *c, cas_carc_feature f)
{
    const struct cas_carc_api *api = ctx->api;
    struct cas_carc_figure on[AM_FIGURES_ON_MAX];
    size_t n;
    if (ctx->pig < 0 || api->figures_on(c, f, on, AM_FIGURES_ON_MAX, &n) != CAS_OK)
        return;
    for (size_t i = n; i-- > 0;) /* returning swaps the last figure in: go down */
        if (on[i].kind == ctx->pig && !own_farmer(ctx, c, on[i].player, f))
            api->return_figure(c, on[i].id);
}

/* CHAIN: a field scored for joining a barn's field is worth 1 per city
 * instead of 3; what other expansions added (a pig's 1) is kept. */
int64_t cas__am_feature_points(void *xctx, const cas_carc *c, cas_carc_feature f,
                               enum cas_carc_when when, int winner, int64_t points)
{
    (void)when;
    (void)winner;
    const struct am_ctx *ctx = xctx;
    const struct am_state *st = cas__am_block_const(xctx, c);
    if (!st->join_scoring)
        return points;
    struct cas_carc_feature_info info = {.struct_size = sizeof info};
    if (ctx->api->feature_info(c, f, &info) != CAS_OK || info.cls != CAS_CARC_FIELD)
        return points;
    return points - (int64_t)(FIELD_POINTS - BARN_JOIN_POINTS) * info.completed_cities;
}

/* The slot for a barn the player placed this turn, -1 if none: the
 * player has more barns out than slots recorded. */
static int unrecorded_barn_slot(const struct am_ctx *ctx, const cas_carc *c, int player)
{
    const struct am_state *st = cas__am_block_const(ctx, c);
    int out = ctx->barns - ctx->api->supply(c, player, ctx->barn);
    for (int k = 0; k < ctx->barns; k++)
        if (!(st->barn_scored >> cas__am_slot(ctx, player, k) & 1))
            return k < out ? cas__am_slot(ctx, player, k) : -1;
    return -1;
}

/* The part of the placed tile where the active player's barn went this
 * turn, or -1. */
static cas_carc_feature new_barn(const struct am_ctx *ctx, const cas_carc *c, int player)
{
    const struct cas_carc_api *api = ctx->api;
    if (unrecorded_barn_slot(ctx, c, player) < 0)
        return CAS_CARC_NO_FEATURE;
    cas_carc_feature first;
    for (unsigned fields = api->tile_parts_of(c, api->placed_tile(c),
                                              CAS_CARC_CLASS_BIT(CAS_CARC_FIELD), &first);
         fields; fields &= fields - 1) {
        cas_carc_feature part = first + __builtin_ctz(fields);
        if (cas__am_has_figure_on_part(ctx, c, player, ctx->barn, part))
            return part;
    }
    return CAS_CARC_NO_FEATURE;
}

/* Fields of the placed tile that now hold a barn and farmers were joined
 * by it (farmers never go into a barn's field otherwise): 1 per city. */
static void score_joins(const struct am_ctx *ctx, cas_carc *c, struct am_state *st)
{
    const struct cas_carc_api *api = ctx->api;
    cas_carc_feature barns[AM_MAX_PLAYERS], first;
    size_t nbarns = 0;
    for (int p = 0; p < AM_MAX_PLAYERS; p++) /* their places are kept */
        if (st->barn_part[p] != AM_NO_PART)
            barns[nbarns++] = st->barn_part[p];
    if (nbarns == 0)
        return;
    for (unsigned fields = api->tile_parts_of(c, api->placed_tile(c),
                                              CAS_CARC_CLASS_BIT(CAS_CARC_FIELD), &first);
         fields; fields &= fields - 1) {
        cas_carc_feature part = first + __builtin_ctz(fields);
        size_t b = 0;
        while (b < nbarns && !api->same_feature(c, part, barns[b]))
            b++;
        if (b == nbarns || !own_farmer(ctx, c, -1, part))
            continue;
        st->join_scoring = 1;
        api->score_feature(c, part, CAS_CARC_DURING);
        st->join_scoring = 0;
        send_pigs_home(ctx, c, part);
    }
}

void cas__am_turn_scoring(void *xctx, cas_carc *c, int player)
{
    const struct am_ctx *ctx = xctx;
    const struct cas_carc_api *api = ctx->api;
    struct am_state *st = cas__am_block(xctx, c);
    if (api->placed_tile(c) < 0 || player >= AM_MAX_PLAYERS ||
        (st->barn_scored == 0 && api->supply(c, player, ctx->barn) == ctx->barns))
        return; /* no barn on the board: nothing to score */
    cas_carc_feature barn = new_barn(ctx, c, player);
    if (barn != CAS_CARC_NO_FEATURE) {
        int slot = unrecorded_barn_slot(ctx, c, player);
        st->barn_scored |= (uint8_t)(1u << slot);
        st->barn_part[slot] = (uint16_t)barn;
        if (cas_carc_events_wanted(api, c)) {
            char text[64];
            snprintf(text, sizeof text, "%s places a barn",
                     api->player_label(api->game(c), player));
            api->event(c, player, text);
        }
        if (own_farmer(ctx, c, -1, barn)) {
            api->score_feature(c, barn, CAS_CARC_DURING);
            send_pigs_home(ctx, c, barn);
        }
        /* a barn goes only where no barn was, so its own field joined none;
         * the tile's other fields may have joined farmers to another barn */
    }
    score_joins(ctx, c, st);
}

/* Has seat `slot % players` a barn in an earlier slot on the same field
 * as the barn in `slot` (two barns joined by a tile later)? */
static int field_scored_for_seat(const struct am_ctx *ctx, const cas_carc *c,
                                 const struct am_state *st, int slot, int players)
{
    for (int earlier = slot % players; earlier < slot; earlier += players)
        if (st->barn_part[earlier] != AM_NO_PART &&
            ctx->api->same_feature(c, st->barn_part[earlier], st->barn_part[slot]))
            return 1;
    return 0;
}

/* CALL-ALL at the end: 4 per completed city of a barn's field for every
 * seat with a barn there, once however many of its barns stand there;
 * all seats sharing a field score in full. */
void cas__am_final_scoring(void *xctx, cas_carc *c)
{
    const struct am_ctx *ctx = xctx;
    const struct cas_carc_api *api = ctx->api;
    const struct am_state *st = cas__am_block_const(xctx, c);
    int players = api->nplayers(api->game(c));
    for (int slot = 0; slot < players * ctx->barns; slot++) {
        int p = slot % players;
        if (st->barn_part[slot] == AM_NO_PART ||
            field_scored_for_seat(ctx, c, st, slot, players))
            continue;
        struct cas_carc_feature_info info = {.struct_size = sizeof info};
        if (api->feature_info(c, st->barn_part[slot], &info) != CAS_OK)
            continue;
        char reason[64] = "barn", subject[48] = "";
        if (cas_carc_events_wanted(api, c)) {
            snprintf(reason, sizeof reason, "barn (%d completed cit%s)",
                     info.completed_cities, info.completed_cities == 1 ? "y" : "ies");
            snprintf(subject, sizeof subject, "field at %d,%d", info.x, info.y);
        }
        /* told with 0 points too: a barn whose field touches no completed city */
        cas_carc_add_score_about(api, c, p, (int64_t)BARN_END_POINTS * info.completed_cities,
                                 reason, "barn", subject, CAS_CARC_FINAL);
    }
}
