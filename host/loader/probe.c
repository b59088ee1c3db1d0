/*
 * probe.c — loading a plugin from outside castellan's own folders without
 * running its code in castellan: a confined child (confine.h) opens the
 * library, runs its constructors and entry function and checks the
 * descriptor, then sends the descriptor's facts back as text; the host
 * rebuilds a descriptor of its own from them (strings copied, options
 * copied, a vtable whose functions say only which ones the plugin has)
 * and checks it again.  Its game only ever runs in a worker, which loads
 * the library again, confined the same way (host/worker).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <link.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "confine.h"
#include "loader.h"
#include "worker_spawn.h"

#define PROBE_DEADLINE_MS 5000
#define FACTS_MAX (1u << 20)
#define MAX_OPTIONS 4096

/* The vtable's functions, one bit each in the facts. */
#define VTABLE_FUNCTIONS(X)                                                               \
    X(game_new) X(game_free) X(state_new) X(state_free) X(state_clone) X(state_copy)      \
    X(current) X(legal_actions) X(chance_outcomes) X(apply) X(action_text)                \
    X(parse_action) X(returns) X(serialize) X(deserialize) X(hash) X(render)              \
    X(player_label) X(determinize) X(projected_returns) X(render_choices)                 \
    X(notation_help) X(chance_total) X(chance_pick) X(bench_floor) X(import_foreign)      \
    X(random_action) X(render_since)

enum {
#define BIT(f) BIT_##f,
    VTABLE_FUNCTIONS(BIT)
#undef BIT
};

struct cas__probed {
    struct cas_plugin desc;      /* first: a probed descriptor is found by address */
    struct cas_game_vtable vt;   /* its functions are never called (never_called) */
    struct cas_option_spec *options;
    char *strings;               /* every string of desc and options, one block */
    int library_fd;
    char *library_path;
    struct cas__probed *next;    /* the list of live probes */
    char **needs;                /* the shared objects loaded with it */
    size_t n_needs;
};

static struct cas__probed *live;

/* ------------------------------------------------------ the child's side */

/* A string field: "=" and the text, or "!" for NULL.  The text must hold
 * no tab or newline (the host refuses the facts otherwise). */
static void put_text(struct cas__buf *f, const char *text)
{
    if (!text)
        cas__buf_addf(f, "\t!");
    else if (strlen(text) > 4000)
        f->failed = CAS_ENOSPC;
    else
        cas__buf_addf(f, "\t=%s", text);
}

static void describe(struct cas__buf *f, const struct cas_plugin *d)
{
    cas__buf_addf(f, "abi\t%u\t%u\t%" PRIu32 "\t%zu\n", d->abi_major, d->abi_minor, d->fingerprint,
        d->struct_size);
    cas__buf_addf(f, "plugin\t%d\t%d\t%d\t%d", (int)d->kind, d->min_players, d->max_players,
        d->extension != NULL);
    put_text(f, d->id);
    put_text(f, d->version);
    put_text(f, d->extends);
    cas__buf_addf(f, "\n");
    if (d->game) {
        const struct cas_game_vtable *vt = d->game;
        uint64_t mask = 0;
#define HAS(field)                                                                         \
    if (CAS_HAS_FIELD(vt, struct cas_game_vtable, field) && vt->field)                     \
        mask |= 1ull << BIT_##field;
        VTABLE_FUNCTIONS(HAS)
#undef HAS
        cas__buf_addf(f, "vtable\t%zu\t%" PRIu64 "\t%" PRIu32 "\n", vt->struct_size, mask,
            vt->state_encoding);
    }
    for (size_t i = 0; i < d->n_options && i < MAX_OPTIONS; i++) {
        const struct cas_option_spec *o = &d->options[i];
        cas__buf_addf(f, "option\t%zu\t%d\t%" PRId64 "\t%" PRId64, o->struct_size, (int)o->type, o->min,
            o->max);
        put_text(f, o->name);
        put_text(f, o->default_value);
        put_text(f, o->choices);
        put_text(f, o->help);
        cas__buf_addf(f, "\n");
    }
}

/* Every shared object loaded with the plugin's library (its dependencies,
 * and what castellan had loaded already), by the path the dynamic loader
 * found it at. */
static void list_objects(struct cas__buf *f, void *dl)
{
    struct link_map *map = NULL;
    if (dlinfo(dl, RTLD_DI_LINKMAP, &map) != 0 || !map)
        return;
    while (map->l_prev)
        map = map->l_prev;
    for (; map; map = map->l_next)
        if (map->l_name && map->l_name[0] == '/' && strncmp(map->l_name, "/proc/", 6) != 0) {
            cas__buf_addf(f, "needs");
            put_text(f, map->l_name);
            cas__buf_addf(f, "\n");
        }
}

int cas__probe_serve(int sock, const uint8_t *setup, size_t len, const int *fds, size_t n_fds)
{
    struct cas__setup_reader r = {.p = setup, .left = len};
    struct cas__plugin_info info;
    cas__setup_get_library(&r, &info);
    if (r.bad || r.left || n_fds != 1)
        return 3;
    int lib_fd = fds[0], keep[] = {sock, lib_fd};
    struct cas__confine_limits limits = {0};
    if (cas__confine_child(keep, 2, &sock, 1, &limits) != 0)
        return 5;
    void *dl = NULL;
    const struct cas_plugin *desc = NULL;
    struct cas__buf f = {.max = FACTS_MAX - 1};
    if (cas__load_descriptor(&info, lib_fd, &dl, &desc) == CAS_OK) {
        cas__buf_addf(&f, "ok\n");
        describe(&f, desc);
        list_objects(&f, dl);
    }
    if (f.failed || !f.data) {
        cas__buf_reset(&f);
        cas__buf_addf(&f, "refused\t%s\n", info.refusal ? info.refusal : "its descriptor is too large");
    }
    uint32_t n = (uint32_t)f.len;
    cas__confine_write_all(sock, (const char *)&n, sizeof n);
    cas__confine_write_all(sock, f.data, f.len);
    cas__buf_free(&f);
    return 0;
}

/* ------------------------------------------------------- the host's side */

static long long now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* n bytes from fd before the deadline; 0, or -1. */
static int read_exactly(int fd, char *buf, size_t n, long long deadline)
{
    while (n) {
        long long left = deadline - now_ms();
        struct pollfd p = {.fd = fd, .events = POLLIN};
        if (left <= 0)
            return -1;
        int r = poll(&p, 1, (int)left);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        ssize_t got = read(fd, buf, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return -1;
        buf += got;
        n -= (size_t)got;
    }
    return 0;
}

/* The child's answer, or NULL when it sent none in time; the child is
 * reaped (killed first when it hangs) and *status says how it ended. */
static char *answer_of(pid_t pid, int fd, int *status)
{
    long long deadline = now_ms() + PROBE_DEADLINE_MS;
    uint32_t len = 0;
    char *text = NULL;
    if (read_exactly(fd, (char *)&len, sizeof len, deadline) == 0 && len < FACTS_MAX &&
        (text = malloc((size_t)len + 1)) != NULL) {
        if (read_exactly(fd, text, len, deadline) == 0)
            text[len] = '\0';
        else {
            free(text);
            text = NULL;
        }
    }
    if (!text)
        kill(pid, SIGKILL);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR)
        ;
    return text;
}

/* Why a probe that sent nothing failed, in words. */
static void refuse_silent(struct cas__plugin_info *info, int status)
{
    const char *so = info->library_path;
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
        cas__refuse(info, "%s: loading it did not finish within %d ms (its constructors or "
                          "entry function hang); the plugin is broken", so, PROBE_DEADLINE_MS);
    else if (WIFSIGNALED(status) && WTERMSIG(status) == SIGSYS)
        cas__refuse(info, "%s: loading it made a forbidden system call (signal 31: its "
                          "constructors or entry function tried to write, fork or connect); "
                          "the plugin is not allowed to", so);
    else if (WIFSIGNALED(status))
        cas__refuse(info, "%s: loading it crashed (signal %d, in its constructors or entry "
                          "function); the plugin is broken", so, WTERMSIG(status));
    else
        cas__refuse(info, "%s: loading it in a sandbox failed (status %d); the plugin "
                          "exited while loading, or this system cannot confine it", so,
                    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* ---- parsing the facts: untrusted text */

struct cursor {
    char *line;  /* the current line, NUL-terminated at its end */
    char *next;  /* the rest */
};

static int next_line(struct cursor *c)
{
    if (!c->next || !*c->next)
        return 0;
    c->line = c->next;
    char *nl = strchr(c->line, '\n');
    if (!nl)
        return 0;
    *nl = '\0';
    c->next = nl + 1;
    return 1;
}

/* Split line at tabs into at most cap fields; how many. */
static size_t fields(char *line, char **out, size_t cap)
{
    size_t n = 0;
    while (n < cap) {
        out[n++] = line;
        char *tab = strchr(line, '\t');
        if (!tab)
            break;
        *tab = '\0';
        line = tab + 1;
    }
    return strchr(line, '\t') ? cap + 1 : n;
}

static int number(const char *text, long long min, long long max, long long *out)
{
    char *end;
    errno = 0;
    long long n = strtoll(text, &end, 10);
    if (!*text || *end || errno || n < min || n > max)
        return 0;
    *out = n;
    return 1;
}

static int unsigned_number(const char *text, unsigned long long *out)
{
    char *end;
    errno = 0;
    unsigned long long n = strtoull(text, &end, 10);
    if (!*text || *text == '-' || *end || errno)
        return 0;
    *out = n;
    return 1;
}

/* A string field into *out (a copy, or NULL); 0 when malformed. */
static int text_field(const char *field, char **out)
{
    *out = NULL;
    if (strcmp(field, "!") == 0)
        return 1;
    if (field[0] != '=')
        return 0;
    return (*out = strdup(field + 1)) != NULL;
}

static void never_called(void)
{
    abort(); /* a probed plugin's code runs only in its worker */
}

static void fake_vtable(struct cas__probed *p, size_t size, uint64_t mask, uint32_t encoding)
{
    void (*stub)(void) = never_called;
    memset(&p->vt, 0, sizeof p->vt);
    p->vt.struct_size = size < sizeof p->vt ? size : sizeof p->vt;
    p->vt.state_encoding = encoding;
    /* import_foreign and render_since are not proxied: a probed plugin
     * imports nothing, and its worker's games draw whole pictures. */
    mask &= ~(1ull << BIT_import_foreign | 1ull << BIT_render_since);
#define SET(field)                                                                         \
    if (mask & (1ull << BIT_##field))                                                      \
        memcpy(&p->vt.field, &stub, sizeof stub);
    VTABLE_FUNCTIONS(SET)
#undef SET
}

static void probed_free(struct cas__probed *p)
{
    if (!p)
        return;
    for (struct cas__probed **at = &live; *at; at = &(*at)->next)
        if (*at == p) {
            *at = p->next;
            break;
        }
    free((char *)p->desc.id);
    free((char *)p->desc.version);
    free((char *)p->desc.extends);
    for (size_t i = 0; p->options && i < p->desc.n_options; i++) {
        free((char *)p->options[i].name);
        free((char *)p->options[i].default_value);
        free((char *)p->options[i].choices);
        free((char *)p->options[i].help);
    }
    free(p->options);
    free(p->library_path);
    for (size_t i = 0; i < p->n_needs; i++)
        free(p->needs[i]);
    free(p->needs);
    free(p);
}

static int parse_option(struct cas__probed *p, char **f, size_t n)
{
    long long size, type, min, max;
    struct cas_option_spec *o = &p->options[p->desc.n_options];
    if (n != 9 || !number(f[1], 0, 4096, &size) || !number(f[2], 0, 100, &type) ||
        !number(f[3], INT64_MIN, INT64_MAX, &min) || !number(f[4], INT64_MIN, INT64_MAX, &max))
        return 0;
    *o = (struct cas_option_spec){.struct_size = (size_t)size,
                                  .type = (enum cas_option_type)type, .min = min, .max = max};
    p->desc.n_options++;
    char *name, *def, *choices, *help;
    int ok = text_field(f[5], &name) & text_field(f[6], &def) & text_field(f[7], &choices) &
             text_field(f[8], &help);
    o->name = name;
    o->default_value = def;
    o->choices = choices;
    o->help = help;
    return ok;
}

/* The facts into a new probe; NULL when malformed or out of memory. */
static struct cas__probed *parse_facts(char *text)
{
    struct cas__probed *p = calloc(1, sizeof *p);
    struct cursor c = {.next = text};
    char *f[12];
    long long a, b, kind, lo, hi, ext;
    unsigned long long fp, size, mask, enc;
    if (!p || !(p->options = calloc(MAX_OPTIONS, sizeof *p->options)) || !next_line(&c) ||
        strcmp(c.line, "ok") != 0 || !next_line(&c) || fields(c.line, f, 12) != 5 ||
        strcmp(f[0], "abi") || !number(f[1], 0, 65535, &a) || !number(f[2], 0, 65535, &b) ||
        !unsigned_number(f[3], &fp) || fp > UINT32_MAX || !unsigned_number(f[4], &size))
        goto malformed;
    p->desc.abi_major = (uint16_t)a;
    p->desc.abi_minor = (uint16_t)b;
    p->desc.fingerprint = (uint32_t)fp;
    p->desc.struct_size = size < sizeof p->desc ? (size_t)size : sizeof p->desc;
    char *id, *version, *extends;
    if (!next_line(&c) || fields(c.line, f, 12) != 8 || strcmp(f[0], "plugin") ||
        !number(f[1], 0, 100, &kind) || !number(f[2], INT32_MIN, INT32_MAX, &lo) ||
        !number(f[3], INT32_MIN, INT32_MAX, &hi) || !number(f[4], 0, 1, &ext))
        goto malformed;
    int ok = text_field(f[5], &id) & text_field(f[6], &version) & text_field(f[7], &extends);
    p->desc.id = id;
    p->desc.version = version;
    p->desc.extends = extends;
    p->desc.kind = (enum cas_plugin_kind)kind;
    p->desc.min_players = (int)lo;
    p->desc.max_players = (int)hi;
    p->desc.extension = ext ? (const void *)p : NULL;
    if (!ok)
        goto malformed;
    while (next_line(&c)) {
        size_t n = fields(c.line, f, 12);
        if (strcmp(f[0], "vtable") == 0 && n == 4 && !p->desc.game &&
            unsigned_number(f[1], &size) && unsigned_number(f[2], &mask) &&
            unsigned_number(f[3], &enc) && enc <= UINT32_MAX) {
            fake_vtable(p, (size_t)size, mask, (uint32_t)enc);
            p->desc.game = &p->vt;
        } else if (strcmp(f[0], "needs") == 0 && n == 2) {
            char **grown = realloc(p->needs, (p->n_needs + 1) * sizeof *grown);
            if (!grown)
                goto malformed;
            p->needs = grown;
            if (!text_field(f[1], &p->needs[p->n_needs]) || !p->needs[p->n_needs])
                goto malformed;
            p->n_needs++;
        } else if (strcmp(f[0], "option") != 0 || p->desc.n_options == MAX_OPTIONS ||
                   !parse_option(p, f, n)) {
            goto malformed;
        }
    }
    if (c.next && *c.next)
        goto malformed;
    p->desc.options = p->desc.n_options ? p->options : NULL;
    return p;

malformed:
    probed_free(p);
    return NULL;
}

/* Whether castellan itself has the shared object at path loaded. */
static int found_loaded(struct dl_phdr_info *object, size_t size, void *path)
{
    (void)size;
    return object->dlpi_name && strcmp(object->dlpi_name, (const char *)path) == 0;
}

/* A library the plugin needs is trusted as the plugin's own files are,
 * and so is every folder above it (issue 32, D8): otherwise whoever may
 * write it could run code in the plugin's place. */
static int check_dependency(struct cas__plugin_info *info, const char *path)
{
    char why[4400];
    struct stat st;
    if (dl_iterate_phdr(found_loaded, (void *)path))
        return CAS_OK; /* castellan's own: trusted as castellan is */
    char *real = realpath(path, NULL);
    if (!real || stat(real, &st) != 0) {
        free(real);
        return cas__refuse(info, "%s: needs %s, which cannot be found again; reinstall it",
                           info->library_path, path) ? CAS_ENOMEM : CAS_EMISMATCH;
    }
    int rc = CAS_OK;
    if (cas__untrusted(&st, real, why, sizeof why))
        rc = cas__refuse(info, "%s: needs the library %s, %s", info->library_path, real, why);
    for (char *slash = strrchr(real, '/'); !rc && slash && slash != real;
         slash = strrchr(real, '/')) {
        *slash = '\0';
        if (stat(real, &st) == 0 && ((st.st_uid != 0 && st.st_uid != geteuid()) ||
                                     ((st.st_mode & (S_IWGRP | S_IWOTH)) &&
                                      !(st.st_mode & S_ISVTX))))
            rc = cas__refuse(info, "%s: needs a library in %s, which %s (mode %04o, user "
                                   "%u) could replace; install the library in a folder "
                                   "only root or you may write",
                             info->library_path, real,
                             st.st_mode & S_IWOTH ? "everyone" : "another user or group",
                             (unsigned)(st.st_mode & 07777), (unsigned)st.st_uid);
    }
    free(real);
    return rc ? rc : info->refusal ? CAS_EMISMATCH : CAS_OK;
}

int cas__probe(struct cas__plugin_info *info, int lib_fd)
{
    int sock, status = 0;
    pid_t pid;
    char why[600];
    struct cas__setup setup = {0};
    struct cas_plugin facts = {
        .id = info->id, .version = info->version, .kind = info->kind,
        .extends = info->extends, .min_players = info->min_players,
        .max_players = info->max_players, .abi_major = (uint16_t)info->abi_major,
        .abi_minor = (uint16_t)info->abi_minor,
    };
    cas__setup_library(&setup, &facts, info->library_path, info->manifest_path);
    int rc = cas__spawn(CAS__SPAWN_PROBE, &setup, &lib_fd, 1, &pid, &sock, why, sizeof why);
    cas__setup_free(&setup);
    if (rc != 0)
        return cas__refuse(info, "%s: cannot be loaded in a sandbox: %s", info->library_path,
                           why) ? CAS_ENOMEM : CAS_EIO;
    char *text = answer_of(pid, sock, &status);
    close(sock);
    if (!text) {
        refuse_silent(info, status);
        return CAS_EMISMATCH;
    }
    if (strncmp(text, "refused\t", 8) == 0) {
        size_t len = strcspn(text + 8, "\n");
        cas__refuse(info, "%.*s", (int)len, text + 8);
        free(text);
        return CAS_EMISMATCH;
    }
    struct cas__probed *p = parse_facts(text);
    free(text);
    if (!p) {
        cas__refuse(info, "%s: its descriptor, read in a sandbox, is malformed (a text with "
                          "a tab or newline, or too large); fix the descriptor",
                    info->library_path);
        return CAS_EMISMATCH;
    }
    rc = cas__check_descriptor(info, &p->desc); /* again, on the host's copy */
    for (size_t i = 0; rc == CAS_OK && i < p->n_needs; i++)
        rc = check_dependency(info, p->needs[i]);
    if (rc == CAS_OK && !(p->library_path = strdup(info->library_path)))
        rc = CAS_ENOMEM;
    if (rc != CAS_OK) {
        probed_free(p);
        return rc;
    }
    p->library_fd = lib_fd;
    p->next = live;
    live = p;
    info->desc = &p->desc;
    info->probed = p;
    return CAS_OK;
}

void cas__probe_free(struct cas__probed *p)
{
    probed_free(p);
}

const struct cas__probed *cas__probed_of(const void *desc_or_extension)
{
    for (const struct cas__probed *p = live; p; p = p->next)
        if ((const void *)p == desc_or_extension || (const void *)&p->desc == desc_or_extension)
            return p;
    return NULL;
}

int cas__probed_fd(const struct cas__probed *p)
{
    return p->library_fd;
}

const struct cas_plugin *cas__probed_desc(const struct cas__probed *p)
{
    return &p->desc;
}

const char *cas__probed_path(const struct cas__probed *p)
{
    return p->library_path;
}
