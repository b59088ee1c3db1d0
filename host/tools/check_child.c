/*
 * check_child.c — `castellan check` of a game that runs in a worker: the
 * whole check runs in one confined castellan-worker, the plugin loaded
 * there next to the checker (host code, linked into the worker), so a step
 * costs what it costs in process.  Before every step the worker writes
 * where it is into a page it shares with the host (a memfd sent with its
 * setup; no system call, no message), so a crash or a hang is reported
 * with its game and ply, and a step that does not come within the
 * deadline is a hang.  Messages, worker to host: 'S' and a whole report
 * (the run begins), 'F', a u32 length and text (the plugin broke the
 * ABI), 'R' and a whole report (the end).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "confine.h"
#include "match.h"
#include "worker.h"

/* Where the child is, shared: steps counts them, the rest is the last. */
struct where {
    uint64_t steps;
    uint64_t seed;
    int32_t nplayers;
    uint32_t ply;
};

/* ------------------------------------------------------------ the child */

static void send_report(int fd, char kind, const struct cas__check_report *r)
{
    cas__confine_write_all(fd, &kind, 1);
    cas__confine_write_all(fd, r, sizeof *r);
}

struct child {
    int fd;
    int started;
    struct where *where;
};

static void on_step(void *ctx, const struct cas__check_report *r)
{
    struct child *c = ctx;
    if (!c->started) {
        send_report(c->fd, 'S', r);
        c->started = 1;
    }
    c->where->seed = r->seed;
    c->where->nplayers = r->nplayers;
    c->where->ply = r->ply;
    __atomic_add_fetch(&c->where->steps, 1, __ATOMIC_RELEASE);
}

/* A broken promise of the plugin: the host reports it, the child ends. */
static void on_violation(void *ctx, const struct cas__worker_fault *f)
{
    struct child *c = ctx;
    uint32_t len = (uint32_t)strlen(f->text);
    cas__confine_write_all(c->fd, "F", 1);
    cas__confine_write_all(c->fd, &len, sizeof len);
    cas__confine_write_all(c->fd, f->text, len);
    _exit(0);
}

int cas__check_serve(int sock, struct cas__setup_reader *r, const int *fds, size_t n_fds)
{
    struct cas__fresh_params p;
    if (cas__fresh_params_read(r, &p) != 0)
        return 3;
    size_t n_rules = cas__setup_get_u32(r);
    const char **rules = n_rules <= r->left / 4 ? calloc(n_rules + 1, sizeof *rules) : NULL;
    for (size_t i = 0; rules && i < n_rules; i++)
        rules[i] = cas__setup_get_str(r);
    struct cas__check_target t = {
        .data_dir = p.data_dir, .options = p.params.options, .n_options = p.params.n_options,
        .expansions = p.refs, .n_expansions = p.params.n_expansions,
        .rules = n_rules ? rules : NULL, .n_rules = n_rules,
    };
    t.min_players = (int)cas__setup_get_u32(r);
    t.max_players = (int)cas__setup_get_u32(r);
    struct cas__check_options o = {0};
    o.games = (int)cas__setup_get_u32(r);
    o.seed = cas__setup_get_u64(r);
    o.max_plies = cas__setup_get_u32(r);
    o.plugin_path = cas__setup_get_str(r);
    /* the libraries' descriptors, then the shared page's */
    if (!rules || r->bad || r->left || n_fds != p.n_libs + 1)
        return 3;
    struct where *where = mmap(NULL, sizeof *where, PROT_READ | PROT_WRITE, MAP_SHARED,
                               fds[p.n_libs], 0);
    if (where == MAP_FAILED)
        return 4;
    close(fds[p.n_libs]);
    int keep[CAS__SPAWN_MAX_FDS + 2] = {sock, STDERR_FILENO}, writable[] = {sock, STDERR_FILENO};
    memcpy(keep + 2, fds, p.n_libs * sizeof *fds);
    struct cas__confine_limits limits = {0};
    if (cas__confine_child(keep, p.n_libs + 2, writable, 2, &limits) != 0)
        return 5;
    char err[1024];
    if (cas__fresh_params_load(&p, fds, err, sizeof err) != CAS_OK)
        return 4;
    /* The plugins for real: the games run here, in process. */
    struct child c = {.fd = sock, .where = where};
    t.plugin = p.plugin;
    const struct cas__fault_handler violation = {.fault = on_violation, .ctx = &c};
    t.on_fault = &violation;
    o.on_step = on_step;
    o.step_ctx = &c;
    struct cas__check_report report;
    cas__check_run(&t, &o, &report);
    send_report(sock, 'R', &report);
    return 0;
}

/* The check's setup: the game, its rules and player counts, the run's
 * options; the libraries' descriptors into fds, the shared page's last. */
static int check_setup(struct cas__setup *s, int *fds, size_t *n_fds, int page,
                       const struct cas__check_target *t, const struct cas__check_options *opt,
                       char *err, size_t errlen)
{
    struct cas_game_params params = {
        .struct_size = sizeof params, .options = t->options, .n_options = t->n_options,
        .expansions = t->expansions, .n_expansions = t->n_expansions,
    };
    if (cas__fresh_params_setup(s, fds, CAS__SPAWN_MAX_FDS - 1, n_fds, t->plugin, t->data_dir,
                                &params, err, errlen) != CAS_OK)
        return -1;
    cas__setup_u32(s, (uint32_t)t->n_rules);
    for (size_t i = 0; i < t->n_rules; i++)
        cas__setup_str(s, t->rules[i]);
    cas__setup_u32(s, (uint32_t)t->min_players);
    cas__setup_u32(s, (uint32_t)t->max_players);
    cas__setup_u32(s, (uint32_t)opt->games);
    cas__setup_u64(s, opt->seed);
    cas__setup_u32(s, opt->max_plies);
    cas__setup_str(s, opt->plugin_path);
    fds[(*n_fds)++] = page;
    return 0;
}

/* ------------------------------------------------------------- the host */

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The *n bytes at *p before the deadline, both advanced by what came: 1,
 * 0 timed out, -1 the child is gone. */
static int take(int fd, char **p, size_t *n, long long deadline)
{
    while (*n) {
        long long left = deadline - now_ms();
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        if (left <= 0)
            return 0;
        int ready = poll(&pfd, 1, left > 1000000 ? 1000000 : (int)left);
        if (ready < 0 && errno != EINTR)
            return -1;
        if (ready <= 0)
            continue;
        ssize_t got = read(fd, *p, *n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        *p += got;
        *n -= (size_t)got;
    }
    return 1;
}

/* n bytes, waiting as long as the child keeps stepping: 1, 0 when no step
 * came within deadline_ms (a hang), -1 when the child is gone. */
static int take_while_stepping(int fd, void *buf, size_t n, unsigned deadline_ms,
                               const struct where *where)
{
    char *p = buf;
    for (;;) {
        uint64_t before = __atomic_load_n(&where->steps, __ATOMIC_ACQUIRE);
        int got = take(fd, &p, &n, now_ms() + deadline_ms);
        if (got != 0 || __atomic_load_n(&where->steps, __ATOMIC_ACQUIRE) == before)
            return got;
    }
}

/* What the child said until the end, into *report: 1 when the report is
 * whole; else 0, with the reason in fault when the child hung, broke the
 * ABI or the protocol ("" when it ended: its status says how). */
static int hear(int fd, unsigned deadline_ms, const struct where *where,
                struct cas__check_report *report, char *fault, size_t cap)
{
    for (;;) {
        uint8_t kind;
        uint32_t len;
        int got = take_while_stepping(fd, &kind, 1, deadline_ms, where);
        if (got > 0 && (kind == 'S' || kind == 'R'))
            got = take_while_stepping(fd, report, sizeof *report, deadline_ms, where);
        else if (got > 0 && kind == 'F' &&
                 (got = take_while_stepping(fd, &len, 4, deadline_ms, where)) > 0) {
            char text[600] = "";
            size_t keep = len < sizeof text - 1 ? len : sizeof text - 1;
            take_while_stepping(fd, text, keep, deadline_ms, where);
            snprintf(fault, cap, "abi (%s)", text);
            return 0;
        } else if (got > 0) {
            snprintf(fault, cap, "worker (its check broke the protocol: message %u)", kind);
            return 0;
        }
        cas__check_report_seal(report);
        if (got > 0 && kind == 'R')
            return 1;
        if (got == 0) {
            snprintf(fault, cap, "hang (no answer within %u ms)", deadline_ms);
            return 0;
        }
        if (got < 0)
            return 0; /* the child ended: its status says how */
    }
}

/* The page the check's worker writes where it is into, shared through a
 * descriptor it is sent (a fresh program shares no memory by birth);
 * *fd its descriptor, which the caller closes.  NULL on failure. */
static struct where *shared_page(int *fd)
{
    *fd = memfd_create("castellan-check", MFD_CLOEXEC);
    if (*fd < 0)
        return NULL;
    if (ftruncate(*fd, sizeof(struct where)) != 0) {
        close(*fd);
        return NULL;
    }
    struct where *where = mmap(NULL, sizeof *where, PROT_READ | PROT_WRITE, MAP_SHARED, *fd, 0);
    if (where == MAP_FAILED) {
        close(*fd);
        return NULL;
    }
    return where;
}

int cas__worker_check(const struct cas__check_target *t, const struct cas__check_options *opt,
                      unsigned deadline_ms, struct cas__check_report *report, char *fault,
                      size_t cap)
{
    int page, sock, status = 0, fds[CAS__SPAWN_MAX_FDS];
    size_t n_fds = 0;
    pid_t pid;
    char why[1024];
    struct cas__setup setup = {0};
    memset(report, 0, sizeof *report);
    fault[0] = '\0';
    snprintf(report->plugin, sizeof report->plugin, "%s", t->plugin->id);
    struct where *where = shared_page(&page);
    if (!where) {
        snprintf(fault, cap, "worker (cannot start one: %s)", strerror(errno));
        return CAS_EIO;
    }
    int rc = check_setup(&setup, fds, &n_fds, page, t, opt, why, sizeof why);
    if (rc == 0)
        rc = cas__spawn(CAS__SPAWN_CHECK, &setup, fds, n_fds, &pid, &sock, why, sizeof why);
    cas__setup_free(&setup);
    close(page);
    if (rc != 0) {
        munmap(where, sizeof *where);
        snprintf(fault, cap, "worker (cannot start one: %s)", why);
        return CAS_EIO;
    }
    int whole = hear(sock, deadline_ms ? deadline_ms : CAS__DEFAULT_DEADLINE_MS, where,
                     report, fault, cap);
    if (!whole)
        kill(pid, SIGKILL);
    close(sock);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (!whole) { /* where it was when it stopped */
        report->seed = where->seed;
        report->nplayers = where->nplayers;
        report->ply = where->ply;
    }
    munmap(where, sizeof *where);
    if (whole || fault[0])
        return whole ? CAS_OK : CAS_EIO;
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
        snprintf(fault, cap, "sandbox (signal 31: a forbidden system call)");
    else if (WIFSIGNALED(status))
        snprintf(fault, cap, "crash (signal %d)", WTERMSIG(status));
    else
        snprintf(fault, cap, "worker (exited with status %d)",
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return CAS_EIO;
}
