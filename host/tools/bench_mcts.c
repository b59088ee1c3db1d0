/*
 * bench_mcts.c — `castellan bench --only mcts`: MCTS iterations per second
 * on the game's first decision, random playouts to the end, on one thread
 * and on every core, and how the speed scales.
 */
#include "bench.h"

#include <stdlib.h>

#include "mcts.h"

#define ITERATIONS_PER_GAME 20 /* per thread: --games 1000 gives 20,000 */

/* The state of the first player decision of the bench's first game. */
static int first_decision(struct cas__bench *b, cas_state **out, struct cas__actions *legal)
{
    struct cas__match *m = b->match;
    int rc = m->vt->state_new(m->game, out);
    for (uint32_t ply = 0; rc == CAS_OK && m->vt->current(*out) == CAS_ACTOR_CHANCE; ply++)
        rc = cas__random_step(m, *out, legal, b->seed, ply);
    if (rc == CAS_OK && m->vt->current(*out) < 0)
        rc = CAS_EINVAL; /* over before anyone decided */
    if (rc == CAS_OK)
        rc = cas__match_legal(m, *out, legal);
    return rc;
}

/* One search of `iterations` per thread on `threads` threads: iterations/s. */
static int time_search(struct cas__bench *b, const cas_state *state,
                       const struct cas__actions *legal, unsigned threads,
                       uint64_t iterations, double *rate)
{
    struct cas__mcts_params p;
    struct cas__mcts *search;
    cas_action choice;
    cas__mcts_level(CAS__LEVEL_MEDIUM, threads, &p);
    p.iterations = iterations * threads;
    p.rollout_limit = 0;
    p.reuse = 0;
    int rc = cas__mcts_new(&p, &search);
    if (rc != CAS_OK)
        return rc;
    struct cas__decision d = {
        .match = b->match, .state = state, .player = b->match->vt->current(state),
        .player_name = "bench", .seed = b->seed, .ply = 0, .legal = legal,
    };
    rc = cas__mcts_choose(search, &d, &choice);
    const struct cas__mcts_stats *st = cas__mcts_last(search);
    *rate = (double)st->iterations / st->seconds;
    cas__mcts_free(search);
    return rc;
}

/* Bare random playouts from `state`, as many as the search's iterations:
 * what an iteration costs beyond its playout shows against this. */
static int time_playouts(struct cas__bench *b, const cas_state *state, uint64_t n,
                         double *rate)
{
    struct cas__match *m = b->match;
    struct cas__actions list = {0};
    cas_state *work = NULL;
    int rc = m->vt->state_clone(state, &work);
    double start = cas__bench_now();
    for (uint64_t i = 0; rc == CAS_OK && i < n; i++) {
        rc = m->vt->state_copy(work, state);
        for (uint32_t ply = 1; rc == CAS_OK && m->vt->current(work) != CAS_ACTOR_TERMINAL;
             ply++)
            rc = cas__random_step(m, work, &list, b->seed + i, ply);
    }
    *rate = (double)n / (cas__bench_now() - start);
    if (work)
        m->vt->state_free(work);
    cas__actions_free(&list);
    return rc;
}

int cas__bench_mcts(struct cas__bench *b)
{
    struct cas__actions legal = {0};
    cas_state *state = NULL;
    unsigned cores = cas__mcts_cores();
    uint64_t iterations = (uint64_t)b->games * ITERATIONS_PER_GAME;
    double one = 0, all = 0, bare = 0;
    int rc = first_decision(b, &state, &legal);
    if (rc == CAS_OK)
        rc = time_playouts(b, state, iterations, &bare);
    if (rc == CAS_OK)
        rc = time_search(b, state, &legal, 1, iterations, &one);
    if (rc == CAS_OK)
        rc = time_search(b, state, &legal, cores, iterations, &all);
    if (rc == CAS_OK) {
        fprintf(b->out, "  %-22s %12.0f iterations/s  (1 thread, %llu iterations, random "
                "playouts to the end, first decision)\n",
                "mcts 1 core", one, (unsigned long long)iterations);
        fprintf(b->out, "  %-22s %12.0f playouts/s  (bare random playouts from the same "
                "decision: an iteration costs %.2fx one)\n",
                "vs bare playouts", bare, bare / one);
        fprintf(b->out, "  %-22s %12.0f iterations/s  (%u threads, %llu iterations each)\n",
                "mcts all cores", all, cores, (unsigned long long)iterations);
        fprintf(b->out, "  %-22s %11.2fx  (ideal %ux; a shared or busy machine gives "
                "less)\n", "mcts scaling", all / one, cores);
    } else {
        fprintf(b->out, "  %-22s failed (%d): %s\n", "mcts", rc,
                b->match->error[0] ? b->match->error : "no reason given");
    }
    if (state)
        b->match->vt->state_free(state);
    cas__actions_free(&legal);
    return rc;
}
