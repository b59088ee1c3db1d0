/*
 * scenario.h — open Carcassonne games with any of the expansion plugins
 * Inns & Cathedrals, Traders & Builders, Abbey & Mayor, King & Robber Baron
 * and Castles in Germany linked into the test (their object libraries), as
 * a host would hand them over, and play scenario records.
 */
#ifndef CARCX_SCENARIO_H
#define CARCX_SCENARIO_H

#include <stdint.h>

#include "plugin_harness.h"

/* The carcassonne game's entry (carcassonne-objects). */
const struct cas_plugin *cas_plugin_entry(void);

/* Which expansions a game uses (bit mask); they are handed to the game in
 * the host's resolved order: inns-cathedrals, castles-germany (after
 * inns-cathedrals), king-robber, traders-builders, abbey-mayor (after
 * inns-cathedrals and traders-builders). */
enum carcx_set { CARCX_IC = 1, CARCX_TB = 2, CARCX_AM = 4, CARCX_KR = 8, CARCX_CG = 16 };

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

/* The descriptor of the one expansion `bit` names. */
const struct cas_plugin *carcx_plugin(enum carcx_set bit);

/* Inns & Cathedrals' caption city: IC-1(0,-1) holding Red's meeple, F(0,-2)
 * coat, E(0,-3), E(-1,-1), F(1,-1) coat, E(2,-1) closing it: 7 tiles and 2
 * coats, 27 points; Blue places the closing tile. */
#define CARCX_CATHEDRAL_CITY_TILES "*:0,D:1,IC-1:1,F:2,E:3"
#define CARCX_CATHEDRAL_CITY_RECORD                                        \
    "draw IC-1\nplace IC-1 0,-1 0\ndeploy meeple city N+E+S+W\n"          \
    "draw F\nplace F 0,-2 90\npass\n"                                      \
    "draw E\nplace E 0,-3 180\npass\n"                                     \
    "draw E\nplace E -1,-1 90\npass\n"                                     \
    "draw F\nplace F 1,-1 0\npass\n"                                       \
    "draw E\nplace E 2,-1 270\npass\n"

/* Open a game of nplayers with the expansions in `set`; `tiles` is the
 * game's `tiles` option ("*:0,D:1,...") or NULL for the full pool.  Fails
 * the test on error; close with cas_test_game_close. */
void carcx_open(struct cas_test_game *g, int nplayers, unsigned set, const char *tiles);

/* carcx_open with expansion options: a NULL-terminated list of
 * "ID.NAME=VALUE" (NULL for none); every option an expansion declares and
 * the list does not set gets its default, as from a host. */
void carcx_open_with(struct cas_test_game *g, int nplayers, unsigned set, const char *tiles,
                     const char *const *expansion_options);

/* carcx_open with abbey-mayor's options: its final-abbey-round and
 * wagon-move values ("on", "C1"; NULL for the default). */
void carcx_open_am(struct cas_test_game *g, int nplayers, unsigned set, const char *tiles,
                   const char *final_abbey_round, const char *wagon_move);

/* Open, play `record`, check the game is over with scores `expected`,
 * close. */
void carcx_scenario(int nplayers, unsigned set, const char *tiles, const char *record,
                    const int64_t *expected);

/* carcx_scenario with expansion options as in carcx_open_with. */
void carcx_scenario_with(int nplayers, unsigned set, const char *tiles,
                         const char *const *expansion_options, const char *record,
                         const int64_t *expected);

/* Play `record` in g, then write the canonical text of every legal action,
 * one per line, into texts[0..cap). */
void carcx_play_then_list(struct cas_test_game *g, const char *record, char *texts,
                          size_t cap);

/* Assert that g's state survives serialize and deserialize (same hash,
 * same choices), and that its bytes are refused as corrupt once the byte
 * `from_end` bytes before their end (the last expansion's block is last)
 * is set to `value`; `old` is what that byte must hold first, -1 for
 * anything. */
void carcx_expect_block_checked(struct cas_test_game *g, size_t from_end, int old,
                                uint8_t value);

/* Check that a fresh game with the expansions in `set` has `tiles` tiles
 * of `kinds` tile kinds in its bag (the first draw's chance outcomes). */
void carcx_expect_pool(unsigned set, uint64_t tiles, size_t kinds);

#endif
