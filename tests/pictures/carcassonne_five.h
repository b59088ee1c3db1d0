/*
 * carcassonne_five.h — a two-seat Carcassonne game with some of the five
 * expansions whose pictures the picture tests check, opened as a host
 * opens it (tests/support/plugin_harness.h).
 */
#ifndef CAS_TEST_CARCASSONNE_FIVE_H
#define CAS_TEST_CARCASSONNE_FIVE_H

#include <stddef.h>

#include "plugin_harness.h"

/* Open g: Carcassonne for two with the first nexp (at most 5) of Inns &
 * Cathedrals, Traders & Builders, Abbey & Mayor, King & Robber, Castles in
 * Germany.  The caller closes it with cas_test_game_close. */
void cas_test_carcassonne_five_open(struct cas_test_game *g, size_t nexp);

#endif
