/*
 * ratings.h — Weng-Lin Bayesian ratings (host-internal): the Plackett-Luce
 * update of "A Bayesian Approximation Method for Online Ranking" (Weng and
 * Lin, JMLR 2011, algorithm 4), the model behind OpenSkill.  One update
 * takes a finished game of 2 or more players, each ranked (ties allowed),
 * and moves every player's skill estimate; a whole pool is recomputed by
 * replaying its games in order, so ratings are deterministic and can be
 * rebuilt from the store at any time (docs/ratings.md).
 */
#ifndef CAS_HOST_RATINGS_H
#define CAS_HOST_RATINGS_H

#include <stddef.h>

/* A player's skill: mean and standard deviation of the belief. */
struct cas__rating {
    double mu, sigma;
};

/* The model's constants.  cas__rating_model_default gives OpenSkill's
 * defaults: mu 25, sigma 25/3, beta 25/6, tau 25/300, kappa 1e-4, z 3. */
struct cas__rating_model {
    double mu, sigma;  /* a new player's rating */
    double beta;       /* performance noise: skill difference worth ~76 % */
    double tau;        /* added to sigma before each game, so ratings move */
    double kappa;      /* floor of the variance's shrink factor */
    double z;          /* the displayed rating is mu - z * sigma */
};

/* The most players one game may rank. */
#define CAS__RATING_MAX_PLAYERS 64

void cas__rating_model_default(struct cas__rating_model *m);

/* A new player's rating under m. */
struct cas__rating cas__rating_new(const struct cas__rating_model *m);

/* The rating shown to people: mu - z * sigma, a conservative estimate that
 * starts at 0 and grows as games are played. */
double cas__rating_shown(const struct cas__rating_model *m, struct cas__rating r);

/* Update r[0..n) in place after one game in which player i finished with
 * place[i] (0 is first; equal places are ties; only the order matters).
 * CAS_EINVAL for n < 2 or n > CAS__RATING_MAX_PLAYERS, or a rating that is
 * not finite or has sigma <= 0; r is then unchanged. */
int cas__rating_update(const struct cas__rating_model *m, struct cas__rating *r,
                       const int *place, size_t n);

/* Places from final scores: the higher score places better, equal scores
 * tie.  place[i] = the number of players with a strictly higher score. */
void cas__rating_places(const long long *scores, int *place, size_t n);

/* ------------------------------------------------- pools from the store */

struct cas__saves;

/* One player of a pool.  Humans are known by name; a bot by its agent
 * spec, so every seat mcts-hard played counts for one "mcts-hard". */
struct cas__rated_player {
    char *name;            /* the name, or the agent spec of a bot */
    int bot;
    struct cas__rating rating;
    double shown;          /* cas__rating_shown of rating */
    size_t games;
    char *last_played;     /* the newest of its games' last-played times */
};

/* The games one rating counts together. */
struct cas__rating_pool {
    char *name;            /* "carcassonne", or with --pool mix the game and
                            * its expansions: "carcassonne+inns-cathedrals" */
    size_t games;
    struct cas__rated_player *players; /* best shown rating first */
    size_t n_players;
};

struct cas__saves_player;

/* Who a seat is to the ratings: a registered player by their name now
 * (so a rename carries their games along), a guest by the seat's name, a
 * bot by its agent spec (every seat mcts-hard played is one "mcts-hard"); the
 * identity's text is borrowed from p. */
int cas__rating_is_bot(const struct cas__saves_player *p);
const char *cas__rating_identity(const struct cas__saves_player *p);

enum cas__pool_by {
    CAS__POOL_GAME,  /* one pool per game, whatever its expansions */
    CAS__POOL_MIX    /* one pool per game and exact list of expansions */
};

struct cas__ratings_query {
    enum cas__pool_by by;
    const char *pool;      /* NULL: every pool; else only this one */
    const char *since;     /* NULL, or only games last played at or after
                            * this ISO 8601 time ("2026-12-01") */
    struct cas__rating_model model;
};

/* Rate every finished game of store s that the query selects, from scratch,
 * in the order the games were finished (then by id), so the same store
 * always gives the same ratings.  A seat whose flag fell places last; the
 * others place by final score.  Games of one player are skipped.  On
 * success *pools (sorted by name) and *n are the caller's, freed with
 * cas__rating_pools_free.  Errors: the store's (cas__saves_errmsg), or
 * CAS_ENOMEM. */
int cas__ratings_recompute(struct cas__saves *s, const struct cas__ratings_query *q,
                           struct cas__rating_pool **pools, size_t *n);
void cas__rating_pools_free(struct cas__rating_pool *pools, size_t n);

struct cas__saves_result;

/* cas__ratings_recompute on results already read (cas__saves_results, in
 * the order they were finished), so one read of the store can be rated by
 * game and by mix; q->since is not applied here.  Same ownership. */
int cas__ratings_rate(const struct cas__saves_result *games, size_t n_games,
                      const struct cas__ratings_query *q, struct cas__rating_pool **pools,
                      size_t *n);

#endif
