/*
 * install_dirs.c — where an installed castellan keeps its plugins and
 * presets, found from the running executable so that an installation can
 * be moved (cmake --install --prefix ANYWHERE, or a copied tree) and still
 * find its own files before the locations compiled in.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "install_dirs.h"

char *cas__beside_executable(const char *relative)
{
    char exe[PATH_MAX];
    ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (len <= 0)
        return NULL;
    exe[len] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = '\0';
    size_t size = strlen(exe) + 1 + strlen(relative) + 1;
    char *path = malloc(size);
    if (!path)
        return NULL;
    snprintf(path, size, "%s/%s", exe, relative);
    char *resolved = realpath(path, NULL);
    free(path);
    return resolved;
}
