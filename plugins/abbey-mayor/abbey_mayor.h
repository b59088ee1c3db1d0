/*
 * abbey_mayor.h — the Abbey & Mayor expansion's shared definitions: its
 * context (indices found at init, options), its per-state block, and the
 * functions between its files (abbey.c, wagon.c, barn.c and the descriptor
 * in abbey_mayor.c).  cas__am_plugin() is also what entry.c and tests use.
 */
#ifndef ABBEY_MAYOR_H
#define ABBEY_MAYOR_H

#include <castellan/carcassonne.h>

#define AM_MAX_PLAYERS 6
#define AM_FIGURES_ON_MAX 256 /* figures on one feature, at the most */
#define AM_NO_PART 0xFFFFu

/* The static descriptor (kind expansion, extension = its
 * struct cas_carc_expansion); never freed. */
const struct cas_plugin *cas__am_plugin(void);

enum am_wagon_reach { AM_REACH_C2 = 0, AM_REACH_C1 = 1 };

struct am_ctx {
    const struct cas_carc_api *api;
    const struct cas_host *host;
    int coat;                    /* attribute index */
    int abbey;                   /* tile kind */
    int mayor, wagon, barn, pig; /* figure kinds (pig: -1 without T&B) */
    int abbeys;                  /* abbeys the game places at most: one a seat,
                                    no more than its `tiles` count */
    int final_abbey_round;       /* option final-abbey-round */
    int wagons, barns;           /* options: each seat's wagons and barns */
    int players;
    enum am_wagon_reach reach;   /* option wagon-move */
    int c1_reading;              /* option c1-reach: CAS_CARC_LINKS_DEFAULT (faq)
                                    or CAS_CARC_LINKS_JCZ (jcz) */
    size_t state_offset;         /* of the block in every state (1.6) */
    int retire;                  /* what an actor says once its phase is over
                                    for good: CAS_CARC_PHASE_RETIRE from 1.7 */
};

/* A wagon freed by a scoring this turn, waiting for its owner's choice. */
struct am_wagon {
    uint8_t player;
    uint8_t waiting; /* 1 until its owner has decided (or it had no choice) */
    uint16_t part;   /* the part it stood on when its feature scored */
};

/* The per-state block: plain bytes, cloned, hashed and serialized. */
struct am_state {
    uint8_t abbey_used;  /* bit per seat: placed its abbey */
    uint8_t final_seen;  /* bit per seat: had its turn of the final round */
    uint8_t join_scoring; /* a barn join is being scored: 1 per city */
    uint8_t barn_scored; /* bit per seat: its barn's placement was handled */
    uint16_t holes;      /* empty spaces with a tile on all four sides, kept
                            while some seat may still place an abbey */
    uint16_t wagons_waiting; /* how many wagons this turn's scorings freed */
    struct am_wagon wagons[AM_MAX_PLAYERS];
    uint16_t barn_part[AM_MAX_PLAYERS]; /* where each barn stands */
};

/* A seat's wagons and barns each have a slot in the block's arrays: seat
 * p's k-th at p + k * players, below AM_MAX_PLAYERS (am_init checks that
 * the options `wagons` and `barns` fit); with one of each, slot = seat, as
 * before the options. */
static inline int cas__am_slot(const struct am_ctx *ctx, int seat, int k)
{
    return seat + k * ctx->players;
}

/* This expansion's block of c, where the engine's state_offset said it
 * lies: the hooks of every turn read it without a call. */
static inline struct am_state *cas__am_block(const void *xctx, cas_carc *c)
{
    return cas_carc_block(c, ((const struct am_ctx *)xctx)->state_offset);
}

static inline const struct am_state *cas__am_block_const(const void *xctx, const cas_carc *c)
{
    return cas_carc_block_const(c, ((const struct am_ctx *)xctx)->state_offset);
}

/* ------------------------------------------------------------ abbey.c */
/* The BEFORE_DRAW phase `abbey` (cas_carc_phase contract). */
int cas__am_abbey_actor(void *xctx, const cas_carc *c);
int cas__am_abbey_legal(void *xctx, const cas_carc *c, uint64_t *payloads, size_t cap,
                      size_t *count);
int cas__am_abbey_is_legal(void *xctx, const cas_carc *c, uint64_t payload);
int cas__am_abbey_apply(void *xctx, cas_carc *c, uint64_t payload);
int cas__am_abbey_text(void *xctx, const cas_carc *c, uint64_t payload, char *buf,
                     size_t cap);
int cas__am_abbey_parse(void *xctx, const cas_carc *c, const char *text, uint64_t *payload);
int cas__am_bag_empty(void *xctx, cas_carc *c, int player);
/* CALL-ALL tile_placed: keep the count of holes. */
void cas__am_tile_placed(void *xctx, cas_carc *c, int player, int tile);
/* May some seat still place an abbey (not all placed, the game's count
 * of abbeys not reached)? */
int cas__am_abbey_held(const struct am_ctx *ctx, const struct am_state *st);
/* Holes on the board now, counted from scratch (state_check). */
int cas__am_count_holes(const struct am_ctx *ctx, const cas_carc *c);

/* ------------------------------------------------------------ wagon.c */
/* The AFTER_SCORING phase `wagon` (cas_carc_phase contract). */
int cas__am_wagon_actor(void *xctx, const cas_carc *c);
int cas__am_wagon_legal(void *xctx, const cas_carc *c, uint64_t *payloads, size_t cap,
                      size_t *count);
int cas__am_wagon_apply(void *xctx, cas_carc *c, uint64_t payload);
int cas__am_wagon_text(void *xctx, const cas_carc *c, uint64_t payload, char *buf,
                     size_t cap);
int cas__am_wagon_parse(void *xctx, const cas_carc *c, const char *text, uint64_t *payload);
void cas__am_feature_scored(void *xctx, cas_carc *c, int player, cas_carc_feature f,
                            enum cas_carc_when when, const int64_t *points);
/* Forget this turn's wagons (CALL-ALL turn_end). */
void cas__am_turn_end(void *xctx, cas_carc *c, int player);

/* ------------------------------------------------------------ barn.c */
int cas__am_barn_can_deploy(void *xctx, const cas_carc *c, int player,
                            cas_carc_feature feature);
int cas__am_veto_deploy(void *xctx, const cas_carc *c, int player, int kind,
                        cas_carc_feature f);
/* vetoes_deploy: only pigs (a pig needs its owner's farmer). */
int cas__am_vetoes_deploy(void *xctx, const cas_carc_game *game, int tile_kind,
                          int figure_kind);
void cas__am_turn_scoring(void *xctx, cas_carc *c, int player);
int64_t cas__am_feature_points(void *xctx, const cas_carc *c, cas_carc_feature f,
                               enum cas_carc_when when, int winner, int64_t points);
void cas__am_final_scoring(void *xctx, cas_carc *c);

/* ------------------------------------------------------------ abbey_mayor.c */
/* Does feature f hold a figure of `kind` (of `player`, or anyone's if
 * player < 0)? */
int cas__am_has_figure(const struct am_ctx *ctx, const cas_carc *c, int player, int kind,
                       cas_carc_feature f);
/* The same on part `part` itself, not elsewhere on its feature (with the
 * option barns, a seat's older barn may share the field of its new one). */
int cas__am_has_figure_on_part(const struct am_ctx *ctx, const cas_carc *c, int player,
                               int kind, cas_carc_feature part);
/* What a phase's text() returns for snprintf's result `len` into a
 * buffer of `cap` bytes: the length, CAS_ENOSPC, or CAS_EINVAL. */
int cas__am_text_result(int len, size_t cap);

#endif
