/*
 * abbey_mayor.c — the Abbey & Mayor expansion for Carcassonne, through
 * castellan/carcassonne.h alone: its descriptor (12 land tiles and the abbey
 * in data/abbey-mayor.tiles; figures mayor, wagon and barn), its options
 * (final-abbey-round, wagon-move, c1-reach, figure counts), init, the
 * state block's check and render, and the mayor, whose strength is the
 * coats of arms in its city.
 *   abbey.c  the abbey from the hand (a phase before the draw) and the
 *            optional final abbey round (bag_empty);
 *   wagon.c  wagons freed by a scoring move on, their owners deciding in
 *            clockwise order from the active player (a phase after scoring);
 *   barn.c   barns on tile corners: field scorings when placed and when
 *            joined, 4 per city at the end, no farmers beside a barn.
 * Rule decisions: docs/rules/abbey-mayor.md.
 */
#include "abbey_mayor.h"

#include <castellan/outbuf.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct cas_option_spec am_options[] = {
    {.struct_size = sizeof(struct cas_option_spec), .name = "final-abbey-round",
     .type = CAS_OPTION_BOOL, .default_value = "off",
     .help = "once the bag is empty, each player still holding an abbey may place it "
             "(JCloisterZone; not in the printed rulebook)"},
    {.struct_size = sizeof(struct cas_option_spec), .name = "wagon-move",
     .type = CAS_OPTION_CHOICE, .default_value = "C2", .choices = "C1|C2",
     .help = "C2: a freed wagon moves to a feature on its tile or the 8 around "
             "(rulebook); C1: only to one directly connected to the scored feature"},
    {.struct_size = sizeof(struct cas_option_spec), .name = "c1-reach",
     .type = CAS_OPTION_CHOICE, .default_value = "faq", .choices = "faq|jcz",
     .help = "with wagon-move C1, what a tile connects: faq, the FAQ's reading (two "
             "cities never connect); jcz, JCloisterZone's tile data (IC-5 also joins "
             "its cities), which a game imported from JCloisterZone plays"},
    /* figure counts (the engine reads FIGUREs for the supply) */
    {.struct_size = sizeof(struct cas_option_spec), .name = "mayors",
     .type = CAS_OPTION_INT, .default_value = "1", .min = 0, .max = 3,
     .help = "mayors per player (the rulebook: 1)"},
    {.struct_size = sizeof(struct cas_option_spec), .name = "wagons",
     .type = CAS_OPTION_INT, .default_value = "1", .min = 0, .max = 3,
     .help = "wagons per player (the rulebook: 1; all players' at most 6)"},
    {.struct_size = sizeof(struct cas_option_spec), .name = "barns",
     .type = CAS_OPTION_INT, .default_value = "1", .min = 0, .max = 3,
     .help = "barns per player (the rulebook: 1; all players' at most 6)"},
};

int cas__am_text_result(int len, size_t cap)
{
    if (len < 0)
        return CAS_EINVAL;
    return (size_t)len < cap ? len : CAS_ENOSPC;
}

/* A figure of `kind` (of `player`, or anyone's if negative) on f's
 * feature, or only on part f itself if `on_part`? */
static int find_figure(const struct am_ctx *ctx, const cas_carc *c, int player, int kind,
                       cas_carc_feature f, int on_part)
{
    struct cas_carc_figure on[AM_FIGURES_ON_MAX];
    size_t n;
    if (ctx->api->figures_on(c, f, on, AM_FIGURES_ON_MAX, &n) != CAS_OK)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (on[i].kind == kind && (player < 0 || on[i].player == player) &&
            (!on_part || ctx->api->figure_part(c, on[i].id) == f))
            return 1;
    return 0;
}

int cas__am_has_figure(const struct am_ctx *ctx, const cas_carc *c, int player, int kind,
                       cas_carc_feature f)
{
    return find_figure(ctx, c, player, kind, f, 0);
}

int cas__am_has_figure_on_part(const struct am_ctx *ctx, const cas_carc *c, int player,
                               int kind, cas_carc_feature part)
{
    return find_figure(ctx, c, player, kind, part, 1);
}

static int read_options(struct am_ctx *ctx, const struct cas_option_value *options,
                        size_t n_options, size_t *bad_option)
{
    for (size_t i = 0; i < n_options; i++) {
        const char *name = options[i].name, *value = options[i].value;
        int bad;
        if (strcmp(name, "final-abbey-round") == 0) {
            ctx->final_abbey_round = strcmp(value, "on") == 0;
            bad = !ctx->final_abbey_round && strcmp(value, "off") != 0;
        } else if (strcmp(name, "wagon-move") == 0) {
            ctx->reach = strcmp(value, "C1") == 0 ? AM_REACH_C1 : AM_REACH_C2;
            bad = strcmp(value, "C1") != 0 && strcmp(value, "C2") != 0;
        } else if (strcmp(name, "c1-reach") == 0) {
            ctx->c1_reading = strcmp(value, "jcz") == 0 ? CAS_CARC_LINKS_JCZ
                                                         : CAS_CARC_LINKS_DEFAULT;
            bad = strcmp(value, "jcz") != 0 && strcmp(value, "faq") != 0;
        } else if (strcmp(name, "wagons") == 0 || strcmp(name, "barns") == 0) {
            int *count = name[0] == 'w' ? &ctx->wagons : &ctx->barns;
            *count = atoi(value);
            bad = *count < 0 || *count * ctx->players > AM_MAX_PLAYERS;
        } else {
            bad = strcmp(name, "mayors") != 0; /* the engine's: the supply only */
        }
        if (bad) {
            *bad_option = i;
            cas_host_errorf(ctx->host, "abbey-mayor: option %s = '%s' is not valid; "
                            "final-abbey-round is on|off, wagon-move C1|C2, c1-reach "
                            "faq|jcz, and %d players have at most %d wagons and %d "
                            "barns each", name, value,
                            ctx->players, AM_MAX_PLAYERS / ctx->players,
                            AM_MAX_PLAYERS / ctx->players);
            return CAS_EOPTION;
        }
    }
    return CAS_OK;
}

static int am_init(const struct cas_carc_api *api, const struct cas_host *host,
                   const cas_carc_game *game, const struct cas_option_value *options,
                   size_t n_options, void **xctx, size_t *bad_option)
{
    struct am_ctx *ctx = host->alloc(host->ctx, sizeof *ctx);
    if (!ctx)
        return CAS_ENOMEM;
    memset(ctx, 0, sizeof *ctx);
    *xctx = ctx;
    ctx->api = api;
    ctx->host = host;
    ctx->retire = api->abi_minor >= 7 ? CAS_CARC_PHASE_RETIRE : CAS_CARC_PHASE_SKIP;
    /* 1.5 vetoes for the wagon, 1.6 state_offset and tile_parts_of, 1.9
     * part_links (C1's reach) */
    if (api->abi_minor < 9 || !CAS_HAS_FIELD(api, struct cas_carc_api, part_links)) {
        cas_host_errorf(host, "abbey-mayor: needs Carcassonne extension ABI %d.9; this "
                        "game provides %u.%u", CAS_CARC_ABI_MAJOR, api->abi_major,
                        api->abi_minor);
        return CAS_EVERSION;
    }
    ctx->coat = api->attribute_index(game, "coat");
    ctx->abbey = api->tile_kind_index(game, "ABBEY");
    ctx->mayor = api->figure_kind_index(game, "mayor");
    ctx->wagon = api->figure_kind_index(game, "wagon");
    ctx->barn = api->figure_kind_index(game, "barn");
    ctx->pig = api->figure_kind_index(game, "pig");
    if (ctx->abbey < 0 || ctx->mayor < 0 || ctx->wagon < 0 || ctx->barn < 0) {
        cas_host_errorf(host, "abbey-mayor: the game did not register the ABBEY tile "
                        "and the mayor, wagon and barn");
        return CAS_EDATA;
    }
    int players = api->nplayers(game), copies = api->tile_kind_count(game, ctx->abbey);
    ctx->abbeys = players < copies ? players : copies;
    ctx->players = players;
    ctx->wagons = ctx->barns = 1;
    return read_options(ctx, options, n_options, bad_option);
}

static void am_fini(void *xctx)
{
    struct am_ctx *ctx = xctx;
    ctx->host->release(ctx->host->ctx, ctx);
}

static void am_state_offset(void *xctx, size_t offset)
{
    ((struct am_ctx *)xctx)->state_offset = offset;
}

static void am_state_init(void *xctx, cas_carc *c, void *xstate)
{
    (void)xctx;
    (void)c;
    struct am_state *st = xstate;
    for (int p = 0; p < AM_MAX_PLAYERS; p++)
        st->barn_part[p] = AM_NO_PART;
}

/* Sound when every bit names a seat, flags are flags, the holes are the
 * board's, wagons wait only in their seats' slots, and a barn's slot names
 * a part where its seat has a barn. */
static int am_state_check(void *xctx, const cas_carc *c, const void *xstate)
{
    const struct am_ctx *ctx = xctx;
    const struct cas_carc_api *api = ctx->api;
    const struct am_state *st = xstate;
    int players = api->nplayers(api->game(c));
    unsigned seats = (1u << players) - 1;
    unsigned barn_slots = (1u << (players * ctx->barns)) - 1;
    if ((st->abbey_used | st->final_seen) & ~seats || st->barn_scored & ~barn_slots ||
        st->join_scoring ||
        (cas__am_abbey_held(ctx, st) && st->holes != cas__am_count_holes(ctx, c)) ||
        st->wagons_waiting > players * ctx->wagons)
        return CAS_ECORRUPT;
    for (int p = 0; p < AM_MAX_PLAYERS; p++) {
        const struct am_wagon *w = &st->wagons[p];
        if (w->waiting > 1 || (w->waiting && (w->player != p % players ||
                                              p >= players * ctx->wagons ||
                                              api->part_tile(c, w->part) < 0)))
            return CAS_ECORRUPT;
        if (st->barn_part[p] != AM_NO_PART &&
            (p >= players * ctx->barns ||
             !cas__am_has_figure(ctx, c, p % players, ctx->barn, st->barn_part[p])))
            return CAS_ECORRUPT;
    }
    return CAS_OK;
}

/* ------------------------------------------------------------ mayor */

/* FIRST for the mayor: one per coat of arms in its city, 0 without. */
static int mayor_strength(void *xctx, const cas_carc *c, int player, cas_carc_feature f)
{
    (void)player;
    const struct am_ctx *ctx = xctx;
    return ctx->coat >= 0 ? ctx->api->attribute(c, f, ctx->coat) : 0;
}

/* ------------------------------------------------------------ categories */

/* CHAIN (1.3): what this expansion's rules make of a score: the abbey
 * tile's monastery is an "abbey"; a city where the winner has a mayor a
 * "mayor-city" (0 points without coats included); a field scored during
 * the game a "barn-field" (a barn arrived) or "barn-join-field" (farmers
 * joined a barn's field: 1 per city). */
static const char *am_category(void *xctx, const cas_carc *c, cas_carc_feature f,
                               enum cas_carc_when when, int winner, const char *category)
{
    const struct am_ctx *ctx = xctx;
    const struct cas_carc_api *api = ctx->api;
    struct cas_carc_tile_info tile = {.struct_size = sizeof tile};
    switch (api->feature_class(c, f)) {
    case CAS_CARC_CLOISTER:
        return api->tile_info(c, api->part_tile(c, f), &tile) == CAS_OK &&
                       tile.kind == ctx->abbey
                   ? "abbey"
                   : category;
    case CAS_CARC_CITY:
        return cas__am_has_figure(ctx, c, winner, ctx->mayor, f) ? "mayor-city" : category;
    case CAS_CARC_FIELD:
        if (when != CAS_CARC_DURING)
            return category;
        if (((const struct am_state *)cas__am_block_const(xctx, c))->join_scoring)
            return "barn-join-field";
        return strcmp(category, "field") == 0 ? "barn-field" : category;
    default:
        return category;
    }
}

/* ------------------------------------------------------------ render */

static int am_render(void *xctx, const cas_carc *c, int viewer,
                     enum cas_render_format format, const struct cas_writer *out)
{
    (void)viewer;
    const struct am_ctx *ctx = xctx;
    const struct cas_carc_api *api = ctx->api;
    const struct am_state *st = cas__am_block_const(xctx, c);
    int players = api->nplayers(api->game(c));
    struct cas_outbuf ob; /* one write for the host: the picture renders this every move */
    cas_out_init(&ob, out);
    if (format == CAS_RENDER_JSON) {
        cas_outs(&ob, "{\"abbey_held\":[");
        for (int p = 0; p < players; p++)
            cas_outf(&ob, "%s%d", p ? "," : "", !(st->abbey_used >> p & 1));
        cas_outs(&ob, "]}");
        return cas_out_finish(&ob);
    }
    cas_outs(&ob, "abbeys in hand:");
    for (int p = 0; p < players; p++)
        if (!(st->abbey_used >> p & 1))
            cas_outf(&ob, " %s", api->player_label(api->game(c), p));
    cas_outs(&ob, "\n");
    return cas_out_finish(&ob);
}

/* ------------------------------------------------------------ descriptor */

static const struct cas_carc_hooks am_hooks = {
    .struct_size = sizeof(struct cas_carc_hooks),
    .tile_placed = cas__am_tile_placed,
    .feature_scored = cas__am_feature_scored,
    .feature_points = cas__am_feature_points,
    .veto_deploy = cas__am_veto_deploy,
    .vetoes_deploy = cas__am_vetoes_deploy,
    .final_scoring = cas__am_final_scoring,
    .turn_end = cas__am_turn_end,
    .turn_scoring = cas__am_turn_scoring,
    .bag_empty = cas__am_bag_empty,
    .score_category = am_category,
};

static const struct cas_carc_figure_kind am_figures[] = {
    {
        .struct_size = sizeof(struct cas_carc_figure_kind),
        .name = "mayor",
        .per_player = 1,
        .strength = 0,
        .classes = CAS_CARC_CLASS_BIT(CAS_CARC_CITY),
        .strength_on = mayor_strength,
    },
    {
        .struct_size = sizeof(struct cas_carc_figure_kind),
        .name = "wagon",
        .per_player = 1,
        .strength = 1,
        .classes = CAS_CARC_CLASS_BIT(CAS_CARC_ROAD) | CAS_CARC_CLASS_BIT(CAS_CARC_CITY) |
                   CAS_CARC_CLASS_BIT(CAS_CARC_CLOISTER),
    },
    {
        .struct_size = sizeof(struct cas_carc_figure_kind),
        .name = "barn",
        .per_player = 1,
        .strength = 0,
        .classes = CAS_CARC_CLASS_BIT(CAS_CARC_FIELD),
        .flags = CAS_CARC_FIG_JOINS | CAS_CARC_FIG_STAYS | CAS_CARC_FIG_CORNER,
        .can_deploy = cas__am_barn_can_deploy,
    },
};

#define AM_PHASE(word, at)                                                 \
    {.struct_size = sizeof(struct cas_carc_phase), .name = #word, .slot = at,   \
     .actor = cas__am_##word##_actor, .legal = cas__am_##word##_legal,          \
     .apply = cas__am_##word##_apply, .text = cas__am_##word##_text,            \
     .parse = cas__am_##word##_parse}
static const struct cas_carc_phase am_phases[] = {
    {.struct_size = sizeof(struct cas_carc_phase), .name = "abbey",
     .slot = CAS_CARC_BEFORE_DRAW, .actor = cas__am_abbey_actor,
     .legal = cas__am_abbey_legal, .apply = cas__am_abbey_apply,
     .text = cas__am_abbey_text, .parse = cas__am_abbey_parse,
     .is_legal = cas__am_abbey_is_legal},
    AM_PHASE(wagon, CAS_CARC_AFTER_SCORING),
};

static const char *const am_tile_sets[] = {"abbey-mayor.tiles"};

/* `help` at the table (extension ABI 1.8). */
static const char am_help[] =
    "  abbey X,Y            instead of drawing, your abbey into a hole (an empty\n"
    "                       space with a tile on all four sides; the board numbers\n"
    "                       them): abbey 1,1\n"
    "  abbey keep           draw as usual and keep the abbey\n"
    "  deploy mayor WHERE   your mayor in an empty city of the tile just placed; it\n"
    "                       counts one per coat of arms (deploy mayor city N)\n"
    "  deploy wagon WHERE   your wagon on a road, city or monastery (deploy wagon\n"
    "                       road E+W); once that scores it may move on:\n"
    "  wagon X,Y FEATURE    move it to an open, empty feature on its tile or one\n"
    "                       around (wagon 0,1 city N); wagon home: back to you\n"
    "  deploy barn corner X,Y NW\n"
    "                       your barn where four field corners meet, named by the\n"
    "                       tile south-east of it (deploy barn corner 1,-1 NW); the\n"
    "                       farmers already in that field score at once\n";

static const struct cas_carc_expansion am_expansion = {
    .struct_size = sizeof(struct cas_carc_expansion),
    .abi_major = CAS_CARC_ABI_MAJOR,
    .abi_minor = CAS_CARC_ABI_MINOR,
    .tile_sets = am_tile_sets,
    .n_tile_sets = sizeof am_tile_sets / sizeof am_tile_sets[0],
    .figures = am_figures,
    .n_figures = sizeof am_figures / sizeof am_figures[0],
    .state_size = sizeof(struct am_state),
    .init = am_init,
    .fini = am_fini,
    .state_init = am_state_init,
    .state_check = am_state_check,
    .render = am_render,
    .hooks = &am_hooks,
    .phases = am_phases,
    .n_phases = sizeof am_phases / sizeof am_phases[0],
    .state_offset = am_state_offset,
    .notation_help = am_help,
};

static const struct cas_plugin am_plugin = {
    .struct_size = sizeof(struct cas_plugin),
    .abi_major = CAS_ABI_MAJOR,
    .abi_minor = CAS_ABI_MINOR,
    .fingerprint = CAS_BUILD_FINGERPRINT,
    .id = "abbey-mayor",
    .version = "1.0.0",
    .kind = CAS_KIND_EXPANSION,
    .extends = "carcassonne",
    .options = am_options,
    .n_options = sizeof am_options / sizeof am_options[0],
    .extension = &am_expansion,
};

const struct cas_plugin *cas__am_plugin(void)
{
    return &am_plugin;
}
