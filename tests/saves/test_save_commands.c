/*
 * test_save_commands.c — the save commands of the castellan executable,
 * run as a user would: play journals by default, saves list/show/delete,
 * export and import round-trip byte for byte, campaigns show standings,
 * resume stops at a changed hash and --force goes on, and bad records or
 * foreign databases are refused with their line or file named while the
 * store stays exactly as it was.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <glob.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_run.h"
#include "json.h"


/* Run castellan with the NULL-terminated arguments, stdin at EOF. */
#define castellan(state, r, ...) cas_test_castellan(*(state), r, __VA_ARGS__)

static const char *default_db(void **state, char *buf, size_t cap)
{
    return cas_test_dir_file(*state, "castellan/saves.db", buf, cap);
}

static void play_bots(void **state, const char *seed)
{
    struct cas_test_result r;
    castellan(state, &r, "play", "--game", "fixture", "--players",
              "Ada:random,Bob:greedy", "--seed", seed, "--rule", "cards=12", NULL);
    if (r.status != 0)
        fail_msg("play failed: %s", r.err);
}

/* saves list --player: the games a bot played by its agent; none for a
 * name nobody had. */
static void test_list_one_players_games(void **state)
{
    struct cas_test_result r;
    play_bots(state, "9");
    castellan(state, &r, "play", "--game", "fixture", "--players", "Cy:random,Di:random",
              "--seed", "3", "--rule", "cards=12", NULL);
    assert_int_equal(r.status, 0);
    castellan(state, &r, "saves", "list", "--player", "greedy", NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "Ada (random), Bob (greedy)");
    assert_null(strstr(r.out, "Cy (random)"));
    castellan(state, &r, "saves", "list", "--player", "random", NULL);
    cas_test_expect_text(r.out, "Ada (random), Bob (greedy)");
    cas_test_expect_text(r.out, "Cy (random), Di (random)");
    castellan(state, &r, "saves", "list", "--player", "Nobody", NULL);
    assert_int_equal(r.status, 0);
    assert_null(strstr(r.out, "(random)"));
}

/* Results for programs: one strict JSON object, with the scores after the
 * ply asked for; at ply 0 nobody has scored. */
static void test_results_as_json(void **state)
{
    struct cas_test_result r;
    play_bots(state, "9");
    castellan(state, &r, "replay", "1", "--json", NULL);
    assert_int_equal(r.status, 0);
    assert_int_equal(cas__json_object_error(r.out, strlen(r.out)), 0);
    cas_test_expect_text(r.out, "\"castellan_results\": 1,\n  \"id\": 1,\n  \"game\": {\"id\": "
                       "\"fixture\", \"version\": \"1.0.0\"}");
    cas_test_expect_text(r.out, "\"players\": [{\"seat\": 0, \"name\": \"Ada\", \"agent\": \"random\"}");
    cas_test_expect_text(r.out, "\"over\": true");
    cas_test_expect_text(r.out, "\"actions\": [\n    {\"ply\": 0, \"actor\": -1, \"text\": \"draw ");
    const char *scores = strstr(r.out, "\"scores\": [");
    assert_non_null(scores);
    long ada, bob;
    assert_int_equal(sscanf(scores, "\"scores\": [%ld, %ld]", &ada, &bob), 2);
    char line[64];
    castellan(state, &r, "saves", "show", "1", NULL);
    snprintf(line, sizeof line, "Ada (random), %ld points", ada);
    cas_test_expect_text(r.out, line);
    snprintf(line, sizeof line, "Bob (greedy), %ld points", bob);
    cas_test_expect_text(r.out, line);

    castellan(state, &r, "saves", "show", "1", "--json", "--ply", "0", NULL);
    assert_int_equal(r.status, 0);
    assert_int_equal(cas__json_object_error(r.out, strlen(r.out)), 0);
    cas_test_expect_text(r.out, "\"ply\": 0,");
    cas_test_expect_text(r.out, "\"events\": [\n  ],\n  \"over\": false,\n  \"scores\": [0, 0]\n}");
    assert_null(strstr(r.out, "\"actions\""));

    castellan(state, &r, "saves", "show", "1", "--json", "--ply", "100000", NULL);
    assert_int_equal(r.status, 2);
    cas_test_expect_text(r.err, "--ply must be a whole number from 0 to ");

    /* A plugin that says what scored: Carcassonne's features, during play
     * and in the final scoring. */
    castellan(state, &r, "play", "--game", "carcassonne", "--players", "greedy,greedy",
              "--seed", "5", NULL);
    assert_int_equal(r.status, 0);
    castellan(state, &r, "saves", "show", "2", "--json", NULL);
    assert_int_equal(r.status, 0);
    assert_int_equal(cas__json_object_error(r.out, strlen(r.out)), 0);
    cas_test_expect_text(r.out, "\"category\": \"city\", \"subject\": \"city at ");
    cas_test_expect_text(r.out, "\"final\": false}");
    cas_test_expect_text(r.out, "\"final\": true}");
}

static void test_play_journals_and_export_import_round_trip(void **state)
{
    struct cas_test_result r;
    char rec1[512], rec2[512], text1[16384], text2[16384];
    play_bots(state, "9");
    castellan(state, &r, "saves", "list", NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "finished");
    cas_test_expect_text(r.out, "fixture 1.0.0 / Ada (random), Bob (greedy)");
    castellan(state, &r, "saves", "show", "1", NULL);
    cas_test_expect_text(r.out, "Seed:     9");
    cas_test_expect_text(r.out, "Option:   cards = 12");

    cas_test_dir_file(*state, "one.txt", rec1, sizeof rec1);
    cas_test_dir_file(*state, "two.txt", rec2, sizeof rec2);
    castellan(state, &r, "export", "1", "-o", rec1, NULL);
    assert_int_equal(r.status, 0);
    struct stat st; /* private, as the store: a record holds the seed */
    assert_int_equal(stat(rec1, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    castellan(state, &r, "import", rec1, NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "as game 2");
    castellan(state, &r, "export", "2", "--output", rec2, NULL);
    cas_test_read_text(rec1, text1, sizeof text1);
    cas_test_read_text(rec2, text2, sizeof text2);
    assert_true(strncmp(text1, "Castellan-Record: 1\n", 20) == 0);
    assert_string_equal(text1, text2);

    /* Without hashes the record imports too, and gets the same hashes. */
    castellan(state, &r, "export", "1", "--no-hashes", "-o", rec2, NULL);
    assert_int_equal(r.status, 0);
    cas_test_read_text(rec2, text2, sizeof text2);
    assert_null(strstr(text2, " #"));
    castellan(state, &r, "import", rec2, NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "as game 3");
    castellan(state, &r, "export", "3", "-o", rec2, NULL);
    cas_test_read_text(rec2, text2, sizeof text2);
    assert_string_equal(text1, text2);

    castellan(state, &r, "replay", "2", NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "Game 2: fixture 1.0.0, seed 9, ");
    cas_test_expect_text(r.out, "Scores:");
    castellan(state, &r, "replay", "2", "--step", NULL); /* no input: stops */
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "-- ply 1 of ");
    assert_null(strstr(r.out, "Scores:"));

    castellan(state, &r, "saves", "delete", "2", NULL);
    assert_int_equal(r.status, 0);
    castellan(state, &r, "saves", "show", "2", NULL);
    assert_int_equal(r.status, 1);
    cas_test_expect_text(r.err, "there is no game 2");
}

static void test_campaign_standings(void **state)
{
    struct cas_test_result r;
    char ini[512], db[512], text[1024];
    cas_test_dir_file(*state, "league.ini", ini, sizeof ini);
    for (int seed = 1; seed <= 3; seed++) {
        int len = snprintf(text, sizeof text,
                           "[session]\ngame = fixture\nseed = %d\n"
                           "[player.1]\nname = Ada\nagent = greedy\n"
                           "[player.2]\nname = Bob\nagent = random\n"
                           "[saves]\ndatabase = %s\ncampaign = league\n",
                           seed, cas_test_dir_file(*state, "league.db", db, sizeof db));
        cas_test_write_file(ini, text, (size_t)len);
        castellan(state, &r, "play", "--config", ini, NULL);
        assert_int_equal(r.status, 0);
    }
    castellan(state, &r, "campaign", "list", "--database", db, NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "league");
    castellan(state, &r, "campaign", "show", "league", "--database", db, NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "Campaign league: 3 games, 3 finished");
    cas_test_expect_text(r.out, "Ada");
    cas_test_expect_text(r.out, "Bob");
    castellan(state, &r, "campaign", "show", "leage", "--database", db, NULL);
    assert_int_equal(r.status, 1);
    cas_test_expect_text(r.err, "no campaign 'leage'");
}

/* Write a record with one line replaced by `line` (0: unchanged). */
static void write_record(const char *path, const char *text, int n, const char *line)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    int at = 1;
    for (const char *p = text; *p; at++) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
        if (at == n)
            fprintf(f, "%s\n", line);
        else
            fwrite(p, 1, len, f);
        p += len;
    }
    fclose(f);
}

static void test_a_bad_record_changes_nothing(void **state)
{
    struct cas_test_result r;
    char rec[512], bad[512], db[512], text[16384];
    struct cas_test_file_print before;
    play_bots(state, "4");
    cas_test_dir_file(*state, "good.txt", rec, sizeof rec);
    cas_test_dir_file(*state, "bad.txt", bad, sizeof bad);
    castellan(state, &r, "export", "1", "-o", rec, NULL);
    cas_test_read_text(rec, text, sizeof text);
    cas_test_file_print(default_db(state, db, sizeof db), &before);

    write_record(bad, text, 16, "3 -1 play 99 #0000000000000000");
    castellan(state, &r, "import", bad, NULL);
    assert_int_equal(r.status, 1);
    cas_test_expect_text(r.err, "bad.txt:16 (ply 3)");
    cas_test_expect_text(r.err, "\"play 99\" cannot be replayed");

    write_record(bad, text, 3, "Game: fixtur 1.0.0");
    castellan(state, &r, "import", bad, NULL);
    assert_int_equal(r.status, 1);
    cas_test_expect_text(r.err, "bad.txt:3: unknown game \"fixtur\"");

    write_record(bad, text, 15, "2 x draw 1 #0000000000000000");
    castellan(state, &r, "import", bad, NULL);
    assert_int_equal(r.status, 1);
    cas_test_expect_text(r.err, "bad.txt:15: actor 'x'");

    cas_test_file_unchanged(db, &before);
    castellan(state, &r, "saves", "list", NULL);
    assert_null(strstr(r.out, "    2  "));
}

static void test_another_applications_database_is_refused(void **state)
{
    struct cas_test_result r;
    char path[512];
    sqlite3 *db;
    struct cas_test_file_print before;
    cas_test_dir_file(*state, "photos.db", path, sizeof path);
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, "CREATE TABLE photo (id, name);", NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(db);
    cas_test_file_print(path, &before);
    castellan(state, &r, "saves", "list", "--database", path, NULL);
    assert_int_equal(r.status, 1);
    cas_test_expect_text(r.err, path);
    cas_test_expect_text(r.err, "belongs to another application");
    cas_test_file_unchanged(path, &before);
}

static void sql(const char *path, const char *statements)
{
    sqlite3 *db;
    assert_int_equal(sqlite3_open(path, &db), SQLITE_OK);
    assert_int_equal(sqlite3_exec(db, statements, NULL, NULL, NULL), SQLITE_OK);
    sqlite3_close(db);
}

static void test_resume_stops_at_a_changed_hash_unless_forced(void **state)
{
    struct cas_test_result r;
    char db[512];
    /* The human (no input: quits at once) lets a few plies be saved. */
    castellan(state, &r, "play", "--game", "fixture", "--players", "Bot:greedy,Ada:human",
              "--seed", "3", NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.err, "continue with: castellan resume 1");
    sql(default_db(state, db, sizeof db),
        "UPDATE games SET game_version = '0.9.0';"
        "UPDATE actions SET hash = ~hash WHERE ply >= 2;");

    castellan(state, &r, "resume", "1", NULL);
    assert_int_equal(r.status, 1);
    cas_test_expect_text(r.err, "game 1, ply 2");
    cas_test_expect_text(r.err, "saved with fixture 0.9.0; installed is fixture 1.0.0");
    cas_test_expect_text(r.err, "castellan resume 1 --force");

    castellan(state, &r, "resume", "1", "--force", NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.err, "the hashes from ply 2 on were re-recorded");
    castellan(state, &r, "saves", "show", "1", NULL);
    cas_test_expect_text(r.out, "fixture 1.0.0");
    castellan(state, &r, "resume", "1", NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.err, "continue with: castellan resume 1");
}

/* Rebuild `table` of the store at path without its constraints, as a hand
 * or another program might, then run `update` on it. */
static void damage(const char *path, const char *table, const char *update)
{
    char statements[1024];
    snprintf(statements, sizeof statements,
             "PRAGMA foreign_keys = OFF; CREATE TABLE loose AS SELECT * FROM %s;"
             "DROP TABLE %s; ALTER TABLE loose RENAME TO %s; %s", table, table, table,
             update);
    sql(path, statements);
}

/* Count of `needle` in the file at path. */
static int occurrences(const char *path, const char *needle)
{
    static char text[1 << 20];
    cas_test_read_text(path, text, sizeof text);
    int n = 0;
    for (const char *at = strstr(text, needle); at; at = strstr(at + 1, needle))
        n++;
    return n;
}

/* At a player's own decision, the picture drawn for that player numbers
 * the choices as they are typed (the plugin's decision view); for the
 * public, or when someone else decides, the plain picture. */
static void test_render_numbers_own_choices(void **state)
{
    struct cas_test_result r;
    char svg[512];
    castellan(state, &r, "play", "--game", "carcassonne", "--players", "Ada:greedy,Bob:greedy",
              "--seed", "3", NULL);
    assert_int_equal(r.status, 0);
    cas_test_dir_file(*state, "board.svg", svg, sizeof svg);
    int numbered[2] = {0, 0};
    for (int ply = 0; ply < 12; ply++) {
        char at[16];
        snprintf(at, sizeof at, "%d", ply);
        for (int v = 0; v < 2; v++) {
            castellan(state, &r, "render", "1", "--ply", at, "--viewer", v ? "public" : "Ada",
                      "-o", svg, NULL);
            assert_int_equal(r.status, 0);
            numbered[v] += occurrences(svg, "class=\"choice\"") > 0;
        }
    }
    /* Ada decides twice a turn (place, deploy), every other turn */
    assert_true(numbered[0] >= 4);
    assert_int_equal(numbered[1], 0);
}

static void test_render_export_html_and_watch(void **state)
{
    struct cas_test_result r;
    char svg[512], again[512], public_svg[512], page[512], watch[512], a[1 << 16], b[1 << 16];
    play_bots(state, "4");
    cas_test_dir_file(*state, "ada.svg", svg, sizeof svg);
    cas_test_dir_file(*state, "again.svg", again, sizeof again);
    cas_test_dir_file(*state, "public.svg", public_svg, sizeof public_svg);
    castellan(state, &r, "render", "1", "--ply", "3", "--viewer", "Ada", "-o", svg, NULL);
    assert_int_equal(r.status, 0);
    castellan(state, &r, "render", "1", "--ply", "3", "--viewer", "1", "-o", again, NULL);
    cas_test_read_text(svg, a, sizeof a);
    cas_test_read_text(again, b, sizeof b);
    assert_true(strncmp(a, "<?xml version=\"1.0\"", 19) == 0);
    assert_string_equal(a, b); /* the same picture, byte for byte */
    castellan(state, &r, "render", "1", "--ply", "3", "--viewer", "public", "-o", public_svg,
              NULL);
    /* Ada sees her own hand; the public sees only its backs */
    assert_true(occurrences(svg, "class=\"back\"") < occurrences(public_svg, "class=\"back\""));
    castellan(state, &r, "render", "1", "--viewer", "Zoe", NULL);
    assert_int_equal(r.status, 2);
    cas_test_expect_text(r.err, "--viewer \"Zoe\" names nobody");
    castellan(state, &r, "render", "1", "--ply", "100000", NULL);
    assert_int_equal(r.status, 2);

    cas_test_dir_file(*state, "game.html", page, sizeof page);
    castellan(state, &r, "export", "1", "--html", "-o", page, NULL);
    assert_int_equal(r.status, 0);
    assert_int_equal(occurrences(page, "<!DOCTYPE html>"), 1);
    /* self-contained: nothing to fetch */
    assert_int_equal(occurrences(page, " src="), 0);
    assert_int_equal(occurrences(page, "<link"), 0);
    /* one picture a ply, each a JSON string with its '<' escaped */
    assert_int_equal(occurrences(page, "\"svg\":\"\\u003c?xml"), occurrences(page, "\"who\":"));
    assert_true(occurrences(page, "\"who\":") > 10);
    castellan(state, &r, "export", "1", "--html", NULL);
    assert_int_equal(r.status, 2);
    cas_test_expect_text(r.err, "--html needs -o FILE.html");

    cas_test_dir_file(*state, "watch.svg", watch, sizeof watch);
    castellan(state, &r, "play", "--game", "fixture", "--players", "random,greedy", "--seed",
              "5", "--no-save", "--watch", watch, NULL);
    assert_int_equal(r.status, 0);
    cas_test_read_text(watch, a, sizeof a);
    assert_true(strncmp(a, "<?xml", 5) == 0 && strstr(a, "</svg>\n"));
    char leftover[600];
    glob_t found;
    snprintf(leftover, sizeof leftover, "%s.tmp-*", watch);
    assert_int_equal(glob(leftover, 0, NULL, &found), GLOB_NOMATCH); /* renamed, not left */
    globfree(&found);
    castellan(state, &r, "saves", "list", NULL); /* the store holds no --no-save game */
    cas_test_expect_text(r.out, "Ada (random), Bob (greedy)");
}

/* A store is not trusted column by column: a games row whose status reads
 * back NULL (its table rebuilt without the schema's NOT NULL) is reported
 * as damaged by every command that reads it. */
static void test_a_damaged_row_is_reported(void **state)
{
    struct cas_test_result r;
    char db[512];
    play_bots(state, "5");
    damage(default_db(state, db, sizeof db), "games", "UPDATE games SET status = NULL;");
    static const char *const commands[][3] = {
        {"saves", "list", NULL}, {"saves", "show", "1"}, {"export", "1", NULL},
        {"replay", "1", NULL}, {"resume", "1", NULL},
    };
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        castellan(state, &r, commands[i][0], commands[i][1], commands[i][2], NULL);
        assert_int_equal(r.status, 1);
        cas_test_expect_text(r.err, db);
        cas_test_expect_text(r.err, "game 1 is damaged: its status is NULL");
    }
}

/* ... and so is a NULL among a game's actions, the journal itself. */
static void test_a_damaged_action_is_reported(void **state)
{
    struct cas_test_result r;
    char db[512];
    play_bots(state, "6");
    damage(default_db(state, db, sizeof db), "actions",
           "UPDATE actions SET text = NULL WHERE ply = 3;");
    castellan(state, &r, "export", "1", NULL);
    assert_int_equal(r.status, 1);
    cas_test_expect_text(r.err, "game 1 is damaged: a row of its actions holds a NULL");
    castellan(state, &r, "saves", "list", NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "finished");
}

static void test_every_command_explains_itself(void **state)
{
    static const char *const commands[] = {"saves", "resume", "replay", "export",
                                           "import", "campaign", "render"};
    struct cas_test_result r;
    for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
        castellan(state, &r, commands[i], "--help", NULL);
        assert_int_equal(r.status, 0);
        cas_test_expect_text(r.out, "usage: castellan ");
        castellan(state, &r, commands[i], "--bogus", NULL);
        assert_int_equal(r.status, 2);
    }
    castellan(state, &r, "saves", "list", "--database", "typo.db", NULL);
    assert_int_equal(r.status, 1);
    cas_test_expect_text(r.err, "there is no save database typo.db yet");
    assert_int_equal(access("typo.db", F_OK), -1);
    castellan(state, &r, "resume", "abc", NULL);
    assert_int_equal(r.status, 2);
    cas_test_expect_text(r.err, "\"abc\" is not a game id");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CAS_TEST_IN_DIR(test_play_journals_and_export_import_round_trip),
        CAS_TEST_IN_DIR(test_results_as_json),
        CAS_TEST_IN_DIR(test_campaign_standings),
        CAS_TEST_IN_DIR(test_a_bad_record_changes_nothing),
        CAS_TEST_IN_DIR(test_another_applications_database_is_refused),
        CAS_TEST_IN_DIR(test_resume_stops_at_a_changed_hash_unless_forced),
        CAS_TEST_IN_DIR(test_render_export_html_and_watch),
        CAS_TEST_IN_DIR(test_render_numbers_own_choices),
        CAS_TEST_IN_DIR(test_a_damaged_row_is_reported),
        CAS_TEST_IN_DIR(test_a_damaged_action_is_reported),
        CAS_TEST_IN_DIR(test_every_command_explains_itself),
        CAS_TEST_IN_DIR(test_list_one_players_games),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
