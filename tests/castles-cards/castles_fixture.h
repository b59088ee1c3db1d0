/*
 * castles_fixture.h — scenario helpers for castles-cards tests: open a
 * game, lay out Kingdoms card by card (taken from the draw pile so every
 * copy stays accounted for), and describe a Kingdom as one exact line.
 */
#ifndef CASTLES_FIXTURE_H
#define CASTLES_FIXTURE_H

#include "castles.h"
#include "plugin_harness.h"

const struct cas_plugin *cas_plugin_entry(void);

/* Open a game with the shipped deck; options as for cas_test_game_open. */
void cc_open(struct cas_test_game *g, const char *const *options);
static inline cas_state *cc_state(struct cas_test_game *g) { return (cas_state *)g->state; }

/* Skip the opening draws: it is `player`'s turn, turn 1. */
void cc_start(struct cas_test_game *g, int player);
/* cc_open, both Kingdoms laid out (cc_layout format, "" for none), and
 * cc_start(first). */
void cc_open_with(struct cas_test_game *g, const char *red, const char *blue, int first);
/* The turn player's "draw", then chance's "draw <card>". */
void cc_draw(struct cas_test_game *g, const char *card);
/* Write `text` to file `name` in the build folder; the path into buf. */
const char *cc_write_file(const char *name, const char *text, char *path, size_t cap);

/* Move one copy of `card` from the draw pile to `where` in player's
 * Kingdom: "castle", "wife", "heir", "n1".."n3" (NOBLE), "w1".."w3"
 * (WIZARD), or a stack name ("n2.fruits", "champion", "w1.magick"). */
void cc_give(struct cas_test_game *g, int player, const char *where, const char *card);
/* Several at once, in cc_kingdom's format: "where=card,card where=card"
 * (stack cards bottom to top). */
void cc_layout(struct cas_test_game *g, int player, const char *layout);
/* Move one copy of `card` from the draw pile onto the discard pile. */
void cc_discard(struct cas_test_game *g, const char *card);

/* The Kingdom as "where=card,card ..." for every non-empty place, in the
 * order of cc_give's names, cards bottom to top.  Static buffer. */
const char *cc_kingdom(struct cas_test_game *g, int player);
/* Assert player's Kingdom equals `expected`, cards are conserved, and the
 * state survives serialize/deserialize with its hash. */
void cc_expect_kingdom(struct cas_test_game *g, int player, const char *expected);
/* The discard pile bottom to top, as "card card ...".  Static buffer. */
const char *cc_discards(struct cas_test_game *g);
/* The legal actions' texts, one per line (static buffer). */
const char *cc_legal(struct cas_test_game *g);
/* Assert `text` is (or is not) among the legal actions. */
void cc_expect_legal(struct cas_test_game *g, const char *text, int legal);

#endif
