/*
 * confine.c — the sandbox of a child that runs plugin code: descriptors,
 * limits, namespaces, no new privileges and two seccomp filters built with
 * libseccomp.  The first goes on before the plugin's library is opened, so
 * its constructors, its entry function and game_new run under it: files
 * may be opened for reading only, and nothing may be written but the
 * descriptors the host lent, no process created, no socket opened, no
 * other process signalled.  The second, once the game exists, takes file
 * access away.  Any system call outside a filter kills the child with
 * SIGSYS, which the host reports.
 */
#define _GNU_SOURCE
#include "confine.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Defaults (docs/isolation.md, "Limits"). */
#define DEFAULT_MEMORY_MIB 2048u
#define DEFAULT_CPU_SECONDS 3600u

/* Sanitizer runtimes reserve terabytes of address space for their shadow
 * memory: an address-space limit would stop them at once. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CAS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define CAS_SANITIZED 1
#endif
#endif

static int limit(int resource, rlim_t soft, rlim_t hard)
{
    struct rlimit r = {soft, hard};
    return setrlimit(resource, &r) == 0 ? 0 : -errno;
}

static int set_limits(const struct cas__confine_limits *l)
{
    unsigned cpu = l->cpu_seconds ? l->cpu_seconds : DEFAULT_CPU_SECONDS;
    int rc = limit(RLIMIT_CORE, 0, 0);
    if (!rc)
        rc = limit(RLIMIT_FSIZE, 0, 0);
    if (!rc) /* SIGXCPU, which the host names; SIGKILL a second later */
        rc = limit(RLIMIT_CPU, cpu, (rlim_t)cpu + 1);
#ifndef CAS_SANITIZED
    unsigned mib = l->memory_mib ? l->memory_mib : DEFAULT_MEMORY_MIB;
    if (!rc)
        rc = limit(RLIMIT_AS, (rlim_t)mib << 20, (rlim_t)mib << 20);
#endif
    return rc;
}

static int kept(int fd, const int *keep, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (keep[i] == fd)
            return 1;
    return 0;
}

/* Every descriptor but keep[] closed: the child must not reach the store,
 * the terminal or anything else through one the host had open. */
void cas__confine_close_others(const int *keep, size_t n)
{
    struct rlimit r;
    long max = getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < 65536 ? (long)r.rlim_cur
                                                                        : 65536;
    int highest = -1;
    for (size_t i = 0; i < n; i++)
        if (keep[i] > highest)
            highest = keep[i];
    for (int fd = 0; fd <= highest; fd++)
        if (!kept(fd, keep, n))
            close(fd);
#ifdef SYS_close_range
    if (syscall(SYS_close_range, (unsigned)highest + 1, ~0u, 0u) == 0)
        return;
#endif
    for (long fd = highest + 1; fd < max; fd++)
        close((int)fd);
}

/* The host's signal handlers (check's crash report) are not the child's:
 * a signal ends it, and the host says which. */
static void default_signals(void)
{
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    for (int sig = 1; sig < NSIG; sig++)
        if (sig != SIGKILL && sig != SIGSTOP)
            signal(sig, SIG_DFL);
}

/* New user, mount and network namespaces: the child holds no privilege
 * over the host's files or network even if the filter had a gap.  Where
 * unprivileged namespaces are not allowed, only those root may make. */
static void enter_namespaces(void)
{
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWNET) != 0)
        (void)unshare(CLONE_NEWNS | CLONE_NEWNET); /* the filter holds without them */
}

/* One condition on argument n, every field set (libseccomp's SCMP_A0..
 * macros leave one out, which -Wmissing-field-initializers refuses). */
static struct scmp_arg_cmp cmp(unsigned n, enum scmp_compare op, scmp_datum_t a,
                               scmp_datum_t b)
{
    return (struct scmp_arg_cmp){.arg = n, .op = op, .datum_a = a, .datum_b = b};
}

/* Allow system call `name` (under conditions); a call this architecture
 * lacks is skipped. */
static int allow(scmp_filter_ctx f, const char *name, unsigned n_args,
                 const struct scmp_arg_cmp *args)
{
    int nr = seccomp_syscall_resolve_name(name);
    if (nr == __NR_SCMP_ERROR)
        return 0;
    return seccomp_rule_add_array(f, SCMP_ACT_ALLOW, nr, n_args, args);
}

static int allow_all(scmp_filter_ctx f, const char *const *names)
{
    int rc = 0;
    for (; !rc && *names; names++)
        rc = allow(f, *names, 0, NULL);
    return rc;
}

/* What every confined child may do: memory, its own signals, time, exit. */
static const char *const always[] = {
    "mmap", "munmap", "mremap", "mprotect", "madvise", "brk", "futex", "getpid", "gettid",
    "rt_sigprocmask", "rt_sigreturn", "rt_sigaction", "sigaltstack", "clock_gettime",
    "clock_getres", "gettimeofday", "sched_yield", "sched_getaffinity", "getrandom",
    "set_robust_list", "rseq", "exit", "exit_group", NULL,
};

/* Reading files, never changing them: the loader's and game_new's (dup:
 * a copy of a descriptor can do no more than the descriptor; a runtime
 * such as a sanitizer's makes copies). */
static const char *const reading[] = {
    "read", "pread64", "readv", "lseek", "close", "fstat", "newfstatat", "stat", "lstat",
    "statx", "getdents64", "readlink", "readlinkat", "access", "faccessat", "faccessat2",
    "close_range", "dup", "dup2", "dup3", "getcwd", "getuid", "geteuid", "getgid", "getegid", "uname", "sched_getaffinity", NULL,
};

/* seccomp: the second filter goes on under the first (a filter can only
 * take more away). */
static const char *const sealing[] = {"seccomp", NULL};

/* tgkill on itself only, so abort() and assert read as the crash they are;
 * write on the lent descriptors only. */
static int allow_self_and_writes(scmp_filter_ctx f, const int *writable, size_t n)
{
    struct scmp_arg_cmp self = cmp(0, SCMP_CMP_EQ, (scmp_datum_t)getpid(), 0);
    int rc = allow(f, "tgkill", 1, &self);
    for (size_t i = 0; !rc && i < n; i++) {
        struct scmp_arg_cmp fd = cmp(0, SCMP_CMP_EQ, (scmp_datum_t)writable[i], 0);
        rc = allow(f, "write", 1, &fd);
        if (!rc)
            rc = allow(f, "writev", 1, &fd);
    }
    return rc;
}

/* open and openat for reading only: no write access, no creating, no
 * truncating.  prlimit64 to read a limit, never to set one. */
static int allow_read_opens(scmp_filter_ctx f)
{
    const scmp_datum_t mask = O_ACCMODE | O_CREAT | O_TRUNC | O_APPEND;
    struct scmp_arg_cmp open_flags = cmp(1, SCMP_CMP_MASKED_EQ, mask, O_RDONLY);
    struct scmp_arg_cmp openat_flags = cmp(2, SCMP_CMP_MASKED_EQ, mask, O_RDONLY);
    struct scmp_arg_cmp no_new_limit = cmp(2, SCMP_CMP_EQ, 0, 0);
    struct scmp_arg_cmp is_a_tty = cmp(1, SCMP_CMP_EQ, TCGETS, 0);
    struct scmp_arg_cmp fcntl_get[] = {cmp(1, SCMP_CMP_EQ, F_GETFD, 0),
                                       cmp(1, SCMP_CMP_EQ, F_GETFL, 0)};
    int rc = allow(f, "open", 1, &open_flags);
    if (!rc)
        rc = allow(f, "openat", 1, &openat_flags);
    if (!rc)
        rc = allow(f, "prlimit64", 1, &no_new_limit);
    if (!rc) /* isatty: reading a terminal's settings changes nothing */
        rc = allow(f, "ioctl", 1, &is_a_tty);
    for (size_t i = 0; !rc && i < 2; i++)
        rc = allow(f, "fcntl", 1, &fcntl_get[i]);
    return rc;
}

/* Threads, never processes: clone only with CLONE_THREAD (a search bot's
 * threads, in host/agents/batch.c); clone3, whose flags a filter cannot read, fails
 * with ENOSYS so the C library falls back to clone. */
static int allow_threads(scmp_filter_ctx f)
{
    struct scmp_arg_cmp thread = cmp(0, SCMP_CMP_MASKED_EQ, CLONE_THREAD, CLONE_THREAD);
    int rc = allow(f, "clone", 1, &thread);
    int nr = seccomp_syscall_resolve_name("clone3");
    if (!rc && nr != __NR_SCMP_ERROR)
        rc = seccomp_rule_add(f, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
    return rc;
}

/* Under the second filter opening a file fails with EACCES rather than
 * killing the worker: the C library tries files (the number of
 * processors, for a search bot's threads) and copes without. */
static int refuse_opens(scmp_filter_ctx f)
{
    const char *calls[] = {"open", "openat"};
    int rc = 0;
    for (size_t i = 0; !rc && i < 2; i++) {
        int nr = seccomp_syscall_resolve_name(calls[i]);
        if (nr != __NR_SCMP_ERROR)
            rc = seccomp_rule_add(f, SCMP_ACT_ERRNO(EACCES), nr, 0);
    }
    return rc;
}

/* Load a filter; no-new-privileges is set already (libseccomp would set
 * it again with prctl, which the first filter forbids). */
static int load(scmp_filter_ctx f)
{
    int rc = seccomp_attr_set(f, SCMP_FLTATR_CTL_NNP, 0);
    if (!rc)
        rc = seccomp_load(f);
    seccomp_release(f);
    return rc;
}

int cas__confine_child(const int *keep, size_t n_keep, const int *writable, size_t n_writable,
                       const struct cas__confine_limits *limits)
{
    cas__confine_close_others(keep, n_keep);
    default_signals();
    int rc = set_limits(limits);
    if (rc)
        return rc;
    enter_namespaces();
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -errno;
    scmp_filter_ctx f = seccomp_init(SCMP_ACT_KILL_PROCESS);
    if (!f)
        return -ENOMEM;
    rc = allow_all(f, always);
    if (!rc)
        rc = allow_all(f, reading);
    if (!rc)
        rc = allow_all(f, sealing);
    if (!rc)
        rc = allow_threads(f);
    if (!rc)
        rc = allow_read_opens(f);
    if (!rc)
        rc = allow_self_and_writes(f, writable, n_writable);
    if (rc) {
        seccomp_release(f);
        return rc;
    }
    return load(f);
}

void cas__confine_write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w <= 0)
            _exit(2);
        p += w;
        n -= (size_t)w;
    }
}

int cas__confine_seal(int fd)
{
    scmp_filter_ctx f = seccomp_init(SCMP_ACT_KILL_PROCESS);
    if (!f)
        return -ENOMEM;
    struct scmp_arg_cmp on_fd = cmp(0, SCMP_CMP_EQ, (scmp_datum_t)fd, 0);
    int rc = allow_all(f, always);
    if (!rc)
        rc = allow(f, "read", 1, &on_fd);
    if (!rc)
        rc = allow_self_and_writes(f, &fd, 1);
    if (!rc)
        rc = allow_threads(f);
    if (!rc)
        rc = refuse_opens(f);
    if (rc) {
        seccomp_release(f);
        return rc;
    }
    return load(f);
}
