/*
 * worker_games.h — one game played twice, in process and in a worker
 * process, every action's text and hash recorded, for the tests that
 * compare the two (tests/worker).
 */
#ifndef CAS_TEST_WORKER_GAMES_H
#define CAS_TEST_WORKER_GAMES_H

#include <stdint.h>

#include "match.h"

#define WORKER_GAMES_MAX_PLIES 4096

/* What the session journaled: each action's text and the hash after it. */
struct worker_games_record {
    size_t n;
    char text[WORKER_GAMES_MAX_PLIES][64];
    uint64_t hash[WORKER_GAMES_MAX_PLIES];
    int64_t scores[8];
    char transcript[1 << 16]; /* the moves and events the session printed */
};

/* The bundled plugin `id`, loaded from its library in the build tree (a
 * worker loads plugins only from the files castellan checked), and its
 * data folder into *data.  Fails the test when it cannot be loaded; the
 * registry stays loaded for the life of the test. */
const struct cas_plugin *worker_games_plugin(const char *id, const char **data);

/* Play plugin (data folder data) for two players with agents a and b and
 * seed, isolated or not, the whole game, into *out.  Fails the test on
 * any error. */
void worker_games_play(const struct cas_plugin *plugin, const char *data, const char *a,
                       const char *b, uint64_t seed, int isolated,
                       struct worker_games_record *out);

/* Both ways, asserting the records equal and the game ended. */
void worker_games_compare(const struct cas_plugin *plugin, const char *data, const char *a,
                          const char *b, uint64_t seed);

#endif
