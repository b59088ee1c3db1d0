/*
 * test_plugin.c — %%ID%%'s tests: rules played through the plugin's vtable
 * with a stand-in host (each rule a scenario with its exact score), and
 * castellan's conformance check over many random games.
 */
#include <dlfcn.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include <castellan/plugin.h>

/* ---- a stand-in host: plain malloc, errors printed */

static void *host_alloc(void *ctx, size_t size) { (void)ctx; return malloc(size); }
static void *host_realloc(void *ctx, void *block, size_t size)
{
    (void)ctx;
    return realloc(block, size);
}
static void host_release(void *ctx, void *block) { (void)ctx; free(block); }
static void host_log(void *ctx, enum cas_log_level level, const char *message)
{
    (void)ctx, (void)level;
    fprintf(stderr, "plugin: %s\n", message);
}
static void host_error(void *ctx, const char *message) { host_log(ctx, CAS_LOG_ERROR, message); }

static const struct cas_host host = {
    CAS_SIZED(struct cas_host), .abi_major = CAS_ABI_MAJOR, .abi_minor = CAS_ABI_MINOR,
    .log = host_log, .set_error = host_error, .alloc = host_alloc, .realloc = host_realloc,
    .release = host_release, .data_dir = ".",
};

struct game {
    void *library;
    const struct cas_game_vtable *vt;
    cas_game *game;
    cas_state *state;
};

/* Open a 2-player game of the built plugin with its default options. */
static void open_game(struct game *g)
{
    g->library = dlopen(PLUGIN_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    assert_non_null(g->library);
    cas_plugin_entry_fn entry = (cas_plugin_entry_fn)dlsym(g->library, "cas_plugin_entry");
    assert_non_null(entry);
    const struct cas_plugin *plugin = entry();
    g->vt = plugin->game;
    struct cas_option_value values[8];
    assert_true(plugin->n_options <= 8);
    for (size_t i = 0; i < plugin->n_options; i++)
        values[i] = CAS_INIT(struct cas_option_value, .name = plugin->options[i].name,
                             .value = plugin->options[i].default_value);
    struct cas_game_params params = CAS_INIT(struct cas_game_params, .nplayers = 2,
                                             .options = values,
                                             .n_options = plugin->n_options);
    assert_int_equal(g->vt->game_new(&host, &params, &g->game, NULL), CAS_OK);
    assert_int_equal(g->vt->state_new(g->game, &g->state), CAS_OK);
}

static void close_game(struct game *g)
{
    g->vt->state_free(g->state);
    g->vt->game_free(g->game);
    dlclose(g->library);
}

/* Apply actions given as text, one per line of `line`s. */
static void play(struct game *g, const char *const *texts)
{
    for (; *texts; texts++) {
        cas_action a;
        assert_int_equal(g->vt->parse_action(g->state, *texts, &a), CAS_OK);
        assert_int_equal(g->vt->apply(g->state, a, NULL), CAS_OK);
    }
}

static void expect_scores(struct game *g, int64_t red, int64_t blue)
{
    int64_t scores[2];
    assert_int_equal(g->vt->returns(g->state, scores, 2), CAS_OK);
    assert_int_equal(scores[0], red);
    assert_int_equal(scores[1], blue);
}

/* Holding banks the turn total: 5 + 4 = 9 for Red. */
static void test_hold_banks_the_turn_total(void **unused)
{
    (void)unused;
    struct game g;
    open_game(&g);
    play(&g, (const char *[]){"roll", "die 5", "roll", "die 4", "hold", NULL});
    expect_scores(&g, 9, 0);
    assert_int_equal(g.vt->current(g.state), 1); /* Blue's turn */
    close_game(&g);
}

/* A 1 loses the turn total and passes the die. */
static void test_a_one_loses_the_turn(void **unused)
{
    (void)unused;
    struct game g;
    open_game(&g);
    play(&g, (const char *[]){"roll", "die 6", "roll", "die 1", NULL});
    expect_scores(&g, 0, 0);
    assert_int_equal(g.vt->current(g.state), 1);
    close_game(&g);
}

/* castellan check: every promise of plugin.h over 200 random games, in
 * the default mode: this plugin's folder is not castellan's, so it is
 * loaded and played in a confined worker, as a user who installs it will
 * run it (docs/isolation.md); the tests above call plugin.c directly. */
static void test_conformance(void **unused)
{
    (void)unused;
    assert_int_equal(system("'" CASTELLAN "' check %%ID%% --plugin-path '" PLUGIN_PATH
                            "' --games 200"), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hold_banks_the_turn_total),
        cmocka_unit_test(test_a_one_loses_the_turn),
        cmocka_unit_test(test_conformance),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
