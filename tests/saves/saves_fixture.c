/*
 * saves_fixture.c — shared helpers for the tests of saves/ (see the header).
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <ftw.h>
#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "saves_fixture.h"

void cas_test_dir_make(struct cas_test_dir *d)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(d->path, sizeof d->path, "%s/cas-saves-XXXXXX",
             tmp && tmp[0] ? tmp : "/tmp");
    assert_non_null(mkdtemp(d->path));
}

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void cas_test_dir_remove(struct cas_test_dir *d)
{
    nftw(d->path, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
}

int cas_test_dir_setup(void **state)
{
    struct cas_test_dir *d = malloc(sizeof *d);
    if (!d)
        return -1;
    cas_test_dir_make(d);
    *state = d;
    return 0;
}

int cas_test_dir_teardown(void **state)
{
    cas_test_dir_remove(*state);
    free(*state);
    return 0;
}

const char *cas_test_dir_file(const struct cas_test_dir *d, const char *name,
                              char *buf, size_t cap)
{
    snprintf(buf, cap, "%s/%s", d->path, name);
    return buf;
}

static char *dup_or_fail(const char *text)
{
    char *copy = strdup(text);
    assert_non_null(copy);
    return copy;
}

void cas_test_sample_game(struct cas__saves_game *g, const char *campaign,
                          const char *name1, const char *name2, size_t n_actions)
{
    memset(g, 0, sizeof *g);
    g->campaign = campaign ? dup_or_fail(campaign) : NULL;
    g->castellan_version = dup_or_fail("0.1.0");
    g->game.id = dup_or_fail("fixture");
    g->game.version = dup_or_fail("1.2.3");
    g->n_expansions = 1;
    g->expansions = calloc(1, sizeof *g->expansions);
    assert_non_null(g->expansions);
    g->expansions[0].id = dup_or_fail("fixture-extra");
    g->expansions[0].version = dup_or_fail("0.9.0");
    g->n_options = 1;
    g->options = calloc(1, sizeof *g->options);
    assert_non_null(g->options);
    g->options[0].key = dup_or_fail("length");
    g->options[0].value = dup_or_fail("12");
    g->n_players = 2;
    g->players = calloc(2, sizeof *g->players);
    assert_non_null(g->players);
    g->players[0].name = dup_or_fail(name1);
    g->players[0].agent = dup_or_fail("random");
    g->players[1].name = dup_or_fail(name2);
    g->players[1].agent = dup_or_fail("greedy");
    g->config_text = dup_or_fail("[session]\ngame = fixture\n");
    g->seed = 18446744073709551615u;
    g->n_actions = n_actions;
    g->actions = n_actions ? calloc(n_actions, sizeof *g->actions) : NULL;
    for (size_t i = 0; i < n_actions; i++) {
        char text[32];
        snprintf(text, sizeof text, "move %zu", i);
        g->actions[i].ply = (uint32_t)i;
        g->actions[i].actor = i % 3 == 0 ? CAS_ACTOR_CHANCE : (int)(i % 2);
        g->actions[i].text = dup_or_fail(text);
        g->actions[i].hash = (uint64_t)(i + 1) * 0x9e3779b97f4a7c15u;
    }
}

struct cas__saves *cas_test_open(const char *path)
{
    struct cas__saves *s;
    char err[1024] = "";
    int rc = cas__saves_open(path, &s, err, sizeof err);
    if (rc)
        fail_msg("cannot open %s: %s", path, err);
    return s;
}

void cas_test_file_print(const char *path, struct cas_test_file_print *out)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    out->mtime = st.st_mtim;
    out->len = (size_t)st.st_size;
    out->bytes = malloc(out->len + 1);
    assert_non_null(out->bytes);
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fread(out->bytes, 1, out->len, f), out->len);
    fclose(f);
}

void cas_test_file_unchanged(const char *path, struct cas_test_file_print *fp)
{
    struct cas_test_file_print now;
    cas_test_file_print(path, &now);
    assert_int_equal(now.len, fp->len);
    assert_memory_equal(now.bytes, fp->bytes, fp->len);
    assert_int_equal(now.mtime.tv_sec, fp->mtime.tv_sec);
    assert_int_equal(now.mtime.tv_nsec, fp->mtime.tv_nsec);
    free(now.bytes);
    free(fp->bytes);
    fp->bytes = NULL;
}

void cas_test_write_file(const char *path, const void *bytes, size_t len)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(bytes, 1, len, f), len);
    assert_int_equal(fclose(f), 0);
}

static long long pg_query_int(const char *url, const char *sql)
{
    PGconn *c = PQconnectdb(url);
    if (PQstatus(c) != CONNECTION_OK)
        fail_msg("%s: %s", url, PQerrorMessage(c));
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_TUPLES_OK)
        fail_msg("%s: %s", sql, PQerrorMessage(c));
    long long v = PQntuples(r) ? strtoll(PQgetvalue(r, 0, 0), NULL, 10) : -1;
    PQclear(r);
    PQfinish(c);
    return v;
}

int cas_test_on_pg(void)
{
    const char *url = getenv("CASTELLAN_TEST_PG");
    return url && *url;
}

const char *cas_test_pg_database(char *buf, size_t cap)
{
    static unsigned counter;
    const char *cluster = getenv("CASTELLAN_TEST_PG");
    char name[64], sql[160];
    assert_non_null(cluster);
    /* unique while the cluster lives: it is new for every test run */
    snprintf(name, sizeof name, "t_%ld_%u", (long)getpid(), ++counter);
    PGconn *c = PQconnectdb(cluster);
    if (PQstatus(c) != CONNECTION_OK)
        fail_msg("the test cluster %s: %s", cluster, PQerrorMessage(c));
    snprintf(sql, sizeof sql, "CREATE DATABASE %s", name);
    PGresult *r = PQexec(c, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK)
        fail_msg("%s: %s", sql, PQerrorMessage(c));
    PQclear(r);
    PQfinish(c);
    /* the cluster's URL names the database postgres: name ours instead */
    const char *db = strstr(cluster, "/postgres");
    assert_non_null(db);
    snprintf(buf, cap, "%.*s/%s%s", (int)(db - cluster), cluster, name, db + 9);
    return buf;
}

const char *cas_test_store_where(void **state, const char *name, char *buf, size_t cap)
{
    if (cas_test_on_pg())
        return cas_test_pg_database(buf, cap);
    return cas_test_dir_file(*state, name, buf, cap);
}

long long cas_test_query_int(const char *path, const char *sql)
{
    if (cas__saves_is_url(path))
        return pg_query_int(path, sql);
    sqlite3 *db;
    sqlite3_stmt *st;
    long long v = -1;
    assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
    if (sqlite3_step(st) == SQLITE_ROW)
        v = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return v;
}

static void assert_same_text(const char *a, const char *b)
{
    if (!a || !b)
        assert_ptr_equal(a, b);
    else
        assert_string_equal(a, b);
}

static void assert_same_header(const struct cas__saves_game *a,
                               const struct cas__saves_game *b)
{
    assert_same_text(a->campaign, b->campaign);
    assert_same_text(a->castellan_version, b->castellan_version);
    assert_string_equal(a->game.id, b->game.id);
    assert_string_equal(a->game.version, b->game.version);
    assert_int_equal(a->n_expansions, b->n_expansions);
    for (size_t i = 0; i < a->n_expansions; i++) {
        assert_string_equal(a->expansions[i].id, b->expansions[i].id);
        assert_string_equal(a->expansions[i].version, b->expansions[i].version);
    }
    assert_int_equal(a->n_options, b->n_options);
    for (size_t i = 0; i < a->n_options; i++) {
        assert_string_equal(a->options[i].key, b->options[i].key);
        assert_string_equal(a->options[i].value, b->options[i].value);
    }
    assert_same_text(a->config_text, b->config_text);
    assert_true(a->seed == b->seed);
    assert_int_equal(a->status, b->status);
}

void cas_test_assert_player(const struct cas__saves_player *p, const char *name,
                            const char *registered)
{
    assert_string_equal(p->name, name);
    if (registered)
        assert_string_equal(p->registered, registered);
    else
        assert_null(p->registered);
}

long long cas_test_claim_holder(const char *url, int64_t id)
{
    char sql[320];
    snprintf(sql, sizeof sql, "SELECT coalesce(max(pid), 0) FROM pg_locks WHERE locktype ="
             " 'advisory' AND granted AND classid = 1128354636 AND objid = %lld AND"
             " objsubid = 2 AND database = (SELECT oid FROM pg_database WHERE datname ="
             " current_database())", (long long)id);
    return cas_test_query_int(url, sql);
}

void cas_test_load_finished(struct cas__saves *s, int64_t id, size_t n_actions,
                            struct cas__saves_game *g)
{
    assert_int_equal(cas__saves_game_load(s, id, 1, g), CAS_OK);
    assert_int_equal(g->status, CAS__SAVES_FINISHED);
    assert_int_equal(g->n_actions, n_actions);
}

void cas_test_assert_same_game(const struct cas__saves_game *a,
                               const struct cas__saves_game *b)
{
    assert_same_header(a, b);
    assert_int_equal(a->n_players, b->n_players);
    for (size_t i = 0; i < a->n_players; i++) {
        assert_string_equal(a->players[i].name, b->players[i].name);
        assert_string_equal(a->players[i].agent, b->players[i].agent);
        assert_int_equal(a->players[i].has_score, b->players[i].has_score);
        if (a->players[i].has_score)
            assert_int_equal(a->players[i].score, b->players[i].score);
    }
    assert_int_equal(a->n_actions, b->n_actions);
    for (size_t i = 0; i < a->n_actions; i++) {
        assert_int_equal(a->actions[i].ply, b->actions[i].ply);
        assert_int_equal(a->actions[i].actor, b->actions[i].actor);
        assert_string_equal(a->actions[i].text, b->actions[i].text);
        assert_true(a->actions[i].hash == b->actions[i].hash);
    }
}

void cas_test_seat_players(struct cas__saves_game *g, const char *const *seats, size_t n)
{
    for (size_t i = 0; i < g->n_players; i++) {
        free(g->players[i].name);
        free(g->players[i].agent);
    }
    free(g->players);
    g->players = calloc(n, sizeof *g->players);
    assert_non_null(g->players);
    g->n_players = n;
    for (size_t i = 0; i < n; i++) {
        int bot = seats[i][0] == '@';
        g->players[i].name = strdup(bot ? "Bot" : seats[i]);
        g->players[i].agent = strdup(bot ? seats[i] + 1 : "human");
    }
}
