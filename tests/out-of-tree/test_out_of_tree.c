/*
 * test_out_of_tree.c — the sample plugin built outside this tree against
 * the installed headers (pkg-config and find_package builds) is found in
 * the installed plugin folder, passes every loader check, and plays: a
 * scenario with exact returns, text round trips and state serialization.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"

struct test_host {
    struct cas_host host;
    char error[512];
    int live_blocks;
};

static void host_log(void *ctx, enum cas_log_level level, const char *message)
{
    (void)ctx, (void)level, (void)message;
}
static void host_set_error(void *ctx, const char *message)
{
    struct test_host *h = ctx;
    snprintf(h->error, sizeof h->error, "%s", message);
}
static void *host_alloc(void *ctx, size_t size)
{
    ((struct test_host *)ctx)->live_blocks++;
    return malloc(size);
}
static void *host_realloc(void *ctx, void *block, size_t size)
{
    if (!block)
        ((struct test_host *)ctx)->live_blocks++;
    return realloc(block, size);
}
static void host_release(void *ctx, void *block)
{
    if (block)
        ((struct test_host *)ctx)->live_blocks--;
    free(block);
}

static void host_init(struct test_host *h, const char *data_dir)
{
    memset(h, 0, sizeof *h);
    h->host = (struct cas_host){sizeof h->host, CAS_ABI_MAJOR, CAS_ABI_MINOR, h,
                                host_log, host_set_error, host_alloc, host_realloc,
                                host_release, data_dir, NULL, NULL /* no sharing */};
}

/* Apply the action whose canonical text is text. */
static void play(const struct cas_game_vtable *vt, cas_state *s, const char *text)
{
    cas_action a;
    char back[32];
    assert_int_equal(vt->parse_action(s, text, &a), CAS_OK);
    assert_int_equal(vt->action_text(s, a, back, sizeof back), (int)strlen(text));
    assert_string_equal(back, text);
    assert_int_equal(vt->apply(s, a, NULL), CAS_OK);
}

static void play_one_game(const struct cas__plugin_info *info)
{
    const struct cas_game_vtable *vt = info->desc->game;
    struct test_host h;
    host_init(&h, info->data_dir);
    struct cas_option_value opts[] = {{sizeof opts[0], "stones", "5"},
                                      {sizeof opts[0], "max-take", "2"}};
    struct cas_game_params params = {sizeof params, 2, opts, 2, NULL, 0};
    cas_game *game;
    cas_state *s, *copy;
    assert_int_equal(vt->game_new(&h.host, &params, &game, NULL), CAS_OK);
    assert_int_equal(vt->state_new(game, &s), CAS_OK);
    cas_action legal[8];
    size_t n;
    assert_int_equal(vt->legal_actions(s, legal, 8, &n), CAS_OK);
    assert_int_equal(n, 2);
    assert_int_equal(vt->current(s), 0);
    play(vt, s, "take 2"); /* 3 left */
    play(vt, s, "take 1"); /* 2 left */
    cas_action a;
    assert_int_equal(vt->parse_action(s, "take 3", &a), CAS_EILLEGAL);
    assert_string_equal(h.error, "cannot take 3 now; take 1 to 2");
    uint8_t bytes[64];
    size_t len;
    assert_int_equal(vt->serialize(s, CAS_SERIAL_FULL, bytes, sizeof bytes, &len), CAS_OK);
    assert_int_equal(vt->deserialize(game, bytes, len, &copy), CAS_OK);
    assert_true(vt->hash(copy) == vt->hash(s));
    play(vt, s, "take 2"); /* North takes the last stones */
    assert_int_equal(vt->current(s), CAS_ACTOR_TERMINAL);
    assert_true(vt->hash(copy) != vt->hash(s));
    int64_t scores[2];
    assert_int_equal(vt->returns(s, scores, 2), CAS_OK);
    assert_int_equal(scores[0], 1);
    assert_int_equal(scores[1], 0);
    vt->state_free(copy);
    vt->state_free(s);
    vt->game_free(game);
    assert_int_equal(h.live_blocks, 0);
}

static void test_both_builds_load_and_play(void **state)
{
    (void)state;
    struct cas__strlist path = {.items = (char *[]){OOT_PLUGIN_DIR}, .count = 1};
    struct cas__registry *reg = NULL;
    assert_int_equal(cas__registry_scan(&path, &reg), CAS_OK);
    cas__registry_foreign_in_process(reg, 1); /* loaded here, to be looked at */
    const char *ids[] = {"oot-find-package", "oot-pkg-config"};
    for (size_t i = 0; i < 2; i++) {
        struct cas__plugin_info *info = cas__registry_find(reg, ids[i]);
        assert_non_null(info);
        int rc = cas__registry_load(reg, info);
        if (rc)
            fail_msg("%s", info->refusal);
        assert_string_equal(info->desc->id, ids[i]);
        play_one_game(info);
    }
    cas__registry_free(reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_both_builds_load_and_play),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
