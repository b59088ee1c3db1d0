/*
 * worker_spawn.c — starting castellan-worker, a fresh program, for code castellan
 * did not write: finding and checking the program, the fork and exec that
 * leave the child nothing but its socket, and the setup message (with the
 * libraries' descriptors) that tells the worker what to do.  The worker
 * confines itself (confine.h) before any plugin code runs.
 */
#define _GNU_SOURCE
#include "worker_spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "install_dirs.h"
#include "loader.h"

#if !defined(CASTELLAN_WORKER_BUILD_PATH) || !defined(CASTELLAN_WORKER_INSTALL_PATH) || \
    !defined(CASTELLAN_WORKER_FROM_BIN)
#error "the build defines where castellan-worker is (host/loader/CMakeLists.txt)"
#endif

extern char **environ;

/* ------------------------------------------------------------- setup */

static void put(struct cas__setup *s, const void *data, size_t n)
{
    cas__buf_add(&s->b, data, n);
}

void cas__setup_u32(struct cas__setup *s, uint32_t v)
{
    uint8_t b[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(s, b, 4);
}

void cas__setup_u64(struct cas__setup *s, uint64_t v)
{
    cas__setup_u32(s, (uint32_t)v);
    cas__setup_u32(s, (uint32_t)(v >> 32));
}

void cas__setup_str(struct cas__setup *s, const char *text)
{
    size_t n = text ? strlen(text) + 1 : 0;
    if (n > UINT32_MAX) {
        s->b.failed = CAS_ENOSPC;
        return;
    }
    cas__setup_u32(s, (uint32_t)n);
    put(s, text, n);
}

void cas__setup_free(struct cas__setup *s)
{
    cas__buf_free(&s->b);
}

uint32_t cas__setup_get_u32(struct cas__setup_reader *r)
{
    if (r->bad || r->left < 4) {
        r->bad = 1;
        return 0;
    }
    uint32_t v = (uint32_t)r->p[0] | (uint32_t)r->p[1] << 8 | (uint32_t)r->p[2] << 16 |
                 (uint32_t)r->p[3] << 24;
    r->p += 4;
    r->left -= 4;
    return v;
}

uint64_t cas__setup_get_u64(struct cas__setup_reader *r)
{
    uint64_t lo = cas__setup_get_u32(r);
    return lo | (uint64_t)cas__setup_get_u32(r) << 32;
}

const char *cas__setup_get_str(struct cas__setup_reader *r)
{
    uint32_t n = cas__setup_get_u32(r);
    if (r->bad || n == 0)
        return NULL;
    if (n > r->left || r->p[n - 1] != '\0' || memchr(r->p, '\0', n - 1)) {
        r->bad = 1;
        return NULL;
    }
    const char *text = (const char *)r->p;
    r->p += n;
    r->left -= n;
    return text;
}

void cas__setup_library(struct cas__setup *s, const struct cas_plugin *d, const char *path,
                        const char *manifest)
{
    cas__setup_str(s, d->id);
    cas__setup_str(s, d->version);
    cas__setup_u32(s, (uint32_t)d->kind);
    cas__setup_str(s, d->extends);
    cas__setup_u32(s, (uint32_t)d->min_players);
    cas__setup_u32(s, (uint32_t)d->max_players);
    cas__setup_u32(s, d->abi_major);
    cas__setup_u32(s, d->abi_minor);
    cas__setup_str(s, path);
    cas__setup_str(s, manifest);
}

void cas__setup_get_library(struct cas__setup_reader *r, struct cas__plugin_info *info)
{
    memset(info, 0, sizeof *info);
    info->id = (char *)cas__setup_get_str(r);
    info->version = (char *)cas__setup_get_str(r);
    info->kind = (enum cas_plugin_kind)cas__setup_get_u32(r);
    info->extends = (char *)cas__setup_get_str(r);
    info->min_players = (int)cas__setup_get_u32(r);
    info->max_players = (int)cas__setup_get_u32(r);
    info->abi_major = cas__setup_get_u32(r);
    info->abi_minor = cas__setup_get_u32(r);
    info->library_path = (char *)cas__setup_get_str(r);
    info->manifest_path = (char *)cas__setup_get_str(r);
    if (!info->id || !info->version || !info->library_path || !info->manifest_path)
        r->bad = 1;
}

/* ----------------------------------------------------------- the program */

/* castellan-worker: the build tree's for the build tree's castellan and
 * tests, else the one installed beside this castellan (a moved
 * installation's own first), else where it was installed. */
static char *program_path(void)
{
    if (cas__running_from_build_tree())
        return strdup(CASTELLAN_WORKER_BUILD_PATH);
    char *beside = cas__beside_executable(CASTELLAN_WORKER_FROM_BIN);
    return beside ? beside : strdup(CASTELLAN_WORKER_INSTALL_PATH);
}

static pthread_mutex_t program_lock = PTHREAD_MUTEX_INITIALIZER;
static int program_fd = -1;
static char program_name[PATH_MAX];

/* The program's descriptor, opened and checked once and kept for the
 * life of the process: it is trusted as castellan is (root's or the
 * user's, written by nobody else), and executed by descriptor, so the
 * file checked is the file run.  -1 with the reason in err. */
static int program(char *err, size_t errlen)
{
    pthread_mutex_lock(&program_lock);
    if (program_fd >= 0) {
        pthread_mutex_unlock(&program_lock);
        return program_fd;
    }
    char why[4400];
    struct stat st;
    char *path = program_path();
    int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    if (!path)
        snprintf(err, errlen, "out of memory");
    else if (fd < 0)
        snprintf(err, errlen, "the worker program %s cannot be opened (%s); reinstall "
                 "castellan, which installs it", path, strerror(errno));
    else if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        snprintf(err, errlen, "%s is not a program; reinstall castellan", path);
    else if (cas__untrusted(&st, path, why, sizeof why))
        snprintf(err, errlen, "%s: %s", path, why);
    else {
        program_fd = fd;
        snprintf(program_name, sizeof program_name, "%s", path);
        fd = -1;
    }
    if (fd >= 0)
        close(fd);
    free(path);
    int kept = program_fd;
    pthread_mutex_unlock(&program_lock);
    return kept;
}

/* The worker's environment: the sanitizer's settings, nothing else (no
 * secret a variable holds, no LD_PRELOAD). */
static void scrubbed_environment(char **env, size_t cap)
{
    static const char *const kept[] = {"ASAN_OPTIONS=", "UBSAN_OPTIONS=", "LSAN_OPTIONS="};
    size_t n = 0;
    for (char **e = environ; e && *e && n + 1 < cap; e++)
        for (size_t k = 0; k < sizeof kept / sizeof kept[0]; k++)
            if (strncmp(*e, kept[k], strlen(kept[k])) == 0)
                env[n++] = *e;
    env[n] = NULL;
}

/* Every descriptor in [lo, hi] closed.  Async-signal-safe: runs between
 * fork and exec. */
static void close_span(int lo, int hi)
{
    if (lo > hi)
        return;
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)lo, (unsigned)hi, 0u) == 0)
        return;
#endif
    struct rlimit r;
    int max = getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < 1048576 ? (int)r.rlim_cur
                                                                         : 1048576;
    for (int fd = lo; fd <= hi && fd < max; fd++)
        close(fd);
}

/* Every descriptor from `from` up closed but a and b (close-on-exec: they
 * go with the exec). */
static void close_from(int from, int a, int b)
{
    int low = a < b ? a : b, high = a < b ? b : a;
    close_span(from, low - 1);
    close_span(low + 1, high - 1);
    close_span(high + 1, INT_MAX);
}

/* The child between fork and exec: only async-signal-safe calls (the
 * parent may have threads).  The socket becomes CAS__SPAWN_FD, standard
 * input and output /dev/null, everything else is closed; on failure the
 * errno goes to the parent through `report`. */
static _Noreturn void become_worker(int sock, int devnull, int report, int prog,
                                    char *const argv[], char *const envp[])
{
    /* out of the way of 0..3 first: any of them may be one of ours */
    int s = fcntl(sock, F_DUPFD_CLOEXEC, 10), r = fcntl(report, F_DUPFD_CLOEXEC, 10);
    int n = devnull >= 0 ? fcntl(devnull, F_DUPFD_CLOEXEC, 10) : -1;
    int p = fcntl(prog, F_DUPFD_CLOEXEC, 10);
    if (s < 0 || r < 0 || p < 0 || dup2(s, CAS__SPAWN_FD) < 0)
        goto failed;
    if (n >= 0 && (dup2(n, STDIN_FILENO) < 0 || dup2(n, STDOUT_FILENO) < 0))
        goto failed;
    /* the report pipe and the program stay (close-on-exec), all else goes */
    close_from(CAS__SPAWN_FD + 1, r, p);
    fexecve(p, argv, envp);
failed:;
    int e = errno;
    ssize_t w = write(r >= 0 ? r : report, &e, sizeof e);
    (void)w;
    _exit(127);
}

/* The setup, its length and mode first, the descriptors with its first
 * bytes.  0 or -1. */
static int send_setup(int sock, enum cas__spawn_mode mode, const struct cas__setup *setup,
                      const int *fds, size_t n_fds)
{
    uint8_t head[8];
    uint32_t len = (uint32_t)setup->b.len;
    for (int i = 0; i < 4; i++) {
        head[i] = (uint8_t)(len >> (8 * i));
        head[4 + i] = (uint8_t)((uint32_t)mode >> (8 * i));
    }
    union {
        char buf[CMSG_SPACE(sizeof(int) * CAS__SPAWN_MAX_FDS)];
        struct cmsghdr align;
    } control;
    struct iovec io = {.iov_base = head, .iov_len = sizeof head};
    struct msghdr msg = {.msg_iov = &io, .msg_iovlen = 1};
    if (n_fds) {
        memset(&control, 0, sizeof control);
        msg.msg_control = control.buf;
        msg.msg_controllen = CMSG_SPACE(sizeof(int) * n_fds);
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * n_fds);
        memcpy(CMSG_DATA(c), fds, sizeof(int) * n_fds);
    }
    ssize_t sent;
    while ((sent = sendmsg(sock, &msg, MSG_NOSIGNAL)) < 0 && errno == EINTR)
        ;
    if (sent != (ssize_t)sizeof head)
        return -1;
    for (size_t at = 0; at < setup->b.len;) {
        ssize_t w = send(sock, setup->b.data + at, setup->b.len - at, MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        at += (size_t)w;
    }
    return 0;
}

int cas__spawn(enum cas__spawn_mode mode, const struct cas__setup *setup, const int *fds,
               size_t n_fds, pid_t *pid, int *sock, char *err, size_t errlen)
{
    int pair[2], report[2];
    char *argv[] = {(char *)"castellan-worker", NULL}, *envp[8];
    int prog = program(err, errlen);
    if (prog < 0)
        return -1;
    if (setup->b.failed || setup->b.len > CAS__SPAWN_MAX_SETUP || n_fds > CAS__SPAWN_MAX_FDS) {
        snprintf(err, errlen, "the worker's setup is too large");
        return -1;
    }
    scrubbed_environment(envp, sizeof envp / sizeof envp[0]);
    int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0) {
        snprintf(err, errlen, "cannot start a worker: %s", strerror(errno));
        goto close_devnull;
    }
    if (pipe2(report, O_CLOEXEC) != 0) {
        snprintf(err, errlen, "cannot start a worker: %s", strerror(errno));
        goto close_pair;
    }
    fflush(NULL); /* nothing buffered is written twice */
    *pid = fork();
    if (*pid == 0)
        become_worker(pair[1], devnull, report[1], prog, argv, envp);
    close(report[1]);
    close(pair[1]);
    if (*pid < 0) {
        snprintf(err, errlen, "cannot start a worker: %s", strerror(errno));
        close(report[0]);
        close(pair[0]);
        goto close_devnull;
    }
    int exec_errno = 0;
    ssize_t got;
    while ((got = read(report[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR)
        ;
    close(report[0]);
    if (got > 0 || send_setup(pair[0], mode, setup, fds, n_fds) != 0) {
        if (got > 0)
            snprintf(err, errlen, "cannot run %s: %s", program_name, strerror(exec_errno));
        else
            snprintf(err, errlen, "%s ended before its setup (see its standard error)",
                     program_name);
        kill(*pid, SIGKILL);
        while (waitpid(*pid, NULL, 0) < 0 && errno == EINTR)
            ;
        close(pair[0]);
        goto close_devnull;
    }
    if (devnull >= 0)
        close(devnull);
    *sock = pair[0];
    return 0;

close_pair:
    close(pair[0]);
    close(pair[1]);
close_devnull:
    if (devnull >= 0)
        close(devnull);
    return -1;
}

/* --------------------------------------------------------- the worker */

static int read_all(int fd, uint8_t *buf, size_t n)
{
    while (n) {
        ssize_t got = read(fd, buf, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        buf += got;
        n -= (size_t)got;
    }
    return 0;
}

int cas__spawn_accept(int sock, enum cas__spawn_mode *mode, uint8_t **setup, size_t *len,
                      int *fds, size_t cap, size_t *n_fds)
{
    uint8_t head[8];
    union {
        char buf[CMSG_SPACE(sizeof(int) * CAS__SPAWN_MAX_FDS)];
        struct cmsghdr align;
    } control;
    struct iovec io = {.iov_base = head, .iov_len = sizeof head};
    struct msghdr msg = {.msg_iov = &io, .msg_iovlen = 1, .msg_control = control.buf,
                         .msg_controllen = sizeof control.buf};
    *setup = NULL;
    *n_fds = 0;
    ssize_t got;
    while ((got = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC)) < 0 && errno == EINTR)
        ;
    if (got <= 0 || (msg.msg_flags & MSG_CTRUNC))
        return -1;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            size_t n = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            if (n > cap)
                return -1;
            memcpy(fds, CMSG_DATA(c), n * sizeof(int));
            *n_fds = n;
        }
    if (got < (ssize_t)sizeof head && read_all(sock, head + got, sizeof head - (size_t)got))
        return -1;
    uint32_t n = 0, m = 0;
    for (int i = 0; i < 4; i++) {
        n |= (uint32_t)head[i] << (8 * i);
        m |= (uint32_t)head[4 + i] << (8 * i);
    }
    if (n > CAS__SPAWN_MAX_SETUP || !(*setup = malloc(n ? n : 1)) ||
        read_all(sock, *setup, n) != 0) {
        free(*setup);
        *setup = NULL;
        return -1;
    }
    *len = n;
    *mode = (enum cas__spawn_mode)m;
    return 0;
}
