/*
 * install_dirs.h — installed files located relative to the executable
 * (host-internal).
 */
#ifndef CAS_HOST_INSTALL_DIRS_H
#define CAS_HOST_INSTALL_DIRS_H

/* The existing path at `relative` from the folder of the running
 * executable, canonical; NULL when it does not exist.  Caller frees. */
char *cas__beside_executable(const char *relative);

#endif
