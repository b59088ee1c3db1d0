/*
 * json.h — a strict JSON reader (RFC 8259), host-internal: a syntax check
 * for what plugins render as CAS_RENDER_JSON, and a small tree of
 * struct cas_json (plugin.h) for foreign records handed to import_foreign.
 */
#ifndef CAS_HOST_JSON_H
#define CAS_HOST_JSON_H

#include <stddef.h>

#include "castellan/plugin.h"

/* 0 when text[0..len) is exactly one JSON object (white space around it
 * allowed); otherwise the 1-based byte offset where it goes wrong. */
size_t cas__json_object_error(const char *text, size_t len);

/* Parse text[0..len), exactly one JSON object, into a tree.  On success
 * *root is the caller's, freed with cas__json_free.  On a syntax error
 * returns CAS_EPARSE with *line and *offset (1-based) where it goes wrong;
 * CAS_ENOMEM when out of memory. */
int cas__json_parse(const char *text, size_t len, struct cas_json **root,
                    size_t *line, size_t *offset);
void cas__json_free(struct cas_json *root); /* NULL is fine */

#endif
