/*
 * registered.c — the players registered on a server (docs/players.md):
 * a name and the hash of a secret key each, kept by both backends through
 * their statement method.  The store never sees a key, only its hash
 * (the host makes keys: host/server/player_key.c); names are checked
 * here, so every way in (the CLI, the server) refuses the same names with
 * the same words.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "saves_int.h"
#include "sql.h"

void cas__saves_registered_free(struct cas__saves_registered *r)
{
    free(r->name);
    free(r->created_at);
    free(r->last_seen);
    free(r->key_hash);
    memset(r, 0, sizeof *r);
}

void cas__saves_registered_list_free(struct cas__saves_registered *r, size_t n)
{
    for (size_t i = 0; r && i < n; i++)
        cas__saves_registered_free(&r[i]);
    free(r);
}

/* The length of the UTF-8 sequence at p (a shortest form, no surrogate,
 * at most U+10FFFF), or 0 when it is not one. */
static size_t utf8_length(const unsigned char *p)
{
    if (p[0] < 0x80)
        return 1;
    size_t n = p[0] >= 0xC2 && p[0] <= 0xDF ? 2 : p[0] >= 0xE0 && p[0] <= 0xEF ? 3
             : p[0] >= 0xF0 && p[0] <= 0xF4 ? 4 : 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    if ((n == 3 && p[0] == 0xE0 && p[1] < 0xA0) || (n == 3 && p[0] == 0xED && p[1] >= 0xA0) ||
        (n == 4 && p[0] == 0xF0 && p[1] < 0x90) || (n == 4 && p[0] == 0xF4 && p[1] >= 0x90))
        return 0;
    return n;
}

int cas__saves_name_check(const char *name, char *err, size_t errlen)
{
    size_t chars = 0, len = strlen(name);
    if (len == 0) {
        snprintf(err, errlen, "a player's name may not be empty: give 1 to %d characters",
                 CAS__SAVES_NAME_MAX);
        return CAS_EINVAL;
    }
    if (name[0] == ' ' || name[len - 1] == ' ') {
        snprintf(err, errlen, "the name \"%.64s\" begins or ends with a space: leave it out",
                 name);
        return CAS_EINVAL;
    }
    for (const unsigned char *p = (const unsigned char *)name; *p; chars++) {
        size_t n = utf8_length(p);
        if (n == 0) {
            snprintf(err, errlen, "the name holds a byte (0x%02x) that is not UTF-8 text: "
                     "write it in UTF-8", *p);
            return CAS_EINVAL;
        }
        if (*p < 0x20 || *p == 0x7F || *p == ',' || *p == ':' ||
            (p[0] == 0xC2 && p[1] < 0xA0)) {
            snprintf(err, errlen, "the name \"%.64s\" holds a %s: use letters, digits, "
                     "spaces and punctuation other than ',' and ':'", name,
                     *p == ',' ? "comma" : *p == ':' ? "colon" : "control character");
            return CAS_EINVAL;
        }
        p += n;
    }
    if (chars > CAS__SAVES_NAME_MAX) {
        snprintf(err, errlen, "the name \"%.64s\" has %zu characters; at most %d are allowed",
                 name, chars, CAS__SAVES_NAME_MAX);
        return CAS_EINVAL;
    }
    return CAS_OK;
}

void cas__saves_name_key(const char *name, char *key, size_t cap)
{
    size_t i = 0;
    for (; cap && name[i] && i + 1 < cap; i++)
        key[i] = name[i] >= 'A' && name[i] <= 'Z' ? (char)(name[i] - 'A' + 'a') : name[i];
    if (cap)
        key[i] = '\0';
}

/* A name checked and folded into key[] (4 bytes a character, and one). */
#define KEY_CAP (CAS__SAVES_NAME_MAX * 4 + 1)

static int checked_key(struct cas__saves *s, const char *name, char key[KEY_CAP])
{
    char why[256];
    if (cas__saves_name_check(name, why, sizeof why))
        return cas__saves_explain(s, CAS_EINVAL, why);
    cas__saves_name_key(name, key, KEY_CAP);
    return CAS_OK;
}

/* A name given to find someone: never checked (any text finds nobody), but
 * folded; a name too long to be anyone's folds to one that finds nobody. */
static void lookup_key(const char *name, char key[KEY_CAP])
{
    if (strlen(name) >= KEY_CAP)
        name = "\x01"; /* no name holds a control character */
    cas__saves_name_key(name, key, KEY_CAP);
}

static int no_such_player(struct cas__saves *s, const char *name)
{
    return cas__saves_fail(s, CAS_ENOTFOUND, "there is no player named \"%.64s\"; "
                           "`castellan players list` shows them", name);
}

static int name_taken(struct cas__saves *s, const char *name)
{
    return cas__saves_fail(s, CAS_ECONFLICT, "a player named \"%.64s\" exists already "
                           "(names are the same whatever their case): choose another "
                           "name", name);
}

/* One id column into *(int64_t *)ctx. */
static int take_id(void *ctx, const char *const *cols, int n_cols)
{
    if (n_cols >= 1 && cols[0])
        *(int64_t *)ctx = strtoll(cols[0], NULL, 10);
    return CAS_OK;
}

struct listing {
    struct cas__saves *s;
    struct cas__saves_registered *items;
    size_t n, cap;
};

static char *copy_or_null(const char *text, int *oom)
{
    char *c = text ? strdup(text) : NULL;
    if (text && !c)
        *oom = 1;
    return c;
}

/* cols = id, name, created_at, last_seen, games, key_hash. */
static int take_registered(void *ctx, const char *const *cols, int n_cols)
{
    struct listing *l = ctx;
    if (n_cols < 6 || !cols[0] || !cols[1] || !cols[2] || !cols[5])
        return cas__saves_fail(l->s, CAS_ECORRUPT, "a registered player's row is damaged "
                               "(a NULL where a value must be)");
    if (cas__saves_grow((void **)&l->items, l->n, &l->cap, sizeof *l->items))
        return cas__saves_fail(l->s, CAS_ENOMEM, "out of memory");
    struct cas__saves_registered *r = &l->items[l->n++];
    int oom = 0;
    r->id = strtoll(cols[0], NULL, 10);
    r->games = (size_t)strtoull(cols[4] ? cols[4] : "0", NULL, 10);
    r->name = copy_or_null(cols[1], &oom);
    r->created_at = copy_or_null(cols[2], &oom);
    r->last_seen = copy_or_null(cols[3], &oom);
    r->key_hash = copy_or_null(cols[5], &oom);
    return oom ? cas__saves_fail(l->s, CAS_ENOMEM, "out of memory") : CAS_OK;
}

/* The players a query selects (CAS__SQL_REGISTERED_COLUMNS) into l. */
static int select_registered(struct cas__saves *s, const char *sql, int n_params,
                             const char *const *params, struct listing *l)
{
    l->s = s;
    int rc = CAS__SAVES_METHOD(s, statement)(s, sql, n_params, params, take_registered, l,
                                             NULL, "reading the players");
    if (rc) {
        cas__saves_registered_list_free(l->items, l->n);
        l->items = NULL;
        l->n = 0;
    }
    return rc;
}

static int select_one(struct cas__saves *s, const char *sql, const char *param,
                      struct cas__saves_registered *out)
{
    struct listing l = {0};
    const char *params[] = {param};
    memset(out, 0, sizeof *out);
    int rc = select_registered(s, sql, 1, params, &l);
    if (rc)
        return rc;
    if (l.n == 0) {
        free(l.items);
        return CAS_ENOTFOUND;
    }
    *out = l.items[0];
    l.items[0] = (struct cas__saves_registered){0};
    cas__saves_registered_list_free(l.items, l.n);
    return CAS_OK;
}

int cas__saves_registered_find(struct cas__saves *s, const char *name,
                               struct cas__saves_registered *out)
{
    char key[KEY_CAP];
    lookup_key(name, key);
    int rc = select_one(s, CAS__SQL_REGISTERED_BY_NAME, key, out);
    return rc == CAS_ENOTFOUND ? no_such_player(s, name) : rc;
}

int cas__saves_registered_get(struct cas__saves *s, int64_t id,
                              struct cas__saves_registered *out)
{
    char text[24];
    snprintf(text, sizeof text, "%" PRId64, id);
    int rc = select_one(s, CAS__SQL_REGISTERED_BY_ID, text, out);
    return rc == CAS_ENOTFOUND
               ? cas__saves_fail(s, CAS_ENOTFOUND, "there is no player number %" PRId64, id)
               : rc;
}

int cas__saves_registered_list(struct cas__saves *s, struct cas__saves_registered **out,
                               size_t *n)
{
    struct listing l = {0};
    const char *sql = s->methods->dialect == CAS__SAVES_SQLITE
                          ? CAS__SQL_REGISTERED_ALL(CAS__SQLITE_BYTEWISE)
                          : CAS__SQL_REGISTERED_ALL(CAS__PG_BYTEWISE);
    int rc = select_registered(s, sql, 0, NULL, &l);
    *out = l.items;
    *n = l.n;
    return rc;
}

int cas__saves_registered_add(struct cas__saves *s, const char *name,
                              const char *key_hash, int64_t *id)
{
    char key[KEY_CAP];
    int rc = checked_key(s, name, key);
    if (rc)
        return rc;
    const char *params[] = {name, key, key_hash};
    const char *sql = s->methods->dialect == CAS__SAVES_SQLITE
                          ? CAS__SQL_REGISTERED_ADD(CAS__SQLITE_NOW)
                          : CAS__SQL_REGISTERED_ADD(CAS__PG_NOW);
    *id = 0;
    rc = CAS__SAVES_METHOD(s, statement)(s, sql, 3, params, take_id, id, NULL,
                                         "adding the player");
    return rc == CAS_ECONFLICT ? name_taken(s, name) : rc;
}

int cas__saves_registered_copy(struct cas__saves *s, const struct cas__saves_registered *r)
{
    struct cas__saves_registered there;
    char key[KEY_CAP], id[24];
    int rc = cas__saves_registered_get(s, r->id, &there);
    if (rc == CAS_OK) {
        int same = strcmp(there.name, r->name) == 0 && strcmp(there.key_hash, r->key_hash) == 0;
        cas__saves_registered_free(&there);
        return same ? CAS_OK
                    : cas__saves_fail(s, CAS_ECONFLICT, "player number %" PRId64 " is another "
                                      "player (not \"%.64s\") there; migrate into a new "
                                      "store", r->id, r->name);
    }
    if (rc != CAS_ENOTFOUND || (rc = checked_key(s, r->name, key)))
        return rc;
    snprintf(id, sizeof id, "%" PRId64, r->id);
    const char *params[] = {id, r->name, key, r->key_hash, r->created_at, r->last_seen};
    rc = CAS__SAVES_METHOD(s, statement)(s, CAS__SQL_REGISTERED_COPY, 6, params, NULL, NULL,
                                         NULL, "copying the player");
    if (rc == CAS_ECONFLICT)
        return name_taken(s, r->name);
    if (rc == CAS_OK && s->methods->dialect == CAS__SAVES_PG)
        rc = CAS__SAVES_METHOD(s, statement)(s, CAS__PG_REGISTERED_IDS_CAUGHT_UP, 0, NULL,
                                             NULL, NULL, NULL,
                                             "numbering the players after the copied ones");
    return rc;
}

/* Run a change of the player called name; CAS_ENOTFOUND when none. */
static int change(struct cas__saves *s, const char *sql, int n_params,
                  const char *const *params, const char *name, int64_t *id,
                  const char *what)
{
    int64_t changed = 0;
    int rc = CAS__SAVES_METHOD(s, statement)(s, sql, n_params, params, id ? take_id : NULL,
                                             id, &changed, what);
    if (rc == CAS_OK && changed == 0)
        rc = no_such_player(s, name);
    return rc;
}

int cas__saves_registered_rename(struct cas__saves *s, const char *old_name,
                                 const char *new_name)
{
    char old_key[KEY_CAP], new_key[KEY_CAP];
    int rc = checked_key(s, new_name, new_key);
    if (rc)
        return rc;
    lookup_key(old_name, old_key);
    const char *params[] = {old_key, new_name, new_key};
    rc = change(s, CAS__SQL_REGISTERED_RENAME, 3, params, old_name, NULL,
                "renaming the player");
    return rc == CAS_ECONFLICT ? name_taken(s, new_name) : rc;
}

int cas__saves_registered_rekey(struct cas__saves *s, const char *name,
                                const char *key_hash, int64_t *id)
{
    char key[KEY_CAP];
    lookup_key(name, key);
    const char *params[] = {key, key_hash};
    *id = 0;
    return change(s, CAS__SQL_REGISTERED_REKEY, 2, params, name, id,
                  "giving the player a new key");
}

int cas__saves_registered_remove(struct cas__saves *s, const char *name)
{
    char key[KEY_CAP];
    lookup_key(name, key);
    const char *params[] = {key};
    return change(s, CAS__SQL_REGISTERED_REMOVE, 1, params, name, NULL,
                  "removing the player");
}

int cas__saves_registered_seen(struct cas__saves *s, int64_t id)
{
    char text[24];
    snprintf(text, sizeof text, "%" PRId64, id);
    const char *params[] = {text};
    const char *sql = s->methods->dialect == CAS__SAVES_SQLITE
                          ? CAS__SQL_REGISTERED_SEEN(CAS__SQLITE_NOW)
                          : CAS__SQL_REGISTERED_SEEN(CAS__PG_NOW);
    return CAS__SAVES_METHOD(s, statement)(s, sql, 1, params, NULL, NULL, NULL,
                                           "recording when the player was seen");
}

int cas__saves_seat_register(struct cas__saves *s, int64_t game, int seat, int64_t id)
{
    char g[24], st[16], who[24];
    snprintf(g, sizeof g, "%" PRId64, game);
    snprintf(st, sizeof st, "%d", seat);
    snprintf(who, sizeof who, "%" PRId64, id);
    const char *params[] = {g, st, who};
    return CAS__SAVES_METHOD(s, statement)(s, CAS__SQL_SEAT_REGISTER, 3, params, NULL, NULL,
                                           NULL, "recording who took the seat");
}
