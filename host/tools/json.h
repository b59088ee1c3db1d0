/*
 * json.h — a strict JSON syntax check (RFC 8259) for what plugins render as
 * CAS_RENDER_JSON (host-internal).  It validates, it builds nothing.
 */
#ifndef CAS_HOST_JSON_H
#define CAS_HOST_JSON_H

#include <stddef.h>

/* 0 when text[0..len) is exactly one JSON object (white space around it
 * allowed); otherwise the 1-based byte offset where it goes wrong. */
size_t cas__json_object_error(const char *text, size_t len);

#endif
