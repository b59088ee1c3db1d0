/*
 * test_record.c — plain-text game records: exact round trips (hostile names
 * and multi-line config included) and precise, line-numbered errors.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "saves_fixture.h"

/* Write g to text in memory; caller frees. */
static char *record_text(const struct cas__saves_game *g, size_t *len)
{
    char *text = NULL;
    FILE *out = open_memstream(&text, len);
    assert_non_null(out);
    assert_int_equal(cas__record_write(g, out, 1), CAS_OK);
    fclose(out);
    return text;
}

static void round_trip(const struct cas__saves_game *g)
{
    size_t len;
    char *text = record_text(g, &len), err[512] = "";
    struct cas__saves_game back;
    int rc = cas__record_parse(text, len, "game.txt", &back, err, sizeof err);
    if (rc)
        fail_msg("%s\n--- record:\n%s", err, text);
    cas_test_assert_same_game(g, &back);
    cas__saves_game_free(&back);
    free(text);
}

static void test_a_game_round_trips(void **state)
{
    (void)state;
    struct cas__saves_game g;
    cas_test_sample_game(&g, "tuesday league", "Ada", "Bob", 40);
    g.created_at = strdup("2026-11-29T15:00:00Z");
    round_trip(&g);
    g.status = CAS__SAVES_FINISHED;
    g.players[0].has_score = g.players[1].has_score = 1;
    g.players[0].score = -7;
    g.players[1].score = 52;
    round_trip(&g);
    cas__saves_game_free(&g);
}

static void test_hostile_names_round_trip(void **state)
{
    (void)state;
    struct cas__saves_game g;
    cas_test_sample_game(&g, "a\\b\nc", "Eve: the \"player\"\r\n#1", "\x01\x7f\t ", 2);
    free(g.options[0].value);
    g.options[0].value = strdup(" = spaced = ");
    free(g.actions[1].text);
    g.actions[1].text = strdup("place #3 # 5");
    round_trip(&g);
    cas__saves_game_free(&g);
}

static void test_the_format_is_readable(void **state)
{
    (void)state;
    struct cas__saves_game g;
    size_t len;
    cas_test_sample_game(&g, NULL, "Ada", "Bob", 2);
    g.seed = 20261129;
    char *text = record_text(&g, &len);
    static const char expected[] =
        "Castellan-Record: 1\n"
        "Castellan-Version: 0.1.0\n"
        "Game: fixture 1.2.3\n"
        "Expansion: fixture-extra 0.9.0\n"
        "Option: length = 12\n"
        "Seed: 20261129\n"
        "Player: random Ada\n"
        "Player: greedy Bob\n"
        "Status: playing\n"
        "Config: [session]\\ngame = fixture\\n\n"
        "\n"
        "0 -1 move 0 #9e3779b97f4a7c15\n"
        "1 1 move 1 #3c6ef372fe94f82a\n";
    assert_string_equal(text, expected);
    free(text);
    cas__saves_game_free(&g);
}

#define HEAD "Castellan-Record: 1\nGame: fixture 1.0.0\nSeed: 7\nPlayer: random A\n" \
             "Player: greedy B\n"

/* Parsing `text` fails with CAS_EPARSE and a message starting with
 * `where` ("r.txt:N:") and containing `words`. */
static void expect_error(const char *text, const char *where, const char *words)
{
    struct cas__saves_game g;
    char err[512] = "";
    assert_int_equal(cas__record_parse(text, strlen(text), "r.txt", &g, err, sizeof err),
                     CAS_EPARSE);
    if (strncmp(err, where, strlen(where)) != 0 || !strstr(err, words))
        fail_msg("for\n%s\nexpected '%s ... %s', got '%s'", text, where, words, err);
    assert_null(g.game.id);
    assert_null(g.actions);
}

static void test_errors_name_the_line(void **state)
{
    (void)state;
    expect_error("", "r.txt:", "first line must be 'Castellan-Record: 1'");
    expect_error("Game: x 1\n", "r.txt:1:", "not a castellan game record");
    expect_error("Castellan-Record: 2\n", "r.txt:1:", "format '2' is not supported");
    expect_error(HEAD "Seeed: 4\n", "r.txt:6:", "unknown header key 'Seeed'; the keys are Castellan-Version, Game,");
    expect_error(HEAD "Seed: 4\n", "r.txt:6:", "second 'Seed'");
    expect_error("Castellan-Record: 1\nGame: fixture\n", "r.txt:2:",
                 "'Game: ID VERSION'");
    expect_error("Castellan-Record: 1\nGame: fixture 1.0\nSeed: -1\n", "r.txt:3:",
                 "decimal number");
    expect_error("Castellan-Record: 1\nGame: fixture 1.0\nSeed: 18446744073709551616\n",
                 "r.txt:3:", "decimal number");
    expect_error("Castellan-Record: 1\nSeed: 1\nPlayer: random A\n\n", "r.txt:4:",
                 "no 'Game: ID VERSION' line");
    expect_error(HEAD "Player: human Bad\\q\n", "r.txt:6:", "bad escape");
    expect_error(HEAD "Option: farmers=on\n", "r.txt:6:", "'Option: NAME = VALUE'");
    expect_error(HEAD "Status: done\n", "r.txt:6:", "'playing' or 'finished'");
    expect_error(HEAD "Status: finished\nResult: 3\n\n", "r.txt:8:",
                 "1 scores for 2 players");
    expect_error(HEAD "Result: 3 x\n", "r.txt:6:", "not 'x'");
    expect_error(HEAD "no colon here\n", "r.txt:6:", "'Key: value'");
    expect_error(HEAD "\n0 -1 draw A #0000000000000001\n2 0 place #0000000000000002\n",
                 "r.txt:8:", "expected ply 1 here, found '2'");
    expect_error(HEAD "\n0 2 draw A #0000000000000001\n", "r.txt:7:",
                 "actor '2' is neither -1 (chance) nor a player 0..1");
    expect_error(HEAD "\n0 -1 draw A #00000000000001\n", "r.txt:7:", "16 hex digits");
    expect_error(HEAD "\n0 -1 draw A #000000000000000g\n", "r.txt:7:", "16 hex digits");
    expect_error(HEAD "\n0 -1\n", "r.txt:7:", "'PLY ACTOR TEXT' or 'PLY ACTOR TEXT #HASH'");
    expect_error(HEAD "\n0 -1 #0000000000000001\n", "r.txt:7:", "'PLY ACTOR TEXT' or");
    /* cut off in the header: complete as far as it goes, but no blank line */
    expect_error(HEAD, "r.txt:5:", "ends inside its header (no blank line after it), so it "
                                   "was cut off");
    expect_error(HEAD "Option: farm", "r.txt:6:", "'Option: NAME = VALUE'");
}

static void test_comments_blank_lines_bom_and_crlf_are_accepted(void **state)
{
    (void)state;
    static const char text[] = /* a UTF-8 byte order mark first, as editors save */
        "\xEF\xBB\xBF" "Castellan-Record: 1\r\n# sent with bug 12\r\nGame: fixture 1.0.0\r\n"
        "Seed: 7\r\nPlayer: random A\r\n\r\n"
        "0 -1 draw A #00000000000000ff\r\n# here it goes wrong\r\n\r\n"
        "1 0 place 1 2 #FFFFFFFFFFFFFFFF\r\n";
    struct cas__saves_game g;
    char err[512] = "";
    int rc = cas__record_parse(text, sizeof text - 1, "r.txt", &g, err, sizeof err);
    if (rc)
        fail_msg("%s", err);
    assert_int_equal(g.n_actions, 2);
    assert_int_equal(g.actions[0].line, 7);
    assert_true(g.actions[0].hash == 0xff);
    assert_string_equal(g.actions[1].text, "place 1 2");
    assert_int_equal(g.actions[1].line, 10);
    assert_true(g.actions[1].hash == UINT64_MAX);
    assert_int_equal(g.game.line, 3);
    assert_null(g.campaign);
    cas__saves_game_free(&g);
}

/* A record may leave out any action's hash: by hand, or from another
 * program.  Without hashes export writes exactly that. */
static void test_hashes_may_be_left_out(void **state)
{
    (void)state;
    static const char text[] = HEAD "\n0 -1 draw A\n1 0 place 1 2 #00000000000000ff\n"
                                    "2 1 take 3\n";
    struct cas__saves_game g;
    char err[512] = "";
    int rc = cas__record_parse(text, sizeof text - 1, "r.txt", &g, err, sizeof err);
    if (rc)
        fail_msg("%s", err);
    assert_int_equal(g.n_actions, 3);
    assert_string_equal(g.actions[0].text, "draw A");
    assert_true(g.actions[0].hashless);
    assert_false(g.actions[1].hashless);
    assert_true(g.actions[1].hash == 0xff);
    assert_string_equal(g.actions[2].text, "take 3");
    assert_true(g.actions[2].hashless);

    char *out_text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&out_text, &len);
    assert_int_equal(cas__record_write(&g, out, 0), CAS_OK);
    fclose(out);
    assert_non_null(strstr(out_text, "\n\n0 -1 draw A\n1 0 place 1 2\n2 1 take 3\n"));
    free(out_text);
    cas__saves_game_free(&g);
}

static void test_read_file_names_a_missing_file(void **state)
{
    char path[512], err[512] = "";
    struct cas__saves_game g;
    cas_test_dir_file(*state, "missing.txt", path, sizeof path);
    assert_int_equal(cas__record_read_file(path, &g, err, sizeof err), CAS_EIO);
    assert_non_null(strstr(err, path));

    static const char text[] = HEAD "\n0 -1 draw A #0000000000000001\n";
    cas_test_dir_file(*state, "game.txt", path, sizeof path);
    cas_test_write_file(path, text, sizeof text - 1);
    assert_int_equal(cas__record_read_file(path, &g, err, sizeof err), CAS_OK);
    assert_int_equal(g.n_actions, 1);
    assert_int_equal(g.n_players, 2);
    cas__saves_game_free(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_game_round_trips),
        cmocka_unit_test(test_hostile_names_round_trip),
        cmocka_unit_test(test_the_format_is_readable),
        cmocka_unit_test(test_errors_name_the_line),
        cmocka_unit_test(test_comments_blank_lines_bom_and_crlf_are_accepted),
        cmocka_unit_test(test_hashes_may_be_left_out),
        CAS_TEST_IN_DIR(test_read_file_names_a_missing_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
