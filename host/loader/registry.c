/*
 * registry.c — the plugin search path and the scan of its folders.  Each
 * path folder holds one folder per plugin, DIR/ID/{ID.ini, ID.so, data/};
 * the first folder that has an id wins and later ones are refused as
 * shadowed.  Scanning reads manifests and file modes only, never plugin code.
 */
#include <dirent.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dlfcn.h>

#include "install_dirs.h"
#include "loader.h"
#include "text.h"

#ifndef CASTELLAN_PLUGIN_INSTALL_DIR
#error "the build defines CASTELLAN_PLUGIN_INSTALL_DIR (absolute)"
#endif
#ifndef CASTELLAN_BUILD_PLUGIN_DIR
#error "the build defines CASTELLAN_BUILD_PLUGIN_DIR"
#endif

struct cas__registry {
    struct cas__plugin_info **plugins;
    size_t count;
    int foreign; /* 0: not said (confined), 1: in process, 2: confined */
};

void cas__registry_foreign_in_process(struct cas__registry *reg, int yes)
{
    cas__library_lock();
    reg->foreign = yes ? 1 : 2;
    cas__library_unlock();
}

int cas__registry_foreign_said(const struct cas__registry *reg)
{
    cas__library_lock();
    int said = reg->foreign != 0;
    cas__library_unlock();
    return said;
}

int cas__registry_probes(const struct cas__registry *reg, const struct cas__plugin_info *info,
                         enum cas__foreign where)
{
    int here = where == CAS__FOREIGN_AS_TOLD ? reg->foreign == 1 : where == CAS__FOREIGN_IN_PROCESS;
    return !here && !cas__plugin_is_bundled(info);
}

/* ------------------------------------------------------------ refusals */

static int set_refusal(struct cas__plugin_info *info, const char *fmt, va_list args)
{
    va_list again;
    va_copy(again, args);
    int len = vsnprintf(NULL, 0, fmt, args);
    char *text = len < 0 ? NULL : malloc((size_t)len + 1);
    if (text)
        vsnprintf(text, (size_t)len + 1, fmt, again);
    va_end(again);
    if (!text)
        return CAS_ENOMEM;
    free(info->refusal);
    info->refusal = text;
    return CAS_OK;
}

int cas__refuse(struct cas__plugin_info *info, const char *fmt, ...)
{
    if (info->refusal)
        return CAS_OK;
    va_list args;
    va_start(args, fmt);
    int rc = set_refusal(info, fmt, args);
    va_end(args);
    return rc;
}

int cas__refuse_instead(struct cas__plugin_info *info, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    int rc = set_refusal(info, fmt, args);
    va_end(args);
    return rc;
}

/* --------------------------------------------------------- search path */

/* Push each non-empty ':'-separated folder of text not already listed. */
static int push_folders(struct cas__strlist *list, const char *text)
{
    while (*text) {
        size_t len = strcspn(text, ":");
        if (len > 0) {
            int rc = cas__strlist_push_n(list, text, len);
            if (rc)
                return rc;
            char *added = list->items[list->count - 1];
            if (cas__strlist_index(list, added) != (int)list->count - 1)
                free(list->items[--list->count]);
        }
        text += len + (text[len] == ':');
    }
    return CAS_OK;
}

static int is_directory(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

int cas__plugin_search_path(const char *cli_path, struct cas__strlist *out)
{
    const char *env = getenv("CASTELLAN_PLUGIN_PATH");
    int rc = CAS_OK;
    out->items = NULL;
    out->count = 0;
    if (cli_path)
        rc = push_folders(out, cli_path);
    if (!rc && env)
        rc = push_folders(out, env);
    char *beside_exe = cas__beside_executable(CASTELLAN_PLUGIN_DIR_FROM_BIN);
    if (!rc && beside_exe)
        rc = push_folders(out, beside_exe);
    free(beside_exe);
    if (!rc)
        rc = push_folders(out, CASTELLAN_PLUGIN_INSTALL_DIR);
    if (!rc && cas__running_from_build_tree() && is_directory(CASTELLAN_BUILD_PLUGIN_DIR))
        rc = push_folders(out, CASTELLAN_BUILD_PLUGIN_DIR);
    if (rc)
        cas__strlist_free(out);
    return rc;
}

/* Whether dir (canonical) lies in root. */
static int inside(const char *dir, const char *root)
{
    char *real = root ? realpath(root, NULL) : NULL;
    size_t n = real ? strlen(real) : 0;
    int in = real && strncmp(dir, real, n) == 0 && (dir[n] == '/' || dir[n] == '\0');
    free(real);
    return in;
}

int cas__plugin_is_bundled(const struct cas__plugin_info *info)
{
    char *dir = realpath(info->dir, NULL);
    char *beside_exe = cas__beside_executable(CASTELLAN_PLUGIN_DIR_FROM_BIN);
    int bundled = dir && (inside(dir, beside_exe) || inside(dir, CASTELLAN_PLUGIN_INSTALL_DIR) ||
                          (cas__running_from_build_tree() &&
                           inside(dir, CASTELLAN_BUILD_PLUGIN_DIR)));
    free(beside_exe);
    free(dir);
    return bundled;
}

/* ---------------------------------------------------------------- scan */

/* a + b + c in a new string, or NULL. */
static char *concat3(const char *a, const char *b, const char *c)
{
    size_t len = strlen(a) + strlen(b) + strlen(c) + 1;
    char *s = malloc(len);
    if (s)
        snprintf(s, len, "%s%s%s", a, b, c);
    return s;
}

/* folder made absolute against the working directory, so that dlopen()
 * never searches and data_dir is absolute as plugins are promised; trailing
 * slashes go, so the paths shown to users read DIR/ID, never DIR//ID. */
static char *absolute_folder(const char *folder)
{
    char cwd[4096];
    char *absolute;
    if (folder[0] == '/' || !getcwd(cwd, sizeof cwd))
        absolute = strdup(folder);
    else
        absolute = concat3(cwd, "/", folder);
    if (!absolute)
        return NULL;
    for (size_t len = strlen(absolute); len > 1 && absolute[len - 1] == '/'; len--)
        absolute[len - 1] = '\0';
    return absolute;
}

static void info_free(struct cas__plugin_info *info)
{
    if (!info)
        return;
    if (info->dl) {
        cas__library_forget(info->desc);
        dlclose(info->dl);
    }
    cas__probe_free(info->probed);
    free(info->id);
    free(info->version);
    free(info->description);
    free(info->extends);
    cas__strlist_free(&info->requires);
    cas__strlist_free(&info->conflicts);
    cas__strlist_free(&info->after);
    cas__strlist_free(&info->before);
    free(info->dir);
    free(info->manifest_path);
    free(info->library_path);
    free(info->data_dir);
    free(info->refusal);
    free(info);
}

static struct cas__plugin_info *info_new(const char *folder, const char *name)
{
    struct cas__plugin_info *info = calloc(1, sizeof *info);
    if (!info)
        return NULL;
    info->dir = concat3(folder, "/", name);
    if (!info->dir)
        goto free_info;
    char *base = concat3(info->dir, "/", name);
    if (!base)
        goto free_info;
    info->manifest_path = concat3(base, ".ini", "");
    info->library_path = concat3(base, ".so", "");
    info->data_dir = concat3(info->dir, "/data", "");
    free(base);
    if (info->manifest_path && info->library_path && info->data_dir)
        return info;
free_info:
    info_free(info);
    return NULL;
}

const char *cas__untrusted(const struct stat *st, const char *path, char *why,
                           size_t cap)
{
    if (st->st_uid != 0 && st->st_uid != geteuid())
        snprintf(why, cap, "owned by user %u, neither root nor the user castellan runs "
                 "as (%u), so that user could replace plugin code; remove it, or chown "
                 "it once you trust it", (unsigned)st->st_uid, (unsigned)geteuid());
    else if (st->st_mode & (S_IWGRP | S_IWOTH))
        snprintf(why, cap, "writable by group or others (mode %04o), so anyone could "
                 "replace plugin code; run chmod go-w %s", (unsigned)(st->st_mode & 07777),
                 path);
    else
        return NULL;
    return why;
}

/* path lies inside folder (both resolved). */
static int is_inside(const char *path, const char *folder)
{
    size_t len = strlen(folder);
    return strncmp(path, folder, len) == 0 && (path[len] == '/' || path[len] == '\0');
}

/* One file or folder of the plugin, as lstat sees it: a symbolic link
 * must stay inside the plugin folder `inside` (resolved), and what it is
 * (or points to) must be trusted. */
static int check_entry(struct cas__plugin_info *info, const char *path, int must_exist,
                       const char *inside)
{
    struct stat st;
    char why[4400];
    if (lstat(path, &st) != 0) {
        if (!must_exist && errno == ENOENT)
            return CAS_OK;
        return cas__refuse(info, "%s: %s; build or install the plugin so that %s.so "
                                 "sits beside %s.ini",
                           path, strerror(errno), info->id ? info->id : "ID",
                           info->id ? info->id : "ID");
    }
    if (S_ISLNK(st.st_mode)) {
        char *target = realpath(path, NULL);
        int outside = !target || !inside || !is_inside(target, inside);
        int rc = outside ? cas__refuse(info, "%s: a symbolic link to %s, outside the "
                                             "plugin folder %s; put the file itself "
                                             "in the folder",
                                       path, target ? target : "nowhere",
                                       inside ? inside : info->dir)
                         : CAS_OK;
        free(target);
        if (outside || stat(path, &st) != 0)
            return rc;
    }
    if (cas__untrusted(&st, path, why, sizeof why))
        return cas__refuse(info, "%s: %s", path, why);
    return CAS_OK;
}

/* How many folders deep a data folder may nest (data/1/.../8/file): every
 * file in it is checked, so a deeper one is refused rather than left
 * unchecked (docs/abi.md, "How the host loads a plugin"). */
#define DATA_MAX_DEPTH 8

/* Everything below the data folder, which is at most DATA_MAX_DEPTH
 * folders deep. */
static int check_data(struct cas__plugin_info *info, const char *folder, const char *inside,
                      int depth)
{
    DIR *d = opendir(folder);
    if (!d)
        return CAS_OK; /* absent, or a file: check_entry has judged it */
    int rc = CAS_OK;
    for (struct dirent *e; !rc && !info->refusal && (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char *path = concat3(folder, "/", e->d_name);
        struct stat st;
        if (!path) {
            rc = CAS_ENOMEM;
            break;
        }
        rc = check_entry(info, path, 1, inside);
        int folder_here = !rc && !info->refusal && lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
        if (folder_here && depth + 1 > DATA_MAX_DEPTH)
            rc = cas__refuse(info, "%s: a folder %d levels below the data folder, deeper "
                                   "than the %d castellan checks; keep the plugin's data "
                                   "at most %d folders deep",
                             path, depth + 1, DATA_MAX_DEPTH, DATA_MAX_DEPTH);
        else if (folder_here)
            rc = check_data(info, path, inside, depth + 1);
        free(path);
    }
    closedir(d);
    return rc;
}

/* The plugin-path folder holding the plugin: trusted like the plugin's own
 * files (or anyone could put plugins there), and every folder above it
 * owned by root or castellan's user and writable by no one else unless
 * sticky (or someone else could rename it away and put another in its
 * place). */
static int check_path_folder(struct cas__plugin_info *info, const char *path_folder)
{
    char why[4400];
    struct stat st;
    char *folder = realpath(path_folder, NULL);
    if (!folder)
        return CAS_OK; /* gone since the scan read it: nothing of it is loaded */
    int rc = CAS_OK;
    if (stat(folder, &st) == 0 && cas__untrusted(&st, path_folder, why, sizeof why))
        rc = cas__refuse(info, "%s: the plugin path folder is %s", path_folder, why);
    for (char *slash = strrchr(folder, '/'); !rc && !info->refusal && slash;
         slash = strrchr(folder, '/')) {
        *slash = '\0';
        const char *above = slash == folder ? "/" : folder;
        if (stat(above, &st) != 0)
            continue;
        if (st.st_uid != 0 && st.st_uid != geteuid())
            rc = cas__refuse(info, "%s: owned by user %u, neither root nor the user "
                                   "castellan runs as (%u), above the plugin path folder "
                                   "%s, so that user could put another folder in its "
                                   "place; move the plugins elsewhere",
                             above, (unsigned)st.st_uid, (unsigned)geteuid(), path_folder);
        else if ((st.st_mode & (S_IWOTH | S_IWGRP)) && !(st.st_mode & S_ISVTX))
            rc = cas__refuse(info, "%s: writable by %s (mode %04o) above the plugin path "
                                   "folder %s, so %s could put another folder in its "
                                   "place; run chmod go-w %s",
                             above, st.st_mode & S_IWOTH ? "everyone" : "its group",
                             (unsigned)(st.st_mode & 07777), path_folder,
                             st.st_mode & S_IWOTH ? "anyone" : "its group", above);
        if (slash == folder)
            break;
    }
    free(folder);
    return rc;
}

static int check_permissions(struct cas__plugin_info *info, const char *path_folder)
{
    char *inside = realpath(info->dir, NULL), *path_inside = realpath(path_folder, NULL);
    int rc = check_path_folder(info, path_folder);
    if (!rc) /* a plugin folder that is a link stays in its plugin path folder */
        rc = check_entry(info, info->dir, 1, path_inside);
    if (!rc)
        rc = check_entry(info, info->manifest_path, 1, inside);
    if (!rc)
        rc = check_entry(info, info->library_path, 1, inside);
    if (!rc)
        rc = check_entry(info, info->data_dir, 0, inside);
    if (!rc && !info->refusal)
        rc = check_data(info, info->data_dir, inside, 0);
    free(inside);
    free(path_inside);
    return rc;
}

static int add_plugin(struct cas__registry *reg, struct cas__plugin_info *info)
{
    struct cas__plugin_info **grown =
        realloc(reg->plugins, (reg->count + 1) * sizeof *grown);
    if (!grown)
        return CAS_ENOMEM;
    grown[reg->count++] = info;
    reg->plugins = grown;
    return CAS_OK;
}

/* The plugin folder `name` under `folder`: read it and add it. */
static int scan_plugin(struct cas__registry *reg, const char *folder, const char *name)
{
    struct cas__plugin_info *info = info_new(folder, name);
    if (!info)
        return CAS_ENOMEM;
    struct stat st;
    if (stat(info->manifest_path, &st) != 0 || !S_ISREG(st.st_mode)) {
        info_free(info); /* not a plugin folder */
        return CAS_OK;
    }
    const struct cas__plugin_info *first = cas__registry_find(reg, name);
    int rc = cas__manifest_read(info, name);
    if (!rc)
        rc = check_permissions(info, folder);
    if (!rc && first)
        rc = cas__refuse_instead(info, "%s: shadowed by %s, found earlier on the plugin "
                                       "path; remove one of them or reorder the path",
                                 info->manifest_path, first->manifest_path);
    if (!rc && !info->id)
        rc = (info->id = strdup(name)) ? CAS_OK : CAS_ENOMEM;
    if (!rc)
        rc = add_plugin(reg, info);
    if (rc)
        info_free(info);
    return rc;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every plugin folder of one path folder, in name order. */
static int scan_folder(struct cas__registry *reg, const char *path_folder)
{
    char *folder = absolute_folder(path_folder);
    if (!folder)
        return CAS_ENOMEM;
    struct cas__strlist names = {0};
    int rc = CAS_OK;
    DIR *d = opendir(folder);
    if (!d)
        goto free_folder; /* a missing folder on the path is not an error */
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (e->d_name[0] != '.' && (rc = cas__strlist_push(&names, e->d_name)))
            break;
    closedir(d);
    if (names.count)
        qsort(names.items, names.count, sizeof *names.items, compare_names);
    for (size_t i = 0; !rc && i < names.count; i++)
        rc = scan_plugin(reg, folder, names.items[i]);
    cas__strlist_free(&names);
free_folder:
    free(folder);
    return rc;
}

/* Expansions of a game nobody installed cannot be used. */
static int refuse_orphans(struct cas__registry *reg)
{
    for (size_t i = 0; i < reg->count; i++) {
        struct cas__plugin_info *info = reg->plugins[i];
        if (info->refusal || info->kind != CAS_KIND_EXPANSION)
            continue;
        const struct cas__plugin_info *game = cas__registry_find(reg, info->extends);
        if (game && game->kind == CAS_KIND_GAME)
            continue;
        const char *closest = cas__registry_closest(reg, info->extends, CAS_KIND_GAME);
        int rc = cas__refuse(info,
                             "%s: extends unknown game \"%s\"; install that game or fix "
                             "extends (%s%s)",
                             info->manifest_path, info->extends,
                             closest ? "closest game: "
                             : cas__registry_has_kind(reg, CAS_KIND_GAME)
                                 ? "castellan plugins lists the games"
                                 : "no game is installed",
                             closest ? closest : "");
        if (rc)
            return rc;
    }
    return CAS_OK;
}

int cas__registry_scan(const struct cas__strlist *path, struct cas__registry **out)
{
    struct cas__registry *reg = calloc(1, sizeof *reg);
    if (!reg)
        return CAS_ENOMEM;
    int rc = CAS_OK;
    for (size_t i = 0; !rc && i < path->count; i++)
        rc = scan_folder(reg, path->items[i]);
    if (!rc)
        rc = refuse_orphans(reg);
    if (rc) {
        cas__registry_free(reg);
        reg = NULL;
    }
    *out = reg;
    return rc;
}

void cas__registry_free(struct cas__registry *reg)
{
    if (!reg)
        return;
    for (size_t i = 0; i < reg->count; i++)
        info_free(reg->plugins[i]);
    free(reg->plugins);
    free(reg);
}

/* ------------------------------------------------------------- lookups */

size_t cas__registry_count(const struct cas__registry *reg)
{
    return reg->count;
}

struct cas__plugin_info *cas__registry_at(struct cas__registry *reg, size_t i)
{
    return i < reg->count ? reg->plugins[i] : NULL;
}

struct cas__plugin_info *cas__registry_find(struct cas__registry *reg, const char *id)
{
    for (size_t i = 0; i < reg->count; i++)
        if (reg->plugins[i]->id && strcmp(reg->plugins[i]->id, id) == 0)
            return reg->plugins[i];
    return NULL;
}

/* The id closest to `id` among plugins of `kind` (0: any) that extend
 * `extends` (NULL: any). */
static const char *closest_of(const struct cas__registry *reg, const char *id,
                              enum cas_plugin_kind kind, const char *extends)
{
    const char *best = NULL;
    size_t best_distance = (size_t)-1;
    for (size_t i = 0; i < reg->count; i++) {
        const struct cas__plugin_info *info = reg->plugins[i];
        if (!info->id || (kind && info->kind != kind) ||
            (extends && (!info->extends || strcmp(info->extends, extends) != 0)))
            continue;
        size_t d = cas__edit_distance(id, info->id);
        if (d < best_distance) {
            best = info->id;
            best_distance = d;
        }
    }
    return best && cas__is_near(id, best, best_distance) ? best : NULL;
}

int cas__registry_has_kind(const struct cas__registry *reg, enum cas_plugin_kind kind)
{
    for (size_t i = 0; i < reg->count; i++)
        if (reg->plugins[i]->kind == kind)
            return 1;
    return 0;
}

int cas__registry_has_expansion_of(const struct cas__registry *reg, const char *game_id)
{
    for (size_t i = 0; i < reg->count; i++)
        if (reg->plugins[i]->kind == CAS_KIND_EXPANSION && reg->plugins[i]->extends &&
            strcmp(reg->plugins[i]->extends, game_id) == 0)
            return 1;
    return 0;
}

const char *cas__registry_closest(const struct cas__registry *reg, const char *id,
                                  enum cas_plugin_kind kind)
{
    return closest_of(reg, id, kind, NULL);
}

const char *cas__registry_closest_expansion(const struct cas__registry *reg, const char *id,
                                            const char *game_id)
{
    return closest_of(reg, id, CAS_KIND_EXPANSION, game_id);
}
