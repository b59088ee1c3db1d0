/*
 * svg_check.h — checks every SVG picture a plugin draws (CAS_RENDER_SVG):
 * it parses as XML (libxml2, no network, no recovery), is an SVG 1.1
 * document that references nothing outside itself, and is the same bytes
 * when drawn twice or from a copy of the state.  Then a plugin's own test
 * counts the elements the state implies, through XPath ("s:" is the SVG
 * namespace).
 */
#ifndef CAS_TEST_SVG_CHECK_H
#define CAS_TEST_SVG_CHECK_H

#include <libxml/tree.h>

#include "plugin_harness.h"

/* Draw g's state for viewer, check it as above and return the parsed
 * document (caller frees with xmlFreeDoc).  Fails the test otherwise. */
xmlDocPtr svg_check_render(struct cas_test_game *g, int viewer);

/* The number of nodes XPath expression `path` selects in doc. */
int svg_count(xmlDocPtr doc, const char *path);

/* The string value of XPath expression `expr` (caller frees with xmlFree). */
char *svg_string(xmlDocPtr doc, const char *expr);

/* Play `steps` random legal actions (seeded: the same every run) from g's
 * state, calling check(g, viewer, doc) for every viewer (omniscient,
 * public, each player) at the start and after every `every`-th action. */
void svg_check_walk(struct cas_test_game *g, uint64_t seed, int steps, int every,
                    void (*check)(struct cas_test_game *g, int viewer, xmlDocPtr doc));

/* Where marks_walk says what it saw (totals over the walk). */
struct marks_tally {
    int decisions;     /* decisions drawn with marks */
    long actions;      /* legal actions there */
    long reachable;    /* of them, reachable by clicks */
    long buttons;      /* of them, left unmarked by design (is_button) */
};

/* The click-to-play picture (CAS_RENDER_SVG_ACTIONS) of g's state for the
 * player to move, over legal[0..n): well-formed, self-contained SVG 1.1,
 * the same bytes twice, marks valid (host/tools/marks.h), and every
 * action either reachable by clicks or, unmarked, one is_button(text)
 * accepts.  A plugin answering CAS_EINVAL (nothing marked) passes only if
 * every action is a button.  Adds to *tally. */
void svg_check_marks(struct cas_test_game *g, const cas_action *legal, size_t n,
                     int (*is_button)(const char *text), struct marks_tally *tally);

/* The click-to-play picture of g's state for the player to move over
 * legal[0..n), parsed (caller frees with xmlFreeDoc); fails the test when
 * it is not drawn or not XML. */
xmlDocPtr svg_marks_doc(struct cas_test_game *g, const cas_action *legal, size_t n);
/* The decision picture for a player who types (CAS_RENDER_SVG: numbered
 * choices), parsed; the caller frees it. */
xmlDocPtr svg_choices_doc(struct cas_test_game *g, const cas_action *legal, size_t n);

/* Play `steps` random legal actions from g's state (seeded), checking the
 * marks at every player's decision. */
void svg_marks_walk(struct cas_test_game *g, uint64_t seed, int steps,
                    int (*is_button)(const char *text), struct marks_tally *tally);

#endif
