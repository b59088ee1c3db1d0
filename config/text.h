/*
 * text.h — small text helpers shared by the config reader and the host
 * (library castellan-text, internal): string lists, closest-name
 * suggestions, one-line error texts, and INI parsing that knows the line
 * number of every key.  It stands below host/: nothing here includes a
 * host header.
 */
#ifndef CAS_CONFIG_TEXT_H
#define CAS_CONFIG_TEXT_H

#include <stddef.h>

#include <castellan/plugin.h>

/* ---- string lists (strlist.c) ---- */

/* A list of owned strings; zero-initialised is empty. */
struct cas__strlist {
    char **items;
    size_t count;
};

/* Append a copy of text[0..len).  CAS_ENOMEM leaves the list unchanged. */
int cas__strlist_push_n(struct cas__strlist *list, const char *text, size_t len);
int cas__strlist_push(struct cas__strlist *list, const char *text);
/* Index of text in list, or -1. */
int cas__strlist_index(const struct cas__strlist *list, const char *text);
/* Split text at sep, trimming blanks around each item, onto list.  An empty
 * or all-blank text adds nothing.  An empty item between separators is
 * CAS_EPARSE (list then holds the items before it, caller frees). */
int cas__strlist_split(struct cas__strlist *list, const char *text, char sep);
/* Free every item and empty the list. */
void cas__strlist_free(struct cas__strlist *list);

/* ---- explanations (errtext.c) ---- */

/* Format one line into err[0..errlen) (err may be NULL) and return code. */
int cas__errorf(char *err, size_t errlen, int code, const char *fmt, ...) CAS_PRINTF(4, 5);

/* ---- printing outside text (printable.c) ---- */

/* Replace, in place, every terminal control character of the UTF-8 text
 * (C0 such as ESC, DEL, and C1 U+0080..U+009F) by '?'; returns text (NULL
 * stays NULL).  For text from outside before it is printed or kept. */
char *cas__text_printable(char *text);

/* ---- names (closest.c) ---- */

/* Edit distance (insertions, deletions, substitutions, adjacent swaps). */
size_t cas__edit_distance(const char *a, const char *b);
/* Whether `candidate`, at edit distance `distance` from `name`, is near
 * enough to suggest: one begins the other, or about a third of the
 * letters of the longer differ at most ("foo" is not near "abbey-mayor"). */
int cas__is_near(const char *name, const char *candidate, size_t distance);
/* The candidate closest to `name`, earliest on ties; NULL if n is 0 or
 * none is near (cas__is_near): a far-fetched guess helps nobody. */
const char *cas__closest(const char *name, const char *const *candidates, size_t n);
/* " (closest: NAME)" with cas__closest's answer into buf[0..cap), or ""
 * when there is none; returns buf. */
const char *cas__closest_note(char *buf, size_t cap, const char *name,
                              const char *const *candidates, size_t n);
/* True for an identifier: [a-z][a-z0-9-]*, at most 63 characters. */
int cas__is_plugin_id(const char *text);

/* ---- INI files with line numbers (inifile.c) ---- */

/* Whole file into a NUL-terminated buffer the caller frees.  CAS_EIO with
 * errno set when it cannot be read, CAS_EINVAL when longer than max or it
 * contains a NUL byte. */
int cas__read_file(const char *path, size_t max, char **out);

/* Feeds inih line by line so that `line` is the number of the line whose
 * key the handler is looking at.  Lines longer than inih's buffer are cut;
 * the first such line number lands in long_line. */
struct cas__ini_cursor {
    const char *next;     /* rest of the text */
    int line;             /* current line, 1-based */
    int long_line;        /* first over-long line, or 0 */
    int line_limit;       /* the longest line inih takes, in bytes */
    int after_key;        /* a key since the last header: inih reads an
                             indented line as that key's value going on */
    /* Called for every section header line, even one with no keys below
     * it (line is then the header's); may be NULL. */
    void (*on_section)(void *user, const char *name);
    void *user;
};

/* Parse text with inih.  handler gets `user`; cur->line tells it where it
 * is.  Returns inih's result: 0, or the first line inih could not parse
 * (or where a handler returned 0). */
int cas__ini_parse(const char *text, struct cas__ini_cursor *cur,
                   int (*handler)(void *user, const char *section,
                                  const char *name, const char *value),
                   void *user);

/* A text a cas_writer appends to: start zeroed, pass cas__textbuf_write
 * as the writer's write and the buffer as its ctx; data stays
 * NUL-terminated (NULL until the first write) and the caller frees it. */
struct cas__textbuf {
    char *data;
    size_t len, cap;
};
int cas__textbuf_write(void *ctx, const char *data, size_t len);

#endif
