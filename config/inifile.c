/*
 * inifile.c — reading INI text with inih while knowing the line of every
 * key.  The distribution's inih does not pass line numbers to handlers, so
 * we hand it one line per read call from memory and count them ourselves.
 */
#include <ini.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

int cas__read_file(const char *path, size_t max, char **out)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
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

/* A section header "[name]" on this line: report it with its line. */
static void notice_section(struct cas__ini_cursor *cur, const char *line)
{
    while (*line == ' ' || *line == '\t')
        line++;
    if (*line != '[' || !cur->on_section)
        return;
    const char *close = strchr(line, ']');
    if (!close)
        return; /* inih reports the malformed header itself */
    char name[256];
    size_t len = (size_t)(close - line - 1);
    if (len >= sizeof name)
        len = sizeof name - 1;
    memcpy(name, line + 1, len);
    name[len] = '\0';
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

int cas__ini_parse(const char *text, struct cas__ini_cursor *cur,
                   int (*handler)(void *user, const char *section,
                                  const char *name, const char *value),
                   void *user)
{
    cur->next = text;
    cur->line = 0;
    cur->long_line = 0;
    return ini_parse_stream(read_line, cur, handler, user);
}
