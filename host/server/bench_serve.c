/*
 * bench_serve.c — `castellan bench --only serve`: a castellan serve in a
 * child process on 127.0.0.1 with a store of its own, --games concurrent
 * games of the benched game (default 1000), two WebSocket connections
 * each, every move journaled.  The players answer each state after a think
 * time, so the load is what that many tables of people would offer, and
 * the figures are the moves per second served, the latency from a move's
 * send to the next state's arrival (p50, p99), and the server's memory per
 * idle game (its resident set grown by creating the games, per game).
 */
#define _GNU_SOURCE /* pipe2 */
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "server.h"
#include "wsclient.h"

#define THINK_MS 200     /* 1000 games moving every 0.2 s: 5,000 moves/s offered */
#define SECONDS 10.0     /* of play measured */

static void line(struct cas__bench *b, const char *fmt, ...) CAS_PRINTF(2, 3);
static void line(struct cas__bench *b, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    cas__bench_vprint(b, 4, fmt, args);
    va_end(args);
}

/* The server child tells its port through this pipe once it listens. */
static int ready_pipe = -1;

static int tell_port(void *ctx, struct cas__lobby *l, int port)
{
    (void)ctx;
    (void)l;
    return write(ready_pipe, &port, sizeof port) == sizeof port ? CAS_OK : CAS_EIO;
}

static _Noreturn void run_server(const char *db, size_t games, int fd)
{
    struct cas__serve_setup setup = {.database = db, .ready = tell_port};
    ready_pipe = fd;
    cas__srv_limits_default(&setup.opts.limits);
    setup.opts.listen = "127.0.0.1:0";
    setup.opts.quiet = 1;
    setup.opts.limits.max_games = (unsigned)games + 16;
    setup.opts.limits.max_connections = 2 * (unsigned)games + 16;
    setup.opts.limits.rate = setup.opts.limits.burst = 1e9; /* the creator sends them all */
    _exit(cas__serve_run(&setup));
}

/* Resident set of pid in KiB, or -1. */
static long rss_kib(pid_t pid)
{
    char path[64], row[256];
    long kib = -1;
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    FILE *f = fopen(path, "re");
    while (f && fgets(row, sizeof row, f))
        if (sscanf(row, "VmRSS: %ld kB", &kib) == 1)
            break;
    if (f)
        fclose(f);
    return kib;
}

/* CPU seconds (user + system) pid has used, or -1. */
static double cpu_seconds(pid_t pid)
{
    char path[64];
    unsigned long utime, stime;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    FILE *f = fopen(path, "re");
    int got = f && fscanf(f, "%*d %*s %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
                          &utime, &stime) == 2;
    if (f)
        fclose(f);
    return got ? (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK) : -1;
}

struct memory {
    pid_t server;
    long before, after;
    double cpu_at_start;       /* the server's CPU seconds once the games exist */
};

static void games_created(void *ctx)
{
    struct memory *m = ctx;
    m->after = rss_kib(m->server);
    m->cpu_at_start = cpu_seconds(m->server);
}

int cas__bench_serve(struct cas__bench *b)
{
    const char *tmp = getenv("TMPDIR");
    char dir[512], db[600];
    int fds[2], port = 0, status;
    size_t games = (size_t)b->games;
    snprintf(dir, sizeof dir, "%s/castellan-serve-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir) || pipe2(fds, O_CLOEXEC) != 0) {
        line(b, "serve: cannot create a temporary folder or a pipe\n");
        return CAS_EIO;
    }
    snprintf(db, sizeof db, "%s/serve.db", dir);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        run_server(db, games, fds[1]);
    }
    close(fds[1]);
    int got = pid > 0 && read(fds[0], &port, sizeof port) == sizeof port;
    close(fds[0]);
    struct memory mem = {.server = pid, .before = got ? rss_kib(pid) : -1};
    struct cas__loadgen_params p = {
        .port = port, .game = b->match->plugin->id, .seed = b->seed, .games = games,
        .think_ms = THINK_MS, .max_moves = UINT64_MAX, .max_seconds = SECONDS,
        .created = games_created, .ctx = &mem,
    };
    struct cas__loadgen_result r;
    int rc = got ? CAS_OK : CAS_EIO;
    double cpu = 0, load[1] = {0};
    if (rc == CAS_OK) { /* SECONDS of play; creating the games is not timed */
        rc = cas__loadgen_run(&p, &r);
        cpu = cpu_seconds(pid) - mem.cpu_at_start;
        getloadavg(load, 1);
    }
    if (pid > 0) {
        kill(pid, SIGTERM);
        waitpid(pid, &status, 0);
    }
    for (const char *const *x = (const char *const[]){"", "-wal", "-shm", NULL}; *x; x++) {
        char path[700];
        snprintf(path, sizeof path, "%s%s", db, *x);
        unlink(path);
    }
    rmdir(dir);
    if (rc != CAS_OK) {
        line(b, "serve: the benchmark could not run (%s)\n",
             got ? (r.first_error[0] ? r.first_error : "the games were not created in time")
                 : "the server did not start");
        return rc;
    }
    line(b, "serve: %.0f moves/s served (%llu moves by %zu games of %s, 2 WebSocket "
         "clients each, think time %d ms, every move journaled, %.1f s); move to next "
         "state p50 %.2f ms, p99 %.2f ms (%llu answered); %.1f KB per idle game (server "
         "RSS %ld -> %ld KiB for %zu games); %llu errors, %llu connections closed\n",
         (double)r.answered / r.seconds, (unsigned long long)r.moves, games,
         b->match->plugin->id, THINK_MS, r.seconds, r.p50_ms, r.p99_ms,
         (unsigned long long)r.answered,
         mem.after > 0 && mem.before > 0 ? (double)(mem.after - mem.before) * 1.024 /
                                               (double)games : -1.0,
         mem.before, mem.after, games, (unsigned long long)r.errors,
         (unsigned long long)r.closed);
    /* What the machine's load does not hide: the server's own CPU per move
     * (joins' first states included), and what one core could serve. */
    if (r.answered && cpu > 0)
        line(b, "serve: the server used %.2f s of CPU for those moves: %.2f ms per move "
             "(both players' states rendered, escaped and sent, the move journaled), "
             "%.0f moves/s per core; load average %.1f on %ld cores while measured\n", cpu,
             cpu * 1e3 / (double)r.answered, (double)r.answered / cpu, load[0],
             sysconf(_SC_NPROCESSORS_ONLN));
    if (r.errors)
        line(b, "serve: first error: %s\n", r.first_error);
    return r.errors ? CAS_EIO : CAS_OK;
}
