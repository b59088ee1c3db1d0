/*
 * check_child.c — `castellan check` of a game that runs in a worker: the
 * whole check runs in one confined child, the plugin loaded there next to
 * the checker (host code, present in the fork), so a step costs what it
 * costs in process.  Before every step the child writes where it is into
 * a page it shares with the host (no system call, no message), so a crash
 * or a hang is reported with its game and ply, and a step that does not
 * come within the deadline is a hang.  Messages, child to host: 'S' and a
 * whole report (the run begins), 'F', a u32 length and text (the plugin
 * broke the ABI), 'R' and a whole report (the end).
 */
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
#include "registry.h"
#include "worker.h"

#define MAX_LIBRARIES 64

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

/* The descriptors of the libraries t needs loaded in the child. */
static size_t library_fds(const struct cas__check_target *t, int *fds, size_t cap)
{
    size_t n = 0;
    const struct cas__probed *p = cas__probed_of(t->plugin);
    if (p && n < cap)
        fds[n++] = cas__probed_fd(p);
    for (size_t i = 0; i < t->n_expansions; i++)
        if ((p = cas__probed_of(t->expansions[i].extension)) && n < cap)
            fds[n++] = cas__probed_fd(p);
    return n;
}

static _Noreturn void check_child(int fd, struct where *where,
                                  const struct cas__check_target *t,
                                  const struct cas__check_options *opt)
{
    int keep[MAX_LIBRARIES + 2] = {fd, STDERR_FILENO}, writable[] = {fd, STDERR_FILENO};
    size_t n_keep = 2 + library_fds(t, keep + 2, MAX_LIBRARIES);
    struct cas__confine_limits limits = {0};
    struct child c = {.fd = fd, .where = where};
    if (cas__confine_child(keep, n_keep, writable, 2, &limits) != 0)
        _exit(5);
    /* The plugins for real, in place of the host's copies of their
     * descriptors; the games then run here, in process. */
    struct cas__check_target mine = *t;
    struct cas_expansion_ref *refs = calloc(t->n_expansions + 1, sizeof *refs);
    char err[512];
    const struct cas_plugin *desc;
    const struct cas__probed *p = cas__probed_of(t->plugin);
    if (!refs || (p && cas__probed_load(p, &mine.plugin, err, sizeof err) != CAS_OK))
        _exit(4);
    for (size_t i = 0; i < t->n_expansions; i++) {
        refs[i] = t->expansions[i];
        if ((p = cas__probed_of(refs[i].extension))) {
            if (cas__probed_load(p, &desc, err, sizeof err) != CAS_OK)
                _exit(4);
            refs[i].extension = desc->extension;
        }
    }
    mine.expansions = refs;
    mine.isolation = NULL;
    const struct cas__fault_handler violation = {.fault = on_violation, .ctx = &c};
    mine.on_fault = &violation;
    struct cas__check_options o = *opt;
    o.progress = NULL;
    o.on_step = on_step;
    o.step_ctx = &c;
    struct cas__check_report r;
    cas__check_run(&mine, &o, &r);
    send_report(fd, 'R', &r);
    _exit(0);
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

int cas__worker_check(const struct cas__check_target *t, const struct cas__check_options *opt,
                      unsigned deadline_ms, struct cas__check_report *report, char *fault,
                      size_t cap)
{
    int pair[2], status = 0;
    memset(report, 0, sizeof *report);
    fault[0] = '\0';
    snprintf(report->plugin, sizeof report->plugin, "%s", t->plugin->id);
    struct where *where = mmap(NULL, sizeof *where, PROT_READ | PROT_WRITE,
                               MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (where == MAP_FAILED) {
        snprintf(fault, cap, "worker (cannot start one: %s)", strerror(errno));
        return CAS_EIO;
    }
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        snprintf(fault, cap, "worker (cannot start one: %s)", strerror(errno));
        munmap(where, sizeof *where);
        return CAS_EIO;
    }
    fflush(NULL); /* the child must not write the host's buffered output again */
    pid_t pid = fork();
    if (pid == 0) {
        close(pair[0]);
        check_child(pair[1], where, t, opt);
    }
    close(pair[1]);
    if (pid < 0) {
        close(pair[0]);
        munmap(where, sizeof *where);
        snprintf(fault, cap, "worker (cannot start one: %s)", strerror(errno));
        return CAS_EIO;
    }
    int whole = hear(pair[0], deadline_ms ? deadline_ms : CAS__DEFAULT_DEADLINE_MS, where,
                     report, fault, cap);
    if (!whole)
        kill(pid, SIGKILL);
    close(pair[0]);
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
