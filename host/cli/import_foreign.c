/*
 * import_foreign.c — a foreign saved game into a castellan record: the
 * host parses the JSON, knows no game, and asks each installed game plugin
 * with import_foreign (ABI 1.1) to write the record; the result is parsed
 * as any hash-free record, so `import` checks it the same way.  While it
 * replays, the chance outcomes the foreign format does not write (the
 * tiles JCloisterZone discarded) are put back where they were drawn.
 */
#include "import_foreign.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "registry.h"
#include "text.h"

struct plugin_call {
    char error[768];
};

static void call_set_error(void *ctx, const char *message)
{
    struct plugin_call *c = ctx;
    snprintf(c->error, sizeof c->error, "%s", message);
}

static void call_log(void *ctx, enum cas_log_level level, const char *message)
{
    (void)ctx;
    (void)level;
    fprintf(stderr, "castellan import: %s\n", message);
}

static void *call_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return malloc(size);
}

static void *call_realloc(void *ctx, void *block, size_t size)
{
    (void)ctx;
    return realloc(block, size);
}

static void call_release(void *ctx, void *block)
{
    (void)ctx;
    free(block);
}

const char *cas__foreign_format(const char *file)
{
    size_t len = strlen(file);
    return len > 4 && strcmp(file + len - 4, ".jcz") == 0 ? "jcz" : NULL;
}

static int read_whole(const char *file, struct cas__textbuf *b, int *why)
{
    FILE *f = fopen(file, "rbe");
    if (!f) {
        *why = errno;
        return CAS_EIO;
    }
    char chunk[8192];
    size_t n;
    int rc = CAS_OK;
    while (rc == CAS_OK && (n = fread(chunk, 1, sizeof chunk, f)) > 0)
        rc = cas__textbuf_write(b, chunk, n);
    *why = rc == CAS_OK ? errno : ENOMEM;
    if (rc == CAS_OK && ferror(f))
        rc = CAS_EIO;
    fclose(f);
    return rc;
}

/* Each action's line becomes the foreign file's line its `# line N`
 * comment gives, so replay errors point into the file the user has; and a
 * player's action is the game's current player's, whatever turn order the
 * foreign format has (a builder's bonus turn, say). */
static void take_source_lines(const struct cas__textbuf *record, struct cas__saves_game *g)
{
    size_t i = 0;
    int record_line = 1, source_line = 0;
    for (const char *p = record->data; p && *p && i < g->n_actions; record_line++) {
        if (strncmp(p, "# line ", 7) == 0)
            source_line = atoi(p + 7);
        if (g->actions[i].line == record_line) {
            g->actions[i].actor_unknown = g->actions[i].actor != CAS_ACTOR_CHANCE;
            g->actions[i++].line = source_line;
        }
        const char *eol = strchr(p, '\n');
        p = eol ? eol + 1 : NULL;
    }
}

/* The record's `# warning: TEXT` lines as "LINE TEXT", LINE the source
 * line of the `# line N` before them. */
static int take_notes(const struct cas__textbuf *record, struct cas__strlist *notes)
{
    int source_line = 0, rc = CAS_OK;
    for (const char *p = record->data; p && *p && rc == CAS_OK;) {
        size_t len = strcspn(p, "\n");
        if (strncmp(p, "# line ", 7) == 0)
            source_line = atoi(p + 7);
        else if (strncmp(p, "# warning: ", 11) == 0) {
            char *note = malloc(len + 16);
            if (!note)
                return CAS_ENOMEM;
            snprintf(note, len + 16, "%d %.*s", source_line, (int)(len - 11), p + 11);
            rc = cas__strlist_push(notes, note);
            free(note);
        }
        p = p[len] ? p + len + 1 : NULL;
    }
    return rc;
}

/* Record versions "0" become the installed plugins' versions. */
static int take_versions(struct cas__registry *reg, struct cas__saves_plugin_ref *ref,
                         const char *file, char *err, size_t errlen)
{
    struct cas__plugin_info *info = cas__registry_find(reg, ref->id);
    char *version = info ? strdup(info->version) : NULL;
    if (!version) {
        snprintf(err, errlen, info ? "%s: out of memory" : "%s: needs the plugin %s, "
                 "which is not installed; install it or add its folder to "
                 "--plugin-path", file, ref->id);
        return info ? CAS_ENOMEM : CAS_ENOTFOUND;
    }
    free(ref->version);
    ref->version = version;
    return CAS_OK;
}

/* Ask each game plugin that can import; the first that reads the format
 * writes the record into out. */
static int convert(struct cas__registry *reg, const char *file, const char *format,
                   const struct cas_json *doc, struct cas__textbuf *out, char *err,
                   size_t errlen)
{
    for (size_t i = 0; i < cas__registry_count(reg); i++) {
        struct cas__plugin_info *info = cas__registry_at(reg, i);
        if (info->refusal || info->kind != CAS_KIND_GAME || cas__registry_load(reg, info))
            continue;
        const struct cas_game_vtable *vt = info->desc->game;
        if (!vt || !CAS_HAS_FIELD(vt, struct cas_game_vtable, import_foreign) ||
            !vt->import_foreign)
            continue;
        struct plugin_call call = {""};
        struct cas_host host = {
            .struct_size = sizeof host, .abi_major = CAS_ABI_MAJOR,
            .abi_minor = CAS_ABI_MINOR, .ctx = &call, .log = call_log,
            .set_error = call_set_error, .alloc = call_alloc, .realloc = call_realloc,
            .release = call_release, .data_dir = info->data_dir,
        };
        struct cas_writer writer = {sizeof writer, out, cas__textbuf_write};
        out->len = 0;
        int rc = vt->import_foreign(&host, format, doc, &writer);
        if (rc == CAS_ENOTFOUND)
            continue;
        if (rc)
            snprintf(err, errlen, "%s: %s: %s; nothing was imported", file, info->id,
                     call.error[0] ? call.error : "cannot convert it");
        return rc;
    }
    snprintf(err, errlen, "%s: no installed game plugin reads .%s files", file, format);
    return CAS_ENOTFOUND;
}

/* JCloisterZone before 5 saved games as XML, gzip-compressed by default:
 * not JSON, and no JCloisterZone 5 opens them either.  Name it for what it
 * is, with the way that is left.  0 if text is not such a file. */
static int refuse_legacy_jcz(const char *file, const char *format, const char *text,
                             size_t len, char *err, size_t errlen)
{
    size_t at = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0; /* a BOM */
    while (at < len && strchr(" \t\r\n", text[at]))
        at++;
    int gzip = len >= 2 && (unsigned char)text[0] == 0x1f && (unsigned char)text[1] == 0x8b;
    if (strcmp(format, "jcz") != 0 || (!gzip && (at == len || text[at] != '<')))
        return 0;
    snprintf(err, errlen, "%s: a JCloisterZone 4.x saved game (%s), not the JSON of "
             "JCloisterZone 5; castellan reads 5.x files only, and JCloisterZone 5 does not "
             "open 4.x saves either: replay the game in JCloisterZone 4 and write its moves "
             "as a castellan record without hashes (docs/saves.md, Game records), which "
             "`castellan import` checks move by move", file,
             gzip ? "gzip-compressed XML" : "XML");
    return 1;
}

int cas__foreign_convert(struct cas__registry *reg, const char *file, const char *format,
                         const char *text, size_t len, struct cas__saves_game *g,
                         struct cas__strlist *notes, char *err, size_t errlen)
{
    struct cas__textbuf record = {0};
    struct cas_json *doc = NULL;
    size_t line, offset;
    memset(g, 0, sizeof *g);
    if (refuse_legacy_jcz(file, format, text, len, err, errlen))
        return CAS_EPARSE;
    size_t bom = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0; /* as editors
                                                                          save UTF-8 */
    int rc = cas__json_parse(text + bom, len - bom, &doc, &line, &offset);
    if (rc == CAS_EPARSE) {
        snprintf(err, errlen, "%s:%zu: not a JSON object: a syntax error at byte %zu; a "
                 ".jcz file is the JSON JCloisterZone saves, unedited", file, line,
                 offset + bom);
        return rc;
    }
    if (rc) {
        snprintf(err, errlen, "%s: out of memory", file);
        return rc;
    }
    rc = convert(reg, file, format, doc, &record, err, errlen);
    if (rc)
        goto free_doc;
    rc = cas__record_parse(record.data, record.len, file, g, err, errlen);
    if (rc)
        goto free_doc;
    take_source_lines(&record, g);
    if (notes && take_notes(&record, notes)) {
        snprintf(err, errlen, "%s: out of memory", file);
        rc = CAS_ENOMEM;
        goto free_doc;
    }
    rc = take_versions(reg, &g->game, file, err, errlen);
    for (size_t i = 0; i < g->n_expansions && !rc; i++)
        rc = take_versions(reg, &g->expansions[i], file, err, errlen);
free_doc:
    cas__json_free(doc);
    free(record.data);
    return rc;
}

int cas__foreign_read(const char *file, const char *format, const char *plugin_path,
                      struct cas__saves_game *g, struct cas__strlist *notes, char *err,
                      size_t errlen)
{
    struct cas__textbuf input = {0};
    struct cas__strlist path = {0};
    struct cas__registry *reg = NULL;
    memset(g, 0, sizeof *g);
    int why = 0;
    int rc = read_whole(file, &input, &why);
    if (rc) {
        snprintf(err, errlen, "%s: cannot read it: %s", file, strerror(why));
        goto free_input;
    }
    if ((rc = cas__plugin_search_path(plugin_path, &path)) ||
        (rc = cas__registry_scan(&path, &reg))) {
        snprintf(err, errlen, "%s: out of memory", file);
        goto free_registry;
    }
    rc = cas__foreign_convert(reg, file, format, input.data ? input.data : "", input.len, g,
                              notes, err, errlen);
free_registry:
    cas__registry_free(reg);
    cas__strlist_free(&path);
free_input:
    free(input.data);
    return rc;
}

/* How many of g's actions after i are chance's `text`. */
static size_t draws_ahead(const struct cas__saves_game *g, size_t i, const char *text)
{
    size_t n = 0;
    for (size_t j = i + 1; j < g->n_actions; j++)
        n += g->actions[j].actor == CAS_ACTOR_CHANCE && strcmp(g->actions[j].text, text) == 0;
    return n;
}

/* Insert chance's `text` as action `at` of g, from source line `line`;
 * the plies after it move up by one. */
static int insert_draw(struct cas__saves_game *g, size_t at, const char *text, int line)
{
    char *copy = strdup(text);
    struct cas__saves_action *grown =
        copy ? realloc(g->actions, (g->n_actions + 1) * sizeof *grown) : NULL;
    if (!grown) {
        free(copy);
        return CAS_ENOMEM;
    }
    g->actions = grown;
    memmove(&grown[at + 1], &grown[at], (g->n_actions - at) * sizeof *grown);
    grown[at] = (struct cas__saves_action){.actor = CAS_ACTOR_CHANCE, .text = copy,
                                           .hashless = 1, .line = line};
    g->n_actions++;
    for (size_t j = at; j < g->n_actions; j++)
        g->actions[j].ply = (uint32_t)j;
    return CAS_OK;
}

/* The outcomes of a chance node into a buffer the caller frees; NULL on
 * failure (no memory, not a chance node). */
static struct cas_outcome *outcomes_of(const struct cas_game_vtable *vt, const cas_state *state,
                                       size_t *count)
{
    size_t cap = 64;
    struct cas_outcome *buf = malloc(cap * sizeof *buf);
    int rc = buf ? vt->chance_outcomes(state, buf, cap, count) : CAS_ENOMEM;
    if (rc == CAS_ENOSPC) {
        struct cas_outcome *more = realloc(buf, *count * sizeof *buf);
        rc = more ? vt->chance_outcomes(state, more, *count, count) : CAS_ENOMEM;
        buf = more ? more : buf;
    }
    if (rc) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* After chance gives `outcome` in a copy of state, does the game go on as
 * the record does: its next action after i legal?  Nonzero if so. */
static int next_action_follows(const struct cas_game_vtable *vt, const cas_state *state,
                               cas_action outcome, const struct cas__saves_game *g, size_t i)
{
    cas_state *after = NULL;
    cas_action next;
    int follows = vt->state_clone(state, &after) == CAS_OK &&
                  vt->apply(after, outcome, NULL) == CAS_OK &&
                  vt->parse_action(after, g->actions[i + 1].text, &next) == CAS_OK;
    if (after)
        vt->state_free(after);
    return follows;
}

/* Mid-record: the first outcome the record draws fewer times from here on
 * than the state still holds, after which the record's next action is
 * legal, inserted after action i.  1 if one was, 0 if none. */
static int restore_one(const struct cas_game_vtable *vt, const cas_state *state,
                       struct cas__saves_game *g, size_t i)
{
    size_t n = 0;
    struct cas_outcome *outcomes = outcomes_of(vt, state, &n);
    if (!outcomes)
        return CAS_ENOMEM;
    int rc = 0;
    char text[256];
    for (size_t k = 0; k < n && !rc; k++) {
        if (vt->action_text(state, outcomes[k].action, text, sizeof text) < 0 ||
            outcomes[k].weight <= draws_ahead(g, i, text) ||
            !next_action_follows(vt, state, outcomes[k].action, g, i))
            continue;
        rc = insert_draw(g, i + 1, text, g->actions[i + 1].line);
        rc = rc ? rc : 1;
    }
    free(outcomes);
    return rc;
}

/* At the record's end: every outcome left drawn in turn, if each leaves
 * chance to act again and the last ends the game (the foreign game ended
 * with the rest of the bag discarded); else nothing.  The count inserted. */
static int restore_the_rest(const struct cas_game_vtable *vt, const cas_state *state,
                            struct cas__saves_game *g)
{
    enum { MOST = 64 };
    char texts[MOST][64];
    int n = 0, rc = CAS_OK;
    cas_state *s = NULL;
    if (vt->state_clone(state, &s))
        return CAS_ENOMEM;
    while (vt->current(s) == CAS_ACTOR_CHANCE && n < MOST) {
        size_t count = 0;
        struct cas_outcome *outcomes = outcomes_of(vt, s, &count);
        if (!outcomes || !count) {
            rc = outcomes ? CAS_OK : CAS_ENOMEM;
            free(outcomes);
            break;
        }
        cas_action a = outcomes[0].action;
        free(outcomes);
        if (vt->action_text(s, a, texts[n], sizeof texts[n]) < 0 || vt->apply(s, a, NULL))
            break;
        n++;
    }
    int over = vt->current(s) == CAS_ACTOR_TERMINAL;
    vt->state_free(s);
    int line = g->n_actions ? g->actions[g->n_actions - 1].line : 0;
    for (int k = 0; k < n && over && !rc; k++)
        rc = insert_draw(g, g->n_actions, texts[k], line);
    return rc ? rc : over ? n : 0;
}

int cas__foreign_restore_draws(const struct cas_game_vtable *vt, const cas_state *state,
                               struct cas__saves_game *g, size_t i)
{
    if (vt->current(state) != CAS_ACTOR_CHANCE || !vt->chance_outcomes)
        return 0;
    return i + 1 < g->n_actions ? restore_one(vt, state, g, i) : restore_the_rest(vt, state, g);
}
