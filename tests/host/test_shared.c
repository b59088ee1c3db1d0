/*
 * test_shared.c — read-only data shared between games (host/util/shared.h,
 * the ABI 1.3 share/unshare services): one copy per owner, key and bytes,
 * counted references, the last release freeing it; and the Carcassonne
 * plugin's tile kinds through real matches: games of the same options
 * share one copy, other options get their own, closing the last game frees
 * it, a host from before 1.3 gets a game with tables of its own, and two
 * threads creating games at once end with one copy and every reference
 * counted; the pictures of a game on shared tables (whose tile symbols
 * come from them) are those of a game of its own.  Leaks are left to ASan
 * and valgrind.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdalign.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "match.h"
#include "random_play.h"
#include "shared.h"
#include "target.h"

static void one_copy_per_owner_key_and_bytes(void **unused)
{
    (void)unused;
    int owner_a = 0, owner_b = 0; /* two plugins: only their addresses count */
    char bytes[] = "tile kinds", other[] = "tile KINDS";
    const void *first = cas__shared_keep(&owner_a, "k", bytes, sizeof bytes);
    assert_non_null(first);
    assert_ptr_not_equal(first, bytes); /* a copy */
    assert_memory_equal(first, bytes, sizeof bytes);
    assert_int_equal((uintptr_t)first % alignof(max_align_t), 0);
    bytes[0] = 'T'; /* the caller's own bytes are its own */
    assert_memory_equal(first, "tile kinds", sizeof bytes);
    bytes[0] = 't';
    assert_ptr_equal(cas__shared_keep(&owner_a, "k", bytes, sizeof bytes), first);
    size_t refs;
    assert_int_equal(cas__shared_count(&refs), 1);
    assert_int_equal(refs, 2);

    /* Other bytes under the same key: refused, the caller keeps its own. */
    assert_null(cas__shared_keep(&owner_a, "k", other, sizeof other));
    assert_null(cas__shared_keep(&owner_a, "k", bytes, sizeof bytes - 1));
    /* Another key, or another plugin's same key: a block of its own. */
    const void *second = cas__shared_keep(&owner_a, "k2", other, sizeof other);
    const void *third = cas__shared_keep(&owner_b, "k", bytes, sizeof bytes);
    assert_non_null(second);
    assert_non_null(third);
    assert_ptr_not_equal(second, first);
    assert_ptr_not_equal(third, first);
    assert_int_equal(cas__shared_count(&refs), 3);
    assert_int_equal(refs, 4);

    cas__shared_release(first);
    assert_int_equal(cas__shared_count(&refs), 3);
    assert_int_equal(refs, 3);
    cas__shared_release(first); /* the last reference: freed */
    cas__shared_release(second);
    cas__shared_release(third);
    cas__shared_release(NULL);
    assert_int_equal(cas__shared_count(&refs), 0);
    assert_int_equal(refs, 0);
}

/* Carcassonne, from the build's plugins, in this process. */
static void open_target(struct cas__target *t, const char *expansions, const char *rule)
{
    char err[1024];
    const char *rules[] = {rule};
    struct cas__target_request req = {
        .plugin_path = PLUGIN_DIR, .game = "carcassonne", .game_flag = "--game",
        .expansions = expansions, .rules = rules, .n_rules = rule ? 1 : 0,
        .isolation = {.mode = CAS__ISOLATE_IN_PROCESS},
    };
    if (cas__target_open(t, &req, err, sizeof err) != CAS_OK)
        fail_msg("carcassonne: %s", err);
}

static void open_match(const struct cas__target *t, struct cas__match *m, int nplayers)
{
    char err[1024];
    if (cas__target_match(t, m, nplayers, err, sizeof err) != CAS_OK)
        fail_msg("carcassonne: %s", err);
}

static void games_of_the_same_options_share_their_tiles(void **unused)
{
    (void)unused;
    struct cas__target base, no_farmers, expanded;
    open_target(&base, NULL, NULL);
    open_target(&no_farmers, NULL, "farmers=off");
    open_target(&expanded, "inns-cathedrals,traders-builders", NULL);
    size_t refs;
    assert_int_equal(cas__shared_count(&refs), 0);

    struct cas__match a, b, c, d, e;
    open_match(&base, &a, 2);
    open_match(&base, &b, 3); /* the player count changes no tile */
    assert_int_equal(cas__shared_count(&refs), 1);
    assert_int_equal(refs, 2);
    open_match(&no_farmers, &c, 2);
    assert_int_equal(cas__shared_count(&refs), 2);
    assert_int_equal(refs, 3);
    open_match(&expanded, &d, 2);
    open_match(&expanded, &e, 2);
    assert_int_equal(cas__shared_count(&refs), 3);
    assert_int_equal(refs, 5);

    /* A game on shared tiles plays, while another game of them closes. */
    cas_state *s = NULL;
    struct cas__actions list = {0};
    assert_int_equal(b.vt->state_new(b.game, &s), CAS_OK);
    cas__match_close(&a);
    assert_int_equal(cas__shared_count(&refs), 3);
    assert_int_equal(refs, 4);
    for (uint32_t ply = 0; ply < 40; ply++)
        assert_int_equal(cas__random_step(&b, s, &list, 7, ply), CAS_OK);
    cas__actions_free(&list);
    b.vt->state_free(s);

    cas__match_close(&b); /* the last base game: its copy goes */
    assert_int_equal(cas__shared_count(&refs), 2);
    assert_int_equal(refs, 3);
    cas__match_close(&c);
    cas__match_close(&d);
    cas__match_close(&e);
    assert_int_equal(cas__shared_count(&refs), 0);
    cas__target_close(&base);
    cas__target_close(&no_farmers);
    cas__target_close(&expanded);
}

static const void *must_not_share(void *ctx, const char *key, const void *data, size_t size)
{
    (void)ctx, (void)key, (void)data, (void)size;
    fail_msg("share called past the host's struct_size");
    return NULL;
}

static void must_not_unshare(void *ctx, const void *shared)
{
    (void)ctx, (void)shared;
    fail_msg("unshare called past the host's struct_size");
}

/* Into older: m's host as a 1.2 host has it (a struct cas_host that ends
 * at data_dir), its share and unshare past the end set to fail the test if
 * called.  The caller keeps older for as long as a game made on it. */
static void older_host(const struct cas__match *m, struct cas_host *older)
{
    *older = m->host;
    older->struct_size = offsetof(struct cas_host, share);
    older->abi_minor = 2;
    older->share = must_not_share;
    older->unshare = must_not_unshare;
}

/* A game of m's plugin for two with its default options, made on host:
 * the caller frees it (game_free), then *values. */
static cas_game *game_on(const struct cas__match *m, const struct cas_host *host,
                         struct cas_option_value **values)
{
    size_t n = 0;
    *values = cas__option_defaults(m->plugin, &n);
    struct cas_game_params params = {.struct_size = sizeof params, .nplayers = 2,
                                     .options = *values, .n_options = n};
    cas_game *game = NULL;
    assert_int_equal(m->vt->game_new(host, &params, &game, NULL), CAS_OK);
    return game;
}

/* A 1.3 plugin on a 1.2 host (a struct cas_host that ends at data_dir):
 * it looks past nothing and keeps its tables to itself. */
static void an_older_host_gets_a_game_of_its_own(void **unused)
{
    (void)unused;
    struct cas__target t;
    struct cas__match m;
    open_target(&t, NULL, NULL);
    open_match(&t, &m, 2); /* the plugin, its data folder, a counting ctx */
    struct cas_host older;
    struct cas_option_value *values;
    older_host(&m, &older);
    cas_game *game = game_on(&m, &older, &values);
    size_t refs;
    assert_int_equal(cas__shared_count(&refs), 1);
    assert_int_equal(refs, 1); /* m's alone */
    cas_state *s = NULL;
    cas_action actions[256];
    size_t count = 0;
    assert_int_equal(m.vt->state_new(game, &s), CAS_OK);
    assert_int_equal(m.vt->legal_actions(s, actions, 256, &count), CAS_OK);
    assert_true(count > 0);
    m.vt->state_free(s);
    m.vt->game_free(game);
    free(values);
    cas__match_close(&m);
    assert_int_equal(cas__shared_count(&refs), 0);
    cas__target_close(&t);
}

struct text {
    char data[1 << 17];
    size_t len;
};

static int text_write(void *ctx, const char *data, size_t len)
{
    struct text *t = ctx;
    if (len > sizeof t->data - t->len)
        return CAS_ENOSPC;
    memcpy(t->data + t->len, data, len);
    t->len += len;
    return CAS_OK;
}

static void draw(const struct cas__match *m, const cas_state *s, struct text *t)
{
    struct cas_writer out = {.struct_size = sizeof out, .ctx = t, .write = text_write};
    t->len = 0;
    assert_int_equal(m->vt->render(s, 0, CAS_RENDER_SVG, &out), CAS_OK);
}

/* Carcassonne keeps its tile kinds' SVG symbols in the shared tables and
 * copies them into each picture; a game with tables of its own (an older
 * host) draws them.  The same moves give the same pictures, byte for byte. */
static void a_game_on_shared_tiles_draws_as_one_of_its_own(void **unused)
{
    (void)unused;
    struct cas__target t;
    struct cas__match m;
    open_target(&t, NULL, NULL);
    open_match(&t, &m, 2);
    struct cas_host older;
    struct cas_option_value *values;
    older_host(&m, &older);
    cas_game *own = game_on(&m, &older, &values);
    cas_state *shared_state = NULL, *own_state = NULL;
    assert_int_equal(m.vt->state_new(m.game, &shared_state), CAS_OK);
    assert_int_equal(m.vt->state_new(own, &own_state), CAS_OK);
    static struct text a, b;
    cas_action actions[512];
    int pictures = 0;
    for (uint64_t ply = 0; m.vt->current(shared_state) != CAS_ACTOR_TERMINAL; ply++) {
        draw(&m, shared_state, &a);
        draw(&m, own_state, &b);
        assert_int_equal(a.len, b.len);
        assert_memory_equal(a.data, b.data, a.len);
        pictures++;
        size_t count = 0;
        assert_int_equal(m.vt->legal_actions(shared_state, actions, 512, &count), CAS_OK);
        cas_action pick = actions[(ply * 2654435761u) % count];
        assert_int_equal(m.vt->apply(shared_state, pick, NULL), CAS_OK);
        assert_int_equal(m.vt->apply(own_state, pick, NULL), CAS_OK);
    }
    assert_true(pictures > 100); /* a whole game */
    m.vt->state_free(shared_state);
    m.vt->state_free(own_state);
    m.vt->game_free(own);
    free(values);
    cas__match_close(&m);
    cas__target_close(&t);
}

#define GAMES_PER_THREAD 12

struct opener {
    const struct cas__target *t;
    struct cas__match m[GAMES_PER_THREAD];
    int failed;
};

static void *open_many(void *arg)
{
    struct opener *o = arg;
    char err[512];
    for (int i = 0; i < GAMES_PER_THREAD; i++)
        o->failed |= cas__target_match(o->t, &o->m[i], 2, err, sizeof err) != CAS_OK;
    return NULL;
}

static void two_threads_creating_games_share_one_copy(void **unused)
{
    (void)unused;
    struct cas__target t;
    open_target(&t, "inns-cathedrals", NULL);
    struct opener one = {.t = &t}, two = {.t = &t};
    pthread_t thread;
    assert_int_equal(pthread_create(&thread, NULL, open_many, &one), 0);
    open_many(&two);
    assert_int_equal(pthread_join(thread, NULL), 0);
    assert_false(one.failed);
    assert_false(two.failed);
    size_t refs;
    assert_int_equal(cas__shared_count(&refs), 1);
    assert_int_equal(refs, 2 * GAMES_PER_THREAD);
    for (int i = 0; i < GAMES_PER_THREAD; i++) {
        assert_ptr_equal(one.m[i].plugin, two.m[i].plugin);
        cas__match_close(&one.m[i]);
        cas__match_close(&two.m[i]);
    }
    assert_int_equal(cas__shared_count(&refs), 0);
    cas__target_close(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_copy_per_owner_key_and_bytes),
        cmocka_unit_test(games_of_the_same_options_share_their_tiles),
        cmocka_unit_test(an_older_host_gets_a_game_of_its_own),
        cmocka_unit_test(a_game_on_shared_tiles_draws_as_one_of_its_own),
        cmocka_unit_test(two_threads_creating_games_share_one_copy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
