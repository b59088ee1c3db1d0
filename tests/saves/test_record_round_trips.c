/*
 * test_record_round_trips.c — hash-free records of every Carcassonne
 * expansion travel: a seeded bot game of each shipped expansion preset is
 * exported with hashes and without; the record without hashes imports
 * (every action checked for legality only) and exports again byte for byte
 * as the hashed record, so import computed every hash the game had, and its
 * results (scores, events with their categories) are the played game's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_run.h"

#define castellan(state, r, ...) cas_test_castellan(*(state), r, __VA_ARGS__)
#define RECORD_MAX (256 * 1024)

/* The text after "\"events\"" in a results document: what must agree. */
static const char *results_body(const char *json)
{
    const char *events = strstr(json, "\"events\"");
    assert_non_null(events);
    return events;
}

/* Play preset (config/presets/PRESET.ini) with seed 3 as game `id`, then
 * check its round trip through a record without hashes (imported as game
 * id + 1). */
static void round_trip(void **state, const char *preset, int id)
{
    static char hashed[RECORD_MAX], again[RECORD_MAX], played[RECORD_MAX];
    char config[1024], with[512], without[512], game[16], copy[16];
    struct cas_test_result r;
    const char *src = getenv("CASTELLAN_SOURCE_DIR");
    snprintf(config, sizeof config, "%s/config/presets/%s.ini", src ? src : ".", preset);
    snprintf(game, sizeof game, "%d", id);
    snprintf(copy, sizeof copy, "%d", id + 1);
    castellan(state, &r, "play", "--config", config, "--seed", "3", NULL);
    if (r.status)
        fail_msg("%s: play failed: %s", preset, r.err);
    cas_test_dir_file(*state, "with.record", with, sizeof with);
    cas_test_dir_file(*state, "without.record", without, sizeof without);
    castellan(state, &r, "export", game, "-o", with, NULL);
    assert_int_equal(r.status, 0);
    castellan(state, &r, "export", game, "--no-hashes", "-o", without, NULL);
    assert_int_equal(r.status, 0);
    cas_test_read_text(without, again, sizeof again);
    assert_null(strstr(again, " #"));
    castellan(state, &r, "import", without, NULL);
    if (r.status)
        fail_msg("%s: the record without hashes does not import: %s", preset, r.err);
    castellan(state, &r, "export", copy, "-o", without, NULL);
    cas_test_read_text(with, hashed, sizeof hashed);
    cas_test_read_text(without, again, sizeof again);
    assert_true(strlen(hashed) < sizeof hashed - 1); /* not cut */
    assert_non_null(strstr(hashed, "\nExpansion: "));
    assert_non_null(strstr(hashed, "\nStatus: finished\n"));
    if (strcmp(hashed, again) != 0)
        fail_msg("%s: the hash-free round trip changed the record", preset);
    castellan(state, &r, "saves", "show", game, "--json", NULL);
    snprintf(played, sizeof played, "%s", results_body(r.out));
    castellan(state, &r, "saves", "show", copy, "--json", NULL);
    assert_string_equal(results_body(r.out), played);
}

static void test_every_expansion_round_trips_without_hashes(void **state)
{
    static const char *const presets[] = {"inns-cathedrals", "traders-builders", "abbey-mayor",
                                          "king-robber", "castles-germany", "four-expansions"};
    for (size_t i = 0; i < sizeof presets / sizeof *presets; i++)
        round_trip(state, presets[i], 1 + 2 * (int)i);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CAS_TEST_IN_DIR(test_every_expansion_round_trips_without_hashes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
