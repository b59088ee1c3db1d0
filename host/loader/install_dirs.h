/*
 * install_dirs.h — installed files located relative to the executable
 * (host-internal).
 */
#ifndef CAS_HOST_INSTALL_DIRS_H
#define CAS_HOST_INSTALL_DIRS_H

/* The existing path at `relative` from the folder of the running
 * executable, canonical; NULL when it does not exist.  Caller frees. */
char *cas__beside_executable(const char *relative);

/* True when the running executable lies inside the build tree it was built
 * in (the castellan of build/host, or a test) and is not an installed one
 * (no plugin folder of its own beside it, even when installed to a prefix
 * inside the build tree).  Only then are the build tree's plugins and the
 * source tree's presets looked at: an installed castellan uses only what is
 * installed. */
int cas__running_from_build_tree(void);

/* An installed file or folder: `from_bin` relative to the executable's
 * folder, else `installed`, else (for the build tree's castellan only,
 * cas__running_from_build_tree) `source`.  NULL when none exists; caller
 * frees. */
char *cas__find_installed(const char *from_bin, const char *installed, const char *source);

#endif
