/*
 * loader.h — what the loader's files share among themselves
 * (host-internal, below registry.h): reading one manifest and recording
 * refusals.
 */
#ifndef CAS_HOST_LOADER_H
#define CAS_HOST_LOADER_H

#include <stdint.h>
#include <sys/stat.h>

#include "registry.h"

/* Set info->refusal to the formatted line unless it already has one (the
 * first problem found is the one reported).  CAS_ENOMEM if the text cannot
 * be stored, else CAS_OK. */
int cas__refuse(struct cas__plugin_info *info, const char *fmt, ...) CAS_PRINTF(2, 3);
/* Same, replacing any earlier refusal. */
int cas__refuse_instead(struct cas__plugin_info *info, const char *fmt, ...)
    CAS_PRINTF(2, 3);

/* Why the plugin file or folder at path, with status st, may not be
 * trusted: NULL when it is owned by root or by the user castellan runs as
 * and neither group nor others may write it; else the reason with its fix,
 * "owned by user N, ..." or "writable by group or others ...", in why. */
const char *cas__untrusted(const struct stat *st, const char *path, char *why,
                           size_t cap);

/* Read info->manifest_path (info->dir, paths and the expected id, the
 * folder's name, are set) into info's fields.  A bad manifest becomes a
 * refusal; only CAS_ENOMEM is returned as an error. */
int cas__manifest_read(struct cas__plugin_info *info, const char *folder_name);

/* The library's descriptor: opened without waiting (a FIFO cannot hang
 * the loader), a regular file, trusted, kept open for the life of the
 * process; -1 with a refusal. */
int cas__library_fd(struct cas__plugin_info *info);

/* dlopen the library open on fd (by /proc/PID/fd/N), run its entry
 * function and check the descriptor against info (cas__check_descriptor).
 * On success *dl and *desc; else a refusal in info and a negative code.
 * Runs plugin code: the host calls it for its own plugins, a confined
 * child for every other (probe.c). */
int cas__load_descriptor(struct cas__plugin_info *info, int fd, void **dl,
                         const struct cas_plugin **desc);

/* d against the host ABI and against info's manifest facts: CAS_OK, or a
 * refusal in info and a negative code.  Reads d only. */
int cas__check_descriptor(struct cas__plugin_info *info, const struct cas_plugin *d);

/* Whether a load (where: its choice) leaves info in a confined child
 * (probe.c) rather than in castellan: a plugin from outside castellan's
 * own folders, unless the user asked for it in process. */
int cas__registry_probes(const struct cas__registry *reg, const struct cas__plugin_info *info,
                         enum cas__foreign where);

/* Load info's library (open on lib_fd) in a confined child and give info
 * a descriptor of the host's own built from what the child reports
 * (info->desc, info->probed), checked again.  A refusal otherwise. */
int cas__probe(struct cas__plugin_info *info, int lib_fd);
void cas__probe_free(struct cas__probed *p);

/* In castellan-worker started to probe (worker_spawn.h): the library's facts
 * and its descriptor from the setup; confine, load, check, and answer
 * on sock with the descriptor's facts or the refusal.  The exit status:
 * 0, or 3 for a malformed setup, 5 when the child cannot be confined. */
int cas__probe_serve(int sock, const uint8_t *setup, size_t len, const int *fds,
                     size_t n_fds);

/* A probe's descriptor (castellan's copy) and its library's path. */
const struct cas_plugin *cas__probed_desc(const struct cas__probed *p);
const char *cas__probed_path(const struct cas__probed *p);

/* Before its library is closed: desc is no longer one cas__library_of
 * knows. */
void cas__library_forget(const struct cas_plugin *desc);

/* Held while a library loads, by whoever reads or changes what loading
 * reads (which libraries are loaded, where foreign plugins load): the
 * server resolves plugins on several threads at once.  Not recursive. */
void cas__library_lock(void);
void cas__library_unlock(void);

#endif
