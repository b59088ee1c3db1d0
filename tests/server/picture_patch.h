/*
 * picture_patch.h — what the browser does with a picture's changes
 * (docs/server.md "Picture changes"), in C for the tests: apply an
 * update's svg_changes to the picture a client holds, and compare two
 * pictures element by element.
 */
#ifndef CAS_TEST_PICTURE_PATCH_H
#define CAS_TEST_PICTURE_PATCH_H

#include <stddef.h>

#include <castellan/plugin.h>

/* Apply changes (an update's "svg_changes" object) to svg (malloc'd,
 * consumed; NULL: no picture, as before a replay page's first ply); the
 * new picture (malloc'd), or NULL when the changes do not fit the picture
 * (a key to follow or remove is missing). */
char *picture_patch(char *svg, const struct cas_json *changes);
/* The same with the changes as JSON text. */
char *picture_patch_text(char *svg, const char *changes, size_t len);
/* Whether a and b have the same root start tag and the same keyed
 * elements in the same order, byte for byte (whitespace between elements
 * aside). */
int picture_same(const char *a, const char *b);

#endif
