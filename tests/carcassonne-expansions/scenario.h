/*
 * scenario.h — open Carcassonne games with the Inns & Cathedrals and/or
 * Traders & Builders expansion plugins linked into the test (their object
 * libraries), as a host would hand them over, and play scenario records.
 */
#ifndef CARCX_SCENARIO_H
#define CARCX_SCENARIO_H

#include <stdint.h>

#include "plugin_harness.h"

/* The carcassonne game's entry (carcassonne-objects). */
const struct cas_plugin *cas_plugin_entry(void);

/* Which expansions a game uses (bit mask); they are handed to the game in
 * the host's resolved order: inns-cathedrals, traders-builders,
 * abbey-mayor. */
enum carcx_set { CARCX_IC = 1, CARCX_TB = 2, CARCX_AM = 4 };

/* A city (D, N(0,-1), E(2,-1), E(1,-2)) holding Red's large meeple and
 * two meeples of Blue's, waiting for R at 1,-1 rot 0 to join and complete
 * it (5 tiles): the pool and the record up to that draw's placement. */
#define CARCX_TIE_CITY_TILES "*:0,D:1,N:1,U:2,E:2,B:1,R:1"
#define CARCX_TIE_CITY_RECORD                                              \
    "draw N\nplace N 0,-1 180\ndeploy large-meeple city E+S\n"            \
    "draw U\nplace U 1,0 0\npass\n"                                        \
    "draw U\nplace U 2,0 0\npass\n"                                        \
    "draw E\nplace E 2,-1 270\ndeploy meeple city W\n"                    \
    "draw B\nplace B 0,-2 0\npass\n"                                       \
    "draw E\nplace E 1,-2 180\ndeploy meeple city S\n"

/* Open a game of nplayers with the expansions in `set`; `tiles` is the
 * game's `tiles` option ("*:0,D:1,...") or NULL for the full pool.  Fails
 * the test on error; close with cas_test_game_close. */
void carcx_open(struct cas_test_game *g, int nplayers, unsigned set, const char *tiles);
/* carcx_open with abbey-mayor's options: its final-abbey-round and
 * wagon-move values ("on", "C1"; NULL for the default). */
void carcx_open_am(struct cas_test_game *g, int nplayers, unsigned set, const char *tiles,
                   const char *final_abbey_round, const char *wagon_move);

/* Open, play `record`, check the game is over with scores `expected`,
 * close. */
void carcx_scenario(int nplayers, unsigned set, const char *tiles, const char *record,
                    const int64_t *expected);

/* Play `record` in g, then write the canonical text of every legal action,
 * one per line, into texts[0..cap). */
void carcx_play_then_list(struct cas_test_game *g, const char *record, char *texts,
                          size_t cap);

/* Check that a fresh game with the expansions in `set` has `tiles` tiles
 * of `kinds` tile kinds in its bag (the first draw's chance outcomes). */
void carcx_expect_pool(unsigned set, uint64_t tiles, size_t kinds);

#endif
