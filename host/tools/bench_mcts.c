/*
 * bench_mcts.c — `castellan bench --only mcts`: MCTS iterations per second
 * on the game's first decision, random playouts to the end, on one thread
 * and on every core (root and tree parallelization), and how the speed
 * scales.
 */
#include "bench.h"

#include <stdlib.h>
#include <time.h>

#include "mcts.h"

#define ITERATIONS_PER_GAME 20 /* per thread: --games 1000 gives 20,000 */

int cas__bench_first_decision(struct cas__bench *b, struct cas__match *m, cas_state **out,
                              struct cas__actions *legal)
{
    int rc = m->vt->state_new(m->game, out);
    for (uint32_t ply = 0; rc == CAS_OK && cas__match_current(m, *out) == CAS_ACTOR_CHANCE; ply++)
        rc = cas__random_step(m, *out, legal, b->seed, ply);
    if (rc == CAS_OK && cas__match_current(m, *out) < 0)
        rc = CAS_EINVAL; /* over before anyone decided */
    if (rc == CAS_OK)
        rc = cas__match_legal(m, *out, legal);
    return rc;
}

/* CPU seconds the process has used, all threads together: on a shared
 * machine iterations per CPU second hardly depend on the load, iterations
 * per wall-clock second do. */
static double cpu_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One search of `iterations` per thread on `threads` threads: iterations
 * per second of wall-clock time and per second of CPU time. */
static int time_search(struct cas__bench *b, const cas_state *state,
                       const struct cas__actions *legal, unsigned threads,
                       enum cas__mcts_parallel parallel, uint64_t iterations, double *rate,
                       double *cpu_rate)
{
    struct cas__mcts_params p;
    struct cas__mcts *search;
    cas_action choice;
    cas__mcts_level(CAS__LEVEL_MEDIUM, threads, &p);
    p.parallel = parallel;
    p.iterations = iterations * threads;
    p.rollout_limit = 0;
    p.reuse = 0;
    int rc = cas__mcts_new(&p, &search);
    if (rc != CAS_OK)
        return rc;
    struct cas__decision d = {
        .match = b->match, .state = state, .player = cas__match_current(b->match, state),
        .player_name = "bench", .seed = b->seed, .ply = 0, .legal = legal,
    };
    double cpu = cpu_seconds();
    rc = cas__mcts_choose(search, &d, &choice);
    cpu = cpu_seconds() - cpu;
    const struct cas__mcts_stats *st = cas__mcts_last(search);
    *rate = (double)st->iterations / st->seconds;
    *cpu_rate = (double)st->iterations / cpu;
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
        for (uint32_t ply = 1; rc == CAS_OK && cas__match_current(m, work) != CAS_ACTOR_TERMINAL;
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
    double one = 0, all = 0, bare = 0, one_cpu = 0, all_cpu = 0, tree = 0, tree_cpu = 0;
    int rc = cas__bench_first_decision(b, b->match, &state, &legal);
    if (rc == CAS_OK)
        rc = time_playouts(b, state, iterations, &bare);
    if (rc == CAS_OK)
        rc = time_search(b, state, &legal, 1, CAS__PARALLEL_ROOT, iterations, &one, &one_cpu);
    if (rc == CAS_OK)
        rc = time_search(b, state, &legal, cores, CAS__PARALLEL_ROOT, iterations, &all,
                         &all_cpu);
    if (rc == CAS_OK)
        rc = time_search(b, state, &legal, cores, CAS__PARALLEL_TREE, iterations, &tree,
                         &tree_cpu);
    if (rc == CAS_OK) {
        fprintf(b->out, "  %-22s %12.0f iterations/s  (1 thread, %llu iterations, random "
                "playouts to the end, first decision)\n",
                "mcts 1 core", one, (unsigned long long)iterations);
        fprintf(b->out, "  %-22s %12.0f iterations/s  (the same per second of CPU time, "
                "which a busy machine hardly changes)\n", "mcts 1 core, CPU time",
                one_cpu);
        fprintf(b->out, "  %-22s %12.0f playouts/s  (bare random playouts from the same "
                "decision: an iteration costs %.2fx one)\n",
                "vs bare playouts", bare, bare / one);
        fprintf(b->out, "  %-22s %12.0f iterations/s  (%u threads, %llu iterations each; "
                "%.0f per CPU second per thread)\n",
                "mcts all cores", all, cores, (unsigned long long)iterations, all_cpu);
        fprintf(b->out, "  %-22s %11.2fx  (ideal %ux; a shared or busy machine gives "
                "less)\n", "mcts scaling", all / one, cores);
        fprintf(b->out, "  %-22s %12.0f iterations/s  (%u threads on one tree, virtual "
                "loss, in turns; %.0f per CPU second per thread)\n",
                "mcts all cores, tree", tree, cores, tree_cpu);
        fprintf(b->out, "  %-22s %11.2fx  (tree parallelization against 1 thread)\n",
                "mcts scaling, tree", tree / one);
    } else {
        fprintf(b->out, "  %-22s failed (%d): %s\n", "mcts", rc,
                b->match->error[0] ? b->match->error : "no reason given");
    }
    if (state)
        b->match->vt->state_free(state);
    cas__actions_free(&legal);
    return rc;
}
