/*
 * ratings.c — the Weng-Lin Plackett-Luce update (ratings.h).  The notation
 * follows the paper: c is the shared scale, C_q the set of players placed
 * no better than q, A_q the number tied with q.
 */
#include "ratings.h"

#include <math.h>

#include <castellan/plugin.h>

void cas__rating_model_default(struct cas__rating_model *m)
{
    m->mu = 25.0;
    m->sigma = 25.0 / 3.0;
    m->beta = 25.0 / 6.0;
    m->tau = 25.0 / 300.0;
    m->kappa = 1e-4;
    m->z = 3.0;
}

struct cas__rating cas__rating_new(const struct cas__rating_model *m)
{
    struct cas__rating r = {m->mu, m->sigma};
    return r;
}

double cas__rating_shown(const struct cas__rating_model *m, struct cas__rating r)
{
    return r.mu - m->z * r.sigma;
}

void cas__rating_places(const long long *scores, int *place, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        int better = 0;
        for (size_t j = 0; j < n; j++)
            better += scores[j] > scores[i];
        place[i] = better;
    }
}

static int ratings_valid(const struct cas__rating *r, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!isfinite(r[i].mu) || !isfinite(r[i].sigma) || r[i].sigma <= 0)
            return 0;
    return 1;
}

int cas__rating_update(const struct cas__rating_model *m, struct cas__rating *r,
                       const int *place, size_t n)
{
    double var[CAS__RATING_MAX_PLAYERS], strength[CAS__RATING_MAX_PLAYERS];
    double below_sum[CAS__RATING_MAX_PLAYERS];
    int tied[CAS__RATING_MAX_PLAYERS];

    if (n < 2 || n > CAS__RATING_MAX_PLAYERS || !ratings_valid(r, n))
        return CAS_EINVAL;

    double c2 = 0;
    for (size_t i = 0; i < n; i++) {
        var[i] = r[i].sigma * r[i].sigma + m->tau * m->tau;
        c2 += var[i] + m->beta * m->beta;
    }
    double c = sqrt(c2);
    for (size_t i = 0; i < n; i++)
        strength[i] = exp(r[i].mu / c);
    for (size_t q = 0; q < n; q++) {
        below_sum[q] = 0;
        tied[q] = 0;
        for (size_t i = 0; i < n; i++) {
            if (place[i] >= place[q])
                below_sum[q] += strength[i];
            tied[q] += place[i] == place[q];
        }
    }
    for (size_t i = 0; i < n; i++) {
        double omega = 0, delta = 0;
        for (size_t q = 0; q < n; q++) {
            if (place[q] > place[i])
                continue;
            double p = strength[i] / below_sum[q];
            omega += ((i == q ? 1.0 : 0.0) - p) / tied[q];
            delta += p * (1 - p) / tied[q];
        }
        double gamma = sqrt(var[i]) / c;
        double shrink = 1 - gamma * var[i] / c2 * delta;
        r[i].mu += var[i] / c * omega;
        r[i].sigma = sqrt(var[i]) * sqrt(shrink > m->kappa ? shrink : m->kappa);
    }
    return CAS_OK;
}
