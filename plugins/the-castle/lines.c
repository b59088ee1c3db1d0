/*
 * lines.c — the line reader both data files (tiles, board) are read with:
 * '#' comments, words split on blanks, and errors as path:line: message.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "castle.h"

int lines_open(struct line_reader *r, const struct cas_host *host, const char *path,
               const char *what)
{
    memset(r, 0, sizeof *r);
    r->host = host;
    r->path = path;
    r->file = fopen(path, "r");
    if (!r->file) {
        cas_host_errorf(host, "%s: cannot open (%s); check the '%s' option", path,
                        strerror(errno), what);
        return CAS_EIO;
    }
    return CAS_OK;
}

void lines_close(struct line_reader *r)
{
    if (r->file)
        fclose(r->file);
    r->file = NULL;
}

int lines_fail(const struct line_reader *r, const char *fmt, ...)
{
    char what[400];
    va_list args;
    va_start(args, fmt);
    vsnprintf(what, sizeof what, fmt, args);
    va_end(args);
    cas_host_errorf(r->host, "%s:%d: %s", r->path, r->line, what);
    return CAS_EDATA;
}

int lines_next(struct line_reader *r)
{
    FILE *f = r->file;
    while (fgets(r->text, sizeof r->text, f)) {
        r->line++;
        if (!strchr(r->text, '\n') && !feof(f))
            return lines_fail(r, "line longer than %zu bytes; shorten it", sizeof r->text - 2);
        char *hash = strchr(r->text, '#');
        if (hash)
            *hash = '\0';
        r->nwords = 0;
        char *save = NULL;
        for (char *w = strtok_r(r->text, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
            if (r->nwords == (int)(sizeof r->word / sizeof r->word[0]))
                return lines_fail(r, "more than %d words; split the line",
                                  (int)(sizeof r->word / sizeof r->word[0]));
            r->word[r->nwords++] = w;
        }
        if (r->nwords)
            return 1;
    }
    if (ferror(f)) {
        cas_host_errorf(r->host, "%s: read error (%s)", r->path, strerror(errno));
        return CAS_EIO;
    }
    return 0;
}

bool parse_number(const char *word, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(word, &end, 10);
    if (errno || end == word || *end || v < min || v > max)
        return false;
    *out = v;
    return true;
}

int lines_provisional(struct line_reader *r, bool *seen, bool *value)
{
    if (r->nwords != 2 || (strcmp(r->word[1], "yes") != 0 && strcmp(r->word[1], "no") != 0))
        return lines_fail(r, "write 'provisional yes' or 'provisional no'");
    if (*seen)
        return lines_fail(r, "a second 'provisional' line; keep only one");
    *seen = true;
    *value = strcmp(r->word[1], "yes") == 0;
    return CAS_OK;
}
