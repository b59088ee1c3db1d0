/*
 * manifest.c — reading a plugin manifest (ID.ini) before any of the
 * plugin's code runs.  Every problem becomes the plugin's one-line refusal
 * naming file:line, the bad value and the fix; the first problem wins.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"
#include "text.h"

#define MANIFEST_MAX_BYTES 65536
#define MAX_PLAYERS 64

enum key {
    K_ID, K_KIND, K_VERSION, K_ABI, K_DESCRIPTION, K_MIN_PLAYERS,
    K_MAX_PLAYERS, K_EXTENDS, K_REQUIRES, K_CONFLICTS, K_AFTER, K_BEFORE,
    N_KEYS
};

static const struct {
    const char *section, *name;
    const char *expected; /* what a valid value looks like */
} keys[N_KEYS] = {
    [K_ID] = {"plugin", "id", "the plugin's folder name, [a-z][a-z0-9-]*"},
    [K_KIND] = {"plugin", "kind", "game or expansion"},
    [K_VERSION] = {"plugin", "version", "MAJOR.MINOR.PATCH, e.g. 1.0.0"},
    [K_ABI] = {"plugin", "abi", "the plugin.h ABI it was built with, MAJOR.MINOR, e.g. 1.0"},
    [K_DESCRIPTION] = {"plugin", "description", "one line of text"},
    [K_MIN_PLAYERS] = {"plugin", "min_players", "an integer from 1 to 64"},
    [K_MAX_PLAYERS] = {"plugin", "max_players", "an integer from 1 to 64"},
    [K_EXTENDS] = {"expansion", "extends", "the id of the game it extends"},
    [K_REQUIRES] = {"expansion", "requires", "comma-separated plugin ids"},
    [K_CONFLICTS] = {"expansion", "conflicts", "comma-separated plugin ids"},
    [K_AFTER] = {"expansion", "after", "comma-separated plugin ids"},
    [K_BEFORE] = {"expansion", "before", "comma-separated plugin ids"},
};

struct manifest_ctx {
    struct cas__ini_cursor cur;
    struct cas__plugin_info *info;
    const char *folder_name;
    int line_of[N_KEYS]; /* where each key was set, 0 if absent */
    int rc;              /* CAS_ENOMEM once storing failed */
};

static int refuse_at(struct manifest_ctx *m, const char *fmt, ...) CAS_PRINTF(2, 3);
static int refuse_at(struct manifest_ctx *m, const char *fmt, ...)
{
    char reason[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(reason, sizeof reason, fmt, args);
    va_end(args);
    int rc = cas__refuse(m->info, "%s:%d: %s", m->info->manifest_path, m->cur.line,
                         reason);
    if (rc)
        m->rc = rc;
    return 1; /* keep inih going; the first problem is already kept */
}

static int bad_value(struct manifest_ctx *m, enum key k, const char *value)
{
    return refuse_at(m, "%s = \"%s\" is not valid; use %s", keys[k].name, value,
                     keys[k].expected);
}

/* "1.2.3" (three) or "1.0" (two) dot-separated decimal numbers. */
static int parse_numbers(const char *text, unsigned *out, int count)
{
    for (int i = 0; i < count; i++) {
        size_t digits = strspn(text, "0123456789");
        if (digits == 0 || digits > 5)
            return 0;
        out[i] = (unsigned)strtoul(text, NULL, 10);
        text += digits;
        if (*text != (i + 1 < count ? '.' : '\0'))
            return 0;
        text++;
    }
    return 1;
}

static int parse_players(const char *text, int *out)
{
    unsigned n;
    if (!parse_numbers(text, &n, 1) || n < 1 || n > MAX_PLAYERS)
        return 0;
    *out = (int)n;
    return 1;
}

static int store_text(struct manifest_ctx *m, char **field, const char *value)
{
    *field = strdup(value);
    if (!*field)
        m->rc = CAS_ENOMEM;
    return 1;
}

static int store_ids(struct manifest_ctx *m, enum key k, struct cas__strlist *list,
                     const char *value)
{
    int rc = cas__strlist_split(list, value, ',');
    if (rc == CAS_ENOMEM) {
        m->rc = rc;
        return 1;
    }
    if (rc)
        return bad_value(m, k, value);
    for (size_t i = 0; i < list->count; i++)
        if (!cas__is_plugin_id(list->items[i]))
            return bad_value(m, k, value);
    return 1;
}

static int store_value(struct manifest_ctx *m, enum key k, const char *value)
{
    struct cas__plugin_info *info = m->info;
    unsigned abi[2], version[3];
    switch (k) {
    case K_ID:
        if (!cas__is_plugin_id(value))
            return bad_value(m, k, value);
        if (strcmp(value, m->folder_name) != 0)
            return refuse_at(m,
                             "id = \"%s\" differs from its folder name \"%s\"; a plugin "
                             "lives in DIR/ID/ID.ini, rename one to match",
                             value, m->folder_name);
        return store_text(m, &info->id, value);
    case K_KIND:
        if (strcmp(value, "game") == 0)
            info->kind = CAS_KIND_GAME;
        else if (strcmp(value, "expansion") == 0)
            info->kind = CAS_KIND_EXPANSION;
        else
            return bad_value(m, k, value);
        return 1;
    case K_VERSION:
        if (!parse_numbers(value, version, 3))
            return bad_value(m, k, value);
        return store_text(m, &info->version, value);
    case K_ABI:
        if (!parse_numbers(value, abi, 2) || abi[0] > 65535 || abi[1] > 65535)
            return bad_value(m, k, value);
        info->abi_major = abi[0];
        info->abi_minor = abi[1];
        return 1;
    case K_DESCRIPTION:
        if (*value == '\0')
            return bad_value(m, k, value);
        return store_text(m, &info->description, value);
    case K_MIN_PLAYERS:
        return parse_players(value, &info->min_players) ? 1 : bad_value(m, k, value);
    case K_MAX_PLAYERS:
        return parse_players(value, &info->max_players) ? 1 : bad_value(m, k, value);
    case K_EXTENDS:
        if (!cas__is_plugin_id(value))
            return bad_value(m, k, value);
        return store_text(m, &info->extends, value);
    case K_REQUIRES:
        return store_ids(m, k, &info->requires, value);
    case K_CONFLICTS:
        return store_ids(m, k, &info->conflicts, value);
    case K_AFTER:
        return store_ids(m, k, &info->after, value);
    case K_BEFORE:
        return store_ids(m, k, &info->before, value);
    case N_KEYS:
        break;
    }
    return 1;
}

static int unknown_key(struct manifest_ctx *m, const char *section, const char *name)
{
    const char *names[N_KEYS];
    size_t n = 0;
    for (int k = 0; k < N_KEYS; k++)
        if (strcmp(keys[k].section, section) == 0)
            names[n++] = keys[k].name;
    if (*section == '\0')
        return refuse_at(m, "key \"%s\" comes before any section; put it under "
                            "[plugin] or [expansion]", name);
    if (n == 0)
        return refuse_at(m, "unknown section [%s]; use [plugin] or [expansion]", section);
    const char *closest = cas__closest(name, names, n);
    return refuse_at(m, "unknown key \"%s\" in [%s]; %s%s%s", name, section,
                     closest ? "did you mean " : "remove it", closest ? closest : "",
                     closest ? "?" : "");
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
    struct manifest_ctx *m = user;
    if (m->rc)
        return 1;
    if (m->cur.long_line == m->cur.line)
        return refuse_at(m, "line longer than %d characters; shorten it",
                         m->cur.line_limit);
    for (int k = 0; k < N_KEYS; k++) {
        if (strcmp(keys[k].section, section) != 0 || strcmp(keys[k].name, name) != 0)
            continue;
        if (m->line_of[k])
            return refuse_at(m, "duplicate key \"%s\" (first set at line %d); keep one",
                             name, m->line_of[k]);
        m->line_of[k] = m->cur.line;
        return store_value(m, (enum key)k, value);
    }
    return unknown_key(m, section, name);
}

static void on_section(void *user, const char *name)
{
    if (strcmp(name, "plugin") != 0 && strcmp(name, "expansion") != 0)
        unknown_key(user, name, "");
}

/* The manifest's own ABI against the host's, before anything is loaded. */
static int check_abi(struct manifest_ctx *m)
{
    struct cas__plugin_info *info = m->info;
    const char *file = info->manifest_path;
    int line = m->line_of[K_ABI];
    if (info->abi_major != CAS_ABI_MAJOR)
        return cas__refuse(info,
                           "%s:%d: plugin ABI %u.%u has another major version than the "
                           "host's %d.%d; rebuild the plugin against this castellan's "
                           "plugin.h (ABI %d.x)",
                           file, line, info->abi_major, info->abi_minor, CAS_ABI_MAJOR,
                           CAS_ABI_MINOR, CAS_ABI_MAJOR);
    if (info->abi_minor > CAS_ABI_MINOR)
        return cas__refuse(info,
                           "%s:%d: plugin ABI %u.%u is newer than the host's %d.%d; "
                           "upgrade castellan, or rebuild the plugin against ABI %d.%d",
                           file, line, info->abi_major, info->abi_minor, CAS_ABI_MAJOR,
                           CAS_ABI_MINOR, CAS_ABI_MAJOR, CAS_ABI_MINOR);
    return CAS_OK;
}

static int refuse_missing(struct manifest_ctx *m, enum key k)
{
    return cas__refuse(m->info, "%s: missing key %s in [%s]; add %s = <%s>",
                       m->info->manifest_path, keys[k].name, keys[k].section,
                       keys[k].name, keys[k].expected);
}

/* Keys a game or an expansion must or must not have, and their agreement. */
static int check_shape(struct manifest_ctx *m)
{
    static const enum key always[] = {K_ID, K_KIND, K_VERSION, K_ABI, K_DESCRIPTION};
    struct cas__plugin_info *info = m->info;
    for (size_t i = 0; i < sizeof always / sizeof always[0]; i++)
        if (!m->line_of[always[i]])
            return refuse_missing(m, always[i]);
    if (info->kind == CAS_KIND_GAME) {
        if (!m->line_of[K_MIN_PLAYERS])
            return refuse_missing(m, K_MIN_PLAYERS);
        if (!m->line_of[K_MAX_PLAYERS])
            return refuse_missing(m, K_MAX_PLAYERS);
        for (int k = K_EXTENDS; k <= K_BEFORE; k++)
            if (m->line_of[k])
                return cas__refuse(info,
                                   "%s:%d: [expansion] %s in a game's manifest; remove "
                                   "it, or set kind = expansion",
                                   info->manifest_path, m->line_of[k], keys[k].name);
        if (info->min_players > info->max_players)
            return cas__refuse(info,
                               "%s:%d: min_players = %d is more than max_players = %d; "
                               "lower min_players or raise max_players",
                               info->manifest_path, m->line_of[K_MIN_PLAYERS],
                               info->min_players, info->max_players);
    } else {
        if (!m->line_of[K_EXTENDS])
            return refuse_missing(m, K_EXTENDS);
        if (m->line_of[K_MIN_PLAYERS])
            return cas__refuse(info,
                               "%s:%d: min_players is for games only; remove it (an "
                               "expansion may raise max_players)",
                               info->manifest_path, m->line_of[K_MIN_PLAYERS]);
    }
    return check_abi(m);
}

int cas__manifest_read(struct cas__plugin_info *info, const char *folder_name)
{
    struct manifest_ctx m = {.info = info, .folder_name = folder_name};
    char *text;
    int rc = cas__read_file(info->manifest_path, MANIFEST_MAX_BYTES, &text);
    if (rc == CAS_ENOMEM)
        return rc;
    if (rc == CAS_EIO)
        return cas__refuse(info, "%s: cannot be read: %s; fix the file or its permissions",
                           info->manifest_path, strerror(errno));
    if (rc)
        return cas__refuse(info,
                           "%s: not a manifest (larger than %d bytes or binary); "
                           "replace it with a plugin's ID.ini",
                           info->manifest_path, MANIFEST_MAX_BYTES);
    m.cur.on_section = on_section;
    m.cur.user = &m;
    int bad_line = cas__ini_parse(text, &m.cur, on_key, &m);
    free(text);
    if (m.rc)
        return m.rc;
    if (bad_line > 0)
        rc = cas__refuse(info,
                         "%s:%d: neither [section] nor key = value; fix the line's syntax",
                         info->manifest_path, bad_line);
    return rc ? rc : check_shape(&m);
}
