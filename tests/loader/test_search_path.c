/*
 * test_search_path.c — where plugins are looked for: --plugin-path, then
 * $CASTELLAN_PLUGIN_PATH, then the install location, then the build tree;
 * empty and repeated folders dropped, missing folders harmless.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader_fixtures.h"

static void test_order_and_duplicates(void **state)
{
    (void)state;
    setenv("CASTELLAN_PLUGIN_PATH", "/env/one::/cli/b", 1);
    struct cas__strlist path;
    assert_int_equal(cas__plugin_search_path("/cli/a::/cli/b:/cli/a", &path), CAS_OK);
    assert_true(path.count >= 4);
    assert_string_equal(path.items[0], "/cli/a");
    assert_string_equal(path.items[1], "/cli/b");
    assert_string_equal(path.items[2], "/env/one");
    /* the install location, absolute */
    const char *install = path.items[3];
    assert_int_equal(install[0], '/');
    const char *tail = "/castellan/plugins";
    assert_true(strlen(install) > strlen(tail));
    assert_string_equal(install + strlen(install) - strlen(tail), tail);
    assert_true(path.count <= 5); /* and the build tree when it exists */
    cas__strlist_free(&path);
    unsetenv("CASTELLAN_PLUGIN_PATH");
}

static void test_without_cli_or_env(void **state)
{
    (void)state;
    unsetenv("CASTELLAN_PLUGIN_PATH");
    struct cas__strlist path;
    assert_int_equal(cas__plugin_search_path(NULL, &path), CAS_OK);
    assert_true(path.count == 1 || path.count == 2);
    cas__strlist_free(&path);
}

static void test_missing_folders_are_skipped(void **state)
{
    (void)state;
    struct cas__registry *reg = scan_fixtures("no-such-folder:good");
    assert_int_equal(cas__registry_count(reg), 8);
    cas__registry_free(reg);
}

static void test_relative_folders_become_absolute(void **state)
{
    (void)state;
    char cwd[4096];
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(fixture_base()), 0);
    struct cas__strlist path = {.items = (char *[]){"good"}, .count = 1};
    struct cas__registry *reg = NULL;
    assert_int_equal(cas__registry_scan(&path, &reg), CAS_OK);
    struct cas__plugin_info *game = fixture(reg, "fixgame");
    char expected[4096];
    snprintf(expected, sizeof expected, "%s/good/fixgame/fixgame.so", fixture_base());
    assert_string_equal(game->library_path, expected);
    assert_int_equal(chdir(cwd), 0);
    assert_int_equal(cas__registry_load(reg, game), CAS_OK);
    cas__registry_free(reg);
}

static void test_trailing_slashes_are_dropped(void **state)
{
    (void)state;
    char folder[4096];
    snprintf(folder, sizeof folder, "%s/good//", fixture_base());
    struct cas__strlist path = {.items = (char *[]){folder}, .count = 1};
    struct cas__registry *reg = NULL;
    assert_int_equal(cas__registry_scan(&path, &reg), CAS_OK);
    char expected[4096];
    snprintf(expected, sizeof expected, "%s/good/fixgame", fixture_base());
    assert_string_equal(fixture(reg, "fixgame")->dir, expected);
    cas__registry_free(reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_order_and_duplicates),
        cmocka_unit_test(test_without_cli_or_env),
        cmocka_unit_test(test_missing_folders_are_skipped),
        cmocka_unit_test(test_relative_folders_become_absolute),
        cmocka_unit_test(test_trailing_slashes_are_dropped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
