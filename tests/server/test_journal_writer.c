/*
 * test_journal_writer.c — castellan serve's journal on its writer thread
 * (host/server/journal_writer.c, saves/writer.c), in process, on SQLite
 * and (as test_journal_writer_pg) PostgreSQL: a move is sent to the
 * players only once its action is durable, the table refusing meanwhile;
 * actions of several games waiting together go into one transaction; a
 * write that fails is kept as in an outage, unacknowledged (no update
 * sent), and saved once the store takes it.
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <semaphore.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cmocka.h>
#include <libpq-fe.h>
#include <libwebsockets.h>

#include "saves_fixture.h"
#include "table.h"
#include "tconn.h"

/* Retries 50 ms apart while a store comes back: a bound that only a store
 * that never comes back reaches, however busy the machine (10 minutes). */
#define MOST_TRIES 12000
#include "wsclient.h"

static const char *last(const struct tconn *t)
{
    assert_true(t->n > 0);
    return t->msgs[t->n - 1];
}

/* The lobby of the test, its store and the writer, whose wake posts. */
struct world {
    char where[512];
    struct cas__saves *store;
    struct cas__lobby lobby;
    sem_t written;
};

static void post(void *ctx)
{
    sem_post(&((struct world *)ctx)->written);
}

/* The lobby on a fresh store with a writer that is not started yet. */
static void world_open(struct world *w, void **state)
{
    char err[1024];
    cas_test_store_where(state, "serve.db", w->where, sizeof w->where);
    w->store = cas_test_open(w->where);
    assert_int_equal(cas__lobby_open(&w->lobby, w->store, NULL, NULL, NULL, NULL, err,
                                     sizeof err), CAS_OK);
    sem_init(&w->written, 0, 0);
    assert_int_equal(cas__saves_writer_open(w->where, post, w, &w->lobby.writer, err,
                                            sizeof err), CAS_OK);
}

static void world_close(struct world *w)
{
    cas__saves_writer_stop(w->lobby.writer);
    w->lobby.writer = NULL;
    cas__lobby_close(&w->lobby);
    cas__saves_close(w->store);
    sem_destroy(&w->written);
}

/* Deliver the writer's answers until no table of the lobby waits for
 * one, as the loop does when the writer wakes it. */
static void settle(struct world *w)
{
    for (;;) {
        int writing = 0;
        for (struct cas__table *t = w->lobby.tables; t; t = t->next)
            writing |= t->writing;
        if (!writing)
            return;
        sem_wait(&w->written);
        cas__journal_deliver(&w->lobby);
        cas__lobby_flush(&w->lobby);
    }
}

/* A two-person fixture game; its id, Ada's and Bob's tokens. */
static int64_t create(struct world *w, char tokens[2][64])
{
    struct tconn c;
    tconn_init(&c);
    tconn_sayf(&w->lobby, &c, "{\"type\":\"create\",\"game\":\"fixture\",\"practice\":true,\"seed\":\"5\","
         "\"seats\":[{\"name\":\"Ada\",\"agent\":\"human\"},{\"name\":\"Bob\","
         "\"agent\":\"human\"}]}");
    const char *m = last(&c), *at;
    long long id;
    assert_non_null(at = strstr(m, "\"game\":\""));
    assert_int_equal(sscanf(at + 8, "%lld", &id), 1);
    for (int i = 0; i < 2; i++) {
        char key[32];
        snprintf(key, sizeof key, "{\"seat\":%d,\"token\":\"", i);
        assert_non_null(at = strstr(m, key));
        sscanf(at + strlen(key), "%63[^\"]", tokens[i]);
    }
    tconn_free(&c);
    return id;
}

static void join(struct world *w, struct tconn *c, int64_t id, int seat, const char *token)
{
    tconn_init(c);
    tconn_sayf(&w->lobby, c, "{\"type\":\"join\",\"game\":\"%lld\",\"seat\":%d,\"token\":\"%s\"}",
         (long long)id, seat, token);
}

static size_t stored_actions(struct world *w, int64_t id)
{
    struct cas__saves_game g;
    int rc;
    /* A database connection terminated by the test comes back by itself. */
    for (int tries = 0; (rc = cas__saves_game_load(w->store, id, 0, &g)) == CAS_EUNAVAILABLE &&
                        tries < MOST_TRIES; tries++)
        usleep(50 * 1000);
    assert_int_equal(rc, CAS_OK);
    size_t n = g.n_actions;
    cas__saves_game_free(&g);
    return n;
}

/* The first legal action of the deciding seat's last message, sent as an
 * act; returns that seat. */
static int act(struct world *w, int64_t id, struct tconn seats[2])
{
    struct cas__table *t = cas__lobby_find(&w->lobby, id);
    int actor = cas__table_actor(t);
    assert_true(actor == 0 || actor == 1);
    struct cas__botclient_view v;
    char text[1024];
    const char *m = last(&seats[actor]);
    assert_int_equal(cas__botclient_read(m, strlen(m), &v), CAS_OK);
    assert_true(cas__botclient_act(&v, 0, text, sizeof text));
    cas__botclient_view_free(&v);
    tconn_sayf(&w->lobby, &seats[actor], "%s", text);
    return actor;
}

/* A game of the lobby started, its seats joined, at a person's decision. */
static int64_t seated_game(struct world *w, struct tconn seats[2])
{
    char tokens[2][64];
    int64_t id = create(w, tokens);
    settle(w); /* the deal, drawn by chance, journaled */
    for (int i = 0; i < 2; i++)
        join(w, &seats[i], id, i, tokens[i]);
    return id;
}

static void test_a_move_is_sent_once_durable(void **state)
{
    struct world w;
    struct tconn seats[2];
    world_open(&w, state);
    assert_int_equal(cas__saves_writer_start(w.lobby.writer), CAS_OK);
    int64_t id = seated_game(&w, seats);
    struct cas__table *t = cas__lobby_find(&w.lobby, id);
    uint32_t ply = t->r.session.ply;
    assert_int_equal(stored_actions(&w, id), ply);

    int mover = act(&w, id, seats);
    size_t seen[2] = {seats[0].n, seats[1].n};
    /* Handed to the writer: until its answer is delivered the table is
     * frozen and nobody hears of the move, however quick the disk. */
    assert_true(t->writing);
    cas__lobby_flush(&w.lobby);
    assert_int_equal(seats[0].n, seen[0]);
    assert_int_equal(seats[1].n, seen[1]);
    tconn_sayf(&w.lobby, &seats[mover], "{\"type\":\"act\",\"game\":\"%lld\",\"ply\":%u,\"action\":\"pass\"}",
         (long long)id, ply);
    assert_non_null(strstr(last(&seats[mover]), "\"code\":\"not-your-turn\""));
    assert_non_null(strstr(last(&seats[mover]), "saving the last move"));

    settle(&w);
    assert_false(t->writing);
    assert_true(stored_actions(&w, id) > ply);
    assert_true(seats[1 - mover].n > seen[1 - mover]);
    assert_non_null(strstr(last(&seats[1 - mover]), "\"played\":[{\"ply\":"));
    for (int i = 0; i < 2; i++)
        tconn_free(&seats[i]);
    world_close(&w);
}

/* The chance draws of several new games wait for a writer that has not
 * started: it commits them in one transaction. */
static void test_actions_of_several_games_share_a_commit(void **state)
{
    struct world w;
    char tokens[2][64];
    world_open(&w, state);
    int64_t ids[3];
    for (int i = 0; i < 3; i++) {
        ids[i] = create(&w, tokens);
        assert_true(cas__lobby_find(&w.lobby, ids[i])->writing);
    }
    assert_int_equal(cas__saves_writer_start(w.lobby.writer), CAS_OK);
    sem_wait(&w.written);
    /* One game has one action on the writer at a time: the first batch
     * holds the three, and is one transaction. */
    assert_int_equal(cas__saves_writer_commits(w.lobby.writer), 1);
    for (int i = 0; i < 3; i++)
        assert_int_equal(stored_actions(&w, ids[i]), 1);
    cas__journal_deliver(&w.lobby);
    settle(&w);
    size_t total = 0;
    for (int i = 0; i < 3; i++)
        total += stored_actions(&w, ids[i]);
    assert_true(cas__saves_writer_commits(w.lobby.writer) < total);
    world_close(&w);
}

/* The test's own connection to the cluster of a PostgreSQL store (its
 * database `postgres`), and the store's database, while it is broken. */
static PGconn *admin;
static char admin_db[128];

/* fmt with db quoted in its %s: as a name, or (literal) a string. */
static void run_sql(const char *fmt, const char *db, int literal)
{
    char *ident = literal ? PQescapeLiteral(admin, db, strlen(db))
                          : PQescapeIdentifier(admin, db, strlen(db)), sql[512];
    assert_non_null(ident);
    snprintf(sql, sizeof sql, fmt, ident);
    PQfreemem(ident);
    PGresult *res = PQexec(admin, sql);
    if (PQresultStatus(res) != PGRES_COMMAND_OK && PQresultStatus(res) != PGRES_TUPLES_OK)
        fail_msg("%s: %s", sql, PQerrorMessage(admin));
    PQclear(res);
}

static void connect_admin(const char *where)
{
    PGconn *conn = PQconnectdb(where);
    assert_int_equal(PQstatus(conn), CONNECTION_OK);
    snprintf(admin_db, sizeof admin_db, "%s", PQdb(conn));
    PQfinish(conn);
    const char *const keys[] = {"dbname", "dbname", NULL};
    const char *const values[] = {where, "postgres", NULL};
    admin = PQconnectdbParams(keys, values, 1);
    assert_int_equal(PQstatus(admin), CONNECTION_OK);
}

/* Make the store fail every write until mended: on SQLite a file size
 * limit below any write (EFBIG; SIGXFSZ ignored, as castellan does); on
 * PostgreSQL the database refusing new connections and every other
 * connection to it terminated. */
static void break_store(struct world *w, struct rlimit *saved)
{
    if (cas_test_on_pg()) {
        connect_admin(w->where);
        run_sql("ALTER DATABASE %s ALLOW_CONNECTIONS false", admin_db, 0);
        run_sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = %s",
                admin_db, 1);
        return;
    }
    struct rlimit tiny;
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(getrlimit(RLIMIT_FSIZE, saved), 0);
    tiny = *saved;
    tiny.rlim_cur = 1;
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &tiny), 0);
}

static void mend_store(const struct rlimit *saved)
{
    if (cas_test_on_pg()) {
        run_sql("ALTER DATABASE %s ALLOW_CONNECTIONS true", admin_db, 0);
        PQfinish(admin);
        admin = NULL;
        return;
    }
    assert_int_equal(setrlimit(RLIMIT_FSIZE, saved), 0);
}

static void test_a_failed_write_sends_nothing_and_is_kept(void **state)
{
    struct world w;
    struct tconn seats[2];
    struct rlimit saved;
    world_open(&w, state);
    assert_int_equal(cas__saves_writer_start(w.lobby.writer), CAS_OK);
    int64_t id = seated_game(&w, seats);
    struct cas__table *t = cas__lobby_find(&w.lobby, id);
    uint32_t ply = t->r.session.ply;

    break_store(&w, &saved);
    int mover = act(&w, id, seats);
    size_t seen[2] = {seats[0].n, seats[1].n};
    settle(&w);
    /* Not durable: kept, as in an outage, and not acknowledged: the
     * other seat hears nothing, the mover that its move waits. */
    assert_non_null(t->unsaved.text);
    assert_false(t->writing);
    assert_int_equal(seats[1 - mover].n, seen[1 - mover]);
    assert_int_equal(seats[mover].n, seen[mover] + 1);
    assert_non_null(strstr(last(&seats[mover]), "\"code\":\"unavailable\""));
    assert_non_null(strstr(last(&seats[mover]), "this move is kept"));
    /* Any move meanwhile is refused, changing nothing. */
    tconn_sayf(&w.lobby, &seats[mover], "{\"type\":\"act\",\"game\":\"%lld\",\"ply\":%u,\"action\":\"pass\"}",
         (long long)id, ply);
    assert_non_null(strstr(last(&seats[mover]), "nothing was played"));
    assert_int_equal(seats[1 - mover].n, seen[1 - mover]);
    mend_store(&saved);

    /* The clock's ticks submit it again until the store takes it. */
    for (int tries = 0; t->unsaved.text && tries < MOST_TRIES; tries++) {
        cas__lobby_check_clocks(&w.lobby);
        settle(&w);
        if (t->unsaved.text)
            usleep(50 * 1000);
    }
    assert_null(t->unsaved.text);
    /* Everything played is journaled, each ply once. */
    assert_true(t->r.session.ply > ply);
    assert_int_equal(stored_actions(&w, id), t->r.session.ply);
    assert_true(seats[1 - mover].n > seen[1 - mover]);
    assert_non_null(strstr(last(&seats[1 - mover]), "\"played\":[{\"ply\":"));
    for (int i = 0; i < 2; i++)
        tconn_free(&seats[i]);
    world_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CAS_TEST_IN_DIR(test_a_move_is_sent_once_durable),
        CAS_TEST_IN_DIR(test_actions_of_several_games_share_a_commit),
        CAS_TEST_IN_DIR(test_a_failed_write_sends_nothing_and_is_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
