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
    int same;                /* a placeholder's: byte for byte the part
                              * `was` of the picture it was cut after */
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
    const char *after;       /* the svg of the picture it was cut after,
                              * which its parts' `same` are about */
    unsigned char *stamp;    /* owned: what the plugin's render_since
                              * returned with it (ABI 1.4); NULL: none */
    size_t stamp_len;
};

/* Take svg[0..len) (malloc'd; NULL: none) as pic, cut when it is keyed.
 * Never fails: an unkeyed or malformed picture is kept whole. */
void cas__picture_take(struct cas__picture *pic, char *svg, size_t len);
/* The same, cut faster when svg is mostly prev (the picture before, which
 * is only read; NULL or unkeyed: none): an element that is byte for byte
 * one of prev's is taken without scanning it.  The result is the same. */
void cas__picture_take_after(struct cas__picture *pic, char *svg, size_t len,
                             const struct cas__picture *prev);
/* Take svg[0..len) (malloc'd), a picture the plugin wrote relative to
 * prev (ABI 1.4 render_since: each placeholder <g data-cas-key="KEY"
 * data-cas-same=""/> stands for prev's element KEY), as pic: the
 * placeholders replaced by prev's elements, so pic holds the whole
 * picture, cut as cas__picture_take_after cuts it, each placeholder's part
 * marked `same`.  0; or -1 when a placeholder names no element of prev,
 * either picture is not keyed or memory ran out: svg is freed, pic holds
 * no picture, and the caller draws the whole picture instead. */
int cas__picture_take_since(struct cas__picture *pic, char *svg, size_t len,
                            const struct cas__picture *prev);
/* Keep a copy of stamp[0..len) with pic (len 0: none), in place of the
 * one it had; -1 when memory ran out (then none). */
int cas__picture_stamp(struct cas__picture *pic, const unsigned char *stamp, size_t len);
void cas__picture_free(struct cas__picture *pic);
/* Write the changes from old to new as a JSON object
 * {"root":..?,"put":[[key,after,svg],...],"remove":[key,...]} into w;
 * old NULL is the empty picture (every element put, the root given), so a
 * keyed picture can be sent whole as changes.  -1 (nothing written) when
 * either is not keyed and the picture must go whole. */
int cas__picture_diff(const struct cas__picture *old, const struct cas__picture *new,
                      struct cas__jw *w);

#endif
