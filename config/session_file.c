/*
 * session_file.c — reading a session file (INI, via inih) into a session
 * description: [session], [rules], [player.N] and [saves].  Shape only;
 * the host checks it against the plugins (cas__session_desc_validate).  The first
 * problem is reported as "FILE:LINE: problem; fix" and nothing is kept.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_spec.h"
#include "session_fields.h"
#include "text.h"

#define SESSION_MAX_BYTES (1 << 20)
#define MAX_PLAYERS 64

struct seen {
    char *name; /* "section" for headers, "section\tkey" for keys */
    int line;
};

struct file_ctx {
    struct cas__ini_cursor cur;
    struct cas__session_desc *d;
    const char *path;
    char *err;
    size_t errlen;
    int rc, err_line;        /* the first problem and its line */
    struct seen *seen;
    size_t n_seen;
    int session_line;
};

static int problem(struct file_ctx *f, int code, const char *fmt, ...) CAS_PRINTF(3, 4);
static int problem(struct file_ctx *f, int code, const char *fmt, ...)
{
    if (f->rc)
        return f->rc;
    char text[1024];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    f->rc = cas__errorf(f->err, f->errlen, code, "%s:%d: %s", f->path, f->cur.line, text);
    f->err_line = f->cur.line;
    return f->rc;
}

/* Record the result of a field setter that already wrote "WHERE: ..." */
static void took(struct file_ctx *f, int rc)
{
    if (rc && !f->rc) {
        f->rc = rc;
        f->err_line = f->cur.line;
    }
}

/* The line name was first seen at, or 0; remembers it at this line. */
/* The line where key `name` ("section\tkey") was set, or 0. */
static int seen_line(const struct file_ctx *f, const char *name)
{
    for (size_t i = 0; i < f->n_seen; i++)
        if (strcmp(f->seen[i].name, name) == 0)
            return f->seen[i].line;
    return 0;
}

static int seen_before(struct file_ctx *f, const char *name)
{
    int line = seen_line(f, name);
    if (line)
        return line;
    struct seen *grown = realloc(f->seen, (f->n_seen + 1) * sizeof *grown);
    char *copy = grown ? strdup(name) : NULL;
    if (grown)
        f->seen = grown;
    if (!copy) {
        problem(f, CAS_ENOMEM, "out of memory");
        return 0;
    }
    f->seen[f->n_seen++] = (struct seen){copy, f->cur.line};
    return 0;
}

/* N of "player.N" (1..64, no leading zero), or 0. */
static int player_number(const char *section)
{
    if (strncmp(section, "player.", 7) != 0)
        return 0;
    const char *digits = section + 7;
    size_t len = strlen(digits);
    if (len == 0 || len > 2 || digits[0] == '0' || strspn(digits, "0123456789") != len)
        return 0;
    int n = atoi(digits);
    return n <= MAX_PLAYERS ? n : 0;
}

/* A section header: known, numbered in order, never repeated. */
static void on_section(void *user, const char *name)
{
    struct file_ctx *f = user;
    int first = seen_before(f, name);
    if (f->rc)
        return;
    if (first) {
        problem(f, CAS_EPARSE, "section [%s] appears again (first at line %d); merge the two",
                name, first);
        return;
    }
    if (strcmp(name, "session") == 0)
        f->session_line = f->cur.line;
    if (!strcmp(name, "session") || !strcmp(name, "rules") || !strcmp(name, "saves"))
        return;
    int n = player_number(name);
    char next[32];
    snprintf(next, sizeof next, "player.%zu", f->d->n_players + 1);
    if (n == 0 && strncmp(name, "player.", 7) == 0) {
        problem(f, CAS_EPARSE, "section [%s] has no valid player number; use [%s] (players "
                               "are numbered 1 to %d)", name, next, MAX_PLAYERS);
    } else if (n == 0) {
        const char *known[] = {"session", "rules", "saves", next};
        const char *closest = cas__closest(name, known, 4);
        problem(f, CAS_EPARSE, "unknown section [%s]; use [session], [rules], [player.N] or "
                               "[saves]%s%s%s", name, closest ? " (closest: [" : "",
                closest ? closest : "", closest ? "])" : "");
    } else if ((size_t)n != f->d->n_players + 1) {
        problem(f, CAS_EPARSE, "[%s] is out of order; number players 1, 2, 3... in order "
                               "without gaps (expected [%s] here)", name, next);
    } else {
        took(f, cas__desc_add_player(f->d, f->cur.line, f->err, f->errlen));
    }
}

static void unknown_key(struct file_ctx *f, const char *section, const char *key,
                        const char *const *known, size_t n)
{
    char list[128] = "", note[96];
    for (size_t i = 0; i < n; i++)
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s",
                 i ? (i + 1 < n ? ", " : " or ") : "", known[i]);
    problem(f, CAS_EPARSE, "unknown key \"%s\" in [%s]; use %s%s", key, section, list,
            cas__closest_note(note, sizeof note, key, known, n));
}

static void session_key(struct file_ctx *f, const char *where, const char *key,
                        const char *value)
{
    struct cas__session_desc *d = f->d;
    static const char *const known[] = {"game", "expansions", "seed", "isolation",
                                        "plugin-deadline-ms", "days-per-move"};
    static const char *const modes[] = {"auto", "worker", "in-process"};
    if (strcmp(key, "game") == 0) {
        d->game_line = f->cur.line;
        took(f, cas__desc_set_game(d, where, value, f->err, f->errlen));
    } else if (strcmp(key, "expansions") == 0) {
        d->expansions_line = f->cur.line;
        took(f, cas__desc_set_expansions(d, where, value, f->err, f->errlen));
    } else if (strcmp(key, "seed") == 0) {
        took(f, cas__desc_set_seed(d, where, value, f->err, f->errlen));
    } else if (strcmp(key, "isolation") == 0) {
        int mode = 0;
        while (mode < 3 && strcmp(value, modes[mode]) != 0)
            mode++;
        char note[64];
        if (mode == 3)
            problem(f, CAS_EPARSE, "isolation = \"%s\" is not valid; use auto, worker or "
                    "in-process%s", value, cas__closest_note(note, sizeof note, value, modes, 3));
        else
            d->isolation = mode;
    } else if (strcmp(key, "plugin-deadline-ms") == 0) {
        char *end;
        errno = 0;
        unsigned long ms = strtoul(value, &end, 10);
        if (!isdigit((unsigned char)*value) || *end || errno || ms < 1 || ms > 3600000)
            problem(f, CAS_EPARSE, "plugin-deadline-ms = \"%s\" is not valid; give the "
                    "milliseconds one plugin call may take, 1 to 3600000 (default %u)",
                    value, 5000u);
        else
            d->deadline_ms = (unsigned)ms;
    } else if (strcmp(key, "days-per-move") == 0) {
        char *end;
        errno = 0;
        long days = strtol(value, &end, 10);
        if (!isdigit((unsigned char)*value) || *end || errno || days < 1 || days > 14)
            problem(f, CAS_EPARSE, "days-per-move = \"%s\" is not valid; give the days each "
                    "move of a correspondence game may take, 1 to 14", value);
        else
            d->days_per_move = (int)days;
    } else {
        unknown_key(f, "session", key, known, 6);
    }
}

static void player_key(struct file_ctx *f, const char *where, const char *section,
                       const char *key, const char *value)
{
    static const char *const known[] = {"name", "agent"};
    struct cas__player_desc *p = &f->d->players[f->d->n_players - 1];
    if (strcmp(key, "name") == 0)
        took(f, cas__desc_set_player_name(p, where, value, f->err, f->errlen));
    else if (strcmp(key, "agent") == 0)
        took(f, cas__desc_set_player_agent(p, where, value, f->err, f->errlen));
    else
        unknown_key(f, section, key, known, 2);
}

/* A PostgreSQL URL (docs/saves.md): postgresql:// or postgres://, then
 * printable characters without spaces.  libpq judges the rest when it
 * connects, naming the URL. */
static int set_url(struct file_ctx *f, const char *key, const char *value)
{
    int scheme = strncmp(value, "postgresql://", 13) == 0 ? 13
               : strncmp(value, "postgres://", 11) == 0 ? 11 : 0;
    if (!scheme)
        return problem(f, CAS_EPARSE, "%s = \"%s\" is not a PostgreSQL URL; write "
                       "postgresql://[USER[:PASSWORD]@][HOST][:PORT]/DATABASE", key, value);
    for (const char *c = value; *c; c++)
        if ((unsigned char)*c <= ' ' || *c == 0x7f)
            return problem(f, CAS_EPARSE, "%s = \"%s\" holds a space or control "
                           "character at position %d; percent-encode it (%%20)", key, value,
                           (int)(c - value) + 1);
    char *url = strdup(value);
    if (!url)
        return problem(f, CAS_ENOMEM, "out of memory");
    free(f->d->database);
    f->d->database = url;
    return CAS_OK;
}

/* "~" or "~/..." against $HOME, a PostgreSQL URL as it is, anything else
 * as written. */
static int set_database(struct file_ctx *f, const char *value)
{
    const char *home = getenv("HOME");
    if (*value == '\0')
        return problem(f, CAS_EPARSE, "database is empty; give a file path, or leave it out "
                                      "for the default");
    if (strncmp(value, "postgres", 8) == 0 && strstr(value, "://"))
        return set_url(f, "database", value);
    if (value[0] == '~' && (value[1] == '/' || value[1] == '\0') && (!home || !*home))
        return problem(f, CAS_EPARSE, "database \"%s\" starts with ~ but HOME is not set; "
                                      "write the full path", value);
    int tilde = value[0] == '~' && (value[1] == '/' || value[1] == '\0');
    size_t len = (tilde ? strlen(home) : 0) + strlen(value) + 1;
    char *path = malloc(len);
    if (!path)
        return problem(f, CAS_ENOMEM, "out of memory");
    snprintf(path, len, "%s%s", tilde ? home : "", value + (tilde ? 1 : 0));
    free(f->d->database);
    f->d->database = path;
    return CAS_OK;
}

static void saves_key(struct file_ctx *f, const char *where, const char *key,
                      const char *value)
{
    static const char *const known[] = {"database", "url", "campaign", "journal"};
    static const char *const on_off[] = {"on", "off"};
    /* database and url name the same store: one of them */
    const char *twin = strcmp(key, "url") == 0 ? "database" : "url";
    char id[32];
    snprintf(id, sizeof id, "saves\t%s", twin);
    int other = strcmp(key, "url") == 0 || strcmp(key, "database") == 0 ? seen_line(f, id) : 0;
    if (other) {
        problem(f, CAS_EPARSE, "%s names the store a second time (%s at line %d); keep "
                "one: database (a file or a URL) or url", key, twin, other);
    } else if (strcmp(key, "database") == 0) {
        set_database(f, value);
    } else if (strcmp(key, "url") == 0) {
        set_url(f, "url", value);
    } else if (strcmp(key, "campaign") == 0) {
        took(f, cas__desc_set_campaign(f->d, where, value, f->err, f->errlen));
    } else if (strcmp(key, "journal") == 0) {
        char note[64];
        if (strcmp(value, "on") == 0 || strcmp(value, "off") == 0)
            f->d->journal = strcmp(value, "on") == 0;
        else
            problem(f, CAS_EPARSE, "journal = \"%s\" is not valid; use on or off%s", value,
                    cas__closest_note(note, sizeof note, value, on_off, 2));
    } else {
        unknown_key(f, "saves", key, known, 4);
    }
}

/* One key = value line of section. */
static void key_line(struct file_ctx *f, const char *section, const char *key,
                     const char *value)
{
    if (f->cur.long_line == f->cur.line) {
        problem(f, CAS_EPARSE, "line longer than %d characters; shorten it",
                f->cur.line_limit);
        return;
    }
    if (*section == '\0') {
        problem(f, CAS_EPARSE, "key \"%s\" comes before any section; put it under [session]",
                key);
        return;
    }
    char id[300];
    snprintf(id, sizeof id, "%s\t%s", section, key);
    int first = seen_before(f, id);
    if (f->rc)
        return;
    if (first) {
        problem(f, CAS_EPARSE, "duplicate key \"%s\" in [%s] (first at line %d); keep one",
                key, section, first);
        return;
    }
    char where[4200];
    snprintf(where, sizeof where, "%s:%d", f->path, f->cur.line);
    if (strcmp(section, "session") == 0)
        session_key(f, where, key, value);
    else if (strcmp(section, "rules") == 0)
        took(f, cas__desc_add_rule(f->d, where, key, value, f->cur.line, f->err, f->errlen));
    else if (strcmp(section, "saves") == 0)
        saves_key(f, where, key, value);
    else
        player_key(f, where, section, key, value);
}

static int on_key(void *user, const char *section, const char *key, const char *value)
{
    struct file_ctx *f = user;
    if (!f->rc)
        key_line(f, section, key, value);
    return 1;
}

/* What a complete file must have once every line is read. */
static int check_complete(struct file_ctx *f)
{
    struct cas__session_desc *d = f->d;
    if (!d->game)
        return cas__errorf(f->err, f->errlen, CAS_EPARSE,
                           f->session_line ? "%s:%d: [session] has no game; add game = ID "
                                             "(`castellan plugins` lists the games)"
                                           : "%s:%d: no [session] section; add [session] "
                                             "with game = ID",
                           f->path, f->session_line ? f->session_line : 1);
    if (d->n_players == 0)
        return cas__errorf(f->err, f->errlen, CAS_EPARSE,
                           "%s:%d: no players; add [player.1] with agent = human, "
                           CAS__BOT_SYNTAX,
                           f->path, d->last_line);
    for (size_t i = 0; i < d->n_players; i++)
        if (!d->players[i].agent)
            return cas__errorf(f->err, f->errlen, CAS_EPARSE,
                               "%s:%d: [player.%zu] has no agent; add agent = human, "
                               CAS__BOT_SYNTAX,
                               f->path, d->players[i].line, i + 1);
    return cas__desc_default_names(d, f->err, f->errlen);
}

int cas__session_desc_parse(const char *path, const char *text,
                            struct cas__session_desc *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->journal = 1;
    struct file_ctx f = {.d = out, .path = path, .err = err, .errlen = errlen};
    f.cur.on_section = on_section;
    f.cur.user = &f;
    int bad_line = cas__ini_parse(text, &f.cur, on_key, &f);
    out->last_line = f.cur.line ? f.cur.line : 1;
    int rc = f.rc;
    if (bad_line > 0 && (!rc || bad_line < f.err_line))
        rc = cas__errorf(err, errlen, CAS_EPARSE,
                         "%s:%d: neither [section] nor key = value; fix the line's syntax",
                         path, bad_line);
    if (!rc)
        rc = check_complete(&f);
    if (!rc) {
        out->path = strdup(path);
        out->text = strdup(text);
        if (!out->path || !out->text)
            rc = cas__errorf(err, errlen, CAS_ENOMEM, "out of memory");
    }
    for (size_t i = 0; i < f.n_seen; i++)
        free(f.seen[i].name);
    free(f.seen);
    if (rc)
        cas__session_desc_free(out);
    return rc;
}

int cas__session_desc_load(const char *path, struct cas__session_desc *out, char *err,
                           size_t errlen)
{
    char *text;
    memset(out, 0, sizeof *out);
    int rc = cas__read_file(path, SESSION_MAX_BYTES, &text);
    if (rc == CAS_EIO)
        return cas__errorf(err, errlen, rc, "%s: cannot be read: %s; check the path", path,
                           strerror(errno));
    if (rc == CAS_EINVAL)
        return cas__errorf(err, errlen, rc,
                           "%s: not a session file (binary, or larger than 1 MiB); give an "
                           "INI file like config/presets/default.ini",
                           path);
    if (rc)
        return cas__errorf(err, errlen, rc, "out of memory");
    rc = cas__session_desc_parse(path, text, out, err, errlen);
    free(text);
    return rc;
}

void cas__session_desc_free(struct cas__session_desc *d)
{
    free(d->path);
    free(d->text);
    free(d->game);
    for (size_t i = 0; i < d->n_expansions; i++)
        free(d->expansions[i]);
    free(d->expansions);
    for (size_t i = 0; i < d->n_rules; i++) {
        free(d->rules[i].key);
        free(d->rules[i].value);
    }
    free(d->rules);
    for (size_t i = 0; i < d->n_players; i++) {
        free(d->players[i].name);
        free(d->players[i].agent);
    }
    free(d->players);
    free(d->database);
    free(d->campaign);
    memset(d, 0, sizeof *d);
}
