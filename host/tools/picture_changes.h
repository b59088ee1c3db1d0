/*
 * picture_changes.h — a plugin's SVG picture cut into its keyed top-level
 * elements (docs/abi.md "Keyed pictures") and the changes from one picture
 * to the next (docs/server.md "Picture changes"), host-internal: what the
 * server sends per move and what a replay page carries per ply.
 *
 * A picture's bytes live in a store it may share with the pictures drawn
 * after it: a picture drawn relative to the last (ABI 1.4 render_since)
 * adds only the elements the plugin drew to its predecessor's store and
 * refers to the kept ones where they already are, so taking it costs what
 * was drawn, not the board.  Its whole text is put together only when it
 * is asked for (cas__picture_svg: a full state, a check).
 */
#ifndef CAS_HOST_PICTURE_CHANGES_H
#define CAS_HOST_PICTURE_CHANGES_H

#include <stddef.h>
#include <stdint.h>

#include <castellan/plugin.h>

#include "jsonw.h"

/* Bytes pictures keep their text in (picture_changes.c): counted
 * references, one per picture; only added to, never changed. */
struct cas__pic_store;

/* One keyed top-level element of a picture: offsets into its store's
 * bytes (cas__picture_bytes). */
struct cas__pic_part {
    size_t key, key_len;     /* the data-cas-key value */
    uint64_t key8;           /* its first 8 bytes as a big-endian number,
                              * zero-padded: most keys compare by it alone */
    size_t at, len;          /* the whole element */
    size_t gap;              /* the bytes just before it, at - gap: what
                              * lies between it and the element (or the
                              * root start tag) before it */
    long was;                /* the index of the part with its key in the
                              * picture it was cut after, or -1: a hint,
                              * checked before it is used */
    int same;                /* byte for byte the part `was` of the
                              * picture it was cut after: a placeholder's,
                              * or an element drawn the same again with
                              * the same gap before it */
    unsigned char gap_kept;  /* within a run placeholder (ABI 1.5): its gap
                              * is the one before `was` there */
};

/* A plugin's SVG cut into its keyed top-level elements.  Its text is, in
 * order: head (up to the root start tag's end), each part's gap and
 * element, tail.  A keyed picture's offsets into its store fit 32 bits
 * (a larger one is kept whole), which keeps this as small as it was with
 * one buffer: a table holds one per viewer even when idle. */
struct cas__picture {
    struct cas__pic_store *store; /* one reference; NULL: no picture */
    size_t len;              /* the whole text's */
    size_t head_at;          /* where the text before the first element
                              * (the prologue and the root start tag)
                              * starts; unkeyed: the whole text */
    uint32_t root_at, root_len; /* the root <svg ...> start tag; 0, 0 when
                              * not keyed */
    uint32_t tail_at, tail_len; /* after the last element */
    struct cas__pic_part *parts;
    size_t n;
    size_t *sorted;          /* parts' indices in key order */
    const void *after;       /* the parts of the picture it was cut after,
                              * which its parts' `was` and `same` are about */
    unsigned char *stamp;    /* owned: what the plugin's render_since
                              * returned with it (ABI 1.4); NULL: none */
    uint32_t stamp_len;
    unsigned char keyed;     /* every top-level element keyed, keys unique */
    unsigned char flat;      /* the whole text lies in order at head_at */
};

/* The bytes of pic's head: its prologue and root start tag (unkeyed: the
 * whole text). */
static inline size_t cas__picture_head_len(const struct cas__picture *pic)
{
    return pic->root_len ? pic->root_at + pic->root_len - pic->head_at : pic->len;
}

/* Take svg[0..len) (malloc'd, NUL after it; NULL: none) as pic, cut when
 * it is keyed.  Never fails: an unkeyed or malformed picture is kept
 * whole. */
void cas__picture_take(struct cas__picture *pic, char *svg, size_t len);
/* The same, cut faster when svg is mostly prev (the picture before, which
 * is only read; NULL or unkeyed: none): an element that is byte for byte
 * one of prev's is taken without scanning it.  The result is the same. */
void cas__picture_take_after(struct cas__picture *pic, char *svg, size_t len,
                             const struct cas__picture *prev);
/* How a caller's plugin draws a picture onto out: relative to the picture
 * whose stamp is since[0..since_len) (NULL: none, whole), its new stamp
 * into stamp[0..CAS_RENDER_STAMP_MIN) and its length into *stamp_len (0:
 * none).  The plugin's code. */
typedef int (*cas__picture_drawer)(void *ctx, const unsigned char *since, size_t since_len,
                                   unsigned char *stamp, size_t *stamp_len,
                                   const struct cas_writer *out);
/* The picture after prev (NULL: none) into pic, with its stamp: drawn
 * relative to prev when prev has a stamp, else, or when what was drawn
 * does not fit prev, whole, and cut knowing prev.  CAS_OK; CAS_EINVAL when
 * nothing was drawn; else the drawer's code (pic empty either way).  With
 * unfit, *unfit says why a relative picture did not fit (a static string),
 * NULL when none was drawn or it fitted. */
int cas__picture_draw(struct cas__picture *pic, const struct cas__picture *prev,
                      cas__picture_drawer draw, void *ctx, const char **unfit);

/* The bytes pic's offsets are into (NULL: no picture); valid until pic
 * or a picture drawn after it changes. */
const char *cas__picture_bytes(const struct cas__picture *pic);
/* pic's whole text, pic->len bytes with a NUL after them, put together in
 * a store of its own first when it is not in one piece (so the pictures
 * after it stay small too); NULL when pic holds none or memory ran out. */
const char *cas__picture_svg(struct cas__picture *pic);

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
