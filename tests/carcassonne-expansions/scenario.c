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

#include <string.h>

#include "abbey_mayor.h"
#include "castles_germany.h"
#include "inns_cathedrals.h"
#include "king_robber.h"
#include "scenario.h"
#include "traders_builders.h"

#define CARCX_MAX 5
#define CARCX_MAX_OPTIONS 8

/* The expansions in the host's resolved order (manifests, then id). */
static const struct {
    enum carcx_set bit;
    const struct cas_plugin *(*plugin)(void);
} carcx_all[CARCX_MAX] = {
    {CARCX_IC, cas__ic_plugin},
    {CARCX_CG, cas__cg_plugin},
    {CARCX_KR, cas__kr_plugin},
    {CARCX_TB, cas__tb_plugin},
    {CARCX_AM, cas__am_plugin},
};

/* Every option `plugin` declares, from `list` ("ID.NAME=VALUE") where it
 * sets one, else the default, into values (whose strings point into list
 * and the specs); returns how many. */
static size_t options_of(const struct cas_plugin *plugin, const char *const *list,
                         struct cas_option_value *values)
{
    size_t n = 0, id_len = strlen(plugin->id);
    for (size_t i = 0; i < plugin->n_options && n < CARCX_MAX_OPTIONS; i++) {
        const struct cas_option_spec *spec = &plugin->options[i];
        const char *value = spec->default_value;
        size_t name_len = strlen(spec->name);
        for (const char *const *o = list; o && *o; o++)
            if (strncmp(*o, plugin->id, id_len) == 0 && (*o)[id_len] == '.' &&
                strncmp(*o + id_len + 1, spec->name, name_len) == 0 &&
                (*o)[id_len + 1 + name_len] == '=')
                value = *o + id_len + 2 + name_len;
        values[n++] = (struct cas_option_value){.struct_size = sizeof *values,
                                                .name = spec->name, .value = value};
    }
    return n;
}

const struct cas_plugin *carcx_plugin(enum carcx_set bit)
{
    for (size_t i = 0; i < CARCX_MAX; i++)
        if (carcx_all[i].bit == bit)
            return carcx_all[i].plugin();
    return NULL;
}

void carcx_open(struct cas_test_game *g, int nplayers, unsigned set, const char *tiles)
{
    carcx_open_with(g, nplayers, set, tiles, NULL);
}

void carcx_open_am(struct cas_test_game *g, int nplayers, unsigned set, const char *tiles,
                   const char *final_abbey_round, const char *wagon_move)
{
    char final_round[64], wagon[64];
    snprintf(final_round, sizeof final_round, "abbey-mayor.final-abbey-round=%s",
             final_abbey_round ? final_abbey_round : "off");
    snprintf(wagon, sizeof wagon, "abbey-mayor.wagon-move=%s", wagon_move ? wagon_move : "C2");
    const char *options[] = {final_round, wagon, NULL};
    carcx_open_with(g, nplayers, set, tiles, options);
}

void carcx_open_with(struct cas_test_game *g, int nplayers, unsigned set, const char *tiles,
                     const char *const *expansion_options)
{
    static char dirs[CARCX_MAX][1024];
    static struct cas_option_value values[CARCX_MAX][CARCX_MAX_OPTIONS];
    struct cas_expansion_ref refs[CARCX_MAX];
    size_t n = 0;
    for (size_t i = 0; i < CARCX_MAX; i++) {
        if (!(set & carcx_all[i].bit))
            continue;
        const struct cas_plugin *plugin = carcx_all[i].plugin();
        refs[n] = cas_test_expansion_ref(plugin, dirs[n], sizeof dirs[n]);
        refs[n].options = values[n];
        refs[n].n_options = options_of(plugin, expansion_options, values[n]);
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
    carcx_scenario_with(nplayers, set, tiles, NULL, record, expected);
}

void carcx_scenario_with(int nplayers, unsigned set, const char *tiles,
                         const char *const *expansion_options, const char *record,
                         const int64_t *expected)
{
    struct cas_test_game g;
    carcx_open_with(&g, nplayers, set, tiles, expansion_options);
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

void carcx_expect_block_checked(struct cas_test_game *g, size_t from_end, int old,
                                uint8_t value)
{
    cas_state *twin = cas_test_restored_twin(g);
    assert_true(g->vt->hash(twin) == g->vt->hash(g->state));
    cas_test_expect_same_choices(g, twin);
    g->vt->state_free(twin);
    static uint8_t bytes[1 << 16];
    size_t len;
    assert_int_equal(g->vt->serialize(g->state, CAS_SERIAL_FULL, bytes, sizeof bytes, &len),
                     CAS_OK);
    assert_true(from_end <= len);
    if (old >= 0)
        assert_int_equal(bytes[len - from_end], old);
    bytes[len - from_end] = value;
    cas_state *back;
    assert_int_equal(g->vt->deserialize(g->game, bytes, len, &back), CAS_ECORRUPT);
}
