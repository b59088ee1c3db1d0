/*
 * test_plugins_cmd.c — `castellan plugins`: one line per plugin found,
 * usable or refused, descriptor checks included; --ids for scripts; usage
 * errors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "commands.h"
#include "loader_fixtures.h"

/* `castellan plugins`' listing of the fixture folders dirs into got
 * (cap bytes); asserts that `refused` of them are refused. */
static void list_fixtures(const char *dirs, int refused, char *got, size_t cap)
{
    struct cas__registry *reg = scan_fixtures(dirs);
    FILE *out = tmpfile();
    assert_non_null(out);
    assert_int_equal(cas__plugins_list(reg, out), refused);
    rewind(out);
    size_t len = fread(got, 1, cap - 1, out);
    got[len] = '\0';
    fclose(out);
    cas__registry_free(reg);
}

static void test_lists_usable_and_refused(void **state)
{
    (void)state;
    char got[8192];
    list_fixtures("good:shadow:so-abi-major", 2, got, sizeof got);
    const char *b = fixture_base();
    char expected[8192];
    snprintf(expected, sizeof expected,
        "exp-a                  expansion 1.0.0    %s/good/exp-a  ok\n"
        "exp-b                  expansion 1.0.0    %s/good/exp-b  ok\n"
        "exp-c                  expansion 1.0.0    %s/good/exp-c  ok\n"
        "exp-d                  expansion 1.0.0    %s/good/exp-d  ok\n"
        "exp-e                  expansion 1.0.0    %s/good/exp-e  ok\n"
        "exp-other              expansion 1.0.0    %s/good/exp-other  ok\n"
        "fixgame                game      1.0.0    %s/good/fixgame  ok\n"
        "othergame              game      1.0.0    %s/good/othergame  ok\n"
        "fixgame                game      2.0.0    %s/shadow/fixgame  refused: "
        "%s/shadow/fixgame/fixgame.ini: shadowed by %s/good/fixgame/fixgame.ini, found "
        "earlier on the plugin path; remove one of them or reorder the path\n"
        "fix                    game      1.0.0    %s/so-abi-major/fix  refused: "
        "%s/so-abi-major/fix/fix.so: plugin ABI 2.1 has another major version than the "
        "host's 1.5; rebuild the plugin against this castellan's plugin.h (ABI 1.x)\n",
        b, b, b, b, b, b, b, b, b, b, b, b, b);
    assert_string_equal(got, expected);
}

/* A game vtable too small for ABI 1.0 shows as its one refusal line; a
 * game that declares no options at all is usable. */
static void test_lists_a_small_vtable_as_refused(void **state)
{
    (void)state;
    char got[8192];
    list_fixtures("no-options:small-vtable", 1, got, sizeof got);
    const char *b = fixture_base();
    char expected[8192];
    snprintf(expected, sizeof expected,
        "bare                   game      1.0.0    %s/no-options/bare  ok\n"
        "fix                    game      1.0.0    %s/small-vtable/fix  refused: "
        "%s/small-vtable/fix/fix.so: game vtable too small (ABI 1.0 needs struct_size >= "
        "%zu); fill in struct cas_game_vtable and set its struct_size\n",
        b, b, b, offsetof(struct cas_game_vtable, player_label) + sizeof(void *));
    assert_string_equal(got, expected);
}

static void test_usage(void **state)
{
    (void)state;
    assert_int_equal(cas__cmd_plugins(2, (char *[]){"plugins", "--help", NULL}), 0);
    assert_int_equal(cas__cmd_plugins(2, (char *[]){"plugins", "--bogus", NULL}), 2);
    assert_int_equal(cas__cmd_plugins(2, (char *[]){"plugins", "--plugin-path", NULL}), 2);
}

static void test_command_scans_the_given_path(void **state)
{
    (void)state;
    char arg[4096];
    snprintf(arg, sizeof arg, "--plugin-path=%s/good", fixture_base());
    assert_int_equal(cas__cmd_plugins(2, (char *[]){"plugins", arg, NULL}), 0);
}

/* What cas__cmd_plugins writes to stdout for argv, into got; its status. */
static int run_capturing(char **argv, int argc, char *got, size_t cap)
{
    FILE *out = tmpfile();
    assert_non_null(out);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(out), STDOUT_FILENO) >= 0);
    int status = cas__cmd_plugins(argc, argv);
    fflush(stdout);
    assert_true(dup2(saved, STDOUT_FILENO) >= 0);
    close(saved);
    rewind(out);
    size_t len = fread(got, 1, cap - 1, out);
    got[len] = '\0';
    fclose(out);
    return status;
}

/* --ids KIND: the usable plugins' ids of that kind, nothing refused (the
 * shadowed fixgame 2.0 is not listed again).  The build tree's plugins
 * follow the given path's. */
static void test_ids_for_scripts(void **state)
{
    (void)state;
    char arg[4096], got[4096];
    snprintf(arg, sizeof arg, "--plugin-path=%s/good:%s/shadow", fixture_base(), fixture_base());
    assert_int_equal(run_capturing((char *[]){"plugins", arg, "--ids", "game", NULL}, 4, got,
                                   sizeof got), 0);
    assert_memory_equal(got, "fixgame\nothergame\n", 18);
    assert_null(strstr(got + 1, "fixgame"));
    assert_int_equal(run_capturing((char *[]){"plugins", arg, "--ids=expansion", NULL}, 3, got,
                                   sizeof got), 0);
    assert_memory_equal(got, "exp-a\nexp-b\nexp-c\nexp-d\nexp-e\nexp-other\n", 40);
    assert_null(strstr(got, "fixgame"));
    assert_int_equal(run_capturing((char *[]){"plugins", arg, "--ids", "games", NULL}, 4, got,
                                   sizeof got), 2);
    assert_string_equal(got, "");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_lists_usable_and_refused),
        cmocka_unit_test(test_lists_a_small_vtable_as_refused),
        cmocka_unit_test(test_usage),
        cmocka_unit_test(test_command_scans_the_given_path),
        cmocka_unit_test(test_ids_for_scripts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
