/*
 * test_load.c — dlopen()ing plugins and checking their descriptors: every
 * load-time refusal, word for word, and that a refused plugin stays closed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader_fixtures.h"

#define AGREE "make the descriptor and the manifest agree, and rebuild"

/* Loading plugin "fix" of fixture folder dir fails with
 * "<its library path><rest>". */
static void expect_load_refusal(const char *dirs, const char *dir, const char *rest)
{
    struct cas__registry *reg = scan_fixtures(dirs);
    struct cas__plugin_info *info = fixture(reg, "fix");
    assert_null(info->refusal);
    assert_true(cas__registry_load(reg, info) < 0);
    assert_null(info->dl);
    assert_null(info->desc);
    assert_refusal(info, "%s/%s/fix/fix.so%s", fixture_base(), dir, rest);
    assert_true(cas__registry_load(reg, info) < 0); /* stays refused */
    cas__registry_free(reg);
}

static void test_good_plugins_load_once(void **state)
{
    (void)state;
    struct cas__registry *reg = scan_fixtures("good");
    struct cas__plugin_info *game = fixture(reg, "fixgame");
    assert_int_equal(cas__registry_load(reg, game), CAS_OK);
    assert_non_null(game->dl);
    assert_string_equal(game->desc->id, "fixgame");
    assert_non_null(game->desc->game);
    void *dl = game->dl;
    assert_int_equal(cas__registry_load(reg, game), CAS_OK);
    assert_ptr_equal(game->dl, dl);
    struct cas__plugin_info *exp = fixture(reg, "exp-c");
    assert_int_equal(cas__registry_load(reg, exp), CAS_OK);
    assert_int_equal(exp->desc->max_players, 6);
    assert_null(exp->desc->game);
    cas__registry_free(reg);
}

/* A game built for an older minor version loads in this host, its
 * shorter vtable read as what it is: no ABI 1.4 render_since, so its
 * pictures are drawn whole. */
static void test_an_older_minor_loads(void **state)
{
    (void)state;
    struct cas__registry *reg = scan_fixtures("older-minor");
    struct cas__plugin_info *info = fixture(reg, "fix");
    assert_int_equal(cas__registry_load(reg, info), CAS_OK);
    assert_int_equal(info->desc->abi_minor, 3);
    const struct cas_game_vtable *vt = info->desc->game;
    assert_non_null(vt);
    assert_true(vt->struct_size < sizeof *vt);
    assert_true(CAS_HAS_FIELD(vt, struct cas_game_vtable, random_action));
    assert_false(CAS_HAS_FIELD(vt, struct cas_game_vtable, render_since));
    cas__registry_free(reg);
}

static void test_abi_of_the_library(void **state)
{
    (void)state;
    expect_load_refusal("so-abi-major", "so-abi-major",
                        ": plugin ABI 2.1 has another major version than the host's 1.5; "
                        "rebuild the plugin against this castellan's plugin.h (ABI 1.x)");
    expect_load_refusal("so-abi-minor", "so-abi-minor",
                        ": plugin ABI 1.6 is newer than the host's 1.5; upgrade castellan, "
                        "or rebuild the plugin against ABI 1.5");
}

static void test_fingerprint(void **state)
{
    (void)state;
    char rest[512];
    snprintf(rest, sizeof rest,
             ": build fingerprint 0x01040404 differs from the host's 0x%08x (sizes of "
             "pointer, long, size_t and byte order); rebuild the plugin for this platform",
             (unsigned)CAS_BUILD_FINGERPRINT);
    expect_load_refusal("fingerprint", "fingerprint", rest);
}

static void test_entry_symbol_and_dlopen(void **state)
{
    (void)state;
    expect_load_refusal("no-entry", "no-entry",
                        ": no entry symbol cas_plugin_entry; export it: CAS_EXPORT const "
                        "struct cas_plugin *cas_plugin_entry(void)");
    char rest[4096];
    snprintf(rest, sizeof rest,
             ": cannot be loaded (%s/not-elf/fix/fix.so: invalid ELF header); rebuild the "
             "plugin for this host",
             fixture_base());
    expect_load_refusal("not-elf", "not-elf", rest);
}

/* Loading "fix" of dir fails with "descriptor <difference> in <manifest>". */
static void expect_mismatch(const char *dirs, const char *dir, const char *difference)
{
    char rest[4096];
    snprintf(rest, sizeof rest, ": descriptor %s in %s/%s/fix/fix.ini; " AGREE, difference,
             fixture_base(), dir);
    expect_load_refusal(dirs, dir, rest);
}

static void test_descriptor_against_manifest(void **state)
{
    (void)state;
    expect_mismatch("mismatch-id", "mismatch-id",
                    "id \"fixother\" differs from id \"fix\"");
    expect_mismatch("mismatch-version", "mismatch-version",
                    "version 1.0.1 differs from version 1.0.0");
    expect_mismatch("mismatch-kind", "mismatch-kind", "kind expansion differs from kind game");
    expect_mismatch("good:mismatch-extends", "mismatch-extends",
                    "extends \"othergame\" differs from extends \"fixgame\"");
    expect_mismatch("mismatch-players", "mismatch-players",
                    "players 2..4 differ from min_players 2, max_players 5");
}

static void test_descriptor_contents(void **state)
{
    (void)state;
    char rest[512];
    expect_load_refusal("entry-null", "entry-null",
                        ": cas_plugin_entry returned NULL; return the plugin's descriptor");
    snprintf(rest, sizeof rest,
             ": descriptor struct_size 16 is smaller than ABI 1.0's %zu; rebuild the plugin "
             "against this castellan's plugin.h",
             offsetof(struct cas_plugin, extension) + sizeof(void *));
    expect_load_refusal("small-descriptor", "small-descriptor", rest);
    snprintf(rest, sizeof rest,
             ": game vtable missing (ABI 1.0 needs struct_size >= %zu); fill in struct "
             "cas_game_vtable and set its struct_size",
             offsetof(struct cas_game_vtable, player_label) + sizeof(void *));
    expect_load_refusal("no-vtable", "no-vtable", rest);
    snprintf(rest, sizeof rest,
             ": game vtable too small (ABI 1.0 needs struct_size >= %zu); fill in struct "
             "cas_game_vtable and set its struct_size",
             offsetof(struct cas_game_vtable, player_label) + sizeof(void *));
    expect_load_refusal("small-vtable", "small-vtable", rest);
    expect_load_refusal("good:expansion-vtable", "expansion-vtable",
                        ": an expansion's descriptor has a game vtable; set game = NULL");
    expect_load_refusal("options-null", "options-null",
                        ": n_options is 4 but options is NULL; fix the descriptor");
    expect_load_refusal("bad-option-name", "bad-option-name",
                        ": option 0 (Farmers) name is not [a-z][a-z0-9-]*; fix its "
                        "cas_option_spec");
    expect_load_refusal("vtable-gap", "vtable-gap",
                        ": game vtable lacks player_label; implement it");
    expect_load_refusal("bad-default", "bad-default",
                        ": option 0 (farmers) default is not on/off; fix its "
                        "cas_option_spec");
}

/* Each option spec is checked, and its default against its own type. */
static void test_option_specs(void **state)
{
    (void)state;
    expect_load_refusal("small-option", "small-option",
                        ": option 0 (?) struct_size is smaller than ABI 1.0's; fix its "
                        "cas_option_spec");
    expect_load_refusal("no-default", "no-default",
                        ": option 0 (farmers) has no default_value; fix its cas_option_spec");
    expect_load_refusal("int-default", "int-default",
                        ": option 1 (bonus) default is not an integer within [min, max]; fix "
                        "its cas_option_spec");
    expect_load_refusal("choice-default", "choice-default",
                        ": option 2 (mode) default is not one of its choices; fix its "
                        "cas_option_spec");
    expect_load_refusal("option-type", "option-type",
                        ": option 0 (farmers) has an unknown type; fix its cas_option_spec");
}

static void test_manifest_refusal_prevents_dlopen(void **state)
{
    (void)state;
    struct cas__registry *reg = scan_fixtures("abi-major");
    struct cas__plugin_info *info = fixture(reg, "fix");
    char *before = strdup(info->refusal);
    assert_int_equal(cas__registry_load(reg, info), CAS_EMISMATCH);
    assert_null(info->dl);
    assert_string_equal(info->refusal, before);
    free(before);
    cas__registry_free(reg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_good_plugins_load_once),
        cmocka_unit_test(test_an_older_minor_loads),
        cmocka_unit_test(test_abi_of_the_library),
        cmocka_unit_test(test_fingerprint),
        cmocka_unit_test(test_entry_symbol_and_dlopen),
        cmocka_unit_test(test_descriptor_against_manifest),
        cmocka_unit_test(test_descriptor_contents),
        cmocka_unit_test(test_option_specs),
        cmocka_unit_test(test_manifest_refusal_prevents_dlopen),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
