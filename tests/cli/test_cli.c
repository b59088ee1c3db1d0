/*
 * test_cli.c — the castellan executable run as a user runs it: help and
 * version, did-you-mean for commands and flags, play from a preset and
 * from flags (bots, and a human fed through stdin), check on a good and a
 * broken plugin, bench; usage errors and bad --config files; --rule for
 * check and bench, and bench's comparison with the game alone, its rounds
 * and what each expansion adds.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <dirent.h>
#include <cmocka.h>

/* Write text to a new file made from the mkstemp template path. */
static void write_temp(char *path, const char *text)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
}

/* Run `castellan ARGS` through the shell with `input` on stdin (NULL for
 * none), stdout and stderr together.  Returns the exit status; *output
 * receives what it printed (caller frees). */
static int run(const char *args, const char *input, char **output)
{
    char command[2048];
    char in_path[] = "/tmp/castellan-cli-XXXXXX";
    write_temp(in_path, input ? input : "");
    /* a known width: lines are fitted to $COLUMNS when not on a terminal */
    snprintf(command, sizeof command, "COLUMNS=80 '%s' %s <'%s' 2>&1", CASTELLAN_EXE, args,
             in_path);
    FILE *p = popen(command, "r");
    assert_non_null(p);
    size_t len = 0, cap = 4096;
    char *text = malloc(cap);
    size_t got;
    while ((got = fread(text + len, 1, cap - len - 1, p)) > 0) {
        len += got;
        if (cap - len < 1024)
            text = realloc(text, cap *= 2);
    }
    text[len] = '\0';
    int status = pclose(p);
    remove(in_path);
    *output = text;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void expect(const char *args, const char *input, int status, const char *needle)
{
    char *out;
    int got = run(args, input, &out);
    if (got != status || !strstr(out, needle))
        fail_msg("castellan %s: exit %d (expected %d), output without \"%s\":\n%s", args, got,
                 status, needle, out);
    free(out);
}

static void assert_string_equal_n(const char *a, const char *b, size_t n)
{
    if (strncmp(a, b, n) != 0)
        fail_msg("\"%.*s\" is not \"%.*s\"", (int)n, a, (int)n, b);
}

/* Run `castellan ARGS` with standard output on /dev/full: its exit status,
 * and what it said on stderr in *said (caller frees). */
static int run_into_full_disk(const char *args, char **said)
{
    char command[2048], err_path[] = "/tmp/castellan-cli-XXXXXX";
    write_temp(err_path, "");
    snprintf(command, sizeof command, "'%s' %s </dev/null >/dev/full 2>'%s'", CASTELLAN_EXE,
             args, err_path);
    int status = system(command);
    FILE *f = fopen(err_path, "r");
    assert_non_null(f);
    *said = calloc(1, 4096);
    assert_non_null(*said);
    size_t got = fread(*said, 1, 4095, f);
    (*said)[got] = '\0';
    fclose(f);
    remove(err_path);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* Output that does not reach standard output is a failure, never exit 0. */
static void test_a_full_standard_output_fails(void **unused)
{
    (void)unused;
    static const char *const cases[][2] = {
        {"--version", "castellan: cannot write to standard output (No space left on device)"},
        {"help check", "castellan help: cannot write to standard output"},
        {"rules castles-cards", "castellan rules: cannot write to standard output"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *said;
        int status = run_into_full_disk(cases[i][0], &said);
        if (status != 1 || !strstr(said, cases[i][1]) || !strstr(said, "incomplete"))
            fail_msg("castellan %s >/dev/full: exit %d, said: %s", cases[i][0], status, said);
        free(said);
    }
}

static void test_help_and_version(void **unused)
{
    (void)unused;
    expect("--version", NULL, 0, "castellan 0.1.0 (plugin ABI 1.5)");
    expect("--help", NULL, 0, "  bench     measure");
    expect("help check", NULL, 0, "usage: castellan check PLUGIN");
    expect("play --help", NULL, 0, "usage: castellan play");
    expect("bench --help", NULL, 0, "  legal-actions");
    expect("", NULL, 2, "usage: castellan COMMAND");
}

static void test_unknown_names_get_the_closest(void **unused)
{
    (void)unused;
    expect("plya", NULL, 2, "unknown command \"plya\"; did you mean \"play\"?");
    expect("play --sed 3", NULL, 2, "unknown option \"--sed\"; did you mean \"--seed\"?");
    expect("check fixture --game=3", NULL, 2, "did you mean \"--games\"?");
    expect("bench --game fixture --only copy", NULL, 2, "did you mean \"copies\"?");
    expect("check fixtur", NULL, 1, "check: PLUGIN: unknown game \"fixtur\"; closest: fixture");
    expect("bench --game fixtur", NULL, 1, "bench: --game: unknown game \"fixtur\"");
    expect("check fixture --games many", NULL, 2, "--games must be a whole number");
    expect("play --game fixture --players 'Ada:hunam'", NULL, 2, "human");
    /* nothing is suggested that is not near */
    expect("play --xyzzy 3", NULL, 2,
           "unknown option \"--xyzzy\" (castellan play --help lists them)");
    expect("play --game carcassonne --expansions foo --no-save", NULL, 1,
           "castellan play: --expansions: unknown expansion \"foo\" (castellan plugins lists "
           "them all)\n");
    /* an option of an expansion the session leaves out */
    expect("play --game carcassonne --rule abbey-mayor.wagon-move=C1 --no-save", NULL, 1,
           "castellan play: --rule abbey-mayor.wagon-move: abbey-mayor is not in this session; "
           "add it to the expansions");
}

/* A bad tile set in a plugin's data folder: its name as the option gave
 * it and the line, neither the folder's absolute path nor an error code. */
static void test_bad_tile_set_names_its_line(void **unused)
{
    (void)unused;
    char dir[] = "/tmp/castellan-cli-plugins-XXXXXX", command[1024], *out;
    assert_non_null(mkdtemp(dir));
    snprintf(command, sizeof command,
             "cp -r '%s' '%s/' && printf 'tileset bad\\nstart D\\ntile D 4 CRFR zzz\\n' "
             ">'%s/carcassonne/data/bad.tiles'", CARCASSONNE_PLUGIN_DIR, dir, dir);
    assert_int_equal(system(command), 0);
    snprintf(command, sizeof command,
             "play --plugin-path '%s' --game carcassonne --rule tileset=bad.tiles --no-save",
             dir);
    assert_int_equal(run(command, NULL, &out), 1);
    if (!strstr(out, "castellan play: carcassonne: cannot create the game: bad.tiles:3: "
                     "unexpected 'zzz'") || strstr(out, dir))
        fail_msg("%s", out);
    free(out);
    snprintf(command, sizeof command, "rm -rf '%s'", dir);
    assert_int_equal(system(command), 0);
}

/* Malformed command lines: exit 2 and a line that names the problem. */
static void test_usage_errors(void **unused)
{
    (void)unused;
    expect("check", NULL, 2,
           "castellan check: which plugin? (castellan plugins lists them)\nusage: castellan "
           "check PLUGIN");
    expect("check fixture extra", NULL, 2,
           "castellan check: unexpected argument \"extra\"\nusage: castellan check PLUGIN");
    expect("check fixture --games", NULL, 2, "castellan check: --games needs a value\n");
    expect("play --no-save=1 --game fixture", NULL, 2,
           "castellan play: --no-save takes no value\n");
    expect("replay --step=3 1", NULL, 2, "castellan replay: --step takes no value\n");
    expect("plugins --bogus", NULL, 2,
           "castellan plugins: unknown argument \"--bogus\"\nusage: castellan plugins");
    expect("saves", NULL, 2, "castellan saves: missing argument\nusage: castellan saves");
    expect("saves frob", NULL, 2,
           "castellan saves: unknown subcommand \"frob\" (list, show, delete or migrate)\n");
    expect("campaign frob", NULL, 2,
           "castellan campaign: expected `list` or `show NAME`\nusage: castellan campaign");
    expect("campaign show", NULL, 2, "castellan campaign: expected `list` or `show NAME`\n");
    expect("saves migrate only-one.db", NULL, 2,
           "castellan saves migrate: name two stores, FROM and TO\nusage: castellan saves "
           "migrate FROM TO");
    expect("saves migrate a.db a.db", NULL, 2,
           "castellan saves migrate: FROM and TO are the same store (a.db)");
    expect("bench --only saves --database saves.db", NULL, 2,
           "castellan bench: --database saves.db is not a PostgreSQL URL");
}

/* `play --config FILE` with a bad file: exit 1 and the error at file:line. */
static void expect_bad_config(const char *text, const char *rest)
{
    char path[] = "/tmp/castellan-cli-config-XXXXXX";
    write_temp(path, text);
    char args[256], needle[1024];
    snprintf(args, sizeof args, "play --no-save --config '%s'", path);
    snprintf(needle, sizeof needle, "castellan play: %s:%s\n", path, rest);
    expect(args, NULL, 1, needle);
    remove(path);
}

static void test_play_config_errors(void **unused)
{
    (void)unused;
    const char *two = "[player.1]\nagent = random\n[player.2]\nagent = random\n";
    char text[512];
    snprintf(text, sizeof text, "[session]\ngame = fixture\nseed = -1\n%s", two);
    expect_bad_config(text, "3: seed \"-1\" is not valid; use a decimal integer from 0 to "
                            "18446744073709551615, or leave seed out for a random one");
    snprintf(text, sizeof text, "[session]\ngame = fixture\n[rules]\nhand = 99\n%s", two);
    expect_bad_config(text, "4: hand = \"99\" is not valid; use an integer from 1 to 5");
    snprintf(text, sizeof text, "[session]\ngame = fixtur\n%s", two);
    expect_bad_config(text, "2: unknown game \"fixtur\"; closest: fixture (castellan plugins lists "
                            "them all)");
}

static void test_play_preset_is_repeatable(void **unused)
{
    (void)unused;
    char *first, *second;
    /* --no-save: the journal's line names a new game id on every run. */
    assert_int_equal(run("play --no-save --config '" PRESET_DIR "/fixture.ini'", NULL, &first), 0);
    assert_int_equal(run("play --no-save --config '" PRESET_DIR "/fixture.ini'", NULL, &second), 0);
    assert_string_equal(first, second);
    assert_non_null(strstr(first, "fixture, 2 players, seed 1\nAda as Red, Bob as Blue\n"));
    assert_non_null(strstr(first, "Scores:"));
    free(first);
    free(second);
    expect("play --config '" PRESET_DIR "/fixture.ini' --seed 8", NULL, 0, "seed 8\n");
    expect("play --no-save --game carcassonne --expansions traders-builders,inns-cathedrals "
           "--players random,random --seed 3", NULL, 0,
           "carcassonne + inns-cathedrals, traders-builders, 2 players, seed 3\n");
    expect("play --config '" PRESET_DIR "/fixture.ini' --players random", NULL, 2,
           "--config cannot be combined");
    /* --players without --game: the default preset's game */
    expect("play --no-save --players random,random --seed 3", NULL, 0,
           "carcassonne, 2 players, seed 3\n");
}

/* A human who always types 1 plays a whole game; the terminal shows the
 * human's own draws and never the bot's. */
static void test_play_human_through_stdin(void **unused)
{
    (void)unused;
    char input[400], *out;
    for (size_t i = 0; i < 100; i++)
        memcpy(input + 2 * i, "1\n", 2);
    input[200] = '\0';
    assert_int_equal(run("play --game fixture --players Ada:human,Bot:greedy --seed 4",
                         input, &out), 0);
    assert_non_null(strstr(out, "Ada, your move:"));
    assert_non_null(strstr(out, "Scores:"));
    assert_non_null(strstr(out, "Red draws a "));
    for (const char *at = strstr(out, "Blue draws a "); at; at = strstr(at + 1, "Blue draws a "))
        assert_string_equal_n(at, "Blue draws a card", 17);
    free(out);
}

/* `help` at the table explains the actions of every expansion in play,
 * each with an example, after the game's own. */
static void test_help_explains_every_expansion(void **unused)
{
    (void)unused;
    char *out;
    assert_int_equal(run("play --game carcassonne --expansions inns-cathedrals,traders-builders,"
                         "abbey-mayor,king-robber,castles-germany --players Me:human,greedy "
                         "--seed 5 --no-save", "help\nquit\n", &out), 0);
    static const char *const wanted[] = {
        "\ninns-cathedrals:\n  deploy large-meeple WHERE\n", "(deploy large-meeple city N)",
        "\ntraders-builders:\n  deploy builder WHERE\n", "(deploy builder road E+W)",
        "(deploy pig field Nw+Ne)", "\nabbey-mayor:\n  abbey X,Y ", "abbey 1,1",
        "(deploy mayor city N)", "(deploy wagon\n", "(wagon 0,1 city N)",
        "(deploy barn corner 1,-1 NW)", "\nking-robber:\n", "\ncastles-germany:\n",
        "(castle pick\n", "(castle CG-3 4,-1 270)", "  castle keep ", "  deploy meeple castle\n",
    };
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++)
        if (!strstr(out, wanted[i]))
            fail_msg("no \"%s\" in:\n%s", wanted[i], out);
    free(out);
    /* the game alone: its own help, no expansion's */
    assert_int_equal(run("play --game carcassonne --players Me:human,greedy --seed 5 --no-save",
                         "help\nquit\n", &out), 0);
    assert_non_null(strstr(out, "Carcassonne actions"));
    assert_null(strstr(out, "abbey-mayor:"));
    free(out);
}

/* Castles in Germany at the table: the castles are drawn (as castles, 'c',
 * not monasteries) over the numbers of the picks that name them, the
 * board numbers the spots where a castle may go and shows a placed one
 * as one castle over its two spaces. */
static void test_castles_shown_before_the_picks(void **unused)
{
    (void)unused;
    char *out;
    assert_int_equal(run("play --game carcassonne --expansions castles-germany --players "
                         "Me:human,greedy --seed 5 --no-save", "1\n2\n7\nquit\n", &out), 0);
    const char *pick = strstr(out, "The tiles these choices name, turned 0; under each, its "
                                   "choices:\nCG-1          CG-2          CG-3          CG-4");
    if (!pick || !strstr(pick, "\n--cccccc--    --cccccc--") || !strstr(pick, "\n1             2"))
        fail_msg("no castles over their picks:\n%s", out);
    assert_non_null(strstr(out, "  o open  c castle\n"));
    assert_null(strstr(out, "--m.")); /* no castle drawn as a monastery */
    const char *place = strstr(out, "Red decides: castle\n");
    assert_non_null(place);
    assert_non_null(strstr(out, " 3 --- 7 \n"));   /* spots of castle choices on the board */
    assert_non_null(strstr(place, "2,3,4,5,6,7,")); /* CG-1's placements under it */
    assert_non_null(strstr(place, "\n o ----cccc- o \n")); /* placed: a castle on the board */
    free(out);
}

/* `castellan rules GAME` lists the game's options with defaults and
 * meanings, then each expansion's; a wrong id gets the closest. */
static void test_rules_lists_every_option(void **unused)
{
    (void)unused;
    char *out;
    assert_int_equal(run("rules carcassonne", NULL, &out), 0);
    assert_non_null(strstr(out, "carcassonne 1.0.0: rule options"));
    assert_non_null(strstr(out, "\n  farmers = on  (on|off)\n      farmers may be deployed"));
    assert_non_null(strstr(out, "\n  tiles = \"\"  (text)\n"));
    assert_non_null(strstr(out, "\nexpansion inns-cathedrals "));
    free(out);
    expect("rules castles-cards", NULL, 0, "\n  max-turns = 400  (10..100000)\n");
    expect("rules carcasonne", NULL, 1, "no game \"carcasonne\" (closest: carcassonne)");
    expect("rules", NULL, 2, "name one game");
}

/* The example session of docs/config.md plays (its human quits at once)
 * and journals into the database it names, under HOME. */
static void test_docs_config_example_plays(void **unused)
{
    (void)unused;
    char path[1024], ini[4096], home[] = "/tmp/castellan-home-XXXXXX", args[1200], *out;
    snprintf(path, sizeof path, "%s/docs/config.md", getenv("CASTELLAN_SOURCE_DIR"));
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    size_t len = fread(ini, 1, sizeof ini - 1, f);
    fclose(f);
    ini[len] = '\0';
    char *start = strstr(ini, "```ini\n"), *end = start ? strstr(start + 7, "```") : NULL;
    assert_non_null(end);
    *end = '\0';
    char file[] = "/tmp/castellan-example-XXXXXX";
    write_temp(file, start + 7);
    assert_non_null(mkdtemp(home));
    const char *saved_home = getenv("HOME");
    char *old_home = saved_home ? strdup(saved_home) : NULL;
    setenv("HOME", home, 1);
    snprintf(args, sizeof args, "play --config '%s'", file);
    int status = run(args, "quit\n", &out);
    if (status != 0 || !strstr(out, "Ada quit"))
        fail_msg("docs/config.md's example: exit %d\n%s", status, out);
    assert_non_null(strstr(out, "carcassonne + inns-cathedrals, traders-builders, 2 players, "
                                "seed 20261129"));
    free(out);
    assert_int_equal(run("saves list --campaign tuesday-league --database "
                         "~/.local/share/castellan/saves.db", NULL, &out), 0);
    assert_non_null(strstr(out, "tuesday-league"));
    free(out);
    if (old_home)
        setenv("HOME", old_home, 1);
    free(old_home);
    remove(file);
    snprintf(args, sizeof args, "rm -rf '%s'", home);
    assert_int_equal(system(args), 0);
}

/* Each preset's comment names a command that works from the repository
 * root: the file it names is there. */
static void test_preset_comments_name_real_paths(void **unused)
{
    (void)unused;
    DIR *dir = opendir(PRESET_DIR);
    assert_non_null(dir);
    size_t checked = 0;
    for (struct dirent *e; (e = readdir(dir));) {
        size_t n = strlen(e->d_name);
        if (n < 5 || strcmp(e->d_name + n - 4, ".ini") != 0)
            continue;
        char path[1024], text[2048], expected[512];
        snprintf(path, sizeof path, "%s/%s", PRESET_DIR, e->d_name);
        FILE *f = fopen(path, "r");
        assert_non_null(f);
        size_t len = fread(text, 1, sizeof text - 1, f);
        fclose(f);
        text[len] = '\0';
        snprintf(expected, sizeof expected,
                 "; Play it from the repository root with:\n"
                 ";   ./build/host/castellan play --config config/presets/%s\n",
                 e->d_name);
        if (!strstr(text, expected))
            fail_msg("%s lacks the line\n%s", path, expected);
        snprintf(path, sizeof path, "%s/config/presets/%s", getenv("CASTELLAN_SOURCE_DIR"),
                 e->d_name);
        f = fopen(path, "r");
        assert_non_null(f);
        fclose(f);
        checked++;
    }
    closedir(dir);
    assert_true(checked >= 10);
}

/* --campaign files a game from flags or from a preset under a campaign. */
static void test_play_campaign_flag(void **unused)
{
    (void)unused;
    char *out;
    assert_int_equal(run("play --game fixture --players random,random --seed 2 "
                         "--campaign flag-league", NULL, &out), 0);
    free(out);
    assert_int_equal(run("play --config '" PRESET_DIR "/fixture.ini' --campaign flag-league",
                         NULL, &out), 0);
    free(out);
    assert_int_equal(run("saves list --campaign flag-league", NULL, &out), 0);
    const char *first = strstr(out, "flag-league");
    assert_non_null(first);
    assert_non_null(strstr(first + 1, "flag-league"));
    free(out);
    expect("play --game fixture --campaign ''", NULL, 2, "--campaign: campaign \"\" is not "
           "valid; use 1 to 64 characters");
}

/* import takes many records: the good ones are saved, a cut one is
 * refused (exit 1); piped, no progress line is written. */
static void test_import_many_records(void **unused)
{
    (void)unused;
    char good[] = "/tmp/castellan-good-XXXXXX", cut[] = "/tmp/castellan-cut-XXXXXX";
    char db[] = "/tmp/castellan-db-XXXXXX", args[512], *out;
    static const char header[] = "Castellan-Record: 1\nGame: fixture 1.0.0\nSeed: 1\n"
                                 "Player: random A\nPlayer: random B\n";
    char record[256];
    snprintf(record, sizeof record, "%s\n", header);
    write_temp(good, record);
    write_temp(cut, header);
    write_temp(db, "");
    remove(db);
    snprintf(args, sizeof args, "import --database '%s' '%s' '%s' '%s'", db, good, cut, good);
    assert_int_equal(run(args, NULL, &out), 1);
    const char *first = strstr(out, "Imported ");
    assert_non_null(first);
    assert_non_null(strstr(first + 1, "Imported "));
    assert_non_null(strstr(out, ":5: the record ends inside its header (no blank line after "
                                "it), so it was cut off"));
    assert_null(strchr(out, '\r'));
    free(out);
    remove(good);
    remove(cut);
    remove(db);
    snprintf(args, sizeof args, "%s-wal", db);
    remove(args);
    snprintf(args, sizeof args, "%s-shm", db);
    remove(args);
}

static void test_play_human_quits(void **unused)
{
    (void)unused;
    expect("play --game fixture --players Ada:human,random --seed 2", "bogus\nquit\n", 0,
           "Game stopped (ply 6: Ada quit).  Replay it with --seed 2.");
    expect("play --game fixture --players Ada:human,random --seed 2", "bogus\n", 0,
           "\"bogus\" is not a legal action");
}

/* --rule may be given several times; bad rules name the option. */
static void test_play_with_rules(void **unused)
{
    (void)unused;
    expect("play --game fixture --players random,random --rule cards=3 --rule hand=1 "
           "--seed 1", NULL, 0, "Game over after 12 actions.");
    expect("play --game fixture --players random,random --rule cards=99", NULL, 1,
           "cards = \"99\" is not valid; use an integer from 3 to 20");
    expect("play --game fixture --players random,random --rule handd=2", NULL, 1,
           "unknown rule option \"handd\"; closest: hand");
}

static void test_check_good_and_broken(void **unused)
{
    (void)unused;
    expect("check fixture --games 5 --seed 3", NULL, 0,
           "fixture: every property held in 5 games");
    expect("check fixture-broken-text --plugin-path '" CHECK_PLUGIN_DIR "'", NULL, 1,
           "fixture-broken-text: FAILED text-round-trip");
    expect("check fixture-broken-text --plugin-path '" CHECK_PLUGIN_DIR "'", NULL, 1,
           "reproduce: castellan check fixture-broken-text --plugin-path '" CHECK_PLUGIN_DIR
           "' --seed 1 --games 1 --players 2");
    expect("check fixture --players 7", NULL, 2, "fixture is for 2 to 4 players, not 7");
    expect("bench --game fixture --players 7", NULL, 2,
           "castellan bench: fixture is for 2 to 4 players, not 7\n");
    expect("bench --game fixture --hosted 0", NULL, 2,
           "castellan bench: --hosted must be a whole number from 1 to 1000000, not \"0\"");
    /* A misspelt measure is refused before anything runs, not skipped. */
    setenv("CASTELLAN_SERVE_MEASURES", "load,watcher", 1);
    expect("bench --game fixture --games 5", NULL, 2,
           "castellan bench: CASTELLAN_SERVE_MEASURES=load,watcher: no measure is named "
           "\"watcher\"; list some of load,saturation,100,watchers,idle,hosted,lobby,floor with commas");
    setenv("CASTELLAN_SERVE_MEASURES", "load,,idle", 1);
    expect("bench --game fixture --games 5", NULL, 2, "no measure is named \"\"");
    unsetenv("CASTELLAN_SERVE_MEASURES");
}

/* A plugin that crashes still gets a report of where, and the command
 * that reproduces it: from outside the build's plugin folder the whole
 * check runs in a worker, whose crash is a failed check (exit 1); in
 * process it takes castellan down with it, after the same report. */
static void test_check_reports_a_crash(void **unused)
{
    (void)unused;
    char *out;
    int status = run("check fixture-broken-crash --plugin-path '" CHECK_PLUGIN_DIR "'", NULL,
                     &out);
    assert_int_equal(status, 1);
    if (!strstr(out, "fixture-broken-crash: FAILED crash (signal 6)\n"
                     "  game with seed 1, 2 players, at or after ply 6\n"
                     "  reproduce: castellan check fixture-broken-crash --plugin-path '"
                     CHECK_PLUGIN_DIR "' --seed 1 --games 1 --players 2\n"))
        fail_msg("no crash report:\n%s", out);
    free(out);
    status = run("check fixture-broken-crash --in-process --plugin-path '" CHECK_PLUGIN_DIR
                 "'", NULL, &out);
    assert_true(status == -1 || status == 128 + 6); /* killed by SIGABRT */
#ifndef __SANITIZE_ADDRESS__
    if (!strstr(out, "fixture-broken-crash: FAILED crash (signal 6)\n"
                     "  game with seed 1, 2 players, at or after ply 6\n"
                     "  reproduce: castellan check fixture-broken-crash --plugin-path '"
                     CHECK_PLUGIN_DIR "' --seed 1 --games 1 --players 2\n"))
        fail_msg("no crash report:\n%s", out);
#endif
    free(out);
}

/* Runs of spaces and newlines made one space, in place: bench fits its rows
 * to the width, and where a row wraps follows the measured figures' digits. */
static void unwrap(char *text)
{
    char *to = text;
    for (const char *from = text; *from; from++)
        if (!(*from == ' ' || *from == '\n') || (to > text && to[-1] != ' '))
            *to++ = *from == '\n' ? ' ' : *from;
    *to = '\0';
}

static void test_bench_prints_every_figure(void **unused)
{
    (void)unused;
    char *out;
    assert_int_equal(run("bench --game fixture --games 50 --players 3", NULL, &out), 0);
    unwrap(out);
    static const char *const figures[] = {
        "castellan bench: fixture, 3 players, 50 games, seed 1", "playouts/s",
        "us a call", "(state_clone + state_free)", "(state_copy into an existing state)",
        "serialized state", "heap per state",
    };
    for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++)
        if (!strstr(out, figures[i]))
            fail_msg("bench output lacks \"%s\":\n%s", figures[i], out);
    free(out);
    expect("bench --game fixture --games 20 --only sizes", NULL, 0, "heap per state");
}

/* A tournament prints its statistics and repeats for a seed; bad agents are
 * usage errors; play takes mcts seats and an mcts hint. */
static void test_tournament_and_mcts_seats(void **unused)
{
    (void)unused;
    char *first, *again;
    const char *args = "tournament --game fixture --agents mcts@40/1,random --games 6 --seed 4";
    assert_int_equal(run(args, NULL, &first), 0);
    assert_int_equal(run(args, NULL, &again), 0);
    static const char *const lines[] = {
        "castellan tournament: fixture, 2 players, 6 games from seed 4, seats alternated\n",
        "  mcts@40/1 vs random\n", "  game 6/6: ", "of 6 games\n", "95% Wilson interval",
        "score difference", "ms a decision over",
    };
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++)
        if (!strstr(first, lines[i]))
            fail_msg("tournament output lacks \"%s\":\n%s", lines[i], first);
    /* the same games: every line but the last, the time a decision */
    for (char **out = (char *[]){first, again, NULL}; *out; out++) {
        char *cut = strstr(*out, "ms a decision");
        while (cut > *out && cut[-1] != '\n')
            cut--;
        *cut = '\0';
    }
    assert_string_equal(first, again);
    free(first);
    free(again);
    expect("tournament --game fixture --agents greedy", NULL, 2,
           "--agents takes two agents, A,B (e.g. --agents mcts@1000/1,greedy)");
    expect("tournament --game fixture --agents greedy,human", NULL, 2,
           "--agents: human cannot play a tournament; use random, greedy or mcts");
    expect("tournament --game fixture --agents greedy,mcts@fast", NULL, 2,
           "--agents: agent \"mcts@fast\" is not valid: a budget is @N iterations");
    expect("tournament --game fixtur --agents greedy,random", NULL, 1, "unknown game");
    expect("tournament --help", NULL, 0, "95% Wilson interval");
    expect("play --no-save --game fixture --players Bot:mcts-easy@30/2,random --seed 3", NULL,
           0, "Bot:");
    expect("play --no-save --game fixture --players Ada:human,random --seed 2 --hint mcts@50/1",
           "hint\nquit\n", 0, "The mcts@50/1 bot would play ");
    expect("play --no-save --game fixture --players mcts-hrad,random", NULL, 2,
           "agent \"mcts-hrad\" is not valid; use human, random, greedy or mcts");
    expect("play --no-save --game fixture --players Ada:human,random --hint mcts-hrad",
           "quit\n", 2, "--hint: agent \"mcts-hrad\" is not valid; use random, "
           "greedy or mcts[-easy|-medium|-hard][@N|@Nms][/THREADS][+random|+greedy]"
           "[+root|+tree][+win|+margin] (closest: mcts-hard)");
    expect("play --no-save --game fixture --players random,random --hint human", NULL, 2,
           "--hint human: a hint comes from a bot; use random, greedy or mcts[-easy|");
    expect("play --no-save --game fixture --players Ada:human,random --seed 2 --hint "
           "mcts-medium@3600000ms/256+greedy+root+margin",
           "quit\n", 0, "Game stopped");
    expect("tournament --game fixture --agents greedy,humn", NULL, 2,
           "--agents: agent \"humn\" is not valid; use random, greedy or mcts[-easy|");
    expect("tournament --game fixture --agents human,random", NULL, 2,
           "--agents: human cannot play a tournament; use random, greedy or mcts[-easy|");
}

/* The mean "N actions a game" of bench's random playouts line. */
static double actions_a_game(const char *out)
{
    const char *line = strstr(out, "random playouts");
    const char *comma = line ? strstr(line, " s, ") : NULL;
    double actions = 0;
    if (!comma || sscanf(comma, " s, %lf actions a game", &actions) != 1)
        fail_msg("no playouts line:\n%s", out);
    return actions;
}

/* --rule changes what bench plays and the header says so; without rules the
 * header names none. */
static void test_bench_with_rules(void **unused)
{
    (void)unused;
    char *plain, *ruled;
    assert_int_equal(run("bench --game fixture --games 20 --only playouts", NULL, &plain), 0);
    assert_int_equal(run("bench --game fixture --games 20 --only playouts --rule cards=3 "
                         "--rule hand=1", NULL, &ruled), 0);
    assert_non_null(strstr(plain, "castellan bench: fixture, 2 players, 20 games, seed 1\n"));
    assert_non_null(strstr(ruled, "castellan bench: fixture, 2 players, 20 games, seed 1, "
                                  "rules cards=3 hand=1\n"));
    assert_true(actions_a_game(ruled) < actions_a_game(plain));
    free(plain);
    free(ruled);
    /* five tiles: four draws, placements and figure decisions a game */
    expect("bench --games 3 --only playouts --rule 'tiles=*:0,D:2,E:3'", NULL, 0,
           "12.0 actions a game");
    expect("bench --games 3 --only playouts --rule 'tiles=*:0,D:2,E:3'", NULL, 0,
           "castellan bench: carcassonne, 2 players, 3 games, seed 1, rules tiles=*:0,D:2,E:3\n");
}

/* Bad rules: play's messages and exit statuses, before anything runs. */
static void test_bad_rules_for_check_and_bench(void **unused)
{
    (void)unused;
    expect("bench --rule tils=3", NULL, 1,
           "castellan bench: --rule tils: unknown rule option \"tils\"; closest: tiles\n");
    expect("check fixture --rule handd=2", NULL, 1,
           "castellan check: --rule handd: unknown rule option \"handd\"; closest: hand\n");
    expect("check fixture --rule cards=99", NULL, 1,
           "cards = \"99\" is not valid; use an integer from 3 to 20");
    expect("bench --rule tiles=zz", NULL, 1, "tiles: bad entry 'zz'");
    expect("bench --rule tiles", NULL, 2, "--rule tiles: no value; write --rule NAME=VALUE");
    char *out;
    assert_int_equal(run("bench --game fixture --rule cards=2", NULL, &out), 1);
    assert_null(strstr(out, "castellan bench: fixture,")); /* nothing measured */
    free(out);
}

/* An expansion's options by bare or qualified name, as play takes them;
 * check's report names the rules and repeats them to reproduce. */
static void test_check_with_rules(void **unused)
{
    (void)unused;
    expect("check fixture --games 3 --rule cards=6 --rule blocks=off", NULL, 0,
           "fixture (rules cards=6 blocks=off): every property held in 3 games");
    expect("check carcassonne --expansions rule-probe --plugin-path '" RULES_PLUGIN_DIR "' "
           "--games 1 --rule rule-probe.farmers=on --rule note=hello", NULL, 0,
           "carcassonne + rule-probe (rules rule-probe.note=hello rule-probe.farmers=on): "
           "every property held in 1 games");
    expect("check carcassonne --expansions rule-probe --plugin-path '" RULES_PLUGIN_DIR "' "
           "--rule note=refuse", NULL, 1,
           "rule-probe: option note = refuse: rule-probe refuses this note");
    expect("bench --expansions rule-probe --plugin-path '" RULES_PLUGIN_DIR "' --games 2 "
           "--only sizes --rule rule-probe.farmers=off --rule farmers=off", NULL, 0,
           "carcassonne + rule-probe, 2 players, 2 games, seed 1, rules farmers=off\n");
    expect("check fixture-broken-text --plugin-path '" CHECK_PLUGIN_DIR "' --rule cards=5",
           NULL, 1, "reproduce: castellan check fixture-broken-text --rule 'cards=5' "
           "--plugin-path '" CHECK_PLUGIN_DIR "' --seed 1 --games 1 --players 2");
}

/* new-plugin refuses what it cannot write, naming the fix. */
static void test_new_plugin_usage(void **unused)
{
    (void)unused;
    expect("new-plugin", NULL, 2, "castellan new-plugin: give the new plugin's ID");
    expect("new-plugin My_Game", NULL, 2, "\"My_Game\" is not a plugin id: a lower-case letter");
    expect("new-plugin x --expansion-of castles-cards", NULL, 2,
           "--expansion-of castles-cards: castellan has an expansion template for carcassonne "
           "only");
    expect("new-plugin x /dev/null", NULL, 1, "/dev/null exists and is not a folder");
    expect("new-plugin --help", NULL, 0, "usage: castellan new-plugin ID [--expansion-of GAME]");
}

/* The reproduce line runs as printed and fails the same way. */
static void test_reproduce_line_runs(void **unused)
{
    (void)unused;
    char *out;
    assert_int_equal(run("check fixture-broken-text --plugin-path '" CHECK_PLUGIN_DIR "' "
                         "--rule cards=5 --games 4 --seed 2", NULL, &out), 1);
    const char *line = strstr(out, "reproduce: castellan check ");
    assert_non_null(line);
    char args[1024];
    size_t len = strcspn(line, "\n") - strlen("reproduce: castellan ");
    snprintf(args, sizeof args, "%.*s", (int)len, line + strlen("reproduce: castellan "));
    free(out);
    expect(args, NULL, 1, "fixture-broken-text (rules cards=5): FAILED text-round-trip\n"
                          "  game with seed 2, 2 players, at ply ");
}

/* With expansions the playouts are compared with the game alone. */
static void test_bench_compares_with_the_game_alone(void **unused)
{
    (void)unused;
    char *out;
    assert_int_equal(run("bench --expansions inns-cathedrals --games 3 --only playouts "
                         "--rule 'tiles=*:0,D:2,E:3'", NULL, &out), 0);
    const char *line = strstr(out, "  vs carcassonne alone  ");
    double time_ratio, action_ratio, per_second, actions;
    if (!line || sscanf(line, " vs carcassonne alone %lfx time per game, %lfx per action  "
                              "(%lf playouts/s, %lf actions a game)", &time_ratio,
                        &action_ratio, &per_second, &actions) != 4)
        fail_msg("no comparison line:\n%s", out);
    /* Timings are printed, not judged: a loaded machine may round one to 0. */
    assert_true(time_ratio >= 0 && action_ratio >= 0 && per_second >= 0);
    assert_true(actions == 12.0); /* the game's own tile rule, without inns-cathedrals */
    free(out);
    assert_int_equal(run("bench --games 3 --only playouts", NULL, &out), 0);
    assert_null(strstr(out, "alone"));
    free(out);
    expect("bench --expansions inns-cathedrals --players 6 --games 2 --only playouts", NULL, 0,
           "  vs carcassonne alone   not measured: carcassonne: cannot create the game: 6\n"
           "    players");
}

/* --rounds: medians, and the range of the ratio per action around its
 * median. */
static void test_bench_rounds(void **unused)
{
    (void)unused;
    char *out;
    assert_int_equal(run("bench --expansions inns-cathedrals --games 2 --only playouts "
                         "--rounds 3 --rule 'tiles=*:0,D:2,E:3'", NULL, &out), 0);
    const char *line = strstr(out, "  vs carcassonne alone  ");
    double time_ratio, action_ratio, per_second, actions, low, high;
    if (!line || sscanf(line, " vs carcassonne alone %lfx time per game, %lfx per action  "
                              "(%lf playouts/s, %lf actions a game; median of 3 rounds, "
                              "%lfx to %lfx per action)", &time_ratio, &action_ratio,
                        &per_second, &actions, &low, &high) != 6)
        fail_msg("no comparison line over 3 rounds:\n%s", out);
    assert_true(low <= action_ratio && action_ratio <= high);
    free(out);
    expect("bench --games 2 --rounds 0", NULL, 2,
           "castellan bench: --rounds must be a whole number from 1 to 99, not \"0\"");
    expect("bench --games 2 --rounds 100", NULL, 2, "from 1 to 99, not \"100\"");
}

/* The share of the cost per action of the game alone, as read from
 * expansion id's row of the marginal section, and the session's ratio
 * without it. */
static void marginal_row(const char *out, const char *id, double *share, double *without)
{
    char row[64];
    snprintf(row, sizeof row, "    %s ", id);
    const char *line = strstr(out, row);
    if (!line || sscanf(line + strlen(row), " %lf (%lfx carcassonne alone without it)", share,
                        without) != 2)
        fail_msg("no marginal row for %s:\n%s", id, out);
}

/* --marginal: a row a expansion, and the interplay is what the shares
 * leave of the session's excess over the game alone. */
static void test_bench_marginal(void **unused)
{
    (void)unused;
    char *out;
    assert_int_equal(run("bench --expansions inns-cathedrals,traders-builders --games 2 "
                         "--marginal --only marginal --rounds 3 --rule 'tiles=*:0,D:2,E:3'",
                         NULL, &out), 0);
    assert_non_null(strstr(out, "(medians of 3 rounds)"));
    double inns, traders, without_inns, without_traders, interplay, session;
    marginal_row(out, "inns-cathedrals", &inns, &without_inns);
    marginal_row(out, "traders-builders", &traders, &without_traders);
    const char *line = strstr(out, "    their interplay ");
    if (!line || sscanf(line, " their interplay %lf (the session's %lfx less the shares above)",
                        &interplay, &session) != 2)
        fail_msg("no interplay row:\n%s", out);
    /* each printed to 0.01: the three add up to the excess within rounding */
    double gap = inns + traders + interplay - (session - 1);
    assert_true(gap >= -0.03 && gap <= 0.03);
    assert_true(without_inns >= 0 && without_traders >= 0);
    free(out);
    expect("bench --games 2 --only marginal", NULL, 0,
           "  marginal cost          not measured: no expansions (give --expansions)");
    /* a game nobody wrote an expansion for is not told to add one */
    expect("bench --game castles-cards --games 2 --only marginal", NULL, 0,
           "  marginal cost          not measured: the game has no expansions\n");
    /* six players need inns-cathedrals' sixth colour: no game alone to
     * measure the shares in */
    expect("bench --expansions inns-cathedrals,traders-builders --players 6 --games 1 "
           "--only marginal", NULL, 0,
           "  marginal cost          not measured: carcassonne: cannot create the game:");
}

/* Copy file `from` to the new file `to`. */
static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char block[4096];
    size_t got;
    while ((got = fread(block, 1, sizeof block, in)) > 0)
        assert_int_equal(fwrite(block, 1, got, out), got);
    fclose(in);
    assert_int_equal(fclose(out), 0);
}

/* Games saved by the castellan of before engine speed 2 (issue 18: new
 * board, bag and state layout; the state hash is over the serialized
 * bytes, which did not change): their records import with every hash
 * equal, and the unfinished game resumes from that castellan's database. */
static void test_saves_from_before_engine_speed_2(void **unused)
{
    (void)unused;
    char dir[] = "/tmp/castellan-old-saves-XXXXXX", args[2048], db[128];
    assert_non_null(mkdtemp(dir));
    snprintf(db, sizeof db, "%s/imported.db", dir);
    static const char *const records[][2] = {
        {"base-seed18.record", "as game 1 (213 plies, finished)"},
        {"combined-seed1118.record", "as game 2 (339 plies, finished)"},
        {"base-unfinished-seed77.record", "as game 3 (19 plies, unfinished)"},
        {"base-pool4-seed4.record", "as game 4 (861 plies, finished)"},
    };
    for (size_t i = 0; i < sizeof records / sizeof records[0]; i++) {
        snprintf(args, sizeof args, "import '%s/%s' --database '%s'", CLI_DATA_DIR,
                 records[i][0], db);
        expect(args, NULL, 0, records[i][1]);
    }
    snprintf(db, sizeof db, "%s/old.db", dir);
    copy_file(CLI_DATA_DIR "/pre-speed2-saves.db", db);
    snprintf(args, sizeof args, "resume 3 --database '%s'", db);
    expect(args, "quit\n", 0, "Game 3 is saved at ply 19");
    snprintf(args, sizeof args, "rm -rf '%s'", dir);
    assert_int_equal(system(args), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_help_and_version),
        cmocka_unit_test(test_a_full_standard_output_fails),
        cmocka_unit_test(test_saves_from_before_engine_speed_2),
        cmocka_unit_test(test_unknown_names_get_the_closest),
        cmocka_unit_test(test_bad_tile_set_names_its_line),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_play_config_errors),
        cmocka_unit_test(test_play_preset_is_repeatable),
        cmocka_unit_test(test_play_human_through_stdin),
        cmocka_unit_test(test_play_human_quits),
        cmocka_unit_test(test_rules_lists_every_option),
        cmocka_unit_test(test_help_explains_every_expansion),
        cmocka_unit_test(test_castles_shown_before_the_picks),
        cmocka_unit_test(test_docs_config_example_plays),
        cmocka_unit_test(test_preset_comments_name_real_paths),
        cmocka_unit_test(test_play_campaign_flag),
        cmocka_unit_test(test_import_many_records),
        cmocka_unit_test(test_play_with_rules),
        cmocka_unit_test(test_check_good_and_broken),
        cmocka_unit_test(test_check_reports_a_crash),
        cmocka_unit_test(test_bench_prints_every_figure),
        cmocka_unit_test(test_tournament_and_mcts_seats),
        cmocka_unit_test(test_bench_with_rules),
        cmocka_unit_test(test_bad_rules_for_check_and_bench),
        cmocka_unit_test(test_check_with_rules),
        cmocka_unit_test(test_reproduce_line_runs),
        cmocka_unit_test(test_new_plugin_usage),
        cmocka_unit_test(test_bench_compares_with_the_game_alone),
        cmocka_unit_test(test_bench_rounds),
        cmocka_unit_test(test_bench_marginal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
