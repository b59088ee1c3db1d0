/*
 * term.h — terminal conventions (host-internal): colour only for a
 * terminal that wants it (not with NO_COLOR, TERM=dumb or a pipe), lines
 * fitted to the terminal's width, and a progress line for long runs that
 * appears only on a terminal.
 */
#ifndef CAS_HOST_TERM_H
#define CAS_HOST_TERM_H

#include <castellan/plugin.h>
#include <stdint.h>
#include <stdio.h>

/* Whether text written to `stream` may carry ANSI colour: the stream is a
 * terminal, NO_COLOR is unset or empty (no-color.org) and TERM is set and
 * not "dumb". */
int cas__term_colour(FILE *stream);

/* CAS_RENDER_ANSI when cas__term_colour(stream), else CAS_RENDER_TEXT. */
enum cas_render_format cas__term_format(FILE *stream);

/* Columns to fit lines on `stream` into: the terminal's width, else
 * $COLUMNS, else 80; never below 40. */
int cas__term_width(FILE *stream);

/* Print `text` (one line, no newline) and a newline, broken at spaces
 * into lines of at most `width` columns, every line after the first
 * indented by `indent` spaces.  A word longer than a line stays whole;
 * colour escapes take no columns. */
void cas__term_wrap(FILE *out, int width, int indent, const char *text);

/* Print a text of several lines with every line of prose longer than
 * `width` wrapped at spaces, its continuation under the text after a
 * "NAME   " column or under its own indentation; paragraphs their author
 * broke for a wider terminal are joined first.  Lines that draw (less than
 * a third letters) are printed as they are: breaking a picture helps
 * nobody.  Colour escapes take no columns. */
void cas__term_wrap_block(FILE *out, int width, const char *text);

/* Text written for the terminal into a buffer first, then printed with
 * cas__term_wrap_block to the width of `out`.  Without memory for the
 * buffer, begin answers `out` itself: the text goes out unwrapped. */
struct cas__term_capture {
    FILE *f, *out;
    char *text;
    size_t len;
};

/* The stream to write into; end prints what was written and frees it. */
FILE *cas__term_capture_begin(struct cas__term_capture *c, FILE *out);
void cas__term_capture_end(struct cas__term_capture *c);

/* A message for the person at the terminal, printf-style, on `stream`
 * (stderr): wrapped at spaces to the terminal's width, continued under a
 * 4-space indent, when the stream is a terminal; one line as it is
 * otherwise (a log or a program reads it whole). */
void cas__term_message(FILE *stream, const char *fmt, ...) CAS_PRINTF(2, 3);

/* printf-style cas__term_wrap (text truncated past 1023 bytes). */
void cas__term_wrapf(FILE *out, int width, int indent, const char *fmt, ...)
    CAS_PRINTF(4, 5);

/* A progress line: "WHAT: DONE/TOTAL UNIT, M:SS left", rewritten in place
 * on a terminal at most a few times a second, erased at the end.  Nothing
 * at all is written when `out` is not a terminal. */
struct cas__progress {
    FILE *out;          /* NULL: silent */
    char what[64], unit[16];
    uint64_t total;
    double start, shown; /* monotonic seconds */
    int width;
};

/* Start a progress line on `out` (stderr, usually) if it is a terminal. */
void cas__progress_begin(struct cas__progress *p, FILE *out, const char *what,
                         const char *unit, uint64_t total);
/* `done` of the total are done. */
void cas__progress_update(struct cas__progress *p, uint64_t done);
/* Erase the line. */
void cas__progress_end(struct cas__progress *p);

/* The text of a progress line after `elapsed` seconds into buf: the time
 * left is the elapsed time per item times the items left ("?" before the
 * first is done).  Pure, for tests. */
void cas__progress_text(char *buf, size_t cap, const char *what, const char *unit,
                        uint64_t done, uint64_t total, double elapsed);

#endif
