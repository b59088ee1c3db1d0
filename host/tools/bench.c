/*
 * bench.c — the speed figures bots live on: random playouts per second
 * (with expansions, against the game alone, and what each expansion adds
 * per action), in interleaved rounds on request, the cost of listing legal
 * actions, of cloning, copying and hashing a state, and how big a state is
 * serialized and on the heap.  Playouts are an agent-free tight loop over
 * the vtable, from copies of one start state.
 */
#include "bench.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "agent.h"
#include "buf.h"
#include "prng.h"
#include "term.h"
#include "worker.h"

#define MAX_SAMPLES 2000
#define LEGAL_REPEAT 8
#define COPY_REPEAT 16

/* A result row too long for the width goes on, wrapped, on lines
 * indented this much. */
#define ROW_INDENT 4

void cas__bench_vprint(struct cas__bench *b, int indent, const char *fmt, va_list args)
{
    char text[1024], rest[1024 + 64];
    int width = b->width > 0 ? b->width : 80;
    vsnprintf(text, sizeof text, fmt, args);
    text[strcspn(text, "\n")] = '\0';
    char *details = strstr(text, "  (");
    if ((int)strlen(text) <= width || !details) {
        cas__term_wrap(b->out, width, indent, text);
        return;
    }
    /* the figure on its line, the parenthesised details on the next */
    *details = '\0';
    snprintf(rest, sizeof rest, "%*s%s", indent, "", details + 2);
    cas__term_wrap(b->out, width, indent, text);
    cas__term_wrap(b->out, width, indent, rest);
}

static CAS_PRINTF(2, 3) void bench_row(struct cas__bench *b, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    cas__bench_vprint(b, ROW_INDENT, fmt, args);
    va_end(args);
}

int cas__bench_scratch(const char *base, const char *name, char *dir, char *db)
{
    const char *tmp = getenv("TMPDIR");
    if (!base)
        base = tmp && *tmp ? tmp : "/tmp";
    snprintf(dir, 512, "%s/castellan-bench-XXXXXX", base);
    if (!mkdtemp(dir))
        return CAS_EIO;
    snprintf(db, 600, "%s/%s", dir, name);
    return CAS_OK;
}

void cas__bench_scratch_remove(const char *dir, const char *db)
{
    static const char *const suffixes[] = {"", "-wal", "-shm"};
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        char path[640];
        snprintf(path, sizeof path, "%s%s", db, suffixes[i]);
        unlink(path);
    }
    rmdir(dir);
}

double cas__bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Play game `index` of the bench to the end from `start` in `work`: the
 * game random bots play in a session seeded b->seed + index.  *plies
 * counts the actions. */
static int playout(struct cas__bench *b, struct cas__match *m, const cas_state *start,
                   cas_state *work, struct cas__actions *list, int index, uint64_t *plies)
{
    return cas__playout(m, start, work, list, b->seed + (uint64_t)index, plies);
}

/* b->games playouts of m: how long they took and how many actions. */
static int time_playouts(struct cas__bench *b, struct cas__match *m, double *seconds,
                         uint64_t *plies)
{
    struct cas__actions list = {0};
    cas_state *start = NULL, *work = NULL;
    *plies = 0;
    int rc = m->vt->state_new(m->game, &start);
    if (rc == CAS_OK)
        rc = m->vt->state_clone(start, &work);
    struct cas__progress progress;
    cas__progress_begin(&progress, b->progress, "bench playouts", "games", (uint64_t)b->games);
    double t0 = cas__bench_now();
    for (int i = 0; rc == CAS_OK && i < b->games; i++) {
        rc = playout(b, m, start, work, &list, i, plies);
        cas__progress_update(&progress, (uint64_t)i + 1);
    }
    *seconds = cas__bench_now() - t0;
    cas__progress_end(&progress);
    m->vt->state_free(work);
    m->vt->state_free(start);
    cas__actions_free(&list);
    return rc;
}

static int failed_in(struct cas__bench *b, const struct cas__match *m, const char *what, int rc)
{
    bench_row(b, "  %-22s failed (%d): %s\n", what, rc,
            m->error[0] ? m->error : "no reason given");
    return rc;
}

static int failed(struct cas__bench *b, const char *what, int rc)
{
    return failed_in(b, b->match, what, rc);
}

/* The median of v[0..n), which it sorts. */
static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ------------------------------------------------------------ sections */

/* CPU seconds this process has used. */
static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}


/* Each round's timings of the playouts section: the session's, and the
 * game alone's when it is compared. */
struct playout_rounds {
    double seconds[CAS__BENCH_MAX_ROUNDS], alone_seconds[CAS__BENCH_MAX_ROUNDS];
    double cpu[CAS__BENCH_MAX_ROUNDS], alone_cpu[CAS__BENCH_MAX_ROUNDS]; /* CPU seconds */
    uint64_t plies, alone_plies;
};

static int time_rounds(struct cas__bench *b, struct playout_rounds *r, const char *alone_what)
{
    for (int i = 0; i < b->rounds; i++) {
        double cpu = cpu_now();
        int rc = time_playouts(b, b->match, &r->seconds[i], &r->plies);
        r->cpu[i] = cpu_now() - cpu;
        if (rc != CAS_OK)
            return failed(b, "random playouts", rc);
        cpu = cpu_now();
        if (b->alone && (rc = time_playouts(b, b->alone, &r->alone_seconds[i],
                                            &r->alone_plies)) != CAS_OK)
            return failed_in(b, b->alone, alone_what, rc);
        r->alone_cpu[i] = cpu_now() - cpu;
    }
    return CAS_OK;
}

/* The game alone against the combination: the median round's ratios, and
 * with several rounds the range of the ratio per action. */
static void print_comparison(struct cas__bench *b, struct playout_rounds *r,
                             const char *what)
{
    double per_game[CAS__BENCH_MAX_ROUNDS], per_action[CAS__BENCH_MAX_ROUNDS];
    double per_action_cpu[CAS__BENCH_MAX_ROUNDS];
    double action_share = (double)r->alone_plies / (double)r->plies;
    for (int i = 0; i < b->rounds; i++) {
        per_game[i] = r->seconds[i] / r->alone_seconds[i];
        per_action[i] = per_game[i] * action_share;
        per_action_cpu[i] = r->cpu[i] / r->alone_cpu[i] * action_share;
    }
    double game_ratio = median(per_game, b->rounds), action_ratio = median(per_action, b->rounds);
    double action_cpu_ratio = median(per_action_cpu, b->rounds);
    double alone_seconds = median(r->alone_seconds, b->rounds);
    char rounds[96] = "";
    if (b->rounds > 1)
        snprintf(rounds, sizeof rounds, "; median of %d rounds, %.2fx to %.2fx per action",
                 b->rounds, per_action[0], per_action[b->rounds - 1]);
    bench_row(b, "  %-22s %11.2fx time per game, %.2fx per action  (%.0f playouts/s, %.1f"
            " actions a game%s; per action in CPU time, which a busy machine hardly"
            " changes, %.2fx)\n", what, game_ratio, action_ratio, b->games / alone_seconds,
            (double)r->alone_plies / b->games, rounds, action_cpu_ratio);
}

/* The playouts, and with expansions the game alone's, compared. */
static int bench_playouts(struct cas__bench *b)
{
    struct playout_rounds r;
    char what[96];
    snprintf(what, sizeof what, "vs %s alone", b->match->plugin->id);
    int rc = time_rounds(b, &r, what);
    if (rc != CAS_OK)
        return rc;
    double seconds = median(r.seconds, b->rounds);
    b->playouts_per_second = b->games / seconds;
    b->playouts_per_cpu_second = b->games / median(r.cpu, b->rounds);
    bench_row(b, "  %-22s %12.0f playouts/s  (%d games in %.3f s, %.1f actions a game,"
            " %.2f M actions/s)\n", "random playouts", b->games / seconds, b->games, seconds,
            (double)r.plies / b->games, (double)r.plies / seconds / 1e6);
    if (b->alone)
        print_comparison(b, &r, what);
    else if (b->alone_error)
        bench_row(b, "  %-22s not measured: %s\n", what, b->alone_error);
    return CAS_OK;
}

/* Seconds per action of m's playouts; what = the row a failure names. */
static int time_per_action(struct cas__bench *b, struct cas__match *m, const char *what,
                           double *per_action)
{
    double seconds;
    uint64_t plies;
    int rc = time_playouts(b, m, &seconds, &plies);
    if (rc != CAS_OK)
        return failed_in(b, m, what, rc);
    *per_action = seconds / (double)plies;
    return CAS_OK;
}

/* One round of the marginal section: the session, the game alone, then
 * the session without each expansion that could be opened; t[0], t[1],
 * t[2 + i] in seconds per action. */
static int marginal_round(struct cas__bench *b, double *t)
{
    int rc = time_per_action(b, b->match, "marginal", &t[0]);
    if (rc == CAS_OK)
        rc = time_per_action(b, b->alone, "marginal", &t[1]);
    for (size_t i = 0; rc == CAS_OK && i < b->n_without; i++)
        if (b->without[i].match)
            rc = time_per_action(b, b->without[i].match, "marginal", &t[2 + i]);
    return rc;
}

/* The rows of the marginal section from every round's timings (times[r]
 * holds round r's, as marginal_round leaves them); share, a round's room. */
static void print_marginal(struct cas__bench *b, double *const *times, double *share)
{
    const char *game = b->match->plugin->id;
    double shares = 0;
    int all_measured = 1;
    bench_row(b, "  %-22s share of %s alone's per action  (medians of %d round%s)\n",
              "marginal cost", game, b->rounds, b->rounds > 1 ? "s" : "");
    for (size_t i = 0; i < b->n_without; i++) {
        if (!b->without[i].match) {
            bench_row(b, "    %-20s not measured: %s\n", b->without[i].id, b->without[i].error);
            all_measured = 0;
            continue;
        }
        double without[CAS__BENCH_MAX_ROUNDS];
        for (int r = 0; r < b->rounds; r++) {
            share[r] = (times[r][0] - times[r][2 + i]) / times[r][1];
            without[r] = times[r][2 + i] / times[r][1];
        }
        double own = median(share, b->rounds);
        shares += own;
        bench_row(b, "    %-20s %+7.2f  (%.2fx %s alone without it)\n", b->without[i].id, own,
                  median(without, b->rounds), game);
    }
    for (int r = 0; r < b->rounds; r++)
        share[r] = times[r][0] / times[r][1] - 1;
    double total = median(share, b->rounds);
    if (all_measured)
        bench_row(b, "    %-20s %+7.2f  (the session's %.2fx less the shares above)\n",
                  "their interplay", total - shares, total + 1);
    else
        bench_row(b, "    %-20s %+7.2f  (the session: %.2fx %s alone)\n", "all together",
                  total, total + 1, game);
}

/* What each expansion adds to the session's cost per action: the session
 * against itself without that expansion, over the game alone's cost per
 * action; what the shares leave of the session's excess over the game
 * alone is the cost of the expansions' interplay. */
static int bench_marginal(struct cas__bench *b)
{
    if (b->n_without == 0 || !b->alone) {
        bench_row(b, "  %-22s not measured: %s\n", "marginal cost",
                  b->n_without > 0            ? b->alone_error
                  : b->game_has_expansions ? "no expansions (give --expansions)"
                                           : "the game has no expansions");
        return CAS_OK;
    }
    size_t per_round = 2 + b->n_without;
    double *all = calloc((size_t)b->rounds * per_round, sizeof *all);
    double *times[CAS__BENCH_MAX_ROUNDS], share[CAS__BENCH_MAX_ROUNDS];
    if (!all)
        return failed(b, "marginal", CAS_ENOMEM);
    int rc = CAS_OK;
    for (int r = 0; rc == CAS_OK && r < b->rounds; r++)
        rc = marginal_round(b, times[r] = all + (size_t)r * per_round);
    if (rc == CAS_OK)
        print_marginal(b, times, share);
    free(all);
    return rc;
}

/* b->games games of the plugin's bare loop (plugin.h 1.1 bench_floor). */
__attribute__((noinline)) static int time_floor(struct cas__bench *b, double *seconds,
                                                double *cpu, struct cas_floor_run *run)
{
    struct cas__match *m = b->match;
    struct cas__prng r; /* the floor's numbers: one chance stream of the bench seed */
    cas__prng_init(&r, b->seed, 0, CAS__STREAM_CHANCE);
    struct cas_rng rng = cas__prng_rng(&r);
    *run = (struct cas_floor_run){.struct_size = sizeof *run, .games = b->games, .rng = &rng};
    double t0 = cas__bench_now(), c0 = cpu_now();
    int rc = m->vt->bench_floor(m->game, run);
    *seconds = cas__bench_now() - t0;
    *cpu = cpu_now() - c0;
    return rc;
}

/* The bare loop against the playouts of this run (which run first when
 * the playouts section did not). */
static int bench_floor(struct cas__bench *b)
{
    const struct cas_game_vtable *vt = b->match->vt;
    if (!CAS_HAS_FIELD(vt, struct cas_game_vtable, bench_floor) || !vt->bench_floor) {
        bench_row(b, "  %-22s not measured: %s has no bare loop (bench_floor, ABI 1.1)\n",
                "floor", b->match->plugin->id);
        return CAS_OK;
    }
    int rc = b->playouts_per_second == 0 ? bench_playouts(b) : CAS_OK;
    if (rc != CAS_OK)
        return rc;
    double seconds, cpu;
    struct cas_floor_run run;
    b->match->error[0] = '\0';
    rc = time_floor(b, &seconds, &cpu, &run);
    if (rc != CAS_OK)
        return failed(b, "floor", rc);
    bench_row(b, "  %-22s %12.0f games/s  (%d games in %.3f s, %.1f random steps a game,"
            " checksum %04x)\n", "floor (bare loop)", b->games / seconds, b->games, seconds,
            (double)run.steps / b->games, (unsigned)(run.checksum & 0xffff));
    bench_row(b, "  %-22s %11.2fx the floor's games/s  (%.0f playouts/s; per CPU second,"
            " which a busy machine hardly changes, %.2fx)\n",
            "engine vs floor", b->playouts_per_second * seconds / b->games,
            b->playouts_per_second, b->playouts_per_cpu_second * cpu / b->games);
    return CAS_OK;
}

/* Collect states met along the first playouts, every ply, up to
 * MAX_SAMPLES, for the sections that measure single states. */
static int collect_samples(struct cas__bench *b)
{
    struct cas__match *m = b->match;
    struct cas__actions list = {0};
    cas_state *s = NULL;
    int rc = CAS_OK;
    b->samples = calloc(MAX_SAMPLES, sizeof *b->samples);
    if (!b->samples)
        return failed(b, "sample states", CAS_ENOMEM);
    for (int game = 0; rc == CAS_OK && b->n_samples < MAX_SAMPLES && game < b->games; game++) {
        rc = m->vt->state_new(m->game, &s);
        for (uint32_t ply = 0; rc == CAS_OK && b->n_samples < MAX_SAMPLES &&
                               cas__match_current(m, s) != CAS_ACTOR_TERMINAL; ply++) {
            rc = m->vt->state_clone(s, &b->samples[b->n_samples]);
            b->n_samples += rc == CAS_OK;
            if (rc == CAS_OK)
                rc = cas__random_step(m, s, &list, b->seed + (uint64_t)game, ply);
        }
        m->vt->state_free(s);
        s = NULL;
    }
    cas__actions_free(&list);
    if (rc == CAS_OK && b->n_samples == 0)
        rc = CAS_EINVAL;
    if (rc != CAS_OK)
        return failed(b, "sample states", rc);
    bench_row(b, "  %-22s %12zu states met along playouts, measured below\n",
            "sample states", b->n_samples);
    return CAS_OK;
}

static int bench_legal_actions(struct cas__bench *b)
{
    struct cas__match *m = b->match;
    struct cas__actions list = {0};
    uint64_t calls = 0, listed = 0;
    int rc = CAS_OK;
    double t0 = cas__bench_now();
    for (size_t i = 0; rc == CAS_OK && i < b->n_samples; i++)
        for (int k = 0; rc == CAS_OK && k < LEGAL_REPEAT; k++) {
            rc = cas__match_legal(m, b->samples[i], &list);
            calls++;
            listed += list.count;
        }
    double seconds = cas__bench_now() - t0;
    cas__actions_free(&list);
    if (rc != CAS_OK)
        return failed(b, "legal_actions", rc);
    bench_row(b, "  %-22s %12.3f us a call  (%.1f actions listed on average)\n",
            "legal_actions", seconds / (double)calls * 1e6, (double)listed / (double)calls);
    return CAS_OK;
}

static int bench_copies(struct cas__bench *b)
{
    const struct cas_game_vtable *vt = b->match->vt;
    cas_state *target = NULL, *clone = NULL;
    uint64_t n = 0, sink = 0;
    int rc = vt->state_clone(b->samples[0], &target);
    double t0 = cas__bench_now();
    for (size_t i = 0; rc == CAS_OK && i < b->n_samples; i++)
        for (int k = 0; rc == CAS_OK && k < COPY_REPEAT; k++, n++) {
            rc = vt->state_clone(b->samples[i], &clone);
            vt->state_free(clone);
        }
    double clone_s = cas__bench_now() - t0;
    t0 = cas__bench_now();
    for (size_t i = 0; rc == CAS_OK && i < b->n_samples; i++)
        for (int k = 0; rc == CAS_OK && k < COPY_REPEAT; k++)
            rc = vt->state_copy(target, b->samples[i]);
    double copy_s = cas__bench_now() - t0;
    t0 = cas__bench_now();
    for (size_t i = 0; i < b->n_samples; i++)
        for (int k = 0; k < COPY_REPEAT; k++)
            sink += vt->hash(b->samples[i]);
    double hash_s = cas__bench_now() - t0;
    vt->state_free(target);
    if (rc != CAS_OK)
        return failed(b, "state_clone/copy", rc);
    bench_row(b, "  %-22s %12.0f ns  (state_clone + state_free)\n", "clone", clone_s / n * 1e9);
    bench_row(b, "  %-22s %12.0f ns  (state_copy into an existing state)\n", "copy",
            copy_s / n * 1e9);
    bench_row(b, "  %-22s %12.0f ns  (checksum %04x)\n", "hash", hash_s / n * 1e9,
            (unsigned)(sink & 0xffff));
    return CAS_OK;
}

/* Serialized size and heap bytes of the sample states. */
static int bench_sizes(struct cas__bench *b)
{
    struct cas__match *m = b->match;
    size_t bytes_total = 0, bytes_max = 0, heap_total = 0, heap_max = 0;
    struct cas__buf buf = {0};
    int rc = CAS_OK;
    for (size_t i = 0; rc == CAS_OK && i < b->n_samples; i++) {
        size_t len = 0;
        rc = m->vt->serialize(b->samples[i], CAS_SERIAL_FULL, (uint8_t *)buf.data, buf.cap, &len);
        if (rc == CAS_ENOSPC && len > buf.cap) {
            rc = cas__buf_reserve(&buf, len);
            if (rc == CAS_OK)
                rc = m->vt->serialize(b->samples[i], CAS_SERIAL_FULL, (uint8_t *)buf.data,
                                      buf.cap, &len);
        }
        cas_state *clone = NULL;
        size_t before = m->heap_bytes;
        if (rc == CAS_OK)
            rc = m->vt->state_clone(b->samples[i], &clone);
        size_t heap = m->heap_bytes - before;
        m->vt->state_free(clone);
        bytes_total += len;
        heap_total += heap;
        bytes_max = len > bytes_max ? len : bytes_max;
        heap_max = heap > heap_max ? heap : heap_max;
    }
    cas__buf_free(&buf);
    if (rc != CAS_OK)
        return failed(b, "state size", rc);
    bench_row(b, "  %-22s %12.0f bytes mean, %zu max\n", "serialized state",
            (double)bytes_total / (double)b->n_samples, bytes_max);
    bench_row(b, "  %-22s %12.0f bytes mean, %zu max (through host->alloc)\n",
            "heap per state", (double)heap_total / (double)b->n_samples, heap_max);
    return CAS_OK;
}

/* Games for the isolation section, a share of --games (it plays them
 * twice). */
#define ISOLATION_GAME_SHARE 1
#define ISOLATION_ROUNDS 5
/* What one timed round of the isolation section lasts at least: a shorter
 * one measures how soon the machine runs the worker, not what it costs. */
#define ISOLATION_ROUND_SECONDS 0.1

/* The playouts of m: wall-clock seconds, and CPU seconds of this process
 * and of m's worker (when it has one) together. */
static int time_playouts_cpu(struct cas__bench *b, struct cas__match *m, double *seconds,
                             double *cpu, uint64_t *plies)
{
    double worker = m->isolated ? cas__worker_cpu_seconds(m->game) : 0;
    double own = cpu_now();
    int rc;
    if (m->isolated) { /* one message: the worker plays them all */
        uint64_t checksum;
        double t0 = cas__bench_now();
        rc = cas__worker_playouts(m->game, b->seed, b->games, plies, &checksum);
        *seconds = cas__bench_now() - t0;
    } else {
        rc = time_playouts(b, m, seconds, plies);
    }
    *cpu = cpu_now() - own;
    if (m->isolated)
        *cpu += cas__worker_cpu_seconds(m->game) - worker;
    return rc;
}

/* Iterations of the one-thread search bot on the first decision of m, in
 * a fresh bot (its own tree), in process or, for a worker's match, as
 * one message; the wall-clock seconds it took. */
static int time_mcts_decision(struct cas__bench *b, struct cas__match *m, uint64_t iterations,
                              double *seconds)
{
    struct cas__actions legal = {0};
    struct cas__agent *agent = NULL;
    cas_state *state = NULL;
    char spec[64];
    cas_action choice;
    snprintf(spec, sizeof spec, "mcts@%llu/1", (unsigned long long)iterations);
    int rc = cas__bench_first_decision(b, m, &state, &legal);
    if (rc == CAS_OK && !m->isolated)
        rc = cas__agent_new(spec, &agent);
    struct cas__decision d = {
        .match = m, .state = state, .player_name = "bench", .seed = b->seed, .legal = &legal,
    };
    double t0 = cas__bench_now();
    if (rc == CAS_OK) {
        d.player = cas__match_current(m, state);
        rc = m->isolated ? cas__worker_decide(state, spec, d.player, b->seed, 0, &choice)
                         : cas__agent_choose(agent, &d, &choice);
    }
    *seconds = cas__bench_now() - t0;
    cas__agent_free(agent);
    if (state)
        m->vt->state_free(state);
    cas__actions_free(&legal);
    return rc;
}

/* A search bot's iterations per second in process and in a worker that
 * runs the whole decision: the fastest of ISOLATION_ROUNDS in turn.  Each
 * round asks for one more iteration, so the worker's bot, kept by its
 * spec, starts a tree of its own every time. */
static int bench_isolation_mcts(struct cas__bench *b)
{
    uint64_t iterations = (uint64_t)b->games * 20 + 100;
    double in_process = 0, isolated = 0, first;
    /* long enough a decision that the worker's wake-up does not count */
    int rc = time_mcts_decision(b, b->match, iterations, &first);
    if (rc == CAS_OK && first < ISOLATION_ROUND_SECONDS * 2)
        iterations = (uint64_t)((double)iterations * ISOLATION_ROUND_SECONDS * 2 /
                                (first > 1e-4 ? first : 1e-4));
    for (int round = 0; rc == CAS_OK && round < ISOLATION_ROUNDS; round++) {
        double wall, rate;
        rc = time_mcts_decision(b, b->match, iterations + (uint64_t)round, &wall);
        rate = (double)(iterations + (uint64_t)round) / wall;
        in_process = rate > in_process ? rate : in_process;
        if (rc == CAS_OK &&
            (rc = time_mcts_decision(b, b->isolated, iterations + (uint64_t)round, &wall)))
            return failed_in(b, b->isolated, "isolation, mcts", rc);
        rate = (double)(iterations + (uint64_t)round) / wall;
        isolated = rate > isolated ? rate : isolated;
    }
    if (rc != CAS_OK)
        return failed(b, "isolation, mcts", rc);
    bench_row(b, "  %-22s %12.0f iterations/s in process, %.0f in a worker (one message a "
              "decision): %.2fx in-process speed, target >= 0.8  (1 thread, about %llu "
              "iterations, fastest of %d rounds)\n", "isolation, mcts", in_process, isolated,
              isolated / in_process, (unsigned long long)iterations, ISOLATION_ROUNDS);
    return CAS_OK;
}

/* The check the isolation section times plays a tenth of --games (100
 * for the default 1000), ISOLATION_CHECK_ROUNDS times each way. */
#define ISOLATION_CHECK_SHARE 10
#define ISOLATION_CHECK_ROUNDS 3

/* check --games N in process and in one worker, in turn, the fastest of
 * each: its target is within 1.5x. */
static int bench_isolation_check(struct cas__bench *b)
{
    int games = b->games / ISOLATION_CHECK_SHARE ? b->games / ISOLATION_CHECK_SHARE : 1;
    struct cas__check_options opt = {.games = games, .seed = b->seed};
    struct cas__check_report report;
    double in_process = 1e300, isolated = 1e300;
    char fault[700];
    for (int round = 0; round < ISOLATION_CHECK_ROUNDS; round++) {
        double t0 = cas__bench_now();
        cas__check_run(b->check, &opt, &report);
        double t1 = cas__bench_now();
        if (report.failed)
            return failed(b, "isolation, check", CAS_EMISMATCH);
        if (cas__worker_check(b->check, &opt, 0, &report, fault, sizeof fault) != CAS_OK ||
            report.failed)
            return failed_in(b, b->isolated, "isolation, check", CAS_EMISMATCH);
        double t2 = cas__bench_now();
        in_process = t1 - t0 < in_process ? t1 - t0 : in_process;
        isolated = t2 - t1 < isolated ? t2 - t1 : isolated;
    }
    bench_row(b, "  %-22s %12.3f s in process, %.3f s in one worker: %.2fx the time, target "
              "<= 1.5  (check --games %d, fastest of %d rounds)\n", "isolation, check",
              in_process, isolated, isolated / in_process, games, ISOLATION_CHECK_ROUNDS);
    return CAS_OK;
}

/* b->games grown (fourfold at a time) until a round of the isolation
 * section lasts ISOLATION_ROUND_SECONDS. */
#define ISOLATION_MAX_GAMES 10000000
static int calibrate(struct cas__bench *b)
{
    for (;;) {
        double seconds;
        uint64_t plies;
        int rc = time_playouts(b, b->match, &seconds, &plies);
        if (rc != CAS_OK || seconds >= ISOLATION_ROUND_SECONDS ||
            b->games > ISOLATION_MAX_GAMES / 4)
            return rc;
        b->games *= 4;
    }
}

/* The same playouts in process and in a worker: the cost of a worker per
 * action, in wall-clock time and in CPU time (host and worker), which a
 * loaded machine disturbs less. */
static int bench_isolation(struct cas__bench *b)
{
    if (!b->isolated || b->match->isolated) {
        bench_row(b, "  %-22s not measured: %s\n", "isolation",
                  b->match->isolated ? "the plugin comes from outside castellan's folders, "
                                       "so it is never loaded into castellan: every figure "
                                       "above is in a worker already"
                  : b->isolated_error ? b->isolated_error
                                      : "run with --isolated");
        return CAS_OK;
    }
    int games = b->games;
    double in_process, isolated, in_process_cpu, isolated_cpu;
    uint64_t plies, isolated_plies;
    int share = games / ISOLATION_GAME_SHARE ? games / ISOLATION_GAME_SHARE : 1;
    b->games = share;
    int rc = calibrate(b);
    int failed_isolated = 0;
    /* In turn, ISOLATION_ROUNDS times each, the fastest of each kept: what
     * the machine's other load disturbs least. */
    in_process = isolated = in_process_cpu = isolated_cpu = 1e300;
    for (int round = 0; rc == CAS_OK && round < ISOLATION_ROUNDS; round++) {
        double wall, cpu;
        rc = time_playouts_cpu(b, b->match, &wall, &cpu, &plies);
        in_process = wall < in_process ? wall : in_process;
        in_process_cpu = cpu < in_process_cpu ? cpu : in_process_cpu;
        if (rc == CAS_OK) {
            rc = time_playouts_cpu(b, b->isolated, &wall, &cpu, &isolated_plies);
            failed_isolated = rc != CAS_OK;
        }
        isolated = wall < isolated ? wall : isolated;
        isolated_cpu = cpu < isolated_cpu ? cpu : isolated_cpu;
    }
    if (failed_isolated)
        failed_in(b, b->isolated, "isolation", rc);
    else if (rc != CAS_OK)
        failed(b, "isolation", rc);
    else if (isolated_plies != plies)
        rc = failed_in(b, b->isolated, "isolation", CAS_EMISMATCH);
    else {
        double n = (double)plies / 1e6;
        bench_row(b, "  %-22s %12.2f us/action in process, %.2f us/action in a worker "
                  "(one batch): %.2fx in-process speed, target >= 0.8  (%d games, %" PRIu64
                  " actions each way, fastest of %d rounds)\n", "isolation",
                  in_process / n, isolated / n, in_process / isolated, b->games, plies,
                  ISOLATION_ROUNDS);
        bench_row(b, "  %-22s %12.2f us/action in process, %.2f us/action in a worker "
                  "(host and worker): %.2fx in-process speed\n", "isolation, CPU time",
                  in_process_cpu / n, isolated_cpu / n, in_process_cpu / isolated_cpu);
    }
    b->games = share; /* the search and the check as --games asks, not calibrated */
    if (rc == CAS_OK)
        rc = bench_isolation_mcts(b);
    if (rc == CAS_OK && b->check)
        rc = bench_isolation_check(b);
    b->games = games;
    return rc;
}

/* The server's own benchmark, given by the bench command. */
static int bench_serve(struct cas__bench *b)
{
    if (!b->serve) {
        fprintf(stderr, "castellan bench: the serve section is not part of this program\n");
        return CAS_ENOTFOUND;
    }
    return b->serve(b);
}

static int bench_serve_hosted(struct cas__bench *b)
{
    if (!b->serve_hosted) {
        fprintf(stderr, "castellan bench: the serve section is not part of this program\n");
        return CAS_ENOTFOUND;
    }
    return b->serve_hosted(b);
}

const struct cas__bench_section cas__bench_sections[] = {
    {"playouts", "random playouts per second; with expansions, against the game alone", 0, 0,
     bench_playouts},
    {"marginal", "with --marginal: what each expansion adds to the cost per action", 0,
     CAS__BENCH_ON_MARGINAL, bench_marginal},
    {"floor", "with --floor: the game's bare loop, and the playouts' games/s against it", 0,
     CAS__BENCH_ON_FLOOR, bench_floor},
    {"legal-actions", "microseconds per legal_actions call", 1, 0, bench_legal_actions},
    {"copies", "nanoseconds per state_clone, state_copy and hash", 1, 0, bench_copies},
    {"sizes", "serialized bytes and heap bytes per state", 1, 0, bench_sizes},
    {"saves", "journaled actions per second and the time to resume a finished game",
     0, 0, cas__bench_saves},
    {"mcts", "MCTS iterations per second on 1 and on every core, and the ratio", 0, 0,
     cas__bench_mcts},
    {"isolation", "with --isolated: microseconds per action in process and in a worker",
     0, CAS__BENCH_ON_ISOLATED, bench_isolation},
    {"ratings", "with --only ratings: every rating recomputed from 100,000 stored games",
     0, CAS__BENCH_ON_ONLY, cas__bench_ratings},
    {"serve", "with --only serve: castellan serve with --games games over WebSocket: "
              "moves/s, latency, memory per game", 0, CAS__BENCH_ON_ONLY, bench_serve},
    {"serve-hosted", "with --only serve-hosted: serve's last measure alone: a move's cost "
                     "with --games games played and up to --hosted (8000) hosted",
     0, CAS__BENCH_ON_ONLY, bench_serve_hosted},
    {NULL, NULL, 0, 0, NULL},
};

/* Whether a section is asked for, --only aside. */
static int asked_for(const struct cas__bench *b, const struct cas__bench_section *s)
{
    return s->on_request == CAS__BENCH_ON_FLOOR      ? b->floor
           : s->on_request == CAS__BENCH_ON_ISOLATED ? b->isolated_requested
           : s->on_request == CAS__BENCH_ON_MARGINAL ? b->marginal_requested
           : s->on_request == CAS__BENCH_ON_ONLY     ? 0
                                                     : 1;
}

int cas__bench_run(struct cas__bench *b, const char *only)
{
    int rc = CAS_OK;
    for (const struct cas__bench_section *s = cas__bench_sections; s->name && rc == CAS_OK;
         s++) {
        if (only ? strcmp(only, s->name) != 0 : !asked_for(b, s))
            continue;
        if (s->needs_samples && !b->samples)
            rc = collect_samples(b);
        if (rc == CAS_OK)
            rc = s->run(b);
    }
    for (size_t i = 0; i < b->n_samples; i++)
        b->match->vt->state_free(b->samples[i]);
    free(b->samples);
    b->samples = NULL;
    b->n_samples = 0;
    return rc;
}
