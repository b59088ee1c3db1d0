/*
 * record.c — plain-text game records: the currency of bug reports.
 *
 * A record is a header of "Key: value" lines, a blank line, then one action
 * per line as "PLY ACTOR TEXT #HASH" (docs/saves.md); the hash may be left
 * out, by a person or a program that cannot compute castellan's.  Header values are
 * single lines: a backslash, control characters and line breaks in names
 * or config text are escaped, so every game round-trips exactly.  Records
 * come from strangers: the parser checks everything and names file:line.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "saves_int.h"

#define RECORD_FORMAT 1

/* ------------------------------------------------------------- writing */

static void write_escaped(FILE *out, const char *text)
{
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '\\')
            fputs("\\\\", out);
        else if (*p == '\n')
            fputs("\\n", out);
        else if (*p == '\t')
            fputs("\\t", out);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(out, "\\x%02x", *p);
        else
            fputc(*p, out);
    }
}

static void write_value(FILE *out, const char *key, const char *value)
{
    fprintf(out, "%s: ", key);
    write_escaped(out, value);
    fputc('\n', out);
}

static void write_header(const struct cas__saves_game *g, FILE *out)
{
    fprintf(out, "Castellan-Record: %d\n", RECORD_FORMAT);
    if (g->castellan_version && g->castellan_version[0])
        write_value(out, "Castellan-Version", g->castellan_version);
    fprintf(out, "Game: %s %s\n", g->game.id, g->game.version);
    for (size_t i = 0; i < g->n_expansions; i++)
        fprintf(out, "Expansion: %s %s\n", g->expansions[i].id,
                g->expansions[i].version);
    for (size_t i = 0; i < g->n_options; i++) {
        fprintf(out, "Option: %s = ", g->options[i].key);
        write_escaped(out, g->options[i].value);
        fputc('\n', out);
    }
    fprintf(out, "Seed: %llu\n", (unsigned long long)g->seed);
    for (size_t i = 0; i < g->n_players; i++) {
        fprintf(out, "Player: %s ", g->players[i].agent);
        write_escaped(out, g->players[i].name);
        fputc('\n', out);
    }
    if (g->campaign)
        write_value(out, "Campaign", g->campaign);
    if (g->created_at)
        write_value(out, "Date", g->created_at);
    fprintf(out, "Status: %s\n",
            g->status == CAS__SAVES_FINISHED ? "finished" : "playing");
    if (g->status == CAS__SAVES_FINISHED) {
        fputs("Result:", out);
        for (size_t i = 0; i < g->n_players; i++)
            fprintf(out, " %lld", (long long)g->players[i].score);
        fputc('\n', out);
    }
    if (g->config_text && g->config_text[0])
        write_value(out, "Config", g->config_text);
}

int cas__record_write(const struct cas__saves_game *g, FILE *out, int with_hashes)
{
    for (size_t i = 0; i < g->n_actions; i++)
        if (strpbrk(g->actions[i].text, "\r\n"))
            return CAS_EINVAL;
    write_header(g, out);
    fputc('\n', out);
    for (size_t i = 0; i < g->n_actions; i++) {
        const struct cas__saves_action *a = &g->actions[i];
        fprintf(out, "%u %d %s", a->ply, a->actor, a->text);
        if (with_hashes)
            fprintf(out, " #%016llx", (unsigned long long)a->hash);
        fputc('\n', out);
    }
    return fflush(out) == 0 && !ferror(out) ? CAS_OK : CAS_EIO;
}

/* ------------------------------------------------------------- parsing */

struct parser {
    const char *name;       /* the file, for messages */
    int line;
    char *err;
    size_t errlen;
    struct cas__saves_game *g;
    size_t cap_expansions, cap_options, cap_players, cap_actions;
    int seen_record, seen_seed, seen_result;
    int64_t *result;        /* scores of the Result line, until players are known */
    size_t n_result;
};

static CAS_PRINTF(2, 3) int syntax(struct parser *p, const char *fmt, ...)
{
    char text[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    if (p->line)
        snprintf(p->err, p->errlen, "%s:%d: %s", p->name, p->line, text);
    else
        snprintf(p->err, p->errlen, "%s: %s", p->name, text);
    return CAS_EPARSE;
}

static int oom(struct parser *p)
{
    snprintf(p->err, p->errlen, "%s: out of memory", p->name);
    return CAS_ENOMEM;
}

static int hex_digit(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Undo write_escaped on text[0..len) into a new string. */
static int unescape(struct parser *p, const char *text, size_t len, char **out)
{
    char *s = malloc(len + 1), *w = s;
    if (!s)
        return oom(p);
    for (size_t i = 0; i < len; i++) {
        if (text[i] != '\\') {
            *w++ = text[i];
            continue;
        }
        char next = i + 1 < len ? text[i + 1] : '\0';
        if (next == '\\' || next == 'n' || next == 't') {
            *w++ = next == 'n' ? '\n' : next == 't' ? '\t' : '\\';
            i++;
        } else if (next == 'x' && i + 3 < len && hex_digit(text[i + 2]) >= 0 &&
                   hex_digit(text[i + 3]) >= 0 &&
                   (hex_digit(text[i + 2]) || hex_digit(text[i + 3]))) {
            *w++ = (char)(hex_digit(text[i + 2]) << 4 | hex_digit(text[i + 3]));
            i += 3;
        } else {
            free(s);
            return syntax(p, "bad escape '\\%c' (use \\\\, \\n, \\t or \\xHH)",
                          next ? next : ' ');
        }
    }
    *w = '\0';
    *out = s;
    return CAS_OK;
}

static char *copy_span(const char *text, size_t len)
{
    char *s = malloc(len + 1);
    if (s) {
        memcpy(s, text, len);
        s[len] = '\0';
    }
    return s;
}

/* Strict unsigned decimal: digits only, no sign, no overflow. */
static int parse_u64(const char *text, size_t len, uint64_t *out)
{
    uint64_t v = 0;
    if (len == 0 || len > 20)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (text[i] < '0' || text[i] > '9')
            return -1;
        unsigned d = (unsigned)(text[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

static int parse_i64(const char *text, size_t len, int64_t *out)
{
    int negative = len > 0 && text[0] == '-';
    uint64_t v;
    if (parse_u64(text + negative, len - (size_t)negative, &v) ||
        v > (uint64_t)INT64_MAX + (uint64_t)negative)
        return -1;
    *out = negative ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

/* A word: [A-Za-z0-9._+-]+, as ids, versions and agents are. */
static int is_word(const char *text, size_t len)
{
    if (len == 0)
        return 0;
    for (size_t i = 0; i < len; i++) {
        char c = text[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '+' ||
              c == '-'))
            return 0;
    }
    return 1;
}

/* "ID VERSION" into ref. */
static int parse_ref(struct parser *p, const char *key, const char *v, size_t len,
                     struct cas__saves_plugin_ref *ref)
{
    const char *space = memchr(v, ' ', len);
    if (!space || !is_word(v, (size_t)(space - v)) ||
        !is_word(space + 1, len - (size_t)(space - v) - 1))
        return syntax(p, "expected '%s: ID VERSION', e.g. '%s: carcassonne 1.0.0'",
                      key, key);
    ref->line = p->line;
    if (!(ref->id = copy_span(v, (size_t)(space - v))) ||
        !(ref->version = copy_span(space + 1, len - (size_t)(space - v) - 1)))
        return oom(p);
    return CAS_OK;
}

static int parse_game(struct parser *p, const char *v, size_t len)
{
    if (p->g->game.id)
        return syntax(p, "a second 'Game' line; a record holds one game");
    return parse_ref(p, "Game", v, len, &p->g->game);
}

static int parse_expansion(struct parser *p, const char *v, size_t len)
{
    struct cas__saves_game *g = p->g;
    if (cas__saves_grow((void **)&g->expansions, g->n_expansions, &p->cap_expansions,
             sizeof *g->expansions))
        return oom(p);
    return parse_ref(p, "Expansion", v, len, &g->expansions[g->n_expansions++]);
}

static int parse_option(struct parser *p, const char *v, size_t len)
{
    struct cas__saves_game *g = p->g;
    const char *eq = memchr(v, '=', len);
    size_t key_len = eq ? (size_t)(eq - v) : 0;
    while (key_len && v[key_len - 1] == ' ')
        key_len--;
    if (!eq || !is_word(v, key_len) || eq + 1 >= v + len || eq[1] != ' ')
        return syntax(p, "expected 'Option: NAME = VALUE', e.g. "
                      "'Option: farmers = on'");
    if (cas__saves_grow((void **)&g->options, g->n_options, &p->cap_options, sizeof *g->options))
        return oom(p);
    struct cas__saves_option *o = &g->options[g->n_options++];
    if (!(o->key = copy_span(v, key_len)))
        return oom(p);
    return unescape(p, eq + 2, len - (size_t)(eq + 2 - v), &o->value);
}

/* An agent spec's characters: a word, or a search bot's budget and
 * threads (mcts@1000/1); which agents exist is the reviver's to check. */
static int is_agent(const char *text, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (text[i] != '@' && text[i] != '/' && !is_word(text + i, 1))
            return 0;
    return len > 0;
}

static int parse_player(struct parser *p, const char *v, size_t len)
{
    struct cas__saves_game *g = p->g;
    const char *space = memchr(v, ' ', len);
    if (!space || !is_agent(v, (size_t)(space - v)) || space + 1 == v + len)
        return syntax(p, "expected 'Player: AGENT NAME', e.g. 'Player: human Ada'");
    if (cas__saves_grow((void **)&g->players, g->n_players, &p->cap_players, sizeof *g->players))
        return oom(p);
    struct cas__saves_player *pl = &g->players[g->n_players++];
    if (!(pl->agent = copy_span(v, (size_t)(space - v))))
        return oom(p);
    return unescape(p, space + 1, len - (size_t)(space - v) - 1, &pl->name);
}

static int parse_seed(struct parser *p, const char *v, size_t len)
{
    if (p->seen_seed++)
        return syntax(p, "a second 'Seed' line");
    if (parse_u64(v, len, &p->g->seed))
        return syntax(p, "'Seed' must be a decimal number from 0 to "
                      "18446744073709551615, not '%.*s'", (int)len, v);
    return CAS_OK;
}

static int parse_status(struct parser *p, const char *v, size_t len)
{
    if (len == 8 && memcmp(v, "finished", 8) == 0)
        p->g->status = CAS__SAVES_FINISHED;
    else if (len == 7 && memcmp(v, "playing", 7) == 0)
        p->g->status = CAS__SAVES_PLAYING;
    else
        return syntax(p, "'Status' is 'playing' or 'finished', not '%.*s'",
                      (int)len, v);
    return CAS_OK;
}

static int parse_result(struct parser *p, const char *v, size_t len)
{
    size_t cap = 0;
    if (p->seen_result++)
        return syntax(p, "a second 'Result' line");
    for (size_t i = 0; i < len;) {
        size_t end = i;
        while (end < len && v[end] != ' ')
            end++;
        if (cas__saves_grow((void **)&p->result, p->n_result, &cap, sizeof *p->result))
            return oom(p);
        if (parse_i64(v + i, end - i, &p->result[p->n_result++]))
            return syntax(p, "'Result' lists one integer score per player, "
                          "not '%.*s'", (int)(end - i), v + i);
        i = end + 1;
    }
    return CAS_OK;
}

/* A text value stored once: Castellan-Version, Campaign, Date, Config. */
static int parse_text(struct parser *p, char **field, const char *key,
                      const char *v, size_t len)
{
    if (*field)
        return syntax(p, "a second '%s' line", key);
    return unescape(p, v, len, field);
}

static const char *const keys[] = {
    "Castellan-Version", "Game", "Expansion", "Option", "Seed", "Player",
    "Campaign", "Date", "Status", "Result", "Config",
};

static int unknown_key(struct parser *p, const char *key, size_t len)
{
    char known[256] = "";
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        strncat(known, i ? ", " : "", sizeof known - strlen(known) - 1);
        strncat(known, keys[i], sizeof known - strlen(known) - 1);
    }
    return syntax(p, "unknown header key '%.*s'; the keys are %s", (int)len, key,
                  known);
}

static int key_is(const char *key, size_t len, const char *name)
{
    return strlen(name) == len && memcmp(key, name, len) == 0;
}

static int parse_header_line(struct parser *p, const char *line, size_t len)
{
    const char *colon = memchr(line, ':', len);
    if (!colon || colon + 1 >= line + len || colon[1] != ' ')
        return syntax(p, "expected a header line 'Key: value' (the header ends "
                      "at the first blank line)");
    const char *key = line, *v = colon + 2;
    size_t klen = (size_t)(colon - line), vlen = len - klen - 2;
    if (!p->seen_record) {
        uint64_t format;
        if (!key_is(key, klen, "Castellan-Record"))
            return syntax(p, "not a castellan game record: the first line must be "
                          "'Castellan-Record: %d'", RECORD_FORMAT);
        if (parse_u64(v, vlen, &format) || format != RECORD_FORMAT)
            return syntax(p, "record format '%.*s' is not supported (this "
                          "castellan reads format %d); upgrade castellan",
                          (int)vlen, v, RECORD_FORMAT);
        p->seen_record = 1;
        return CAS_OK;
    }
    struct cas__saves_game *g = p->g;
    if (key_is(key, klen, "Castellan-Version"))
        return parse_text(p, &g->castellan_version, "Castellan-Version", v, vlen);
    if (key_is(key, klen, "Game"))
        return parse_game(p, v, vlen);
    if (key_is(key, klen, "Expansion"))
        return parse_expansion(p, v, vlen);
    if (key_is(key, klen, "Option"))
        return parse_option(p, v, vlen);
    if (key_is(key, klen, "Seed"))
        return parse_seed(p, v, vlen);
    if (key_is(key, klen, "Player"))
        return parse_player(p, v, vlen);
    if (key_is(key, klen, "Campaign"))
        return parse_text(p, &g->campaign, "Campaign", v, vlen);
    if (key_is(key, klen, "Date"))
        return parse_text(p, &g->created_at, "Date", v, vlen);
    if (key_is(key, klen, "Status"))
        return parse_status(p, v, vlen);
    if (key_is(key, klen, "Result"))
        return parse_result(p, v, vlen);
    if (key_is(key, klen, "Config"))
        return parse_text(p, &g->config_text, "Config", v, vlen);
    return unknown_key(p, key, klen);
}

/* After the header: what it must hold, and Result matched to players. */
static int finish_header(struct parser *p)
{
    struct cas__saves_game *g = p->g;
    if (!p->seen_record)
        return syntax(p, "empty record: the first line must be "
                      "'Castellan-Record: %d'", RECORD_FORMAT);
    if (!g->game.id)
        return syntax(p, "the header has no 'Game: ID VERSION' line");
    if (!p->seen_seed)
        return syntax(p, "the header has no 'Seed: N' line");
    if (g->n_players == 0)
        return syntax(p, "the header has no 'Player: AGENT NAME' line");
    if (p->seen_result && p->n_result != g->n_players)
        return syntax(p, "'Result' lists %zu scores for %zu players", p->n_result,
                      g->n_players);
    if (p->seen_result && g->status != CAS__SAVES_FINISHED)
        return syntax(p, "'Result' is only for 'Status: finished' games");
    for (size_t i = 0; i < p->n_result; i++) {
        g->players[i].has_score = 1;
        g->players[i].score = p->result[i];
    }
    return CAS_OK;
}

/* The " #HASH" that ends a line (at end) after its third word (text), or
 * NULL. */
static const char *find_hash(const char *end, const char *text)
{
    for (const char *c = end - 1; text && c > text; c--)
        if (*c == '#' && c[-1] == ' ')
            return c;
    return NULL;
}

/* "PLY ACTOR TEXT #HASH", or "PLY ACTOR TEXT" */
static int parse_action_line(struct parser *p, const char *line, size_t len)
{
    struct cas__saves_game *g = p->g;
    const char *end = line + len, *sp1 = memchr(line, ' ', len), *sp2 = NULL;
    if (sp1)
        sp2 = memchr(sp1 + 1, ' ', (size_t)(end - sp1 - 1));
    const char *hash_at = find_hash(end, sp2);
    const char *text_end = hash_at ? hash_at - 1 : end;
    if (!sp2 || text_end <= sp2 + 1)
        return syntax(p, "expected an action line 'PLY ACTOR TEXT' or 'PLY ACTOR TEXT "
                      "#HASH', e.g. '0 -1 draw D' or '0 -1 draw D #0123456789abcdef'");
    uint64_t ply, hash = 0;
    int64_t actor;
    if (parse_u64(line, (size_t)(sp1 - line), &ply) || ply != g->n_actions)
        return syntax(p, "expected ply %zu here, found '%.*s' (plies count from 0, "
                      "one per line)", g->n_actions, (int)(sp1 - line), line);
    if (parse_i64(sp1 + 1, (size_t)(sp2 - sp1 - 1), &actor) || actor < -1 ||
        actor >= (int64_t)g->n_players)
        return syntax(p, "actor '%.*s' is neither -1 (chance) nor a player 0..%zu",
                      (int)(sp2 - sp1 - 1), sp1 + 1, g->n_players - 1);
    int hash_ok = !hash_at || end - hash_at - 1 == 16;
    for (int i = 0; hash_at && hash_ok && i < 16; i++) {
        int digit = hex_digit(hash_at[1 + i]);
        hash_ok = digit >= 0;
        hash = hash << 4 | (uint64_t)(digit & 0xf);
    }
    if (!hash_ok)
        return syntax(p, "the state hash '%.*s' must be 16 hex digits after '#' (or "
                      "leave ' #HASH' out)", (int)(end - hash_at - 1), hash_at + 1);
    if (cas__saves_grow((void **)&g->actions, g->n_actions, &p->cap_actions, sizeof *g->actions))
        return oom(p);
    struct cas__saves_action *a = &g->actions[g->n_actions];
    a->ply = (uint32_t)ply;
    a->actor = (int)actor;
    a->hash = hash;
    a->hashless = !hash_at;
    a->line = p->line;
    if (!(a->text = copy_span(sp2 + 1, (size_t)(text_end - sp2 - 1))))
        return oom(p);
    g->n_actions++;
    return CAS_OK;
}

static int parse_lines(struct parser *p, const char *text, size_t len)
{
    int in_header = 1, rc = CAS_OK;
    for (size_t at = 0; at < len && !rc;) {
        const char *line = text + at, *nl = memchr(line, '\n', len - at);
        size_t n = nl ? (size_t)(nl - line) : len - at;
        at += n + (nl ? 1 : 0);
        p->line++;
        if (n && line[n - 1] == '\r')
            n--;
        if (memchr(line, '\0', n))
            return syntax(p, "a NUL byte; a record is text");
        if (n > 0 && line[0] == '#')
            continue;
        if (n == 0) {
            if (in_header && !(rc = finish_header(p)))
                in_header = 0;
            continue;
        }
        rc = in_header ? parse_header_line(p, line, n) : parse_action_line(p, line, n);
    }
    /* The blank line is what says the header is whole: without it the
     * record was cut off (a header is never the last thing written). */
    if (!rc && in_header && !(rc = finish_header(p)))
        rc = syntax(p, "the record ends inside its header (no blank line after it), so it "
                       "was cut off; export the game again, or end the header with a blank "
                       "line if it really has no actions");
    return rc;
}

int cas__record_parse(const char *text, size_t len, const char *name,
                      struct cas__saves_game *out, char *err, size_t errlen)
{
    struct parser p = {.name = name, .err = err, .errlen = errlen, .g = out};
    memset(out, 0, sizeof *out);
    size_t bom = len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0; /* as editors
                                                                          save UTF-8 */
    int rc = parse_lines(&p, text + bom, len - bom);
    free(p.result);
    if (rc)
        cas__saves_game_free(out);
    return rc;
}

int cas__record_read_file(const char *path, struct cas__saves_game *out,
                          char *err, size_t errlen)
{
    int is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rbe");
    char *text = NULL;
    size_t len = 0, cap = 0;
    int rc = CAS_OK;
    memset(out, 0, sizeof *out);
    if (!f) {
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return CAS_EIO;
    }
    for (;;) {
        if (len == cap) {
            size_t grown = cap ? cap * 2 : 65536;
            char *bigger = realloc(text, grown);
            if (!bigger) {
                snprintf(err, errlen, "%s: out of memory", path);
                rc = CAS_ENOMEM;
                goto close_file;
            }
            text = bigger;
            cap = grown;
        }
        size_t got = fread(text + len, 1, cap - len, f);
        len += got;
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        snprintf(err, errlen, "%s: read error: %s", path, strerror(errno));
        rc = CAS_EIO;
        goto close_file;
    }
    rc = cas__record_parse(text, len, is_stdin ? "<stdin>" : path, out, err, errlen);
close_file:
    free(text);
    if (!is_stdin)
        fclose(f);
    return rc;
}
