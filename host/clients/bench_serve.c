/*
 * bench_serve.c — `castellan bench --only serve`: castellan serve in a
 * child process on 127.0.0.1 with a store of its own, played over
 * WebSocket (permessage-deflate on) by the load client (host/clients/
 * loadgen.c), every move journaled.  Each measure starts a fresh server:
 *
 *   load        --games games (default 1000), two seats each answering
 *               after 200 ms (5,000 moves/s offered): moves/s, latency from
 *               a move's send to the next update (p50, p99), the server's
 *               CPU per move and moves per CPU-second, the bytes of each
 *               update on the wire per recipient (median, max, compressed
 *               as the server compresses), memory per idle game (the
 *               server's resident set and its heap in use, from its start
 *               to the games created, before anyone joins them; and once
 *               both seats of each have joined and hold its state)
 *   saturation  the same games answering at once: what the server serves
 *   100 games   latency at a light load
 *   watchers    25 games with 1, then 40, watchers each: server CPU per move
 *   idle        100 games alone, then with 3,000 idle sockets: CPU per move
 *   hosted      --games games played as under load, with nothing else
 *               hosted, then with idle games beside them to an eighth, a
 *               half and all of --hosted games in all (default 8,000):
 *               CPU per move, latency, and the ratio to the first (also
 *               alone: --only serve-hosted).  The idle games are created
 *               and never joined: the cost of a connection is the idle
 *               measure's.
 *   lobby       the same games played beside idle ones to an eighth and all
 *               of --hosted, one more created a second: bytes per second
 *               to a subscriber of the lobby's changes and to one of whole
 *               lists (also run by --only serve-hosted, after hosted)
 *   floor       (only when CASTELLAN_SERVE_MEASURES names it) one seeded
 *               game recorded from castellan serve, then --games games
 *               (think 400 ms) against castellan serve, against the bare
 *               server of floor_server.c answering each move with the
 *               recorded messages compressed as serve compresses them,
 *               against it sending them plain, and against it journaling
 *               each act first: CPU per move, user and system, and the
 *               ratio to castellan serve's
 *
 * The game is the benched one with its expansions (--expansions).
 */
#define _GNU_SOURCE /* pipe2 */
#include <dirent.h>
#include <fcntl.h>
#include <malloc.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"
#include "floor.h"
#include "server.h"
#include "wsclient.h"

/* Under valgrind --tool=callgrind the server's counts are zeroed when the
 * play starts and dumped (part "play") when it ends; without valgrind's
 * header nothing is asked. */
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_DUMP_STATS_AT(part)
#endif

#define THINK_MS 200     /* 1000 games moving every 0.2 s: 5,000 moves/s offered */

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

/* The parent's requests to the server under callgrind: 'z' zero the counts,
 * 'd' dump them (answered with a 'd' on the ready pipe once written); and
 * 'm', the bytes malloc has handed out and not had back (every arena's,
 * glibc's mallinfo2), answered as a size_t on the ready pipe; 'h', the
 * hand-offs between its threads so far (struct cas__handoffs). */
static int control_pipe = -1;

static int between_turns(void *ctx, struct cas__lobby *l, struct cas__httpd *h)
{
    char c;
    (void)ctx;
    (void)l;
    (void)h;
    while (read(control_pipe, &c, 1) == 1) {
        if (c == 'm') {
            struct mallinfo2 mi = mallinfo2();
            size_t heap = mi.uordblks + mi.hblkhd;
            if (write(ready_pipe, &heap, sizeof heap) != sizeof heap)
                return 1;
        } else if (c == 'h') {
            struct cas__handoffs hops;
            cas__handoffs_read(&hops);
            if (write(ready_pipe, &hops, sizeof hops) != sizeof hops)
                return 1;
        } else if (c == 'z') {
            CALLGRIND_ZERO_STATS;
        } else {
            CALLGRIND_DUMP_STATS_AT("play");
            if (write(ready_pipe, &c, 1) != 1)
                return 1;
        }
    }
    return 0;
}

static _Noreturn void run_server(const char *db, size_t games, size_t conns, int fd,
                                 int control)
{
    struct cas__serve_setup setup = {.database = db, .ready = tell_port,
                                     .done = between_turns};
    ready_pipe = fd;
    control_pipe = control;
    cas__srv_limits_default(&setup.opts.limits);
    setup.opts.listen = "127.0.0.1:0";
    setup.opts.quiet = 1;
    setup.opts.limits.max_games = (unsigned)games + 64;
    setup.opts.limits.max_connections = (unsigned)conns + 64; /* and the probe's */
    setup.opts.limits.rate = setup.opts.limits.burst = 1e9; /* the creator sends them all */
    _exit(cas__serve_run(&setup));
}

/* The floor measure's bare server in the child, in place of castellan
 * serve (floor_server.c): the same pipes, the same answers. */
static _Noreturn void run_floor_server(const struct cas__floor_game *game, int plain,
                                       const char *journal, size_t games, int fd, int control)
{
    struct cas__floor_server_opts o = {.game = game, .listen = "127.0.0.1:0", .plain = plain,
                                       .max_games = (unsigned)games + 64, .journal = journal};
    struct cas__floor_server *srv;
    char err[256];
    int port;
    ready_pipe = fd;
    control_pipe = control;
    signal(SIGPIPE, SIG_IGN);
    if (cas__floor_server_start(&o, &srv, &port, err, sizeof err) != CAS_OK) {
        fprintf(stderr, "castellan bench: the floor's server: %s\n", err);
        _exit(1);
    }
    if (tell_port(NULL, NULL, port) != CAS_OK)
        _exit(1);
    while (!between_turns(NULL, NULL, NULL))
        cas__floor_server_turn(srv);
    cas__floor_server_free(srv);
    _exit(0);
}

/* Which server a measure runs: castellan serve, or the floor's bare one
 * replaying game, compressed or plain, journaling each act or not. */
struct server_kind {
    const struct cas__floor_game *game; /* NULL: castellan serve */
    int plain, journal;
    /* With castellan serve: instead of the load client, one of its games
     * recorded into *record (cas__floor_record). */
    struct cas__floor_game *record;
};

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

/* The server's CPU seconds by thread: the loop (the process's first
 * thread: requests, and the transport of every message: compression,
 * libwebsockets, the kernel's sends and receives), the pool ("cas-pool":
 * plugin calls, renders, the picture cut, the messages' JSON), the
 * journal's writer ("cas-journal") and any other. */
struct thread_cpu {
    double loop, pool, journal, other;
    double sys;                /* of them all, the kernel's */
};

static void cpu_by_thread(pid_t pid, struct thread_cpu *t)
{
    char path[64];
    memset(t, 0, sizeof *t);
    snprintf(path, sizeof path, "/proc/%d/task", (int)pid);
    DIR *d = opendir(path);
    for (struct dirent *e; d && (e = readdir(d));) {
        char stat[400], row[512], name[32];
        unsigned long utime, stime;
        if (e->d_name[0] == '.')
            continue;
        snprintf(stat, sizeof stat, "%s/%s/stat", path, e->d_name);
        FILE *f = fopen(stat, "re");
        int got = f && fgets(row, sizeof row, f) &&
                  sscanf(row, "%*d (%31[^)]) %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu",
                         name, &utime, &stime) == 3;
        if (f)
            fclose(f);
        if (!got)
            continue;
        double seconds = (double)(utime + stime) / (double)sysconf(_SC_CLK_TCK);
        t->sys += (double)stime / (double)sysconf(_SC_CLK_TCK);
        *(atoi(e->d_name) == (int)pid          ? &t->loop
          : strcmp(name, "cas-pool") == 0      ? &t->pool
          : strcmp(name, "cas-journal") == 0   ? &t->journal
                                               : &t->other) += seconds;
    }
    if (d)
        closedir(d);
}

/* Whether this process (the load client) and the server it forks may
 * open conns connections and their files: the soft limit raised to the
 * hard one if need be, else a line saying what to do. */
static int files_enough(struct cas__bench *b, size_t conns)
{
    struct rlimit r;
    rlim_t need = (rlim_t)conns + 64;
    if (getrlimit(RLIMIT_NOFILE, &r) != 0)
        return 1;
    if (r.rlim_cur < need && r.rlim_max >= need) {
        r.rlim_cur = need;
        setrlimit(RLIMIT_NOFILE, &r);
        getrlimit(RLIMIT_NOFILE, &r);
    }
    if (r.rlim_cur >= need)
        return 1;
    line(b, "serve: the load client opens %zu connections, and the server as many, but a "
         "process may open %llu files here (ulimit -n; hard limit %llu): raise the limit "
         "(ulimit -n %llu) or give fewer --games\n", conns,
         (unsigned long long)r.rlim_cur, (unsigned long long)r.rlim_max,
         (unsigned long long)need);
    return 0;
}

/* One measure: a fresh server, the load client's run of it. */
struct measure {
    size_t games;
    unsigned think_ms, watchers, idle;
    double seconds;
    int wire;
    size_t hosted;            /* idle games created beside them, never joined */
    uint64_t max_moves;       /* the play stops after this many acts (0: time only) */
    int lobby;                /* lobby subscribers, and a game created a second */
};

struct figures {
    struct cas__loadgen_result r;
    /* An independent client run beside the load client (the probe). */
    const char *probe, *game, *expansions;
    int port, probe_fd;
    double seconds;
    pid_t probe_pid;
    char probe_out[128];
    pid_t server;
    int control_fd;           /* to the server (between_turns), -1 none */
    long before, after;       /* RSS, KiB: started, games created */
    int ready_fd;             /* from the server: its port, then its answers */
    double heap_before, heap_after; /* the server's heap in use, bytes; -1 unknown */
    long joined;              /* RSS, KiB, once every seat joined and has its state */
    double heap_joined;
    double cpu_start, cpu;    /* the server's CPU seconds: once joined, used in play */
    struct thread_cpu threads_start, threads; /* the same by thread */
    struct cas__handoffs hops_start, hops;    /* the same: hand-offs between threads */
    double load;
};

/* The server's heap in use (bytes), or -1. */
static double heap_in_use(const struct figures *f)
{
    size_t heap;
    if (write(f->control_fd, "m", 1) != 1 || read(f->ready_fd, &heap, sizeof heap) != sizeof heap)
        return -1;
    return (double)heap;
}

/* The server's hand-offs so far (zeros when it does not answer). */
static void handoffs(const struct figures *f, struct cas__handoffs *out)
{
    if (write(f->control_fd, "h", 1) != 1 || read(f->ready_fd, out, sizeof *out) != sizeof *out)
        memset(out, 0, sizeof *out);
}

static void games_created(void *ctx)
{
    struct figures *f = ctx;
    f->after = rss_kib(f->server);
    f->heap_after = heap_in_use(f);
}

/* Start the probe: node PROBE PORT GAME EXPANSIONS 10 THINK SECONDS, its
 * output to a pipe read after the run. */
static void start_probe(struct figures *f)
{
    int fds[2];
    char port[16], seconds[16];
    if (!f->probe || pipe(fds) != 0)
        return;
    snprintf(port, sizeof port, "%d", f->port);
    snprintf(seconds, sizeof seconds, "%.0f", f->seconds > 2 ? f->seconds - 1 : 1);
    fflush(NULL);
    f->probe_pid = fork();
    if (f->probe_pid == 0) {
        dup2(fds[1], 1);
        close(fds[0]);
        close(fds[1]);
        execlp("node", "node", f->probe, port, f->game, f->expansions, "10", "200", seconds,
               (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    f->probe_fd = f->probe_pid > 0 ? fds[0] : -1;
    if (f->probe_pid <= 0)
        close(fds[0]);
}

static void finish_probe(struct figures *f)
{
    int status;
    if (f->probe_pid <= 0)
        return;
    ssize_t n = read(f->probe_fd, f->probe_out, sizeof f->probe_out - 1);
    f->probe_out[n > 0 ? n : 0] = '\0';
    close(f->probe_fd);
    waitpid(f->probe_pid, &status, 0);
}

/* Ask the server under callgrind to zero ('z') or dump ('d') its counts. */
static void tell_callgrind(const struct figures *f, char what)
{
    if (RUNNING_ON_VALGRIND && f->control_fd >= 0 && write(f->control_fd, &what, 1) != 1)
        fprintf(stderr, "castellan bench: the server did not take the callgrind request\n");
}

static void all_joined(void *ctx)
{
    struct figures *f = ctx;
    f->joined = rss_kib(f->server);
    f->heap_joined = heap_in_use(f);
    tell_callgrind(f, 'z');
    if (RUNNING_ON_VALGRIND) /* the load client's own counts too (played) */
        CALLGRIND_ZERO_STATS;
    start_probe(f);
    f->cpu_start = cpu_seconds(f->server);
    cpu_by_thread(f->server, &f->threads_start);
    handoffs(f, &f->hops_start);
}

/* Under callgrind the load client's counts of the play, dumped as part
 * "client play" of its own file (the server's are in its child's). */
static void all_played(void *ctx)
{
    (void)ctx;
    CALLGRIND_DUMP_STATS_AT("client play");
}

/* Server CPU milliseconds per move answered. */
static double ms_per_move(const struct figures *f)
{
    return f->r.answered ? f->cpu * 1e3 / (double)f->r.answered : 0;
}

/* The load client's own CPU per move answered, over the play: what it
 * takes from the two cores the server runs on too ("the load client (on
 * libuv) 0.120 ms per move (user 0.040, system 0.080)"). */
static const char *client_cpu(const struct figures *f, char *out, size_t cap)
{
    double per = f->r.answered ? 1e3 / (double)f->r.answered : 0;
    snprintf(out, cap, "the load client (on %s) %.3f ms per move (user %.3f, system %.3f)",
             f->r.client_loop ? f->r.client_loop : "?",
             (f->r.client_user + f->r.client_sys) * per, f->r.client_user * per,
             f->r.client_sys * per);
    return out;
}

static int run_kind(struct cas__bench *b, const char *expansions, const struct measure *m,
                    struct figures *f, const char *probe, const struct server_kind *kind)
{
    const char *tmp = getenv("TMPDIR");
    char dir[512], db[600];
    int fds[2], control[2], port = 0, status;
    memset(f, 0, sizeof *f);
    f->probe = probe;
    f->game = b->match->plugin->id;
    f->expansions = expansions;
    f->seconds = m->seconds;
    if (!files_enough(b, m->games * (2 + m->watchers) + m->idle + 1))
        return CAS_EINVAL;
    snprintf(dir, sizeof dir, "%s/castellan-serve-XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir) || pipe2(fds, O_CLOEXEC) != 0) {
        line(b, "serve: cannot create a temporary folder or a pipe\n");
        return CAS_EIO;
    }
    if (pipe2(control, O_CLOEXEC | O_NONBLOCK) != 0) {
        close(fds[0]);
        close(fds[1]);
        rmdir(dir);
        line(b, "serve: cannot create a pipe\n");
        return CAS_EIO;
    }
    snprintf(db, sizeof db, "%s/serve.db", dir);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(fds[0]);
        close(control[1]);
        if (kind && kind->game)
            run_floor_server(kind->game, kind->plain, kind->journal ? db : NULL,
                             m->games + m->hosted, fds[1], control[0]);
        run_server(db, m->games + m->hosted, m->games * (2 + m->watchers) + m->idle, fds[1],
                   control[0]);
    }
    close(fds[1]);
    close(control[0]);
    f->control_fd = control[1];
    int got = pid > 0 && read(fds[0], &port, sizeof port) == sizeof port;
    f->server = pid;
    f->port = port;
    f->ready_fd = fds[0];
    f->before = got ? rss_kib(pid) : -1;
    f->heap_before = got ? heap_in_use(f) : -1;
    struct cas__loadgen_params p = {
        .port = port, .game = b->match->plugin->id, .expansions = expansions, .seed = b->seed,
        .games = m->games, .hosted = m->hosted, .think_ms = m->think_ms,
        .max_moves = m->max_moves ? m->max_moves : UINT64_MAX,
        .max_seconds = m->seconds, .watchers = m->watchers, .idle = m->idle, .wire = m->wire,
        .lobby = m->lobby, .created = games_created, .joined = all_joined,
        .played = all_played, .ctx = f,
    };
    int rc = got ? CAS_OK : CAS_EIO;
    double load[1] = {0};
    if (rc == CAS_OK) { /* creating and joining are not timed */
        rc = kind && kind->record
                 ? cas__floor_record(port, p.game, expansions, b->seed, SIZE_MAX, kind->record,
                                     f->r.first_error, sizeof f->r.first_error)
                 : cas__loadgen_run(&p, &f->r);
        f->cpu = cpu_seconds(pid) - f->cpu_start;
        cpu_by_thread(pid, &f->threads);
        f->threads.loop -= f->threads_start.loop;
        f->threads.pool -= f->threads_start.pool;
        f->threads.journal -= f->threads_start.journal;
        f->threads.other -= f->threads_start.other;
        f->threads.sys -= f->threads_start.sys;
        handoffs(f, &f->hops);
        f->hops.pool_runs -= f->hops_start.pool_runs;
        f->hops.wakes -= f->hops_start.wakes;
        f->hops.wake_turns -= f->hops_start.wake_turns;
        f->hops.handed_back -= f->hops_start.handed_back;
        char dumped;
        tell_callgrind(f, 'd');
        if (RUNNING_ON_VALGRIND && read(fds[0], &dumped, 1) != 1)
            fprintf(stderr, "castellan bench: the server's callgrind counts were not dumped\n");
        finish_probe(f);
        getloadavg(load, 1);
        f->load = load[0];
    }
    close(fds[0]);
    close(control[1]);
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
    if (rc != CAS_OK || f->r.errors) {
        char why[160];
        snprintf(why, sizeof why, "%zu of %zu games were created: %s", f->r.created,
                 m->games + m->hosted,
                 f->r.creator_closed ? "the server closed the creator's connection"
                                     : "nothing more came for two minutes");
        line(b, "serve: the benchmark could not run (%s)\n",
             got ? (f->r.first_error[0] ? f->r.first_error : why) : "the server did not start");
        return rc ? rc : CAS_EIO;
    }
    return CAS_OK;
}

/* A measure against castellan serve. */
static int run(struct cas__bench *b, const char *expansions, const struct measure *m,
               struct figures *f, const char *probe)
{
    return run_kind(b, expansions, m, f, probe, NULL);
}

/* The match's expansions ("game + a, b" in its title) as a JSON array. */
static void expansions_json(const struct cas__match *m, char *out, size_t cap)
{
    const char *plus = strstr(m->title, " + ");
    size_t len = (size_t)snprintf(out, cap, "[");
    for (const char *p = plus ? plus + 3 : ""; *p && len + 70 < cap;) {
        size_t n = strcspn(p, ",");
        len += (size_t)snprintf(out + len, cap - len, "%s\"%.*s\"", len > 1 ? "," : "", (int)n, p);
        p += n;
        while (*p == ',' || *p == ' ')
            p++;
    }
    snprintf(out + len, cap - len, "]");
}

/* One figure of the benchmark: its measures and its line. */
struct serve_bench {
    struct cas__bench *b;
    const char *exp;           /* the expansions, a JSON array */
    size_t games;
};

/* The line splitting a measure's CPU per move by thread (cpu_by_thread):
 * the build of a move's messages against their transport, per recipient
 * (the two seats: no watchers in these measures). */
static void split_line(const struct serve_bench *s, const char *measure,
                       const struct figures *f)
{
    double per = f->r.answered ? 1e3 / (double)f->r.answered : 0;
    line(s->b, "serve %s, the server's CPU per move by thread: loop %.3f ms (requests and the "
         "transport: compression, libwebsockets, the kernel's sends; %.3f ms per recipient, "
         "2 a move), pool %.3f ms (the build: plugin calls, renders, the picture cut, "
         "JSON), journal %.3f ms, other %.3f ms\n", measure, f->threads.loop * per,
         f->threads.loop * per / 2, f->threads.pool * per, f->threads.journal * per,
         f->threads.other * per);
    double moves = f->r.answered ? (double)f->r.answered : 1;
    line(s->b, "serve %s, hand-offs between the server's threads per move: %.2f pool jobs run, "
         "%.2f wakes of the loop, %.2f loop turns for a wake, %.2f journal answers handed "
         "straight to the waiting job\n", measure, (double)f->hops.pool_runs / moves,
         (double)f->hops.wakes / moves, (double)f->hops.wake_turns / moves,
         (double)f->hops.handed_back / moves);
}

static int bench_load(const struct serve_bench *s)
{
    struct figures f;
    char own[128];
    const struct measure load = {s->games, THINK_MS, 0, 0, 10, 1, 0, 0, 0};
    if (run(s->b, s->exp, &load, &f, NULL))
        return CAS_EIO;
    line(s->b, "serve load: %zu games, 2 seats each, think %d ms (%.0f moves/s offered): %.0f "
         "moves/s served; move to next update p50 %.2f ms, p99 %.2f ms; server CPU %.3f ms "
         "per move = %.0f moves per CPU-second; update per recipient on the wire median %.0f "
         "B, max %.0f B (%.0f B before compression; %llu updates); %.1f KB per idle game "
         "(RSS %ld -> %ld KiB; the heap in use %.1f KB per game), %.1f KB per game once its "
         "two seats follow it (RSS -> %ld KiB; the heap %.1f KB per game); CPU of %s; load "
         "average %.1f\n",
         s->games, THINK_MS, (double)s->games * 1000.0 / THINK_MS,
         (double)f.r.answered / f.r.seconds, f.r.p50_ms, f.r.p99_ms, ms_per_move(&f),
         f.cpu > 0 ? (double)f.r.answered / f.cpu : 0, f.r.wire_median, f.r.wire_max,
         f.r.raw_median, (unsigned long long)f.r.updates,
         f.after > 0 && f.before > 0 ? (double)(f.after - f.before) * 1.024 / (double)s->games
                                     : -1.0,
         f.before, f.after,
         f.heap_after >= 0 && f.heap_before >= 0 ? (f.heap_after - f.heap_before) / 1e3 /
                                                       (double)s->games : -1.0,
         f.joined > 0 && f.before > 0 ? (double)(f.joined - f.before) * 1.024 / (double)s->games
                                      : -1.0,
         f.joined,
         f.heap_joined >= 0 && f.heap_before >= 0 ? (f.heap_joined - f.heap_before) / 1e3 /
                                                        (double)s->games : -1.0,
         client_cpu(&f, own, sizeof own), f.load);
    split_line(s, "load", &f);
    return CAS_OK;
}

static int bench_saturation(const struct serve_bench *s)
{
    struct figures f;
    char own[128];
    const struct measure saturate = {s->games, 0, 0, 0, 5, 0, 0, 0, 0};
    if (run(s->b, s->exp, &saturate, &f, NULL))
        return CAS_EIO;
    line(s->b, "serve saturation: %zu games answering at once: %.0f moves/s served, p50 %.2f "
         "ms, p99 %.2f ms; server CPU %.3f ms per move = %.0f moves per CPU-second; CPU of %s; "
         "load average %.1f\n", s->games, (double)f.r.answered / f.r.seconds, f.r.p50_ms,
         f.r.p99_ms, ms_per_move(&f), f.cpu > 0 ? (double)f.r.answered / f.cpu : 0,
         client_cpu(&f, own, sizeof own), f.load);
    split_line(s, "saturation", &f);
    return CAS_OK;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, compare_doubles);
    return v[n / 2];
}

/* The 100-game measure, --rounds times; with CASTELLAN_SERVE_PROBE the
 * independent client beside it each time, and the medians over the
 * rounds of both clients' p50 and of their difference in one run. */
static int bench_light(const struct serve_bench *s)
{
    struct figures f;
    char own[128];
    const struct measure light = {100, THINK_MS, 0, 0, 10, 0, 0, 0, 0};
    const char *probe = getenv("CASTELLAN_SERVE_PROBE");
    double ours[CAS__BENCH_MAX_ROUNDS], theirs[CAS__BENCH_MAX_ROUNDS], diff[CAS__BENCH_MAX_ROUNDS];
    int rounds = s->b->rounds > 1 ? s->b->rounds : 1, compared = 0;
    for (int round = 0; round < rounds; round++) {
        if (run(s->b, s->exp, &light, &f, probe && *probe ? probe : NULL))
            return CAS_EIO;
        line(s->b, "serve 100 games: think %d ms (%.0f moves/s offered): p50 %.2f ms, p99 %.2f "
             "ms; server CPU %.3f ms per move; CPU of %s; load average %.1f\n", THINK_MS,
             100 * 1000.0 / THINK_MS, f.r.p50_ms, f.r.p99_ms, ms_per_move(&f),
             client_cpu(&f, own, sizeof own), f.load);
        double probe_p50, probe_p99;
        unsigned long probe_n;
        if (f.probe && sscanf(f.probe_out, "probe %lf %lf %lu", &probe_p50, &probe_p99,
                              &probe_n) == 3) {
            line(s->b, "serve 100 games, an independent client beside it (%s: node, ws, 10 "
                 "more games): p50 %.2f ms, p99 %.2f ms (%lu answered); the load client's p50 "
                 "%+.2f ms, p99 %+.2f ms from it\n", probe, probe_p50, probe_p99, probe_n,
                 f.r.p50_ms - probe_p50, f.r.p99_ms - probe_p99);
            ours[compared] = f.r.p50_ms;
            theirs[compared] = probe_p50;
            diff[compared++] = f.r.p50_ms - probe_p50;
        } else if (f.probe) {
            line(s->b, "serve: the independent client %s gave nothing (is node there, and "
                 "tests/browser's npm ci done?)\n", probe);
        }
    }
    if (compared > 1)
        line(s->b, "serve 100 games over %d rounds, medians: the load client's p50 %.2f ms, the "
             "independent client's %.2f ms, the load client's p50 from it %+.2f ms\n", compared,
             median(ours, compared), median(theirs, compared), median(diff, compared));
    return CAS_OK;
}

static int bench_watchers(const struct serve_bench *s)
{
    struct figures f, g;
    const struct measure one = {25, THINK_MS, 1, 0, 8, 0, 0, 0, 0},
                         forty = {25, THINK_MS, 40, 0, 8, 0, 0, 0, 0};
    if (run(s->b, s->exp, &one, &f, NULL) || run(s->b, s->exp, &forty, &g, NULL))
        return CAS_EIO;
    double extra = g.r.answered ? (ms_per_move(&g) - ms_per_move(&f)) * 1e3 / 39 : 0;
    line(s->b, "serve watchers: 25 games with 1 watcher each: %.3f ms of server CPU per move; "
         "with 40 each: %.3f ms, %.2fx (%.1f us of CPU per move for each watcher more)\n",
         ms_per_move(&f), ms_per_move(&g),
         ms_per_move(&f) > 0 ? ms_per_move(&g) / ms_per_move(&f) : 0, extra);
    return CAS_OK;
}

static int bench_idle(const struct serve_bench *s)
{
    struct figures f, g;
    const struct measure alone = {100, THINK_MS, 0, 0, 8, 0, 0, 0, 0},
                         idle = {100, THINK_MS, 0, 3000, 8, 0, 0, 0, 0};
    if (run(s->b, s->exp, &alone, &f, NULL) || run(s->b, s->exp, &idle, &g, NULL))
        return CAS_EIO;
    line(s->b, "serve idle sockets: 100 games: %.3f ms of server CPU per move; with 3,000 idle "
         "WebSockets open: %.3f ms (%+.3f ms per move; %.1f ms of CPU a second at %.0f "
         "moves/s)\n", ms_per_move(&f), ms_per_move(&g), ms_per_move(&g) - ms_per_move(&f),
         g.cpu * 1e3 / g.r.seconds, (double)g.r.answered / g.r.seconds);
    return CAS_OK;
}

/* What a move costs with more games hosted: the same games played, with
 * nothing else, then with idle games beside them to an eighth, a half and
 * all of --hosted games in all; each line's CPU per move against the
 * first. */
static int bench_hosted(const struct serve_bench *s)
{
    size_t games = s->games, most = s->b->hosted ? s->b->hosted : 8000;
    size_t totals[4] = {games, most / 8, most / 2, most};
    double first = 0;
    struct figures f;
    for (int i = 0; i < 4; i++) {
        if (totals[i] < games)
            totals[i] = games;
        if (i && totals[i] == totals[i - 1])
            continue;
        /* Under valgrind every line plays the same moves (the games are
         * the same and each seat plays the first legal action): 30 a
         * game, the first 15 plies of each seat, as a render costs more as
         * the board grows; up to five minutes for them. */
        const struct measure m = {games, THINK_MS, 0, 0, RUNNING_ON_VALGRIND ? 300 : 10, 0,
                                  totals[i] - games, RUNNING_ON_VALGRIND ? 30 * games : 0, 0};
        if (run(s->b, s->exp, &m, &f, NULL))
            return CAS_EIO;
        if (!i)
            first = ms_per_move(&f);
        line(s->b, "serve hosted: %zu games hosted, %zu of them played (think %d ms): %.0f "
             "moves/s served (%llu answered); p50 %.2f ms, p99 %.2f ms; server CPU %.3f ms "
             "per move, %.2fx the first line's; load average %.1f\n", totals[i], games,
             THINK_MS, (double)f.r.answered / f.r.seconds, (unsigned long long)f.r.answered,
             f.r.p50_ms, f.r.p99_ms, ms_per_move(&f), first > 0 ? ms_per_move(&f) / first : 0,
             f.load);
    }
    return CAS_OK;
}

/* What the lobby's subscribers are sent while --games are played beside
 * idle games, to an eighth of --hosted and to all of it in all, and one
 * more game is created a second (the news that had protocol 2 send its
 * whole list each second): a subscriber of the changes (protocol 3)
 * against one of whole lists (what every subscriber got before), bytes
 * per second raw and on the wire, and the first list's size. */
static int bench_lobby(const struct serve_bench *s)
{
    size_t games = s->games, most = s->b->hosted ? s->b->hosted : 8000;
    size_t totals[2] = {most / 8 > games ? most / 8 : games, most > games ? most : games};
    struct figures f;
    for (int i = 0; i < 2; i++) {
        if (i && totals[1] == totals[0])
            continue;
        const struct measure m = {games, THINK_MS, 0, 0, RUNNING_ON_VALGRIND ? 60 : 10, 0,
                                  totals[i] - games, RUNNING_ON_VALGRIND ? 30 * games : 0, 1};
        if (run(s->b, s->exp, &m, &f, NULL))
            return CAS_EIO;
        const struct cas__loadgen_lobby *changes = &f.r.lobby[0], *whole = &f.r.lobby[1];
        double secs = f.r.seconds > 0 ? f.r.seconds : 1;
        line(s->b, "serve lobby: %zu games hosted, %zu of them played, one created a second: "
             "a subscriber of changes got %.1f KB/s (%.1f KB/s on the wire, %.1f messages/s), "
             "one of whole lists %.1f KB/s (%.1f KB/s on the wire): %.0fx less on the wire; "
             "the first list %.1f KB (%.1f KB on the wire); server CPU %.3f ms per move; load "
             "average %.1f\n", totals[i], games, (double)changes->raw / secs / 1e3,
             (double)changes->wire / secs / 1e3, (double)changes->messages / secs,
             (double)whole->raw / secs / 1e3, (double)whole->wire / secs / 1e3,
             changes->wire ? (double)whole->wire / (double)changes->wire : 0,
             (double)changes->first_raw / 1e3, (double)changes->first_wire / 1e3,
             ms_per_move(&f), f.load);
    }
    return CAS_OK;
}

/* One line of the floor: a server's CPU per move, user and system, and its
 * ratio to castellan serve's (first). */
static void floor_line(const struct serve_bench *s, const char *what, const struct figures *f,
                       double first)
{
    double per = f->r.answered ? 1e3 / (double)f->r.answered : 0;
    line(s->b, "serve floor, %s: %.0f moves/s served (%llu answered); server CPU %.3f ms per "
         "move (user %.3f, system %.3f) = %.0f moves per CPU-second, %.2fx castellan serve's; "
         "load average %.1f\n", what, (double)f->r.answered / f->r.seconds,
         (unsigned long long)f->r.answered, ms_per_move(f), (f->cpu - f->threads.sys) * per,
         f->threads.sys * per, f->cpu > 0 ? (double)f->r.answered / f->cpu : 0,
         first > 0 ? ms_per_move(f) / first : 0, f->load);
}

/* The floor under a move's server CPU (docs/server.md, "The floor of a
 * move"): one seeded game recorded from castellan serve as each seat
 * received it, then the load measure's games and seats played against
 * castellan serve, against the bare server (floor_server.c) answering each
 * move with the recorded messages compressed as castellan serve
 * compresses them, against the bare server sending them as plain text,
 * and against it journaling each act through the journal's writer before
 * answering it, as castellan serve does.  Under valgrind each plays the same moves (30 a game), so the
 * servers' callgrind dumps compare. */
#define FLOOR_THINK_MS 400 /* 2,500 moves/s offered at 1,000 games: what all three serve */

static int bench_floor(const struct serve_bench *s)
{
    struct cas__floor_game game;
    struct figures f[4];
    const struct measure once = {1, 0, 0, 0, 0, 0, 0, 0, 0};
    const struct server_kind record = {.record = &game};
    if (run_kind(s->b, s->exp, &once, &f[0], NULL, &record))
        return CAS_EIO;
    size_t raw = 0, messages = 0;
    for (int seat = 0; seat < 2; seat++)
        for (size_t i = 0; i < game.seat[seat].n; i++)
            if (game.seat[seat].msgs[i].step > 0) {
                raw += game.seat[seat].msgs[i].len;
                messages++;
            }
    line(s->b, "serve floor: one game recorded from castellan serve (seed %llu): %zu moves, "
         "%.2f messages per move to the two seats, %.0f B each before compression\n",
         (unsigned long long)s->b->seed, game.moves,
         game.moves ? (double)messages / (double)game.moves : 0,
         messages ? (double)raw / (double)messages : 0);
    const struct measure m = {s->games, FLOOR_THINK_MS, 0, 0, RUNNING_ON_VALGRIND ? 300 : 10, 0, 0,
                              RUNNING_ON_VALGRIND ? 30 * s->games : 0, 0};
    const struct server_kind kinds[4] = {{NULL, 0, 0, NULL}, {&game, 0, 0, NULL},
                                         {&game, 1, 0, NULL}, {&game, 0, 1, NULL}};
    static const char *const what[4] = {
        "castellan serve",
        "the bare server, the recorded messages compressed as castellan serve compresses them",
        "the bare server, the recorded messages as plain text frames (no permessage-deflate)",
        "the bare server compressing, each act journaled first by the journal's writer"};
    int rc = CAS_OK;
    for (int i = 0; i < 4 && rc == CAS_OK; i++)
        if ((rc = run_kind(s->b, s->exp, &m, &f[i], NULL, &kinds[i])) == CAS_OK) {
            floor_line(s, what[i], &f[i], ms_per_move(&f[0]));
            if (i == 0)
                split_line(s, "floor, castellan serve", &f[0]);
        }
    cas__floor_game_free(&game);
    if (rc != CAS_OK)
        return rc;
    double real = ms_per_move(&f[0]), bare = ms_per_move(&f[1]), plain = ms_per_move(&f[2]),
           journaled = ms_per_move(&f[3]);
    line(s->b, "serve floor, per move: castellan serve's own work above the journaling bare "
         "server (requests, tables, the pool's build) %.3f ms; journaling each act durably "
         "before its answer %.3f ms (the writer's thread %.3f ms); compressing the two seats' "
         "messages %.3f ms; the transport without compression (libwebsockets, the kernel's "
         "TCP on loopback, which runs the receiving client's side of each send too) %.3f ms, "
         "of it the kernel %.3f ms\n", real - journaled, journaled - bare,
         f[3].r.answered ? f[3].threads.journal * 1e3 / (double)f[3].r.answered : 0,
         bare - plain, plain,
         f[2].r.answered ? f[2].threads.sys * 1e3 / (double)f[2].r.answered : 0);
    return CAS_OK;
}

/* The measures in their order, by the names CASTELLAN_SERVE_MEASURES
 * lists them by. */
static const struct {
    const char *name;
    int (*measure)(const struct serve_bench *s);
    int asked_only;            /* run only when CASTELLAN_SERVE_MEASURES names it */
} measures[] = {{"load", bench_load, 0}, {"saturation", bench_saturation, 0},
                {"100", bench_light, 0}, {"watchers", bench_watchers, 0}, {"idle", bench_idle, 0},
                {"hosted", bench_hosted, 0}, {"lobby", bench_lobby, 0},
                {"floor", bench_floor, 1}}; /* four servers' runs */

enum { N_MEASURES = sizeof measures / sizeof measures[0] };

/* The measure whose name is the n bytes at p, or -1. */
static int measure_named(const char *p, size_t n)
{
    for (int i = 0; i < N_MEASURES; i++)
        if (strlen(measures[i].name) == n && strncmp(p, measures[i].name, n) == 0)
            return i;
    return -1;
}

int cas__bench_serve_check_measures(const char *list, char *err, size_t errlen)
{
    for (const char *p = list; *p; p += *p == ',') {
        size_t n = strcspn(p, ",");
        if (measure_named(p, n) < 0) {
            snprintf(err, errlen, "CASTELLAN_SERVE_MEASURES=%s: no measure is named \"%.*s\"; "
                     "list some of load,saturation,100,watchers,idle,hosted,lobby,floor with commas",
                     list, (int)n, p);
            return CAS_EINVAL;
        }
        p += n;
    }
    return CAS_OK;
}

/* Whether measure i is to run: every one but those run only when asked
 * for, or those that CASTELLAN_SERVE_MEASURES lists, so that one figure
 * can be taken again, or profiled, alone. */
static int wanted(int i)
{
    const char *list = getenv("CASTELLAN_SERVE_MEASURES");
    if (!list || !*list)
        return !measures[i].asked_only;
    for (const char *p = list; *p; p += *p == ',') {
        size_t n = strcspn(p, ",");
        if (measure_named(p, n) == i)
            return 1;
        p += n;
    }
    return 0;
}

int cas__bench_serve(struct cas__bench *b)
{
    char exp[1024];
    struct serve_bench s = {.b = b, .exp = exp, .games = (size_t)b->games};
    expansions_json(b->match, exp, sizeof exp);
    line(b, "serve: %s, over WebSocket with permessage-deflate on 127.0.0.1, every move "
         "journaled; %ld cores\n", b->match->title, sysconf(_SC_NPROCESSORS_ONLN));
    for (int i = 0; i < N_MEASURES; i++)
        if (wanted(i) && measures[i].measure(&s))
            return CAS_EIO;
    return CAS_OK;
}

int cas__bench_serve_hosted(struct cas__bench *b)
{
    char exp[1024];
    struct serve_bench s = {.b = b, .exp = exp, .games = (size_t)b->games};
    expansions_json(b->match, exp, sizeof exp);
    line(b, "serve: %s, over WebSocket with permessage-deflate on 127.0.0.1, every move "
         "journaled; %ld cores\n", b->match->title, sysconf(_SC_NPROCESSORS_ONLN));
    return bench_hosted(&s) ? CAS_EIO : bench_lobby(&s);
}
