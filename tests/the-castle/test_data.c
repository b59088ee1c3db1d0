/*
 * test_data.c — the data files: the shipped board and tiles keep every
 * known fact (reference §1.2-1.5, 1.8), and a bad tile or board file is
 * refused with its path, line, the bad value and the fix, creating no game.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "castle_fixture.h"

static void test_shipped_data_keeps_known_facts(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    tc_open_shipped(&g);
    const cas_game *game = tc_state(&g)->game;
    const struct board *b = &game->board;
    const struct tileset *t = &game->tiles;
    assert_true(b->provisional && t->provisional); /* invented where unknown */
    assert_int_equal(b->ninterior, 76);
    assert_int_equal(t->total, 60);
    assert_true(b->ninterior - t->total >= 16);
    assert_int_equal(b->nstarts, 7);
    int market_starts = 0, markets = 0;
    for (int i = 0; i < b->nstarts; i++) {
        const struct tile_kind *k = &t->kind[b->start[i].kind];
        for (int f = 0; f < k->nf; f++)
            market_starts += k->f[f].cls == C_COURT && k->f[f].markets;
    }
    assert_int_equal(market_starts, 1);
    for (int k = 0; k < t->nkinds; k++)
        for (int f = 0; f < t->kind[k].nf; f++)
            markets += t->kind[k].count * t->kind[k].f[f].markets;
    assert_true(markets >= 5); /* a 5-market court must be possible */
    assert_int_equal(b->track, 100);
    assert_int_equal(b->ntowers, 14);
    int holding = 0, at12 = 0;
    for (int i = 0; i < b->ntowers; i++) {
        holding += b->tower[i].holds;
        if (b->tower[i].pos == 0)
            assert_false(b->tower[i].holds);
        at12 += b->tower[i].pos == 12 && b->tower[i].holds;
    }
    assert_int_equal(holding, 13);
    assert_int_equal(at12, 1);
    for (int w = 1; w <= WALL_KINDS; w++)
        assert_int_equal(b->wall_copies[w], 2);
    assert_int_equal(b->wall_effect[1], W_EXTRA_TURN);
    assert_int_equal(b->wall_effect[7], W_MARKET_BONUS);
    assert_int_equal(b->wall_amount[7], 4);
    cas_test_game_close(&g);
}

/* Open with the test board and a tile file of `text` (or the test tiles
 * and a board of `text`); expect game_new to fail with CAS_EDATA and an
 * error containing `file_line` (e.g. "bad.tiles:3:") and `words`. */
static void expect_refused(const char *tiles_text, const char *board_text, const char *file_line,
                           const char *words)
{
    const char *dir = getenv("CASTELLAN_BUILD_DIR");
    char path[1024], tiles_opt[1100], board_opt[1100], data[1024];
    const char *name = tiles_text ? "bad.tiles" : "bad.board";
    snprintf(path, sizeof path, "%s/%s", dir ? dir : ".", name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(tiles_text ? tiles_text : board_text, f);
    fclose(f);
    snprintf(tiles_opt, sizeof tiles_opt, "tiles=%s",
             tiles_text ? path : tc_data_path("test.tiles", data, sizeof data));
    snprintf(board_opt, sizeof board_opt, "board=%s",
             board_text ? path : tc_data_path("test.board", data, sizeof data));
    const char *const options[] = {tiles_opt, board_opt, NULL};
    struct cas_test_game g;
    int rc = cas_test_game_try_open(&g, cas_plugin_entry(), 2, options, NULL, 0);
    assert_int_equal(rc, CAS_EDATA);
    assert_null(g.game);
    if (!strstr(g.error, file_line) || !strstr(g.error, words))
        fail_msg("error \"%s\" should name \"%s\" and say \"%s\"", g.error, file_line, words);
    cas_test_game_close(&g);
}

#define START_TILES "start-tile S1 P...\n  path N\n  court Nw+Ne+E+S+W\n" \
                    "start-tile SM ....\n  court N+E+S+W market\n"

static void test_tile_file_errors(void **unused)
{
    (void)unused;
    expect_refused("provisional no\ntile X 1 ....\n  house N\n  court E+S\n" START_TILES, NULL,
                   "bad.tiles:2:", "tile X leaves half Ws to no feature; add it to a house");
    expect_refused("provisional no\ntile X 1 ..P.\n  path N\n", NULL, "bad.tiles:3:",
                   "path side N of tile X has no path in its edges");
    expect_refused("provisional no\ntile X 1 PPQ.\n", NULL, "bad.tiles:2:",
                   "edges 'PPQ.' must be 4 characters");
    expect_refused("provisional no\ntile X 1 ....\n  house N+E\n  court E+S+W\n", NULL,
                   "bad.tiles:4:", "'E' of tile X is already taken");
    expect_refused("provisional no\nmeadow X\n", NULL, "bad.tiles:2:",
                   "unknown statement 'meadow'");
    expect_refused("provisional no\ntile X 1 ....\n  court N+E+S+W market=12\n", NULL,
                   "bad.tiles:3:", "'market=K' (K 1..9)");
    expect_refused("tile X 1 ....\n  court N+E+S+W\n" START_TILES, NULL, "bad.tiles:",
                   "missing 'provisional yes|no' line");
    expect_refused("provisional no\ntile X 1 ....\n  court N+E+S+W\ntile X 2 ....\n", NULL,
                   "bad.tiles:4:", "tile id 'X' is used twice");
}

#define BOARD_TAIL "start A S1 180\ntrack 100\ntower 0 empty\ntower 12\n" \
                   "wall-tile 1 2 extra-turn\n"

static void test_board_file_errors(void **unused)
{
    (void)unused;
    expect_refused(NULL, "provisional no\ngrid\n==A==\n=.x.=\n=====\nend\n" BOARD_TAIL,
                   "bad.board:4:", "grid character 'x' is not");
    expect_refused(NULL, "provisional no\ngrid\n==A==\n=...=\n====\nend\n" BOARD_TAIL,
                   "bad.board:5:", "grid row is 4 wide, the first row 5");
    expect_refused(NULL, "provisional no\ngrid\n==A==\n=...=\n=====\nend\nstart A T9 0\n",
                   "bad.board:7:", "'T9' is not a start-tile");
    expect_refused(NULL, "provisional no\ngrid\n==A==\n=...=\n=====\nend\n"
                         "start A S1 45\n", "bad.board:7:", "rotation '45' must be 0, 90");
    expect_refused(NULL, "provisional no\ngrid\n==A==\n=...=\n=====\nend\nstart A S1 180\n"
                         "track 100\ntower 10\ntower 11\n", "bad.board:10:",
                   "tower 11 overlaps the tower at 10");
    expect_refused(NULL, "provisional no\ngrid\n==A==\n=...=\n=====\nend\n" BOARD_TAIL
                         "wall-tile 2 2 teleport\n", "bad.board:12:", "unknown effect 'teleport'");
    expect_refused(NULL, "provisional no\ngrid\n==A==\n=...=\n=====\nend\n" BOARD_TAIL
                         "wall-tile 9 2 points\n", "bad.board:12:", "points needs an AMOUNT");
    expect_refused(NULL, "provisional no\ngrid\n==A==\n=...=\n=====\nend\nstart A S1 180\n"
                         "track 100\ntower 0\ntower 12\nwall-tile 1 1 extra-turn\n",
                   "bad.board:", "2 towers hold a wall tile but only 1 wall tiles are given");
    expect_refused(NULL, "provisional no\ngrid\n=====\n=...=\n====A\nend\n" BOARD_TAIL,
                   "bad.board:7:", "start space A touches no interior space");
    /* the test tiles (35) do not fit in 3 spaces */
    expect_refused(NULL, "provisional no\ngrid\n==A==\n=...=\n=====\nend\n" BOARD_TAIL,
                   "bad.board:", "35 castle tiles do not fit in 3 interior spaces");
    expect_refused(NULL, "provisional no\ngrid\n==A==\n=...=\n=====\n" BOARD_TAIL,
                   "bad.board:6:", "grid row 'start A' has blanks");
    expect_refused(NULL, "provisional no\ngrid\n==A==\n=...=\n=====\n", "bad.board:5:",
                   "the grid has no 'end' line");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shipped_data_keeps_known_facts),
        cmocka_unit_test(test_tile_file_errors),
        cmocka_unit_test(test_board_file_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
