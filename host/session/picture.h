/*
 * picture.h — a game's own picture of a state (CAS_RENDER_SVG) into memory
 * or a file (host-internal); the HTML replay viewer is built from them
 * (host/tools/replay_html.h).
 * The host draws nothing of any game: the plugin does; the host only
 * stores, frames and steps through what it drew.
 */
#ifndef CAS_HOST_PICTURE_H
#define CAS_HOST_PICTURE_H

#include <stddef.h>
#include <stdio.h>

#include "match.h"

/* The SVG document m's plugin renders of `state` for `viewer` (at the
 * viewer's own decision, its decision view: render_choices numbers the
 * choices as the viewer types them), into a new
 * NUL-terminated buffer *svg of *len bytes (caller frees with free()).
 * A plugin that draws no pictures (CAS_EINVAL) or fails is explained in
 * err.  Returns CAS_OK or the negative code. */
int cas__picture_render(struct cas__match *m, const cas_state *state, int viewer,
                        char **svg, size_t *len, char *err, size_t errlen);

/* Render as above and write the document to `path` whole: into a
 * temporary file beside it, then renamed over it, so a browser or image
 * viewer that reloads the file never sees half of it.  err explains a
 * failure (naming the file); the old file, if any, is then unchanged. */
int cas__picture_write(struct cas__match *m, const cas_state *state, int viewer,
                       const char *path, char *err, size_t errlen);

#endif
