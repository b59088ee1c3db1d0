/*
 * test_session_open.c — from a session file to a running game: the
 * fixture preset validated against the build tree's plugins and opened
 * through cas__session_desc_open_match; a plugin's own refusal of option
 * values that pass the generic checks reaches the caller.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "match.h"
#include "session_files.h"
#include "session_plan.h"

static struct cas__registry *build_plugins(void)
{
    char dir[2048];
    snprintf(dir, sizeof dir, "%s/plugins", getenv("CASTELLAN_BUILD_DIR"));
    struct cas__strlist path = {.items = (char *[]){dir}, .count = 1};
    struct cas__registry *reg = NULL;
    assert_int_equal(cas__registry_scan(&path, &reg), CAS_OK);
    return reg;
}

static void test_fixture_preset_opens(void **state)
{
    (void)state;
    char path[2048], err[2048];
    snprintf(path, sizeof path, "%s/config/presets/fixture.ini",
             getenv("CASTELLAN_SOURCE_DIR"));
    struct cas__session_desc desc;
    assert_int_equal(cas__session_desc_load(path, &desc, err, sizeof err), CAS_OK);
    struct cas__registry *reg = build_plugins();
    struct cas__session_plan plan;
    int rc = cas__session_desc_validate(&desc, reg, &plan, err, sizeof err);
    if (rc)
        fail_msg("%s", err);
    struct cas__match m;
    rc = cas__session_desc_open_match(&plan, &m, err, sizeof err);
    if (rc)
        fail_msg("%s", err);
    assert_string_equal(m.plugin->id, "fixture");
    assert_int_equal(m.nplayers, 2);
    assert_non_null(m.game);
    char data_dir[2048];
    snprintf(data_dir, sizeof data_dir, "%s/plugins/fixture/data",
             getenv("CASTELLAN_BUILD_DIR"));
    assert_string_equal(m.data_dir, data_dir);
    cas_state *s;
    assert_int_equal(m.vt->state_new(m.game, &s), CAS_OK);
    assert_int_not_equal(m.vt->current(s), CAS_ACTOR_TERMINAL);
    m.vt->state_free(s);
    cas__match_close(&m);
    cas__session_plan_free(&plan);
    cas__registry_free(reg);
    cas__session_desc_free(&desc);
}

static void test_plugin_refuses_a_combination(void **state)
{
    (void)state;
    struct session_file f;
    session_file_load(&f, "[session]\ngame = fixture\n[rules]\ncards = 3\nhand = 5\n"
                          "[player.1]\nagent = random\n[player.2]\nagent = random\n"
                          "[player.3]\nagent = random\n[player.4]\nagent = random\n");
    assert_int_equal(f.rc, CAS_OK);
    struct cas__registry *reg = build_plugins();
    struct cas__session_plan plan;
    char err[2048];
    assert_int_equal(cas__session_desc_validate(&f.desc, reg, &plan, err, sizeof err), CAS_OK);
    struct cas__match m;
    assert_int_equal(cas__session_desc_open_match(&plan, &m, err, sizeof err), CAS_EOPTION);
    assert_string_equal(err, "fixture: option cards = 3: a deck of 6 cards cannot deal 4 "
                             "hands of 5; raise cards to 10");
    assert_null(m.game);
    cas__session_plan_free(&plan);
    cas__registry_free(reg);
    session_file_done(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fixture_preset_opens),
        cmocka_unit_test(test_plugin_refuses_a_combination),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
