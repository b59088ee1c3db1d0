/*
 * king_robber.c — the King & Robber Baron expansion for Carcassonne, through
 * castellan/carcassonne.h alone:
 *  - content: its 5 tiles (data/king-robber.tiles);
 *  - two cards: whoever places the tile completing the first city takes the
 *    King, and later whoever completes a city of more spaces than any
 *    completed so far; the Robber Baron the same for roads
 *    (feature_completed);
 *  - at the end the King's holder scores 1 per completed city of the game,
 *    the Robber Baron's 1 per completed road (final_scoring), or, by the
 *    option `scoring`, fixed bonuses (10/20, 15/40) or a point to the holder
 *    as each city or road is completed (continuous: JCloisterZone's variant,
 *    which pays whoever held the card when the completing tile was placed,
 *    before the card moves).
 * Rule decisions: docs/rules/king-robber.md.
 */
#include "king_robber.h"

#include <castellan/carcassonne.h>
#include <castellan/outbuf.h>

#include <stdio.h>
#include <string.h>

enum kr_scoring { KR_PER_FEATURE, KR_FIXED_10_20, KR_FIXED_15_40, KR_CONTINUOUS };

/* Option values, in enum kr_scoring order. */
static const char *const kr_scoring_names[] = {"per-feature", "10/20", "15/40",
                                               "continuous"};
/* Fixed end bonuses: [scoring][cards held - 1]. */
static const int kr_fixed_points[][2] = {[KR_FIXED_10_20] = {10, 20},
                                         [KR_FIXED_15_40] = {15, 40}};

enum kr_card_id { KR_KING, KR_ROBBER, KR_CARDS };

struct kr_card_def {
    enum cas_carc_class cls;
    const char *name, *feature, *features;
    const char *category; /* of its scores (1.3) */
};

static const struct kr_card_def kr_cards[KR_CARDS] = {
    {CAS_CARC_CITY, "King", "city", "cities", "king"},
    {CAS_CARC_ROAD, "Robber Baron", "road", "roads", "robber-baron"},
};

struct kr_ctx {
    const struct cas_carc_api *api;
    const struct cas_host *host;
    enum kr_scoring scoring;
};

/* The per-state block: plain bytes, cloned, hashed and serialized. */
struct kr_card_state {
    int8_t holder;    /* player, or -1 while no feature of its class completed */
    uint8_t payee;    /* continuous: 1 + the holder when this turn's tile was
                         placed (0: nobody), whom its completions pay; else 0 */
    uint16_t largest; /* spaces of the largest one completed so far */
};

struct kr_state {
    struct kr_card_state card[KR_CARDS];
};

static const struct cas_option_spec kr_options[] = {
    {.struct_size = sizeof(struct cas_option_spec), .name = "scoring",
     .type = CAS_OPTION_CHOICE, .default_value = "per-feature",
     .choices = "per-feature|10/20|15/40|continuous",
     .help = "the cards' points: per-feature (end: 1 per completed city / road), "
             "10/20 or 15/40 (end: for one card / both), continuous "
             "(JCloisterZone's: as each is completed, 1 to whoever held the card "
             "before it)"},
};

static int kr_init(const struct cas_carc_api *api, const struct cas_host *host,
                   const cas_carc_game *game, const struct cas_option_value *options,
                   size_t n_options, void **xctx, size_t *bad_option)
{
    (void)game;
    struct kr_ctx *ctx = host->alloc(host->ctx, sizeof *ctx);
    if (!ctx)
        return CAS_ENOMEM;
    *ctx = (struct kr_ctx){.api = api, .host = host, .scoring = KR_PER_FEATURE};
    *xctx = ctx;
    if (!CAS_HAS_FIELD(api, struct cas_carc_api, feature_class)) {
        cas_host_errorf(host, "king-robber: needs Carcassonne extension ABI 1.2 "
                        "(feature_class); this game provides %u.%u", api->abi_major,
                        api->abi_minor);
        return CAS_EVERSION;
    }
    for (size_t i = 0; i < n_options; i++) {
        if (strcmp(options[i].name, "scoring") != 0)
            continue;
        size_t s = 0;
        while (s < KR_CONTINUOUS + 1 && strcmp(options[i].value, kr_scoring_names[s]) != 0)
            s++;
        if (s > KR_CONTINUOUS) {
            *bad_option = i;
            cas_host_errorf(host, "king-robber: scoring = '%s' is not valid; use "
                            "per-feature, 10/20, 15/40 or continuous", options[i].value);
            return CAS_EOPTION;
        }
        ctx->scoring = (enum kr_scoring)s;
    }
    return CAS_OK;
}

static void kr_fini(void *xctx)
{
    struct kr_ctx *ctx = xctx;
    ctx->host->release(ctx->host->ctx, ctx);
}

static void kr_state_init(void *xctx, cas_carc *c, void *xstate)
{
    (void)xctx;
    (void)c;
    struct kr_state *st = xstate;
    for (int i = 0; i < KR_CARDS; i++)
        st->card[i].holder = -1;
}

/* Sound: a holder is a player, held exactly when something was completed,
 * and no completed feature has more spaces than the board. */
static int kr_state_check(void *xctx, const cas_carc *c, const void *xstate)
{
    const struct kr_ctx *ctx = xctx;
    const struct kr_state *st = xstate;
    int players = ctx->api->nplayers(ctx->api->game(c));
    for (int i = 0; i < KR_CARDS; i++) {
        const struct kr_card_state *card = &st->card[i];
        if (card->holder < -1 || card->holder >= players || card->payee > players ||
            (ctx->scoring != KR_CONTINUOUS && card->payee) ||
            (card->holder < 0) != (card->largest == 0) ||
            card->largest > 2 * ctx->api->tile_count(c))
            return CAS_ECORRUPT;
    }
    return CAS_OK;
}

/* ------------------------------------------------------------ the cards */

static int card_of_class(enum cas_carc_class cls)
{
    for (int i = 0; i < KR_CARDS; i++)
        if (kr_cards[i].cls == cls)
            return i;
    return -1;
}

/* CALL-ALL, under `continuous` only: who holds each card as the tile is
 * placed is who the features it completes pay, however the card moves
 * while they are scored (JCloisterZone settles the turn's points first). */
static void kr_tile_placed(void *xctx, cas_carc *c, int player, int tile)
{
    (void)player;
    (void)tile;
    const struct kr_ctx *ctx = xctx;
    if (ctx->scoring != KR_CONTINUOUS)
        return;
    struct kr_state *st = ctx->api->xstate(c, xctx);
    for (int i = 0; i < KR_CARDS; i++)
        st->card[i].payee = (uint8_t)(st->card[i].holder + 1);
}

/* Under `continuous`: 1 point to the card's holder as the turn's tile was
 * placed, for a completed feature of its class; none while nobody held it. */
static void pay_continuous(const struct kr_ctx *ctx, cas_carc *c,
                           const struct kr_card_state *card, const struct kr_card_def *def,
                           int texts)
{
    if (!card->payee)
        return;
    char reason[48] = "";
    if (texts)
        snprintf(reason, sizeof reason, "%s: a completed %s", def->name, def->feature);
    cas_carc_add_score_about(ctx->api, c, card->payee - 1, 1, reason, def->category,
                             def->name, CAS_CARC_DURING);
}

/* CALL-ALL: the first completed city (road) gives the King (Robber Baron)
 * to the player who placed the completing tile, whoever owns the feature;
 * later only one of strictly more spaces than any before moves it.  Under
 * `continuous` the holder before the move scores 1 for it first. */
static void kr_feature_completed(void *xctx, cas_carc *c, int player, cas_carc_feature f)
{
    const struct kr_ctx *ctx = xctx;
    const struct cas_carc_api *api = ctx->api;
    int id = card_of_class(api->feature_class(c, f)); /* O(1): a cloister is no card's */
    struct cas_carc_feature_info info = {.struct_size = sizeof info};
    if (id < 0 || api->feature_info(c, f, &info) != CAS_OK)
        return;
    struct kr_card_state *card = &((struct kr_state *)api->xstate(c, xctx))->card[id];
    const struct kr_card_def *def = &kr_cards[id];
    int texts = cas_carc_events_wanted(api, c); /* none in a bot's playout */
    if (ctx->scoring == KR_CONTINUOUS)
        pay_continuous(ctx, c, card, def, texts);
    if (card->holder < 0 || info.spaces > card->largest) {
        card->largest = (uint16_t)info.spaces;
        if (card->holder != player && texts) {
            char text[96];
            snprintf(text, sizeof text, "%s takes the %s (%s of %d spaces)",
                     api->player_label(api->game(c), player), def->name, def->feature,
                     info.spaces);
            api->event(c, player, text);
        }
        card->holder = (int8_t)player;
    }
}

/* Per-feature scoring: each holder 1 per completed feature of its class. */
static void score_per_feature(const struct kr_ctx *ctx, cas_carc *c,
                              const struct kr_state *st)
{
    for (int i = 0; i < KR_CARDS; i++) {
        if (st->card[i].holder < 0)
            continue;
        int n = ctx->api->completed_count(c, kr_cards[i].cls);
        char reason[64] = "";
        if (cas_carc_events_wanted(ctx->api, c))
            snprintf(reason, sizeof reason, "%s: %d completed %s", kr_cards[i].name, n,
                     n == 1 ? kr_cards[i].feature : kr_cards[i].features);
        cas_carc_add_score_about(ctx->api, c, st->card[i].holder, n, reason,
                                 kr_cards[i].category, kr_cards[i].name, CAS_CARC_FINAL);
    }
}

/* Fixed scoring: one bonus for a player holding one card, another for both. */
static void score_fixed(const struct kr_ctx *ctx, cas_carc *c, const struct kr_state *st)
{
    int players = ctx->api->nplayers(ctx->api->game(c));
    for (int p = 0; p < players; p++) {
        int held = (st->card[KR_KING].holder == p) + (st->card[KR_ROBBER].holder == p);
        if (held == 0)
            continue;
        const char *name = held == 2 ? "King and Robber Baron"
                           : st->card[KR_KING].holder == p ? kr_cards[KR_KING].name
                                                           : kr_cards[KR_ROBBER].name;
        const char *category = held == 2 ? "king-robber-baron"
                               : st->card[KR_KING].holder == p ? kr_cards[KR_KING].category
                                                               : kr_cards[KR_ROBBER].category;
        cas_carc_add_score_about(ctx->api, c, p, kr_fixed_points[ctx->scoring][held - 1], name,
                                 category, name, CAS_CARC_FINAL);
    }
}

/* CALL-ALL at the end: the holders' points by the `scoring` option. */
static void kr_final_scoring(void *xctx, cas_carc *c)
{
    const struct kr_ctx *ctx = xctx;
    const struct kr_state *st = ctx->api->xstate_const(c, xctx);
    if (ctx->scoring == KR_PER_FEATURE)
        score_per_feature(ctx, c, st);
    else if (ctx->scoring != KR_CONTINUOUS)
        score_fixed(ctx, c, st);
}

/* ------------------------------------------------------------ render */

/* Appends who holds each card and the size it was won with. */
static int kr_render(void *xctx, const cas_carc *c, int viewer,
                     enum cas_render_format format, const struct cas_writer *out)
{
    (void)viewer;
    const struct kr_ctx *ctx = xctx;
    const struct kr_state *st = ctx->api->xstate_const(c, xctx);
    const struct kr_card_state *king = &st->card[KR_KING], *robber = &st->card[KR_ROBBER];
    struct cas_outbuf ob; /* one write for the host: the picture renders this every move */
    cas_out_init(&ob, out);
    if (format == CAS_RENDER_JSON) {
        cas_outf(&ob, "{\"king\":%d,\"largest_city\":%d,\"robber_baron\":%d,"
                      "\"longest_road\":%d}", king->holder, king->largest,
                 robber->holder, robber->largest);
        return cas_out_finish(&ob);
    }
    for (int i = 0; i < KR_CARDS; i++) {
        const struct kr_card_state *card = &st->card[i];
        if (card->holder < 0)
            cas_outf(&ob, "%s: nobody yet\n", kr_cards[i].name);
        else
            cas_outf(&ob, "%s: %s (%s of %d spaces)\n", kr_cards[i].name,
                     ctx->api->player_label(ctx->api->game(c), card->holder),
                     kr_cards[i].feature, card->largest);
    }
    return cas_out_finish(&ob);
}

/* ------------------------------------------------------------ descriptor */

static const struct cas_carc_hooks kr_hooks = {
    .struct_size = sizeof(struct cas_carc_hooks),
    .tile_placed = kr_tile_placed,
    .feature_completed = kr_feature_completed,
    .final_scoring = kr_final_scoring,
};

static const char *const kr_tile_sets[] = {"king-robber.tiles"};

/* `help` at the table (extension ABI 1.8). */
static const char kr_help[] =
    "  (no actions)         whoever completes the first city takes the King, and\n"
    "                       whoever completes a larger one takes it over; the\n"
    "                       Robber Baron goes the same way for roads; the rule\n"
    "                       option scoring says what they are worth\n";

static const struct cas_carc_expansion kr_expansion = {
    .struct_size = sizeof(struct cas_carc_expansion),
    .abi_major = CAS_CARC_ABI_MAJOR,
    .abi_minor = CAS_CARC_ABI_MINOR,
    .tile_sets = kr_tile_sets,
    .n_tile_sets = sizeof kr_tile_sets / sizeof kr_tile_sets[0],
    .state_size = sizeof(struct kr_state),
    .init = kr_init,
    .fini = kr_fini,
    .state_init = kr_state_init,
    .state_check = kr_state_check,
    .render = kr_render,
    .hooks = &kr_hooks,
    .notation_help = kr_help,
};

static const struct cas_plugin kr_plugin = {
    .struct_size = sizeof(struct cas_plugin),
    .abi_major = CAS_ABI_MAJOR,
    .abi_minor = CAS_ABI_MINOR,
    .fingerprint = CAS_BUILD_FINGERPRINT,
    .id = "king-robber",
    .version = "1.0.0",
    .kind = CAS_KIND_EXPANSION,
    .extends = "carcassonne",
    .options = kr_options,
    .n_options = sizeof kr_options / sizeof kr_options[0],
    .extension = &kr_expansion,
};

const struct cas_plugin *cas__kr_plugin(void)
{
    return &kr_plugin;
}
