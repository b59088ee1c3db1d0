/*
 * test_serve_pg_restart.c — `castellan serve` on a PostgreSQL database
 * that goes away mid-game and comes back: a cluster of the test's own
 * (the CTest fixture `pg_restart`, tests/saves/pg_cluster.sh, beside the
 * `pg` fixture other tests use meanwhile) is stopped while Ada plays a bot; her moves are
 * refused with the code `unavailable` and a message that says why and
 * what happens to them; the cluster starts again, the server connects by
 * itself and the game goes on to its end.  The journal then holds every
 * ply exactly once, every move of Ada's the server took and no other, and
 * the game's result.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "saves.h"
#include "saves_fixture.h"
#include "serve_client.h"
#include "serve_process.h"

/* pg_cluster.sh pause or resume on the test's own cluster (PG_CLUSTER,
 * started and removed by the fixture). */
static void cluster(const char *action)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "%s %s %s %s", PG_CLUSTER_SH, action, PG_CLUSTER, PG_BINDIR);
    if (system(cmd) != 0)
        fail_msg("%s failed", cmd);
}

static int shown(void *ctx)
{
    return ((const struct serve_client *)ctx)->states > 0;
}

static int refused(void *ctx)
{
    return ((const struct serve_client *)ctx)->errors > 0;
}

static int refused_unplayed(void *ctx)
{
    return ((const struct serve_client *)ctx)->not_played > 0;
}

static int over(void *ctx)
{
    return ((const struct serve_client *)ctx)->over;
}

static void test_a_game_outlives_its_database_restarting(void **state)
{
    (void)state;
    char url[1024], sql[256];
    struct serve_process p;
    struct cas__wsc *w;
    snprintf(url, sizeof url, "postgresql://castellan@/postgres?host=%s&port=5432", PG_CLUSTER);
    const char *const extra[] = {"--database", url, NULL};
    serve_forget("pg-restart");
    serve_start(&p, "pg-restart", extra);
    assert_int_equal(cas__wsc_new(&serve_client_events, &w), CAS_OK);

    /* Ada against a bot, a practice game of a chosen seed (a server that
     * draws seeds itself asks for the word): two of her moves with the
     * database there. */
    struct serve_client ada = {.stop_after = 2};
    int64_t game = serve_create(w, &p, "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":["
                                "{\"name\":\"Ada\",\"agent\":\"human\"},{\"agent\":\"greedy\"}],"
                                "\"seed\":\"5\",\"practice\":true}", &ada, NULL);
    serve_connect(w, &p, &ada);
    serve_join(&ada, game, 0);
    serve_run_until(w, serve_stopped_at_decision, &ada);
    assert_int_equal(ada.errors, 0);
    /* Another tab of her seat, which never plays: the test's own move goes
     * through it, so what it is told is not counted as hers. */
    struct serve_client tab = {.passive = 1};
    memcpy(tab.token, ada.token, sizeof tab.token);
    serve_connect(w, &p, &tab);
    serve_join(&tab, game, 0);
    serve_run_until(w, shown, &tab);

    /* The database goes away; Ada's next move (a state asked for again
     * makes her play it) is refused: kept to be saved when the database
     * is back if the server learned of its going by saving it, else not
     * played.  Either way the code says why. */
    cluster("pause");
    ada.stop_after = 3;
    serve_join(&ada, game, 0);
    serve_run_until(w, refused, &ada);
    assert_string_equal(ada.last_error, "unavailable");
    assert_non_null(strstr(ada.last_message, "waits for its database"));
    /* Any move while it is away is refused, changing nothing (also while
     * the kept one is being tried again). */
    char act[256];
    snprintf(act, sizeof act, "{\"type\":\"act\",\"game\":\"%lld\",\"ply\":%lld,"
             "\"action\":\"pass\"}", (long long)game, (long long)ada.ply);
    cas__wsc_send(tab.conn, act);
    serve_run_until(w, refused_unplayed, &tab);
    assert_int_equal(tab.errors, tab.not_played + tab.kept);

    /* Back: the server connects again by itself, saves the kept move or
     * shows the state again for the refused one, and the game goes on to
     * its end.  A move made as the database still starts up may be
     * refused again, nothing played: she plays it again, as a player
     * would. */
    cluster("resume");
    int acts_before = ada.acts;
    ada.stop_after = 0;
    serve_run_until(w, over, &ada);
    /* Each refusal she had was the database's: kept, or nothing played
     * (and played again). */
    assert_int_equal(ada.errors, ada.not_played + ada.kept);
    assert_true(ada.kept <= 1);
    assert_true(ada.acts > acts_before);

    cas__wsc_free(w);
    cas__wsc_conn_free(ada.conn);
    cas__wsc_conn_free(tab.conn);
    assert_int_equal(serve_stop(&p), 0);

    /* Every ply once, Ada's moves as the server took them, the result. */
    struct cas__saves *s = cas_test_open(url);
    struct cas__saves_game g;
    assert_int_equal(cas__saves_integrity_check(s), CAS_OK);
    cas_test_load_finished(s, game, (size_t)ada.ply, &g);
    assert_true(g.players[0].has_score);
    int adas = 0;
    for (size_t i = 0; i < g.n_actions; i++)
        adas += g.actions[i].actor == 0;
    /* Each act she sent was journaled, but those refused unkept. */
    assert_int_equal(adas, ada.acts - ada.not_played);
    cas__saves_game_free(&g);
    cas__saves_close(s);
    snprintf(sql, sizeof sql, "SELECT count(*) - count(DISTINCT ply) FROM actions WHERE game"
             " = %lld", (long long)game);
    assert_int_equal(cas_test_query_int(url, sql), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_game_outlives_its_database_restarting),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
