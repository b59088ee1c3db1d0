/*
 * test_expansion.c — a test-only Carcassonne expansion, "toll", built on
 * castellan/carcassonne.h alone, proving the extension ABI end to end:
 *  - content: a tile set (toll road, a 2x1 tile), the `toll` attribute, a
 *    figure kind "guard" of strength 2;
 *  - a CHAIN scoring hook: a completed road scores +2 per toll on it;
 *  - a new phase after scoring: whoever placed a tile on a toll road
 *    decides `toll tax` (+1 point, counted in the expansion's own state) or
 *    `toll skip`;
 *  - a tile source other than the bag: a BEFORE_DRAW phase lets a player
 *    place their GATE (a `hand` tile with `*` edges, like an abbey) with
 *    `gate X,Y ROTATION` instead of drawing, or `gate keep`;
 *  - its own serialized state, checked on deserialize, and its render part;
 *    its hooks find it where state_offset (1.6) said, or ask api->xstate
 *    when built for an older descriptor.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <castellan/carcassonne.h>

#include "plugin_harness.h"

const struct cas_plugin *cas_plugin_entry(void);

struct toll_ctx {
    const struct cas_carc_api *api;
    int toll_attr;
    int gate_kind;
    int offset_told;     /* state_offset was called (a 1.6 descriptor) */
    size_t state_offset; /* what it said */
};

struct toll_state {
    uint8_t taxes[6];
    uint8_t gate_used[6];
};

/* The services table, as init received it (read-only copy for the hooks of
 * the small FIRST-answer expansions below, which have no init). */
static struct cas_carc_api toll_api_copy;
/* The teardown of an expansion built for 1.1, which had no fini_host, must
 * find its host by itself: here, the one toll_init saw last. */
static const struct cas_host *legacy_host;

static int toll_init(const struct cas_carc_api *api, const struct cas_host *host,
                     const cas_carc_game *game, const struct cas_option_value *options,
                     size_t n_options, void **xctx, size_t *bad_option)
{
    (void)options;
    (void)n_options;
    (void)bad_option;
    struct toll_ctx *ctx = host->alloc(host->ctx, sizeof *ctx);
    if (!ctx)
        return CAS_ENOMEM;
    *ctx = (struct toll_ctx){.api = api}; /* not told an offset until state_offset */
    toll_api_copy = *api;
    legacy_host = host;
    ctx->toll_attr = api->attribute_index(game, "toll");
    ctx->gate_kind = api->tile_kind_index(game, "GATE");
    *xctx = ctx;
    return ctx->toll_attr >= 0 && ctx->gate_kind >= 0 ? CAS_OK : CAS_EDATA;
}

static int teardowns; /* fini and fini_host calls, for the teardown test */
/* state_offset calls, and toll taxes whose block the offset found (or,
 * not told, api->xstate did) against those where it was api->xstate's */
static int offsets_told, taxes_in_block, taxes_in_xstate;

static void toll_state_offset(void *xctx, size_t offset)
{
    struct toll_ctx *ctx = xctx;
    ctx->offset_told = 1;
    ctx->state_offset = offset;
    offsets_told++;
}

/* The toll's block of c: where state_offset said it lies, else asked. */
static struct toll_state *toll_block(const struct toll_ctx *ctx, cas_carc *c, void *xctx)
{
    return ctx->offset_told ? cas_carc_block(c, ctx->state_offset) : ctx->api->xstate(c, xctx);
}

static void toll_fini_host(void *xctx, const struct cas_host *host)
{
    teardowns++;
    host->release(host->ctx, xctx);
}

static void toll_fini_1_1(void *xctx)
{
    teardowns += 100;
    legacy_host->release(legacy_host->ctx, xctx);
}

static int toll_check(void *xctx, const cas_carc *c, const void *xstate)
{
    (void)xctx;
    (void)c;
    const struct toll_state *st = xstate;
    for (int p = 0; p < 6; p++)
        if (st->taxes[p] > 72)
            return CAS_ECORRUPT;
    return CAS_OK;
}

/* CHAIN: +2 per toll on a road completed during the game. */
static int events_wanted_when_scoring = -1; /* what the hook last saw (1.4) */

static int64_t toll_points(void *xctx, const cas_carc *c, cas_carc_feature f,
                           enum cas_carc_when when, int winner, int64_t points)
{
    (void)winner;
    struct toll_ctx *ctx = xctx;
    events_wanted_when_scoring = cas_carc_events_wanted(ctx->api, c);
    struct cas_carc_feature_info info = {.struct_size = sizeof info};
    if (ctx->api->feature_info(c, f, &info) != CAS_OK || info.cls != CAS_CARC_ROAD ||
        when != CAS_CARC_DURING)
        return points;
    return points + 2 * ctx->api->attribute(c, f, ctx->toll_attr);
}

/* CHAIN (1.3): a road with a toll scores as a "toll-road". */
static const char *toll_category(void *xctx, const cas_carc *c, cas_carc_feature f,
                                 enum cas_carc_when when, int winner, const char *category)
{
    (void)when;
    (void)winner;
    struct toll_ctx *ctx = xctx;
    return ctx->api->feature_class(c, f) == CAS_CARC_ROAD &&
                   ctx->api->attribute(c, f, ctx->toll_attr) > 0
               ? "toll-road"
               : category;
}

static int on_toll_road(const struct toll_ctx *ctx, const cas_carc *c)
{
    int tile = ctx->api->placed_tile(c);
    cas_carc_feature features[16];
    size_t n;
    if (tile < 0 || ctx->api->tile_features(c, tile, features, 16, &n) != CAS_OK)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (ctx->api->attribute(c, features[i], ctx->toll_attr) > 0)
            return 1;
    return 0;
}

static int toll_actor(void *xctx, const cas_carc *c)
{
    struct toll_ctx *ctx = xctx;
    return on_toll_road(ctx, c) ? ctx->api->active_player(c) : CAS_CARC_PHASE_SKIP;
}

static int toll_legal(void *xctx, const cas_carc *c, uint64_t *payloads, size_t cap,
                      size_t *count)
{
    (void)xctx;
    (void)c;
    *count = 2;
    for (size_t i = 0; i < 2 && i < cap; i++)
        payloads[i] = i; /* 0 skip, 1 tax */
    return cap < 2 ? CAS_ENOSPC : CAS_OK;
}

static int toll_apply(void *xctx, cas_carc *c, uint64_t payload)
{
    struct toll_ctx *ctx = xctx;
    if (payload == 1) {
        struct toll_state *st = toll_block(ctx, c, xctx);
        taxes_in_block++;
        taxes_in_xstate += st == ctx->api->xstate(c, xctx);
        int p = ctx->api->active_player(c);
        st->taxes[p]++;
        cas_carc_add_score_about(ctx->api, c, p, 1, "toll", "toll", "toll booth",
                                 CAS_CARC_DURING);
    }
    return CAS_CARC_PHASE_DONE;
}

static int toll_text(void *xctx, const cas_carc *c, uint64_t payload, char *buf, size_t cap)
{
    (void)xctx;
    (void)c;
    int len = snprintf(buf, cap, "%s", payload ? "toll tax" : "toll skip");
    return (size_t)len < cap ? len : CAS_ENOSPC;
}

static int toll_parse(void *xctx, const cas_carc *c, const char *text, uint64_t *payload)
{
    (void)xctx;
    (void)c;
    if (strcmp(text, "toll tax") == 0 || strcmp(text, "toll skip") == 0) {
        *payload = strcmp(text, "toll tax") == 0;
        return CAS_OK;
    }
    return CAS_EPARSE;
}

static int toll_render(void *xctx, const cas_carc *c, int viewer,
                       enum cas_render_format format, const struct cas_writer *out)
{
    (void)viewer;
    struct toll_ctx *ctx = xctx;
    const struct toll_state *st = ctx->api->xstate_const(c, xctx);
    if (format == CAS_RENDER_JSON)
        return cas_writef(out, "{\"taxes\":[%d,%d]}", st->taxes[0], st->taxes[1]);
    return cas_writef(out, "tolls collected: Red %d, Blue %d\n", st->taxes[0], st->taxes[1]);
}

/* ---- the gate: a tile from the hand instead of the draw */

#define GATE_KEEP 0
#define GATE_PAYLOAD(x, y, rot)                                                 \
    (1 + (((uint64_t)(uint16_t)((x) + 0x8000) << 18) |                            \
          ((uint64_t)(uint16_t)((y) + 0x8000) << 2) | (uint64_t)(rot)))

static int gate_asked; /* gate_actor calls, for the retirement test */

/* Every gate placed: the phase retires (1.7). */
static int gate_actor(void *xctx, const cas_carc *c)
{
    struct toll_ctx *ctx = xctx;
    const struct toll_state *st = ctx->api->xstate_const(c, xctx);
    int p = ctx->api->active_player(c), used = 0;
    gate_asked++;
    for (int i = 0; i < 6; i++)
        used += st->gate_used[i];
    if (used >= ctx->api->tile_kind_count(ctx->api->game(c), ctx->gate_kind))
        return ctx->api->abi_minor >= 7 ? CAS_CARC_PHASE_RETIRE : CAS_CARC_PHASE_SKIP;
    return st->gate_used[p] ? CAS_CARC_PHASE_SKIP : p;
}

static int gate_legal(void *xctx, const cas_carc *c, uint64_t *payloads, size_t cap,
                      size_t *count)
{
    struct toll_ctx *ctx = xctx;
    int xy[2 * 512];
    size_t spots, n = 0;
    int rc = ctx->api->open_spots(c, xy, 512, &spots);
    if (rc != CAS_OK)
        return rc;
    if (n < cap)
        payloads[n] = GATE_KEEP;
    n++;
    for (size_t i = 0; i < spots; i++)
        for (int rot = 0; rot < 4; rot++)
            if (ctx->api->can_place(c, ctx->gate_kind, xy[2 * i], xy[2 * i + 1], rot)) {
                if (n < cap)
                    payloads[n] = GATE_PAYLOAD(xy[2 * i], xy[2 * i + 1], rot);
                n++;
            }
    *count = n;
    return n > cap ? CAS_ENOSPC : CAS_OK;
}

static int gate_apply(void *xctx, cas_carc *c, uint64_t payload)
{
    struct toll_ctx *ctx = xctx;
    if (payload == GATE_KEEP)
        return CAS_CARC_PHASE_DONE;
    uint64_t v = payload - 1;
    int x = (int)((v >> 18) & 0xFFFF) - 0x8000, y = (int)((v >> 2) & 0xFFFF) - 0x8000;
    int rc = ctx->api->place_tile(c, ctx->gate_kind, x, y, (int)(v & 3));
    if (rc != CAS_OK)
        return rc;
    struct toll_state *st = ctx->api->xstate(c, xctx);
    st->gate_used[ctx->api->active_player(c)] = 1;
    return CAS_CARC_PHASE_DONE;
}

static int gate_text(void *xctx, const cas_carc *c, uint64_t payload, char *buf, size_t cap)
{
    (void)xctx;
    (void)c;
    int len;
    if (payload == GATE_KEEP) {
        len = snprintf(buf, cap, "gate keep");
    } else {
        uint64_t v = payload - 1;
        len = snprintf(buf, cap, "gate %d,%d %d", (int)((v >> 18) & 0xFFFF) - 0x8000,
                       (int)((v >> 2) & 0xFFFF) - 0x8000, (int)(v & 3) * 90);
    }
    return (size_t)len < cap ? len : CAS_ENOSPC;
}

static int gate_parse(void *xctx, const cas_carc *c, const char *text, uint64_t *payload)
{
    (void)xctx;
    (void)c;
    int x, y, deg, used = 0;
    if (strcmp(text, "gate keep") == 0) {
        *payload = GATE_KEEP;
        return CAS_OK;
    }
    if (sscanf(text, "gate %d,%d %d%n", &x, &y, &deg, &used) != 3 || text[used] ||
        deg % 90 || deg < 0 || deg > 270)
        return CAS_EPARSE;
    *payload = GATE_PAYLOAD(x, y, deg / 90);
    return CAS_OK;
}

static const struct cas_carc_hooks toll_hooks = {
    .struct_size = sizeof(struct cas_carc_hooks),
    .feature_points = toll_points,
    .score_category = toll_category,
};

static const struct cas_carc_phase toll_phases[] = {{
    .struct_size = sizeof(struct cas_carc_phase),
    .name = "gate",
    .slot = CAS_CARC_BEFORE_DRAW,
    .actor = gate_actor,
    .legal = gate_legal,
    .apply = gate_apply,
    .text = gate_text,
    .parse = gate_parse,
}, {
    .struct_size = sizeof(struct cas_carc_phase),
    .name = "toll",
    .slot = CAS_CARC_AFTER_SCORING,
    .actor = toll_actor,
    .legal = toll_legal,
    .apply = toll_apply,
    .text = toll_text,
    .parse = toll_parse,
}};

static const struct cas_carc_figure_kind toll_figures[] = {{
    .struct_size = sizeof(struct cas_carc_figure_kind),
    .name = "guard",
    .per_player = 1,
    .strength = 2,
    .classes = CAS_CARC_CLASS_BIT(CAS_CARC_ROAD) | CAS_CARC_CLASS_BIT(CAS_CARC_CITY),
}};

static const char *const toll_tile_sets[] = {"toll.tiles"};
static const char *const toll_attributes[] = {"toll"};

static const struct cas_carc_expansion toll_expansion = {
    .struct_size = sizeof(struct cas_carc_expansion),
    .abi_major = CAS_CARC_ABI_MAJOR,
    .abi_minor = CAS_CARC_ABI_MINOR,
    .tile_sets = toll_tile_sets,
    .n_tile_sets = 1,
    .attributes = toll_attributes,
    .n_attributes = 1,
    .figures = toll_figures,
    .n_figures = 1,
    .state_size = sizeof(struct toll_state),
    .init = toll_init,
    .fini = toll_fini_1_1,
    .fini_host = toll_fini_host,
    .state_check = toll_check,
    .render = toll_render,
    .hooks = &toll_hooks,
    .phases = toll_phases,
    .n_phases = 2,
    .state_offset = toll_state_offset,
};

static char data_dir[1024];

static struct cas_expansion_ref toll_ref(const struct cas_carc_expansion *ext)
{
    const char *src = getenv("CASTELLAN_SOURCE_DIR");
    snprintf(data_dir, sizeof data_dir, "%s/tests/carcassonne/data", src ? src : ".");
    return (struct cas_expansion_ref){.struct_size = sizeof(struct cas_expansion_ref),
                                      .id = "toll", .version = "1.0.0",
                                      .data_dir = data_dir, .extension = ext};
}

static void open_with_toll(struct cas_test_game *g, const char *tiles)
{
    static struct cas_expansion_ref ref;
    ref = toll_ref(&toll_expansion);
    const char *opts[] = {tiles, NULL};
    cas_test_game_open(g, cas_plugin_entry(), 2, opts, &ref, 1);
}

/* The toll as an expansion built for extension ABI 1.`minor` sees it: its
 * descriptor ends before the first field that version lacks.  The game
 * keeps pointers to both, so they live on past the call. */
static void open_toll_built_for(struct cas_test_game *g, size_t struct_size, uint16_t minor,
                                const char *tiles)
{
    static struct cas_carc_expansion older;
    static struct cas_expansion_ref ref;
    older = toll_expansion;
    older.struct_size = struct_size;
    older.abi_minor = minor;
    ref = toll_ref(&older);
    const char *opts[] = {tiles, NULL};
    cas_test_game_open(g, cas_plugin_entry(), 2, opts, &ref, 1);
}

/* The phase stops the turn for its decision; the chain hook adds 2 per
 * toll to the completed road, which crosses both spaces of a 2x1 tile. */
static void test_phase_and_scoring_hook(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    open_with_toll(&g, "tiles=*:0,D:1,BIG:1,W:2");
    cas_test_play_record(&g, "draw BIG\nplace BIG 1,0 0\ndeploy meeple road E1+W0\n");
    assert_int_equal(g.vt->current(g.state), 0);
    char texts[256];
    cas_test_legal_texts(&g, texts, sizeof texts);
    assert_string_equal(texts, "toll skip\ntoll tax\n");
    cas_test_expect_buffer_protocol(&g); /* a short buffer holds wrapped codes */
    cas_test_play_record(&g, "toll tax\n"
                             "draw W\nplace W 3,0 0\npass\ntoll skip\n"
                             "draw W\nplace W -1,0 0\npass\n");
    /* road: W, D, BIG (2 spaces), W = 5, +2 per toll (2) = 9 */
    assert_non_null(strstr(g.events, "Red +9 road (5 tiles) [toll-road]\n"));
    cas_test_play(&g, "toll tax");
    cas_test_expect_scorings(&g, "0 +1 toll play toll booth\n"
                                 "0 +9 toll-road play road at 1,0\n"
                                 "0 +1 toll play toll booth\n");
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scores(&g, (const int64_t[]){1 + 9 + 1, 0});
    char *text = cas_test_render(&g, CAS_VIEWER_PUBLIC, CAS_RENDER_TEXT);
    assert_non_null(strstr(text, "tolls collected: Red 2, Blue 0"));
    free(text);
    char *json = cas_test_render(&g, CAS_VIEWER_PUBLIC, CAS_RENDER_JSON);
    assert_non_null(strstr(json, "\"expansions\":{\"toll\":{\"taxes\":[2,0]}}"));
    free(json);
    cas_test_game_close(&g);
}

/* A 2x1 tile lists every anchor and rotation where both spaces fit. */
static void test_two_space_tile_placements(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    open_with_toll(&g, "tiles=*:0,D:1,BIG:1");
    cas_test_play(&g, "draw BIG");
    char texts[2048];
    cas_test_legal_texts(&g, texts, sizeof texts);
    /* the road meets D's road east or west lying horizontally, or the tile
     * lies below D's south field (both of its long sides are field) */
    assert_string_equal(texts, "place BIG -2,0 0\nplace BIG -1,0 180\n"
                               "place BIG -1,1 0\nplace BIG 0,1 0\n"
                               "place BIG 0,1 180\nplace BIG 1,0 0\n"
                               "place BIG 1,1 180\nplace BIG 2,0 180\n");
    /* the 1.2 service lists the same placements as x,y,rot triples, for a
     * tile an expansion places from a hand */
    int xyr[3 * 8];
    size_t n;
    const cas_carc *c = (const cas_carc *)g.state;
    int big = toll_api_copy.tile_kind_index(toll_api_copy.game(c), "BIG");
    assert_int_equal(toll_api_copy.placements(c, big, xyr, 2, &n), CAS_ENOSPC);
    assert_int_equal(n, 8);
    assert_int_equal(toll_api_copy.placements(c, big, xyr, 8, &n), CAS_OK);
    static const int expected[3 * 8] = {-2, 0, 0, -1, 0, 2, -1, 1, 0, 0, 1, 0,
                                        0,  1, 2, 1,  0, 0, 1,  1, 2, 2, 0, 2};
    assert_memory_equal(xyr, expected, sizeof expected);
    cas_test_game_close(&g);
}

/* A placement rule on spaces: no tile may cover x = 1, y -1..1 (east of
 * D), said three ways below. */
static const int column_box[4] = {1, -1, 1, 1};

static int in_column(int x, int y)
{
    return x >= column_box[0] && y >= column_box[1] && x <= column_box[2] &&
           y <= column_box[3];
}

/* VETO per placement: BIG's second space lies east, south, west or north
 * of its anchor as it turns. */
static int column_veto(void *xctx, const cas_carc *c, int kind, int x, int y, int rot)
{
    const struct toll_ctx *ctx = xctx;
    static const int second_dx[4] = {1, 0, -1, 0}, second_dy[4] = {0, 1, 0, -1};
    int big = kind == ctx->api->tile_kind_index(ctx->api->game(c), "BIG");
    return in_column(x, y) || (big && in_column(x + second_dx[rot], y + second_dy[rot]));
}

/* VETO AREA (1.4): the same rule as one box. */
static int column_area(void *xctx, const cas_carc *c, int kind, int *boxes, size_t cap,
                       size_t *count)
{
    (void)xctx;
    (void)c;
    (void)kind;
    *count = 1;
    if (cap < 1)
        return CAS_ENOSPC;
    memcpy(boxes, column_box, sizeof column_box);
    return CAS_OK;
}

/* An area with more boxes than the engine offers: it asks column_veto. */
static int column_area_too_big(void *xctx, const cas_carc *c, int kind, int *boxes,
                               size_t cap, size_t *count)
{
    (void)xctx;
    (void)c;
    (void)kind;
    (void)boxes;
    *count = cap + 1;
    return CAS_ENOSPC;
}

static void expect_column_vetoed(const struct cas_carc_hooks *hooks)
{
    static struct cas_carc_expansion vetoing;
    vetoing = toll_expansion;
    vetoing.hooks = hooks;
    static struct cas_expansion_ref ref;
    ref = toll_ref(&vetoing);
    const char *opts[] = {"tiles=*:0,D:1,BIG:1", NULL};
    struct cas_test_game g;
    cas_test_game_open(&g, cas_plugin_entry(), 2, opts, &ref, 1);
    cas_test_play(&g, "draw BIG");
    char texts[2048];
    cas_test_legal_texts(&g, texts, sizeof texts);
    /* of test_two_space_tile_placements' eight, those off the column */
    assert_string_equal(texts, "place BIG -2,0 0\nplace BIG -1,0 180\n"
                               "place BIG -1,1 0\nplace BIG 0,1 180\n");
    const cas_carc *c = (const cas_carc *)g.state;
    int big = toll_api_copy.tile_kind_index(toll_api_copy.game(c), "BIG");
    assert_false(toll_api_copy.can_place(c, big, 1, 1, 2));
    assert_true(toll_api_copy.can_place(c, big, 0, 1, 2));
    assert_int_equal(cas_test_try_play(&g, "place BIG 0,1 0"), CAS_EILLEGAL);
    cas_test_play(&g, "place BIG -1,1 0");
    cas_test_game_close(&g);
}

/* veto_area (1.4) forbids exactly what veto_placement does for the same
 * rule, in the listing, can_place and a played action; an area that does
 * not fit the engine's boxes falls back to veto_placement. */
static void test_veto_area_as_veto_placement(void **unused)
{
    (void)unused;
    static const struct cas_carc_hooks by_placement = {
        .struct_size = sizeof(struct cas_carc_hooks), .veto_placement = column_veto};
    static const struct cas_carc_hooks by_area = {
        .struct_size = sizeof(struct cas_carc_hooks), .veto_area = column_area};
    static const struct cas_carc_hooks by_placement_after_area = {
        .struct_size = sizeof(struct cas_carc_hooks), .veto_placement = column_veto,
        .veto_area = column_area_too_big};
    expect_column_vetoed(&by_placement);
    expect_column_vetoed(&by_area);
    expect_column_vetoed(&by_placement_after_area);
}

/* The expansion's figure kind: a guard (strength 2) beats one meeple. */
static void test_figure_strength(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    open_with_toll(&g, "tiles=*:0,D:1,G:1,E:1,N:2");
    cas_test_play_record(&g, "draw G\nplace G 0,-1 90\ndeploy meeple city N+S\n"
                             "draw E\nplace E 1,-1 0\ndeploy guard city N\n"
                             "draw N\nplace N 0,-2 180\npass\n"
                             "draw N\nplace N 1,-2 270\npass\n");
    cas_test_expect_scores(&g, (const int64_t[]){0, 10});
    cas_test_game_close(&g);
}

/* The expansion's block travels with serialize/deserialize and is checked. */
static void test_state_block_serialized(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    open_with_toll(&g, "tiles=*:0,D:1,TOLL:2");
    cas_test_play_record(&g, "draw TOLL\nplace TOLL 1,0 0\npass\ntoll tax\n");
    cas_state *twin = cas_test_restored_twin(&g);
    assert_true(g.vt->hash(twin) == g.vt->hash(g.state));
    cas_test_expect_same_choices(&g, twin);
    g.vt->state_free(twin);
    uint8_t bytes[4096];
    size_t len;
    assert_int_equal(g.vt->serialize(g.state, CAS_SERIAL_FULL, bytes, sizeof bytes, &len),
                     CAS_OK);
    cas_state *back;
    bytes[len - 12] = 200; /* Red's taxes in the toll block */
    assert_int_equal(g.vt->deserialize(g.game, bytes, len, &back), CAS_ECORRUPT);
    assert_non_null(strstr(g.error, "expansion rejected its block"));
    cas_test_game_close(&g);
}

/* The render (which asks api->xstate) shows the taxes. */
static void expect_tolls(struct cas_test_game *g, const char *tolls)
{
    char *text = cas_test_render(g, CAS_VIEWER_PUBLIC, CAS_RENDER_TEXT);
    if (!strstr(text, tolls))
        fail_msg("render lacks \"%s\":\n%s", tolls, text);
    free(text);
}

/* 1.6: the engine tells the block's offset once a game, and it finds the
 * block api->xstate finds; a 1.5 descriptor is not told and asks. */
static void test_state_offset_finds_the_block(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    offsets_told = taxes_in_block = taxes_in_xstate = 0;
    open_with_toll(&g, "tiles=*:0,D:1,TOLL:2");
    assert_int_equal(offsets_told, 1);
    cas_test_play_record(&g, "draw TOLL\nplace TOLL 1,0 0\npass\ntoll tax\n");
    assert_int_equal(taxes_in_block, 1);
    assert_int_equal(taxes_in_xstate, 1);
    expect_tolls(&g, "tolls collected: Red 1, Blue 0");
    cas_test_game_close(&g);

    offsets_told = taxes_in_block = taxes_in_xstate = 0;
    open_toll_built_for(&g, offsetof(struct cas_carc_expansion, state_offset), 5,
                        "tiles=*:0,D:1,TOLL:2");
    cas_test_play_record(&g, "draw TOLL\nplace TOLL 1,0 0\npass\ntoll tax\n");
    assert_int_equal(offsets_told, 0);
    assert_int_equal(taxes_in_xstate, 1);
    expect_tolls(&g, "tolls collected: Red 1, Blue 0");
    cas_test_game_close(&g);
}

/* An expansion built for another extension ABI major is refused. */
static void test_abi_major_refused(void **unused)
{
    (void)unused;
    struct cas_carc_expansion future = toll_expansion;
    future.abi_major = CAS_CARC_ABI_MAJOR + 1;
    future.abi_minor = 0;
    struct cas_expansion_ref ref = toll_ref(&future);
    struct cas_test_game g;
    assert_int_equal(cas_test_game_try_open(&g, cas_plugin_entry(), 2, NULL, &ref, 1),
                     CAS_EVERSION);
    assert_non_null(strstr(g.error, "expansion toll: built for Carcassonne extension ABI 2.0"));
    cas_test_game_close(&g);
}

/* A tile from the hand instead of the draw; its `*` edges fit anything
 * and close the road they touch. */
static void test_tile_from_hand(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    open_with_toll(&g, "tiles=*:0,D:1,W:1,GATE:2");
    assert_int_equal(g.vt->current(g.state), 0);
    char texts[4096];
    cas_test_legal_texts(&g, texts, sizeof texts);
    assert_true(strncmp(texts, "gate keep\ngate -1,0 0\n", 22) == 0);
    cas_test_play_record(&g, "gate 1,0 0\ndeploy meeple monastery\n"
                             "gate keep\n"
                             "draw W\nplace W -1,0 0\ndeploy meeple road E\n");
    assert_non_null(strstr(g.events, "Blue +2 road (2 tiles)"));
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scores(&g, (const int64_t[]){2, 2}); /* Red: monastery 1+1 */
    cas_test_game_close(&g);
}

/* The first legal action, or at a chance node the first ticket. */
static void play_first(struct cas_test_game *g)
{
    if (g->vt->current(g->state) == CAS_ACTOR_CHANCE) {
        cas_test_draw_by_ticket(g, 0);
        return;
    }
    char texts[8192];
    cas_test_legal_texts(g, texts, sizeof texts);
    texts[strcspn(texts, "\n")] = '\0';
    cas_test_play(g, texts);
}

/* Play n actions (fewer if the game ends) on state s of g. */
static void play_first_on(struct cas_test_game *g, cas_state *s, int n)
{
    cas_state *own = g->state;
    g->state = s;
    for (int i = 0; i < n && g->vt->current(s) != CAS_ACTOR_TERMINAL; i++)
        play_first(g);
    g->state = own;
}

/* An actor that says RETIRE (1.7) is asked no more in that game, nor in
 * a clone of it; a state rebuilt from its bytes asks once more, is told
 * the same, and plays on alike. */
static void test_retired_phase_is_asked_no_more(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    open_with_toll(&g, "tiles=*:0,D:1,W:6,GATE:2");
    cas_test_play_record(&g, "gate 1,0 0\npass\ngate -1,0 0\n");
    cas_state *twin = cas_test_restored_twin(&g), *clone = NULL;
    gate_asked = 0;
    cas_test_play(&g, "pass"); /* Red's turn: both gates are down */
    assert_int_equal(gate_asked, 1);
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_CHANCE);
    assert_int_equal(g.vt->state_clone(g.state, &clone), CAS_OK);
    play_first_on(&g, g.state, 12);
    play_first_on(&g, clone, 12);
    assert_int_equal(gate_asked, 1); /* a turn start or more later */
    play_first_on(&g, twin, 1); /* the same "pass": asked again */
    assert_int_equal(gate_asked, 2);
    play_first_on(&g, twin, 12);
    assert_int_equal(gate_asked, 2);
    cas_test_expect_same_choices(&g, twin);
    cas_test_expect_same_choices(&g, clone);
    g.vt->state_free(twin);
    g.vt->state_free(clone);
    cas_test_game_close(&g);
}

/* FIRST hooks: the first expansion that answers sets a meeple's strength. */
static int weak_meeple(void *xctx, const cas_carc *c, int figure, cas_carc_feature f)
{
    (void)xctx;
    (void)c;
    (void)f;
    return figure >= 0 ? 0 : CAS_CARC_NO_ANSWER; /* every figure: 0 */
}

static int strong_meeple(void *xctx, const cas_carc *c, int figure, cas_carc_feature f)
{
    (void)xctx;
    struct cas_carc_figure on[8];
    size_t n;
    const struct cas_carc_api *api = &toll_api_copy;
    if (api->figures_on(c, f, on, 8, &n) != CAS_OK)
        return CAS_CARC_NO_ANSWER;
    for (size_t i = 0; i < n; i++)
        if (on[i].id == figure && on[i].kind == 0)
            return 3; /* meeples: 3; other kinds: no answer */
    return CAS_CARC_NO_ANSWER;
}

static void city_duel(const struct cas_carc_expansion *first,
                      const struct cas_carc_expansion *second, const int64_t *expected)
{
    struct cas_expansion_ref refs[3] = {toll_ref(&toll_expansion), toll_ref(first),
                                        toll_ref(second)};
    refs[1].id = "first";
    refs[2].id = "second";
    const char *opts[] = {"tiles=*:0,D:1,G:1,E:1,N:2", NULL};
    struct cas_test_game g;
    cas_test_game_open(&g, cas_plugin_entry(), 2, opts, refs, 3);
    cas_test_play_record(&g, "draw G\nplace G 0,-1 90\ndeploy meeple city N+S\n"
                             "draw E\nplace E 1,-1 0\ndeploy guard city N\n"
                             "draw N\nplace N 0,-2 180\npass\n"
                             "draw N\nplace N 1,-2 270\npass\n");
    cas_test_expect_scores(&g, expected);
    cas_test_game_close(&g);
}

static void test_first_answer_wins(void **unused)
{
    (void)unused;
    static const struct cas_carc_hooks weak_hooks = {
        .struct_size = sizeof(struct cas_carc_hooks), .figure_strength = weak_meeple};
    static const struct cas_carc_hooks strong_hooks = {
        .struct_size = sizeof(struct cas_carc_hooks), .figure_strength = strong_meeple};
    struct cas_carc_expansion weak = {.struct_size = sizeof weak,
                                      .abi_major = CAS_CARC_ABI_MAJOR,
                                      .hooks = &weak_hooks};
    struct cas_carc_expansion strong = weak;
    strong.hooks = &strong_hooks;
    /* weak first: Red's meeple 0, Blue's guard 0: nobody scores */
    city_duel(&weak, &strong, (const int64_t[]){0, 0});
    /* strong first: Red's meeple 3 beats the guard, which strong leaves to
     * weak (0) */
    city_duel(&strong, &weak, (const int64_t[]){10, 0});
}

/* fini_host (1.2) is called with the host and wins over fini; a 1.1
 * descriptor, too short to hold fini_host, still gets its fini. */
static void test_teardown_gets_the_host(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    teardowns = 0;
    open_with_toll(&g, "tiles=*:0,D:1,BIG:1,W:2");
    cas_test_game_close(&g);
    assert_int_equal(teardowns, 1);

    teardowns = 0;
    open_toll_built_for(&g, offsetof(struct cas_carc_expansion, fini_host), 1,
                        "tiles=*:0,D:1,BIG:1,W:2");
    cas_test_game_close(&g);
    assert_int_equal(teardowns, 100);
}

/* An expansion built for 1.2 has a hooks table too short for
 * score_category: the engine does not read past it, and its roads score
 * as plain "road". */
static void test_hooks_of_1_2_keep_the_engine_category(void **unused)
{
    (void)unused;
    static struct cas_carc_hooks hooks_1_2;
    static struct cas_carc_expansion legacy;
    hooks_1_2 = toll_hooks;
    hooks_1_2.struct_size = offsetof(struct cas_carc_hooks, score_category);
    legacy = toll_expansion;
    legacy.abi_minor = 2;
    legacy.hooks = &hooks_1_2;
    static struct cas_expansion_ref ref;
    ref = toll_ref(&legacy);
    const char *opts[] = {"tiles=*:0,D:1,BIG:1,W:2", NULL};
    struct cas_test_game g;
    cas_test_game_open(&g, cas_plugin_entry(), 2, opts, &ref, 1);
    cas_test_play_record(&g, "draw BIG\nplace BIG 1,0 0\ndeploy meeple road E1+W0\n"
                             "toll skip\ndraw W\nplace W 3,0 0\npass\ntoll skip\n"
                             "draw W\nplace W -1,0 0\npass\ntoll skip\n");
    cas_test_expect_scorings(&g, "0 +9 road play road at 1,0\n");
    cas_test_game_close(&g);
}

/* A deploy veto (no meeple on a road) that says it concerns only tiles
 * of kind W (1.4 vetoes_deploy): on other tiles it is never asked.  It is
 * handed the part on the tile where the figure would stand (1.5), counted
 * in road_veto_elsewhere when that is not the placed tile. */
static int road_veto_calls, road_veto_elsewhere;
static int no_road_meeples(void *xctx, const cas_carc *c, int player, int kind,
                           cas_carc_feature f)
{
    (void)xctx;
    (void)player;
    road_veto_calls++;
    road_veto_elsewhere += toll_api_copy.part_tile(c, f) != toll_api_copy.placed_tile(c);
    return kind == 0 && toll_api_copy.feature_class(c, f) == CAS_CARC_ROAD;
}

/* The first road part of placement `tile`. */
static cas_carc_feature road_part_of(const cas_carc *c, int tile)
{
    cas_carc_feature parts[16];
    size_t n;
    assert_int_equal(toll_api_copy.tile_features(c, tile, parts, 16, &n), CAS_OK);
    for (size_t i = 0; i < n; i++)
        if (toll_api_copy.feature_class(c, parts[i]) == CAS_CARC_ROAD)
            return parts[i];
    fail_msg("placement %d has no road", tile);
    return CAS_CARC_NO_FEATURE;
}

static int only_on_w(void *xctx, const cas_carc_game *game, int tile_kind, int figure_kind)
{
    (void)xctx;
    (void)figure_kind;
    return tile_kind == toll_api_copy.tile_kind_index(game, "W");
}

static void test_deploy_veto_asked_only_where_it_may_refuse(void **unused)
{
    (void)unused;
    static const struct cas_carc_hooks road_hooks = {.struct_size = sizeof road_hooks,
                                                     .veto_deploy = no_road_meeples,
                                                     .vetoes_deploy = only_on_w};
    static const struct cas_carc_expansion roadblock = {.struct_size = sizeof roadblock,
                                                        .abi_major = CAS_CARC_ABI_MAJOR,
                                                        .abi_minor = CAS_CARC_ABI_MINOR,
                                                        .hooks = &road_hooks};
    struct cas_expansion_ref refs[2] = {toll_ref(&toll_expansion), toll_ref(&roadblock)};
    refs[1].id = "roadblock";
    const char *opts[] = {"tiles=*:0,D:1,BIG:1,W:2", NULL};
    struct cas_test_game g;
    char texts[1024];
    cas_test_game_open(&g, cas_plugin_entry(), 2, opts, refs, 2);
    road_veto_calls = 0;
    cas_test_play_record(&g, "draw BIG\nplace BIG 1,0 0\n");
    cas_test_legal_texts(&g, texts, sizeof texts);
    assert_non_null(strstr(texts, "deploy meeple road E1+W0\n"));
    assert_int_equal(road_veto_calls, 0);
    road_veto_elsewhere = 0;
    cas_test_play_record(&g, "pass\ntoll skip\ndraw W\nplace W 3,0 0\n");
    cas_test_legal_texts(&g, texts, sizeof texts);
    assert_null(strstr(texts, "deploy meeple road"));
    assert_non_null(strstr(texts, "deploy meeple field"));
    assert_true(road_veto_calls > 0);
    /* W's road joins BIG's, whose root lies on BIG: the part is still W's */
    assert_int_equal(road_veto_elsewhere, 0);
    /* deploy_vetoed (1.5) asks the same vetoes for any part: W's road is
     * refused, BIG's road (a tile the veto does not concern) is not */
    const cas_carc *c = (const cas_carc *)g.state;
    assert_int_equal(toll_api_copy.deploy_vetoed(c, 0, 0, road_part_of(c, 2)), 1);
    assert_int_equal(toll_api_copy.deploy_vetoed(c, 0, 0, road_part_of(c, 1)), 0);
    assert_int_equal(toll_api_copy.deploy_vetoed(c, 0, 0, CAS_CARC_NO_FEATURE), 0);
    cas_test_game_close(&g);
}

/* Roads or cities (cls) without an open edge, found through the services
 * alone: every part of every placement, each feature counted once. */
static int closed_by_walk(const cas_carc *c, int cls)
{
    cas_carc_feature counted[512], parts[16];
    int n = 0;
    for (int t = 0; t < toll_api_copy.tile_count(c); t++) {
        size_t nparts;
        assert_int_equal(toll_api_copy.tile_features(c, t, parts, 16, &nparts), CAS_OK);
        for (size_t i = 0; i < nparts; i++) {
            if (toll_api_copy.feature_class(c, parts[i]) != cls ||
                !toll_api_copy.feature_complete(c, parts[i]))
                continue;
            int seen = 0;
            for (int j = 0; j < n && !seen; j++)
                seen = toll_api_copy.same_feature(c, counted[j], parts[i]);
            if (!seen && n < 512)
                counted[n++] = parts[i];
        }
    }
    return n;
}

static int closed_checks;
static void expect_closed_counts(void *xctx, cas_carc *c, int player)
{
    (void)xctx;
    (void)player;
    assert_int_equal(toll_api_copy.completed_count(c, CAS_CARC_ROAD),
                     closed_by_walk(c, CAS_CARC_ROAD));
    assert_int_equal(toll_api_copy.completed_count(c, CAS_CARC_CITY),
                     closed_by_walk(c, CAS_CARC_CITY));
    closed_checks++;
}

/* A state restored from bytes counts the same closed roads and cities:
 * the counts are not in the bytes, the replayed placements count them. */
static void expect_restored_counts(struct cas_test_game *g)
{
    cas_state *twin = cas_test_restored_twin(g);
    for (int cls = CAS_CARC_ROAD; cls <= CAS_CARC_CITY; cls++)
        assert_int_equal(toll_api_copy.completed_count((const cas_carc *)twin, cls),
                         toll_api_copy.completed_count((const cas_carc *)g->state, cls));
    g->vt->state_free(twin);
}

/* Three random games of 3 players with the toll and a test-only expansion
 * `id` of these hooks, after every 50 actions and at the end handing the
 * game to at_checkpoint (when not NULL). */
static void play_random_games_with(const struct cas_carc_hooks *hooks, const char *id,
                                   void (*at_checkpoint)(struct cas_test_game *))
{
    struct cas_carc_expansion probe = {.struct_size = sizeof probe,
                                       .abi_major = CAS_CARC_ABI_MAJOR,
                                       .abi_minor = CAS_CARC_ABI_MINOR, .hooks = hooks};
    struct cas_expansion_ref refs[2] = {toll_ref(&toll_expansion), toll_ref(&probe)};
    refs[1].id = id;
    static cas_action legal[4096];
    for (uint64_t seed = 1; seed <= 3; seed++) {
        struct cas_test_game g;
        const char *opts[] = {NULL};
        cas_test_game_open(&g, cas_plugin_entry(), 3, opts, refs, 2);
        uint64_t rng = seed * 0x9E3779B97F4A7C15ull;
        int steps = 0;
        while (g.vt->current(g.state) != CAS_ACTOR_TERMINAL) {
            size_t n;
            assert_int_equal(g.vt->legal_actions(g.state, legal, 4096, &n), CAS_OK);
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            assert_int_equal(g.vt->apply(g.state, legal[(rng >> 33) % n], NULL), CAS_OK);
            if (++steps % 50 == 0 && at_checkpoint)
                at_checkpoint(&g);
        }
        if (at_checkpoint)
            at_checkpoint(&g);
        cas_test_game_close(&g);
    }
}

/* completed_count for roads and cities, which the engine counts as they
 * close (abbey-like gate edges included), agrees after every turn of
 * random games with a walk of every feature, and in states restored from
 * bytes. */
static void test_completed_count_agrees_with_a_walk(void **unused)
{
    (void)unused;
    static const struct cas_carc_hooks counter_hooks = {.struct_size = sizeof counter_hooks,
                                                        .turn_end = expect_closed_counts};
    closed_checks = 0;
    play_random_games_with(&counter_hooks, "counter", expect_restored_counts);
    assert_true(closed_checks > 150);
}

/* Cloisters completed during play, as feature_completed told them, and
 * the turns checked. */
static int cloisters_told, cloister_checks;
static void count_cloister(void *xctx, cas_carc *c, int player, cas_carc_feature f)
{
    (void)xctx;
    (void)player;
    cloisters_told += toll_api_copy.feature_class(c, f) == CAS_CARC_CLOISTER;
}

/* Every cloister whose ring is full (completed_count walks them all) was
 * told complete as the tile that filled it went down. */
static void expect_cloisters_told(void *xctx, cas_carc *c, int player)
{
    (void)xctx;
    (void)player;
    assert_int_equal(toll_api_copy.completed_count(c, CAS_CARC_CLOISTER), cloisters_told);
    cloister_checks++;
}

static void start_counting_cloisters(struct cas_test_game *g)
{
    if (g->vt->current(g->state) == CAS_ACTOR_TERMINAL)
        cloisters_told = 0; /* the next game starts */
}

/* The engine looks for completed cloisters only where its folded map of
 * their rings says one may be (and keeps only those not yet scored): in
 * random games with one-space and 2x1 tiles and monasteries from hands,
 * it misses none. */
static void test_no_completed_cloister_missed(void **unused)
{
    (void)unused;
    static const struct cas_carc_hooks cloister_hooks = {
        .struct_size = sizeof cloister_hooks,
        .feature_completed = count_cloister,
        .turn_end = expect_cloisters_told};
    cloisters_told = cloister_checks = 0;
    play_random_games_with(&cloister_hooks, "cloisters", start_counting_cloisters);
    assert_true(cloister_checks > 150);
}

/* tile_parts_of (1.6) for the tile placed this turn, every set of classes,
 * against tile_features and feature_class part by part. */
static int parts_checks;
static void expect_parts_by_class(void *xctx, cas_carc *c, int player)
{
    (void)xctx;
    (void)player;
    int tile = toll_api_copy.placed_tile(c);
    cas_carc_feature parts[16], first;
    size_t n;
    if (tile < 0 || toll_api_copy.tile_features(c, tile, parts, 16, &n) != CAS_OK)
        return;
    for (unsigned classes = 0; classes < 1u << (CAS_CARC_CLOISTER + 1); classes += 2) {
        unsigned expected = 0;
        for (size_t i = 0; i < n; i++)
            if (classes & CAS_CARC_CLASS_BIT(toll_api_copy.feature_class(c, parts[i])))
                expected |= 1u << i;
        assert_int_equal(toll_api_copy.tile_parts_of(c, tile, classes, &first), expected);
        assert_int_equal(first, parts[0]);
    }
    assert_int_equal(toll_api_copy.tile_parts_of(c, toll_api_copy.tile_count(c), ~0u, &first),
                     0);
    assert_int_equal(first, CAS_CARC_NO_FEATURE);
    parts_checks++;
}

static void test_tile_parts_of_agrees_with_feature_class(void **unused)
{
    (void)unused;
    static const struct cas_carc_hooks parts_hooks = {.struct_size = sizeof parts_hooks,
                                                      .turn_end = expect_parts_by_class};
    parts_checks = 0;
    play_random_games_with(&parts_hooks, "parts", NULL);
    assert_true(parts_checks > 150);
}

/* events_wanted (1.4): 1 while an action is applied for a caller that
 * records events, 0 otherwise (a bot's playout); a 1.3 game says 1. */
static void test_events_wanted_only_with_a_listener(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    open_with_toll(&g, "tiles=*:0,D:1,BIG:1,W:2");
    events_wanted_when_scoring = -1;
    cas_test_play_record(&g, "draw BIG\nplace BIG 1,0 0\ndeploy meeple road E1+W0\n"
                             "toll skip\ndraw W\nplace W 3,0 0\npass\ntoll skip\n"
                             "draw W\nplace W -1,0 0\npass\n");
    assert_int_equal(events_wanted_when_scoring, 1); /* the road scored */
    const cas_carc *c = (const cas_carc *)g.state;
    assert_int_equal(toll_api_copy.events_wanted(c), 0);
    struct cas_carc_api api_1_3 = {.struct_size = offsetof(struct cas_carc_api, events_wanted)};
    assert_int_equal(cas_carc_events_wanted(&api_1_3, c), 1);
    cas_test_game_close(&g);
}

static int fallback_points;
static void fallback_add_score(cas_carc *c, int player, int64_t points, const char *reason)
{
    (void)c;
    (void)player;
    (void)reason;
    fallback_points += (int)points;
}

/* In a 1.2 game (services table without add_score_about) the helper
 * falls back to add_score: the same points, no category. */
static void test_add_score_about_falls_back_to_add_score(void **unused)
{
    (void)unused;
    struct cas_carc_api api_1_2 = {.struct_size = offsetof(struct cas_carc_api, add_score_about),
                                   .add_score = fallback_add_score};
    fallback_points = 0;
    cas_carc_add_score_about(&api_1_2, NULL, 0, 7, "bonus", "bonus", NULL, CAS_CARC_FINAL);
    assert_int_equal(fallback_points, 7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_phase_and_scoring_hook),
        cmocka_unit_test(test_two_space_tile_placements),
        cmocka_unit_test(test_veto_area_as_veto_placement),
        cmocka_unit_test(test_figure_strength),
        cmocka_unit_test(test_state_block_serialized),
        cmocka_unit_test(test_state_offset_finds_the_block),
        cmocka_unit_test(test_abi_major_refused),
        cmocka_unit_test(test_first_answer_wins),
        cmocka_unit_test(test_tile_from_hand),
        cmocka_unit_test(test_retired_phase_is_asked_no_more),
        cmocka_unit_test(test_teardown_gets_the_host),
        cmocka_unit_test(test_hooks_of_1_2_keep_the_engine_category),
        cmocka_unit_test(test_add_score_about_falls_back_to_add_score),
        cmocka_unit_test(test_deploy_veto_asked_only_where_it_may_refuse),
        cmocka_unit_test(test_completed_count_agrees_with_a_walk),
        cmocka_unit_test(test_no_completed_cloister_missed),
        cmocka_unit_test(test_tile_parts_of_agrees_with_feature_class),
        cmocka_unit_test(test_events_wanted_only_with_a_listener),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
