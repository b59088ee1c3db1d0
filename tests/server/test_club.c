/*
 * test_club.c — the club's pages (host/server/club.c, club_html.c) on a
 * store with known games: every leaderboard row carries exactly the
 * numbers `castellan ratings` prints for the same store, in its order; a
 * hostile registered name and a hostile guest name are escaped wherever
 * they appear; a player's page lists their finished games with links to
 * the replays the server may show and only counts the terminal's; a
 * campaign's standings; a finished game makes the pages say they are
 * stale until the next snapshot; and the real server answers the pages,
 * with a name percent-encoded in the address.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "club.h"
#include "commands.h"
#include "saves_fixture.h"
#include "serve_process.h"

#define HOSTILE "<img src=x onerror=alert(1)>"
#define HOSTILE_ESCAPED "&lt;img src=x onerror=alert(1)&gt;"
#define GUEST "\"><script>x()</script>"

/* A finished game of `game` between seats "Name" or "@agent" (a bot) with
 * these scores, in campaign (NULL: none), served by castellan serve or
 * not (played at the terminal).  Returns its id. */
static int64_t store_game(struct cas__saves *s, const char *game, const char *campaign,
                          int served, const char *const *seats, size_t n,
                          const int64_t *scores)
{
    struct cas__saves_game g;
    cas_test_sample_game(&g, campaign, "x", "y", 2);
    free(g.game.id);
    g.game.id = strdup(game);
    cas_test_seat_players(&g, seats, n);
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    if (served) {
        struct cas__saves_served_seat st[4] = {{.token = "a"}, {.token = "b"}, {.token = "c"},
                                               {.token = "d"}};
        struct cas__saves_served sv = {.game = g.id, .flagged = -1, .seats = st,
                                       .n_seats = n};
        assert_int_equal(cas__saves_served_insert(s, &sv), CAS_OK);
    }
    assert_int_equal(cas__saves_finish(s, g.id, scores, n), CAS_OK);
    int64_t id = g.id;
    cas__saves_game_free(&g);
    return id;
}

/* The store every test reads: Ada, Bob, greedy and mcts-hard in two
 * pools, a registered player with a hostile name, a guest with another,
 * a campaign, and one game of the terminal. */
static void fill(const char *where)
{
    struct cas__saves *s = cas_test_open(where);
    int64_t hostile_id;
    assert_int_equal(cas__saves_registered_add(s, HOSTILE, "00", &hostile_id), CAS_OK);
    store_game(s, "fixture", "Autumn <league>", 1, (const char *[]){"Ada", "@greedy"}, 2,
               (int64_t[]){30, 12});
    int64_t g2 = store_game(s, "fixture", "Autumn <league>", 1,
                            (const char *[]){HOSTILE, "Ada", "Bob"}, 3, (int64_t[]){9, 9, 4});
    assert_int_equal(cas__saves_seat_register(s, g2, 0, hostile_id), CAS_OK);
    store_game(s, "fixture", NULL, 1, (const char *[]){"Bob", "@mcts-hard", GUEST}, 3,
               (int64_t[]){5, 20, 1});
    store_game(s, "other", NULL, 0, (const char *[]){"Ada", "Bob"}, 2, (int64_t[]){1, 2});
    store_game(s, "other", NULL, 1, (const char *[]){"@greedy", "Bob"}, 2, (int64_t[]){7, 2});
    cas__saves_close(s);
}

static struct cas__club *club_on(const char *where)
{
    struct cas__club *c;
    assert_int_equal(cas__club_new(where, NULL, &c), CAS_OK);
    assert_int_equal(cas__club_wait(c), CAS_OK);
    return c;
}

/* The page at path: its status into *status, the body the caller's. */
static char *page(struct cas__club *c, const char *path, unsigned *status)
{
    struct cas__club_answer a;
    assert_int_equal(cas__club_page(c, path, &a), CAS_OK);
    assert_string_equal(a.mime, "text/html; charset=utf-8");
    assert_int_equal(strlen(a.body), a.len);
    *status = a.status;
    return a.body;
}

static void assert_has(const char *body, const char *text)
{
    if (!strstr(body, text))
        fail_msg("the page lacks \"%s\":\n%s", text, body);
}

/* What castellan ratings prints for the store at where, into a buffer the
 * caller frees. */
static char *ratings_output(const char *where)
{
    char path[] = "/tmp/cas-club-ratings-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    fflush(stdout);
    int saved = dup(STDOUT_FILENO);
    assert_true(dup2(fd, STDOUT_FILENO) >= 0);
    int rc = cas__cmd_ratings(3, (char *[]){"ratings", "--database", (char *)where, NULL});
    fflush(stdout);
    dup2(saved, STDOUT_FILENO);
    close(saved);
    assert_int_equal(rc, 0);
    off_t len = lseek(fd, 0, SEEK_END);
    char *text = calloc(1, (size_t)len + 1);
    assert_int_equal(pread(fd, text, (size_t)len, 0), len);
    close(fd);
    unlink(path);
    return text;
}

/* Every row of every pool castellan ratings prints is the same row of that
 * pool's leaderboard: rank, rating, mu, sigma and games as printed, in the
 * same order. */
static void leaderboards_match_the_command(void **state)
{
    char where[512], path[600], row[400];
    cas_test_store_where(state, "saves.db", where, sizeof where);
    fill(where);
    struct cas__club *c = club_on(where);
    char *out = ratings_output(where), *body = NULL;
    size_t rows = 0, pools = 0;
    const char *at = NULL;
    for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
        char pool[128], rating[32], mu[32], sigma[32];
        unsigned rank, games;
        unsigned status;
        if (line[0] != ' ' && sscanf(line, "%127[^:]:", pool) == 1) {
            free(body);
            snprintf(path, sizeof path, "/pool/%s", pool);
            body = page(c, path, &status);
            assert_int_equal(status, 200);
            at = body;
            pools++;
        } else if (sscanf(line, " %u %31s %31s %31s %u", &rank, rating, mu, sigma, &games) ==
                   5) {
            snprintf(row, sizeof row, "<tr><td>%u</td><td>%s</td><td>%s</td><td>%s</td>"
                     "<td>%u</td>", rank, rating, mu, sigma, games);
            assert_non_null(at);
            const char *found = strstr(at, row);
            if (!found)
                fail_msg("pool page lacks (in order) %s for \"%s\":\n%s", row, line, body);
            at = found + strlen(row);
            rows++;
        }
    }
    assert_int_equal(pools, 2);
    assert_int_equal(rows, 6 + 3); /* fixture: 6 players; other: 3 */
    free(body);
    free(out);
    cas__club_free(c);
}

/* Hostile names are text everywhere they appear, and addresses carry them
 * percent-encoded. */
static void hostile_names_are_escaped(void **state)
{
    char where[512];
    cas_test_store_where(state, "saves.db", where, sizeof where);
    fill(where);
    struct cas__club *c = club_on(where);
    const char *paths[] = {"", "/pool/fixture", "/player/Ada", "/campaign/Autumn <league>",
                           "/player/" HOSTILE, "/player/" GUEST};
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        unsigned status;
        char *body = page(c, paths[i], &status);
        assert_int_equal(status, 200);
        assert_null(strstr(body, "<img"));
        assert_null(strstr(body, "<script"));
        assert_null(strstr(body, "<league>"));
        free(body);
    }
    unsigned status;
    char *body = page(c, "", &status);
    assert_has(body, "<a href=\"/club/player/%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E\">"
                     HOSTILE_ESCAPED "</a>");
    assert_has(body, "&quot;&gt;&lt;script&gt;x()&lt;/script&gt;");
    free(body);
    body = page(c, "/player/" HOSTILE, &status);
    assert_has(body, "<h1>" HOSTILE_ESCAPED "</h1>");
    assert_has(body, "<title>" HOSTILE_ESCAPED " — castellan</title>");
    free(body);
    cas__club_free(c);
}

/* The players page: a rating per pool (or none), games, last seen; the
 * registered player with no game is there too. */
static void the_players_page(void **state)
{
    char where[512];
    cas_test_store_where(state, "saves.db", where, sizeof where);
    fill(where);
    struct cas__saves *s = cas_test_open(where);
    int64_t id;
    assert_int_equal(cas__saves_registered_add(s, "Newcomer", "11", &id), CAS_OK);
    cas__saves_close(s);
    struct cas__club *c = club_on(where);
    unsigned status;
    char *body = page(c, "", &status);
    assert_int_equal(status, 200);
    assert_has(body, "<th scope=\"col\">fixture</th><th scope=\"col\">other</th>");
    assert_has(body, "<a href=\"/club/player/Newcomer\">Newcomer</a></td><td>not rated</td>"
                     "<td>not rated</td><td>0</td><td>never</td>");
    assert_has(body, "<a href=\"/club/bot/mcts-hard\">mcts-hard</a> (bot)</td>");
    assert_has(body, "<a href=\"/club/pool/fixture\">fixture</a>: 3 games, 6 players");
    assert_has(body, "<a href=\"/club/mix/fixture%2Bfixture-extra\">");
    assert_has(body, "<a href=\"/club/campaign/Autumn%20%3Cleague%3E\">");
    free(body);
    body = page(c, "/player/Nobody", &status);
    assert_int_equal(status, 404);
    free(body);
    body = page(c, "/bot/Ada", &status); /* Ada is no bot */
    assert_int_equal(status, 404);
    free(body);
    cas__club_free(c);
}

/* A player's games, newest first, each with its replay's link; the game
 * of the terminal counts but is not shown. */
static void a_players_games_link_their_replays(void **state)
{
    char where[512];
    cas_test_store_where(state, "saves.db", where, sizeof where);
    fill(where);
    struct cas__club *c = club_on(where);
    unsigned status;
    char *body = page(c, "/player/Ada", &status);
    assert_int_equal(status, 200);
    assert_has(body, "<dt>Games played</dt><dd>3</dd>");
    const char *second = strstr(body, "<a href=\"/game/2/replay.html\">Game 2</a>");
    const char *first = strstr(body, "<a href=\"/game/1/replay.html\">Game 1</a>");
    assert_non_null(second);
    assert_non_null(first);
    assert_true(second < first);
    assert_null(strstr(body, "/game/4/replay.html"));
    assert_has(body, "1 game played at the terminal");
    assert_has(body, "<a href=\"/club/pool/fixture\">fixture</a></td><td>");
    free(body);
    body = page(c, "/bot/greedy", &status);
    assert_has(body, "/game/5/replay.html");
    assert_has(body, "/game/1/replay.html");
    free(body);
    cas__club_free(c);
}

static void a_campaigns_standings(void **state)
{
    char where[512];
    cas_test_store_where(state, "saves.db", where, sizeof where);
    fill(where);
    struct cas__club *c = club_on(where);
    unsigned status;
    char *body = page(c, "/campaign/Autumn <league>", &status);
    assert_int_equal(status, 200);
    assert_has(body, "<h1>Autumn &lt;league&gt;</h1>");
    assert_has(body, "<p>2 games, 2 finished;");
    /* Ada won one and tied the other for first: 2 wins, 39 points. */
    assert_has(body, "<tr><td>1</td><td>Ada</td><td>2</td><td>2</td><td>39</td></tr>");
    free(body);
    body = page(c, "/campaign/None", &status);
    assert_int_equal(status, 404);
    free(body);
    cas__club_free(c);
}

/* After a game finishes the pages say they are out of date (and reload)
 * until the next snapshot, which counts the game. */
static void a_finished_game_makes_the_pages_stale(void **state)
{
    char where[512];
    cas_test_store_where(state, "saves.db", where, sizeof where);
    fill(where);
    struct cas__club *c = club_on(where);
    struct cas__saves *s = cas_test_open(where);
    store_game(s, "fixture", NULL, 1, (const char *[]){"Cleo", "Ada"}, 2, (int64_t[]){3, 1});
    cas__saves_close(s);
    unsigned status;
    char *body = page(c, "/pool/fixture", &status);
    assert_null(strstr(body, "Cleo"));
    free(body);
    cas__club_stale(c);
    assert_int_equal(cas__club_wait(c), CAS_OK);
    body = page(c, "/pool/fixture", &status);
    assert_has(body, ">Cleo</a>");
    assert_has(body, "fixture: 4 games, 7 players");
    assert_null(strstr(body, "http-equiv=\"refresh\""));
    free(body);
    cas__club_free(c);
}

/* castellan serve answers the pages, with the server's headers, a name
 * percent-encoded in the address found. */
static void the_server_answers_the_pages(void **state)
{
    (void)state;
    if (cas_test_on_pg())
        skip();
    struct serve_process p;
    char dir[512], body[65536];
    snprintf(dir, sizeof dir, "%s/serve", ((struct cas_test_dir *)*state)->path);
    serve_forget(dir);
    char db[700];
    snprintf(db, sizeof db, "mkdir -p '%s'", dir);
    assert_int_equal(system(db), 0);
    snprintf(db, sizeof db, "%s/s.db", dir);
    fill(db);
    serve_start(&p, dir, NULL);
    int status;
    for (;;) { /* 503 until the first snapshot is made */
        status = serve_http_get(&p, "/club/player/%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E",
                                body, sizeof body);
        if (status != 503)
            break;
        usleep(50 * 1000);
    }
    if (status != 200)
        fail_msg("status %d: %s", status, body);
    assert_has(body, "<h1>" HOSTILE_ESCAPED "</h1>");
    assert_int_equal(serve_http_get(&p, "/club", body, sizeof body), 200);
    assert_has(body, "<a href=\"/club/bot/greedy\">greedy</a>");
    assert_int_equal(serve_http(&p, "GET /club/pool/fixture HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                    "Connection: close\r\n\r\n", body, sizeof body), 200);
    assert_has(body, "content-security-policy: default-src 'self'; script-src 'self'");
    assert_has(body, "x-content-type-options: nosniff");
    assert_int_equal(serve_stop(&p), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CAS_TEST_IN_DIR(leaderboards_match_the_command),
        CAS_TEST_IN_DIR(hostile_names_are_escaped),
        CAS_TEST_IN_DIR(the_players_page),
        CAS_TEST_IN_DIR(a_players_games_link_their_replays),
        CAS_TEST_IN_DIR(a_campaigns_standings),
        CAS_TEST_IN_DIR(a_finished_game_makes_the_pages_stale),
        CAS_TEST_IN_DIR(the_server_answers_the_pages),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
