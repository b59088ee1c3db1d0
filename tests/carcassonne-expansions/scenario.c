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

#include "abbey_mayor.h"
#include "inns_cathedrals.h"
#include "scenario.h"
#include "traders_builders.h"

void carcx_open_am(struct cas_test_game *g, int nplayers, unsigned set, const char *tiles,
                   const char *final_abbey_round, const char *wagon_move)
{
    static char dirs[3][1024];
    static struct cas_option_value am_options[2];
    struct cas_expansion_ref refs[3];
    size_t n = 0;
    if (set & CARCX_IC) {
        refs[n] = cas_test_expansion_ref(cas__ic_plugin(), dirs[n], sizeof dirs[n]);
        n++;
    }
    if (set & CARCX_TB) {
        refs[n] = cas_test_expansion_ref(cas__tb_plugin(), dirs[n], sizeof dirs[n]);
        n++;
    }
    if (set & CARCX_AM) {
        refs[n] = cas_test_expansion_ref(cas__am_plugin(), dirs[n], sizeof dirs[n]);
        am_options[0] = (struct cas_option_value){
            sizeof am_options[0], "final-abbey-round",
            final_abbey_round ? final_abbey_round : "off"};
        am_options[1] = (struct cas_option_value){sizeof am_options[1], "wagon-move",
                                                  wagon_move ? wagon_move : "C2"};
        refs[n].options = am_options;
        refs[n].n_options = 2;
        n++;
    }
    char option[512];
    snprintf(option, sizeof option, "tiles=%s", tiles ? tiles : "");
    const char *opts[] = {option, NULL};
    cas_test_game_open(g, cas_plugin_entry(), nplayers, tiles ? opts : NULL, refs, n);
}

void carcx_open(struct cas_test_game *g, int nplayers, unsigned set, const char *tiles)
{
    carcx_open_am(g, nplayers, set, tiles, NULL, NULL);
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

void carcx_expect_pool(unsigned set, uint64_t tiles, size_t kinds)
{
    struct cas_test_game g;
    carcx_open(&g, 2, set, NULL);
    struct cas_outcome outcomes[256];
    size_t n;
    assert_int_equal(g.vt->chance_outcomes(g.state, outcomes, 256, &n), CAS_OK);
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += outcomes[i].weight;
    assert_int_equal(total, tiles);
    assert_int_equal(n, kinds);
    cas_test_game_close(&g);
}

void carcx_play_then_list(struct cas_test_game *g, const char *record, char *texts,
                          size_t cap)
{
    cas_test_play_record(g, record);
    cas_test_legal_texts(g, texts, cap);
}
