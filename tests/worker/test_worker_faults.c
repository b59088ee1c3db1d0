/*
 * test_worker_faults.c — castellan against plugins that crash, loop,
 * exhaust their memory or try a forbidden system call at their 6th apply
 * (rogue.c), run in a worker as plugins from outside the build's plugin
 * folder are: each is reported in one exact line naming the fault, the
 * call and the ply, exit status 1, and the save holds the 5 plies before,
 * replays and resumes (to the same fault).  No timing: the loop is caught
 * by a deadline it can never meet.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

struct run {
    int status;
    char out[1 << 16], err[1 << 14];
};

static void slurp(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, cap - 1, f) : 0;
    buf[n] = '\0';
    if (f)
        fclose(f);
}

/* Run castellan with args (shell words) and env (assignments, or ""). */
static void run_env(struct run *r, const char *env, const char *args);

/* Run castellan with args (shell words); its exit status and output. */
static void run(struct run *r, const char *args)
{
    run_env(r, "", args);
}

static void run_env(struct run *r, const char *env, const char *args)
{
    char command[4096];
    const char *asan = getenv("ASAN_OPTIONS");
    /* A crash must reach the host as the signal it is, not as a report
     * the sanitizer would try (and, sandboxed, fail) to write.  Wide
     * COLUMNS: bench fits its rows to the width, and where a row wraps
     * would follow how many digits the measured figures have. */
    snprintf(command, sizeof command,
             "COLUMNS=1000 ASAN_OPTIONS='%s:handle_segv=0:handle_abort=0' %s %s %s "
             "> faults.out 2> faults.err < /dev/null",
             asan ? asan : "", env, CASTELLAN_EXE, args);
    int status = system(command);
    assert_true(WIFEXITED(status));
    r->status = WEXITSTATUS(status);
    slurp("faults.out", r->out, sizeof r->out);
    slurp("faults.err", r->err, sizeof r->err);
}

/* A session file for a game of `game` between two random bots, saved in
 * a fresh database DB (the file name game.db). */
static void write_session(const char *game, const char *extra)
{
    char path[256], db[256];
    snprintf(path, sizeof path, "%s.ini", game);
    snprintf(db, sizeof db, "%s.db", game);
    for (const char *suffix = ""; suffix; suffix = *suffix ? (*suffix == '-' &&
                                                              suffix[1] == 'w' ? "-shm" : NULL)
                                                           : "-wal") {
        char file[300];
        snprintf(file, sizeof file, "%s%s", db, suffix);
        unlink(file);
    }
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fprintf(f, "[session]\ngame = %s\nseed = 7\n%s\n[player.1]\nagent = random\n"
               "[player.2]\nagent = random\n[saves]\ndatabase = %s\n",
            game, extra, db);
    fclose(f);
}

/* play of a session of `game` (write_session's, with extra) from the
 * plugin folder `path`, with env, into r. */
static void play_session(struct run *r, const char *game, const char *extra, const char *env,
                         const char *path)
{
    char args[1024];
    write_session(game, extra);
    snprintf(args, sizeof args, "play --config %s.ini --plugin-path %s", game, path);
    run_env(r, env, args);
}

/* r is command's report of `fault` of game at ply 6, exit status 1. */
static void expect_fault(const struct run *r, const char *command, const char *game,
                         const char *fault)
{
    char expected[1024];
    snprintf(expected, sizeof expected,
             "castellan %s: plugin %s %s at ply 6; the game is saved up to ply 5; "
             "resume with: castellan resume 1\n", command, game, fault);
    assert_string_equal(r->err, expected);
    assert_int_equal(r->status, 1);
}

/* play, then resume, of rogue-NAME end with `fault` ("HOW in CALL") at
 * ply 6, the game saved up to ply 5 and replayable. */
static void check_fault_in(const char *game, const char *extra, const char *fault);

static void check_fault(const char *game, const char *extra, const char *fault)
{
    char in_apply[512];
    snprintf(in_apply, sizeof in_apply, "%s in apply", fault);
    check_fault_in(game, extra, in_apply);
}

static void check_fault_in(const char *game, const char *extra, const char *fault)
{
    struct run *r = malloc(sizeof *r);
    char args[1024];
    assert_non_null(r);
    /* Every call but a hang's own must finish within its deadline however
     * busy the machine: only the hang test sets one a call can miss. */
    write_session(game, *extra ? extra : "plugin-deadline-ms = 600000");
    snprintf(args, sizeof args, "play --config %s.ini --plugin-path %s", game,
             ROGUE_PLUGIN_DIR);
    run(r, args);
    expect_fault(r, "play", game, fault);
    /* what was printed before the fault is not lost */
    assert_non_null(strstr(r->out, "seed 7\nPlayer 1 as Red"));
    assert_non_null(strstr(r->out, "  Blue draws a card\n"));

    snprintf(args, sizeof args, "saves list --database %s.db", game);
    run(r, args);
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "\n    1  playing       5  "));

    snprintf(args, sizeof args, "replay 1 --database %s.db --plugin-path %s", game,
             ROGUE_PLUGIN_DIR);
    run(r, args);
    assert_int_equal(r->status, 0);

    snprintf(args, sizeof args, "resume 1 --database %s.db --plugin-path %s%s", game,
             ROGUE_PLUGIN_DIR,
             *extra ? " --plugin-deadline 4000" : " --plugin-deadline 600000");
    run(r, args);
    expect_fault(r, "resume", game, fault);
    free(r);
}

static void test_crash(void **unused)
{
    (void)unused;
    check_fault("rogue-crash", "", "crashed (signal 11)");
}

/* The deadline from the session file (play) and from the flag (resume). */
static void test_hang(void **unused)
{
    (void)unused;
    check_fault("rogue-loop", "plugin-deadline-ms = 4000",
                "hung (no answer within 4000 ms)");
}

static void test_forbidden_system_call(void **unused)
{
    (void)unused;
    check_fault("rogue-escape", "",
                "was stopped by its sandbox (signal 31: a forbidden system call)");
}

static void test_memory_blow_up(void **unused)
{
    (void)unused;
#ifdef ROGUE_NO_HOG
    skip();
#else
    check_fault("rogue-hog", "", "crashed (signal 6)");
#endif
}

/* D1: a seat out of range from current(), in a worker or in process,
 * ends play and resume with the violation named, the game resumable. */
static void test_bad_seat(void **unused)
{
    (void)unused;
    const char *fault = "broke the ABI (seat -5, where the seats are 0..1, -1 chance and -2 "
                        "the end) in current";
    check_fault_in("rogue-seat", "", fault);
    check_fault_in("rogue-seat", "isolation = in-process", fault);
    check_fault_in("rogue-far-seat", "",
                   "broke the ABI (seat 7, where the seats are 0..1, -1 chance and -2 the end) "
                   "in current");
}

/* D1: a plugin that names seat 7 of 2 only when a saved game is read
 * back: replay and export --html refuse it instead of crashing. */
static void test_far_seat_in_replay(void **unused)
{
    (void)unused;
    struct run *r = malloc(sizeof *r);
    char args[1024];
    assert_non_null(r);
    play_session(r, "rogue-far-seat", "isolation = in-process", "ROGUE_AT=1000000",
                 ROGUE_PLUGIN_DIR);
    assert_int_equal(r->status, 0);
    const char *expected = "castellan: plugin rogue-far-seat broke the ABI (seat 7, where the "
                           "seats are 0..1, -1 chance and -2 the end) in current\n";
    snprintf(args, sizeof args, "replay 1 --database rogue-far-seat.db --plugin-path %s",
             ROGUE_PLUGIN_DIR);
    run_env(r, "ROGUE_AT=6", args);
    assert_int_equal(r->status, 1);
    assert_string_equal(r->err, expected);
    snprintf(args, sizeof args, "export 1 --html -o far.html --database rogue-far-seat.db "
             "--plugin-path %s", ROGUE_PLUGIN_DIR);
    run_env(r, "ROGUE_AT=6", args);
    assert_int_equal(r->status, 1);
    assert_string_equal(r->err, expected);
    free(r);
}

/* D7: an action text holding a newline is never journaled; the save
 * exports whole. */
static void test_newline_in_action_text(void **unused)
{
    (void)unused;
    struct run *r = malloc(sizeof *r);
    assert_non_null(r);
    check_fault_in("rogue-newline", "isolation = in-process",
                   "broke the ABI (the text of action 0x105 holds byte 0x0a at offset 6; it "
                   "must be one line of printable text) in action_text");
    run(r, "export 1 --database rogue-newline.db");
    assert_int_equal(r->status, 0);
    assert_non_null(strstr(r->out, "\nPlayer: random Player 2\n"));
    assert_null(strstr(r->out, "\nx\n"));
    free(r);
}

/* D5: a plugin from elsewhere is loaded only in a confined child: its
 * constructor crashing is a refusal `castellan plugins` lists, and play
 * says so, instead of taking castellan down. */
static void test_constructor_runs_confined(void **unused)
{
    (void)unused;
    struct run *r = malloc(sizeof *r);
    char args[1024], refusal[1024];
    assert_non_null(r);
    snprintf(refusal, sizeof refusal, "refused: %s/rogue-ctor/rogue-ctor.so: loading it "
             "crashed (signal 6, in its constructors or entry function); the plugin is "
             "broken\n", ROGUE_PLUGIN_DIR);
    snprintf(args, sizeof args, "plugins --plugin-path %s", ROGUE_PLUGIN_DIR);
    run(r, args);
    assert_non_null(strstr(r->out, refusal));
    assert_non_null(strstr(r->out, "rogue-crash "));
    play_session(r, "rogue-ctor", "", "", ROGUE_PLUGIN_DIR);
    assert_int_equal(r->status, 1);
    assert_non_null(strstr(r->err, "loading it crashed (signal 6"));
    free(r);
}

/* D2, D3: game_new runs under the filter: opening the store to write
 * (and empty it) or forking is stopped, and the store is untouched. */
static void test_game_new_is_confined(void **unused)
{
    (void)unused;
    struct run *r = malloc(sizeof *r);
    char expected[512], cwd[256];
    assert_non_null(r);
    assert_non_null(getcwd(cwd, sizeof cwd));
    FILE *victim = fopen("victim.db", "w");
    assert_non_null(victim);
    fputs("every game\n", victim);
    fclose(victim);
    /* named in a file: the worker's environment is scrubbed */
    FILE *named = fopen("ROGUE_VICTIM", "w");
    assert_non_null(named);
    fprintf(named, "%s/victim.db\n", cwd);
    fclose(named);
    const char *games[] = {"rogue-grab", "rogue-spawn"};
    for (size_t i = 0; i < 2; i++) {
        play_session(r, games[i], "", "", ROGUE_PLUGIN_DIR);
        assert_int_equal(r->status, 1);
        snprintf(expected, sizeof expected, "castellan play: plugin %s was stopped by its "
                 "sandbox (signal 31: a forbidden system call) in game_new\n", games[i]);
        assert_string_equal(r->err, expected);
    }
    char text[64] = "";
    victim = fopen("victim.db", "r");
    assert_non_null(victim);
    assert_non_null(fgets(text, sizeof text, victim));
    fclose(victim);
    assert_string_equal(text, "every game\n");
    free(r);
}

/* D8: the library a plugin needs is checked as the plugin is: in a folder
 * everyone may write, the plugin is refused, in process too. */
static void test_dependency_folder_checked(void **unused)
{
    (void)unused;
    struct run *r = malloc(sizeof *r);
    char args[1024], refusal[1024];
    assert_non_null(r);
    snprintf(args, sizeof args, "plugins --plugin-path %s", DEPS_PLUGIN_DIR);
    run(r, args);
    assert_non_null(strstr(r->out, "rogue-needs  "));
    assert_non_null(strstr(r->out, "  ok\n"));
    assert_int_equal(chmod(DEPS_LIB_DIR, 0777), 0);
    run(r, args);
    snprintf(refusal, sizeof refusal, "refused: %s/rogue-needs/rogue-needs.so: needs a "
             "library in %s, which everyone (mode 0777, user %u) could replace; install "
             "the library in a folder only root or you may write\n", DEPS_PLUGIN_DIR,
             DEPS_LIB_DIR, (unsigned)geteuid());
    assert_non_null(strstr(r->out, refusal));
    play_session(r, "rogue-needs", "isolation = in-process", "", DEPS_PLUGIN_DIR);
    assert_int_equal(chmod(DEPS_LIB_DIR, 0755), 0);
    assert_int_equal(r->status, 1);
    assert_non_null(strstr(r->err, "could replace; install the library"));
    free(r);
}

/* D4: bench --isolated never loads a plugin from elsewhere into castellan:
 * its crash is the worker's, reported, and castellan exits 1 itself. */
static void test_bench_never_loads_it(void **unused)
{
    (void)unused;
    struct run *r = malloc(sizeof *r);
    char args[1024];
    assert_non_null(r);
    snprintf(args, sizeof args, "bench --game rogue-crash --plugin-path %s --isolated "
             "--games 20", ROGUE_PLUGIN_DIR);
    run(r, args);
    assert_int_equal(r->status, 1);
    assert_string_equal(r->err, "castellan: plugin rogue-crash crashed (signal 11) in apply\n");
    free(r);
}

/* D9: a reply larger than the protocol carries is the plugin's error,
 * said as such, not a broken protocol; the game is saved before it. */
static void test_oversized_reply(void **unused)
{
    (void)unused;
    struct run *r = malloc(sizeof *r);
    assert_non_null(r);
    play_session(r, "rogue-flood", "plugin-deadline-ms = 600000", "", ROGUE_PLUGIN_DIR);
    assert_int_equal(r->status, 1);
    assert_null(strstr(r->err, "protocol ("));
    assert_non_null(strstr(r->err, "castellan play: ply 5: rogue-flood: \""));
    const char *size = strstr(r->err, "worker: the reply to apply is ");
    assert_non_null(size);
    assert_non_null(strstr(r->err, " bytes, more than the protocol's 16 MiB\n"));
    /* its real size (issue 41, item 8): 5000 events of 4000 bytes and
     * their fields, not the few bytes written before the overflow */
    unsigned long long bytes = strtoull(size + strlen("worker: the reply to apply is "),
                                        NULL, 10);
    assert_true(bytes > 5000ull * 4000);
    assert_true(bytes < 5000ull * 4100);
    free(r);
}

/* A bundled plugin plays the same game in process and isolated. */
static void test_isolated_game_is_the_same(void **unused)
{
    (void)unused;
    struct run *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    run(a, "play --game fixture --players random,greedy --seed 4 --no-save");
    run(b, "play --game fixture --players random,greedy --seed 4 --no-save --isolated "
           "--plugin-deadline 600000");
    assert_int_equal(a->status, 0);
    assert_int_equal(b->status, 0);
    assert_string_equal(a->out, b->out);
    assert_non_null(strstr(a->out, "Game over"));
    /* a search bot decides inside the worker (one message a decision):
     * on one thread, the same game as in process */
    run(a, "play --game fixture --players mcts@200/1,greedy --seed 4 --no-save");
    run(b, "play --game fixture --players mcts@200/1,greedy --seed 4 --no-save --isolated "
           "--plugin-deadline 600000");
    assert_int_equal(a->status, 0);
    assert_int_equal(b->status, 0);
    assert_string_equal(a->out, b->out);
    /* expansions: each library sent to the worker and loaded there */
    run(a, "play --game carcassonne --expansions inns-cathedrals,traders-builders "
           "--players random,greedy --seed 2 --no-save");
    run(b, "play --game carcassonne --expansions inns-cathedrals,traders-builders "
           "--players random,greedy --seed 2 --no-save --isolated --plugin-deadline 600000");
    assert_int_equal(a->status, 0);
    assert_int_equal(b->status, 0);
    assert_string_equal(a->out, b->out);
    run(b, "play --game fixture --players random,greedy --seed 4 --no-save --isolated "
           "--in-process");
    assert_int_equal(b->status, 2);
    assert_string_equal(b->err, "castellan play: --isolated and --in-process contradict "
                                "each other; give one\n");
    free(a);
    free(b);
}

/* check finds the same in a worker; bench --isolated measures both ways. */
static void test_check_and_bench_isolated(void **unused)
{
    (void)unused;
    struct run *a = malloc(sizeof *a), *b = malloc(sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    run(a, "check fixture --games 4 --seed 9");
    run(b, "check fixture --games 4 --seed 9 --isolated --plugin-deadline 600000");
    assert_int_equal(a->status, 0);
    assert_int_equal(b->status, 0);
    assert_string_equal(a->out, b->out);
    assert_non_null(strstr(a->out, "fixture: every property held in 4 games"));
    run(b, "bench --game fixture --games 40 --isolated --only isolation");
    assert_int_equal(b->status, 0);
    assert_non_null(strstr(b->out, "us/action in a worker"));
    assert_non_null(strstr(b->out, " actions each way, fastest of "));
    assert_non_null(strstr(b->out, "isolation, CPU time"));
    free(a);
    free(b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crash),
        cmocka_unit_test(test_hang),
        cmocka_unit_test(test_forbidden_system_call),
        cmocka_unit_test(test_memory_blow_up),
        cmocka_unit_test(test_bad_seat),
        cmocka_unit_test(test_far_seat_in_replay),
        cmocka_unit_test(test_newline_in_action_text),
        cmocka_unit_test(test_constructor_runs_confined),
        cmocka_unit_test(test_game_new_is_confined),
        cmocka_unit_test(test_dependency_folder_checked),
        cmocka_unit_test(test_bench_never_loads_it),
        cmocka_unit_test(test_oversized_reply),
        cmocka_unit_test(test_isolated_game_is_the_same),
        cmocka_unit_test(test_check_and_bench_isolated),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
