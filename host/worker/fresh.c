/*
 * fresh.c — what castellan tells a fresh worker (worker_spawn.h) about a game
 * (its libraries, data folder, options, expansions and limits), and the
 * worker's side: read the setup, confine itself, load the libraries by
 * the descriptors castellan checked, then live as a probe, a game worker
 * or a check.  Nothing of castellan's memory is here: the worker knows
 * what the setup says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "confine.h"
#include "loader.h"
#include "worker.h"

/* ------------------------------------------------------- castellan's side */

/* An expansion whose descriptor has no `extension`: nothing to load. */
#define NO_LIBRARY (-1)

/* The libraries of a setup: each once, by its descriptor. */
struct libraries {
    const struct cas_plugin *desc[CAS__SPAWN_MAX_FDS];
    const char *path[CAS__SPAWN_MAX_FDS];
    int *fds;
    size_t n, cap;
};

/* The index of the library of desc_or_extension in l, added the first
 * time; -1 with the reason in err. */
static int library_index(struct libraries *l, const void *desc_or_extension, const char *id,
                         char *err, size_t errlen)
{
    const struct cas_plugin *desc;
    const char *path;
    int fd;
    if (cas__library_of(desc_or_extension, &desc, &fd, &path) != CAS_OK) {
        snprintf(err, errlen, "plugin %s was not loaded from a library, and a worker "
                 "loads plugins only from the files castellan checked", id);
        return -1;
    }
    for (size_t i = 0; i < l->n; i++)
        if (l->fds[i] == fd)
            return (int)i;
    if (l->n == l->cap || l->n == CAS__SPAWN_MAX_FDS) {
        snprintf(err, errlen, "more than %zu plugin libraries in one game", l->n);
        return -1;
    }
    l->desc[l->n] = desc;
    l->path[l->n] = path;
    l->fds[l->n] = fd;
    return (int)l->n++;
}

static void put_options(struct cas__setup *s, const struct cas_option_value *o, size_t n)
{
    cas__setup_u32(s, (uint32_t)n);
    for (size_t i = 0; i < n; i++) {
        cas__setup_str(s, o[i].name);
        cas__setup_str(s, o[i].value);
    }
}

int cas__fresh_params_setup(struct cas__setup *s, int *fds, size_t cap, size_t *n_fds,
                            const struct cas_plugin *plugin, const char *data_dir,
                            const struct cas_game_params *params, char *err, size_t errlen)
{
    struct libraries l = {.fds = fds, .cap = cap};
    size_t n = params->n_expansions;
    int *of = calloc(n + 1, sizeof *of);
    if (!of) {
        snprintf(err, errlen, "out of memory");
        return CAS_ENOMEM;
    }
    int game = library_index(&l, plugin, plugin->id, err, errlen);
    for (size_t i = 0; game >= 0 && i < n; i++) {
        const void *extension = params->expansions[i].extension;
        of[i] = extension ? library_index(&l, extension, params->expansions[i].id, err, errlen)
                          : NO_LIBRARY; /* an expansion of data alone */
        if (extension && of[i] < 0)
            game = -1;
    }
    if (game >= 0) {
        /* the libraries first: the worker loads them before it reads on */
        cas__setup_u32(s, (uint32_t)l.n);
        for (size_t i = 0; i < l.n; i++)
            cas__setup_library(s, l.desc[i], l.path[i], "the descriptor it gave when first "
                               "loaded");
        cas__setup_u32(s, (uint32_t)game);
        cas__setup_str(s, data_dir ? data_dir : "");
        cas__setup_u32(s, (uint32_t)params->nplayers);
        put_options(s, params->options, params->n_options);
        cas__setup_u32(s, (uint32_t)n);
        for (size_t i = 0; i < n; i++) {
            const struct cas_expansion_ref *x = &params->expansions[i];
            cas__setup_u32(s, (uint32_t)of[i]);
            cas__setup_str(s, x->id);
            cas__setup_str(s, x->version);
            cas__setup_str(s, x->data_dir ? x->data_dir : "");
            put_options(s, x->options, x->n_options);
        }
    }
    free(of);
    *n_fds = l.n;
    return game < 0 ? CAS_EINVAL : CAS_OK;
}

int cas__fresh_game_setup(struct cas__setup *s, int *fds, size_t cap, size_t *n_fds,
                          const struct cas_plugin *plugin, const char *data_dir,
                          const struct cas_game_params *params, const struct cas__isolation *iso,
                          char *err, size_t errlen)
{
    cas__setup_u32(s, iso->memory_mib);
    cas__setup_u32(s, iso->cpu_seconds);
    return cas__fresh_params_setup(s, fds, cap, n_fds, plugin, data_dir, params, err, errlen);
}

/* ------------------------------------------------------ the worker's side */

/* The options of a setup, into a new array the worker keeps; *n of them. */
static struct cas_option_value *get_options(struct cas__setup_reader *r, size_t *n)
{
    *n = cas__setup_get_u32(r);
    if (r->bad || *n > r->left / 8) {
        r->bad = 1;
        *n = 0;
        return NULL;
    }
    struct cas_option_value *o = calloc(*n + 1, sizeof *o);
    if (!o) {
        r->bad = 1;
        return NULL;
    }
    for (size_t i = 0; i < *n; i++) {
        o[i].struct_size = sizeof o[i];
        o[i].name = cas__setup_get_str(r);
        o[i].value = cas__setup_get_str(r);
        if (!o[i].name || !o[i].value)
            r->bad = 1;
    }
    return o;
}

int cas__fresh_params_read(struct cas__setup_reader *r, struct cas__fresh_params *p)
{
    memset(p, 0, sizeof *p);
    p->n_libs = cas__setup_get_u32(r);
    if (r->bad || p->n_libs == 0 || p->n_libs > CAS__SPAWN_MAX_FDS)
        return -1;
    for (size_t i = 0; i < p->n_libs; i++)
        cas__setup_get_library(r, &p->libs[i]);
    p->game_lib = cas__setup_get_u32(r);
    p->data_dir = cas__setup_get_str(r);
    p->params.struct_size = sizeof p->params;
    p->params.nplayers = (int)cas__setup_get_u32(r);
    size_t n;
    struct cas_option_value *options = get_options(r, &n);
    p->params.options = options;
    p->params.n_options = n;
    size_t n_exp = cas__setup_get_u32(r);
    if (r->bad || n_exp > r->left / 16 || p->game_lib >= p->n_libs)
        return -1;
    p->refs = calloc(n_exp + 1, sizeof *p->refs);
    p->exp_lib = calloc(n_exp + 1, sizeof *p->exp_lib);
    if (!p->refs || !p->exp_lib)
        return -1;
    for (size_t i = 0; i < n_exp && !r->bad; i++) {
        struct cas_expansion_ref *x = &p->refs[i];
        p->exp_lib[i] = cas__setup_get_u32(r);
        x->struct_size = sizeof *x;
        x->id = cas__setup_get_str(r);
        x->version = cas__setup_get_str(r);
        x->data_dir = cas__setup_get_str(r);
        struct cas_option_value *xo = get_options(r, &n);
        x->options = xo;
        x->n_options = n;
        if ((p->exp_lib[i] >= p->n_libs && p->exp_lib[i] != (uint32_t)NO_LIBRARY) || !x->id)
            r->bad = 1;
    }
    p->params.expansions = p->refs;
    p->params.n_expansions = n_exp;
    return r->bad || !p->data_dir ? -1 : 0;
}

int cas__fresh_params_load(struct cas__fresh_params *p, const int *fds, char *err,
                           size_t errlen)
{
    const struct cas_plugin *desc[CAS__SPAWN_MAX_FDS];
    for (size_t i = 0; i < p->n_libs; i++) {
        void *dl;
        if (cas__load_descriptor(&p->libs[i], fds[i], &dl, &desc[i]) != CAS_OK) {
            snprintf(err, errlen, "%s", p->libs[i].refusal ? p->libs[i].refusal
                                                           : "it cannot be loaded");
            return CAS_EMISMATCH;
        }
    }
    p->plugin = desc[p->game_lib];
    for (size_t i = 0; i < p->params.n_expansions; i++)
        p->refs[i].extension = p->exp_lib[i] == (uint32_t)NO_LIBRARY
                                   ? NULL : desc[p->exp_lib[i]]->extension;
    return CAS_OK;
}

int cas__worker_game(int sock, struct cas__setup_reader *r, const int *fds, size_t n_fds)
{
    struct cas__fresh_params p;
    struct cas__confine_limits limits;
    limits.memory_mib = cas__setup_get_u32(r);
    limits.cpu_seconds = cas__setup_get_u32(r);
    if (cas__fresh_params_read(r, &p) != 0 || r->left || n_fds != p.n_libs)
        return 3;
    int keep[CAS__SPAWN_MAX_FDS + 1] = {sock};
    memcpy(keep + 1, fds, n_fds * sizeof *fds);
    if (cas__confine_child(keep, n_fds + 1, &sock, 1, &limits) != 0)
        return 5;
    char why[1024];
    int rc = cas__fresh_params_load(&p, fds, why, sizeof why);
    cas__worker_serve(sock, p.plugin, p.data_dir, &p.params, rc == CAS_OK ? NULL : why);
}
