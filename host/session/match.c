/*
 * match.c — one game instance: the host services lent to its plugin (log,
 * error text, a counting allocator, the data folder, data shared between
 * games) and thin wrappers that
 * grow buffers for the vtable's buffer protocols.
 */
#include "buf.h"
#include "loop_guard.h"
#include "match.h"
#include "registry.h"
#include "shared.h"

#include <stdalign.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every block the plugin allocates is prefixed with its size so release
 * and realloc can keep the byte counter exact.  The header keeps the
 * block aligned for any type. */
union block_header {
    size_t size;
    max_align_t align;
};

static void host_log(void *ctx, enum cas_log_level level, const char *message)
{
    struct cas__match *m = ctx;
    static const char *const names[] = {"error", "warning", "info", "debug"};
    if (level <= CAS_LOG_WARN)
        fprintf(stderr, "%s: %s: %s\n", m->plugin->id, names[level], message);
}

static void host_set_error(void *ctx, const char *message)
{
    struct cas__match *m = ctx;
    snprintf(m->error, sizeof m->error, "%s", message ? message : "");
}

/* Atomic: a parallel search bot's threads allocate states of one match. */
static void count_bytes(struct cas__match *m, size_t added, size_t removed)
{
    size_t now = __atomic_add_fetch(&m->heap_bytes, added - removed, __ATOMIC_RELAXED);
    size_t peak = __atomic_load_n(&m->heap_peak, __ATOMIC_RELAXED);
    while (now > peak && !__atomic_compare_exchange_n(&m->heap_peak, &peak, now, 1,
                                                      __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

static void *host_alloc(void *ctx, size_t size)
{
    if (size > SIZE_MAX - sizeof(union block_header))
        return NULL;
    union block_header *h = malloc(sizeof *h + size);
    if (!h)
        return NULL;
    h->size = size;
    count_bytes(ctx, size, 0);
    return h + 1;
}

static void host_release(void *ctx, void *block)
{
    if (!block)
        return;
    union block_header *h = (union block_header *)block - 1;
    count_bytes(ctx, 0, h->size);
    free(h);
}

/* Shared data is kept per plugin: two plugins' keys never meet. */
static const void *host_share(void *ctx, const char *key, const void *data, size_t size)
{
    struct cas__match *m = ctx;
    return key && data ? cas__shared_keep(m->plugin, key, data, size) : NULL;
}

static void host_unshare(void *ctx, const void *shared)
{
    (void)ctx;
    cas__shared_release(shared);
}

static void *host_realloc(void *ctx, void *block, size_t size)
{
    if (!block)
        return host_alloc(ctx, size);
    if (size > SIZE_MAX - sizeof(union block_header))
        return NULL;
    union block_header *h = (union block_header *)block - 1;
    size_t old = h->size;
    union block_header *grown = realloc(h, sizeof *grown + size);
    if (!grown)
        return NULL;
    grown->size = size;
    count_bytes(ctx, size, old);
    return grown + 1;
}

/* The option game_new's *bad_option names: an index into the game's
 * options, then on through each expansion's in order (ABI, game_new); NULL
 * when it names none.  *owner is the id of the plugin the option is for. */
static const struct cas_option_value *offending_option(const struct cas_game_params *params,
                                                       const char *game_id, size_t index,
                                                       const char **owner)
{
    *owner = game_id;
    if (index < params->n_options)
        return &params->options[index];
    index -= params->n_options;
    for (size_t i = 0; i < params->n_expansions; i++) {
        const struct cas_expansion_ref *x = &params->expansions[i];
        *owner = x->id;
        if (index < x->n_options)
            return &x->options[index];
        index -= x->n_options;
    }
    return NULL;
}

/* game_new in a worker: the proxy's vtable and game stand for the
 * plugin's from here on. */
static int worker_game_new(struct cas__match *m, const struct cas__isolation *iso,
                           const struct cas_game_params *params, size_t *bad_option,
                           char *err, size_t errlen)
{
    const struct cas_game_vtable *vt;
    int rc = cas__worker_start(m->plugin, m->data_dir, params, iso, &m->host, &m->on_fault,
                               &vt, &m->game, bad_option, err, errlen);
    if (rc == CAS_OK) {
        m->vt = vt;
        m->isolated = 1;
        m->elsewhere = &cas__worker_elsewhere;
    }
    return rc;
}

/* Whether the game or an expansion was loaded in a confined child only. */
static int runs_only_in_a_worker(const struct cas_plugin *plugin,
                                 const struct cas_game_params *params)
{
    if (cas__probed_of(plugin))
        return 1;
    for (size_t i = 0; i < params->n_expansions; i++)
        if (cas__probed_of(params->expansions[i].extension))
            return 1;
    return 0;
}

int cas__match_open(struct cas__match *m, const struct cas_plugin *plugin,
                    const char *data_dir, const struct cas_option_value *options,
                    size_t n_options, const struct cas_expansion_ref *expansions,
                    size_t n_expansions, int nplayers, char *err, size_t errlen)
{
    return cas__match_open_isolated(m, NULL, plugin, data_dir, options, n_options, expansions,
                                    n_expansions, nplayers, err, errlen);
}

/* Every "DIR/" in text removed: a plugin names a file of its data folder
 * by the path it opened; the user knows it by the name an option gave. */
static void drop_dir(char *text, const char *dir)
{
    size_t n = dir ? strlen(dir) : 0;
    if (n == 0)
        return;
    for (char *at = strstr(text, dir); at; at = strstr(at, dir))
        if (at[n] == '/')
            memmove(at, at + n + 1, strlen(at + n + 1) + 1);
        else
            at += n;
}

int cas__match_open_isolated(struct cas__match *m, const struct cas__isolation *iso,
                             const struct cas_plugin *plugin, const char *data_dir,
                             const struct cas_option_value *options, size_t n_options,
                             const struct cas_expansion_ref *expansions, size_t n_expansions,
                             int nplayers, char *err, size_t errlen)
{
    memset(m, 0, sizeof *m);
    m->plugin = plugin;
    m->vt = plugin->game;
    m->nplayers = nplayers;
    if (!m->vt) {
        snprintf(err, errlen, "%s is not a game plugin", plugin->id);
        return CAS_EINVAL;
    }
    size_t len = (size_t)snprintf(m->title, sizeof m->title, "%s", plugin->id);
    for (size_t i = 0; i < n_expansions && len < sizeof m->title; i++)
        len += (size_t)snprintf(m->title + len, sizeof m->title - len, "%s%s",
                                i ? ", " : " + ", expansions[i].id);
    m->data_dir = strdup(data_dir ? data_dir : "");
    if (!m->data_dir) {
        snprintf(err, errlen, "out of memory");
        return CAS_ENOMEM;
    }
    m->host = (struct cas_host){
        .struct_size = sizeof(struct cas_host),
        .abi_major = CAS_ABI_MAJOR,
        .abi_minor = CAS_ABI_MINOR,
        .ctx = m,
        .log = host_log,
        .set_error = host_set_error,
        .alloc = host_alloc,
        .realloc = host_realloc,
        .release = host_release,
        .data_dir = m->data_dir,
        .share = host_share,
        .unshare = host_unshare,
    };
    struct cas_game_params params = {
        .struct_size = sizeof params,
        .nplayers = nplayers,
        .options = options,
        .n_options = n_options,
        .expansions = expansions,
        .n_expansions = n_expansions,
    };
    size_t bad_option = SIZE_MAX;
    int rc;
    err[0] = '\0';
    /* A plugin loaded only in a confined child has no code in castellan:
     * its game runs in a worker whatever was asked. */
    struct cas__isolation forced = {.mode = CAS__ISOLATE_WORKER};
    if ((!iso || iso->mode != CAS__ISOLATE_WORKER) && runs_only_in_a_worker(plugin, &params)) {
        if (iso)
            forced = (struct cas__isolation){CAS__ISOLATE_WORKER, iso->deadline_ms,
                                             iso->memory_mib, iso->cpu_seconds};
        iso = &forced;
    }
    if (iso && iso->mode == CAS__ISOLATE_WORKER)
        rc = worker_game_new(m, iso, &params, &bad_option, err, errlen);
    else
        rc = m->vt->game_new(&m->host, &params, &m->game, &bad_option);
    if (rc == CAS_OK)
        return CAS_OK;
    if (err[0]) { /* the worker itself failed */
        free(m->data_dir);
        m->data_dir = NULL;
        m->game = NULL;
        return rc;
    }
    const char *owner = NULL;
    const struct cas_option_value *bad = offending_option(&params, plugin->id, bad_option,
                                                          &owner);
    if (rc == CAS_EOPTION && bad)
        snprintf(err, errlen, "%s: option %s = %s: %s", owner, bad->name, bad->value,
                 m->error);
    else
        snprintf(err, errlen, "%s: cannot create the game: %s", plugin->id,
                 cas__match_reason(m, rc));
    drop_dir(err, m->data_dir);
    for (size_t i = 0; i < n_expansions; i++)
        drop_dir(err, expansions[i].data_dir);
    free(m->data_dir);
    m->data_dir = NULL;
    m->game = NULL;
    return rc;
}

void cas__match_close(struct cas__match *m)
{
    if (m->vt && m->game)
        m->vt->game_free(m->game);
    m->game = NULL;
    free(m->data_dir);
    m->data_dir = NULL;
}

struct cas_option_value *cas__option_defaults(const struct cas_plugin *plugin, size_t *n)
{
    struct cas_option_value *values = NULL;
    *n = 0;
    if (plugin->n_options == 0 || !(values = calloc(plugin->n_options, sizeof *values)))
        return NULL;
    for (size_t i = 0; i < plugin->n_options; i++)
        values[i] = (struct cas_option_value){
            .struct_size = sizeof *values,
            .name = plugin->options[i].name,
            .value = plugin->options[i].default_value,
        };
    *n = plugin->n_options;
    return values;
}

void cas__match_violation(struct cas__match *m, const char *call, const char *fmt, ...)
{
    char what[384];
    va_list args;
    va_start(args, fmt);
    vsnprintf(what, sizeof what, fmt, args);
    va_end(args);
    snprintf(m->error, sizeof m->error, "plugin %s broke the ABI (%s) in %s", m->plugin->id,
             what, call);
    struct cas__worker_fault f = {.text = m->error, .call = call};
    if (m->on_fault.fault) {
        m->on_fault.fault(m->on_fault.ctx, &f);
        return;
    }
    fflush(stdout);
    fprintf(stderr, "castellan: %s\n", m->error);
    exit(1);
}

int cas__match_bad_actor(struct cas__match *m, int actor)
{
    cas__match_violation(m, "current", "seat %d, where the seats are 0..%d, -1 chance and "
                         "-2 the end", actor, m->nplayers - 1);
    return CAS_ACTOR_TERMINAL;
}

/* The offset of the first byte of text[0..len) a terminal or a journal
 * line must not hold (a control character: newline, escape, DEL), or
 * len when it has none. */
static size_t first_control(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)text[i] < 0x20 || text[i] == 0x7f)
            return i;
    return len;
}

int cas__match_event_ok(struct cas__match *m, const struct cas_event *e)
{
    size_t len = e->text ? strnlen(e->text, CAS__EVENT_TEXT_MAX) : 0;
    if (e->struct_size < offsetof(struct cas_event, text) + sizeof e->text)
        cas__match_violation(m, "apply", "an event of struct_size %zu", e->struct_size);
    else if (e->player < -1 || e->player >= m->nplayers)
        cas__match_violation(m, "apply", "an event about seat %d of %d", e->player,
                             m->nplayers);
    else if (e->visible_to != CAS_VIEWER_PUBLIC &&
             (e->visible_to < 0 || e->visible_to >= m->nplayers))
        cas__match_violation(m, "apply", "an event visible to seat %d of %d", e->visible_to,
                             m->nplayers);
    else if (len == CAS__EVENT_TEXT_MAX || first_control(e->text, len) < len)
        cas__match_violation(m, "apply", "an event text %s", len == CAS__EVENT_TEXT_MAX
                             ? "of 4096 bytes or more" : "holding a control character");
    else
        return 1;
    return 0;
}

int cas__match_legal(struct cas__match *m, const cas_state *state,
                     struct cas__actions *list)
{
    if (!list->items &&
        cas__grow((void **)&list->items, &list->cap, 64, sizeof *list->items) != CAS_OK)
        return CAS_ENOMEM;
    for (;;) {
        size_t need = 0;
        int rc = m->vt->legal_actions(state, list->items, list->cap, &need);
        if (rc == CAS_OK && need > list->cap) {
            cas__match_violation(m, "legal_actions", "%zu actions listed in room for %zu",
                                 need, list->cap);
            rc = CAS_EINVAL;
        }
        if (rc != CAS_ENOSPC) {
            list->count = rc == CAS_OK ? need : 0;
            return rc;
        }
        if (need <= list->cap)
            return CAS_EINVAL; /* ENOSPC for a buffer that was big enough */
        if (cas__grow((void **)&list->items, &list->cap, need, sizeof *list->items) != CAS_OK)
            return CAS_ENOMEM;
    }
}

int cas__match_outcomes(struct cas__match *m, const cas_state *state,
                        struct cas__actions *list)
{
    if (!list->outcomes && cas__grow((void **)&list->outcomes, &list->outcomes_cap, 64,
                                     sizeof *list->outcomes) != CAS_OK)
        return CAS_ENOMEM;
    for (;;) {
        size_t need = 0;
        int rc = m->vt->chance_outcomes(state, list->outcomes, list->outcomes_cap, &need);
        if (rc == CAS_OK && need > list->outcomes_cap) {
            cas__match_violation(m, "chance_outcomes", "%zu outcomes listed in room for %zu",
                                 need, list->outcomes_cap);
            rc = CAS_EINVAL;
        }
        if (rc != CAS_ENOSPC) {
            list->n_outcomes = rc == CAS_OK ? need : 0;
            return rc;
        }
        if (need <= list->outcomes_cap)
            return CAS_EINVAL;
        if (cas__grow((void **)&list->outcomes, &list->outcomes_cap, need,
                      sizeof *list->outcomes) != CAS_OK)
            return CAS_ENOMEM;
    }
}

void cas__actions_free(struct cas__actions *list)
{
    free(list->items);
    free(list->outcomes);
    memset(list, 0, sizeof *list);
}

int cas__match_action_text(struct cas__match *m, const cas_state *state,
                           cas_action action, char *buf, size_t cap)
{
    int len = m->vt->action_text(state, action, buf, cap);
    if (len >= 0 && (size_t)len < cap) {
        size_t bad = first_control(buf, (size_t)len);
        if (bad == (size_t)len && memchr(buf, '\0', (size_t)len + 1) == buf + len)
            return CAS_OK;
        if (bad < (size_t)len)
            cas__match_violation(m, "action_text", "the text of action 0x%llx holds byte "
                                 "0x%02x at offset %zu; it must be one line of printable "
                                 "text", (unsigned long long)action,
                                 (unsigned)(unsigned char)buf[bad], bad);
        else
            cas__match_violation(m, "action_text", "the text of action 0x%llx is not %d "
                                 "bytes long as returned", (unsigned long long)action, len);
        len = CAS_EINVAL;
    }
    snprintf(buf, cap, "<action 0x%llx>", (unsigned long long)action);
    return len < 0 ? len : CAS_ENOSPC;
}

static int stdio_write(void *ctx, const char *data, size_t len)
{
    return fwrite(data, 1, len, ctx) == len ? CAS_OK : CAS_EIO;
}

int cas__match_render(struct cas__match *m, const cas_state *state, int viewer,
                      enum cas_render_format format, FILE *out)
{
    struct cas_writer writer = {.struct_size = sizeof writer, .ctx = out, .write = stdio_write};
    return cas__match_render_to(m, state, viewer, format, NULL, &writer);
}

/* The ABI 1.1 function `field` of the vtable, or NULL when the plugin's
 * vtable predates it or leaves it out. */
#define OPTIONAL_FN(m, field) \
    (CAS_HAS_FIELD((m)->vt, struct cas_game_vtable, field) ? (m)->vt->field : NULL)

int cas__match_render_choices(struct cas__match *m, const cas_state *state, int viewer,
                              enum cas_render_format format,
                              const struct cas__actions *legal, FILE *out)
{
    struct cas_writer writer = {.struct_size = sizeof writer, .ctx = out, .write = stdio_write};
    return cas__match_render_to(m, state, viewer, format, legal, &writer);
}

int cas__match_render_to(struct cas__match *m, const cas_state *state, int viewer,
                         enum cas_render_format format, const struct cas__actions *legal,
                         const struct cas_writer *out)
{
    cas__loop_check("a plugin call");
    if (!legal || !OPTIONAL_FN(m, render_choices))
        return m->vt->render(state, viewer, format, out);
    return m->vt->render_choices(state, viewer, format, legal->items, legal->count, out);
}

int cas__match_has_render_since(const struct cas__match *m)
{
    return OPTIONAL_FN(m, render_since) != NULL;
}

int cas__match_render_since(struct cas__match *m, const cas_state *state, int viewer,
                            enum cas_render_format format, const struct cas__actions *legal,
                            const unsigned char *since, size_t since_len, unsigned char *stamp,
                            size_t cap, size_t *stamp_len, const struct cas_writer *out)
{
    cas__loop_check("a plugin call");
    *stamp_len = 0;
    if (!OPTIONAL_FN(m, render_since))
        return CAS_ENOTFOUND;
    struct cas_render_since req = {
        .struct_size = sizeof req, .viewer = viewer, .format = format,
        .actions = legal ? legal->items : NULL, .n = legal ? legal->count : 0, .out = out,
        .since = since, .since_len = since ? since_len : 0, .stamp = stamp, .stamp_cap = cap,
        .stamp_len = 0, .runs = 1};
    int rc = m->vt->render_since(state, &req);
    if (rc == CAS_OK && req.stamp_len > cap) {
        cas__match_violation(m, "render_since", "a stamp of %zu bytes was returned in a room "
                             "of %zu", req.stamp_len, cap);
        rc = CAS_EINVAL;
    } else if (rc == CAS_OK) {
        *stamp_len = req.stamp_len;
    }
    return rc;
}

int cas__match_notation_help(struct cas__match *m, FILE *out)
{
    cas__loop_check("a plugin call");
    struct cas_writer writer = {.struct_size = sizeof writer, .ctx = out, .write = stdio_write};
    if (!OPTIONAL_FN(m, notation_help))
        return CAS_ENOTFOUND;
    return m->vt->notation_help(m->game, &writer);
}

int cas__match_projected(struct cas__match *m, const cas_state *state, int64_t *scores)
{
    cas__loop_check("a plugin call");
    if (!OPTIONAL_FN(m, projected_returns))
        return CAS_ENOTFOUND;
    m->error[0] = '\0';
    return m->vt->projected_returns(state, scores, (size_t)m->nplayers);
}

const char *cas__match_label(const struct cas__match *m, int p)
{
    cas__loop_check("a plugin call");
    const char *label = m->vt->player_label(m->game, p);
    size_t len = label ? strnlen(label, CAS__LABEL_MAX) : 0;
    /* A label that could not be printed on a line of its own is not
     * printed at all. */
    return label && len < CAS__LABEL_MAX && first_control(label, len) == len ? label : "?";
}

const char *cas__match_reason(const struct cas__match *m, int rc)
{
    if (m->error[0])
        return m->error;
    return rc == CAS_ENOMEM ? "out of memory" : "no reason given";
}
