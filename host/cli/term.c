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

void cas__term_wrap(FILE *out, int width, int indent, const char *text)
{
    size_t column = 0, pending = 0; /* spaces owed before the next word */
    size_t line_start = 0;          /* where this line's first word begins */
    while (*text) {
        size_t word = strcspn(text, " ");
        if (column > line_start && column + pending + word > (size_t)width) {
            fprintf(out, "\n%*s", indent, "");
            column = line_start = (size_t)indent;
        } else {
            fprintf(out, "%*s", (int)pending, "");
            column += pending;
        }
        fwrite(text, 1, word, out);
        column += word;
        text += word;
        pending = strspn(text, " ");
        text += pending;
    }
    fputc('\n', out);
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
