/*
 * inns_cathedrals.c — the Inns & Cathedrals expansion for Carcassonne,
 * through castellan/carcassonne.h alone:
 *  - content: its 18 tiles (data/inns-cathedrals.tiles), the attributes
 *    `inn` (roads) and `cathedral` (cities), the large meeple (strength 2,
 *    one per player, on any feature class), a sixth colour;
 *  - one CHAIN hook, feature_points: a completed road with an inn scores one
 *    more point per tile (2 in all), a completed city with a cathedral one
 *    more per tile and coat (3 in all); either scores 0 at the end if open.
 *    Several inns or cathedrals on one feature count as one;
 *  - one VETO hook, veto_deploy: nobody on the road stubs of IC-5;
 *  - one CHAIN hook, score_category: those scores are told as "inn-road"
 *    and "cathedral-city".
 * Rule decisions: docs/rules/inns-cathedrals.md.
 */
#include "inns_cathedrals.h"

#include <castellan/carcassonne.h>

struct ic_ctx {
    const struct cas_carc_api *api;
    const struct cas_host *host;
    int inn, cathedral, coat; /* attribute indices */
    int crossing;             /* tile kind IC-5, whose road stubs take no one */
};

static int ic_init(const struct cas_carc_api *api, const struct cas_host *host,
                   const cas_carc_game *game, const struct cas_option_value *options,
                   size_t n_options, void **xctx, size_t *bad_option)
{
    (void)options;
    (void)n_options;
    (void)bad_option;
    struct ic_ctx *ctx = host->alloc(host->ctx, sizeof *ctx);
    if (!ctx)
        return CAS_ENOMEM;
    ctx->api = api;
    ctx->host = host;
    ctx->inn = api->attribute_index(game, "inn");
    ctx->cathedral = api->attribute_index(game, "cathedral");
    ctx->coat = api->attribute_index(game, "coat");
    ctx->crossing = api->tile_kind_index(game, "IC-5");
    *xctx = ctx;
    /* 1.5: veto_deploy is handed the part, whose tile tells a stub */
    if (!CAS_HAS_FIELD(api, struct cas_carc_api, deploy_vetoed)) {
        cas_host_errorf(host, "inns-cathedrals: needs Carcassonne extension ABI 1.5; "
                        "this game provides %u.%u", api->abi_major, api->abi_minor);
        return CAS_EVERSION;
    }
    if (ctx->inn < 0 || ctx->cathedral < 0) {
        cas_host_errorf(host, "inns-cathedrals: the game did not register the "
                        "attributes inn and cathedral; use a carcassonne plugin "
                        "with extension ABI %d.%d", CAS_CARC_ABI_MAJOR,
                        CAS_CARC_ABI_MINOR);
        return CAS_EDATA;
    }
    return CAS_OK;
}

static void ic_fini(void *xctx)
{
    struct ic_ctx *ctx = xctx;
    ctx->host->release(ctx->host->ctx, ctx);
}

/* CHAIN: inns double a completed road, cathedrals make a completed city
 * worth 3 per tile and coat; open at the end, either is worth nothing.
 * The bonus is added to the value received so that hooks earlier in the
 * chain keep their part. */
static int64_t ic_points(void *xctx, const cas_carc *c, cas_carc_feature f,
                         enum cas_carc_when when, int winner, int64_t points)
{
    (void)winner;
    const struct ic_ctx *ctx = xctx;
    const struct cas_carc_api *api = ctx->api;
    int inns = api->attribute(c, f, ctx->inn);
    int cathedrals = api->attribute(c, f, ctx->cathedral);
    if (inns == 0 && cathedrals == 0)
        return points; /* the common case: no lookup of sizes */
    struct cas_carc_feature_info info = {.struct_size = sizeof info};
    if (api->feature_info(c, f, &info) != CAS_OK)
        return points;
    int road_inn = info.cls == CAS_CARC_ROAD && inns > 0;
    int city_cathedral = info.cls == CAS_CARC_CITY && cathedrals > 0;
    if (!road_inn && !city_cathedral)
        return points;
    if (when == CAS_CARC_FINAL)
        return 0;
    if (road_inn)
        return points + info.spaces;
    int coats = ctx->coat >= 0 ? api->attribute(c, f, ctx->coat) : 0;
    return points + info.spaces + coats;
}

/* CHAIN (1.3): a road with an inn scores as an "inn-road", a city with a
 * cathedral as a "cathedral-city", 0 points at the end included. */
static const char *ic_category(void *xctx, const cas_carc *c, cas_carc_feature f,
                               enum cas_carc_when when, int winner, const char *category)
{
    (void)when;
    (void)winner;
    const struct ic_ctx *ctx = xctx;
    const struct cas_carc_api *api = ctx->api;
    int cls = api->feature_class(c, f);
    if (cls == CAS_CARC_ROAD && api->attribute(c, f, ctx->inn) > 0)
        return "inn-road";
    if (cls == CAS_CARC_CITY && api->attribute(c, f, ctx->cathedral) > 0)
        return "cathedral-city";
    return category;
}

/* VETO: the two road stubs of IC-5 (between its cities) only cut the field
 * in two; nobody may stand on them (rulebook caption), whether deployed
 * from IC-5 or moved there (the wagon).  The roads they lead to take
 * figures on their own tiles as usual.  `f` is the part (1.5). */
static int ic_veto_deploy(void *xctx, const cas_carc *c, int player, int kind,
                          cas_carc_feature f)
{
    (void)player;
    (void)kind;
    const struct ic_ctx *ctx = xctx;
    const struct cas_carc_api *api = ctx->api;
    if (ctx->crossing < 0 || api->feature_class(c, f) != CAS_CARC_ROAD)
        return 0;
    struct cas_carc_tile_info tile = {.struct_size = sizeof tile};
    return api->tile_info(c, api->part_tile(c, f), &tile) == CAS_OK &&
           tile.kind == ctx->crossing;
}

/* Only the crossing's stubs are vetoed, for every figure kind. */
static int ic_vetoes_deploy(void *xctx, const cas_carc_game *game, int tile_kind,
                            int figure_kind)
{
    (void)game;
    (void)figure_kind;
    const struct ic_ctx *ctx = xctx;
    return tile_kind == ctx->crossing;
}

static const struct cas_carc_hooks ic_hooks = {
    .struct_size = sizeof(struct cas_carc_hooks),
    .feature_points = ic_points,
    .veto_deploy = ic_veto_deploy,
    .vetoes_deploy = ic_vetoes_deploy,
    .score_category = ic_category,
};

static const struct cas_carc_figure_kind ic_figures[] = {{
    .struct_size = sizeof(struct cas_carc_figure_kind),
    .name = "large-meeple",
    .per_player = 1,
    .strength = 2,
    .classes = CAS_CARC_CLASS_BIT(CAS_CARC_ROAD) | CAS_CARC_CLASS_BIT(CAS_CARC_CITY) |
               CAS_CARC_CLASS_BIT(CAS_CARC_FIELD) | CAS_CARC_CLASS_BIT(CAS_CARC_CLOISTER),
}};

static const char *const ic_tile_sets[] = {"inns-cathedrals.tiles"};
static const char *const ic_attributes[] = {"inn", "cathedral"};

/* `help` at the table (extension ABI 1.8). */
static const char ic_help[] =
    "  deploy large-meeple WHERE\n"
    "                       your large meeple, where a meeple may stand; it counts\n"
    "                       2 for the majority (deploy large-meeple city N)\n"
    "  inns and cathedrals  a completed road with an inn scores 2 a tile, a\n"
    "                       completed city with a cathedral 3 a tile and coat;\n"
    "                       unfinished at the end, they score nothing\n";

static const struct cas_carc_expansion ic_expansion = {
    .struct_size = sizeof(struct cas_carc_expansion),
    .abi_major = CAS_CARC_ABI_MAJOR,
    .abi_minor = CAS_CARC_ABI_MINOR,
    .max_players = 6,
    .tile_sets = ic_tile_sets,
    .n_tile_sets = sizeof ic_tile_sets / sizeof ic_tile_sets[0],
    .attributes = ic_attributes,
    .n_attributes = sizeof ic_attributes / sizeof ic_attributes[0],
    .figures = ic_figures,
    .n_figures = sizeof ic_figures / sizeof ic_figures[0],
    .init = ic_init,
    .fini = ic_fini,
    .hooks = &ic_hooks,
    .notation_help = ic_help,
};

/* The engine reads the count for the large meeple's supply. */
static const struct cas_option_spec ic_options[] = {
    {.struct_size = sizeof(struct cas_option_spec), .name = "large-meeples",
     .type = CAS_OPTION_INT, .default_value = "1", .min = 0, .max = 3,
     .help = "large meeples per player (the rulebook: 1)"},
};

static const struct cas_plugin ic_plugin = {
    .struct_size = sizeof(struct cas_plugin),
    .abi_major = CAS_ABI_MAJOR,
    .abi_minor = CAS_ABI_MINOR,
    .fingerprint = CAS_BUILD_FINGERPRINT,
    .id = "inns-cathedrals",
    .version = "1.0.0",
    .kind = CAS_KIND_EXPANSION,
    .extends = "carcassonne",
    .max_players = 6,
    .options = ic_options,
    .n_options = sizeof ic_options / sizeof ic_options[0],
    .extension = &ic_expansion,
};

const struct cas_plugin *cas__ic_plugin(void)
{
    return &ic_plugin;
}
