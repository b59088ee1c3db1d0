/*
 * plugin_harness.h — drive one plugin's vtable directly from a cmocka test.
 *
 * Tests link the plugin's object library (ID-objects) and get its descriptor
 * from cas_plugin_entry(); the harness plays the host: it lends services,
 * fills option defaults from the descriptor, applies actions by their
 * canonical text and records emitted events.  Any failure fails the test
 * with the action text and the plugin's own error message.
 */
#ifndef CAS_TEST_PLUGIN_HARNESS_H
#define CAS_TEST_PLUGIN_HARNESS_H

#include <castellan/plugin.h>

struct cas_test_game {
    const struct cas_plugin *plugin;
    const struct cas_game_vtable *vt;
    struct cas_host host;
    char error[512];       /* last text the plugin passed to set_error */
    char data_dir[1024];
    int nplayers;
    cas_game *game;
    cas_state *state;
    char *events;          /* every event text so far, one per line (owned) */
    size_t events_len, events_cap;
    /* every score event that says what scored (ABI 1.1 category), one per
     * line: "SEAT +POINTS CATEGORY play|final SUBJECT" (owned) */
    char *scorings;
    size_t scorings_len, scorings_cap;
    struct cas_option_value options[32];
    size_t n_options;
};

/* The source-tree data folder of plugin ID: $CASTELLAN_SOURCE_DIR/plugins/ID/data. */
const char *cas_test_data_dir(const char *plugin_id, char *buf, size_t cap);

/* The expansion ref a host would hand a game for expansion plugin
 * `expansion` (id, version, extension from its descriptor), with data_dir
 * its source-tree data folder written into dir_buf, which must outlive the
 * ref, and no options. */
struct cas_expansion_ref cas_test_expansion_ref(const struct cas_plugin *expansion,
                                                char *dir_buf, size_t cap);

/* Open a game of `plugin` for nplayers.  `options` is a NULL-terminated list
 * of "name=value" overriding the declared defaults (NULL for none);
 * expansions may be NULL when n_expansions is 0.  Fails the test on error. */
void cas_test_game_open(struct cas_test_game *g, const struct cas_plugin *plugin,
                        int nplayers, const char *const *options,
                        const struct cas_expansion_ref *expansions,
                        size_t n_expansions);

/* Like cas_test_game_open but returns game_new's code instead of failing;
 * on success the game and its first state are open. */
int cas_test_game_try_open(struct cas_test_game *g, const struct cas_plugin *plugin,
                           int nplayers, const char *const *options,
                           const struct cas_expansion_ref *expansions,
                           size_t n_expansions);

/* Parse and apply one action by canonical text; fails the test if the text
 * does not parse or the action is illegal. */
void cas_test_play(struct cas_test_game *g, const char *action_text);

/* Parse and apply, returning the CAS_E* code instead of failing. */
int cas_test_try_play(struct cas_test_game *g, const char *action_text);

/* Apply a record: one action per line; blank lines and lines starting with
 * '#' are skipped. */
void cas_test_play_record(struct cas_test_game *g, const char *record);

/* Assert the current returns equal expected[0..nplayers). */
void cas_test_expect_scores(struct cas_test_game *g, const int64_t *expected);

/* Assert that the score events with a category so far are exactly
 * `expected`, in g->scorings' line format. */
void cas_test_expect_scorings(struct cas_test_game *g, const char *expected);

/* The canonical text of every legal action, one per line, into buf; fails
 * the test if it does not fit. */
void cas_test_legal_texts(struct cas_test_game *g, char *buf, size_t cap);

/* A copy of g->state through serialize and deserialize (asserted to
 * succeed); the caller frees it with g->vt->state_free. */
cas_state *cas_test_restored_twin(struct cas_test_game *g);

/* At a chance node (ABI 1.1 chance_total and chance_pick): every ticket,
 * of the state and of its restored twin, falls on the outcome the listing
 * gives, the total is the listed weights' sum and the next ticket is
 * refused; then ticket `pick` modulo the total is drawn and applied. */
void cas_test_draw_by_ticket(struct cas_test_game *g, uint64_t pick);

/* Assert what a plugin's random_action (ABI 1.2) promises beyond the ABI
 * when it draws as the listing does (Carcassonne): at a player's decision
 * it asks once for a number below the count legal_actions lists, and for
 * each answer i gives the listing's action i, so games played with it are
 * the games a pick from the listing plays; at a chance node it refuses
 * (CAS_EINVAL).  Every answer is tried. */
void cas_test_expect_random_action_as_listed(struct cas_test_game *g);

/* Assert the buffer protocol of legal_actions (and of chance_outcomes at a
 * chance node) at g->state: for buffers too small by any amount the call
 * says CAS_ENOSPC with the full count, fills exactly the buffer with the
 * list's first entries and writes nothing past it. */
void cas_test_expect_buffer_protocol(struct cas_test_game *g);

/* Assert that twin, a state of g's game (a clone or a deserialized copy of
 * g->state), has the same actor, legal actions and chance outcomes as
 * g->state: what caches beside the serialized bytes must keep equal. */
void cas_test_expect_same_choices(struct cas_test_game *g, const cas_state *twin);

/* Render state for viewer in format into a heap string the caller frees. */
char *cas_test_render(struct cas_test_game *g, int viewer, enum cas_render_format format);

/* The decision view (ABI 1.1 render_choices) of the current state with its
 * legal actions as choices; fails the test when the plugin has none or it
 * fails.  Caller frees the text. */
char *cas_test_render_choices(struct cas_test_game *g, int viewer,
                              enum cas_render_format format);
/* The same, but a plugin's failure (CAS_EINVAL: nothing to mark) is its
 * code in *rc and NULL, as a host takes it. */
char *cas_test_try_render_choices(struct cas_test_game *g, int viewer,
                                  enum cas_render_format format, int *rc);
/* ABI 1.4 render_since of the current state: req's viewer, format, since
 * and stamp as the caller set them, its actions (the legal ones, for
 * CAS_RENDER_SVG_ACTIONS) and writer the harness's during the call.  The
 * text, or NULL with the plugin's code in *rc.  Caller frees the text. */
char *cas_test_try_render_since(struct cas_test_game *g, struct cas_render_since *req,
                                int *rc);
/* The game's notation help (ABI 1.1 notation_help); fails the test when
 * there is none.  Caller frees the text. */
char *cas_test_notation_help(struct cas_test_game *g);
/* `text` without its ANSI escapes (ESC [ ... m); caller frees. */
char *cas_test_strip_ansi(const char *text);
/* Fails the test when a line of `text` is longer than `columns`. */
void cas_test_expect_width(const char *text, size_t columns);
void cas_test_game_close(struct cas_test_game *g);

#endif
