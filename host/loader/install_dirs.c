/*
 * install_dirs.c — where an installed castellan keeps its plugins and
 * presets, found from the running executable so that an installation can
 * be moved (cmake --install --prefix ANYWHERE, or a copied tree) and still
 * find its own files before the locations compiled in; and whether the
 * running executable is the build tree's, the only one that may look into
 * the build and source trees.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "install_dirs.h"

#ifndef CASTELLAN_BUILD_DIR
#error "the build defines CASTELLAN_BUILD_DIR (absolute)"
#endif

/* The folder of the running executable into dir[0..PATH_MAX); 0 on failure. */
static int executable_dir(char *dir)
{
    ssize_t len = readlink("/proc/self/exe", dir, PATH_MAX - 1);
    if (len <= 0)
        return 0;
    dir[len] = '\0';
    char *slash = strrchr(dir, '/');
    if (!slash)
        return 0;
    *slash = '\0';
    return 1;
}

char *cas__beside_executable(const char *relative)
{
    char exe[PATH_MAX];
    if (!executable_dir(exe))
        return NULL;
    size_t size = strlen(exe) + 1 + strlen(relative) + 1;
    char *path = malloc(size);
    if (!path)
        return NULL;
    snprintf(path, size, "%s/%s", exe, relative);
    char *resolved = realpath(path, NULL);
    free(path);
    return resolved;
}

int cas__running_from_build_tree(void)
{
    char exe[PATH_MAX];
    char *installed = cas__beside_executable(CASTELLAN_PLUGIN_DIR_FROM_BIN);
    char *build = realpath(CASTELLAN_BUILD_DIR, NULL);
    if (installed || !build || !executable_dir(exe)) {
        free(installed);
        free(build);
        return 0;
    }
    size_t n = strlen(build);
    int inside = strncmp(exe, build, n) == 0 && (exe[n] == '/' || exe[n] == '\0');
    free(build);
    return inside;
}

char *cas__find_installed(const char *from_bin, const char *installed, const char *source)
{
    char *beside_exe = cas__beside_executable(from_bin);
    if (beside_exe)
        return beside_exe;
    if (access(installed, R_OK) == 0)
        return strdup(installed);
    if (cas__running_from_build_tree() && access(source, R_OK) == 0)
        return strdup(source);
    return NULL;
}
