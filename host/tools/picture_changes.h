/*
 * picture_changes.h — a plugin's SVG picture cut into its keyed top-level
 * elements (docs/abi.md "Keyed pictures") and the changes from one picture
 * to the next (docs/server.md "Picture changes"), host-internal: what the
 * server sends per move and what a replay page carries per ply.
 */
#ifndef CAS_HOST_PICTURE_CHANGES_H
#define CAS_HOST_PICTURE_CHANGES_H

#include <stddef.h>

#include "jsonw.h"

/* One keyed top-level element of a picture: offsets into its svg. */
struct cas__pic_part {
    size_t key, key_len;     /* the data-cas-key value */
    size_t at, len;          /* the whole element */
    long was;                /* the index of the part with its key in the
                              * picture it was cut after, or -1: a hint,
                              * checked before it is used */
};

/* A plugin's SVG cut into its keyed top-level elements. */
struct cas__picture {
    char *svg;               /* owned; NULL: no picture */
    size_t len;
    int keyed;               /* every top-level element keyed, keys unique */
    size_t root_at, root_len;/* the root <svg ...> start tag */
    struct cas__pic_part *parts;
    size_t n;
    size_t *sorted;          /* parts' indices in key order */
};

/* Take svg[0..len) (malloc'd; NULL: none) as pic, cut when it is keyed.
 * Never fails: an unkeyed or malformed picture is kept whole. */
void cas__picture_take(struct cas__picture *pic, char *svg, size_t len);
/* The same, cut faster when svg is mostly prev (the picture before, which
 * is only read; NULL or unkeyed: none): an element that is byte for byte
 * one of prev's is taken without scanning it.  The result is the same. */
void cas__picture_take_after(struct cas__picture *pic, char *svg, size_t len,
                             const struct cas__picture *prev);
void cas__picture_free(struct cas__picture *pic);
/* Write the changes from old to new as a JSON object
 * {"root":..?,"put":[[key,after,svg],...],"remove":[key,...]} into w;
 * old NULL is the empty picture (every element put, the root given), so a
 * keyed picture can be sent whole as changes.  -1 (nothing written) when
 * either is not keyed and the picture must go whole. */
int cas__picture_diff(const struct cas__picture *old, const struct cas__picture *new,
                      struct cas__jw *w);

#endif
