/*
 * test_pg_store.c — the save store in PostgreSQL, on the throwaway cluster
 * of the `pg` CTest fixture: the schema and its version created on first
 * use, migrated, a newer one or another application's database refused and
 * left alone, castellans creating the schema at once, a second writer of
 * one game refused as in SQLite, a copied game keeping its id, the
 * password never shown, every connection's TCP user timeout and
 * keepalives (a URL's own winning), claims held on a journal writer's
 * connection and its readiness checked without a statement, a claim held
 * again counted without one, a game's last-played time written once a
 * batch; the
 * server going away under the store: an unanswered append saved once when
 * appended again, a claim another castellan took meanwhile not taken back.
 * The journal and campaign tests run here too (test_saves_journal_pg,
 * test_saves_campaign_pg).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pg_int.h"
#include "saves_fixture.h"

/* Run sql on a plain connection to url; fails the test on error. */
static void exec_plain(const char *url, const char *sql)
{
    PGconn *c = PQconnectdb(url);
    assert_int_equal(PQstatus(c), CONNECTION_OK);
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
        fail_msg("%s: %s", sql, PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
}

static void test_first_use_creates_the_versioned_schema(void **state)
{
    (void)state;
    CAS_TEST_NEED_PG();
    char url[512];
    struct cas__saves *s = cas_test_open(cas_test_pg_database(url, sizeof url));
    assert_int_equal(cas__saves_schema_version(s), CAS__SAVES_SCHEMA_VERSION);
    assert_int_equal(cas_test_query_int(url, "SELECT version FROM schema_version"),
                     CAS__SAVES_SCHEMA_VERSION);
    assert_int_equal(cas_test_query_int(url, "SELECT count(*) FROM schema_version"
                                        " WHERE application = 'castellan'"), 1);
    assert_int_equal(cas__saves_integrity_check(s), CAS_OK);
    cas__saves_close(s);

    /* Reopened, the games are there. */
    struct cas__saves_game g, back;
    s = cas_test_open(url);
    cas_test_sample_game(&g, "league", "Ada", "Bob", 5);
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    cas__saves_close(s);
    s = cas_test_open(url);
    assert_int_equal(cas__saves_game_load(s, g.id, 1, &back), CAS_OK);
    cas_test_assert_same_game(&g, &back);
    cas__saves_game_free(&back);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

static void test_migrates_an_older_schema(void **state)
{
    (void)state;
    CAS_TEST_NEED_PG();
    char url[512], err[512];
    struct cas__saves *s;
    cas_test_pg_database(url, sizeof url);
    assert_int_equal(cas__saves_open_at(url, 1, &s, err, sizeof err), CAS_OK);
    assert_int_equal(cas__saves_schema_version(s), 1);
    cas__saves_close(s);
    /* Reading does not migrate: it asks for one writable open. */
    assert_int_equal(cas__saves_open_read(url, &s, err, sizeof err), CAS_EVERSION);
    assert_non_null(strstr(err, "schema 1"));
    s = cas_test_open(url);
    assert_int_equal(cas__saves_schema_version(s), CAS__SAVES_SCHEMA_VERSION);
    assert_int_equal(cas_test_query_int(url, "SELECT count(*) FROM pg_indexes WHERE "
                                        "indexname = 'players_by_name'"), 1);
    cas__saves_close(s);
}

static void test_refuses_a_newer_schema_and_leaves_it(void **state)
{
    (void)state;
    CAS_TEST_NEED_PG();
    char url[512], err[512];
    struct cas__saves *s = cas_test_open(cas_test_pg_database(url, sizeof url));
    cas__saves_close(s);
    exec_plain(url, "UPDATE schema_version SET version = 99");
    assert_int_equal(cas__saves_open(url, &s, err, sizeof err), CAS_EVERSION);
    assert_null(s);
    assert_non_null(strstr(err, "newer castellan (save schema 99"));
    assert_int_equal(cas__saves_open_read(url, &s, err, sizeof err), CAS_EVERSION);
    assert_int_equal(cas_test_query_int(url, "SELECT version FROM schema_version"), 99);
}

static void test_refuses_another_applications_database(void **state)
{
    (void)state;
    CAS_TEST_NEED_PG();
    char url[512], err[512];
    struct cas__saves *s;
    cas_test_pg_database(url, sizeof url);
    exec_plain(url, "CREATE TABLE games (title TEXT)");
    assert_int_equal(cas__saves_open(url, &s, err, sizeof err), CAS_EMISMATCH);
    assert_non_null(strstr(err, "another application"));
    assert_non_null(strstr(err, url));
    assert_int_equal(cas_test_query_int(url, "SELECT count(*) FROM pg_tables WHERE "
                                        "schemaname = 'public'"), 1);
}

static void test_an_empty_database_has_nothing_to_read(void **state)
{
    (void)state;
    CAS_TEST_NEED_PG();
    char url[512], err[512];
    struct cas__saves *s;
    cas_test_pg_database(url, sizeof url);
    assert_int_equal(cas__saves_open_read(url, &s, err, sizeof err), CAS_ENOTFOUND);
    assert_non_null(strstr(err, "no castellan games yet"));
    assert_int_equal(cas_test_query_int(url, "SELECT count(*) FROM pg_tables WHERE "
                                        "schemaname = 'public'"), 0);
}

/* Castellans starting at once on a new database create the schema once and
 * every game they save is kept. */
static void test_concurrent_creation_keeps_every_game(void **state)
{
    (void)state;
    CAS_TEST_NEED_PG();
    enum { WRITERS = 6 };
    char url[512];
    pid_t pids[WRITERS];
    cas_test_pg_database(url, sizeof url);
    for (int i = 0; i < WRITERS; i++) {
        pids[i] = fork();
        assert_true(pids[i] >= 0);
        if (pids[i] == 0) {
            struct cas__saves *s;
            struct cas__saves_game g;
            char err[512];
            cas_test_sample_game(&g, "race", "Ada", "Bob", 3);
            int rc = cas__saves_open(url, &s, err, sizeof err);
            if (rc == CAS_OK)
                rc = cas__saves_game_insert(s, &g);
            if (rc)
                fprintf(stderr, "writer %d: %s\n", i, s ? cas__saves_errmsg(s) : err);
            cas__saves_game_free(&g);
            cas__saves_close(s);
            _exit(rc ? 1 : 0);
        }
    }
    for (int i = 0; i < WRITERS; i++) {
        int status;
        assert_int_equal(waitpid(pids[i], &status, 0), pids[i]);
        assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    assert_int_equal(cas_test_query_int(url, "SELECT count(*) FROM games"), WRITERS);
    assert_int_equal(cas_test_query_int(url, "SELECT count(*) FROM campaigns"), 1);
}

/* Two connections play one game: the second save of a ply is refused with
 * SQLite's words, and the first one stays. */
static void test_a_second_writer_of_a_ply_is_refused(void **state)
{
    (void)state;
    CAS_TEST_NEED_PG();
    char url[512];
    struct cas__saves *a = cas_test_open(cas_test_pg_database(url, sizeof url));
    struct cas__saves *b = cas_test_open(url);
    struct cas__saves_game g, back;
    cas_test_sample_game(&g, NULL, "Ada", "Bob", 2);
    assert_int_equal(cas__saves_game_insert(a, &g), CAS_OK);
    assert_int_equal(cas__saves_append(a, g.id, 2, 0, "mine", 7), CAS_OK);
    assert_int_equal(cas__saves_append(b, g.id, 2, 1, "theirs", 8), CAS_ECONFLICT);
    assert_non_null(strstr(cas__saves_errmsg(b), "another castellan saved it first"));
    assert_non_null(strstr(cas__saves_errmsg(b), url));
    /* b's connection is still good for the next ply. */
    assert_int_equal(cas__saves_append(b, g.id, 3, 1, "next", 9), CAS_OK);
    assert_int_equal(cas__saves_game_load(b, g.id, 1, &back), CAS_OK);
    assert_int_equal(back.n_actions, 4);
    assert_string_equal(back.actions[2].text, "mine");
    cas__saves_game_free(&back);
    cas__saves_game_free(&g);
    cas__saves_close(a);
    cas__saves_close(b);
}

/* saves migrate keeps ids: a copied game keeps its id, a taken id is
 * refused, and new games are numbered after the copied ones. */
static void test_a_copied_game_keeps_its_id(void **state)
{
    (void)state;
    CAS_TEST_NEED_PG();
    char url[512];
    struct cas__saves *s = cas_test_open(cas_test_pg_database(url, sizeof url));
    struct cas__saves_game g, back;
    cas_test_sample_game(&g, "league", "Ada", "Bob", 3);
    g.id = 41;
    assert_int_equal(cas__saves_game_copy(s, &g), CAS_OK);
    assert_int_equal(g.id, 41);
    assert_int_equal(cas__saves_game_load(s, 41, 1, &back), CAS_OK);
    cas_test_assert_same_game(&g, &back);
    cas__saves_game_free(&back);
    assert_int_equal(cas__saves_game_copy(s, &g), CAS_ECONFLICT);
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    assert_int_equal(g.id, 42);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

static void test_integrity_check_finds_a_gap_in_the_plies(void **state)
{
    (void)state;
    CAS_TEST_NEED_PG();
    char url[512];
    struct cas__saves *s = cas_test_open(cas_test_pg_database(url, sizeof url));
    struct cas__saves_game g;
    cas_test_sample_game(&g, NULL, "Ada", "Bob", 4);
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    assert_int_equal(cas__saves_integrity_check(s), CAS_OK);
    exec_plain(url, "DELETE FROM actions WHERE ply = 1");
    assert_int_equal(cas__saves_integrity_check(s), CAS_ECORRUPT);
    assert_non_null(strstr(cas__saves_errmsg(s), "game 1 has gaps"));
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

/* Claim game id once its holder's connection is gone: the server drops
 * the claim when it notices the closed socket, on its own time, so wait
 * for that event (bounded: a minute). */
static int claim_once_free(struct cas__saves *s, int64_t id)
{
    int rc = CAS_ECONFLICT;
    for (int tries = 0; rc == CAS_ECONFLICT && tries < 6000; tries++) {
        rc = cas__saves_game_claim(s, id);
        if (rc == CAS_ECONFLICT)
            usleep(10000);
    }
    return rc;
}

/* A game claimed by one castellan cannot be claimed by another until the
 * first releases it, closes its store or dies (SIGKILL): then the server
 * drops the claim with the connection. */
static void test_a_claimed_game_is_refused_to_another(void **state)
{
    (void)state;
    CAS_TEST_NEED_PG();
    char url[512];
    struct cas__saves *a = cas_test_open(cas_test_pg_database(url, sizeof url));
    struct cas__saves *b = cas_test_open(url);
    assert_int_equal(cas__saves_game_claim(a, 7), CAS_OK);
    assert_int_equal(cas__saves_game_claim(b, 7), CAS_ECONFLICT);
    assert_non_null(strstr(cas__saves_errmsg(b), "another castellan is playing game 7"));
    assert_int_equal(cas__saves_game_claim(b, 8), CAS_OK); /* another game is free */
    assert_int_equal(cas__saves_game_release(a, 7), CAS_OK);
    assert_int_equal(cas__saves_game_claim(b, 7), CAS_OK);
    assert_int_equal(cas__saves_game_claim(a, 7), CAS_ECONFLICT);
    cas__saves_close(b); /* closing releases both */
    assert_int_equal(claim_once_free(a, 8), CAS_OK);

    /* A killed holder's claim goes with its connection. */
    int ready[2];
    assert_int_equal(pipe(ready), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char err[512];
        struct cas__saves *c;
        if (cas__saves_open(url, &c, err, sizeof err) || cas__saves_game_claim(c, 9))
            _exit(1);
        if (write(ready[1], "!", 1) != 1)
            _exit(1);
        pause();
        _exit(0);
    }
    char byte;
    close(ready[1]);
    assert_int_equal(read(ready[0], &byte, 1), 1);
    close(ready[0]);
    assert_int_equal(cas__saves_game_claim(a, 9), CAS_ECONFLICT);
    kill(pid, SIGKILL);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_int_equal(claim_once_free(a, 9), CAS_OK);
    cas__saves_close(a);
}

/* The sample game (5 actions) inserted through s into *g, and claimed
 * through a writer on url that holds s's claims: the writer, started. */
static struct cas__saves_writer *claimed_through_a_writer(const char *url, struct cas__saves *s,
                                                          struct cas__saves_game *g)
{
    char err[1024];
    struct cas__saves_writer *w;
    cas_test_sample_game(g, "league", "Ada", "Bob", 5);
    assert_int_equal(cas__saves_game_insert(s, g), CAS_OK);
    assert_int_equal(cas__saves_writer_open(url, NULL, NULL, &w, err, sizeof err), CAS_OK);
    cas__saves_writer_hold_claims(w, s);
    assert_int_equal(cas__saves_writer_start(w), CAS_OK);
    assert_int_equal(cas__saves_game_claim(s, g->id), CAS_OK);
    return w;
}

/* castellan serve claims its games on its journal writer's connection
 * (cas__saves_writer_hold_claims): the backend that runs a game's appends
 * is the one holding its claim, so the claim goes only after the last
 * append that backend was sent, even one it had not started when the
 * castellan died (test_serve_pg's takeover).  Here the writer's append
 * waits for a lock of the test's, and the backend waiting is the claim's;
 * another castellan's claim is refused with the message on the asking
 * store; once the writer stops, the store claims on its own connection. */
static void test_claims_through_a_writer_are_on_its_connection(void **state)
{
    (void)state;
    CAS_TEST_NEED_PG();
    char url[512];
    struct cas__saves *s = cas_test_open(cas_test_pg_database(url, sizeof url));
    struct cas__saves_game g;
    struct cas__saves_writer *w = claimed_through_a_writer(url, s, &g);

    PGconn *lock = PQconnectdb(url);
    assert_int_equal(PQstatus(lock), CONNECTION_OK);
    PGresult *r = PQexec(lock, "BEGIN; LOCK TABLE actions IN SHARE MODE");
    assert_int_equal(PQresultStatus(r), PGRES_COMMAND_OK);
    PQclear(r);
    cas__saves_writer_submit(w, cas__saves_entry_new(g.id, 5, 1, "late", 5, -1, NULL));
    const char *waiting = "SELECT coalesce(max(pid), 0) FROM pg_stat_activity WHERE datname"
                          " = current_database() AND wait_event_type = 'Lock'";
    long long appender = 0;
    for (int tries = 0; tries < 6000 && !(appender = cas_test_query_int(url, waiting)); tries++)
        usleep(10000); /* bounded only against a stuck server: a minute */
    assert_true(appender > 0);
    assert_int_equal(cas_test_claim_holder(url, g.id), appender);
    r = PQexec(lock, "COMMIT");
    assert_int_equal(PQresultStatus(r), PGRES_COMMAND_OK);
    PQclear(r);
    PQfinish(lock);
    struct cas__saves_entry *done = cas__saves_writer_done(w, 1);
    assert_int_equal(done->rc, CAS_OK);
    cas__saves_entries_free(done);

    /* Released through s, claimed by another, refused to s with its words. */
    assert_int_equal(cas__saves_game_release(s, g.id), CAS_OK);
    assert_int_equal(cas_test_claim_holder(url, g.id), 0);
    struct cas__saves *other = cas_test_open(url);
    assert_int_equal(cas__saves_game_claim(other, g.id), CAS_OK);
    assert_int_equal(cas__saves_game_claim(s, g.id), CAS_ECONFLICT);
    assert_non_null(strstr(cas__saves_errmsg(s), "another castellan is playing game"));
    assert_int_equal(cas__saves_game_release(other, g.id), CAS_OK);
    cas__saves_close(other);

    /* Held through w when it stops: gone with its connection; s's own
     * connection claims from then on. */
    assert_int_equal(cas__saves_game_claim(s, g.id), CAS_OK);
    cas__saves_writer_stop(w);
    /* (its backend ends on its own time: bounded against a stuck server) */
    for (int tries = 0; tries < 6000 && cas__saves_game_claim(s, g.id) != CAS_OK; tries++)
        usleep(10000);
    assert_true(cas_test_claim_holder(url, g.id) > 0);
    assert_true(cas_test_claim_holder(url, g.id) != appender);
    assert_int_equal(cas__saves_game_release(s, g.id), CAS_OK);
    assert_int_equal(cas_test_claim_holder(url, g.id), 0);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

/* The value connection option key has on s's open connection (PQconninfo),
 * "" when unset. */
static const char *conn_option(struct cas__saves *s, const char *key, char *buf, size_t cap)
{
    PQconninfoOption *opts = PQconninfo(cas__pg_conn(s));
    assert_non_null(opts);
    buf[0] = '\0';
    for (PQconninfoOption *o = opts; o->keyword; o++)
        if (!strcmp(o->keyword, key) && o->val)
            snprintf(buf, cap, "%s", o->val);
    PQconninfoFree(opts);
    return buf;
}

static void assert_conn_option(struct cas__saves *s, const char *key, const char *want)
{
    char got[64];
    assert_string_equal(conn_option(s, key, got, sizeof got), want);
}

/* The store's connections bound what they sent to a server the network
 * lost (tcp_user_timeout) besides probing an idle one (keepalives), the
 * first time and when made again after the server ended one. */
static void test_connections_bound_an_unanswered_send(void **state)
{
    (void)state;
    CAS_TEST_NEED_PG();
    char url[512], sql[128];
    struct cas__saves *s = cas_test_open(cas_test_pg_database(url, sizeof url));
    assert_conn_option(s, "tcp_user_timeout", "25000");
    assert_conn_option(s, "keepalives", "1");
    assert_conn_option(s, "keepalives_idle", "10");

    int first = PQbackendPID(cas__pg_conn(s));
    snprintf(sql, sizeof sql, "SELECT pg_terminate_backend(%d, 60000)::int", first);
    assert_int_equal(cas_test_query_int(url, sql), 1);
    /* bounded only against a stuck server: a minute */
    for (int tries = 0; tries < 6000; tries++) {
        if (cas__saves_ready(s) == CAS_OK && PQbackendPID(cas__pg_conn(s)) != first)
            break;
        usleep(10000);
    }
    assert_int_equal(cas__saves_ready(s), CAS_OK);
    assert_int_not_equal(PQbackendPID(cas__pg_conn(s)), first);
    assert_conn_option(s, "tcp_user_timeout", "25000");
    assert_conn_option(s, "keepalives", "1");
    cas__saves_close(s);
}

/* A URL's own timeouts win over castellan's; the ones it leaves out keep
 * castellan's. */
static void test_a_urls_own_timeouts_are_kept(void **state)
{
    (void)state;
    CAS_TEST_NEED_PG();
    char base[512], url[600];
    cas_test_pg_database(base, sizeof base);
    snprintf(url, sizeof url, "%s%ctcp_user_timeout=7000&keepalives=0", base,
             strchr(base, '?') ? '&' : '?');
    struct cas__saves *s = cas_test_open(url);
    assert_conn_option(s, "tcp_user_timeout", "7000");
    assert_conn_option(s, "keepalives", "0");
    assert_conn_option(s, "keepalives_idle", "10");
    assert_conn_option(s, "connect_timeout", "10");
    cas__saves_close(s);
}

/* A game claimed through a journal writer, and the writer's backend that
 * holds the claim. */
struct held {
    char url[512];
    struct cas__saves *s;
    struct cas__saves_game g;
    struct cas__saves_writer *w;
    long long writer;
};

static void held_open(struct held *h)
{
    h->s = cas_test_open(cas_test_pg_database(h->url, sizeof h->url));
    h->w = claimed_through_a_writer(h->url, h->s, &h->g);
    h->writer = cas_test_claim_holder(h->url, h->g.id);
    assert_true(h->writer > 0);
}

static void held_close(struct held *h)
{
    cas__saves_writer_stop(h->w);
    cas__saves_game_free(&h->g);
    cas__saves_close(h->s);
}

/* End backend (pg_terminate_backend), the holder of game id's claim, and
 * check s's readiness until the claim is held again: by whom (0 or
 * backend itself only when a minute was not enough). */
static long long claim_after_ending(const char *url, struct cas__saves *s, int64_t id,
                                   long long backend)
{
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT pg_terminate_backend(%lld)::int", backend);
    assert_int_equal(cas_test_query_int(url, sql), 1);
    long long now = 0;
    /* bounded only against a stuck server: a minute */
    for (int tries = 0; tries < 6000 && (now == 0 || now == backend); tries++) {
        usleep(10000);
        cas__saves_ready(s);
        now = cas_test_claim_holder(url, id);
    }
    return now;
}

/* The database server closes the writer's connection (as a restart
 * does) while no game moves: the store's readiness check, which castellan
 * serve makes each tick, tries that connection, makes it again and takes
 * the claims again, before another castellan could take the game for one
 * whose server is gone. */
static void test_claims_through_a_writer_come_back_with_its_connection(void **state)
{
    (void)state;
    CAS_TEST_NEED_PG();
    struct held h;
    held_open(&h);
    long long now = claim_after_ending(h.url, h.s, h.g.id, h.writer);
    assert_true(now > 0 && now != h.writer);
    assert_int_equal(cas__saves_ready(h.s), CAS_OK);
    assert_int_equal(cas__saves_game_release(h.s, h.g.id), CAS_OK);
    held_close(&h);
}

/* When backend pid began its last statement, in microseconds: the same
 * value twice means it ran none between. */
static long long statement_started(const char *url, long long pid)
{
    char sql[160];
    snprintf(sql, sizeof sql, "SELECT (extract(epoch FROM query_start) * 1000000)::bigint"
             " FROM pg_stat_activity WHERE pid = %lld", pid);
    return cas_test_query_int(url, sql);
}

/* The store's readiness check, made each tick, reads what the server sent
 * on the writer's connection and sends nothing: the writer's batches never
 * wait for a statement of it, however long the connection was idle (the
 * pause is longer than the second an earlier check waited between its
 * statements). */
static void test_readiness_check_sends_nothing_on_the_writers_connection(void **state)
{
    (void)state;
    CAS_TEST_NEED_PG();
    struct held h;
    held_open(&h);
    long long started = statement_started(h.url, h.writer);
    assert_true(started > 0);
    assert_int_equal(cas__saves_ready(h.s), CAS_OK);
    usleep(1100 * 1000);
    assert_int_equal(cas__saves_ready(h.s), CAS_OK);
    assert_int_equal(statement_started(h.url, h.writer), started);
    assert_int_equal(cas_test_claim_holder(h.url, h.g.id), h.writer);
    assert_int_equal(cas__saves_game_release(h.s, h.g.id), CAS_OK);
    held_close(&h);
}

/* A game claimed again on the connection that holds it, and let go while
 * a copy is left, costs no statement (a create claims its game, the
 * table's load claims it again, the create lets its claim go: one round
 * trip); the last release lets it go on the server.  Copies of a claim
 * come back together on a new connection. */
static void test_claims_held_again_are_counted_without_a_statement(void **state)
{
    (void)state;
    CAS_TEST_NEED_PG();
    struct held h;
    held_open(&h);
    long long started = statement_started(h.url, h.writer);
    assert_int_equal(cas__saves_game_claim(h.s, h.g.id), CAS_OK);
    assert_int_equal(cas__saves_game_claim(h.s, h.g.id), CAS_OK);
    assert_int_equal(cas__saves_game_release(h.s, h.g.id), CAS_OK);
    assert_int_equal(statement_started(h.url, h.writer), started);
    assert_int_equal(cas_test_claim_holder(h.url, h.g.id), h.writer);

    /* two copies left: the claim comes back once on a new connection */
    long long now = claim_after_ending(h.url, h.s, h.g.id, h.writer);
    assert_true(now > 0 && now != h.writer);
    assert_int_equal(cas__saves_game_release(h.s, h.g.id), CAS_OK);
    assert_int_equal(cas_test_claim_holder(h.url, h.g.id), now);
    assert_int_equal(cas__saves_game_release(h.s, h.g.id), CAS_OK);
    assert_int_equal(cas_test_claim_holder(h.url, h.g.id), 0);
    assert_int_equal(cas__saves_game_release(h.s, h.g.id), CAS_ENOTFOUND);
    held_close(&h);
}

/* A batch of `n` actions of game id from ply `first` on (a ply saved
 * before makes it fail); the code. */
static int append_plies(struct cas__saves *s, int64_t id, uint32_t first, int n)
{
    struct cas__saves_entry *list = NULL, **tail = &list;
    for (int i = 0; i < n; i++, tail = &(*tail)->next)
        assert_non_null(*tail = cas__saves_entry_new(id, first + (uint32_t)i, i % 2, "move",
                                                     first + (uint32_t)i, -1, NULL));
    int rc = cas__saves_append_batch(s, list);
    cas__saves_entries_free(list);
    return rc;
}

/* As on SQLite, a group commit writes a game's last-played time once a
 * second, not at every action: a batch of three actions of one game
 * updates its row once (a trigger of the test's counts the updates).  A
 * batch that fails forgets the times it would have written: the next one
 * writes the time again. */
static void test_batch_writes_the_last_played_time_once(void **state)
{
    (void)state;
    CAS_TEST_NEED_PG();
    char url[512];
    struct cas__saves *s = cas_test_open(cas_test_pg_database(url, sizeof url));
    struct cas__saves_game g;
    cas_test_sample_game(&g, "league", "Ada", "Bob", 5);
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    exec_plain(url, "CREATE TABLE touches (game bigint);"
                    "CREATE FUNCTION count_touch() RETURNS trigger LANGUAGE plpgsql AS"
                    " $$BEGIN INSERT INTO touches VALUES (NEW.id); RETURN NULL; END$$;"
                    "CREATE TRIGGER counted AFTER UPDATE ON games FOR EACH ROW"
                    " EXECUTE FUNCTION count_touch()");
    assert_int_equal(append_plies(s, g.id, 5, 3), CAS_OK);
    assert_int_equal(cas_test_query_int(url, "SELECT count(*) FROM touches"), 1);
    assert_int_equal(cas_test_query_int(url, "SELECT count(*) FROM actions"), 8);
    assert_int_equal(append_plies(s, g.id, 7, 2), CAS_ECONFLICT);
    assert_int_equal(append_plies(s, g.id, 8, 1), CAS_OK);
    assert_int_equal(cas_test_query_int(url, "SELECT count(*) FROM touches"), 2);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

/* A password in the URL never appears in a message. */
static void test_messages_never_show_the_password(void **state)
{
    (void)state;
    char err[1024];
    struct cas__saves *s;
    const char *url = "postgresql://ada:s3cret@/nowhere?host=/nonexistent-folder";
    assert_int_equal(cas__saves_open(url, &s, err, sizeof err), CAS_EIO);
    assert_null(strstr(err, "s3cret"));
    assert_non_null(strstr(err, "postgresql://ada:***@/nowhere"));
    assert_non_null(strstr(err, "cannot connect"));
    url = "postgres:///nowhere?host=/nonexistent-folder&password=s3cret&user=ada";
    assert_int_equal(cas__saves_open(url, &s, err, sizeof err), CAS_EIO);
    assert_null(strstr(err, "s3cret"));
    assert_non_null(strstr(err, "password=***&user=ada"));
}

/* ---------------------------------------- the database going away */

/* Another connection: it holds the row of the game being appended to, and
 * ends the store's connection just after the append is sent, so the
 * append is never answered and never committed. */
static PGconn *blocker;
static int append_steps;
static long long store_backend;

static void cut_after_send(enum cas__saves_phase phase, enum cas__saves_moment moment)
{
    char sql[96];
    if (phase != CAS__SAVES_APPEND || moment != CAS__SAVES_STEP || ++append_steps != 2)
        return;
    snprintf(sql, sizeof sql, "SELECT pg_terminate_backend(%lld)", store_backend);
    PQclear(PQexec(blocker, sql));
}

static void blocker_exec(const char *sql)
{
    PGresult *r = PQexec(blocker, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
        fail_msg("%s: %s", sql, PQerrorMessage(blocker));
    PQclear(r);
}

/* Append again while the store connects again (each call moves that on;
 * bounded only against a server that never comes back: a minute). */
static int append_when_back(struct cas__saves *s, int64_t id, uint32_t ply, const char *text,
                            uint64_t hash)
{
    int rc = CAS_EUNAVAILABLE;
    for (int i = 0; i < 6000 && rc == CAS_EUNAVAILABLE; i++) {
        rc = cas__saves_append(s, id, ply, 0, text, hash);
        if (rc == CAS_EUNAVAILABLE)
            usleep(10000);
    }
    return rc;
}

/* An append whose answer never came, and which (as here, by another hand)
 * may have been committed: appending it again saves it once; another
 * action at that ply is still refused. */
static void test_an_unanswered_append_is_saved_once(void **state)
{
    (void)state;
    CAS_TEST_NEED_PG();
    char url[512], sql[256];
    struct cas__saves *s = cas_test_open(cas_test_pg_database(url, sizeof url));
    struct cas__saves_game g;
    cas_test_sample_game(&g, NULL, "Ada", "Bob", 2);
    assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
    store_backend = cas_test_query_int(url, "SELECT pid FROM pg_stat_activity WHERE datname ="
                                       " current_database() AND pid <> pg_backend_pid()"
                                       " AND backend_type = 'client backend'");
    blocker = PQconnectdb(url);
    assert_int_equal(PQstatus(blocker), CONNECTION_OK);
    snprintf(sql, sizeof sql, "BEGIN; SELECT id FROM games WHERE id = %lld FOR UPDATE",
             (long long)g.id);
    blocker_exec(sql);
    append_steps = 0;
    cas__saves_probe = cut_after_send;
    int rc = cas__saves_append(s, g.id, 2, 0, "place 1", 42);
    cas__saves_probe = NULL;
    assert_int_equal(rc, CAS_EUNAVAILABLE);
    assert_non_null(strstr(cas__saves_errmsg(s), "unavailable"));
    assert_int_equal(cas__saves_ready(s) == CAS_OK || cas__saves_ready(s) == CAS_EUNAVAILABLE,
                     1);
    /* The commit that went through though its answer was lost. */
    snprintf(sql, sizeof sql, "INSERT INTO actions (game, ply, actor, text, hash) VALUES"
             " (%lld, 2, 0, 'place 1', 42); COMMIT", (long long)g.id);
    blocker_exec(sql);
    PQfinish(blocker);

    assert_int_equal(append_when_back(s, g.id, 2, "place 1", 42), CAS_OK);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM actions WHERE game = %lld AND ply = 2",
             (long long)g.id);
    assert_int_equal(cas_test_query_int(url, sql), 1);
    /* Settled: the same ply again is another castellan's, as ever. */
    assert_int_equal(cas__saves_append(s, g.id, 2, 0, "place 1", 42), CAS_ECONFLICT);
    assert_int_equal(cas__saves_append(s, g.id, 3, 1, "next", 43), CAS_OK);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

/* A claim lost with the connection and taken by another castellan
 * meanwhile is not taken back: the game is the other's. */
static void test_a_claim_taken_while_away_stays_taken(void **state)
{
    (void)state;
    CAS_TEST_NEED_PG();
    char url[512], sql[384];
    struct cas__saves *a = cas_test_open(cas_test_pg_database(url, sizeof url));
    struct cas__saves *b = cas_test_open(url);
    struct cas__saves_game g;
    cas_test_sample_game(&g, NULL, "Ada", "Bob", 2);
    assert_int_equal(cas__saves_game_insert(a, &g), CAS_OK);
    assert_int_equal(cas__saves_game_claim(a, g.id), CAS_OK);
    /* This database's lock only: other tests on the cluster have a game
     * of the same id. */
    snprintf(sql, sizeof sql, "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype"
             " = 'advisory' AND objid = %lld AND objsubid = 2 AND database = (SELECT oid"
             " FROM pg_database WHERE datname = current_database())", (long long)g.id);
    exec_plain(url, sql);
    snprintf(sql, sizeof sql, "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory'"
             " AND objid = %lld AND objsubid = 2 AND database = (SELECT oid FROM pg_database"
             " WHERE datname = current_database())", (long long)g.id);
    /* The lock goes once the server has ended that backend (bounded only
     * against a stuck server: a minute). */
    for (int i = 0; i < 6000 && cas_test_query_int(url, sql) > 0; i++)
        usleep(10000);
    assert_int_equal(cas_test_query_int(url, sql), 0);
    assert_int_equal(cas__saves_game_claim(b, g.id), CAS_OK);
    assert_int_equal(append_when_back(a, g.id, 2, "late", 7), CAS_ECONFLICT);
    assert_non_null(strstr(cas__saves_errmsg(a), "took game"));
    assert_int_equal(cas__saves_game_release(a, g.id), CAS_OK);
    assert_int_equal(cas__saves_append(b, g.id, 2, 0, "on time", 8), CAS_OK);
    cas__saves_game_free(&g);
    cas__saves_close(a);
    cas__saves_close(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_first_use_creates_the_versioned_schema),
        cmocka_unit_test(test_migrates_an_older_schema),
        cmocka_unit_test(test_refuses_a_newer_schema_and_leaves_it),
        cmocka_unit_test(test_refuses_another_applications_database),
        cmocka_unit_test(test_an_empty_database_has_nothing_to_read),
        cmocka_unit_test(test_concurrent_creation_keeps_every_game),
        cmocka_unit_test(test_a_second_writer_of_a_ply_is_refused),
        cmocka_unit_test(test_an_unanswered_append_is_saved_once),
        cmocka_unit_test(test_a_claim_taken_while_away_stays_taken),
        cmocka_unit_test(test_a_copied_game_keeps_its_id),
        cmocka_unit_test(test_integrity_check_finds_a_gap_in_the_plies),
        cmocka_unit_test(test_a_claimed_game_is_refused_to_another),
        cmocka_unit_test(test_claims_through_a_writer_are_on_its_connection),
        cmocka_unit_test(test_claims_through_a_writer_come_back_with_its_connection),
        cmocka_unit_test(test_readiness_check_sends_nothing_on_the_writers_connection),
        cmocka_unit_test(test_claims_held_again_are_counted_without_a_statement),
        cmocka_unit_test(test_batch_writes_the_last_played_time_once),
        cmocka_unit_test(test_messages_never_show_the_password),
        cmocka_unit_test(test_connections_bound_an_unanswered_send),
        cmocka_unit_test(test_a_urls_own_timeouts_are_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
