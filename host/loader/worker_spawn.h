/*
 * worker_spawn.h — a child that will run plugin code starts as a fresh program
 * (host-internal): castellan forks, the child keeps one socket and
 * executes castellan-worker (installed beside castellan), which holds
 * nothing of castellan's memory, descriptors or environment.  What the
 * worker needs (which libraries, the game's parameters, its limits)
 * comes over the socket as a setup message, the libraries' descriptors
 * with it (SCM_RIGHTS): the worker loads the very files the loader
 * checked, by descriptor (docs/isolation.md, "Workers are fresh
 * programs").
 */
#ifndef CAS_HOST_WORKER_SPAWN_H
#define CAS_HOST_WORKER_SPAWN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "buf.h"
#include "registry.h"

/* What the worker is started for. */
enum cas__spawn_mode {
    CAS__SPAWN_PROBE = 1, /* load one library, report its descriptor (probe.c) */
    CAS__SPAWN_GAME = 2,  /* host one game (host/worker/serve.c) */
    CAS__SPAWN_CHECK = 3  /* run `castellan check` (host/worker/check_child.c) */
};

/* The worker's socket, its only descriptor besides the standard ones. */
#define CAS__SPAWN_FD 3
/* The most descriptors one setup carries. */
#define CAS__SPAWN_MAX_FDS 64
/* The largest setup accepted. */
#define CAS__SPAWN_MAX_SETUP (16u << 20)

/* A setup being written into b: little-endian numbers and strings (u32
 * length counting the NUL, the bytes, the NUL; length 0 for NULL).  A
 * failure sticks in b.failed; cas__spawn refuses one past
 * CAS__SPAWN_MAX_SETUP.  Zeroed is empty. */
struct cas__setup {
    struct cas__buf b;
};

void cas__setup_u32(struct cas__setup *s, uint32_t v);
void cas__setup_u64(struct cas__setup *s, uint64_t v);
void cas__setup_str(struct cas__setup *s, const char *text);
void cas__setup_free(struct cas__setup *s);

/* A setup being read: every read checks what is left; a short or
 * malformed setup sets `bad` and reads zeros and NULLs from then on. */
struct cas__setup_reader {
    const uint8_t *p;
    size_t left;
    int bad;
};

uint32_t cas__setup_get_u32(struct cas__setup_reader *r);
uint64_t cas__setup_get_u64(struct cas__setup_reader *r);
/* A string of the setup (pointing into it), or NULL for a NULL one. */
const char *cas__setup_get_str(struct cas__setup_reader *r);

/* The facts a worker checks a library's descriptor against (the
 * descriptor d castellan loaded or probed, and the library's path), and
 * reading them back into *info, whose strings point into the setup. */
void cas__setup_library(struct cas__setup *s, const struct cas_plugin *d, const char *path,
                        const char *manifest);
void cas__setup_get_library(struct cas__setup_reader *r, struct cas__plugin_info *info);

/* The library a loaded plugin came from: desc_or_extension is a
 * descriptor (the plugin's own, or castellan's copy of a probed one) or
 * an expansion's `extension`.  *desc its descriptor, *fd the descriptor
 * it was checked and loaded through, *path its file.  CAS_OK, or
 * CAS_ENOTFOUND for a descriptor no library of the loader gave (one
 * compiled into the program). */
int cas__library_of(const void *desc_or_extension, const struct cas_plugin **desc, int *fd,
                    const char **path);

/* Start castellan-worker in `mode` and send it setup[0..len) with the
 * descriptors fds[0..n_fds) (at most CAS__SPAWN_MAX_FDS).  The child
 * keeps nothing but the socket, standard input and output on /dev/null
 * and standard error (which the worker closes before it runs plugin code,
 * but for a check); its environment holds only the sanitizer's settings.
 * On success *pid and *sock (the host's end, close-on-exec); else -1
 * with the reason in err. */
int cas__spawn(enum cas__spawn_mode mode, const struct cas__setup *setup, const int *fds,
               size_t n_fds, pid_t *pid, int *sock, char *err, size_t errlen);

/* In castellan-worker: the setup on sock, its mode, and the descriptors
 * that came with it.  *setup is the caller's to free.  0, or -1 when
 * the setup is missing or malformed. */
int cas__spawn_accept(int sock, enum cas__spawn_mode *mode, uint8_t **setup, size_t *len,
                      int *fds, size_t cap, size_t *n_fds);

#endif
