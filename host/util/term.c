/*
 * term.c — terminal conventions: when colour is wanted, how wide lines
 * may be, wrapping a line to that width, and the progress line of long
 * runs (terminals only).
 */
#include "term.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#define MIN_WIDTH 40
#define DEFAULT_WIDTH 80
#define PROGRESS_EVERY 0.2 /* seconds between redraws */

int cas__term_colour(FILE *stream)
{
    const char *no_colour = getenv("NO_COLOR");
    const char *term = getenv("TERM");
    if (no_colour && *no_colour)
        return 0;
    if (!term || !*term || strcmp(term, "dumb") == 0)
        return 0;
    return isatty(fileno(stream));
}

enum cas_render_format cas__term_format(FILE *stream)
{
    return cas__term_colour(stream) ? CAS_RENDER_ANSI : CAS_RENDER_TEXT;
}

int cas__term_width(FILE *stream)
{
    struct winsize size;
    int width = 0;
    if (isatty(fileno(stream)) && ioctl(fileno(stream), TIOCGWINSZ, &size) == 0)
        width = size.ws_col;
    if (width <= 0) {
        const char *columns = getenv("COLUMNS");
        width = columns ? atoi(columns) : 0;
    }
    if (width <= 0)
        width = DEFAULT_WIDTH;
    return width < MIN_WIDTH ? MIN_WIDTH : width;
}

/* Where the colour escape ("\x1b[1;31m") starting at text[i] ends: the
 * index of its final letter (or n - 1). */
static size_t escape_end(const char *text, size_t i, size_t n)
{
    while (++i < n && !((text[i] | 0x20) >= 'a' && (text[i] | 0x20) <= 'z'))
        ;
    return i < n ? i : n - 1;
}

/* The columns text[0..n) takes on a terminal: its bytes less the colour
 * escapes in it. */
static size_t visible(const char *text, size_t n)
{
    size_t width = 0;
    for (size_t i = 0; i < n; i++) {
        if (text[i] == '\x1b')
            i = escape_end(text, i, n);
        else
            width++;
    }
    return width;
}

void cas__term_wrap(FILE *out, int width, int indent, const char *text)
{
    size_t column = 0, pending = 0; /* spaces owed before the next word */
    size_t line_start = 0;          /* where this line's first word begins */
    while (*text) {
        size_t word = strcspn(text, " "), shown = visible(text, word);
        if (column > line_start && column + pending + shown > (size_t)width) {
            fprintf(out, "\n%*s", indent, "");
            column = line_start = (size_t)indent;
        } else {
            fprintf(out, "%*s", (int)pending, "");
            column += pending;
        }
        fwrite(text, 1, word, out);
        column += shown;
        text += word;
        pending = strspn(text, " ");
        text += pending;
    }
    fputc('\n', out);
}

/* Whether a line reads as prose, not as a drawing or a heading aligned
 * over one: a third of its visible characters or more are letters (a
 * board row is mostly # . - |, an example "(castle CG-3 4,-1 270)" is half
 * letters), or it is words of other characters with single spaces and
 * nothing of a drawing ("towers: 0/1 12/13[?] 19/20[?]"). */
static int is_prose(const char *line, size_t len)
{
    size_t letters = 0, shown = 0, drawing = 0, run = 0;
    int aligned = 0; /* three spaces or more between two words */
    for (size_t i = strspn(line, " "); i < len; i++) {
        unsigned char c = (unsigned char)line[i];
        if (c == '\x1b') {
            i = escape_end(line, i, len);
            continue;
        }
        run = c == ' ' ? run + 1 : 0;
        aligned |= run >= 3;
        shown += c != ' ';
        letters += (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
        drawing += c != '\0' && strchr(".#|+-~=", c) != NULL;
    }
    if (letters > 0 && letters * 3 >= shown)
        return 1;
    /* a list of words of no letters ("towers: 0/1 12/13[?] ..."), not a
     * drawing nor a heading aligned over one (runs of spaces) */
    return shown > 0 && drawing == 0 && !aligned;
}

/* Where a wrapped line's continuation starts: under the text after the
 * first gap of two spaces when that is in the line's first half (the
 * description of a "NAME   what it does" row), else under its start. */
static int hanging_indent(const char *line, int width)
{
    size_t lead = strspn(line, " ");
    const char *gap = strstr(line + lead, "  ");
    if (gap) {
        size_t column = visible(line, (size_t)(gap - line)) + strspn(gap, " ");
        if (column <= (size_t)width / 2)
            return (int)column;
    }
    return (int)lead;
}

/* Whether the line at text (len bytes) may be wrapped: prose. */
static int wrappable(const char *text, size_t len)
{
    return is_prose(text, len);
}

/* The lines its author broke from one paragraph: each following line of
 * prose indented exactly `indent` (not 0: lines at the margin are each
 * their own, a status line under a list) under a line of 60 or more
 * columns that ends no sentence.  Returns the length of text's paragraph, up to its
 * last line's end. */
static size_t paragraph(const char *text, int indent)
{
    size_t end = strcspn(text, "\n"), line = visible(text, end);
    while (indent > 0 && text[end] == '\n' && line >= 60 && !strchr(".:", text[end - 1])) {
        const char *next = text + end + 1;
        size_t len = strcspn(next, "\n");
        if ((int)strspn(next, " ") != indent || strspn(next, " ") == len ||
            !wrappable(next, len))
            break;
        end += 1 + len;
        line = visible(next, len);
    }
    return end;
}

void cas__term_wrap_block(FILE *out, int width, const char *text)
{
    char joined[4096];
    while (*text) {
        size_t len = strcspn(text, "\n"), first = len;
        int indent = 0;
        if (wrappable(text, len) && len < sizeof joined) {
            snprintf(joined, sizeof joined, "%.*s", (int)len, text);
            indent = hanging_indent(joined, width);
            len = paragraph(text, indent);
        }
        int too_long = 0;
        for (size_t at = 0; at < len; at += strcspn(text + at, "\n") + 1)
            too_long |= visible(text + at, strcspn(text + at, "\n")) > (size_t)width;
        if (!too_long || len >= sizeof joined || !wrappable(text, first)) {
            fwrite(text, 1, len, out);
            fputc('\n', out);
        } else { /* one line again, the continuations' indentation dropped */
            size_t n = 0;
            for (size_t at = 0; at < len; at += strcspn(text + at, "\n") + 1) {
                size_t skip = at ? (size_t)indent : 0, part = strcspn(text + at, "\n");
                n += (size_t)snprintf(joined + n, sizeof joined - n, "%s%.*s", at ? " " : "",
                                      (int)(part - skip), text + at + skip);
            }
            cas__term_wrap(out, width, indent, joined);
        }
        text += len + (text[len] == '\n');
    }
}

FILE *cas__term_capture_begin(struct cas__term_capture *c, FILE *out)
{
    c->out = out;
    c->text = NULL;
    c->f = open_memstream(&c->text, &c->len);
    return c->f ? c->f : out;
}

void cas__term_capture_end(struct cas__term_capture *c)
{
    if (!c->f)
        return;
    if (fclose(c->f) == 0)
        cas__term_wrap_block(c->out, cas__term_width(c->out), c->text);
    free(c->text);
}

void cas__term_message(FILE *stream, const char *fmt, ...)
{
    char text[2048];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    if (isatty(fileno(stream)))
        cas__term_wrap(stream, cas__term_width(stream), 4, text);
    else
        fprintf(stream, "%s\n", text);
}

void cas__term_wrapf(FILE *out, int width, int indent, const char *fmt, ...)
{
    char text[1024];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    cas__term_wrap(out, width, indent, text);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

void cas__progress_text(char *buf, size_t cap, const char *what, const char *unit,
                        uint64_t done, uint64_t total, double elapsed)
{
    char left[32] = "?";
    if (done > 0 && done <= total) {
        double seconds = elapsed / (double)done * (double)(total - done);
        unsigned long whole = (unsigned long)(seconds + 0.5);
        snprintf(left, sizeof left, "%lu:%02lu", whole / 60, whole % 60);
    }
    snprintf(buf, cap, "%s: %llu/%llu %s, %s left", what, (unsigned long long)done,
             (unsigned long long)total, unit, left);
}

void cas__progress_begin(struct cas__progress *p, FILE *out, const char *what,
                         const char *unit, uint64_t total)
{
    memset(p, 0, sizeof *p);
    p->out = out && isatty(fileno(out)) ? out : NULL;
    snprintf(p->what, sizeof p->what, "%s", what);
    snprintf(p->unit, sizeof p->unit, "%s", unit);
    p->total = total;
    p->start = now();
    p->shown = p->start - PROGRESS_EVERY;
    p->width = p->out ? cas__term_width(p->out) : DEFAULT_WIDTH;
}

void cas__progress_update(struct cas__progress *p, uint64_t done)
{
    if (!p->out)
        return;
    double t = now();
    if (t - p->shown < PROGRESS_EVERY && done < p->total)
        return;
    p->shown = t;
    char line[256];
    cas__progress_text(line, sizeof line, p->what, p->unit, done, p->total, t - p->start);
    /* padded with spaces, not erased with an escape (TERM=dumb has none),
     * and the cursor back at the start: what the run prints next (an error,
     * a result, longer than this line) writes over it */
    fprintf(p->out, "\r%-*.*s\r", p->width - 1, p->width - 1, line);
    fflush(p->out);
}

void cas__progress_end(struct cas__progress *p)
{
    if (!p->out)
        return;
    fprintf(p->out, "\r%*s\r", p->width - 1, "");
    fflush(p->out);
    p->out = NULL;
}
