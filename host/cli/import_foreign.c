/*
 * import_foreign.c — a foreign saved game into a castellan record: the
 * host parses the JSON, knows no game, and asks each installed game plugin
 * with import_foreign (ABI 1.1) to write the record; the result is parsed
 * as any hash-free record, so `import` checks it the same way.
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
    FILE *f = fopen(file, "rb");
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
                         char *err, size_t errlen)
{
    struct cas__textbuf record = {0};
    struct cas_json *doc = NULL;
    size_t line, offset;
    memset(g, 0, sizeof *g);
    if (refuse_legacy_jcz(file, format, text, len, err, errlen))
        return CAS_EPARSE;
    int rc = cas__json_parse(text, len, &doc, &line, &offset);
    if (rc == CAS_EPARSE) {
        snprintf(err, errlen, "%s:%zu: not a JSON object: a syntax error at byte %zu; a "
                 ".jcz file is the JSON JCloisterZone saves, unedited", file, line, offset);
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
    rc = take_versions(reg, &g->game, file, err, errlen);
    for (size_t i = 0; i < g->n_expansions && !rc; i++)
        rc = take_versions(reg, &g->expansions[i], file, err, errlen);
free_doc:
    cas__json_free(doc);
    free(record.data);
    return rc;
}

int cas__foreign_read(const char *file, const char *format, const char *plugin_path,
                      struct cas__saves_game *g, char *err, size_t errlen)
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
                              err, errlen);
free_registry:
    cas__registry_free(reg);
    cas__strlist_free(&path);
free_input:
    free(input.data);
    return rc;
}
