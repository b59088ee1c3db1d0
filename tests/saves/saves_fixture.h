/*
 * saves_fixture.h — shared helpers for the tests of saves/: a private
 * temporary folder per test, a sample game, and a fingerprint of a file's
 * bytes and mtime to prove a refused file was left alone.
 */
#ifndef CAS_TEST_SAVES_FIXTURE_H
#define CAS_TEST_SAVES_FIXTURE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "saves.h"

struct cas_test_dir {
    char path[256];
};

/* Create a fresh folder under $TMPDIR (or /tmp); fails the test on error. */
void cas_test_dir_make(struct cas_test_dir *d);
/* Remove it and everything in it. */
void cas_test_dir_remove(struct cas_test_dir *d);
/* cmocka setup/teardown giving each test its own folder in *state. */
int cas_test_dir_setup(void **state);
int cas_test_dir_teardown(void **state);
#define CAS_TEST_IN_DIR(test) \
    cmocka_unit_test_setup_teardown(test, cas_test_dir_setup, cas_test_dir_teardown)
/* DIR/name into buf. */
const char *cas_test_dir_file(const struct cas_test_dir *d, const char *name,
                              char *buf, size_t cap);

/* A game with two players, one expansion, one option and n_actions actions
 * ("move K" by alternating actors, hash K * 0x9e3779b97f4a7c15).  The
 * campaign and names are copied.  Free with cas__saves_game_free. */
void cas_test_sample_game(struct cas__saves_game *g, const char *campaign,
                          const char *name1, const char *name2, size_t n_actions);

/* Seat g's players as seats[0..n): "Name" a person, "@agent" a bot (named
 * "Bot"), in place of the players it had. */
void cas_test_seat_players(struct cas__saves_game *g, const char *const *seats, size_t n);

/* Open the store at path or fail the test with the store's message. */
struct cas__saves *cas_test_open(const char *path);

/* A file's whole content and mtime. */
struct cas_test_file_print {
    unsigned char *bytes;
    size_t len;
    struct timespec mtime;
};
void cas_test_file_print(const char *path, struct cas_test_file_print *out);
/* Assert the file still has exactly this content and mtime; frees fp. */
void cas_test_file_unchanged(const char *path, struct cas_test_file_print *fp);

/* Write len bytes to path (created or truncated). */
void cas_test_write_file(const char *path, const void *bytes, size_t len);

/* One integer from a query on a plain connection to the store at path
 * (read-only SQLite, or PostgreSQL for a URL). */
long long cas_test_query_int(const char *path, const char *sql);

/* Where a test's store goes: a new, empty PostgreSQL database on the test
 * cluster when CASTELLAN_TEST_PG names it (the `pg` CTest fixture sets it
 * for the tests run on both backends), else the file `name` in the test's
 * folder.  Into buf; returns buf. */
const char *cas_test_store_where(void **state, const char *name, char *buf, size_t cap);
/* 1 when the tests run against PostgreSQL (CASTELLAN_TEST_PG is set). */
int cas_test_on_pg(void);
/* In a test only for PostgreSQL: skip it, saying why, without the cluster. */
#define CAS_TEST_NEED_PG()                                                     \
    do {                                                                       \
        if (!cas_test_on_pg()) {                                               \
            print_message("CASTELLAN_TEST_PG is not set: skipped; ctest starts " \
                          "the PostgreSQL test cluster (Debian's postgresql)\n"); \
            skip();                                                            \
        }                                                                      \
    } while (0)
/* A new empty database on the test cluster; its URL into buf. */
const char *cas_test_pg_database(char *buf, size_t cap);

/* Assert p is the seat of `name` taken by registered player `registered`
 * (NULL: by none), as a game load or the results read it. */
void cas_test_assert_player(const struct cas__saves_player *p, const char *name,
                            const char *registered);

/* The pid of the PostgreSQL backend holding the claim on game id in the
 * database of url, or 0 for none: who plays the game.  Other tests on the
 * cluster have games of the same ids, in their own databases. */
long long cas_test_claim_holder(const char *url, int64_t id);

/* Load game id (its actions too) from s into *g, asserting that it is
 * finished with n_actions actions; free *g with cas__saves_game_free. */
void cas_test_load_finished(struct cas__saves *s, int64_t id, size_t n_actions,
                            struct cas__saves_game *g);

/* Assert two games hold the same header, players and actions. */
void cas_test_assert_same_game(const struct cas__saves_game *a,
                               const struct cas__saves_game *b);

#endif
