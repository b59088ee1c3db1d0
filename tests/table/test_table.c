/*
 * test_table.c — a person at the table, through a pseudo-terminal: the
 * real castellan executable plays Carcassonne and castles-cards against a
 * greedy bot while the test types as a player would: place by number, ask
 * for a hint, take a decision back, quit, resume; with colour on a
 * terminal, and off with NO_COLOR or TERM=dumb.  The test waits for what
 * the program prints, never for time.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pty_run.h"

#define COLUMNS 100

enum colour { COLOUR_ON, NO_COLOR_SET, TERM_DUMB };

/* A fresh save folder for one test. */
struct table {
    char data[64];
    char env_data[128], env_home[128], env_term[32];
    char *envp[8];
};

static void set_table(struct table *t, enum colour colour)
{
    snprintf(t->data, sizeof t->data, "/tmp/castellan-table-XXXXXX");
    assert_non_null(mkdtemp(t->data));
    snprintf(t->env_data, sizeof t->env_data, "XDG_DATA_HOME=%s", t->data);
    snprintf(t->env_home, sizeof t->env_home, "HOME=%s", t->data);
    snprintf(t->env_term, sizeof t->env_term, "TERM=%s",
             colour == TERM_DUMB ? "dumb" : "xterm-256color");
    size_t n = 0;
    t->envp[n++] = t->env_data;
    t->envp[n++] = t->env_home;
    t->envp[n++] = t->env_term;
    t->envp[n++] = "LC_ALL=C";
    if (colour == NO_COLOR_SET)
        t->envp[n++] = "NO_COLOR=1";
    if (getenv("ASAN_OPTIONS"))
        t->envp[n++] = "ASAN_OPTIONS=detect_leaks=1";
    t->envp[n] = NULL;
}

static void clear_table(struct table *t)
{
    char command[128];
    snprintf(command, sizeof command, "rm -rf '%s'", t->data);
    assert_int_equal(system(command), 0);
}

/* castellan ARGS... on a pty `columns` wide at this table. */
static void start_at(struct pty_run *r, struct table *t, const char *const *args, int columns)
{
    char *argv[16];
    size_t n = 0;
    argv[n++] = CASTELLAN_EXE;
    for (; *args; args++)
        argv[n++] = (char *)*args;
    argv[n] = NULL;
    pty_start(r, argv, t->envp, columns);
}

static void start(struct pty_run *r, struct table *t, const char *const *args)
{
    start_at(r, t, args, COLUMNS);
}

/* Every line of out fits `columns`, escapes aside. */
static void expect_lines_fit(const char *out, int columns)
{
    for (const char *line = out; *line;) {
        size_t len = strcspn(line, "\n"), width = 0;
        for (size_t i = 0; i < len; i++) {
            if (line[i] == '\x1b') {
                while (i < len && line[i] != 'm')
                    i++;
                continue;
            }
            width++;
        }
        if (width > (size_t)columns)
            fail_msg("a line of %zu columns on a %d-column terminal:\n%.*s", width, columns,
                     (int)len, line);
        line += len + (line[len] == '\n');
    }
}

/* Colour as asked: escapes on a colour terminal, none at all otherwise;
 * and every line fits the terminal, escapes aside. */
static void expect_terminal_conventions(const char *out, enum colour colour)
{
    if (colour == COLOUR_ON)
        assert_non_null(strstr(out, "\x1b["));
    else if (strchr(out, '\x1b'))
        fail_msg("an escape with colour off:\n%s", strchr(out, '\x1b'));
    expect_lines_fit(out, COLUMNS);
}

/* The whole file at path, NUL-terminated (caller frees); fails the test
 * when it cannot be read. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    size_t cap = 1 << 16, len = 0, got;
    char *buf = malloc(cap);
    assert_non_null(buf);
    while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (len + 1 == cap) {
            buf = realloc(buf, cap *= 2);
            assert_non_null(buf);
        }
    }
    fclose(f);
    buf[len] = '\0';
    return buf;
}

static const char *const carcassonne[] = {"play", "--game", "carcassonne", "--players",
                                          "Me:human,greedy", "--seed", "5", NULL};

/* Seed 5 draws E first: choices 1 to 3 are the rotations south of the start
 * tile, 4 is E north of it (its city completes the start tile's, 4 points). */
static void carcassonne_place_hint_undo_quit_resume(enum colour colour)
{
    struct table t;
    struct pty_run r;
    set_table(&t, colour);
    start(&r, &t, carcassonne);
    pty_expect(&r, "Tile E turned 0, 90, 180, 270 degrees clockwise");
    pty_expect(&r, "    4. place E 0,-1 180\n");
    pty_expect(&r, "Me> ");
    pty_type(&r, "hint");
    pty_expect(&r, "The greedy bot would play 4. place E 0,-1 180\n");
    pty_expect(&r, "Me> ");
    pty_type(&r, "4");
    pty_expect(&r, "Me: place E 0,-1 180\n");
    pty_expect(&r, "Tile E as placed; the first choice on each feature");
    pty_expect(&r, "Me> ");
    pty_type(&r, "undo");
    pty_expect(&r, "Me takes back: place E 0,-1 180\n");
    pty_expect(&r, "Me> ");
    pty_type(&r, "undo");
    pty_expect(&r, "Nothing to take back: a draw or another player's decision came after "
                   "yours.\n");
    pty_expect(&r, "Me> ");
    pty_type(&r, "1");
    pty_expect(&r, "Me: place E 0,1 90\n");
    pty_expect(&r, "Me> ");
    pty_type(&r, "score");
    pty_expect(&r, "Scores:\n  now                    Me (Red) 0, Player 2 (Blue) 0\n");
    pty_expect(&r, "Me> ");
    pty_type(&r, "quit");
    assert_int_equal(pty_finish(&r), 0);
    assert_non_null(strstr(r.out, "Game 1 is saved at ply 2; continue with: castellan "
                                  "resume 1"));
    expect_terminal_conventions(r.out, colour);
    pty_close(&r);

    /* resumed at the deploy decision: the placement may still be taken
     * back (nothing new came since), then the game goes on */
    static const char *const resume[] = {"resume", "1", NULL};
    start(&r, &t, resume);
    pty_expect(&r, "carcassonne, resuming at ply 2, seed 5");
    pty_expect(&r, "Me> ");
    pty_type(&r, "undo");
    pty_expect(&r, "Me takes back: place E 0,1 90\n");
    pty_expect(&r, "Me> ");
    pty_type(&r, "4");
    pty_expect(&r, "Me: place E 0,-1 180\n");
    pty_expect(&r, "Me> ");
    pty_type(&r, "1");
    pty_expect(&r, "Me: deploy meeple city S\n  Red +4 city (2 tiles, 0 coats)\n");
    pty_expect(&r, "Me> ");
    pty_type(&r, "quit");
    assert_int_equal(pty_finish(&r), 0);
    expect_terminal_conventions(r.out, colour);
    pty_close(&r);

    /* the journal is the game's line of play: the exported record starts
     * with the choices kept, none of the taken-back ones */
    static const char *const export[] = {"export", "1", NULL};
    start(&r, &t, export);
    assert_int_equal(pty_finish(&r), 0);
    assert_non_null(strstr(r.out, "\n0 -1 draw E #"));
    assert_non_null(strstr(r.out, "\n1 0 place E 0,-1 180 #"));
    assert_non_null(strstr(r.out, "\n2 0 deploy meeple city S #"));
    assert_null(strstr(r.out, "place E 0,1 90"));
    char *record = strdup(r.out);
    pty_close(&r);
    static const char *const export_dash[] = {"export", "1", "-o", "-", NULL};
    start(&r, &t, export_dash); /* "-" is standard output, as the usage says */
    assert_int_equal(pty_finish(&r), 0);
    assert_string_equal(r.out, record);
    free(record);
    pty_close(&r);
    static const char *const replay[] = {"replay", "1", NULL};
    start(&r, &t, replay);
    assert_int_equal(pty_finish(&r), 0); /* every hash checked again */
    pty_close(&r);
    clear_table(&t);
}

static void carcassonne_in_colour(void **unused)
{
    (void)unused;
    carcassonne_place_hint_undo_quit_resume(COLOUR_ON);
}

static void carcassonne_with_no_color(void **unused)
{
    (void)unused;
    carcassonne_place_hint_undo_quit_resume(NO_COLOR_SET);
}

static void carcassonne_on_a_dumb_terminal(void **unused)
{
    (void)unused;
    carcassonne_place_hint_undo_quit_resume(TERM_DUMB);
}

/* --watch wraps the journal's hooks: an undo is taken out of the save
 * too, so the next move is saved, not refused as another castellan's; the
 * picture follows the undo.  resume takes --watch as play does. */
static void carcassonne_watch_undo_and_resume(void **unused)
{
    (void)unused;
    struct table t;
    struct pty_run r;
    char svg[128];
    set_table(&t, TERM_DUMB);
    snprintf(svg, sizeof svg, "%s/board.svg", t.data);
    const char *const play[] = {"play", "--game", "carcassonne", "--players",
                                "Me:human,greedy", "--seed", "5", "--watch", svg, NULL};
    start(&r, &t, play);
    pty_expect(&r, "Me> ");
    char *drawn = slurp(svg);
    pty_type(&r, "4");
    pty_expect(&r, "Me: place E 0,-1 180\n");
    pty_expect(&r, "Me> ");
    char *picture = slurp(svg);
    assert_string_not_equal(picture, drawn);
    free(picture);
    pty_type(&r, "undo");
    pty_expect(&r, "Me takes back: place E 0,-1 180\n");
    pty_expect(&r, "Me> ");
    picture = slurp(svg); /* the board as before the undone placement */
    assert_string_equal(picture, drawn);
    free(picture);
    free(drawn);
    pty_type(&r, "1");
    pty_expect(&r, "Me: place E 0,1 90\n");
    pty_expect(&r, "Me> ");
    pty_type(&r, "quit");
    assert_int_equal(pty_finish(&r), 0);
    assert_null(strstr(r.out, "could not be saved"));
    assert_non_null(strstr(r.out, "Game 1 is saved at ply 2"));
    pty_close(&r);

    remove(svg);
    const char *const resume[] = {"resume", "1", "--watch", svg, NULL};
    start(&r, &t, resume);
    pty_expect(&r, "Me> ");
    pty_type(&r, "undo");
    pty_expect(&r, "Me takes back: place E 0,1 90\n");
    pty_expect(&r, "Me> ");
    pty_type(&r, "4");
    pty_expect(&r, "Me: place E 0,-1 180\n");
    pty_expect(&r, "Me> ");
    pty_type(&r, "quit");
    assert_int_equal(pty_finish(&r), 0);
    assert_null(strstr(r.out, "could not be saved"));
    assert_non_null(strstr(r.out, "Game 1 is saved at ply 2"));
    pty_close(&r);
    picture = slurp(svg);
    assert_non_null(strstr(picture, "<svg"));
    free(picture);
    clear_table(&t);
}

/* On a narrow terminal the help, the board's prose, a refused action and
 * a refused session wrap at spaces to its width. */
static void help_fits_a_narrow_terminal(void **unused)
{
    (void)unused;
    struct table t;
    struct pty_run r;
    set_table(&t, TERM_DUMB);
    static const char *const play[] = {"play", "--game", "carcassonne", "--expansions",
                                       "abbey-mayor", "--players", "Me:human,greedy",
                                       "--seed", "5", "--no-save", NULL};
    start_at(&r, &t, play, 60);
    pty_expect(&r, "Me> ");
    pty_type(&r, "help");
    pty_expect(&r, "  undo   take back your last decision, back to the last new\n"
                   "         information (a draw, or another player's decision);\n");
    pty_expect(&r, "Me> ");
    pty_type(&r, "place foo");
    pty_expect(&r, "Me> ");
    pty_type(&r, "quit");
    assert_int_equal(pty_finish(&r), 0);
    /* echo is off: what a player types, and the Enter after it, is not in
     * the output, so the answer follows a prompt on its line */
    for (char *prompt = strstr(r.out, "Me> "); prompt; prompt = strstr(prompt, "Me> "))
        prompt[3] = '\n';
    expect_lines_fit(r.out, 60);
    pty_close(&r);
    /* a refused session's explanation too */
    static const char *const wrong[] = {"play", "--game", "carcassonne", "--rule",
                                        "abbey-mayor.wagon-move=C1", NULL};
    start_at(&r, &t, wrong, 60);
    assert_int_equal(pty_finish(&r), 1);
    assert_non_null(strstr(r.out, "castellan play: --rule abbey-mayor.wagon-move: abbey-mayor\n"
                                  "    is not in this session;"));
    expect_lines_fit(r.out, 60);
    pty_close(&r);
    clear_table(&t);
}

static const char *const castles[] = {"play", "--game", "castles-cards", "--players",
                                      "Me:human,greedy", "--seed", "5", NULL};

/* Seed 5: Red's first decisions are draws; the card drawn is shown with
 * what it does, choices are marked on the Kingdom's rows; a draw is new
 * information, so nothing before it can be taken back. */
static void castles_place_hint_undo_quit_resume(enum colour colour)
{
    struct table t;
    struct pty_run r;
    set_table(&t, colour);
    start(&r, &t, castles);
    pty_expect(&r, "Me, your move:\n    1. draw\n");
    pty_expect(&r, "Me> ");
    pty_type(&r, "hint");
    pty_expect(&r, "The greedy bot would play 1. draw\n");
    pty_expect(&r, "Me> ");
    pty_type(&r, "1");
    pty_expect(&r, "Me: draw\n  Red draws general40\n");
    pty_expect(&r, "Me> ");
    pty_type(&r, "undo");
    pty_expect(&r, "Nothing to take back: a draw or another player's decision came after "
                   "yours.\n");
    pty_expect(&r, "Me> ");
    pty_type(&r, "1");
    pty_expect(&r, "Me: draw\n  Red draws magician60\n");
    pty_expect(&r, "w1 magician60");
    pty_expect(&r, "<- 2");
    pty_expect(&r, "Me> ");
    pty_type(&r, "help");
    pty_expect(&r, "Castles actions");
    pty_expect(&r, "Me> ");
    pty_type(&r, "quit");
    assert_int_equal(pty_finish(&r), 0);
    assert_non_null(strstr(r.out, "continue with: castellan resume 1"));
    expect_terminal_conventions(r.out, colour);
    pty_close(&r);

    static const char *const resume[] = {"resume", "1", NULL};
    start(&r, &t, resume);
    pty_expect(&r, "castles-cards, resuming at ply");
    pty_expect(&r, "    2. magician w1\n");
    pty_expect(&r, "Me> ");
    pty_type(&r, "1");
    pty_expect(&r, "Me: no block\n");
    pty_expect(&r, "Me> ");
    pty_type(&r, "quit");
    assert_int_equal(pty_finish(&r), 0);
    expect_terminal_conventions(r.out, colour);
    pty_close(&r);
    clear_table(&t);
}

static void castles_in_colour(void **unused)
{
    (void)unused;
    castles_place_hint_undo_quit_resume(COLOUR_ON);
}

static void castles_with_no_color(void **unused)
{
    (void)unused;
    castles_place_hint_undo_quit_resume(NO_COLOR_SET);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(carcassonne_in_colour),
        cmocka_unit_test(carcassonne_with_no_color),
        cmocka_unit_test(carcassonne_on_a_dumb_terminal),
        cmocka_unit_test(carcassonne_watch_undo_and_resume),
        cmocka_unit_test(help_fits_a_narrow_terminal),
        cmocka_unit_test(castles_in_colour),
        cmocka_unit_test(castles_with_no_color),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
