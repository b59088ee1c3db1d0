/*
 * store.c — opening and closing a store of either backend, and what every
 * store has: its messages, its path and the check of its method table.
 *
 * A file path opens the SQLite backend (sqlite_store.c), a postgresql://
 * URL the PostgreSQL one (pg_store.c); from then on every public function
 * calls the store's methods (saves_int.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "saves_int.h"

void (*cas__saves_probe)(enum cas__saves_phase, enum cas__saves_moment);
void (*cas__saves_call_hook)(const char *method);

/* ------------------------------------------------------------ messages */

int cas__saves_fail(struct cas__saves *s, int code, const char *fmt, ...)
{
    char text[768];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    snprintf(s->err, sizeof s->err, "%s: %s", s->path, text);
    return code;
}

int cas__saves_explain(struct cas__saves *s, int code, const char *text)
{
    return cas__saves_fail(s, code, "%s", text);
}

const char *cas__saves_errmsg(const struct cas__saves *s)
{
    return s->err;
}

const char *cas__saves_path(const struct cas__saves *s)
{
    return s->path;
}

/* ------------------------------------------------------------ helpers */

int cas__saves_grow(void **items, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return 0;
    size_t grown = *cap ? *cap * 2 : 8;
    void *bigger = realloc(*items, grown * size);
    if (!bigger)
        return -1;
    memset((char *)bigger + n * size, 0, (grown - n) * size);
    *items = bigger;
    *cap = grown;
    return 0;
}

int cas__saves_is_url(const char *where)
{
    return strncmp(where, "postgresql://", 13) == 0 || strncmp(where, "postgres://", 11) == 0;
}

char *cas__saves_default_path(void)
{
    const char *xdg = getenv("XDG_DATA_HOME");
    const char *home = getenv("HOME");
    const char *base, *tail;
    if (xdg && xdg[0] == '/') {
        base = xdg;
        tail = "/castellan/saves.db";
    } else if (home && home[0]) {
        base = home;
        tail = "/.local/share/castellan/saves.db";
    } else {
        return NULL;
    }
    size_t len = strlen(base) + strlen(tail) + 1;
    char *path = malloc(len);
    if (path)
        snprintf(path, len, "%s%s", base, tail);
    return path;
}

/* ------------------------------------------------------ the store itself */

#define CHECK_METHOD(ret, name, params)                                                \
    if (!m->name)                                                                      \
        return #name;

const char *cas__saves_missing_method(const struct cas__saves_methods *m)
{
    CAS__SAVES_METHODS(CHECK_METHOD)
    return NULL;
}

struct cas__saves *cas__saves_new(const struct cas__saves_methods *m, const char *path,
                                  size_t backend_size)
{
    struct cas__saves *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->methods = m;
    if (!(s->path = strdup(path)) || !(s->backend = calloc(1, backend_size))) {
        cas__saves_free(s);
        return NULL;
    }
    return s;
}

void cas__saves_free(struct cas__saves *s)
{
    if (!s)
        return;
    cas__saves_claims_drop(s->claims);
    free(s->backend);
    free(s->path);
    free(s);
}

/* A backend whose table lacks a method is refused before it is used:
 * calling through the hole would crash far from the mistake. */
static int check_methods(const struct cas__saves_methods *m, const char *path, char *err,
                         size_t errlen)
{
    const char *missing = cas__saves_missing_method(m);
    if (!missing)
        return CAS_OK;
    snprintf(err, errlen, "%s: the %s store of this castellan lacks its method %s; "
             "this is a bug of castellan: please report it", path, m->name, missing);
    return CAS_EINVAL;
}

/* The backend of `where`, its table checked. */
static int backend_of(const char *where, const struct cas__saves_methods **m, char *err,
                      size_t errlen)
{
    *m = cas__saves_is_url(where) ? &cas__pg_methods : &cas__sqlite_methods;
    return check_methods(*m, where, err, errlen);
}

int cas__saves_open_at(const char *path, int target, struct cas__saves **out,
                       char *err, size_t errlen)
{
    const struct cas__saves_methods *m;
    int rc = backend_of(path, &m, err, errlen);
    *out = NULL;
    return rc ? rc : m->open(path, target, 0, out, err, errlen);
}

int cas__saves_open(const char *path, struct cas__saves **out, char *err,
                    size_t errlen)
{
    return cas__saves_open_at(path, CAS__SAVES_SCHEMA_VERSION, out, err, errlen);
}

int cas__saves_open_read(const char *path, struct cas__saves **out, char *err,
                         size_t errlen)
{
    const struct cas__saves_methods *m;
    int rc = backend_of(path, &m, err, errlen);
    *out = NULL;
    return rc ? rc : m->open(path, CAS__SAVES_SCHEMA_VERSION, 1, out, err, errlen);
}

void cas__saves_close(struct cas__saves *s)
{
    if (!s)
        return;
    cas__saves_announce(CAS__SAVES_CLOSE, CAS__SAVES_BEGIN);
    CAS__SAVES_METHOD(s, close)(s);
    cas__saves_announce(CAS__SAVES_CLOSE, CAS__SAVES_END);
}

int cas__saves_ready(struct cas__saves *s)
{
    int rc = CAS__SAVES_METHOD(s, ready)(s);
    return rc == CAS_OK && s->claims ? cas__saves_claims_ready(s) : rc;
}

int cas__saves_schema_version(struct cas__saves *s)
{
    return CAS__SAVES_METHOD(s, schema_version)(s);
}

int cas__saves_integrity_check(struct cas__saves *s)
{
    return CAS__SAVES_METHOD(s, integrity_check)(s);
}
