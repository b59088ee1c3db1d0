/*
 * load.c — dlopen()ing one plugin and checking its descriptor against the
 * host ABI and against the manifest the scan already read.  A plugin that
 * fails any check is closed again and keeps a one-line refusal naming the
 * file, both values where they differ, and the fix.  The library is opened
 * by a file descriptor it was checked through.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loader.h"
#include "worker_spawn.h"
#include "text.h"

/* What a descriptor must hold to be a 1.0 descriptor at all. */
#define DESCRIPTOR_1_0_SIZE \
    (offsetof(struct cas_plugin, extension) + sizeof(const void *))
#define VTABLE_1_0_SIZE \
    (offsetof(struct cas_game_vtable, player_label) + sizeof(void (*)(void)))
#define OPTION_1_0_SIZE \
    (offsetof(struct cas_option_spec, help) + sizeof(const char *))

static const char *kind_name(enum cas_plugin_kind kind)
{
    return kind == CAS_KIND_GAME ? "game" : kind == CAS_KIND_EXPANSION ? "expansion"
                                                                       : "unknown";
}

static int same_text(const char *a, const char *b)
{
    return a && b && strcmp(a, b) == 0;
}

/* ABI version and build fingerprint, before any other field is trusted. */
static int check_abi(struct cas__plugin_info *info, const struct cas_plugin *d)
{
    const char *so = info->library_path;
    if (d->abi_major != CAS_ABI_MAJOR)
        return cas__refuse(info,
                           "%s: plugin ABI %u.%u has another major version than the "
                           "host's %d.%d; rebuild the plugin against this castellan's "
                           "plugin.h (ABI %d.x)",
                           so, d->abi_major, d->abi_minor, CAS_ABI_MAJOR, CAS_ABI_MINOR,
                           CAS_ABI_MAJOR);
    if (d->abi_minor > CAS_ABI_MINOR)
        return cas__refuse(info,
                           "%s: plugin ABI %u.%u is newer than the host's %d.%d; "
                           "upgrade castellan, or rebuild the plugin against ABI %d.%d",
                           so, d->abi_major, d->abi_minor, CAS_ABI_MAJOR, CAS_ABI_MINOR,
                           CAS_ABI_MAJOR, CAS_ABI_MINOR);
    if (d->fingerprint != CAS_BUILD_FINGERPRINT)
        return cas__refuse(info,
                           "%s: build fingerprint 0x%08x differs from the host's 0x%08x "
                           "(sizes of pointer, long, size_t and byte order); rebuild the "
                           "plugin for this platform",
                           so, (unsigned)d->fingerprint, (unsigned)CAS_BUILD_FINGERPRINT);
    if (d->struct_size < DESCRIPTOR_1_0_SIZE)
        return cas__refuse(info,
                           "%s: descriptor struct_size %zu is smaller than ABI 1.0's %zu; "
                           "rebuild the plugin against this castellan's plugin.h",
                           so, d->struct_size, (size_t)DESCRIPTOR_1_0_SIZE);
    return CAS_OK;
}

/* The descriptor says what the manifest said. */
static int check_against_manifest(struct cas__plugin_info *info, const struct cas_plugin *d)
{
    const char *so = info->library_path, *ini = info->manifest_path;
    const char *fix = "make the descriptor and the manifest agree, and rebuild";
    if (!same_text(d->id, info->id))
        return cas__refuse(info, "%s: descriptor id \"%s\" differs from id \"%s\" in %s; %s",
                           so, d->id ? d->id : "(null)", info->id, ini, fix);
    if (!same_text(d->version, info->version))
        return cas__refuse(info,
                           "%s: descriptor version %s differs from version %s in %s; %s", so,
                           d->version ? d->version : "(null)", info->version, ini, fix);
    if (d->kind != info->kind)
        return cas__refuse(info, "%s: descriptor kind %s differs from kind %s in %s; %s", so,
                           kind_name(d->kind), kind_name(info->kind), ini, fix);
    if (d->abi_major != info->abi_major || d->abi_minor != info->abi_minor)
        return cas__refuse(info,
                           "%s: descriptor ABI %u.%u differs from abi %u.%u in %s; %s", so,
                           d->abi_major, d->abi_minor, info->abi_major, info->abi_minor,
                           ini, fix);
    if (info->kind == CAS_KIND_EXPANSION && !same_text(d->extends, info->extends))
        return cas__refuse(info,
                           "%s: descriptor extends \"%s\" differs from extends \"%s\" in "
                           "%s; %s",
                           so, d->extends ? d->extends : "(null)", info->extends, ini, fix);
    if (d->min_players != info->min_players || d->max_players != info->max_players)
        return cas__refuse(info,
                           "%s: descriptor players %d..%d differ from min_players %d, "
                           "max_players %d in %s; %s",
                           so, d->min_players, d->max_players, info->min_players,
                           info->max_players, ini, fix);
    return CAS_OK;
}

/* Games carry a complete 1.0 vtable; expansions none. */
static int check_vtable(struct cas__plugin_info *info, const struct cas_plugin *d)
{
    const struct cas_game_vtable *vt = d->game;
    const char *so = info->library_path;
    if (info->kind == CAS_KIND_EXPANSION)
        return vt ? cas__refuse(info, "%s: an expansion's descriptor has a game vtable; "
                                      "set game = NULL",
                                so)
                  : CAS_OK;
    if (!vt || vt->struct_size < VTABLE_1_0_SIZE)
        return cas__refuse(info,
                           "%s: game vtable %s (ABI 1.0 needs struct_size >= %zu); fill "
                           "in struct cas_game_vtable and set its struct_size",
                           so, vt ? "too small" : "missing", (size_t)VTABLE_1_0_SIZE);
#define REQUIRE(fn)                                                                      \
    if (!vt->fn)                                                                         \
        return cas__refuse(info, "%s: game vtable lacks " #fn "; implement it", so);
    REQUIRE(game_new) REQUIRE(game_free) REQUIRE(state_new) REQUIRE(state_free)
    REQUIRE(state_clone) REQUIRE(state_copy) REQUIRE(current) REQUIRE(legal_actions)
    REQUIRE(chance_outcomes) REQUIRE(apply) REQUIRE(action_text) REQUIRE(parse_action)
    REQUIRE(returns) REQUIRE(serialize) REQUIRE(deserialize) REQUIRE(hash)
    REQUIRE(render) REQUIRE(player_label)
#undef REQUIRE
    return CAS_OK;
}

/* A declared option's default must itself be valid: the host fills it in. */
static const char *default_problem(const struct cas_option_spec *o)
{
    const char *v = o->default_value;
    if (!v)
        return "has no default_value";
    switch (o->type) {
    case CAS_OPTION_BOOL:
        return strcmp(v, "on") == 0 || strcmp(v, "off") == 0 ? NULL
                                                              : "default is not on/off";
    case CAS_OPTION_INT: {
        char *end;
        long long n = strtoll(v, &end, 10);
        if (*v == '\0' || *end != '\0' || o->min > o->max || n < o->min || n > o->max)
            return "default is not an integer within [min, max]";
        return NULL;
    }
    case CAS_OPTION_CHOICE: {
        size_t len = strlen(v);
        for (const char *p = o->choices; p && *p;) {
            size_t word = strcspn(p, "|");
            if (word == len && strncmp(p, v, len) == 0)
                return NULL;
            p += word + (p[word] == '|');
        }
        return "default is not one of its choices";
    }
    case CAS_OPTION_TEXT:
        return NULL;
    }
    return "has an unknown type";
}

static int check_options(struct cas__plugin_info *info, const struct cas_plugin *d)
{
    if (d->n_options && !d->options)
        return cas__refuse(info, "%s: n_options is %zu but options is NULL; fix the "
                                 "descriptor",
                           info->library_path, d->n_options);
    for (size_t i = 0; i < d->n_options; i++) {
        const struct cas_option_spec *o = &d->options[i];
        const char *problem = NULL;
        if (o->struct_size < OPTION_1_0_SIZE)
            problem = "struct_size is smaller than ABI 1.0's";
        else if (!o->name || !cas__is_plugin_id(o->name))
            problem = "name is not [a-z][a-z0-9-]*";
        else
            problem = default_problem(o);
        if (problem)
            return cas__refuse(info, "%s: option %zu (%s) %s; fix its cas_option_spec",
                               info->library_path, i,
                               o->struct_size >= OPTION_1_0_SIZE && o->name ? o->name : "?",
                               problem);
    }
    return CAS_OK;
}

int cas__check_descriptor(struct cas__plugin_info *info, const struct cas_plugin *d)
{
    int rc = check_abi(info, d);
    if (!rc && !info->refusal)
        rc = check_against_manifest(info, d);
    if (!rc && !info->refusal)
        rc = check_vtable(info, d);
    if (!rc && !info->refusal)
        rc = check_options(info, d);
    if (rc)
        return rc;
    return info->refusal ? CAS_EMISMATCH : CAS_OK;
}

/* The library files opened so far, by identity, each with a descriptor
 * kept open for the life of the process: a library is loaded as
 * /proc/PID/fd/N, glibc knows loaded libraries by that name (and, once
 * opened, by device and inode), so N must never come to mean another file
 * while some registry may still have it loaded. */
#define MAX_LIBRARY_FILES 512
static struct library_file {
    dev_t dev;
    ino_t ino;
    int fd;
} library_files[MAX_LIBRARY_FILES];
static size_t n_library_files;

/* The kept descriptor for the file open on fd (which it then closes), or
 * fd itself, kept from now on; -1 when there is no room. */
static int kept_descriptor(int fd, const struct stat *st)
{
    for (size_t i = 0; i < n_library_files; i++)
        if (library_files[i].dev == st->st_dev && library_files[i].ino == st->st_ino) {
            close(fd);
            return library_files[i].fd;
        }
    if (n_library_files == MAX_LIBRARY_FILES)
        return -1;
    library_files[n_library_files++] = (struct library_file){st->st_dev, st->st_ino, fd};
    return fd;
}

/* The library's descriptor, checked again: a regular file (opened without
 * waiting, so a FIFO cannot hang the loader), trusted, kept open for the
 * life of the process; -1 with a refusal. */
int cas__library_fd(struct cas__plugin_info *info)
{
    char why[4400];
    struct stat st;
    /* O_NONBLOCK: a FIFO in the library's place must not hang the loader
     * (it is refused as not a regular file below). */
    int fd = open(info->library_path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (fd < 0) {
        cas__refuse(info, "%s: cannot be opened: %s", info->library_path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        cas__refuse(info, "%s: not a regular file; build or install the plugin's library "
                          "there", info->library_path);
    } else if (cas__untrusted(&st, info->library_path, why, sizeof why)) {
        cas__refuse(info, "%s: %s", info->library_path, why);
    } else if ((fd = kept_descriptor(fd, &st)) < 0) {
        cas__refuse(info, "%s: more than %d plugin libraries in one process",
                    info->library_path, MAX_LIBRARY_FILES);
        return -1;
    } else {
        return fd;
    }
    close(fd);
    return -1;
}

int cas__load_descriptor(struct cas__plugin_info *info, int fd, void **dl_out,
                         const struct cas_plugin **desc_out)
{
    /* by pid, not "self": a sanitizer's symbolizer, another process, opens
     * the library by the name the loader gave it */
    char by_fd[64];
    snprintf(by_fd, sizeof by_fd, "/proc/%ld/fd/%d", (long)getpid(), fd);
    if (access(by_fd, F_OK) != 0) {
        cas__refuse(info, "%s: cannot be loaded by its descriptor (%s: %s); mount /proc",
                    info->library_path, by_fd, strerror(errno));
        return CAS_EMISMATCH;
    }
    void *dl = dlopen(by_fd, RTLD_NOW | RTLD_LOCAL);
    if (!dl) {
        const char *why = dlerror(), *named = "";
        size_t len = strlen(by_fd);
        if (why && len && strncmp(why, by_fd, len) == 0 && strncmp(why + len, ": ", 2) == 0) {
            why += len + 2; /* dlerror names the descriptor: name the file */
            named = info->library_path;
        }
        int rc = cas__refuse(info, "%s: cannot be loaded (%s%s%s); rebuild the plugin "
                                   "for this host",
                             info->library_path, named, *named ? ": " : "",
                             why ? why : "unknown dlopen error");
        return rc ? rc : CAS_EIO;
    }
    int rc = CAS_OK;
    /* POSIX dlsym returns void *; converting it to a function pointer is
     * what dlsym is for. */
    void *sym = dlsym(dl, CAS_PLUGIN_ENTRY_SYMBOL);
    if (!sym) {
        rc = cas__refuse(info,
                         "%s: no entry symbol %s; export it: CAS_EXPORT const struct "
                         "cas_plugin *%s(void)",
                         info->library_path, CAS_PLUGIN_ENTRY_SYMBOL,
                         CAS_PLUGIN_ENTRY_SYMBOL);
        goto close_library;
    }
    cas_plugin_entry_fn entry;
    memcpy(&entry, &sym, sizeof entry);
    const struct cas_plugin *desc = entry();
    if (!desc) {
        rc = cas__refuse(info, "%s: %s returned NULL; return the plugin's descriptor",
                         info->library_path, CAS_PLUGIN_ENTRY_SYMBOL);
        goto close_library;
    }
    rc = cas__check_descriptor(info, desc);
    if (rc)
        goto close_library;
    *dl_out = dl;
    *desc_out = desc;
    return CAS_OK;

close_library:
    dlclose(dl);
    return rc ? rc : CAS_EMISMATCH;
}

/* The libraries loaded into castellan, by descriptor: a worker is told
 * which file to load (cas__library_of).  Grown as plugins load; an entry
 * goes when its registry closes the library. */
static struct loaded_library {
    const struct cas_plugin *desc;
    int fd;
    char *path;
} *loaded;
static size_t n_loaded, cap_loaded;

/* The server opens games on several threads at once, each resolving its
 * plugins in the one registry: loading a library, the list above and the
 * registry's own choice of where foreign plugins load (a command's flag;
 * a session's choice is its load's parameter) are held by this lock. */
static pthread_mutex_t library_lock = PTHREAD_MUTEX_INITIALIZER;

void cas__library_lock(void)
{
    pthread_mutex_lock(&library_lock);
}

void cas__library_unlock(void)
{
    pthread_mutex_unlock(&library_lock);
}

static int remember_library(const struct cas_plugin *desc, int fd, const char *path)
{
    if (n_loaded == cap_loaded) {
        size_t cap = cap_loaded ? 2 * cap_loaded : 16;
        struct loaded_library *grown = realloc(loaded, cap * sizeof *grown);
        if (!grown)
            return CAS_ENOMEM;
        loaded = grown;
        cap_loaded = cap;
    }
    char *copy = strdup(path);
    if (!copy)
        return CAS_ENOMEM;
    loaded[n_loaded++] = (struct loaded_library){desc, fd, copy};
    return CAS_OK;
}

void cas__library_forget(const struct cas_plugin *desc)
{
    pthread_mutex_lock(&library_lock);
    for (size_t i = 0; i < n_loaded; i++)
        if (loaded[i].desc == desc) {
            free(loaded[i].path);
            loaded[i] = loaded[--n_loaded];
            break;
        }
    if (n_loaded == 0) {
        free(loaded);
        loaded = NULL;
        cap_loaded = 0;
    }
    pthread_mutex_unlock(&library_lock);
}

int cas__library_of(const void *desc_or_extension, const struct cas_plugin **desc, int *fd,
                    const char **path)
{
    const struct cas__probed *p = cas__probed_of(desc_or_extension);
    if (p) {
        *desc = cas__probed_desc(p);
        *fd = cas__probed_fd(p);
        *path = cas__probed_path(p);
        return CAS_OK;
    }
    int rc = CAS_ENOTFOUND;
    pthread_mutex_lock(&library_lock);
    for (size_t i = n_loaded; i-- > 0;)
        if (desc_or_extension && (loaded[i].desc == desc_or_extension ||
                                  loaded[i].desc->extension == desc_or_extension)) {
            *desc = loaded[i].desc;
            *fd = loaded[i].fd;
            *path = loaded[i].path;
            rc = CAS_OK;
            break;
        }
    pthread_mutex_unlock(&library_lock);
    return rc;
}

/* Load info's library into castellan, remembered for its workers. */
static int load_here(struct cas__plugin_info *info, int fd)
{
    int rc = cas__load_descriptor(info, fd, &info->dl, &info->desc);
    if (rc == CAS_OK && remember_library(info->desc, fd, info->library_path) != CAS_OK) {
        dlclose(info->dl);
        info->dl = NULL;
        info->desc = NULL;
        rc = CAS_ENOMEM;
    }
    return rc;
}

static int load_locked(struct cas__registry *reg, struct cas__plugin_info *info,
                       enum cas__foreign where)
{
    if (info->dl || info->desc)
        return CAS_OK;
    if (info->refusal)
        return CAS_EMISMATCH;
    int fd = cas__library_fd(info);
    if (fd < 0)
        return CAS_EMISMATCH;
    if (cas__plugin_is_bundled(info))
        return load_here(info, fd);
    /* From elsewhere: loaded in a confined child first, so its constructors
     * and its libraries' run there and its libraries are checked, whether
     * it is then loaded here (--in-process) or not. */
    int rc = cas__probe(info, fd);
    if (rc != CAS_OK || cas__registry_probes(reg, info, where))
        return rc;
    cas__probe_free(info->probed);
    info->probed = NULL;
    info->desc = NULL;
    return load_here(info, fd);
}

int cas__registry_load_as(struct cas__registry *reg, struct cas__plugin_info *info,
                          enum cas__foreign where)
{
    pthread_mutex_lock(&library_lock);
    int rc = load_locked(reg, info, where);
    pthread_mutex_unlock(&library_lock);
    return rc;
}

int cas__registry_load(struct cas__registry *reg, struct cas__plugin_info *info)
{
    return cas__registry_load_as(reg, info, CAS__FOREIGN_AS_TOLD);
}
