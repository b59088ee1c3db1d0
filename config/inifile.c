/*
 * inifile.c — reading INI text with inih while knowing the line of every
 * key.  The distribution's inih does not pass line numbers to handlers, so
 * we hand it one line per read call from memory and count them ourselves.
 */
#include <ctype.h>
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

int cas__read_file(const char *path, size_t max, char **out)
{
    *out = NULL;
    FILE *f = fopen(path, "rbe");
    if (!f)
        return CAS_EIO;
    int rc = CAS_OK;
    size_t len = 0, cap = 4096;
    char *text = malloc(cap);
    if (!text) {
        rc = CAS_ENOMEM;
        goto close_file;
    }
    for (;;) {
        if (cap - len < 2) {
            char *bigger = realloc(text, cap * 2);
            if (!bigger) {
                rc = CAS_ENOMEM;
                goto free_text;
            }
            text = bigger;
            cap *= 2;
        }
        size_t got = fread(text + len, 1, cap - len - 1, f);
        len += got;
        if (len > max) {
            rc = CAS_EINVAL;
            goto free_text;
        }
        if (got == 0)
            break;
    }
    if (ferror(f)) {
        rc = CAS_EIO;
        goto free_text;
    }
    text[len] = '\0';
    if (strlen(text) != len) {
        rc = CAS_EINVAL;
        goto free_text;
    }
    fclose(f);
    *out = text;
    return CAS_OK;

free_text:
    free(text);
close_file:
    fclose(f);
    return rc;
}

/* The length of a section name inih keeps (its MAX_SECTION less the NUL). */
#define INIH_SECTION_MAX 49

/* Where inih's "[name]" ends: the first ']', unless an inline comment (';'
 * after white space) comes first; NULL then. */
static const char *header_end(const char *name)
{
    int after_space = 0;
    for (const char *p = name; *p; p++) {
        if (*p == ']')
            return p;
        if (*p == ';' && after_space)
            return NULL;
        after_space = isspace((unsigned char)*p);
    }
    return NULL;
}

/* A section header on this line as inih reads it (a byte order mark on the
 * first line and any white space isspace() knows skipped, not a line that
 * continues the previous key's value, the name cut to inih's length):
 * report it with its line.  The two must agree, or keys would be filed
 * under another section than the one announced. */
static void notice_section(struct cas__ini_cursor *cur, const char *line)
{
    const char *start = line;
    if (cur->line == 1 && strncmp(start, "\xEF\xBB\xBF", 3) == 0)
        start += 3;
    while (isspace((unsigned char)*start))
        start++;
    if (*start == '\0' || *start == ';' || *start == '#')
        return; /* a comment or blank line: a key's value may still go on */
    if (cur->after_key && start > line)
        return; /* inih continues the previous key's value */
    if (*start != '[')
        return;
    const char *close = header_end(start + 1);
    if (!close)
        return; /* inih reports the malformed header itself */
    char name[INIH_SECTION_MAX + 1];
    size_t len = (size_t)(close - start - 1);
    if (len > INIH_SECTION_MAX)
        len = INIH_SECTION_MAX;
    memcpy(name, start + 1, len);
    name[len] = '\0';
    cur->after_key = 0;
    if (cur->on_section)
        cur->on_section(cur->user, name);
}

/* inih's fgets-like reader over the cursor's text. */
static char *read_line(char *str, int num, void *stream)
{
    struct cas__ini_cursor *cur = stream;
    if (*cur->next == '\0' || num < 2)
        return NULL;
    const char *nl = strchr(cur->next, '\n');
    size_t len = nl ? (size_t)(nl - cur->next) : strlen(cur->next);
    size_t keep = len;
    cur->line++;
    cur->line_limit = num - 1;
    if (keep > (size_t)num - 1) {
        keep = (size_t)num - 1;
        if (!cur->long_line)
            cur->long_line = cur->line;
    }
    memcpy(str, cur->next, keep);
    str[keep] = '\0';
    cur->next += nl ? len + 1 : len;
    notice_section(cur, str);
    return str;
}

/* Between inih and the caller's handler: inih continues a key's value on
 * an indented line only after a key. */
struct key_relay {
    struct cas__ini_cursor *cur;
    int (*handler)(void *user, const char *section, const char *name, const char *value);
    void *user;
};

static int relay_key(void *relay, const char *section, const char *name, const char *value)
{
    struct key_relay *r = relay;
    r->cur->after_key = 1;
    return r->handler(r->user, section, name, value);
}

int cas__ini_parse(const char *text, struct cas__ini_cursor *cur,
                   int (*handler)(void *user, const char *section,
                                  const char *name, const char *value),
                   void *user)
{
    struct key_relay relay = {cur, handler, user};
    cur->next = text;
    cur->line = 0;
    cur->long_line = 0;
    cur->after_key = 0;
    return ini_parse_stream(read_line, cur, relay_key, &relay);
}
