/*
 * castles_germany.c — the Castles in Germany expansion for Carcassonne,
 * through castellan/carcassonne.h (1.3, and 1.4's veto_area) alone:
 *  - content: 6 double-size castle tiles (data/castles-germany.tiles, edge
 *    layouts PROVISIONAL), `hand` tiles outside the bag, each with a
 *    cloister-class `castle`;
 *  - setup: the players pick castles in seat order, 2 each with 2 or 3
 *    players, else 1 (phase `castle pick`); castles in hand are public;
 *  - instead of drawing, the active player may place a castle from his hand
 *    (phase `castle`, api->placements and api->place_tile), never touching
 *    another castle tile, diagonals included (veto_placement, and as
 *    boxes of spaces for a 1.4 engine: veto_area); the turn
 *    then goes on as after a drawn tile (a lord: `deploy meeple castle`);
 *  - scoring (feature_points): a castle counts 2 for its own tile, so a
 *    complete one scores 10 + 2 = 12 and an open one filled + 2 at the end;
 *    a road or city completed during the game on a castle tile gives 3 more
 *    per castle to each player who scores it, told as a "castle-road" or
 *    "castle-city" (score_category);
 *  - once the bag is empty, players still holding a castle that fits go on
 *    placing them (bag_empty passes the turn on), or give them up with
 *    `castle keep`.
 * Rule decisions: docs/rules/castles-germany.md.
 */
#include "castles_germany.h"

#include <castellan/carcassonne.h>
#include <castellan/outbuf.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CG_MAX 6             /* castles in the box */
#define CG_PLAYERS 6
#define CG_ID_LEN 16
#define CG_BONUS 3           /* per castle on a road or city completed */
#define CG_TILE_FEATURES 16  /* features on one castle tile, at the most */
#define CG_PLACEMENTS 512    /* placements of one castle listed from the
                                stack; more are listed from the host's heap */
#define CG_KEEP 0            /* payload: draw as usual (empty bag: give up) */

struct cg_ctx {
    const struct cas_carc_api *api;
    const struct cas_host *host;
    int ncastles;
    int kind[CG_MAX];            /* tile kinds of the castles */
    char id[CG_MAX][CG_ID_LEN];  /* their ids, for texts */
    int per_player;              /* 0: 2 with 2 or 3 players, else 1 */
    unsigned in_game;            /* bit i: castle i has a copy in this game
                                    (a `tiles` option may take some out) */
    int picks;                   /* how many castles the players pick */
    size_t state_offset;         /* of the block in every state (1.6) */
    int retire;                  /* what an actor says once its phase is over
                                    for good: CAS_CARC_PHASE_RETIRE from 1.7 */
};

/* A castle on the board, as the hooks need it without lookups. */
struct cg_placed {
    int16_t x0, y0, x1, y1; /* the two spaces it covers */
    uint16_t bonus;         /* bit l: its feature l is a road or city */
    uint8_t cloister;       /* which of its features is the castle */
    uint8_t unused;
};

/* The per-state block: plain bytes, cloned, hashed and serialized. */
struct cg_state {
    uint8_t hand[CG_PLAYERS]; /* bit i: castle i is in this player's hand */
    uint8_t picked;           /* bit i: castle i was picked (hand or board) */
    uint8_t gave_up;          /* bit p: player p kept his castles with the
                                 bag empty: they are out of the game */
    int16_t tile[CG_MAX];     /* placement index of castle i, or -1 */
    struct cg_placed placed[CG_MAX]; /* castle i's, once tile[i] >= 0 */
};

static const struct cas_option_spec cg_options[] = {
    {.struct_size = sizeof(struct cas_option_spec), .name = "castles",
     .type = CAS_OPTION_TEXT, .default_value = "CG-1,CG-2,CG-3,CG-4,CG-5,CG-6",
     .help = "ids of the castle tiles (at most 6) in data/castles-germany.tiles, whose "
             "edge layouts are PROVISIONAL (not published): replace the file in the "
             "plugin's data folder with the real ones, no rebuild needed"},
    {.struct_size = sizeof(struct cas_option_spec), .name = "per-player",
     .type = CAS_OPTION_CHOICE, .default_value = "auto", .choices = "auto|1|2",
     .help = "castles each player picks at setup: auto is 2 with 2 or 3 players, else 1"},
};

/* ------------------------------------------------------------ setup */

/* Look up each id of the comma-separated list; the message names the bad
 * one. */
static int read_castle_ids(struct cg_ctx *ctx, const cas_carc_game *game, const char *list)
{
    ctx->ncastles = 0;
    for (const char *at = list; *at;) {
        size_t len = strcspn(at, ",");
        if (ctx->ncastles == CG_MAX || len == 0 || len >= CG_ID_LEN) {
            cas_host_errorf(ctx->host, "give 1 to %d tile ids of under %d characters, "
                            "comma-separated", CG_MAX, CG_ID_LEN);
            return CAS_EOPTION;
        }
        char *id = ctx->id[ctx->ncastles];
        memcpy(id, at, len);
        id[len] = '\0';
        int kind = ctx->api->tile_kind_index(game, id);
        if (kind < 0) {
            cas_host_errorf(ctx->host, "no tile %s in the game's tile sets (the castles "
                            "are in data/castles-germany.tiles)", id);
            return CAS_EOPTION;
        }
        ctx->kind[ctx->ncastles++] = kind;
        at += len + (at[len] == ',');
    }
    if (ctx->ncastles > 0)
        return CAS_OK;
    cas_host_errorf(ctx->host, "name the castle tiles, e.g. CG-1,CG-2");
    return CAS_EOPTION;
}

/* From a table of nibbles: without a popcount instruction in the target,
 * __builtin_popcount is a library call, and pick_actor counts every turn. */
static int bit_count(unsigned bits)
{
    static const uint8_t nibble[16] = {0, 1, 1, 2, 1, 2, 2, 3, 1, 2, 2, 3, 2, 3, 3, 4};
    int n = 0;
    for (; bits; bits >>= 4)
        n += nibble[bits & 15];
    return n;
}

/* The castles in this game and how many the players pick in all: 2 each
 * with 2 or 3 players (per-player auto), at most all there are. */
static void count_picks(struct cg_ctx *ctx, const cas_carc_game *game)
{
    ctx->in_game = 0;
    for (int i = 0; i < ctx->ncastles; i++)
        if (ctx->api->tile_kind_count(game, ctx->kind[i]) > 0)
            ctx->in_game |= 1u << i;
    int players = ctx->api->nplayers(game);
    int each = ctx->per_player ? ctx->per_player : players <= 3 ? 2 : 1;
    int there = bit_count(ctx->in_game);
    ctx->picks = players * each < there ? players * each : there;
}

static int cg_init(const struct cas_carc_api *api, const struct cas_host *host,
                   const cas_carc_game *game, const struct cas_option_value *options,
                   size_t n_options, void **xctx, size_t *bad_option)
{
    struct cg_ctx *ctx = host->alloc(host->ctx, sizeof *ctx);
    if (!ctx)
        return CAS_ENOMEM;
    memset(ctx, 0, sizeof *ctx);
    ctx->api = api;
    ctx->host = host;
    ctx->retire = api->abi_minor >= 7 ? CAS_CARC_PHASE_RETIRE : CAS_CARC_PHASE_SKIP;
    *xctx = ctx;
    if (api->abi_minor < 6) {
        cas_host_errorf(host, "castles-germany: needs a carcassonne plugin with "
                        "extension ABI 1.6 (placements of a hand tile, state_offset); "
                        "this one has %u.%u", api->abi_major, api->abi_minor);
        return CAS_EVERSION;
    }
    const char *castles = cg_options[0].default_value;
    size_t castles_option = SIZE_MAX;
    for (size_t i = 0; i < n_options; i++) {
        if (strcmp(options[i].name, "castles") == 0) {
            castles = options[i].value;
            castles_option = i;
        } else if (strcmp(options[i].name, "per-player") == 0) {
            ctx->per_player = strcmp(options[i].value, "auto") == 0 ? 0
                                                                     : atoi(options[i].value);
        }
    }
    int rc = read_castle_ids(ctx, game, castles);
    if (rc == CAS_EOPTION)
        *bad_option = castles_option;
    if (rc == CAS_OK)
        count_picks(ctx, game);
    return rc;
}

static void cg_fini(void *xctx)
{
    struct cg_ctx *ctx = xctx;
    ctx->host->release(ctx->host->ctx, ctx);
}

static void cg_state_init(void *xctx, cas_carc *c, void *xstate)
{
    (void)xctx;
    (void)c;
    struct cg_state *st = xstate;
    for (int i = 0; i < CG_MAX; i++)
        st->tile[i] = -1;
}

static void cg_state_offset(void *xctx, size_t offset)
{
    ((struct cg_ctx *)xctx)->state_offset = offset;
}

/* This expansion's block of c, where the engine's state_offset said it
 * lies: the castle phases of every turn read it without a call. */
static const struct cg_state *state_of(const struct cg_ctx *ctx, const cas_carc *c)
{
    return cas_carc_block_const(c, ctx->state_offset);
}

static struct cg_state *mutable_state_of(const struct cg_ctx *ctx, cas_carc *c)
{
    return cas_carc_block(c, ctx->state_offset);
}



/* The spaces x0..x1, y0..y1 a 2x1 tile covers with its anchor at x,y
 * rotated rot. */
struct cg_box {
    int x0, y0, x1, y1;
};

static struct cg_box box_of(int x, int y, int rot)
{
    static const int cell1_dx[4] = {1, 0, -1, 0}, cell1_dy[4] = {0, 1, 0, -1};
    int x1 = x + cell1_dx[rot], y1 = y + cell1_dy[rot];
    return (struct cg_box){x < x1 ? x : x1, y < y1 ? y : y1, x > x1 ? x : x1,
                           y > y1 ? y : y1};
}

/* What the hooks keep of castle tile `tile`: the spaces it covers and which
 * of its features are roads or cities and the castle. */
static int describe_castle(const struct cg_ctx *ctx, const cas_carc *c, int tile,
                           struct cg_placed *out)
{
    const struct cas_carc_api *api = ctx->api;
    struct cas_carc_tile_info t = {.struct_size = sizeof t};
    cas_carc_feature features[CG_TILE_FEATURES];
    size_t n;
    memset(out, 0, sizeof *out);
    if (api->tile_info(c, tile, &t) != CAS_OK ||
        api->tile_features(c, tile, features, CG_TILE_FEATURES, &n) != CAS_OK)
        return CAS_EINVAL;
    struct cg_box box = box_of(t.x, t.y, t.rot);
    *out = (struct cg_placed){.x0 = (int16_t)box.x0, .y0 = (int16_t)box.y0,
                              .x1 = (int16_t)box.x1, .y1 = (int16_t)box.y1};
    int cloisters = 0;
    for (size_t l = 0; l < n; l++) {
        int cls = api->feature_class(c, features[l]); /* not feature_info: no walk */
        if (cls == CAS_CARC_ROAD || cls == CAS_CARC_CITY)
            out->bonus |= (uint16_t)(1u << l);
        if (cls == CAS_CARC_CLOISTER) {
            out->cloister = (uint8_t)l;
            cloisters++;
        }
    }
    return cloisters == 1 ? CAS_OK : CAS_EDATA;
}

/* Sound: hands are disjoint picked castles of the game, placed castles are
 * in no hand and name placements made, as described, flags name players. */
static int cg_state_check(void *xctx, const cas_carc *c, const void *xstate)
{
    const struct cg_ctx *ctx = xctx;
    const struct cg_state *st = xstate;
    int players = ctx->api->nplayers(ctx->api->game(c));
    unsigned in_hands = 0;
    for (int p = 0; p < CG_PLAYERS; p++) {
        if ((in_hands & st->hand[p]) || (st->hand[p] && p >= players))
            return CAS_ECORRUPT;
        in_hands |= st->hand[p];
    }
    if ((in_hands & ~(unsigned)st->picked) || (st->picked & ~ctx->in_game) ||
        bit_count(st->picked) > ctx->picks || (st->gave_up >> players))
        return CAS_ECORRUPT;
    for (int i = 0; i < CG_MAX; i++) {
        int placed = st->tile[i] >= 0;
        struct cg_placed truth = {0};
        if (st->tile[i] < -1 || st->tile[i] >= ctx->api->tile_count(c) ||
            (placed && ((in_hands >> i & 1) || !(st->picked >> i & 1) ||
                        describe_castle(ctx, c, st->tile[i], &truth) != CAS_OK)) ||
            memcmp(&truth, &st->placed[i], sizeof truth) != 0)
            return CAS_ECORRUPT;
    }
    return CAS_OK;
}

/* ------------------------------------------------------------ picking */

/* Picks go round in seat order from the first player. */
static int pick_actor(void *xctx, const cas_carc *c)
{
    const struct cg_ctx *ctx = xctx;
    int done = bit_count(state_of(ctx, c)->picked);
    if (done >= ctx->picks)
        return ctx->retire;
    return done % ctx->api->nplayers(ctx->api->game(c));
}

static int pick_legal(void *xctx, const cas_carc *c, uint64_t *payloads, size_t cap,
                      size_t *count)
{
    const struct cg_ctx *ctx = xctx;
    unsigned free = ctx->in_game & ~(unsigned)state_of(ctx, c)->picked;
    size_t n = 0;
    for (int i = 0; i < ctx->ncastles; i++)
        if (free >> i & 1) {
            if (n < cap)
                payloads[n] = (uint64_t)i;
            n++;
        }
    *count = n;
    return n > cap ? CAS_ENOSPC : CAS_OK;
}

static int pick_apply(void *xctx, cas_carc *c, uint64_t payload)
{
    const struct cg_ctx *ctx = xctx;
    int picker = pick_actor(xctx, c);
    struct cg_state *st = mutable_state_of(ctx, c);
    if (picker < 0 || payload >= (uint64_t)ctx->ncastles || (st->picked >> payload & 1))
        return CAS_EILLEGAL;
    st->hand[picker] |= (uint8_t)(1u << payload);
    st->picked |= (uint8_t)(1u << payload);
    return CAS_CARC_PHASE_AGAIN;
}

static int out_text(int len, size_t cap)
{
    return len >= 0 && (size_t)len < cap ? len : CAS_ENOSPC;
}

static int pick_text(void *xctx, const cas_carc *c, uint64_t payload, char *buf, size_t cap)
{
    (void)c;
    const struct cg_ctx *ctx = xctx;
    if (payload >= (uint64_t)ctx->ncastles)
        return CAS_EINVAL;
    return out_text(snprintf(buf, cap, "castle pick %s", ctx->id[payload]), cap);
}

static int castle_by_id(const struct cg_ctx *ctx, const char *id)
{
    for (int i = 0; i < ctx->ncastles; i++)
        if (strcmp(ctx->id[i], id) == 0)
            return i;
    return -1;
}

static int pick_parse(void *xctx, const cas_carc *c, const char *text, uint64_t *payload)
{
    (void)c;
    const struct cg_ctx *ctx = xctx;
    if (strncmp(text, "castle pick ", 12) != 0)
        return CAS_EPARSE;
    int i = castle_by_id(ctx, text + 12);
    if (i < 0)
        return CAS_EPARSE;
    *payload = (uint64_t)i;
    return CAS_OK;
}

/* ------------------------------------------------------------ placing */

/* Payload of placing castle i at anchor x,y rotated rot; 0 is CG_KEEP. */
static uint64_t place_payload(int i, int x, int y, int rot)
{
    return 1 + (((uint64_t)i << 34) | ((uint64_t)(uint16_t)(x + 0x8000) << 18) |
                ((uint64_t)(uint16_t)(y + 0x8000) << 2) | (uint64_t)rot);
}

static void decode_place(uint64_t payload, int *i, int *x, int *y, int *rot)
{
    uint64_t v = payload - 1;
    *i = (int)(v >> 34);
    *x = (int)((v >> 18) & 0xFFFF) - 0x8000;
    *y = (int)((v >> 2) & 0xFFFF) - 0x8000;
    *rot = (int)(v & 3);
}

/* Legal placements of castle i now: how many; the first `cap` of them as
 * x,y,rot triples into xyr (NULL when cap is 0). */
static size_t castle_placements(const struct cg_ctx *ctx, const cas_carc *c, int i, int *xyr,
                                size_t cap)
{
    size_t n = 0;
    int rc = ctx->api->placements(c, ctx->kind[i], xyr, cap, &n);
    return rc == CAS_OK || rc == CAS_ENOSPC ? n : 0;
}

/* Does `player` hold a castle that fits somewhere, and may still play it? */
static int can_play_castle(const struct cg_ctx *ctx, const cas_carc *c, int player)
{
    const struct cg_state *st = state_of(ctx, c);
    if (!st->hand[player] || (st->gave_up >> player & 1) || bit_count(st->picked) < ctx->picks)
        return 0;
    for (int i = 0; i < ctx->ncastles; i++)
        if ((st->hand[player] >> i & 1) && ctx->api->fits_anywhere(c, ctx->kind[i]))
            return 1;
    return 0;
}

/* Once every pick is made, hands only empty: with no castle left in a
 * hand that may still play it, the castle phase is over for good. */
static int castles_over(const struct cg_ctx *ctx, const cas_carc *c)
{
    const struct cg_state *st = state_of(ctx, c);
    if (bit_count(st->picked) < ctx->picks)
        return 0;
    int players = ctx->api->nplayers(ctx->api->game(c));
    for (int q = 0; q < players; q++)
        if (st->hand[q] && !(st->gave_up >> q & 1))
            return 0;
    return 1;
}

static int place_actor(void *xctx, const cas_carc *c)
{
    const struct cg_ctx *ctx = xctx;
    int p = ctx->api->active_player(c);
    if (can_play_castle(ctx, c, p))
        return p;
    return castles_over(ctx, c) ? ctx->retire : CAS_CARC_PHASE_SKIP;
}

/* Append castle i's placement payloads at payloads[*n..cap), counting all. */
static int list_castle(const struct cg_ctx *ctx, const cas_carc *c, int i, uint64_t *payloads,
                       size_t cap, size_t *n)
{
    int local[3 * CG_PLACEMENTS], *xyr = local;
    size_t k = castle_placements(ctx, c, i, xyr, CG_PLACEMENTS);
    if (k > CG_PLACEMENTS) {
        xyr = ctx->host->alloc(ctx->host->ctx, 3 * k * sizeof *xyr);
        if (!xyr)
            return CAS_ENOMEM;
        k = castle_placements(ctx, c, i, xyr, k);
    }
    for (size_t j = 0; j < k; j++, (*n)++)
        if (*n < cap)
            payloads[*n] = place_payload(i, xyr[3 * j], xyr[3 * j + 1], xyr[3 * j + 2]);
    if (xyr != local)
        ctx->host->release(ctx->host->ctx, xyr);
    return CAS_OK;
}

static int place_legal(void *xctx, const cas_carc *c, uint64_t *payloads, size_t cap,
                       size_t *count)
{
    const struct cg_ctx *ctx = xctx;
    const struct cg_state *st = state_of(ctx, c);
    unsigned hand = st->hand[ctx->api->active_player(c)];
    size_t n = 0;
    if (n < cap)
        payloads[n] = CG_KEEP;
    n++;
    for (int i = 0; i < ctx->ncastles; i++) {
        int rc = hand >> i & 1 ? list_castle(ctx, c, i, payloads, cap, &n) : CAS_OK;
        if (rc != CAS_OK)
            return rc;
    }
    *count = n;
    return n > cap ? CAS_ENOSPC : CAS_OK;
}

/* Without listing: keep, or a castle of the active player's hand where it
 * fits. */
static int place_is_legal(void *xctx, const cas_carc *c, uint64_t payload)
{
    const struct cg_ctx *ctx = xctx;
    if (payload == CG_KEEP)
        return 1;
    int i, x, y, rot;
    decode_place(payload, &i, &x, &y, &rot);
    return i < ctx->ncastles && payload == place_payload(i, x, y, rot) &&
           (state_of(ctx, c)->hand[ctx->api->active_player(c)] >> i & 1) &&
           ctx->api->can_place(c, ctx->kind[i], x, y, rot);
}

static int place_apply(void *xctx, cas_carc *c, uint64_t payload)
{
    const struct cg_ctx *ctx = xctx;
    const struct cas_carc_api *api = ctx->api;
    struct cg_state *st = mutable_state_of(ctx, c);
    int p = api->active_player(c);
    if (payload == CG_KEEP) {
        if (api->bag_left(c) == 0) /* nothing left to draw: out of the game */
            st->gave_up |= (uint8_t)(1u << p);
        return CAS_CARC_PHASE_DONE;
    }
    int i, x, y, rot;
    decode_place(payload, &i, &x, &y, &rot);
    if (i >= ctx->ncastles || !(st->hand[p] >> i & 1))
        return CAS_EILLEGAL;
    int rc = api->place_tile(c, ctx->kind[i], x, y, rot);
    if (rc != CAS_OK)
        return rc;
    st->hand[p] &= (uint8_t)~(1u << i);
    st->tile[i] = (int16_t)api->placed_tile(c);
    rc = describe_castle(ctx, c, st->tile[i], &st->placed[i]);
    return rc == CAS_OK ? CAS_CARC_PHASE_DONE : rc;
}

static int place_text(void *xctx, const cas_carc *c, uint64_t payload, char *buf, size_t cap)
{
    (void)c;
    const struct cg_ctx *ctx = xctx;
    if (payload == CG_KEEP)
        return out_text(snprintf(buf, cap, "castle keep"), cap);
    int i, x, y, rot;
    decode_place(payload, &i, &x, &y, &rot);
    if (i >= ctx->ncastles)
        return CAS_EINVAL;
    return out_text(snprintf(buf, cap, "castle %s %d,%d %d", ctx->id[i], x, y, rot * 90), cap);
}

static int place_parse(void *xctx, const cas_carc *c, const char *text, uint64_t *payload)
{
    (void)c;
    const struct cg_ctx *ctx = xctx;
    if (strcmp(text, "castle keep") == 0 || strcmp(text, "pass") == 0) { /* lenient */
        *payload = CG_KEEP;
        return CAS_OK;
    }
    char id[CG_ID_LEN + 1];
    int x, y, deg, used = 0;
    if (sscanf(text, "castle %16s %d,%d %d%n", id, &x, &y, &deg, &used) != 4 || text[used] ||
        deg % 90 || deg < 0 || deg > 270 || x < -30000 || x > 30000 || y < -30000 ||
        y > 30000)
        return CAS_EPARSE;
    int i = castle_by_id(ctx, id);
    if (i < 0)
        return CAS_EPARSE;
    *payload = place_payload(i, x, y, deg / 90);
    return CAS_OK;
}

/* ANY: the bag is empty and `player`'s turn placed nothing: the turn passes
 * on while another player holds a castle that fits (his phase will then ask
 * him, so every pass leads to a decision within a round). */
static int cg_bag_empty(void *xctx, cas_carc *c, int player)
{
    const struct cg_ctx *ctx = xctx;
    int players = ctx->api->nplayers(ctx->api->game(c));
    for (int q = 0; q < players; q++)
        if (q != player && can_play_castle(ctx, c, q))
            return 1;
    return 0;
}

/* ------------------------------------------------------------ no touching */

static int castle_index_of_kind(const struct cg_ctx *ctx, int kind)
{
    for (int i = 0; i < ctx->ncastles; i++)
        if (ctx->kind[i] == kind)
            return i;
    return -1;
}

static int cg_vetoes_kind(void *xctx, const cas_carc_game *game, int kind)
{
    (void)game;
    return castle_index_of_kind(xctx, kind) >= 0;
}


/* VETO: a castle tile may not touch another, orthogonally or diagonally:
 * no space of a placed castle within one space of the new one's. */
static int cg_veto_placement(void *xctx, const cas_carc *c, int kind, int x, int y, int rot)
{
    const struct cg_ctx *ctx = xctx;
    if (castle_index_of_kind(ctx, kind) < 0)
        return 0;
    const struct cg_state *st = state_of(ctx, c);
    struct cg_box box = box_of(x, y, rot);
    for (int i = 0; i < CG_MAX; i++) {
        const struct cg_placed *old = &st->placed[i];
        if (st->tile[i] >= 0 && old->x0 <= box.x1 + 1 && box.x0 <= old->x1 + 1 &&
            old->y0 <= box.y1 + 1 && box.y0 <= old->y1 + 1)
            return 1;
    }
    return 0;
}

/* VETO AREA (1.4): the same rule as boxes, asked once per listing: the
 * spaces within one space of each placed castle's. */
static int cg_veto_area(void *xctx, const cas_carc *c, int kind, int *boxes, size_t cap,
                        size_t *count)
{
    const struct cg_ctx *ctx = xctx;
    size_t n = 0;
    if (castle_index_of_kind(ctx, kind) >= 0) {
        const struct cg_state *st = state_of(ctx, c);
        for (int i = 0; i < CG_MAX; i++) {
            const struct cg_placed *old = &st->placed[i];
            if (st->tile[i] < 0)
                continue;
            if (n < cap) {
                int *box = boxes + 4 * n;
                box[0] = old->x0 - 1;
                box[1] = old->y0 - 1;
                box[2] = old->x1 + 1;
                box[3] = old->y1 + 1;
            }
            n++;
        }
    }
    *count = n;
    return n > cap ? CAS_ENOSPC : CAS_OK;
}

/* ------------------------------------------------------------ scoring */

/* The first part of castle i's tile: its feature l is that + l (1.6). */
static cas_carc_feature castle_part(const struct cg_ctx *ctx, const cas_carc *c,
                                    const struct cg_state *st, int i)
{
    cas_carc_feature first;
    ctx->api->tile_parts_of(c, st->tile[i], 0, &first);
    return first;
}

/* Is f (of class cls) the castle of a placed castle tile?  Only the castle
 * itself (a cloister) can be the same feature as a castle. */
static int is_castle(const struct cg_ctx *ctx, const cas_carc *c, const struct cg_state *st,
                     cas_carc_feature f)
{
    for (int i = 0; i < CG_MAX; i++)
        if (st->tile[i] >= 0 &&
            ctx->api->same_feature(c, f, castle_part(ctx, c, st, i) + st->placed[i].cloister))
            return 1;
    return 0;
}

/* Castle tiles whose bonus roads or cities road or city f reaches (a
 * castle reached twice counts once). */
static int castles_reached(const struct cg_ctx *ctx, const cas_carc *c,
                           const struct cg_state *st, cas_carc_feature f)
{
    int castles = 0;
    for (int i = 0; i < CG_MAX; i++) {
        if (st->tile[i] < 0)
            continue;
        cas_carc_feature first = castle_part(ctx, c, st, i);
        for (unsigned bonus = st->placed[i].bonus; bonus; bonus &= bonus - 1)
            if (ctx->api->same_feature(c, f, first + __builtin_ctz(bonus))) {
                castles++;
                break;
            }
    }
    return castles;
}

static int is_road_or_city(int cls)
{
    return cls == CAS_CARC_ROAD || cls == CAS_CARC_CITY;
}

/* CHAIN: the castle itself counts 2 for its own tile instead of a
 * monastery's 1 (12 complete, filled + 2 at the end); a road or city
 * completed during the game gets 3 per castle tile it reaches, for every
 * player who scores it.  A feature's class says which of the two it can
 * be, so other features (fields, roads and cities at the end) cost no
 * walk of the castles. */
static int64_t cg_feature_points(void *xctx, const cas_carc *c, cas_carc_feature f,
                                 enum cas_carc_when when, int winner, int64_t points)
{
    (void)winner;
    const struct cg_ctx *ctx = xctx;
    int cls = ctx->api->feature_class(c, f);
    if (cls == CAS_CARC_CLOISTER)
        return points + is_castle(ctx, c, state_of(ctx, c), f);
    if (when != CAS_CARC_DURING || !is_road_or_city(cls))
        return points;
    return points + (int64_t)CG_BONUS * castles_reached(ctx, c, state_of(ctx, c), f);
}

/* CHAIN (1.3): a road or city completed with a castle's bonus scores as a
 * "castle-road" or "castle-city" (the castle itself is already "castle"). */
static const char *cg_category(void *xctx, const cas_carc *c, cas_carc_feature f,
                               enum cas_carc_when when, int winner, const char *category)
{
    (void)winner;
    const struct cg_ctx *ctx = xctx;
    int cls = ctx->api->feature_class(c, f);
    if (when != CAS_CARC_DURING || !is_road_or_city(cls) ||
        castles_reached(ctx, c, state_of(ctx, c), f) == 0)
        return category;
    return cls == CAS_CARC_ROAD ? "castle-road" : "castle-city";
}

/* ------------------------------------------------------------ render */

static void render_json(const struct cg_ctx *ctx, const struct cg_state *st, int players,
                        struct cas_outbuf *ob)
{
    cas_outs(ob, "{\"hands\":[");
    for (int p = 0; p < players; p++) {
        cas_outs(ob, p ? ",[" : "[");
        for (int i = 0, first = 1; i < ctx->ncastles; i++)
            if (st->hand[p] >> i & 1) {
                cas_outs(ob, first ? "\"" : ",\"");
                cas_out_json_text(ob, ctx->id[i]);
                cas_outs(ob, "\"");
                first = 0;
            }
        cas_outs(ob, "]");
    }
    cas_outf(ob, "],\"gave_up\":%d}", st->gave_up);
}

static void render_text(const struct cg_ctx *ctx, const cas_carc *c, const struct cg_state *st,
                        int players, struct cas_outbuf *ob)
{
    for (int p = 0; p < players; p++) {
        cas_outf(ob, "%-8s castles in hand:", ctx->api->player_label(ctx->api->game(c), p));
        int any = 0;
        for (int i = 0; i < ctx->ncastles; i++)
            if (st->hand[p] >> i & 1) {
                cas_outf(ob, " %s", ctx->id[i]);
                any = 1;
            }
        cas_outf(ob, "%s%s\n", any ? "" : " none",
                 any && (st->gave_up >> p & 1) ? " (given up)" : "");
    }
}

/* Appends each player's castles in hand (public information). */
static int cg_render(void *xctx, const cas_carc *c, int viewer, enum cas_render_format format,
                     const struct cas_writer *out)
{
    (void)viewer;
    const struct cg_ctx *ctx = xctx;
    const struct cg_state *st = state_of(ctx, c);
    int players = ctx->api->nplayers(ctx->api->game(c));
    struct cas_outbuf ob; /* one write for the host: the picture renders this every move */
    cas_out_init(&ob, out);
    if (format == CAS_RENDER_JSON)
        render_json(ctx, st, players, &ob);
    else
        render_text(ctx, c, st, players, &ob);
    return cas_out_finish(&ob);
}

/* ------------------------------------------------------------ descriptor */

static const struct cas_carc_hooks cg_hooks = {
    .struct_size = sizeof(struct cas_carc_hooks),
    .feature_points = cg_feature_points,
    .score_category = cg_category,
    .veto_placement = cg_veto_placement,
    .bag_empty = cg_bag_empty,
    .vetoes_kind = cg_vetoes_kind,
    .veto_area = cg_veto_area,
};

static const struct cas_carc_phase cg_phases[] = {{
    .struct_size = sizeof(struct cas_carc_phase),
    .name = "castle pick",
    .slot = CAS_CARC_BEFORE_DRAW,
    .actor = pick_actor,
    .legal = pick_legal,
    .apply = pick_apply,
    .text = pick_text,
    .parse = pick_parse,
}, {
    .struct_size = sizeof(struct cas_carc_phase),
    .name = "castle",
    .slot = CAS_CARC_BEFORE_DRAW,
    .actor = place_actor,
    .legal = place_legal,
    .apply = place_apply,
    .text = place_text,
    .parse = place_parse,
    .is_legal = place_is_legal,
}};

static const char *const cg_tile_sets[] = {"castles-germany.tiles"};

/* `help` at the table (extension ABI 1.8). */
static const char cg_help[] =
    "  castle pick ID       at setup, take that castle into your hand (castle pick\n"
    "                       CG-3); the castles are shown over their choices\n"
    "  castle ID X,Y ROT    instead of drawing, place a castle of your hand as\n"
    "                       place does; never beside another castle, diagonals\n"
    "                       too (castle CG-3 4,-1 270)\n"
    "  castle keep          draw as usual and keep your castles (with the bag\n"
    "                       empty: give them up)\n"
    "  deploy meeple castle\n"
    "                       the lord of the castle just placed: 12 once its ten\n"
    "                       neighbouring spaces are filled (c on the board)\n";

static const struct cas_carc_expansion cg_expansion = {
    .struct_size = sizeof(struct cas_carc_expansion),
    .abi_major = CAS_CARC_ABI_MAJOR,
    .abi_minor = CAS_CARC_ABI_MINOR,
    .tile_sets = cg_tile_sets,
    .n_tile_sets = sizeof cg_tile_sets / sizeof cg_tile_sets[0],
    .state_size = sizeof(struct cg_state),
    .init = cg_init,
    .fini = cg_fini,
    .state_init = cg_state_init,
    .state_check = cg_state_check,
    .render = cg_render,
    .hooks = &cg_hooks,
    .phases = cg_phases,
    .n_phases = sizeof cg_phases / sizeof cg_phases[0],
    .state_offset = cg_state_offset,
    .notation_help = cg_help,
};

static const struct cas_plugin cg_plugin = {
    .struct_size = sizeof(struct cas_plugin),
    .abi_major = CAS_ABI_MAJOR,
    .abi_minor = CAS_ABI_MINOR,
    .fingerprint = CAS_BUILD_FINGERPRINT,
    .id = "castles-germany",
    .version = "1.0.0",
    .kind = CAS_KIND_EXPANSION,
    .extends = "carcassonne",
    .options = cg_options,
    .n_options = sizeof cg_options / sizeof cg_options[0],
    .extension = &cg_expansion,
};

const struct cas_plugin *cas__cg_plugin(void)
{
    return &cg_plugin;
}
