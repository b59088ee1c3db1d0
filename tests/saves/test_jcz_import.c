/*
 * test_jcz_import.c — `castellan import game.jcz`: hand-written
 * JCloisterZone 5.x saved games (written here from the documented format)
 * import with the scores castellan's rules give, fields named by a
 * JCloisterZone half-edge; an unsupported set or message, an illegal
 * deployment and malformed JSON are refused naming the place in the file,
 * and nothing is stored.  What is stored is castellan's canonical notation.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_run.h"

static const char setup_base[] =
    "{\n"
    "  \"appVersion\": \"5.10.0\",\n"
    "  \"setup\": {\n"
    "    \"sets\": {\"basic:1\": 1},\n"
    "    \"elements\": {\"small-follower\": 7, \"farmers\": true},\n"
    "    \"rules\": {},\n"
    "    \"start\": \"BA/RCr\"\n"
    "  },\n"
    "  \"players\": [{\"name\": \"Alice\"}, {\"name\": \"Bob\"}],\n"
    "  \"replay\": [\n";

/* Alice closes the start tile's city with BA/C and a meeple on it (2 tiles:
 * 4 points); Bob puts a meeple on the south field of a straight road
 * (JCZ's SL, castellan's Se); Alice plays a monastery and a monk, as a
 * farmer on its field would join Bob's (field_taken below). */
static const char turns[] =
    "    {\"type\": \"PLACE_TILE\", \"payload\": {\"tileId\": \"BA/C\", \"rotation\": \"R180\","
    " \"position\": [0, -1]}},\n"
    "    {\"type\": \"DEPLOY_MEEPLE\", \"payload\": {\"pointer\": {\"position\": [0, -1],"
    " \"location\": \"S\"}, \"meepleId\": \"0.small.1\"}},\n"
    "    {\"type\": \"COMMIT\", \"payload\": {}},\n"
    "    {\"type\": \"PLACE_TILE\", \"payload\": {\"tileId\": \"BA/RFr\", \"rotation\": \"R0\","
    " \"position\": [1, 0]}},\n"
    "    {\"type\": \"DEPLOY_MEEPLE\", \"payload\": {\"pointer\": {\"position\": [1, 0],"
    " \"location\": \"SL\"}, \"meepleId\": \"1.small.1\"}},\n"
    "    {\"type\": \"COMMIT\", \"payload\": {}},\n"
    "    {\"type\": \"PLACE_TILE\", \"payload\": {\"tileId\": \"BA/LR\", \"rotation\": \"R0\","
    " \"position\": [0, 1]}},\n"
    "    {\"type\": \"DEPLOY_MEEPLE\", \"payload\": {\"pointer\": {\"position\": [0, 1],"
    " \"location\": \"CLOISTER\"}, \"meepleId\": \"0.small.2\"}},\n"
    "    {\"type\": \"COMMIT\", \"payload\": {}}";

/* Run castellan with the NULL-terminated arguments, stdin at EOF. */
#define castellan(state, r, ...) cas_test_castellan(*(state), r, __VA_ARGS__)

/* Write the .jcz made of the parts (NULL-terminated) into the test folder. */
static const char *write_jcz(void **state, char *path, size_t cap, ...)
{
    char text[8192] = "";
    va_list list;
    va_start(list, cap);
    for (const char *part; (part = va_arg(list, const char *));)
        strncat(text, part, sizeof text - strlen(text) - 1);
    va_end(list);
    cas_test_dir_file(*state, "game.jcz", path, cap);
    cas_test_write_file(path, text, strlen(text));
    return path;
}

/* An import that must fail, say `words` and leave no save database. */
static void expect_refused(void **state, const char *path, const char *words)
{
    struct cas_test_result r;
    char db[512];
    castellan(state, &r, "import", path, NULL);
    assert_int_equal(r.status, 1);
    cas_test_expect_text(r.err, words);
    cas_test_dir_file(*state, "castellan/saves.db", db, sizeof db);
    assert_int_not_equal(access(db, F_OK), 0);
}

static void test_base_game_imports_with_its_scores(void **state)
{
    char path[512];
    struct cas_test_result r;
    write_jcz(state, path, sizeof path, setup_base, turns, "\n  ]\n}\n", NULL);
    castellan(state, &r, "import", path, NULL);
    if (r.status)
        fail_msg("import failed: %s", r.err);
    cas_test_expect_text(r.out, "as game 1 (9 plies, unfinished)");
    castellan(state, &r, "saves", "show", "1", "--json", NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "\"scores\": [4, 0]");
    cas_test_expect_text(r.out, "\"name\": \"Alice\"");
    castellan(state, &r, "export", "1", "--no-hashes", NULL);
    assert_int_equal(r.status, 0);
    cas_test_expect_text(r.out, "0 -1 draw E\n1 0 place E 0,-1 180\n2 0 deploy meeple city S\n");
    cas_test_expect_text(r.out, "4 1 place U 1,0 0\n5 1 deploy meeple field Es+Se+Sw+Ws\n");
    cas_test_expect_text(r.out, "8 0 deploy meeple monastery\n");
}

/* Inns & Cathedrals, three players: Ann's large meeple on the road that
 * IC/LRFR ends at its monastery; Ben extends it, Cy closes it with a
 * monastery's road turned R270: 4 tiles, 4 points. */
static void test_expansion_game_imports_with_its_scores(void **state)
{
    char path[512];
    struct cas_test_result r;
    write_jcz(state, path, sizeof path,
              "{\"setup\": {\"sets\": {\"basic:1\": 1, \"inns-and-cathedrals:1\": 1},\n"
              " \"elements\": {\"small-follower\": 7, \"big-follower\": 1, \"inn\": true,"
              " \"cathedral\": true}},\n"
              " \"players\": [{\"name\": \"Ann\"}, {\"name\": \"Ben\"}, {\"name\": \"Cy\"}],\n"
              " \"replay\": [\n"
              "  {\"type\": \"PLACE_TILE\", \"payload\": {\"tileId\": \"IC/LRFR\", "
              "\"rotation\": \"R0\", \"position\": [1, 0]}},\n"
              "  {\"type\": \"DEPLOY_MEEPLE\", \"payload\": {\"pointer\": {\"position\": "
              "[1, 0], \"location\": \"W\"}, \"meepleId\": \"0.big.1\"}},\n"
              "  {\"type\": \"COMMIT\", \"payload\": {}},\n"
              "  {\"type\": \"PLACE_TILE\", \"payload\": {\"tileId\": \"BA/RFr\", "
              "\"rotation\": \"R0\", \"position\": [-1, 0]}},\n"
              "  {\"type\": \"PASS\", \"payload\": {}},\n"
              "  {\"type\": \"COMMIT\", \"payload\": {}},\n"
              "  {\"type\": \"PLACE_TILE\", \"payload\": {\"tileId\": \"BA/LR\", "
              "\"rotation\": \"R270\", \"position\": [-2, 0]}},\n"
              "  {\"type\": \"PASS\", \"payload\": {}},\n"
              "  {\"type\": \"COMMIT\", \"payload\": {}}\n ]}\n", NULL);
    castellan(state, &r, "import", path, NULL);
    if (r.status)
        fail_msg("import failed: %s", r.err);
    castellan(state, &r, "saves", "show", "1", "--json", NULL);
    cas_test_expect_text(r.out, "\"expansions\": [{\"id\": \"inns-cathedrals\"");
    cas_test_expect_text(r.out, "\"scores\": [4, 0, 0]");
    castellan(state, &r, "export", "1", "--no-hashes", NULL);
    cas_test_expect_text(r.out, "2 0 deploy large-meeple road W\n");
    cas_test_expect_text(r.out, "7 2 place A -2,0 270\n8 2 pass\n");
}

/* Traders & Builders: Alice's builder on her road, extended at ply 13,
 * gives her a bonus turn.  The file alternates turns at each COMMIT; who
 * acts is the game's to say, so the bonus tile is Alice's, the next Bob's. */
static void test_builder_bonus_turn_takes_the_games_actor(void **state)
{
    char path[512];
    struct cas_test_result r;
    write_jcz(state, path, sizeof path,
              "{\"setup\": {\"sets\": {\"basic:1\": 1, \"traders-and-builders:1\": 1}},\n"
              " \"players\": [{\"name\": \"Alice\"}, {\"name\": \"Bob\"}],\n"
              " \"replay\": [\n"
              "  {\"type\": \"PLACE_TILE\", \"payload\": {\"tileId\": \"BA/RFr\", \"rotation\": \"R0\", \"position\": [1, 0]}},\n"
              "  {\"type\": \"DEPLOY_MEEPLE\", \"payload\": {\"pointer\": {\"position\": [1, 0], \"location\": \"EW\"}, \"meepleId\": \"0.small.1\"}},\n"
              "  {\"type\": \"COMMIT\", \"payload\": {}},\n"
              "  {\"type\": \"PLACE_TILE\", \"payload\": {\"tileId\": \"BA/C\", \"rotation\": \"R180\", \"position\": [0, -1]}}, {\"type\": \"PASS\", \"payload\": {}}, {\"type\": \"COMMIT\", \"payload\": {}},\n"
              "  {\"type\": \"PLACE_TILE\", \"payload\": {\"tileId\": \"BA/RFr\", \"rotation\": \"R0\", \"position\": [2, 0]}},\n"
              "  {\"type\": \"DEPLOY_MEEPLE\", \"payload\": {\"pointer\": {\"position\": [2, 0], \"location\": \"WE\"}, \"meepleId\": \"0.builder\"}},\n"
              "  {\"type\": \"COMMIT\", \"payload\": {}},\n"
              "  {\"type\": \"PLACE_TILE\", \"payload\": {\"tileId\": \"BA/C\", \"rotation\": \"R180\", \"position\": [0, 1]}}, {\"type\": \"PASS\", \"payload\": {}}, {\"type\": \"COMMIT\", \"payload\": {}},\n"
              "  {\"type\": \"PLACE_TILE\", \"payload\": {\"tileId\": \"BA/RFr\", \"rotation\": \"R0\", \"position\": [3, 0]}}, {\"type\": \"PASS\", \"payload\": {}}, {\"type\": \"COMMIT\", \"payload\": {}},\n"
              "  {\"type\": \"PLACE_TILE\", \"payload\": {\"tileId\": \"BA/L\", \"rotation\": \"R0\", \"position\": [0, -2]}}, {\"type\": \"PASS\", \"payload\": {}}, {\"type\": \"COMMIT\", \"payload\": {}},\n"
              "  {\"type\": \"PLACE_TILE\", \"payload\": {\"tileId\": \"BA/L\", \"rotation\": \"R0\", \"position\": [-1, -1]}}, {\"type\": \"PASS\", \"payload\": {}}, {\"type\": \"COMMIT\", \"payload\": {}}\n"
              " ]}\n",
              NULL);
    castellan(state, &r, "import", path, NULL);
    if (r.status)
        fail_msg("import failed: %s", r.err);
    castellan(state, &r, "export", "1", "--no-hashes", NULL);
    cas_test_expect_text(r.out, "8 0 deploy builder road E+W\n");
    cas_test_expect_text(r.out, "13 0 place U 3,0 0\n14 0 pass\n15 -1 draw B\n"
                                "16 0 place B 0,-2 0\n17 0 pass\n18 -1 draw B\n"
                                "19 1 place B -1,-1 0\n");
}

/* JCloisterZone up to 5.6 wrote "pig-herd": true with every Traders &
 * Builders game; no tile of castellan's sets has a pig herd, so it changes
 * nothing and is accepted. */
static void test_pig_herd_element_without_its_tiles_is_accepted(void **state)
{
    char path[512];
    struct cas_test_result r;
    write_jcz(state, path, sizeof path,
              "{\"setup\": {\"sets\": {\"basic:1\": 1, \"traders-and-builders:1\": 1},\n"
              " \"elements\": {\"small-follower\": 7, \"farmers\": true, \"builder\": 1,"
              " \"pig\": 1, \"traders\": true, \"pig-herd\": true}},\n"
              " \"players\": [{\"name\": \"Alice\"}, {\"name\": \"Bob\"}],\n"
              " \"replay\": [\n", turns, "\n ]}\n", NULL);
    castellan(state, &r, "import", path, NULL);
    if (r.status)
        fail_msg("import failed: %s", r.err);
    cas_test_expect_text(r.out, "as game 1 (9 plies, unfinished)");
}

/* An Abbey & Mayor setup as JCloisterZone 5 writes it: the start as an
 * array, every part of the expansion among the elements, a rule variant. */
#define AM_SETUP(rules)                                                            \
    "{\"setup\": {\"sets\": {\"basic:1\": 1, \"abbey-and-mayor:1\": 1},\n"         \
    " \"elements\": {\"small-follower\": 7, \"farmers\": true, \"abbey\": 1,"      \
    " \"mayor\": 1, \"wagon\": 1, \"barn\": 1},\n"                                 \
    " \"rules\": {" rules "},\n"                                                   \
    " \"start\": [{\"tile\": \"BA/RCr\", \"x\": 0, \"y\": 0, \"rotation\": 0}]},\n" \
    " \"players\": [{\"name\": \"Red\"}, {\"name\": \"Blue\"}],\n"                 \
    " \"replay\": [\n"

#define JCZ_TILE(id, rot, x, y)                                                    \
    "  {\"type\": \"PLACE_TILE\", \"payload\": {\"tileId\": \"" id "\", \"rotation\": \"" \
    rot "\", \"position\": [" x ", " y "]}},\n"
#define JCZ_DEPLOY(meeple, x, y, location, feature)                                \
    "  {\"type\": \"DEPLOY_MEEPLE\", \"payload\": {\"pointer\": {\"position\": [" x ", " y \
    "], \"location\": \"" location "\", \"feature\": \"" feature "\"}, \"meepleId\": \"" \
    meeple "\"}},\n"
#define JCZ_PASS "  {\"type\": \"PASS\", \"payload\": {}},\n"
#define JCZ_COMMIT "  {\"type\": \"COMMIT\", \"payload\": {}},\n"
#define JCZ_END "  {\"type\": \"GAME_OVER\", \"payload\": {}}\n ]}\n"

/* Import path, then its --no-hashes record and its results into the
 * test's buffers; fails the test on any error. */
static void import_then_export(void **state, const char *path, struct cas_test_result *record,
                               struct cas_test_result *results)
{
    struct cas_test_result r;
    castellan(state, &r, "import", path, NULL);
    if (r.status)
        fail_msg("import failed: %s", r.err);
    castellan(state, record, "export", "1", "--no-hashes", NULL);
    assert_int_equal(record->status, 0);
    castellan(state, results, "saves", "show", "1", "--json", NULL);
    assert_int_equal(results->status, 0);
}

/* The abbey: a hole at 1,1 below V(1,0), whose road runs west through D to
 * A(-1,0)'s monastery, ringed by E tiles turned away and B(1,2).  Blue,
 * asked first, passes (castellan's `abbey keep`) and draws; Red fills the
 * hole with AM/A, closing Blue's road A-D-V (3) by its S end
 * (JCloisterZone's road "SW"). */
static void test_abbey_and_its_pass_import(void **state)
{
    char path[512];
    struct cas_test_result record, results;
    write_jcz(state, path, sizeof path, AM_SETUP(""),
              JCZ_TILE("BA/LR", "R270", "-1", "0") JCZ_PASS JCZ_COMMIT
              JCZ_TILE("BA/Rr", "R0", "1", "0") JCZ_DEPLOY("1.small.1", "1", "0", "SW", "Road")
              JCZ_COMMIT
              JCZ_TILE("BA/C", "R90", "2", "0") JCZ_PASS JCZ_COMMIT
              JCZ_TILE("BA/C", "R90", "2", "1") JCZ_PASS JCZ_COMMIT
              JCZ_TILE("BA/C", "R270", "0", "1") JCZ_PASS JCZ_COMMIT
              JCZ_TILE("BA/C", "R270", "0", "2") JCZ_PASS JCZ_COMMIT
              JCZ_TILE("BA/L", "R0", "1", "2") JCZ_PASS JCZ_COMMIT
              JCZ_PASS JCZ_TILE("BA/L", "R0", "1", "3") JCZ_PASS JCZ_COMMIT
              JCZ_TILE("AM/A", "R0", "1", "1") JCZ_PASS JCZ_COMMIT JCZ_END,
              NULL);
    import_then_export(state, path, &record, &results);
    cas_test_expect_text(record.out, "Expansion: abbey-mayor ");
    cas_test_expect_text(record.out, "Option: abbey-mayor.final-abbey-round = on\n");
    /* JCloisterZone's tile data decide what a C1 wagon reaches (IC-5) */
    cas_test_expect_text(record.out, "Option: abbey-mayor.c1-reach = jcz\n");
    cas_test_expect_text(record.out, "5 1 deploy meeple road S+W\n");
    cas_test_expect_text(record.out, "21 1 abbey keep\n22 -1 draw B\n23 1 place B 1,3 0\n"
                                     "24 1 pass\n25 0 abbey 1,1\n26 0 pass\n");
    cas_test_expect_text(results.out, "\"scores\": [0, 3]");
    cas_test_expect_text(results.out, "\"points\": 3, \"text\": \"Blue +3 road (3 tiles)\", "
                                      "\"category\": \"road\"");
}

/* The mayor closes the start tile's city without a coat of arms: +0, told
 * as a mayor-city; Blue's barn, on the corner where four fields meet at
 * 1,-1 (the barn record of test_abbey_mayor), scores her farmer's field on
 * arrival: Blue +6, a barn-field. */
static void test_mayor_and_barn_import(void **state)
{
    char path[512];
    struct cas_test_result record, results;
    write_jcz(state, path, sizeof path, AM_SETUP("\"barn-placement\": \"not-occupied\""),
              JCZ_TILE("BA/C", "R180", "0", "-1") JCZ_DEPLOY("0.mayor.1", "0", "-1", "S", "City")
              JCZ_COMMIT
              JCZ_TILE("BA/C", "R90", "1", "-1") JCZ_DEPLOY("1.small.1", "1", "-1", "WR", "Field")
              JCZ_COMMIT
              JCZ_TILE("BA/C", "R270", "2", "-1") JCZ_PASS JCZ_COMMIT
              JCZ_TILE("BA/L", "R0", "0", "-2") JCZ_PASS JCZ_COMMIT
              JCZ_TILE("BA/L", "R0", "1", "-2")
              JCZ_DEPLOY("0.barn.1", "1", "-1", "NL.NR.EL.ER.SL.SR.WL.WR", "Field") JCZ_COMMIT
              JCZ_END,
              NULL);
    import_then_export(state, path, &record, &results);
    cas_test_expect_text(record.out, "2 0 deploy mayor city S\n");
    cas_test_expect_text(record.out, "14 0 deploy barn corner 1,-1 NW\n");
    cas_test_expect_text(results.out, "\"points\": 0, \"text\": \"Red +0 city (2 tiles, 0 "
                                      "coats) [mayor-city]\", \"category\": \"mayor-city\"");
    cas_test_expect_text(results.out, "\"category\": \"barn-field\"");
    cas_test_expect_text(results.out, "\"scores\": [0, 6]");
    struct cas_test_result replay;
    castellan(state, &replay, "replay", "1", NULL); /* the same events, in words */
    assert_int_equal(replay.status, 0);
    cas_test_expect_text(replay.out, "Red +0 city (2 tiles, 0 coats) [mayor-city]");
    cas_test_expect_text(replay.out, "Blue +6 field (2 completed cities) [barn-field]");
}

/* The wagon (test_wagon_two_moves): freed by its city (6) it moves, after
 * the turn's COMMIT, to the road of D; freed again by that road (3), to the
 * monastery A(1,0). */
static void test_wagon_moves_import(void **state)
{
    char path[512];
    struct cas_test_result record, results;
    write_jcz(state, path, sizeof path, AM_SETUP("\"wagon-move\": \"C2\""),
              JCZ_TILE("BA/CFc.1", "R90", "0", "-1")
              JCZ_DEPLOY("0.wagon.1", "0", "-1", "NS", "City") JCZ_COMMIT
              JCZ_TILE("BA/C", "R0", "-1", "-1") JCZ_DEPLOY("1.small.1", "-1", "-1", "N", "City")
              JCZ_COMMIT
              JCZ_TILE("BA/L", "R0", "1", "-1") JCZ_PASS JCZ_COMMIT
              JCZ_TILE("BA/C", "R180", "0", "-2") JCZ_PASS JCZ_COMMIT
              JCZ_DEPLOY("0.wagon.1", "0", "0", "WE", "Road") JCZ_COMMIT
              JCZ_TILE("BA/LR", "R270", "-1", "0") JCZ_PASS JCZ_COMMIT
              JCZ_TILE("BA/LR", "R90", "1", "0") JCZ_PASS JCZ_COMMIT
              JCZ_DEPLOY("0.wagon.1", "1", "0", "I", "Monastery") JCZ_COMMIT JCZ_END,
              NULL);
    import_then_export(state, path, &record, &results);
    cas_test_expect_text(record.out, "Option: abbey-mayor.wagon-move = C2\n");
    cas_test_expect_text(record.out, "2 0 deploy wagon city N+S\n");
    cas_test_expect_text(record.out, "12 0 wagon 0,0 road E+W\n");
    cas_test_expect_text(record.out, "19 0 wagon 1,0 monastery\n");
    cas_test_expect_text(results.out, "\"scores\": [9, 0]");
}

/* King & Robber Baron, its set named without the edition (the first, as
 * no garden says) and its scoring variant `continuously`, which
 * JCloisterZone defines: a completed city pays whoever held the King before
 * it.  Blue closes the first city (6 to Red) and takes the King, paid
 * nothing; Red closes a larger one, 4 tiles with 2 coats (Red +12): Blue
 * +1, then the King goes to Red; Blue closes a smaller one: Red +1.
 * JCloisterZone scores the King 2, as this; castellan before issue 33
 * scored it 3 (the new holder paid). */
static void test_king_and_robber_scoring_variant_imports(void **state)
{
    char path[512];
    struct cas_test_result record, results;
    write_jcz(state, path, sizeof path,
              "{\"setup\": {\"sets\": {\"basic\": 1, \"king-and-robber\": 1},\n"
              " \"elements\": {\"small-follower\": 7, \"farmers\": true, \"king\": true,"
              " \"robber\": true},\n"
              " \"rules\": {\"king-and-robber-scoring\": \"continuously\"}},\n"
              " \"players\": [{\"name\": \"Red\"}, {\"name\": \"Blue\"}],\n"
              " \"replay\": [\n"
              JCZ_TILE("BA/CFc.1", "R90", "0", "-1")
              JCZ_DEPLOY("0.small.1", "0", "-1", "NS", "City") JCZ_COMMIT
              JCZ_TILE("BA/C", "R180", "0", "-2") JCZ_PASS JCZ_COMMIT
              JCZ_TILE("BA/C", "R180", "0", "1")
              JCZ_DEPLOY("0.small.2", "0", "1", "S", "City") JCZ_COMMIT
              JCZ_TILE("BA/CFc+", "R90", "0", "2") JCZ_PASS JCZ_COMMIT
              JCZ_TILE("BA/CFc+", "R90", "0", "3") JCZ_PASS JCZ_COMMIT
              JCZ_TILE("BA/C", "R180", "1", "1") JCZ_PASS JCZ_COMMIT
              JCZ_TILE("BA/C", "R0", "0", "4") JCZ_PASS JCZ_COMMIT
              JCZ_TILE("BA/C", "R0", "1", "2") JCZ_PASS JCZ_COMMIT JCZ_END,
              NULL);
    import_then_export(state, path, &record, &results);
    cas_test_expect_text(record.out, "Expansion: king-robber ");
    cas_test_expect_text(record.out, "Option: king-robber.scoring = continuous\n");
    cas_test_expect_text(results.out, "\"player\": 1, \"points\": 1, \"text\": \"Blue +1 King: "
                                      "a completed city\", \"category\": \"king\"");
    cas_test_expect_text(results.out, "\"player\": 0, \"points\": 1, \"text\": \"Red +1 King: "
                                      "a completed city\", \"category\": \"king\"");
    cas_test_expect_text(results.out, "\"scores\": [19, 1]");
}

/* Farmers on enclosed fields: JCloisterZone's I (IC-3's one inner field)
 * and II (KR-5's second) are castellan's `field inner` and `field inner2`. */
static void test_farmers_on_enclosed_fields_import(void **state)
{
    char path[512];
    struct cas_test_result record, results;
    write_jcz(state, path, sizeof path,
              "{\"setup\": {\"sets\": {\"basic:1\": 1, \"inns-and-cathedrals:1\": 1,"
              " \"king-and-robber:1\": 1},\n"
              " \"elements\": {\"small-follower\": 7, \"farmers\": true, \"big-follower\": 1,"
              " \"inn\": true, \"cathedral\": true, \"king\": true, \"robber\": true}},\n"
              " \"players\": [{\"name\": \"Ann\"}, {\"name\": \"Ben\"}],\n"
              " \"replay\": [\n"
              JCZ_TILE("IC/CCCC", "R0", "0", "-1")
              JCZ_DEPLOY("0.small.1", "0", "-1", "I", "Field") JCZ_COMMIT
              JCZ_TILE("KR/CCcc", "R0", "1", "-1")
              JCZ_DEPLOY("1.small.1", "1", "-1", "II", "Field") JCZ_COMMIT JCZ_END,
              NULL);
    import_then_export(state, path, &record, &results);
    cas_test_expect_text(record.out, "2 0 deploy meeple field inner\n");
    cas_test_expect_text(record.out, "5 1 deploy meeple field inner2\n");
}

/* Figure counts other than the rulebook's, as JCloisterZone games may give
 * them, become the options that count each kind: 8 meeples, 2 wagons and 2
 * barns (one decimal JCloisterZone may write); the game plays with them. */
static void test_figure_counts_become_options(void **state)
{
    char path[512];
    struct cas_test_result record, results;
    write_jcz(state, path, sizeof path,
              "{\"setup\": {\"sets\": {\"basic:1\": 1, \"abbey-and-mayor:1\": 1},\n"
              " \"elements\": {\"small-follower\": 8, \"farmers\": true, \"abbey\": 1,"
              " \"mayor\": 1, \"wagon\": 2.0, \"barn\": 2}},\n"
              " \"players\": [{\"name\": \"Red\"}, {\"name\": \"Blue\"}],\n"
              " \"replay\": [\n"
              JCZ_TILE("BA/C", "R180", "0", "-1") JCZ_DEPLOY("0.wagon.1", "0", "-1", "S", "City")
              JCZ_COMMIT JCZ_END,
              NULL);
    import_then_export(state, path, &record, &results);
    cas_test_expect_text(record.out, "Option: meeples = 8\n");
    cas_test_expect_text(record.out, "Option: abbey-mayor.wagons = 2\n");
    cas_test_expect_text(record.out, "Option: abbey-mayor.barns = 2\n");
    cas_test_expect_text(results.out, "\"scores\": [4, 0]");
    /* a figure the file leaves out is none: a count of 0 */
    write_jcz(state, path, sizeof path,
              "{\"setup\": {\"sets\": {\"basic:1\": 1, \"abbey-and-mayor:1\": 1},\n"
              " \"elements\": {\"small-follower\": 7, \"abbey\": 1, \"mayor\": 1,"
              " \"wagon\": 1}},\n \"players\": [{\"name\": \"A\"}, {\"name\": \"B\"}],"
              " \"replay\": []}\n", NULL);
    castellan(state, &record, "import", path, NULL);
    assert_int_equal(record.status, 0);
    castellan(state, &record, "export", "2", "--no-hashes", NULL);
    cas_test_expect_text(record.out, "Option: abbey-mayor.barns = 0\n");
}

/* Where castellan keeps its own reading, the import says so at that ply:
 * IC-14's inn on two arms (JCloisterZone: one), imported with a warning;
 * a figure on IC-5's road stub (castellan: none may stand there), refused
 * with the warning first. */
#define IC_SETUP                                                                   \
    "{\"setup\": {\"sets\": {\"basic:1\": 1, \"inns-and-cathedrals:1\": 1},\n"        \
    " \"elements\": {\"small-follower\": 7, \"farmers\": true, \"big-follower\": 1,"     \
    " \"inn\": true, \"cathedral\": true}},\n"                                         \
    " \"players\": [{\"name\": \"Ann\"}, {\"name\": \"Ben\"}],\n"                      \
    " \"replay\": [\n"

static void test_inn_on_two_arms_is_told_at_its_ply(void **state)
{
    char path[512];
    struct cas_test_result r;
    write_jcz(state, path, sizeof path, IC_SETUP,
              JCZ_TILE("IC/RRR.i", "R0", "1", "0") JCZ_PASS JCZ_COMMIT JCZ_END, NULL);
    castellan(state, &r, "import", path, NULL);
    if (r.status)
        fail_msg("import failed: %s", r.err);
    cas_test_expect_text(r.err, "game.jcz:5 (ply 1): warning: tile IC-14 at 1,0: castellan "
                                "puts its inn on two arms, E and W (the rulebook's caption), "
                                "JCloisterZone on the E arm only");
}

static void test_figure_on_a_crossing_stub_is_refused_with_a_warning(void **state)
{
    char path[512];
    write_jcz(state, path, sizeof path, IC_SETUP,
              JCZ_TILE("IC/CRCR", "R0", "0", "-1") JCZ_DEPLOY("0.small.1", "0", "-1", "E", "Road")
              JCZ_COMMIT JCZ_END, NULL);
    expect_refused(state, path, "game.jcz:6 (ply 2): warning: a figure on a road stub of tile "
                                "IC-5 at 0,-1: JCloisterZone lets one stand there, castellan "
                                "follows the rulebook's caption");
    expect_refused(state, path, "game.jcz:6 (ply 2): the action \"deploy meeple road E\" "
                                "cannot be replayed");
}

/* The path of tests/saves/data/NAME: .jcz fixtures of whole games, made
 * from castellan's own finished random games (seeds 62 and 1272) written
 * the way JCloisterZone 5 writes them: without the tiles drawn and
 * discarded because they fit nowhere. */
static const char *fixture(char *path, size_t cap, const char *name)
{
    const char *src = getenv("CASTELLAN_SOURCE_DIR");
    snprintf(path, cap, "%s/tests/saves/data/%s", src ? src : ".", name);
    return path;
}

/* Import fixture `name`: a finished game with `scores`, its record with
 * each of the NULL-terminated texts. */
static void expect_finished_fixture(void **state, const char *name, const char *scores, ...)
{
    char path[1024];
    struct cas_test_result record, results;
    import_then_export(state, fixture(path, sizeof path, name), &record, &results);
    cas_test_expect_text(results.out, "\"status\": \"finished\"");
    cas_test_expect_text(results.out, scores);
    va_list texts;
    va_start(texts, scores);
    for (const char *text; (text = va_arg(texts, const char *));)
        cas_test_expect_text(record.out, text);
    va_end(texts);
}

/* A finished base game whose tile C fit nowhere: the discard is put back,
 * the bag empties, the game ends with its final scoring (15 to 12, as
 * castellan played it). */
static void test_discarded_tile_is_put_back_and_the_game_ends(void **state)
{
    expect_finished_fixture(state, "base-discarded-tile.jcz", "\"scores\": [15, 12]",
                            "9 -1 draw C\n10 -1 draw B\n", NULL);
}

/* Abbey & Mayor with the final abbey round: the discarded tile B put back,
 * the bag empties and Player 1 fills the hole at 1,1 in the final round. */
static void test_discarded_tile_before_the_final_abbey_round(void **state)
{
    expect_finished_fixture(state, "abbey-mayor-discarded-tile.jcz", "\"scores\": [20, 34]",
                            "6 -1 draw B\n7 -1 draw V\n", "273 0 abbey 1,1\n274 0 pass\n",
                            NULL);
}

/* Setups castellan cannot play as written are refused, naming the place. */
/* A file that cannot be read says why, not only that it cannot. */
static void test_unreadable_file_says_why(void **state)
{
    char path[512];
    cas_test_dir_file(*state, "absent.jcz", path, sizeof path);
    expect_refused(state, path, "absent.jcz: cannot read it: No such file or directory");
}

static void test_setup_castellan_cannot_play_is_refused(void **state)
{
    char path[512];
    write_jcz(state, path, sizeof path, AM_SETUP("\"barn-placement\": \"occupied\""), JCZ_END,
              NULL);
    expect_refused(state, path, "setup.rules.\"barn-placement\" = \"occupied\": castellan "
                                "does not implement this value; it plays not-occupied (line 3)");
    write_jcz(state, path, sizeof path, AM_SETUP("\"dragon-move\": \"after-scoring\""), JCZ_END,
              NULL);
    expect_refused(state, path, "setup.rules.\"dragon-move\": castellan does not implement "
                                "this rule variant; it plays the rulebook's rules and the "
                                "variants wagon-move, barn-placement, king-and-robber-scoring, "
                                "tiny-city-scoring");
    write_jcz(state, path, sizeof path,
              "{\"setup\": {\"sets\": {\"basic:1\": 1, \"inns-and-cathedrals:1\": 1},\n"
              " \"elements\": {\"small-follower\": 7, \"big-follower\": 1, "
              "\"cathedral\": true}},\n \"players\": [{\"name\": \"A\"}, {\"name\": \"B\"}], "
              "\"replay\": []}\n", NULL);
    expect_refused(state, path, "setup.elements: no \"inn\"; castellan plays inns-cathedrals "
                                "only with all its parts, and this game was scored without it "
                                "(adding \"inn\": true would change its scores): castellan "
                                "cannot import it (line 2)");
    write_jcz(state, path, sizeof path,
              "{\"setup\": {\"sets\": {\"basic:1\": 1},\n"
              " \"elements\": {\"small-follower\": 7, \"mayor\": 1}},\n"
              " \"players\": [{\"name\": \"A\"}, {\"name\": \"B\"}], \"replay\": []}\n", NULL);
    expect_refused(state, path, "setup.elements.\"mayor\": it belongs to the set of "
                                "abbey-mayor, which setup.sets does not list");
    write_jcz(state, path, sizeof path,
              "{\"setup\": {\"sets\": {\"basic:1\": 1},\n"
              " \"elements\": {\"small-follower\": 7, \"castle\": true}},\n"
              " \"players\": [{\"name\": \"A\"}, {\"name\": \"B\"}], \"replay\": []}\n", NULL);
    expect_refused(state, path, "setup.elements.\"castle\": castellan does not implement this "
                                "element (the castle of Bridges, Castles and Bazaars, not of "
                                "Castles in Germany");
    write_jcz(state, path, sizeof path,
              "{\"setup\": {\"sets\": {\"basic:2\": 1}},\n"
              " \"players\": [{\"name\": \"A\"}, {\"name\": \"B\"}], \"replay\": []}\n", NULL);
    expect_refused(state, path, "setup.sets.\"basic:2\": castellan does not implement this set");
    write_jcz(state, path, sizeof path,
              "{\"setup\": {\"sets\": {\"basic\": 1}, \"elements\": {\"garden\": true}},\n"
              " \"players\": [{\"name\": \"A\"}, {\"name\": \"B\"}], \"replay\": []}\n", NULL);
    expect_refused(state, path, "setup.sets.\"basic\" (read as basic:2: the edition the "
                                "garden element means): castellan does not implement this set");
}

/* A wagon moves only after the COMMIT that ends the turn's action part;
 * any other figure there is refused. */
static void test_move_of_a_figure_that_does_not_move_is_refused(void **state)
{
    char path[512];
    write_jcz(state, path, sizeof path, AM_SETUP(""),
              JCZ_TILE("BA/C", "R180", "0", "-1") JCZ_PASS JCZ_COMMIT
              JCZ_DEPLOY("0.small.1", "0", "0", "WE", "Road") JCZ_END, NULL);
    expect_refused(state, path, "replay[3].payload.meepleId = \"0.small.1\": after COMMIT only "
                                "a freed wagon moves on, not a small");
}

static void test_taken_field_is_refused_at_its_line(void **state)
{
    /* The monastery's field meets the start tile's south field, Bob's. */
    char path[512], farmer[sizeof turns];
    snprintf(farmer, sizeof farmer, "%s", turns);
    char *cloister = strstr(farmer, "\"CLOISTER\"");
    memcpy(cloister, "\"EL\"      ", 10);
    write_jcz(state, path, sizeof path, setup_base, farmer, "\n  ]\n}\n", NULL);
    expect_refused(state, path, "game.jcz:18 (ply 8): the action \"deploy meeple field "
                                "En\" cannot be replayed");
    expect_refused(state, path, "is not legal now: a figure already stands on that feature");
}

static void test_field_by_a_half_edge_of_a_city_is_refused(void **state)
{
    /* BA/C turned 180 has its city at S: SL is no field's half-edge. */
    char path[512];
    write_jcz(state, path, sizeof path, setup_base,
              "    {\"type\": \"PLACE_TILE\", \"payload\": {\"tileId\": \"BA/C\", "
              "\"rotation\": \"R180\", \"position\": [0, -1]}},\n"
              "    {\"type\": \"DEPLOY_MEEPLE\", \"payload\": {\"pointer\": {\"position\": "
              "[0, -1], \"location\": \"SL\"}, \"meepleId\": \"0.small.1\"}}\n  ]\n}\n",
              NULL);
    expect_refused(state, path, "game.jcz:12 (ply 2)");
    expect_refused(state, path, "tile E has no such feature; it has 'city S', "
                                "'field Nw+Ne+En+Es+Ws+Wn', as placed at 0,-1 turned 180 (if the tile was meant to lie otherwise, the "
                                "placement before this action is what is wrong)");
}

static void test_unsupported_set_is_refused(void **state)
{
    char path[512];
    write_jcz(state, path, sizeof path,
              "{\n  \"setup\": {\n    \"sets\": {\"basic:1\": 1,\n"
              "      \"hills-and-sheep:1\": 1}\n  },\n"
              "  \"players\": [{\"name\": \"A\"}, {\"name\": \"B\"}],\n  \"replay\": []\n}\n",
              NULL);
    expect_refused(state, path, "setup.sets.\"hills-and-sheep:1\": castellan does not "
                                "implement this set; it imports basic:1, "
                                "inns-and-cathedrals:1, traders-and-builders:1, "
                                "abbey-and-mayor:1, king-and-robber:1 (castellan's "
                                "castles-germany has no set here: Castles in Germany is not "
                                "in JCloisterZone) (line 4)");
}

static void test_unsupported_message_is_refused(void **state)
{
    char path[512];
    write_jcz(state, path, sizeof path, setup_base, turns, ",\n",
              "    {\"type\": \"FLOCK_EXPAND_OR_SCORE\", \"payload\": {}}\n  ]\n}\n", NULL);
    expect_refused(state, path, "replay[9].type = \"FLOCK_EXPAND_OR_SCORE\": castellan "
                                "cannot import this message");
    expect_refused(state, path, "(line 20)");
}

/* Found by tests/fuzz/fuzz_jcz: a message without a payload object was
 * refused at the payload's line, read through a NULL pointer. */
static void test_message_without_payload_is_refused_at_its_line(void **state)
{
    char path[512];
    write_jcz(state, path, sizeof path, setup_base, turns, ",\n",
              "    {\"type\": \"PLACE_TILE\"}\n  ]\n}\n", NULL);
    expect_refused(state, path, "replay[9]: expected {\"type\": ..., \"payload\": {...}} "
                                "(line 20)");
    write_jcz(state, path, sizeof path, setup_base, turns, ",\n",
              "    {\"type\": \"DEPLOY_MEEPLE\", \"payload\": 3}\n  ]\n}\n", NULL);
    expect_refused(state, path, "replay[9]: expected {\"type\": ..., \"payload\": {...}} "
                                "(line 20)");
}

static void test_unsupported_rule_is_refused(void **state)
{
    char path[512];
    write_jcz(state, path, sizeof path,
              "{\"setup\": {\"sets\": {\"basic:1\": 1},\n"
              " \"rules\": {\"farmers\": \"c1\"}},\n"
              " \"players\": [{\"name\": \"A\"}, {\"name\": \"B\"}], \"replay\": []}\n",
              NULL);
    expect_refused(state, path, "setup.rules.\"farmers\": castellan does not implement "
                                "this rule variant");
}

/* JCloisterZone 4 saved XML, gzip-compressed by default: refused as such,
 * with the way left to bring the game over. */
static void test_legacy_4x_save_is_refused_as_such(void **state)
{
    char path[512];
    write_jcz(state, path, sizeof path,
              "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<game app-version=\"4.4.1\">\n",
              NULL);
    expect_refused(state, path, "game.jcz: a JCloisterZone 4.x saved game (XML), not the JSON "
                                "of JCloisterZone 5; castellan reads 5.x files only");
    expect_refused(state, path, "write its moves as a castellan record without hashes");
    write_jcz(state, path, sizeof path,
              "{\"appVersion\": \"4.4.1\", \"setup\": {\"expansions\": [\"BASIC\"]},\n"
              " \"slots\": [{\"name\": \"A\"}, {\"name\": \"B\"}], \"replay\": []}\n", NULL);
    expect_refused(state, path, "game.jcz: carcassonne: a JCloisterZone 4.x saved game (JSON: "
                                "its players as \"slots\", line 2), not one of JCloisterZone 5");
    static const char gzip[] = "\x1f\x8b\x08\x00\x00\x00\x00\x00";
    cas_test_dir_file(*state, "game.jcz", path, sizeof path);
    cas_test_write_file(path, gzip, sizeof gzip - 1);
    expect_refused(state, path, "a JCloisterZone 4.x saved game (gzip-compressed XML)");
}

/* A tile placed where it does not fit is refused at its placement, saying
 * which edge meets what. */
static void test_bad_placement_is_refused_at_the_placement(void **state)
{
    char path[512];
    write_jcz(state, path, sizeof path, setup_base,
              "    {\"type\": \"PLACE_TILE\", \"payload\": {\"tileId\": \"BA/C\", "
              "\"rotation\": \"R0\", \"position\": [0, -1]}},\n"
              "    {\"type\": \"DEPLOY_MEEPLE\", \"payload\": {\"pointer\": {\"position\": "
              "[0, -1], \"location\": \"N\"}, \"meepleId\": \"0.small.1\"}}\n  ]\n}\n",
              NULL);
    expect_refused(state, path, "game.jcz:11 (ply 1): the action \"place E 0,-1 0\" cannot be "
                                "replayed");
    expect_refused(state, path, "is not legal now: its S side (field) meets the city of tile "
                                "D at 0,0");
}

/* A player's name from a file reaches no terminal with its control
 * characters: ESC (and a C1 CSI) become '?' in what is stored, listed,
 * shown and replayed. */
static void test_names_from_a_file_print_without_control_characters(void **state)
{
    char path[512], setup[sizeof setup_base + 64];
    struct cas_test_result r;
    snprintf(setup, sizeof setup, "%s", setup_base);
    char *alice = strstr(setup, "Alice");
    memmove(alice + 17, alice + 5, strlen(alice + 5) + 1);
    memcpy(alice, "\\u001b[2J\\u009bAl", 17);
    write_jcz(state, path, sizeof path, setup, turns, "\n  ]\n}\n", NULL);
    castellan(state, &r, "import", path, NULL);
    if (r.status)
        fail_msg("import failed: %s", r.err);
    const char *const views[][3] = {{"saves", "list", NULL}, {"saves", "show", "1"},
                                    {"replay", "1", NULL}};
    for (size_t i = 0; i < sizeof views / sizeof views[0]; i++) {
        castellan(state, &r, views[i][0], views[i][1], views[i][2], NULL);
        assert_int_equal(r.status, 0);
        cas_test_expect_text(r.out, "?[2J?Al");
        assert_null(strchr(r.out, '\x1b'));
        assert_null(strstr(r.out, "\xc2\x9b"));
    }
}

/* A byte order mark, as editors save UTF-8, is no syntax error. */
static void test_byte_order_mark_is_accepted(void **state)
{
    char path[512];
    struct cas_test_result r;
    write_jcz(state, path, sizeof path, "\xEF\xBB\xBF", setup_base, turns, "\n  ]\n}\n", NULL);
    castellan(state, &r, "import", path, NULL);
    if (r.status)
        fail_msg("import failed: %s", r.err);
    cas_test_expect_text(r.out, "as game 1 (9 plies, unfinished)");
}

static void test_malformed_json_is_refused_with_its_place(void **state)
{
    char path[512];
    write_jcz(state, path, sizeof path,
              "{\n  \"setup\": {\"sets\": {\"basic:1\": 1},},\n  \"replay\": []\n}\n", NULL);
    expect_refused(state, path, "game.jcz:2: not a JSON object: a syntax error at byte 38");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CAS_TEST_IN_DIR(test_base_game_imports_with_its_scores),
        CAS_TEST_IN_DIR(test_expansion_game_imports_with_its_scores),
        CAS_TEST_IN_DIR(test_builder_bonus_turn_takes_the_games_actor),
        CAS_TEST_IN_DIR(test_pig_herd_element_without_its_tiles_is_accepted),
        CAS_TEST_IN_DIR(test_abbey_and_its_pass_import),
        CAS_TEST_IN_DIR(test_mayor_and_barn_import),
        CAS_TEST_IN_DIR(test_wagon_moves_import),
        CAS_TEST_IN_DIR(test_king_and_robber_scoring_variant_imports),
        CAS_TEST_IN_DIR(test_discarded_tile_is_put_back_and_the_game_ends),
        CAS_TEST_IN_DIR(test_farmers_on_enclosed_fields_import),
        CAS_TEST_IN_DIR(test_figure_counts_become_options),
        CAS_TEST_IN_DIR(test_inn_on_two_arms_is_told_at_its_ply),
        CAS_TEST_IN_DIR(test_figure_on_a_crossing_stub_is_refused_with_a_warning),
        CAS_TEST_IN_DIR(test_discarded_tile_before_the_final_abbey_round),
        CAS_TEST_IN_DIR(test_unreadable_file_says_why),
        CAS_TEST_IN_DIR(test_setup_castellan_cannot_play_is_refused),
        CAS_TEST_IN_DIR(test_move_of_a_figure_that_does_not_move_is_refused),
        CAS_TEST_IN_DIR(test_taken_field_is_refused_at_its_line),
        CAS_TEST_IN_DIR(test_field_by_a_half_edge_of_a_city_is_refused),
        CAS_TEST_IN_DIR(test_unsupported_set_is_refused),
        CAS_TEST_IN_DIR(test_unsupported_message_is_refused),
        CAS_TEST_IN_DIR(test_message_without_payload_is_refused_at_its_line),
        CAS_TEST_IN_DIR(test_unsupported_rule_is_refused),
        CAS_TEST_IN_DIR(test_legacy_4x_save_is_refused_as_such),
        CAS_TEST_IN_DIR(test_bad_placement_is_refused_at_the_placement),
        CAS_TEST_IN_DIR(test_byte_order_mark_is_accepted),
        CAS_TEST_IN_DIR(test_names_from_a_file_print_without_control_characters),
        CAS_TEST_IN_DIR(test_malformed_json_is_refused_with_its_place),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
