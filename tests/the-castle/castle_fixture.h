/*
 * castle_fixture.h — scenario helpers for the-castle tests: open a game on
 * the test board and tiles (tests/the-castle/data), play whole turns by
 * their action texts, fix the bag, scores and wall tiles a scenario starts
 * from, and check that a state survives serialization.
 */
#ifndef CASTLE_FIXTURE_H
#define CASTLE_FIXTURE_H

#include "castle.h"
#include "plugin_harness.h"

const struct cas_plugin *cas_plugin_entry(void);

/* Path of tests/the-castle/data/NAME into buf. */
const char *tc_data_path(const char *name, char *buf, size_t cap);
/* Open a game on tests/the-castle/data/BOARD and TILES. */
void tc_open(struct cas_test_game *g, const char *board, const char *tiles);
/* Open with the plugin's shipped data (its default options). */
void tc_open_shipped(struct cas_test_game *g);
static inline cas_state *tc_state(struct cas_test_game *g) { return (cas_state *)g->state; }

/* One turn up to its follower: "draw TILE", "place TILE CELL DEG", then
 * `follower` ("herald N+S") or "pass" when it is NULL.  Scoring that
 * needs no choice follows by itself. */
void tc_turn(struct cas_test_game *g, const char *tile, const char *cell, int deg,
             const char *follower);
/* The bag holds exactly `spec` ("straight=2 house=1"); every other tile
 * counts as set aside, so the game ends when these are played. */
void tc_keep_only(struct cas_test_game *g, const char *spec);
/* Player p holds wall tile `number`, face up and usable now. */
void tc_give_wall(struct cas_test_game *g, int p, int number);
void tc_set_score(struct cas_test_game *g, int p, int score);
/* Assert the scores, then that the state round-trips with its hash. */
void tc_expect_scores(struct cas_test_game *g, int red, int blue);
/* The legal actions' texts, one per line (static buffer). */
const char *tc_legal(struct cas_test_game *g);
void tc_expect_legal(struct cas_test_game *g, const char *text, int legal);
/* Assert that the events so far contain `text`. */
void tc_expect_event(struct cas_test_game *g, const char *text);

#endif
