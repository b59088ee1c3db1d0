/*
 * picture.h — a game's own picture of a state (CAS_RENDER_SVG) into memory
 * or a file, and the HTML replay viewer built from them (host-internal).
 * The host draws nothing of any game: the plugin does; the host only
 * stores, frames and steps through what it drew.
 */
#ifndef CAS_HOST_PICTURE_H
#define CAS_HOST_PICTURE_H

#include <stddef.h>
#include <stdio.h>

#include "match.h"

struct cas__revived;

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

/* Write r's whole game (its journal, not yet replayed: r just opened) as
 * one HTML page to out: every ply's picture for `viewer`, the action and
 * the events that viewer may see, the scores after each ply with a chart
 * over time, and buttons, a slider and the arrow keys to step through it.
 * title heads the page.  The plugin's pictures are sanitized by the page
 * as the table's are (no script, handler or fetch survives) and the page
 * carries a Content-Security-Policy that runs its own script only.
 * script_url NULL: the page is self-contained (its script inline, allowed
 * by a nonce); else the page loads its script from script_url
 * (cas__replay_html_script), for a server whose CSP forbids inline
 * script.  err explains a failure. */
int cas__replay_html_write(struct cas__revived *r, int viewer, const char *title,
                           const char *script_url, FILE *out, char *err, size_t errlen);
/* The replay page's script (static). */
const char *cas__replay_html_script(void);

#endif
