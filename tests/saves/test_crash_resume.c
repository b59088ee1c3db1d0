/*
 * test_crash_resume.c — nothing is lost when castellan is killed.
 *
 * Bot games are played by castellan-faults (the castellan executable with
 * tests/support/faults.c linked in), which SIGKILLs itself at a point the
 * test names in CASTELLAN_FAULT: just before a chosen change to the store's
 * files (a write, truncation, deletion, link or unlink) in a chosen phase of
 * the store's work, or at the end of that phase.  The files a kill leaves do
 * not depend on when between two changes it lands, so these points stand
 * for every moment a kill can come, with no clock involved: every run kills
 * at the same points.
 *
 * For each game, one chain of kills and resumes goes through every point of
 * the store's creation and of the game's first save, every point of the
 * commits of a seeded sample of actions (the first and the last among them),
 * and every point of the final result's commit; then every point of the
 * store's closing after a whole game.  After every kill the store must pass
 * PRAGMA integrity_check and hold a prefix of the uninterrupted game (the
 * same actions by the same actors with the same hashes), having lost at most
 * the one action whose commit was cut; at the end it must hold exactly the
 * uninterrupted game, scores included.
 *
 * Run as test_saves_crash_resume_pg, the same chains kill castellan while
 * it journals into PostgreSQL (CASTELLAN_TEST_PG names the test cluster):
 * there a phase's changes are its commits, each killed just before it is
 * sent, and an action's commit also just after (the server then finishes
 * it alone: the action may be saved or lost, never half).  Before looking,
 * the test waits until the killed castellan's server process is gone, so
 * what it sees is final.  Closing a connection changes nothing stored.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <libpq-fe.h>
#include <time.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "saves_fixture.h"

#ifndef CASTELLAN_EXE
#error "CASTELLAN_EXE must name the castellan executable"
#endif
#ifndef CASTELLAN_FAULTS_EXE
#error "CASTELLAN_FAULTS_EXE must name the castellan-faults executable"
#endif

struct crash_game {
    const char *id;
    const char *session; /* extra [session] lines */
    const char *rules;   /* the [rules] section, or "" */
    int players;
};

static const struct crash_game crash_games[] = {
    {"fixture", "", "[rules]\ncards = 20\nhand = 3\n", 3},
    {"carcassonne", "expansions = inns-cathedrals, traders-builders\n", "", 3},
    {"castles-cards", "", "", 2},
};

/* Actions whose commit is cut at every point, besides the first and last. */
#define SAMPLED_ACTIONS 6
/* More changes than any phase of these games makes: a loop that reaches it
 * never saw the phase end. */
#define MAX_CHANGES 4096

/* How the kills went, for the summary line. */
struct crash_tally {
    int kills, in_create, in_start, in_append, in_finish, in_close;
    int lost_in_flight; /* a cut commit lost its action */
};

struct crash_run {
    const struct crash_game *game;
    struct cas_test_dir dir;
    char config[512], db[512], log[512];
    struct cas__saves_game expected;
    uint64_t rng;
    struct crash_tally tally;
};

/* What a kill left in the store. */
struct crash_state {
    int exists;     /* the store file is there */
    int saved;      /* it holds the game */
    int64_t id;
    size_t n_actions;
    enum cas__saves_status status;
};

/* xorshift64*: the sampled actions are reproducible from the seed. */
static uint64_t next_random(struct crash_run *c)
{
    c->rng ^= c->rng >> 12;
    c->rng ^= c->rng << 25;
    c->rng ^= c->rng >> 27;
    return c->rng * 2685821657736338717u;
}

static void write_config(struct crash_run *c)
{
    static const char *const names[] = {"Ada", "Bob", "Cy"};
    static const char *const agents[] = {"random", "greedy", "random"};
    char text[2048];
    int len = snprintf(text, sizeof text, "[session]\ngame = %s\nseed = 20261129\n%s%s",
                       c->game->id, c->game->session, c->game->rules);
    for (int i = 0; i < c->game->players; i++)
        len += snprintf(text + len, sizeof text - (size_t)len,
                        "[player.%d]\nname = %s\nagent = %s\n", i + 1, names[i], agents[i]);
    len += snprintf(text + len, sizeof text - (size_t)len,
                    "[saves]\ndatabase = %s\ncampaign = crash\n", c->db);
    cas_test_write_file(c->config, text, (size_t)len);
}

/* Run exe with args (NULL-terminated) and CASTELLAN_FAULT=fault unless
 * NULL; stdout is discarded, stderr goes to c->log.  The wait status. */
static int run_exe(struct crash_run *c, const char *exe, char *const *args,
                   const char *fault)
{
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        int log = open(c->log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(null, STDIN_FILENO);
        dup2(null, STDOUT_FILENO);
        dup2(log, STDERR_FILENO);
        setenv("CASTELLAN_PLUGIN_PATH", CASTELLAN_PLUGIN_DIR, 1);
        if (fault)
            setenv("CASTELLAN_FAULT", fault, 1);
        execv(exe, args);
        _exit(127);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return status;
}

/* The last line castellan-faults wrote before it died. */
static void read_kill_line(const struct crash_run *c, char *line, size_t cap)
{
    FILE *f = fopen(c->log, "r");
    char buf[512];
    assert_non_null(f);
    line[0] = '\0';
    while (fgets(buf, sizeof buf, f))
        if (strncmp(buf, "castellan-faults: ", 18) == 0)
            snprintf(line, cap, "%s", buf);
    fclose(f);
    line[strcspn(line, "\n")] = '\0';
}

/* Run castellan-faults killing itself before change k (k >= 1) of the n-th
 * occurrence of phase, or at its end; it must die there.  1 when it died
 * before change k, 0 when at the end (the phase made fewer changes). */
static int kill_at(struct crash_run *c, char *const *args, const char *phase,
                   size_t n, unsigned k)
{
    char fault[96], line[512], before[160], at_end[160];
    snprintf(fault, sizeof fault, "kill:%s:%zu:%u", phase, n, k);
    int status = run_exe(c, CASTELLAN_FAULTS_EXE, args, fault);
    read_kill_line(c, line, sizeof line);
    if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL)
        fail_msg("%s: CASTELLAN_FAULT=%s did not kill it (wait status 0x%x, said "
                 "\"%s\")", c->game->id, fault, (unsigned)status, line);
    c->tally.kills++;
    snprintf(before, sizeof before, "castellan-faults: SIGKILL in %s %zu before change %u",
             phase, n, k);
    snprintf(at_end, sizeof at_end, "castellan-faults: SIGKILL at the end of %s %zu",
             phase, n);
    if (strcmp(line, before) == 0)
        return 1;
    if (strcmp(line, at_end) != 0)
        fail_msg("%s: CASTELLAN_FAULT=%s died saying \"%s\"", c->game->id, fault, line);
    return 0;
}

/* Run sql on a connection of its own to the test database url. */
static PGresult *pg_exec(const char *url, const char *sql)
{
    PGconn *conn = PQconnectdb(url);
    if (PQstatus(conn) != CONNECTION_OK)
        fail_msg("%s: %s", url, PQerrorMessage(conn));
    PQclear(PQexec(conn, "SET client_min_messages = warning"));
    PGresult *r = PQexec(conn, sql);
    if (PQresultStatus(r) != PGRES_COMMAND_OK && PQresultStatus(r) != PGRES_TUPLES_OK)
        fail_msg("%s: %s", sql, PQerrorMessage(conn));
    PQfinish(conn);
    return r;
}

/* Wait until no server process serves the database but ours: a killed
 * castellan's one finishes what it was sent, then notices and exits. */
static void pg_wait_for_the_dead(const char *url)
{
    const struct timespec pause = {0, 5 * 1000 * 1000};
    for (int tries = 0; tries < 12000; tries++) {
        PGresult *r = pg_exec(url, "SELECT count(*) FROM pg_stat_activity WHERE datname ="
                              " current_database() AND pid <> pg_backend_pid()");
        int others = atoi(PQgetvalue(r, 0, 0));
        PQclear(r);
        if (others == 0)
            return;
        nanosleep(&pause, NULL);
    }
    fail_msg("%s: a killed castellan's server process did not end in a minute", url);
}

/* The store is there: the file, or the schema in the database. */
static int store_exists(const char *db)
{
    if (!cas_test_on_pg())
        return access(db, F_OK) == 0;
    pg_wait_for_the_dead(db);
    PGresult *r = pg_exec(db, "SELECT to_regclass('schema_version') IS NOT NULL");
    int exists = strcmp(PQgetvalue(r, 0, 0), "t") == 0;
    PQclear(r);
    return exists;
}

/* The store as the kill left it, checked: it passes integrity_check and
 * holds at most one game, a prefix of the expected one. */
static void observe(struct crash_run *c, struct crash_state *st)
{
    memset(st, 0, sizeof *st);
    st->exists = store_exists(c->db);
    if (!st->exists)
        return;
    struct cas__saves *s = cas_test_open(c->db);
    int64_t *ids;
    size_t n;
    assert_int_equal(cas__saves_integrity_check(s), CAS_OK);
    assert_int_equal(cas__saves_game_ids(s, NULL, &ids, &n), CAS_OK);
    assert_true(n <= 1);
    st->saved = n == 1;
    if (st->saved) {
        struct cas__saves_game g;
        const struct cas__saves_game *e = &c->expected;
        assert_int_equal(cas__saves_game_load(s, ids[0], 1, &g), CAS_OK);
        assert_true(g.n_actions <= e->n_actions);
        for (size_t i = 0; i < g.n_actions; i++) {
            assert_int_equal(g.actions[i].ply, e->actions[i].ply);
            assert_int_equal(g.actions[i].actor, e->actions[i].actor);
            assert_string_equal(g.actions[i].text, e->actions[i].text);
            assert_true(g.actions[i].hash == e->actions[i].hash);
        }
        if (g.status == CAS__SAVES_FINISHED)
            cas_test_assert_same_game(e, &g);
        st->id = ids[0];
        st->n_actions = g.n_actions;
        st->status = g.status;
        cas__saves_game_free(&g);
    }
    free(ids);
    cas__saves_close(s);
}

static void remove_db(const char *db)
{
    static const char *const sides[] = {"", "-wal", "-shm", "-journal"};
    char path[600];
    if (cas_test_on_pg()) {
        pg_wait_for_the_dead(db);
        PQclear(pg_exec(db, "DROP SCHEMA public CASCADE; CREATE SCHEMA public"));
        return;
    }
    for (size_t i = 0; i < sizeof sides / sizeof sides[0]; i++) {
        snprintf(path, sizeof path, "%s%s", db, sides[i]);
        unlink(path);
    }
}

/* How many private files (saves.db.new-PID, with any -wal, -shm or
 * -journal) of killed creations are left in the folder: the creation that
 * came after them must have swept them all. */
static int count_leftovers(const struct crash_run *c)
{
    if (cas_test_on_pg())
        return 0; /* no files */
    DIR *d = opendir(c->dir.path);
    struct dirent *e;
    int n = 0;
    assert_non_null(d);
    while ((e = readdir(d)))
        if (strncmp(e->d_name, "saves.db.new-", 13) == 0) {
            print_message("left behind: %s/%s\n", c->dir.path, e->d_name);
            n++;
        }
    closedir(d);
    return n;
}

/* ------------------------------------------------------------ the chain */

/* Every point of the store's creation.  A kill between linking the new
 * store into place and removing its private name leaves a whole empty
 * store: it is removed so the chain reaches the next point. */
static void kill_in_creation(struct crash_run *c, char *const *play)
{
    struct crash_state st;
    remove_db(c->db);
    for (unsigned k = 1; k < MAX_CHANGES; k++) {
        int before = kill_at(c, play, "create", 1, k);
        observe(c, &st);
        assert_false(st.saved);
        if (!before) {
            assert_true(st.exists);
            return;
        }
        c->tally.in_create++;
        if (st.exists)
            remove_db(c->db);
    }
    fail_msg("%s: the store's creation never ended", c->game->id);
}

/* Every point of the first save of the game's header. */
static void kill_in_start(struct crash_run *c, char *const *play)
{
    struct crash_state st;
    for (unsigned k = 1; k < MAX_CHANGES; k++) {
        int before = kill_at(c, play, "start", 1, k);
        observe(c, &st);
        assert_true(st.exists);
        if (!before) {
            assert_true(st.saved);
            assert_int_equal(st.n_actions, 0);
            return;
        }
        c->tally.in_start++;
        assert_false(st.saved);
    }
    fail_msg("%s: saving the game's header never ended", c->game->id);
}

/* Every point of the commit of action `ply` (1-based), resuming from
 * *saved actions; a kill before the commit's end may lose that action,
 * never more, and never one already committed. */
static void kill_in_append(struct crash_run *c, char *const *resume, size_t ply,
                           size_t *saved)
{
    struct crash_state st;
    for (unsigned k = 1; k < MAX_CHANGES; k++) {
        int before = kill_at(c, resume, "append", ply - *saved, k);
        observe(c, &st);
        assert_true(st.saved);
        assert_int_equal(st.status, CAS__SAVES_PLAYING);
        if (!before) {
            assert_int_equal(st.n_actions, ply);
            *saved = ply;
            return;
        }
        c->tally.in_append++;
        if (st.n_actions == ply) { /* the server finished the commit it was sent */
            *saved = ply;
            return;
        }
        assert_int_equal(st.n_actions, ply - 1);
        c->tally.lost_in_flight++;
        *saved = st.n_actions;
    }
    fail_msg("%s: the commit of action %zu never ended", c->game->id, ply);
}

/* Every point of the commit of the result, resuming the whole journal. */
static void kill_in_finish(struct crash_run *c, char *const *resume)
{
    struct crash_state st;
    for (unsigned k = 1; k < MAX_CHANGES; k++) {
        int before = kill_at(c, resume, "finish", 1, k);
        observe(c, &st);
        assert_int_equal(st.n_actions, c->expected.n_actions);
        if (!before) {
            assert_int_equal(st.status, CAS__SAVES_FINISHED);
            return;
        }
        c->tally.in_finish++;
        assert_int_equal(st.status, CAS__SAVES_PLAYING);
    }
    fail_msg("%s: the commit of the result never ended", c->game->id);
}

/* Every point of closing the store after a whole game, which copies the
 * WAL into the database: the finished game must survive each. */
static void kill_in_close(struct crash_run *c, char *const *play)
{
    struct crash_state st;
    for (unsigned k = 1; k < MAX_CHANGES; k++) {
        remove_db(c->db);
        int before = kill_at(c, play, "close", 1, k);
        observe(c, &st);
        assert_true(st.saved);
        assert_int_equal(st.status, CAS__SAVES_FINISHED);
        if (!before)
            return;
        c->tally.in_close++;
    }
    fail_msg("%s: closing the store never ended", c->game->id);
}

/* The plies whose commits are cut: 1, the last, and a seeded sample of
 * others, ascending and distinct; returns how many. */
static size_t sample_plies(struct crash_run *c, size_t *plies)
{
    size_t n = 0, length = c->expected.n_actions;
    plies[n++] = 1;
    while (n < SAMPLED_ACTIONS + 1) {
        size_t ply = 2 + (size_t)(next_random(c) % (length - 2));
        size_t i = n;
        while (i > 1 && plies[i - 1] > ply)
            i--;
        if (plies[i - 1] == ply)
            continue;
        memmove(plies + i + 1, plies + i, (n - i) * sizeof *plies);
        plies[i] = ply;
        n++;
    }
    plies[n++] = length;
    return n;
}

static void crash_game(struct crash_run *c)
{
    char *play[] = {CASTELLAN_EXE, "play", "--config", c->config, NULL};
    char id[32];
    char *resume[] = {CASTELLAN_EXE, "resume", id, "--database", c->db, NULL};
    struct crash_state st;
    size_t plies[SAMPLED_ACTIONS + 2];

    /* The uninterrupted game, by castellan itself. */
    write_config(c);
    remove_db(c->db);
    int status = run_exe(c, CASTELLAN_EXE, play, NULL);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    struct cas__saves *s = cas_test_open(c->db);
    assert_int_equal(cas__saves_game_load(s, 1, 1, &c->expected), CAS_OK);
    cas__saves_close(s);
    assert_int_equal(c->expected.status, CAS__SAVES_FINISHED);
    assert_true(c->expected.n_actions > SAMPLED_ACTIONS + 2);

    kill_in_creation(c, play);
    kill_in_start(c, play);
    observe(c, &st);
    snprintf(id, sizeof id, "%lld", (long long)st.id);
    size_t n = sample_plies(c, plies), saved = 0;
    for (size_t i = 0; i < n; i++)
        kill_in_append(c, resume, plies[i], &saved);
    kill_in_finish(c, resume);
    observe(c, &st);
    assert_int_equal(st.status, CAS__SAVES_FINISHED);
    assert_int_equal(count_leftovers(c), 0);
    kill_in_close(c, play);

    const struct crash_tally *t = &c->tally;
    print_message("%s: %zu actions; %d kills: %d in creation, %d in the first save, %d in %zu commits of actions "
                  "(%d lost that action), %d in the result's commit, %d in "
                  "closing\n", c->game->id, c->expected.n_actions, t->kills,
                  t->in_create, t->in_start, t->in_append, n,
                  t->lost_in_flight, t->in_finish, t->in_close);
    assert_true(t->in_create > 0 && t->in_start > 0 && t->in_finish > 0 &&
                (t->in_close > 0 || cas_test_on_pg()));
    assert_true(t->lost_in_flight >= (int)n);
    cas__saves_game_free(&c->expected);
}

static void test_killed_games_resume_to_the_same_end(void **state)
{
    for (size_t i = 0; i < sizeof crash_games / sizeof crash_games[0]; i++) {
        struct crash_run *c = calloc(1, sizeof *c);
        assert_non_null(c);
        c->game = &crash_games[i];
        c->dir = *(struct cas_test_dir *)*state;
        c->rng = 0x5eed5eed12345678u + i;
        cas_test_store_where(state, "saves.db", c->db, sizeof c->db);
        cas_test_dir_file(&c->dir, "session.ini", c->config, sizeof c->config);
        cas_test_dir_file(&c->dir, "stderr.txt", c->log, sizeof c->log);
        crash_game(c);
        free(c);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        CAS_TEST_IN_DIR(test_killed_games_resume_to_the_same_end),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
