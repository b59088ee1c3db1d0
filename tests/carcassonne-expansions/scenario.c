/*
 * scenario.c — expansion refs built by hand from the linked expansion
 * descriptors (data_dir = each plugin's source-tree data folder), and the
 * scenario runner shared by the expansion tests.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "inns_cathedrals.h"
#include "scenario.h"

void carcx_open(struct cas_test_game *g, int nplayers, unsigned set, const char *tiles)
{
    static char dirs[2][1024];
    struct cas_expansion_ref refs[2];
    size_t n = 0;
    if (set & CARCX_IC) {
        refs[n] = cas_test_expansion_ref(cas__ic_plugin(), dirs[n], sizeof dirs[n]);
        n++;
    }
    char option[512];
    snprintf(option, sizeof option, "tiles=%s", tiles ? tiles : "");
    const char *opts[] = {option, NULL};
    cas_test_game_open(g, cas_plugin_entry(), nplayers, tiles ? opts : NULL, refs, n);
}

void carcx_scenario(int nplayers, unsigned set, const char *tiles, const char *record,
                    const int64_t *expected)
{
    struct cas_test_game g;
    carcx_open(&g, nplayers, set, tiles);
    cas_test_play_record(&g, record);
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    cas_test_expect_scores(&g, expected);
    cas_test_game_close(&g);
}
