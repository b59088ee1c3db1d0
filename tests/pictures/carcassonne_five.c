/*
 * carcassonne_five.c — a two-seat Carcassonne game with some of the five
 * expansions, for the picture tests that play whole games.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "abbey_mayor.h"
#include "carcassonne_five.h"
#include "castles_germany.h"
#include "inns_cathedrals.h"
#include "king_robber.h"
#include "traders_builders.h"

const struct cas_plugin *cas_plugin_entry(void);

static const struct cas_plugin *(*const five[])(void) = {
    cas__ic_plugin, cas__tb_plugin, cas__am_plugin, cas__kr_plugin, cas__cg_plugin};

void cas_test_carcassonne_five_open(struct cas_test_game *g, size_t nexp)
{
    /* The refs' data folders: the same source-tree paths for every game,
     * kept for as long as any game may read them. */
    static char dirs[5][1024];
    struct cas_expansion_ref refs[5];
    assert_true(nexp <= 5);
    for (size_t i = 0; i < nexp; i++)
        refs[i] = cas_test_expansion_ref(five[i](), dirs[i], sizeof dirs[i]);
    cas_test_game_open(g, cas_plugin_entry(), 2, NULL, refs, nexp);
}
