/*
 * loader.h — what the loader's files share among themselves
 * (host-internal, below registry.h): reading one manifest and recording
 * refusals.
 */
#ifndef CAS_HOST_LOADER_H
#define CAS_HOST_LOADER_H

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

#endif
