/*
 * replay_html.h — a saved game as one self-contained HTML page of the
 * game's own pictures (host-internal).
 */
#ifndef CAS_HOST_REPLAY_HTML_H
#define CAS_HOST_REPLAY_HTML_H

#include <stddef.h>
#include <stdio.h>

struct cas__revived;

/* Write r's whole game (its journal, not yet replayed: r just opened) as
 * one self-contained HTML page to out: every ply's picture for `viewer`,
 * the action and the events that viewer may see, the scores after each
 * ply with a chart over time, and buttons, a slider and the arrow keys to
 * step through it.  title heads the page.  err explains a failure. */
int cas__replay_html_write(struct cas__revived *r, int viewer, const char *title,
                           FILE *out, char *err, size_t errlen);

#endif
