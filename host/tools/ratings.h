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

#endif
