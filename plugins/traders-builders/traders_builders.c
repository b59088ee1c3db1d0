/*
 * traders_builders.c — the Traders & Builders expansion for Carcassonne,
 * through castellan/carcassonne.h alone:
 *  - content: its 24 tiles (data/traders-builders.tiles) with the goods
 *    attributes `wine`, `grain`, `cloth` on cities; the builder (roads and
 *    cities, joins its owner's meeple, escorted) and the pig (fields, joins
 *    its owner's farmer, stays, escorted), neither counting for majority;
 *  - goods: a completed city gives its symbols to the player who placed the
 *    tile (feature_completed); at the end 10 points per good to each player
 *    with the most tokens (final_scoring);
 *  - builder: a tile extending a road or city that holds the active
 *    player's builder grants one more tile this turn, once a turn
 *    (tile_placed, turn_end);
 *  - pig: a field scored for a winner who has a pig in it is worth one more
 *    point per completed city (feature_points), told as a "pig-field"
 *    (score_category); the goods majorities are told as "goods".
 * The draw is already a chance decision over the whole pool: the bag.
 * Rule decisions: docs/rules/traders-builders.md.
 */
#include "traders_builders.h"

#include <castellan/carcassonne.h>
#include <castellan/outbuf.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TB_GOODS 3
#define TB_MAX_PLAYERS 6
#define TB_GOODS_POINTS 10
#define TB_FIGURES_ON_MAX 256 /* figures on one feature, at the most */

static const char *const tb_goods_names[TB_GOODS] = {"wine", "grain", "cloth"};

struct tb_ctx {
    const struct cas_carc_api *api;
    const struct cas_host *host;
    int goods[TB_GOODS]; /* attribute indices */
    int builder, pig;    /* figure kind indices */
    int builders, pigs;  /* options: each seat's builders and pigs */
    size_t state_offset; /* of the block in every state (state_offset, 1.6) */
};

/* The per-state block: plain bytes, cloned, hashed and serialized. */
struct tb_state {
    uint16_t goods[TB_MAX_PLAYERS][TB_GOODS]; /* tokens each player holds */
    uint8_t bonus_granted; /* this turn's tile extended the builder's feature */
    uint8_t in_bonus;      /* this turn is a builder's second tile */
};

/* This expansion's block of c, where state_offset said it lies. */
static struct tb_state *tb_block(const void *xctx, cas_carc *c)
{
    return cas_carc_block(c, ((const struct tb_ctx *)xctx)->state_offset);
}

static const struct tb_state *tb_block_const(const void *xctx, const cas_carc *c)
{
    return cas_carc_block_const(c, ((const struct tb_ctx *)xctx)->state_offset);
}

static void tb_state_offset(void *xctx, size_t offset)
{
    ((struct tb_ctx *)xctx)->state_offset = offset;
}

/* Figure counts: the engine gives the supply; the hooks ask whether one is
 * out, so they keep the count. */
static const struct cas_option_spec tb_options[] = {
    {.struct_size = sizeof(struct cas_option_spec), .name = "builders",
     .type = CAS_OPTION_INT, .default_value = "1", .min = 0, .max = 3,
     .help = "builders per player (the rulebook: 1)"},
    {.struct_size = sizeof(struct cas_option_spec), .name = "pigs",
     .type = CAS_OPTION_INT, .default_value = "1", .min = 0, .max = 3,
     .help = "pigs per player (the rulebook: 1)"},
};

static int tb_init(const struct cas_carc_api *api, const struct cas_host *host,
                   const cas_carc_game *game, const struct cas_option_value *options,
                   size_t n_options, void **xctx, size_t *bad_option)
{
    (void)bad_option; /* the host checked the counts against tb_options */
    struct tb_ctx *ctx = host->alloc(host->ctx, sizeof *ctx);
    if (!ctx)
        return CAS_ENOMEM;
    ctx->api = api;
    ctx->host = host;
    ctx->builders = ctx->pigs = 1;
    for (size_t i = 0; i < n_options; i++) {
        if (strcmp(options[i].name, "builders") == 0)
            ctx->builders = atoi(options[i].value);
        else if (strcmp(options[i].name, "pigs") == 0)
            ctx->pigs = atoi(options[i].value);
    }
    int missing = 0;
    for (int i = 0; i < TB_GOODS; i++) {
        ctx->goods[i] = api->attribute_index(game, tb_goods_names[i]);
        missing |= ctx->goods[i] < 0;
    }
    ctx->builder = api->figure_kind_index(game, "builder");
    ctx->pig = api->figure_kind_index(game, "pig");
    *xctx = ctx;
    /* the hooks find their block through state_offset, a tile's roads and
     * cities through tile_parts_of */
    if (api->abi_minor < 6 || !CAS_HAS_FIELD(api, struct cas_carc_api, tile_parts_of)) {
        cas_host_errorf(host, "traders-builders: needs Carcassonne extension ABI 1.6; "
                        "this game provides %u.%u", api->abi_major, api->abi_minor);
        return CAS_EVERSION;
    }
    if (missing || ctx->builder < 0 || ctx->pig < 0) {
        cas_host_errorf(host, "traders-builders: the game did not register the goods "
                        "attributes and the builder and pig; use a carcassonne plugin "
                        "with extension ABI %d.%d", CAS_CARC_ABI_MAJOR,
                        CAS_CARC_ABI_MINOR);
        return CAS_EDATA;
    }
    return CAS_OK;
}

static void tb_fini(void *xctx)
{
    struct tb_ctx *ctx = xctx;
    ctx->host->release(ctx->host->ctx, ctx);
}

/* A state block is sound when its flags are flags and no more tokens are
 * out than tiles were placed (each tile shows at most one symbol). */
static int tb_state_check(void *xctx, const cas_carc *c, const void *xstate)
{
    const struct tb_ctx *ctx = xctx;
    const struct tb_state *st = xstate;
    int tokens = 0;
    for (int p = 0; p < TB_MAX_PLAYERS; p++)
        for (int i = 0; i < TB_GOODS; i++)
            tokens += st->goods[p][i];
    if (st->bonus_granted > 1 || st->in_bonus > 1 || tokens > ctx->api->tile_count(c))
        return CAS_ECORRUPT;
    return CAS_OK;
}

/* ------------------------------------------------------------ figures */

/* Does `player` have a figure of `kind` on feature f? */
static int has_figure(const struct tb_ctx *ctx, const cas_carc *c, int player, int kind,
                      cas_carc_feature f)
{
    struct cas_carc_figure on[TB_FIGURES_ON_MAX];
    size_t n;
    if (ctx->api->figures_on(c, f, on, TB_FIGURES_ON_MAX, &n) != CAS_OK)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (on[i].player == player && on[i].kind == kind)
            return 1;
    return 0;
}

/* ------------------------------------------------------------ builder */

/* CALL-ALL: a tile extending a road or city with the active player's
 * builder grants one more tile, unless this is already that tile. */
static void tb_tile_placed(void *xctx, cas_carc *c, int player, int tile)
{
    const struct tb_ctx *ctx = xctx;
    const struct cas_carc_api *api = ctx->api;
    struct tb_state *st = tb_block(xctx, c);
    if (st->in_bonus || st->bonus_granted ||
        api->supply(c, player, ctx->builder) == ctx->builders) /* none on the board */
        return;
    cas_carc_feature first;
    unsigned parts = api->tile_parts_of(
        c, tile, CAS_CARC_CLASS_BIT(CAS_CARC_ROAD) | CAS_CARC_CLASS_BIT(CAS_CARC_CITY), &first);
    for (; parts; parts &= parts - 1) {
        if (!has_figure(ctx, c, player, ctx->builder, first + __builtin_ctz(parts)))
            continue;
        st->bonus_granted = 1;
        api->grant_extra_turn(c);
        if (!cas_carc_events_wanted(api, c))
            return;
        char text[64];
        snprintf(text, sizeof text, "%s's builder: one more tile this turn",
                 api->player_label(api->game(c), player));
        api->event(c, player, text);
        return;
    }
}

/* CALL-ALL: a granted tile makes the next turn the bonus turn; after the
 * bonus turn, the next one is ordinary again. */
static void tb_turn_end(void *xctx, cas_carc *c, int player)
{
    (void)player;
    struct tb_state *st = tb_block(xctx, c);
    st->in_bonus = st->bonus_granted;
    st->bonus_granted = 0;
}

/* ------------------------------------------------------------ goods */

/* CALL-ALL: the player who placed the completing tile takes one token per
 * goods symbol in the city, whoever owns it. */
static void tb_feature_completed(void *xctx, cas_carc *c, int player, cas_carc_feature f)
{
    const struct tb_ctx *ctx = xctx;
    const struct cas_carc_api *api = ctx->api;
    int count[TB_GOODS], any = 0;
    for (int i = 0; i < TB_GOODS; i++)
        any |= (count[i] = api->attribute(c, f, ctx->goods[i])) > 0;
    if (!any || player < 0 || player >= TB_MAX_PLAYERS)
        return;
    struct tb_state *st = tb_block(xctx, c);
    for (int i = 0; i < TB_GOODS; i++)
        st->goods[player][i] = (uint16_t)(st->goods[player][i] + count[i]);
    if (!cas_carc_events_wanted(api, c))
        return;
    char text[96];
    int len = snprintf(text, sizeof text, "%s takes goods:",
                       api->player_label(api->game(c), player));
    for (int i = 0; i < TB_GOODS; i++)
        if (count[i] > 0)
            len += snprintf(text + len, sizeof text - (size_t)len, " %d %s", count[i],
                            tb_goods_names[i]);
    api->event(c, player, text);
}

/* CALL-ALL at the end: 10 points per good to every player holding the
 * most tokens of it (at least one). */
static void tb_final_scoring(void *xctx, cas_carc *c)
{
    const struct tb_ctx *ctx = xctx;
    const struct cas_carc_api *api = ctx->api;
    const struct tb_state *st = tb_block_const(xctx, c);
    int players = api->nplayers(api->game(c));
    for (int i = 0; i < TB_GOODS; i++) {
        int most = 0;
        for (int p = 0; p < players; p++)
            most = st->goods[p][i] > most ? st->goods[p][i] : most;
        if (most == 0)
            continue;
        char reason[32];
        snprintf(reason, sizeof reason, "most %s", tb_goods_names[i]);
        for (int p = 0; p < players; p++)
            if (st->goods[p][i] == most)
                cas_carc_add_score_about(api, c, p, TB_GOODS_POINTS, reason, "goods",
                                         tb_goods_names[i], CAS_CARC_FINAL);
    }
}

/* ------------------------------------------------------------ pig */

/* CHAIN: a field whose winner has a pig in it scores one more per
 * completed city (4 instead of 3), at the end or whenever an expansion
 * scores fields earlier (barns). */
static int winner_has_pig(const struct tb_ctx *ctx, const cas_carc *c, int winner,
                          cas_carc_feature f)
{
    /* the features scored during the game are no fields, and the winner's
     * pigs may all be home: no walk of f's figures */
    return ctx->api->feature_class(c, f) == CAS_CARC_FIELD &&
           ctx->api->supply(c, winner, ctx->pig) < ctx->pigs &&
           has_figure(ctx, c, winner, ctx->pig, f);
}

static int64_t tb_feature_points(void *xctx, const cas_carc *c, cas_carc_feature f,
                                 enum cas_carc_when when, int winner, int64_t points)
{
    (void)when;
    const struct tb_ctx *ctx = xctx;
    const struct cas_carc_api *api = ctx->api;
    if (!winner_has_pig(ctx, c, winner, f))
        return points; /* else f is a field */
    struct cas_carc_feature_info info = {.struct_size = sizeof info};
    if (api->feature_info(c, f, &info) != CAS_OK)
        return points;
    return points + info.completed_cities;
}

/* CHAIN (1.3): a winner with a pig in the field scores a "pig-field". */
static const char *tb_category(void *xctx, const cas_carc *c, cas_carc_feature f,
                               enum cas_carc_when when, int winner, const char *category)
{
    (void)when;
    return winner_has_pig(xctx, c, winner, f) ? "pig-field" : category;
}

/* ------------------------------------------------------------ render */

static void render_json(const struct tb_state *st, int players, struct cas_outbuf *ob)
{
    cas_outs(ob, "{\"goods\":[");
    for (int p = 0; p < players; p++)
        cas_outf(ob, "%s[%d,%d,%d]", p ? "," : "", st->goods[p][0], st->goods[p][1],
                 st->goods[p][2]);
    cas_outf(ob, "],\"bonus_tile\":%d}", st->in_bonus);
}

static void render_text(const struct tb_ctx *ctx, const cas_carc *c, const struct tb_state *st,
                        int players, struct cas_outbuf *ob)
{
    for (int p = 0; p < players; p++)
        cas_outf(ob, "%-8s goods: %d wine, %d grain, %d cloth\n",
                 ctx->api->player_label(ctx->api->game(c), p), st->goods[p][0],
                 st->goods[p][1], st->goods[p][2]);
    if (st->in_bonus)
        cas_outs(ob, "this is a builder's second tile\n");
}

/* Appends each player's goods tokens (and whether this is a builder's
 * second tile) to the game's render. */
static int tb_render(void *xctx, const cas_carc *c, int viewer,
                     enum cas_render_format format, const struct cas_writer *out)
{
    (void)viewer;
    const struct tb_ctx *ctx = xctx;
    const struct tb_state *st = tb_block_const(xctx, c);
    int players = ctx->api->nplayers(ctx->api->game(c));
    struct cas_outbuf ob; /* one write for the host: the picture renders this every move */
    cas_out_init(&ob, out);
    if (format == CAS_RENDER_JSON)
        render_json(st, players, &ob);
    else
        render_text(ctx, c, st, players, &ob);
    return cas_out_finish(&ob);
}

/* ------------------------------------------------------------ descriptor */

static const struct cas_carc_hooks tb_hooks = {
    .struct_size = sizeof(struct cas_carc_hooks),
    .tile_placed = tb_tile_placed,
    .feature_completed = tb_feature_completed,
    .feature_points = tb_feature_points,
    .score_category = tb_category,
    .final_scoring = tb_final_scoring,
    .turn_end = tb_turn_end,
};

static const struct cas_carc_figure_kind tb_figures[] = {
    {
        .struct_size = sizeof(struct cas_carc_figure_kind),
        .name = "builder",
        .per_player = 1,
        .strength = 0,
        .classes = CAS_CARC_CLASS_BIT(CAS_CARC_ROAD) | CAS_CARC_CLASS_BIT(CAS_CARC_CITY),
        .flags = CAS_CARC_FIG_JOINS | CAS_CARC_FIG_ESCORTED,
    },
    {
        .struct_size = sizeof(struct cas_carc_figure_kind),
        .name = "pig",
        .per_player = 1,
        .strength = 0,
        .classes = CAS_CARC_CLASS_BIT(CAS_CARC_FIELD),
        .flags = CAS_CARC_FIG_JOINS | CAS_CARC_FIG_STAYS | CAS_CARC_FIG_ESCORTED,
    },
};

static const char *const tb_tile_sets[] = {"traders-builders.tiles"};

/* `help` at the table (extension ABI 1.8). */
static const char tb_help[] =
    "  deploy builder WHERE\n"
    "                       your builder on a road or city of the tile just placed\n"
    "                       where you have a meeple (deploy builder road E+W); a\n"
    "                       tile that later extends it gives you a second turn\n"
    "  deploy pig WHERE     a pig in a field of the tile just placed where you have\n"
    "                       a farmer (deploy pig field Nw+Ne): that field then\n"
    "                       scores 4 a city for you instead of 3\n"
    "  goods                completing a city with wine, grain or cloth gives its\n"
    "                       goods to you; the most of a kind scores 10 at the end\n";

static const struct cas_carc_expansion tb_expansion = {
    .struct_size = sizeof(struct cas_carc_expansion),
    .abi_major = CAS_CARC_ABI_MAJOR,
    .abi_minor = CAS_CARC_ABI_MINOR,
    .tile_sets = tb_tile_sets,
    .n_tile_sets = sizeof tb_tile_sets / sizeof tb_tile_sets[0],
    .attributes = tb_goods_names,
    .n_attributes = TB_GOODS,
    .figures = tb_figures,
    .n_figures = sizeof tb_figures / sizeof tb_figures[0],
    .state_size = sizeof(struct tb_state),
    .init = tb_init,
    .fini = tb_fini,
    .state_check = tb_state_check,
    .render = tb_render,
    .hooks = &tb_hooks,
    .state_offset = tb_state_offset,
    .notation_help = tb_help,
};

static const struct cas_plugin tb_plugin = {
    .struct_size = sizeof(struct cas_plugin),
    .abi_major = CAS_ABI_MAJOR,
    .abi_minor = CAS_ABI_MINOR,
    .fingerprint = CAS_BUILD_FINGERPRINT,
    .id = "traders-builders",
    .version = "1.0.0",
    .kind = CAS_KIND_EXPANSION,
    .extends = "carcassonne",
    .options = tb_options,
    .n_options = sizeof tb_options / sizeof tb_options[0],
    .extension = &tb_expansion,
};

const struct cas_plugin *cas__tb_plugin(void)
{
    return &tb_plugin;
}
