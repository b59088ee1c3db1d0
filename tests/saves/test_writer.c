/*
 * test_writer.c — the journal's group commit and its writer thread
 * (saves/writer.c), on SQLite and (as test_saves_writer_pg) PostgreSQL:
 * actions of several games queued together are committed in one
 * transaction, counted by the store; a batch is all or nothing; a batch
 * the store refuses is answered entry by entry; what is queued when the
 * writer stops is written.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "saves_fixture.h"

#define GAMES 4

/* A store at a fresh place with GAMES games of no actions; their ids. */
static struct cas__saves *open_with_games(void **state, char *where, size_t cap,
                                          int64_t ids[GAMES])
{
    struct cas__saves *s = cas_test_open(cas_test_store_where(state, "saves.db", where, cap));
    for (int i = 0; i < GAMES; i++) {
        struct cas__saves_game g;
        cas_test_sample_game(&g, NULL, "Ada", "Bob", 0);
        assert_int_equal(cas__saves_game_insert(s, &g), CAS_OK);
        ids[i] = g.id;
        cas__saves_game_free(&g);
    }
    return s;
}

static struct cas__saves_entry *entry(int64_t game, uint32_t ply)
{
    char text[32];
    snprintf(text, sizeof text, "move %u", ply);
    struct cas__saves_entry *e =
        cas__saves_entry_new(game, ply, (int)(ply % 2), text, 1000u * ply + 7, 5000 - ply,
                             NULL);
    assert_non_null(e);
    return e;
}

static size_t actions_of(struct cas__saves *s, int64_t game)
{
    struct cas__saves_game g;
    assert_int_equal(cas__saves_game_load(s, game, 0, &g), CAS_OK);
    size_t n = g.n_actions;
    cas__saves_game_free(&g);
    return n;
}


/* Take n answers from w (waiting for them), in the order submitted. */
static struct cas__saves_entry *take(struct cas__saves_writer *w, size_t n)
{
    struct cas__saves_entry *all = NULL, **tail = &all;
    size_t got = 0;
    while (got < n) {
        *tail = cas__saves_writer_done(w, 1);
        while (*tail) {
            tail = &(*tail)->next;
            got++;
        }
    }
    assert_int_equal(got, n);
    return all;
}

static void test_a_batch_is_one_transaction(void **state)
{
    char where[512];
    int64_t ids[GAMES];
    struct cas__saves *s = open_with_games(state, where, sizeof where, ids);
    uint64_t before = cas__saves_journal_commits(s);
    struct cas__saves_entry *list = entry(ids[0], 0);
    list->next = entry(ids[1], 0);
    list->next->next = entry(ids[0], 1);
    assert_int_equal(cas__saves_append_batch(s, list), CAS_OK);
    assert_int_equal(cas__saves_journal_commits(s), before + 1);
    for (struct cas__saves_entry *e = list; e; e = e->next)
        assert_int_equal(e->rc, CAS_OK);
    cas__saves_entries_free(list);

    struct cas__saves_game g;
    assert_int_equal(cas__saves_game_load(s, ids[0], 1, &g), CAS_OK);
    assert_int_equal(g.n_actions, 2);
    assert_string_equal(g.actions[1].text, "move 1");
    assert_int_equal(g.actions[1].actor, 1);
    assert_true(g.actions[1].hash == 1007);
    assert_true(g.actions[1].has_clock && g.actions[1].clock_ms == 4999);
    cas__saves_game_free(&g);
    assert_int_equal(actions_of(s, ids[1]), 1);

    /* One entry the store refuses (a ply saved already): nothing of the
     * batch is committed. */
    list = entry(ids[2], 0);
    list->next = entry(ids[1], 0);
    assert_int_equal(cas__saves_append_batch(s, list), CAS_ECONFLICT);
    assert_int_equal(cas__saves_journal_commits(s), before + 1);
    assert_int_equal(list->rc, CAS_ECONFLICT);
    assert_int_equal(actions_of(s, ids[2]), 0);
    cas__saves_entries_free(list);
    cas__saves_close(s);
}

/* Actions of several games queued before the writer runs are committed in
 * one transaction: group commit, counted by the store. */
static void test_queued_actions_of_several_games_commit_together(void **state)
{
    char where[512], err[1024];
    int64_t ids[GAMES];
    struct cas__saves *s = open_with_games(state, where, sizeof where, ids);
    struct cas__saves_writer *w;
    assert_int_equal(cas__saves_writer_open(where, NULL, NULL, &w, err, sizeof err), CAS_OK);
    for (uint32_t ply = 0; ply < 2; ply++)
        for (int i = 0; i < GAMES; i++)
            cas__saves_writer_submit(w, entry(ids[i], ply));
    assert_int_equal(cas__saves_writer_commits(w), 0);
    assert_int_equal(cas__saves_writer_start(w), CAS_OK);
    struct cas__saves_entry *done = take(w, 2 * GAMES);
    assert_int_equal(cas__saves_writer_commits(w), 1);
    /* Answered in the order submitted, each durable. */
    size_t k = 0;
    for (struct cas__saves_entry *e = done; e; e = e->next, k++) {
        assert_int_equal(e->rc, CAS_OK);
        assert_null(e->err);
        assert_int_equal(e->game, ids[k % GAMES]);
        assert_int_equal(e->ply, k / GAMES);
    }
    cas__saves_entries_free(done);
    for (int i = 0; i < GAMES; i++)
        assert_int_equal(actions_of(s, ids[i]), 2);

    /* A lone action is not kept waiting for company: its own commit. */
    cas__saves_writer_submit(w, entry(ids[0], 2));
    done = take(w, 1);
    assert_int_equal(done->rc, CAS_OK);
    assert_int_equal(cas__saves_writer_commits(w), 2);
    cas__saves_entries_free(done);
    cas__saves_writer_stop(w);
    cas__saves_close(s);
}

/* A batch the store refuses is journaled entry by entry: the game whose
 * ply was saved already fails alone, with the store's words. */
static void test_a_refused_batch_is_answered_entry_by_entry(void **state)
{
    char where[512], err[1024];
    int64_t ids[GAMES];
    struct cas__saves *s = open_with_games(state, where, sizeof where, ids);
    assert_int_equal(cas__saves_append(s, ids[1], 0, 0, "move 0", 7), CAS_OK);
    struct cas__saves_writer *w;
    assert_int_equal(cas__saves_writer_open(where, NULL, NULL, &w, err, sizeof err), CAS_OK);
    cas__saves_writer_submit(w, entry(ids[0], 0));
    cas__saves_writer_submit(w, entry(ids[1], 0));
    cas__saves_writer_submit(w, entry(ids[2], 0));
    assert_int_equal(cas__saves_writer_start(w), CAS_OK);
    struct cas__saves_entry *done = take(w, 3);
    assert_int_equal(done->rc, CAS_OK);
    assert_int_equal(done->next->rc, CAS_ECONFLICT);
    assert_non_null(done->next->err);
    assert_non_null(strstr(done->next->err, "another castellan"));
    assert_int_equal(done->next->next->rc, CAS_OK);
    /* The two that went through, one transaction each. */
    assert_int_equal(cas__saves_writer_commits(w), 2);
    cas__saves_entries_free(done);
    assert_int_equal(actions_of(s, ids[0]), 1);
    assert_int_equal(actions_of(s, ids[2]), 1);
    cas__saves_writer_stop(w);
    cas__saves_close(s);
}

/* A batch sets each game's last-played time; a game removed since its
 * last batch is refused by the next, whose other games keep nothing of
 * it, even within the second its time was written. */
static void test_a_game_gone_since_its_last_batch_is_refused(void **state)
{
    char where[512];
    int64_t ids[GAMES];
    struct cas__saves *s = open_with_games(state, where, sizeof where, ids);
    struct cas__saves_entry *list = entry(ids[0], 0);
    list->next = entry(ids[1], 0);
    assert_int_equal(cas__saves_append_batch(s, list), CAS_OK);
    cas__saves_entries_free(list);
    struct cas__saves_game g;
    assert_int_equal(cas__saves_game_load(s, ids[0], 1, &g), CAS_OK);
    assert_non_null(g.updated_at);
    assert_int_equal(strlen(g.updated_at), strlen("2026-11-29T15:04:05Z"));
    assert_true(strcmp(g.updated_at, g.created_at) >= 0);
    cas__saves_game_free(&g);

    assert_int_equal(cas__saves_game_delete(s, ids[0]), CAS_OK);
    list = entry(ids[1], 1);
    list->next = entry(ids[0], 1);
    assert_int_not_equal(cas__saves_append_batch(s, list), CAS_OK);
    cas__saves_entries_free(list);
    assert_int_equal(actions_of(s, ids[1]), 1);
    assert_int_not_equal(cas__saves_append(s, ids[0], 1, 1, "move 1", 7), CAS_OK);
    cas__saves_close(s);
}

/* Actions journaled with an entry (more) share its batch's transaction
 * and are answered with it; in a batch the store refuses, they are
 * written in order after their entry, none after one that failed. */
static void test_actions_journaled_with_an_entry(void **state)
{
    char where[512], err[1024];
    int64_t ids[GAMES];
    struct cas__saves *s = open_with_games(state, where, sizeof where, ids);
    uint64_t before = cas__saves_journal_commits(s);
    struct cas__saves_entry *list = entry(ids[0], 0);
    list->more = entry(ids[0], 1);
    list->more->more = entry(ids[0], 2);
    list->next = entry(ids[1], 0);
    assert_int_equal(cas__saves_append_batch(s, list), CAS_OK);
    assert_int_equal(cas__saves_journal_commits(s), before + 1);
    assert_int_equal(list->more->more->rc, CAS_OK);
    assert_null(list->more->next);
    assert_int_equal(list->next->ply, 0);
    assert_null(list->next->next);
    cas__saves_entries_free(list);
    assert_int_equal(actions_of(s, ids[0]), 3);
    assert_int_equal(actions_of(s, ids[1]), 1);

    /* Game 2's ply 1 is saved already: its ply 0 goes through, 1 fails
     * and 2 is not written. */
    assert_int_equal(cas__saves_append(s, ids[2], 1, 1, "move 1", 7), CAS_OK);
    struct cas__saves_writer *w;
    assert_int_equal(cas__saves_writer_open(where, NULL, NULL, &w, err, sizeof err), CAS_OK);
    struct cas__saves_entry *e = entry(ids[2], 0);
    e->more = entry(ids[2], 1);
    e->more->more = entry(ids[2], 2);
    cas__saves_writer_submit(w, e);
    cas__saves_writer_submit(w, entry(ids[3], 0));
    assert_int_equal(cas__saves_writer_start(w), CAS_OK);
    struct cas__saves_entry *done = take(w, 2);
    assert_int_equal(done->rc, CAS_OK);
    assert_int_equal(done->more->rc, CAS_ECONFLICT);
    assert_int_equal(done->more->more->rc, CAS_ECONFLICT);
    assert_non_null(done->more->more->err);
    assert_int_equal(done->next->rc, CAS_OK);
    cas__saves_entries_free(done);
    cas__saves_writer_stop(w);
    struct cas__saves_game g;
    assert_int_equal(cas__saves_game_load(s, ids[2], 1, &g), CAS_OK);
    assert_int_equal(g.n_actions, 2);
    assert_int_equal(g.actions[1].ply, 1);
    cas__saves_game_free(&g);
    cas__saves_close(s);
}

/* Stopping writes whatever is queued: nothing handed over is lost. */
static void test_stopping_writes_what_is_queued(void **state)
{
    char where[512], err[1024];
    int64_t ids[GAMES];
    struct cas__saves *s = open_with_games(state, where, sizeof where, ids);
    struct cas__saves_writer *w;
    assert_int_equal(cas__saves_writer_open(where, NULL, NULL, &w, err, sizeof err), CAS_OK);
    assert_int_equal(cas__saves_writer_start(w), CAS_OK);
    for (uint32_t ply = 0; ply < 50; ply++)
        cas__saves_writer_submit(w, entry(ids[ply % GAMES], ply / GAMES));
    cas__saves_writer_stop(w);
    size_t total = 0;
    for (int i = 0; i < GAMES; i++)
        total += actions_of(s, ids[i]);
    assert_int_equal(total, 50);
    cas__saves_close(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CAS_TEST_IN_DIR(test_a_batch_is_one_transaction),
        CAS_TEST_IN_DIR(test_queued_actions_of_several_games_commit_together),
        CAS_TEST_IN_DIR(test_a_refused_batch_is_answered_entry_by_entry),
        CAS_TEST_IN_DIR(test_a_game_gone_since_its_last_batch_is_refused),
        CAS_TEST_IN_DIR(test_actions_journaled_with_an_entry),
        CAS_TEST_IN_DIR(test_stopping_writes_what_is_queued),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
