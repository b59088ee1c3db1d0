/*
 * test_journal_writer.c — castellan serve's journal on its writer thread
 * (host/server/journal_writer.c, saves/writer.c), in process, on SQLite
 * and (as test_journal_writer_pg) PostgreSQL: a move is sent to the
 * players only once its action is durable, the table refusing meanwhile;
 * actions of several games waiting together go into one transaction; a
 * write that fails is kept as in an outage, unacknowledged (no update
 * sent), and saved once the store takes it.  The same holds for a
 * take-back, a result (the rules' end, a flag, a claimed leaver) and a
 * bot taking a leaver's seat: each goes through the writer, is shown only
 * once durable, and is kept and submitted again when its write fails.
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
#include "loop_guard.h"
#include "table.h"
#include "tconn.h"

/* Retries 50 ms apart while a store comes back: a bound that only a store
 * that never comes back reaches, however busy the machine (10 minutes). */
#define MOST_TRIES 12000
#include "wsclient.h"

/* The clock of the test (ms), moved by hand: no test waits for time. */
static int64_t fake_now = 5000000, fake_wall_now = 1796000000000;

static int64_t fake_clock(void *ctx)
{
    (void)ctx;
    return fake_now;
}

static int64_t fake_wall(void *ctx)
{
    (void)ctx;
    return fake_wall_now;
}

static const struct cas__srv_clock clock_of_test = {.now_ms = fake_clock,
                                                    .wall_ms = fake_wall};

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
    assert_int_equal(cas__lobby_open(&w->lobby, w->store, NULL, NULL, &clock_of_test, NULL,
                                     err, sizeof err), CAS_OK);
    sem_init(&w->written, 0, 0);
    assert_int_equal(cas__saves_writer_open(w->where, post, w, &w->lobby.writer, err,
                                            sizeof err), CAS_OK);
}

static void world_close(struct world *w)
{
    /* The loop's code made no plugin call of its own (loop_guard.h). */
    assert_int_equal(cas__loop_slow_calls(), 0);
    assert_int_equal(cas__loop_store_calls(), 0);
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

/* A two-person game of `game` (and more of the create message: `more`,
 * "" or starting with a comma); its id, Ada's and Bob's tokens. */
static int64_t create_game(struct world *w, const char *game, const char *more,
                           char tokens[2][64])
{
    struct tconn c;
    tconn_init(&c);
    tconn_sayf(&w->lobby, &c, "{\"type\":\"create\",\"game\":\"%s\",\"practice\":true,"
               "\"seed\":\"5\",\"seats\":[{\"name\":\"Ada\",\"agent\":\"human\"},"
               "{\"name\":\"Bob\",\"agent\":\"human\"}]%s}", game, more);
    const char *m = tconn_last(&c), *at;
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

/* A two-person fixture game. */
static int64_t create(struct world *w, char tokens[2][64])
{
    return create_game(w, "fixture", "", tokens);
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
    const char *m = tconn_last(&seats[actor]);
    assert_int_equal(cas__botclient_read(m, strlen(m), &v), CAS_OK);
    assert_true(cas__botclient_act(&v, 0, text, sizeof text));
    cas__botclient_view_free(&v);
    tconn_sayf(&w->lobby, &seats[actor], "%s", text);
    return actor;
}

/* A game of `game` (more: as create_game) started, its seats joined. */
static int64_t seated(struct world *w, const char *game, const char *more,
                      struct tconn seats[2])
{
    char tokens[2][64];
    int64_t id = create_game(w, game, more, tokens);
    settle(w); /* the deal, drawn by chance, journaled */
    for (int i = 0; i < 2; i++)
        join(w, &seats[i], id, i, tokens[i]);
    return id;
}

/* The world open with its writer started and a game of `game` (more: as
 * create_game) seated: its table, its id in *id. */
static struct cas__table *open_seated(struct world *w, void **state, const char *game,
                                      const char *more, struct tconn seats[2], int64_t *id)
{
    world_open(w, state);
    assert_int_equal(cas__saves_writer_start(w->lobby.writer), CAS_OK);
    *id = seated(w, game, more, seats);
    struct cas__table *t = cas__lobby_find(&w->lobby, *id);
    assert_non_null(t);
    return t;
}

/* A fixture game started, its seats joined, at a person's decision. */
static int64_t seated_game(struct world *w, struct tconn seats[2])
{
    return seated(w, "fixture", "", seats);
}

static void test_a_move_is_sent_once_durable(void **state)
{
    struct world w;
    struct tconn seats[2];
    int64_t id;
    struct cas__table *t = open_seated(&w, state, "fixture", "", seats, &id);
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
    assert_non_null(strstr(tconn_last(&seats[mover]), "\"code\":\"not-your-turn\""));
    assert_non_null(strstr(tconn_last(&seats[mover]), "saving the last move"));

    settle(&w);
    assert_false(t->writing);
    assert_true(stored_actions(&w, id) > ply);
    assert_true(seats[1 - mover].n > seen[1 - mover]);
    assert_non_null(strstr(tconn_last(&seats[1 - mover]), "\"played\":[{\"ply\":"));
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
    /* One game has one write on the writer at a time (its draws in a row
     * together): the first batch holds the three, and is one transaction. */
    assert_int_equal(cas__saves_writer_commits(w.lobby.writer), 1);
    for (int i = 0; i < 3; i++)
        assert_int_equal(stored_actions(&w, ids[i]),
                         cas__lobby_find(&w.lobby, ids[i])->r.session.ply);
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
 * PostgreSQL the database refusing new connections and the writer's
 * connection ended (waited for).  The lobby's own store, the database's
 * first connection, stays: as on SQLite the store looks ready (its
 * readiness check would see a closed connection at once, and the clocks
 * stop while the store is away), and only the writes fail. */
static void break_store(struct world *w, struct rlimit *saved)
{
    if (cas_test_on_pg()) {
        connect_admin(w->where);
        run_sql("ALTER DATABASE %s ALLOW_CONNECTIONS false", admin_db, 0);
        run_sql("WITH mine AS (SELECT pid, backend_start FROM pg_stat_activity WHERE datname ="
                " %s) SELECT pg_terminate_backend(pid, 120000) FROM mine WHERE backend_start >"
                " (SELECT min(backend_start) FROM mine)", admin_db, 1);
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

/* The clock's ticks submit what waits again until the store takes it. */
static void resubmit_until_saved(struct world *w, struct cas__table *t)
{
    for (int tries = 0; t->unsaved.text && tries < MOST_TRIES; tries++) {
        cas__lobby_check_clocks(&w->lobby);
        settle(w);
        if (t->unsaved.text)
            usleep(50 * 1000);
    }
    assert_null(t->unsaved.text);
}

static void test_a_failed_write_sends_nothing_and_is_kept(void **state)
{
    struct world w;
    struct tconn seats[2];
    struct rlimit saved;
    int64_t id;
    struct cas__table *t = open_seated(&w, state, "fixture", "", seats, &id);
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
    assert_non_null(strstr(tconn_last(&seats[mover]), "\"code\":\"unavailable\""));
    assert_non_null(strstr(tconn_last(&seats[mover]), "this move is kept"));
    /* Any move meanwhile is refused, changing nothing. */
    tconn_sayf(&w.lobby, &seats[mover], "{\"type\":\"act\",\"game\":\"%lld\",\"ply\":%u,\"action\":\"pass\"}",
         (long long)id, ply);
    assert_non_null(strstr(tconn_last(&seats[mover]), "nothing was played"));
    assert_int_equal(seats[1 - mover].n, seen[1 - mover]);
    mend_store(&saved);

    resubmit_until_saved(&w, t);
    /* Everything played is journaled, each ply once. */
    assert_true(t->r.session.ply > ply);
    assert_int_equal(stored_actions(&w, id), t->r.session.ply);
    assert_true(seats[1 - mover].n > seen[1 - mover]);
    assert_non_null(strstr(tconn_last(&seats[1 - mover]), "\"played\":[{\"ply\":"));
    for (int i = 0; i < 2; i++)
        tconn_free(&seats[i]);
    world_close(&w);
}

/* The served record of game id, as the test's store reads it once it is
 * back (a connection the test terminated comes back by itself). */
static void load_served(struct world *w, int64_t id, struct cas__saves_served *sv)
{
    int rc;
    for (int tries = 0; (rc = cas__saves_served_load(w->store, id, sv)) == CAS_EUNAVAILABLE &&
                        tries < MOST_TRIES; tries++)
        usleep(50 * 1000);
    assert_int_equal(rc, CAS_OK);
}

/* What each seat has been sent so far. */
struct seen {
    size_t n[2];
};

static struct seen seen_now(const struct tconn seats[2])
{
    return (struct seen){.n = {seats[0].n, seats[1].n}};
}

static void assert_nothing_new(const struct tconn seats[2], struct seen was)
{
    assert_int_equal(seats[0].n, was.n[0]);
    assert_int_equal(seats[1].n, was.n[1]);
}

/* A write of kind just handed to the writer: the table is frozen and a
 * flush sends nobody anything before the writer's answer is delivered. */
static void assert_waits_for_writer(struct world *w, struct cas__table *t,
                                    enum cas__saves_write kind, const struct tconn seats[2],
                                    struct seen was)
{
    assert_true(t->writing);
    assert_int_equal(t->unsaved.kind, kind);
    cas__lobby_flush(&w->lobby);
    assert_nothing_new(seats, was);
}

/* The answer delivered was a failure: the write is kept (nothing shown)
 * for the clock's ticks to submit again. */
static void assert_kept(struct cas__table *t, enum cas__saves_write kind)
{
    assert_false(t->writing);
    assert_non_null(t->unsaved.text);
    assert_int_equal(t->unsaved.kind, kind);
    assert_non_null(t->unsaved.why);
}

/* A write of kind (not a seat's own) just handed to the writer while the
 * store is broken: nothing is sent before the answer, nor after it (the
 * write is kept), even flushed; then the store is mended. */
static void assert_kept_quietly(struct world *w, struct cas__table *t,
                                enum cas__saves_write kind, const struct tconn seats[2],
                                struct seen was, const struct rlimit *saved)
{
    assert_waits_for_writer(w, t, kind, seats, was);
    settle(w);
    assert_kept(t, kind);
    cas__lobby_flush(&w->lobby);
    assert_nothing_new(seats, was);
    mend_store(saved);
}

/* Carcassonne's moves until one hands the decision to chance: that move
 * and the draw after it are one write (one commit, one answer), nobody
 * hearing of either before both are durable; with the store broken, both
 * are kept, unacknowledged, and both saved once it is back. */
static void test_a_move_and_the_draw_after_it_are_one_write(void **state)
{
    struct world w;
    struct tconn seats[2];
    struct rlimit saved;
    int64_t id;
    struct cas__table *t = open_seated(&w, state, "carcassonne", "", seats, &id);
    size_t joined = 0;
    for (int move = 0; move < 6; move++) {
        uint32_t ply = t->r.session.ply;
        uint64_t commits = cas__saves_writer_commits(w.lobby.writer);
        struct seen was = seen_now(seats);
        act(&w, id, seats);
        assert_true(t->writing);
        size_t carried = t->unsaved.n_more;
        joined += carried > 0;
        cas__lobby_flush(&w.lobby);
        assert_nothing_new(seats, was);
        settle(&w);
        assert_int_equal(cas__saves_writer_commits(w.lobby.writer), commits + 1);
        assert_int_equal(t->r.session.ply, ply + 1 + carried);
        assert_int_equal(t->j.saved, t->r.session.ply);
        assert_int_equal(stored_actions(&w, id), t->r.session.ply);
    }
    assert_true(joined > 0);

    /* Broken: acts until one carries a draw, each kept and saved after. */
    for (int carried = 0; !carried;) {
        struct seen was = seen_now(seats);
        break_store(&w, &saved);
        int mover = act(&w, id, seats);
        carried = t->unsaved.n_more > 0;
        uint32_t ply = t->r.session.ply;
        settle(&w);
        assert_kept(t, CAS__WRITE_APPEND);
        assert_true(t->j.saved + 1 + t->unsaved.n_more == ply);
        assert_int_equal(seats[1 - mover].n, was.n[1 - mover]);
        mend_store(&saved);
        resubmit_until_saved(&w, t);
        assert_int_equal(t->j.saved, t->r.session.ply);
        assert_int_equal(stored_actions(&w, id), t->r.session.ply);
        assert_true(seats[1 - mover].n > was.n[1 - mover]);
    }
    for (int i = 0; i < 2; i++)
        tconn_free(&seats[i]);
    world_close(&w);
}

/* A Carcassonne seat takes its tile's placement back: the journal forgets
 * it through the writer; nobody sees the take-back before that, and one
 * that fails is kept (the seat told) and done once the store is back. */
static void test_a_take_back_waits_for_the_writer(void **state)
{
    struct world w;
    struct tconn seats[2];
    struct rlimit saved;
    int64_t id;
    struct cas__table *t = open_seated(&w, state, "carcassonne", "", seats, &id);
    int mover = act(&w, id, seats);
    settle(&w);
    /* The placement is journaled; the same seat decides its figure next. */
    assert_true(cas__table_can_undo(t, mover));
    uint32_t placed = t->j.saved;
    assert_int_equal(stored_actions(&w, id), placed);

    break_store(&w, &saved);
    struct seen was = seen_now(seats);
    tconn_sayf(&w.lobby, &seats[mover], "{\"type\":\"undo\",\"game\":\"%lld\"}", (long long)id);
    assert_waits_for_writer(&w, t, CAS__WRITE_TAKE_BACK, seats, was);
    settle(&w);
    assert_kept(t, CAS__WRITE_TAKE_BACK);
    assert_int_equal(t->j.saved, placed);
    assert_int_equal(seats[1 - mover].n, was.n[1 - mover]);
    assert_int_equal(seats[mover].n, was.n[mover] + 1);
    assert_non_null(strstr(tconn_last(&seats[mover]), "\"code\":\"unavailable\""));
    mend_store(&saved);

    resubmit_until_saved(&w, t);
    assert_true(t->j.saved < placed);
    assert_int_equal(t->j.saved, t->r.session.ply);
    assert_int_equal(stored_actions(&w, id), t->r.session.ply);
    assert_non_null(strstr(tconn_last(&seats[mover]), "\"events_reset\":true"));
    for (int i = 0; i < 2; i++)
        tconn_free(&seats[i]);
    world_close(&w);
}

/* A timed game's flag falls: the result goes through the writer, shown to
 * nobody before it is durable, kept while it fails, saved after. */
static void test_a_flag_waits_for_the_writer(void **state)
{
    struct world w;
    struct tconn seats[2];
    struct rlimit saved;
    int64_t id;
    struct cas__table *t = open_seated(&w, state, "fixture", ",\"clock\":{\"base_ms\":60000,\"increment_ms\":0}", seats, &id);
    int actor = cas__table_actor(t);

    break_store(&w, &saved);
    struct seen was = seen_now(seats);
    fake_now += 60000;
    cas__lobby_check_clocks(&w.lobby);
    assert_int_equal(t->unsaved.actor, actor);
    assert_kept_quietly(&w, t, CAS__WRITE_RESULT, seats, was, &saved);

    resubmit_until_saved(&w, t);
    char expect[64];
    snprintf(expect, sizeof expect, "\"reason\":\"flag\",\"flagged\":%d", actor);
    assert_non_null(strstr(tconn_last(&seats[1 - actor]), expect));
    struct cas__saves_served sv;
    load_served(&w, id, &sv);
    assert_int_equal(sv.flagged, actor);
    cas__saves_served_free(&sv);
    struct cas__saves_game g;
    assert_int_equal(cas__saves_game_load(w.store, id, 0, &g), CAS_OK);
    assert_int_equal(g.status, CAS__SAVES_FINISHED);
    cas__saves_game_free(&g);
    for (int i = 0; i < 2; i++)
        tconn_free(&seats[i]);
    world_close(&w);
}

/* A seat gone past the grace at its turn, given to a bot or the game
 * claimed: the store hears it through the writer first; nothing is shown
 * (nor played by the bot) before, a failure keeps it, and it is done once
 * saved. */
static void test_a_leaver_choice_waits_for_the_writer(void **state)
{
    struct world w;
    struct tconn seats[2];
    struct rlimit saved;
    world_open(&w, state);
    assert_int_equal(cas__saves_writer_start(w.lobby.writer), CAS_OK);
    for (int claim = 0; claim < 2; claim++) {
        int64_t id = seated_game(&w, seats);
        struct cas__table *t = cas__lobby_find(&w.lobby, id);
        int gone = cas__table_actor(t), stays = 1 - gone;
        cas__lobby_disconnect(&w.lobby, &seats[gone].base);
        fake_now += CAS__LEAVER_GRACE_MS;
        cas__lobby_check_clocks(&w.lobby);
        cas__lobby_flush(&w.lobby);
        uint32_t ply = t->r.session.ply;

        break_store(&w, &saved);
        struct seen was = seen_now(seats);
        tconn_sayf(&w.lobby, &seats[stays], "{\"type\":\"leaver\",\"game\":\"%lld\","
                   "\"choice\":\"%s\"}", (long long)id, claim ? "claim" : "bot");
        enum cas__saves_write kind = claim ? CAS__WRITE_RESULT : CAS__WRITE_BOT;
        assert_kept_quietly(&w, t, kind, seats, was, &saved);
        assert_int_equal(t->r.session.ply, ply); /* the bot waits too */

        resubmit_until_saved(&w, t);
        struct cas__saves_served sv;
        load_served(&w, id, &sv);
        if (claim) {
            char expect[64];
            snprintf(expect, sizeof expect, "\"reason\":\"left\",\"flagged\":%d", gone);
            assert_non_null(strstr(tconn_last(&seats[stays]), expect));
            assert_int_equal(sv.flagged, gone);
            assert_true(sv.forfeit);
        } else {
            assert_true(t->seats[gone].bot);
            assert_true(t->r.session.ply > ply); /* the bot played the seat's turn */
            assert_true((size_t)gone < sv.n_seats);
            assert_non_null(sv.seats[gone].bot);
        }
        cas__saves_served_free(&sv);
        for (int i = 0; i < 2; i++)
            tconn_free(&seats[i]);
    }
    world_close(&w);
}

/* Whether any message c was sent contains needle. */
static int was_sent(const struct tconn *c, const char *needle)
{
    for (size_t i = 0; i < c->n; i++)
        if (strstr(c->msgs[i], needle))
            return 1;
    return 0;
}

/* A game played to its end by the rules: its result goes to the writer
 * after the last action, and nobody hears the game is over before the
 * writer's answer for it is delivered. */
static void test_the_result_waits_for_the_writer(void **state)
{
    struct world w;
    struct tconn seats[2];
    int64_t id;
    struct cas__table *t = open_seated(&w, state, "fixture", "", seats, &id);
    int result_waited = 0;
    for (int moves = 0; !t->over && moves < 1000; moves++) {
        act(&w, id, seats);
        while (t->writing) { /* the answers, one at a time */
            if (t->unsaved.kind == CAS__WRITE_RESULT) {
                result_waited = 1;
                assert_true(t->over);
                for (int i = 0; i < 2; i++)
                    assert_false(was_sent(&seats[i], "\"reason\":\"end\""));
            }
            sem_wait(&w.written);
            cas__journal_deliver(&w.lobby);
            cas__lobby_flush(&w.lobby);
        }
    }
    assert_true(result_waited);
    assert_true(t->over);
    for (int i = 0; i < 2; i++)
        assert_non_null(strstr(tconn_last(&seats[i]), "\"reason\":\"end\""));
    struct cas__saves_game g;
    assert_int_equal(cas__saves_game_load(w.store, id, 0, &g), CAS_OK);
    assert_int_equal(g.status, CAS__SAVES_FINISHED);
    cas__saves_game_free(&g);
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
        CAS_TEST_IN_DIR(test_a_move_and_the_draw_after_it_are_one_write),
        CAS_TEST_IN_DIR(test_a_take_back_waits_for_the_writer),
        CAS_TEST_IN_DIR(test_a_flag_waits_for_the_writer),
        CAS_TEST_IN_DIR(test_a_leaver_choice_waits_for_the_writer),
        CAS_TEST_IN_DIR(test_the_result_waits_for_the_writer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
