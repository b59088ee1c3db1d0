/*
 * test_crash_resume.c — nothing is lost when castellan is killed.
 *
 * A bot game is played by the real executable and killed with SIGKILL at a
 * random point, then resumed (and killed again) until it is finished, many
 * times over.  Half the kills come at a random moment; the others once the
 * journal has reached a random ply (the process is paused every 200 µs to
 * look, so the kill still lands at an arbitrary instruction), which makes
 * sure that many kills hit the middle of a game and not only start-up.  Every time the database must pass PRAGMA integrity_check and
 * the finished game must equal an uninterrupted game with the same seed:
 * the same actions by the same actors with the same hashes, the same scores.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "saves_fixture.h"

#ifndef CASTELLAN_EXE
#error "CASTELLAN_EXE must name the castellan executable"
#endif

/* The games played, with the rounds (games killed at least once) each. */
struct crash_game {
    const char *id;
    const char *rules;  /* the [rules] section, or "" */
    int rounds;
};

static const struct crash_game crash_games[] = {
    {"fixture", "[rules]\ncards = 20\nhand = 3\n", 25},
    /* Played only where the Carcassonne plugin is built. */
    {"carcassonne", "", 10},
};

#define MAX_KILLS 8        /* per game; then it may finish in peace */
#define MAX_ATTEMPTS 200   /* runs per game before giving up */

struct crash_run {
    struct cas_test_dir dir;
    char config[512], db[512];
    double reference_seconds; /* an uninterrupted run's wall time */
    size_t length;            /* actions in the whole game */
    uint64_t rng;
    int kills, kills_mid_game;
};

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* xorshift64*: the kill moments are reproducible from the test's seed. */
static double next_fraction(struct crash_run *c)
{
    c->rng ^= c->rng >> 12;
    c->rng ^= c->rng << 25;
    c->rng ^= c->rng >> 27;
    return (double)((c->rng * 2685821657736338717u) >> 11) / 9007199254740992.0;
}

static void write_config(struct crash_run *c, const struct crash_game *game)
{
    char text[2048];
    cas_test_dir_file(&c->dir, "saves.db", c->db, sizeof c->db);
    cas_test_dir_file(&c->dir, "session.ini", c->config, sizeof c->config);
    int len = snprintf(text, sizeof text,
                       "[session]\ngame = %s\nseed = 20261129\n%s"
                       "[player.1]\nname = Ada\nagent = random\n"
                       "[player.2]\nname = Bob\nagent = greedy\n"
                       "[player.3]\nname = Cy\nagent = random\n"
                       "[saves]\ndatabase = %s\ncampaign = crash\n", game->id,
                       game->rules, c->db);
    cas_test_write_file(c->config, text, (size_t)len);
}

/* Start castellan with args (NULL-terminated), output discarded. */
static pid_t spawn(char *const *args)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
        setenv("CASTELLAN_PLUGIN_PATH", CASTELLAN_PLUGIN_DIR, 1);
        execv(CASTELLAN_EXE, args);
        _exit(127);
    }
    return pid;
}

/* Run to completion; returns the exit status. */
static int run(char *const *args)
{
    int status;
    pid_t pid = spawn(args);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    return WEXITSTATUS(status);
}

/* Reap pid after a kill or its end: 1 if it was killed, 0 if it ended
 * (with exit status 0). */
static int reap(pid_t pid)
{
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status))
        return 1;
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    return 0;
}

/* Run, but SIGKILL it after `delay` seconds unless it ended first.
 * Returns 1 if it was killed, 0 if it finished. */
static int kill_after(char *const *args, double delay)
{
    pid_t pid = spawn(args);
    struct timespec t = {(time_t)delay, (long)((delay - (double)(time_t)delay) * 1e9)};
    nanosleep(&t, NULL);
    kill(pid, SIGKILL);
    return reap(pid);
}

/* Actions journaled so far, read beside the writer on connection h; -1 if
 * unknown (no schema yet, or busy). */
static long long journaled(sqlite3 *h)
{
    sqlite3_stmt *st = NULL;
    long long n = -1;
    if (sqlite3_prepare_v2(h, "SELECT count(*) FROM actions;", -1, &st, NULL) == SQLITE_OK &&
        sqlite3_step(st) == SQLITE_ROW)
        n = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    return n;
}

/* Run, pausing it every 300 µs to count the journaled actions, and SIGKILL
 * it (paused, wherever it was) once there are at least `ply`.  Returns 1 if
 * it was killed, 0 if it finished first. */
static int kill_at_ply(char *const *args, const char *db, long long ply)
{
    const struct timespec slice = {0, 300000};
    sqlite3 *h;
    int killed = -1;
    assert_int_equal(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    pid_t pid = spawn(args);
    while (killed < 0) {
        int status;
        nanosleep(&slice, NULL);
        kill(pid, SIGSTOP);
        assert_int_equal(waitpid(pid, &status, WUNTRACED), pid);
        if (!WIFSTOPPED(status)) {
            assert_true(WIFEXITED(status));
            assert_int_equal(WEXITSTATUS(status), 0);
            killed = 0;
        } else if (journaled(h) >= ply) {
            kill(pid, SIGKILL);
            kill(pid, SIGCONT);
            killed = reap(pid);
        } else {
            kill(pid, SIGCONT);
        }
    }
    sqlite3_close(h);
    return killed;
}

/* The one game in the store at db, or 0 actions and status playing when
 * the kill came before the game was saved.  *saved tells which. */
static void load_game(const char *db, struct cas__saves_game *g, int *saved)
{
    struct cas__saves *s = cas_test_open(db);
    int64_t *ids;
    size_t n;
    assert_int_equal(cas__saves_game_ids(s, NULL, &ids, &n), CAS_OK);
    assert_true(n <= 1);
    *saved = n == 1;
    memset(g, 0, sizeof *g);
    if (n == 1)
        assert_int_equal(cas__saves_game_load(s, ids[0], 1, g), CAS_OK);
    assert_int_equal(cas__saves_integrity_check(s), CAS_OK);
    free(ids);
    cas__saves_close(s);
}

static int db_exists(const char *db)
{
    return access(db, F_OK) == 0;
}

/* An empty store, so that the runs' time goes to the game itself and the
 * kills land in the middle of it. */
static void create_db(struct crash_run *c)
{
    cas__saves_close(cas_test_open(c->db));
}

static void remove_db(const char *db)
{
    char side[600];
    unlink(db);
    snprintf(side, sizeof side, "%s-wal", db);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", db);
    unlink(side);
}

/* Kill a run at a random moment or at a random ply after `from`. */
static int run_and_kill(struct crash_run *c, char *const *args, size_t from)
{
    if (next_fraction(c) < 0.5)
        return kill_after(args, 2 * c->reference_seconds * next_fraction(c));
    size_t span = c->length - from;
    return kill_at_ply(args, c->db, (long long)(from + 1 + (size_t)(next_fraction(c) * (double)span)));
}

/* Play one game to its end through kills and resumes. */
static void crash_one_game(struct crash_run *c, const struct cas__saves_game *expected)
{
    char *play[] = {CASTELLAN_EXE, "play", "--config", c->config, NULL};
    char *resume[] = {CASTELLAN_EXE, "resume", "1", "--database", c->db, NULL};
    int killed_once = 0, game_kills = 0;
    for (int attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        struct cas__saves_game g = {0};
        int saved = 0;
        if (db_exists(c->db))
            load_game(c->db, &g, &saved);
        if (saved && g.status == CAS__SAVES_FINISHED && killed_once) {
            cas_test_assert_same_game(expected, &g);
            cas__saves_game_free(&g);
            return;
        }
        if (saved && g.n_actions > 0 && g.n_actions < expected->n_actions)
            c->kills_mid_game++;
        size_t from = g.n_actions;
        cas__saves_game_free(&g);
        char *const *args = saved ? resume : play;
        int killed = 0;
        if (game_kills < MAX_KILLS)
            killed = run_and_kill(c, args, from);
        else
            assert_int_equal(run(args), 0);
        game_kills += killed;
        c->kills += killed;
        killed_once |= killed;
        if (!killed_once) { /* it finished before the kill: play it again */
            remove_db(c->db);
            create_db(c);
        }
    }
    fail_msg("the game did not finish after %d runs", MAX_ATTEMPTS);
}

/* Kill and resume `game` through its rounds. */
static void crash_rounds(struct crash_run *c, const struct crash_game *game)
{
    /* The uninterrupted game, timed. */
    write_config(c, game);
    remove_db(c->db);
    create_db(c);
    char *play[] = {CASTELLAN_EXE, "play", "--config", c->config, NULL};
    double start = now_seconds();
    assert_int_equal(run(play), 0);
    c->reference_seconds = now_seconds() - start;
    struct cas__saves_game expected;
    int saved;
    load_game(c->db, &expected, &saved);
    assert_true(saved);
    assert_int_equal(expected.status, CAS__SAVES_FINISHED);
    assert_true(expected.n_actions > 50);
    c->length = expected.n_actions;
    c->kills = c->kills_mid_game = 0;

    for (int round = 0; round < game->rounds; round++) {
        remove_db(c->db);
        create_db(c);
        crash_one_game(c, &expected);
    }
    print_message("%s: %d kills, %d of them left a game half-journaled (%zu actions "
                  "per game, %.1f ms per uninterrupted run)\n", game->id, c->kills,
                  c->kills_mid_game, expected.n_actions, c->reference_seconds * 1e3);
    assert_true(c->kills >= game->rounds);
    assert_true(c->kills_mid_game >= game->rounds / 2);
    cas__saves_game_free(&expected);
}

static void test_killed_games_resume_to_the_same_end(void **state)
{
    struct crash_run *c = calloc(1, sizeof *c);
    assert_non_null(c);
    c->dir = *(struct cas_test_dir *)*state;
    c->rng = 0x5eed5eed12345678u;
    for (size_t i = 0; i < sizeof crash_games / sizeof crash_games[0]; i++) {
        char manifest[1024];
        snprintf(manifest, sizeof manifest, "%s/%s/%s.ini", CASTELLAN_PLUGIN_DIR,
                 crash_games[i].id, crash_games[i].id);
        if (access(manifest, R_OK) == 0)
            crash_rounds(c, &crash_games[i]);
    }
    free(c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CAS_TEST_IN_DIR(test_killed_games_resume_to_the_same_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
