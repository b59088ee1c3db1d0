/*
 * tournament.c — seeded games between two agents with seats alternated,
 * and the Wilson interval of a win rate.
 */
#include "tournament.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "agent.h"
#include "session.h"

double cas__tournament_rate(const struct cas__tournament_result *r)
{
    return r->games ? (r->wins + 0.5 * r->draws) / r->games : 0.0;
}

void cas__wilson(double p, double n, double z, double *low, double *high)
{
    double z2 = z * z;
    double centre = (p + z2 / (2 * n)) / (1 + z2 / n);
    double half = z / (1 + z2 / n) * sqrt(p * (1 - p) / n + z2 / (4 * n * n));
    *low = centre - half > 0 ? centre - half : 0;
    *high = centre + half < 1 ? centre + half : 1;
}

/* An agent that times its own decisions (A's, for the per-move figure). */
struct timed_agent {
    struct cas__agent base;
    struct cas__agent *inner;
    struct cas__tournament_result *r;
};

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static int timed_choose(struct cas__agent *agent, const struct cas__decision *d,
                        cas_action *out)
{
    struct timed_agent *a = (struct timed_agent *)agent;
    double start = now_seconds();
    int rc = cas__agent_choose(a->inner, d, out);
    a->r->a_seconds += now_seconds() - start;
    a->r->a_decisions++;
    return rc;
}

static const struct cas__agent_ops timed_ops = {.kind = "timed", .choose = timed_choose};

/* Game `index`: fresh agents, so no tree is carried from game to game. */
static int play_game(const struct cas__tournament *t, int index,
                     struct cas__tournament_result *r, char *err, size_t errlen)
{
    struct cas__match *m = t->match;
    uint64_t seed = t->seed + (uint64_t)(index / 2);
    int a_seat = index % 2;
    struct cas__agent *a = NULL, *b = NULL;
    struct cas__session s;
    int rc = cas__agent_new(t->agent_a, &a);
    if (rc == CAS_OK)
        rc = cas__agent_new(t->agent_b, &b);
    if (rc != CAS_OK) {
        snprintf(err, errlen, "cannot make the agents %s and %s (%d)", t->agent_a,
                 t->agent_b, rc);
        goto free_agents;
    }
    struct timed_agent timed = {.base.ops = &timed_ops, .inner = a, .r = r};
    struct cas__agent *seats[2];
    seats[a_seat] = &timed.base;
    seats[1 - a_seat] = b;
    rc = cas__session_init(&s, m, seed, seats, NULL);
    if (rc == CAS_OK)
        rc = cas__session_run(&s);
    int64_t scores[2];
    if (rc == CAS_OK)
        rc = m->vt->returns(s.state, scores, 2);
    if (rc != CAS_OK) {
        snprintf(err, errlen, "game %d (seed %llu, %s in seat %d) failed (%d): %s", index + 1,
                 (unsigned long long)seed, t->agent_a, a_seat + 1, rc,
                 s.error[0] ? s.error : m->error);
    } else {
        double diff = (double)(scores[a_seat] - scores[1 - a_seat]);
        r->wins += diff > 0;
        r->draws += diff == 0;
        r->losses += diff < 0;
        r->diff_sum += diff;
        r->diff_squares += diff * diff;
        r->a_sum += (double)scores[a_seat];
        r->b_sum += (double)scores[1 - a_seat];
        r->games++;
    }
    if (s.match)
        cas__session_free(&s);
free_agents:
    cas__agent_free(a);
    cas__agent_free(b);
    return rc;
}

int cas__tournament_run(const struct cas__tournament *t, struct cas__tournament_result *r,
                        char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    if (t->match->nplayers != 2) {
        snprintf(err, errlen, "a tournament is for 2 players, not %d", t->match->nplayers);
        return CAS_EINVAL;
    }
    int rc = CAS_OK;
    for (int i = 0; rc == CAS_OK && i < t->games; i++) {
        rc = play_game(t, i, r, err, errlen);
        if (rc == CAS_OK && t->progress)
            t->progress(t->ctx, r, t->games);
    }
    return rc;
}
