/*
 * replay_html.h — a saved game as one HTML page of the game's own
 * pictures (host-internal).
 */
#ifndef CAS_HOST_REPLAY_HTML_H
#define CAS_HOST_REPLAY_HTML_H

#include <stddef.h>
#include <stdio.h>

struct cas__revived;

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
