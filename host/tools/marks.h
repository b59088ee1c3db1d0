/*
 * marks.h — reads the click-to-play marks of a decision picture
 * (CAS_RENDER_SVG_ACTIONS, docs/abi.md "ABI 1.2: click to play") and checks
 * them as a client would use them: `castellan check` and the tests call it.
 */
#ifndef CAS_HOST_MARKS_H
#define CAS_HOST_MARKS_H

#include <stddef.h>

#include <castellan/plugin.h>

/* What a picture's marks allow, for n legal actions. */
struct cas__marks_report {
    size_t elements;  /* marked elements */
    size_t marked;    /* actions some element names */
    size_t reachable; /* actions some sequence of clicks narrows to */
    /* the first action named by an element but not reachable, or
     * (size_t)-1 when every marked action is */
    size_t unreachable;
};

/* Scan svg[0..len) (an SVG document; need not end in '\0') for elements
 * with data-cas-choices and data-cas-step, and check them against n
 * actions: indices in range and strictly ascending, steps positive, every
 * element naming some action.  Then for every named action, whether clicks
 * (one element per step, from step 1 on, each intersecting the candidates)
 * narrow the candidates to exactly that action.  Fills *r; returns CAS_OK,
 * CAS_EPARSE for a malformed mark (why names it, NUL-terminated, cut to
 * cap) or CAS_ENOMEM.  An unreachable action is reported in *r, not as an
 * error.  When `each` is not NULL it gets, for every action, one of the
 * CAS__MARK_* values below. */
enum { CAS__MARK_NONE, CAS__MARK_REACHABLE, CAS__MARK_UNREACHABLE };
int cas__marks_verify(const char *svg, size_t len, size_t n, struct cas__marks_report *r,
                      unsigned char *each, char *why, size_t cap);

#endif
