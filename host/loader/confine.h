/*
 * confine.h — what a child process that will run plugin code gives up
 * before the first byte of that code runs (host-internal): every
 * descriptor but the ones it is lent, resource limits, new user, mount and
 * network namespaces where the kernel allows them, no new privileges, and
 * a seccomp filter (libseccomp) that leaves reading files, memory, its own
 * signals and writing to the descriptors it was lent; after the game
 * exists, a second filter takes file access away too (docs/isolation.md,
 * "What the sandbox promises").
 */
#ifndef CAS_HOST_CONFINE_H
#define CAS_HOST_CONFINE_H

#include <stddef.h>

/* Limits of a confined child; zero means the default. */
struct cas__confine_limits {
    unsigned memory_mib;  /* RLIMIT_AS (none in sanitizer builds) */
    unsigned cpu_seconds; /* RLIMIT_CPU, SIGXCPU then SIGKILL a second later */
};

/* In a fresh worker (worker_spawn.h), before any plugin code: close every
 * descriptor but keep[0..n_keep), reset the signals (dispositions and the
 * mask survive exec), set the limits, enter new namespaces where allowed,
 * set no-new-privileges and install the first filter, under which the
 * child may open files for reading only, read, map memory, write to
 * writable[0..n_writable) only, and never fork, exec, open a socket, signal
 * another process or change a file.  0 or -errno (the child must then
 * exit: it is not confined). */
int cas__confine_child(const int *keep, size_t n_keep, const int *writable, size_t n_writable,
                       const struct cas__confine_limits *limits);

/* Close every descriptor but keep[0..n): before the filter, and after
 * game_new (whatever it opened must not stay open under the second). */
void cas__confine_close_others(const int *keep, size_t n);

/* After the game exists: a second filter on top of the first, leaving
 * only read and write on fd, memory, its own signals and exit.  0 or
 * -errno. */
int cas__confine_seal(int fd);

/* In a confined child: all n bytes of buf to fd, or _exit(2) when the
 * host is gone (the child has nobody left to answer). */
void cas__confine_write_all(int fd, const void *buf, size_t n);

#endif
