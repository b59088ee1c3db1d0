/*
 * test_check_all.c — the conformance run: every game plugin of the build
 * tree passes the checker alone, with each other value of each of its
 * on/off and choice options, and with every combination of its expansions
 * that the loader accepts.  CASTELLAN_CHECK_GAMES sets the games per
 * variant (default 4; the game alone with defaults plays 5 times as many).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "check.h"
#include "target.h"
#include "text.h"

#define MAX_COMBINED 10 /* expansions of one game tried in every combination */

static char plugin_dir[1024];

static int games_per_variant(void)
{
    const char *text = getenv("CASTELLAN_CHECK_GAMES");
    int games = text ? atoi(text) : 0;
    return games > 0 ? games : 4;
}

/* The ids of expansions[i] for the bits of mask, comma-separated. */
static void combination(struct cas__plugin_info *const *expansions, size_t n, unsigned mask,
                        char *csv, size_t cap)
{
    csv[0] = '\0';
    for (size_t i = 0; i < n; i++)
        if (mask & (1u << i)) {
            size_t used = strlen(csv);
            snprintf(csv + used, cap - used, "%s%s", used ? "," : "", expansions[i]->id);
        }
}

/* Check game with the expansions in csv and the rule NAME=VALUE (may be
 * NULL) as `castellan check --rule` sets it; a combination the loader
 * refuses is reported and skipped. */
static void check_variant(const char *game, const char *csv, const char *rule, int games)
{
    struct cas__target t;
    char err[1024];
    struct cas__target_request req = {
        .plugin_path = plugin_dir, .game = game, .game_flag = "PLUGIN", .expansions = csv,
        .rules = &rule, .n_rules = rule ? 1 : 0,
    };
    if (cas__target_open(&t, &req, err, sizeof err) != CAS_OK) {
        if (!*csv || rule)
            fail_msg("%s %s cannot be opened: %s", game, rule ? rule : "", err);
        print_message("skipped %s + %s: %s\n", game, csv, err);
        return;
    }
    struct cas__check_target target = cas__target_check(&t);
    struct cas__check_options opt = {.games = games, .seed = 1};
    struct cas__check_report report;
    cas__check_run(&target, &opt, &report);
    cas__target_close(&t);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    cas__check_print(&report, out);
    fclose(out);
    print_message("%s", text);
    if (report.failed)
        fail_msg("%s", text);
    free(text);
}

/* Each on/off and choice option of game at each value but its default. */
static void check_options(const struct cas_plugin *game, int games)
{
    for (size_t i = 0; i < game->n_options; i++) {
        const struct cas_option_spec *spec = &game->options[i];
        char rule[128];
        if (spec->type == CAS_OPTION_BOOL) {
            snprintf(rule, sizeof rule, "%s=%s", spec->name,
                     strcmp(spec->default_value, "on") ? "on" : "off");
            check_variant(game->id, "", rule, games);
        }
        for (const char *c = spec->type == CAS_OPTION_CHOICE ? spec->choices : NULL; c && *c;) {
            size_t len = strcspn(c, "|");
            snprintf(rule, sizeof rule, "%s=%.*s", spec->name, (int)len, c);
            if (strcmp(strchr(rule, '=') + 1, spec->default_value) != 0)
                check_variant(game->id, "", rule, games);
            c += len + (c[len] == '|');
        }
    }
}

static void check_game(struct cas__registry *reg, struct cas__plugin_info *game)
{
    struct cas__plugin_info *expansions[MAX_COMBINED];
    size_t n = 0;
    char csv[1024];
    for (size_t i = 0; i < cas__registry_count(reg); i++) {
        struct cas__plugin_info *e = cas__registry_at(reg, i);
        if (e->kind == CAS_KIND_EXPANSION && !e->refusal && e->extends &&
            strcmp(e->extends, game->id) == 0 && n < MAX_COMBINED)
            expansions[n++] = e;
    }
    int games = games_per_variant();
    if (cas__registry_load(reg, game) != CAS_OK)
        fail_msg("%s cannot be loaded: %s", game->id, game->refusal);
    check_variant(game->id, "", NULL, 5 * games);
    check_options(game->desc, games);
    for (unsigned mask = 1; mask < (1u << n); mask++) {
        combination(expansions, n, mask, csv, sizeof csv);
        check_variant(game->id, csv, NULL, games);
    }
}

static void test_every_plugin_passes(void **unused)
{
    (void)unused;
    struct cas__strlist path = {0};
    struct cas__registry *reg = NULL;
    size_t games = 0;
    assert_int_equal(cas__strlist_push(&path, plugin_dir), CAS_OK);
    assert_int_equal(cas__registry_scan(&path, &reg), CAS_OK);
    for (size_t i = 0; i < cas__registry_count(reg); i++) {
        struct cas__plugin_info *info = cas__registry_at(reg, i);
        if (info->refusal)
            fail_msg("%s is refused: %s", info->id, info->refusal);
        if (info->kind == CAS_KIND_GAME) {
            check_game(reg, info);
            games++;
        }
    }
    assert_true(games >= 1); /* the fixture game at least */
    cas__registry_free(reg);
    cas__strlist_free(&path);
}

int main(void)
{
    const char *build = getenv("CASTELLAN_BUILD_DIR");
    snprintf(plugin_dir, sizeof plugin_dir, "%s/plugins", build ? build : ".");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_plugin_passes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
