/*
 * sandbox.c — what a plugin worker gives up: resource limits before the
 * game is created, and on Linux a seccomp filter after, written as raw
 * BPF, that leaves it read and write on its socket, memory management,
 * signals to itself (abort) and exit.  Anything else (open, socket, fork, kill...) kills it with SIGSYS,
 * which the host reports.
 */
#include <errno.h>
#include <stddef.h>
#include <sys/resource.h>

#include "worker.h"

#if defined(__linux__)
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

/* Sanitizer runtimes reserve terabytes of address space for their shadow
 * memory: an address-space limit would stop them at once. */
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define CAS_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(memory_sanitizer)
#define CAS_SANITIZED 1
#endif
#endif

static int limit(int resource, rlim_t value)
{
    struct rlimit r = {value, value};
    return setrlimit(resource, &r) == 0 ? 0 : -errno;
}

int cas__sandbox_limits(const struct cas__isolation *iso)
{
    unsigned cpu = iso->cpu_seconds ? iso->cpu_seconds : CAS__DEFAULT_CPU_SECONDS;
    int rc = limit(RLIMIT_CORE, 0);
    if (!rc)
        rc = limit(RLIMIT_FSIZE, 0);
    if (!rc) {
        /* The soft limit sends SIGXCPU, which the host names; the hard
         * one, a second later, SIGKILL. */
        struct rlimit r = {cpu, (rlim_t)cpu + 1};
        rc = setrlimit(RLIMIT_CPU, &r) == 0 ? 0 : -errno;
    }
#ifndef CAS_SANITIZED
    unsigned mib = iso->memory_mib ? iso->memory_mib : CAS__DEFAULT_MEMORY_MIB;
    if (!rc)
        rc = limit(RLIMIT_AS, (rlim_t)mib << 20);
#endif
    return rc;
}

#if defined(__linux__) && (defined(__x86_64__) || defined(__aarch64__))

#if defined(__x86_64__)
#define AUDIT_ARCH_HOST AUDIT_ARCH_X86_64
#else
#define AUDIT_ARCH_HOST AUDIT_ARCH_AARCH64
#endif

#define LOAD(field) BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, field))
#define ALLOW_IF(nr) BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (nr), 0, 1), \
                     BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

int cas__sandbox_seal(int fd)
{
    pid_t self = getpid();
    /* read and write are allowed on fd only: the first argument's low
     * word must be fd (and the high word 0). */
    struct sock_filter filter[] = {
        LOAD(arch),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_HOST, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        LOAD(nr),
#if defined(__x86_64__)
        /* x32 system calls share the architecture: refuse them all. */
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
#endif
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_read, 1, 0),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_write, 0, 6),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)fd, 0, 2),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0]) + 4),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        /* A signal to itself only (abort, assert), so a plugin's own
         * abort reads as the crash it is. */
        LOAD(nr),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_tgkill, 0, 4),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)self, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        LOAD(nr),
        ALLOW_IF(__NR_getpid),
        ALLOW_IF(__NR_gettid),
        ALLOW_IF(__NR_rt_sigprocmask),
        ALLOW_IF(__NR_sigaltstack),
        ALLOW_IF(__NR_mmap),
        ALLOW_IF(__NR_munmap),
        ALLOW_IF(__NR_mremap),
        ALLOW_IF(__NR_mprotect),
        ALLOW_IF(__NR_madvise),
        ALLOW_IF(__NR_brk),
        ALLOW_IF(__NR_futex),
        ALLOW_IF(__NR_rt_sigreturn),
        ALLOW_IF(__NR_exit),
        ALLOW_IF(__NR_exit_group),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS),
    };
    struct sock_fprog prog = {.len = (unsigned short)(sizeof filter / sizeof filter[0]),
                              .filter = filter};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return -errno;
    if (syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0)
        return -errno;
    return 0;
}

#else

/* Elsewhere the worker keeps its limits and separate address space only
 * (docs/isolation.md). */
int cas__sandbox_seal(int fd)
{
    (void)fd;
    return 0;
}

#endif
