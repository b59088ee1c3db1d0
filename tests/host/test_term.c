/*
 * test_term.c — terminal conventions: colour only for a terminal that
 * wants it (never for a file, nor with NO_COLOR or TERM=dumb), the width
 * from $COLUMNS off a terminal, lines wrapped at spaces to the width, and
 * the progress line's count, total and time left.  Colour on a real
 * terminal is tested through a pseudo-terminal in tests/table.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "term.h"

static void no_colour_off_a_terminal(void **unused)
{
    (void)unused;
    FILE *file = tmpfile();
    assert_non_null(file);
    setenv("TERM", "xterm", 1);
    unsetenv("NO_COLOR");
    assert_int_equal(cas__term_colour(file), 0);
    assert_int_equal(cas__term_format(file), CAS_RENDER_TEXT);
    fclose(file);
}

static void width_from_columns_with_a_floor(void **unused)
{
    (void)unused;
    FILE *file = tmpfile();
    setenv("COLUMNS", "132", 1);
    assert_int_equal(cas__term_width(file), 132);
    setenv("COLUMNS", "12", 1);
    assert_int_equal(cas__term_width(file), 40);
    unsetenv("COLUMNS");
    assert_int_equal(cas__term_width(file), 80);
    fclose(file);
}

static char *wrapped(int width, int indent, const char *text)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    cas__term_wrap(out, width, indent, text);
    fclose(out);
    return buf;
}

static void wrap_breaks_at_spaces_and_indents(void **unused)
{
    (void)unused;
    char *text = wrapped(40, 4, "saves: 16176 journaled actions/s (4258 actions of random "
                                "games, each committed)");
    assert_string_equal(text, "saves: 16176 journaled actions/s (4258\n"
                              "    actions of random games, each\n"
                              "    committed)\n");
    free(text);
    text = wrapped(40, 2, "short line");
    assert_string_equal(text, "short line\n");
    free(text);
    /* a word longer than the line stays whole */
    text = wrapped(40, 2, "a 0123456789012345678901234567890123456789012345 b");
    assert_string_equal(text, "a\n  0123456789012345678901234567890123456789012345\n  b\n");
    free(text);
}

static char *wrapped_block(int width, const char *text)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    cas__term_wrap_block(out, width, text);
    fclose(out);
    return buf;
}

/* A help text broken for 80 columns, shown on 60: its paragraphs joined
 * and wrapped again at spaces under their description column; drawings
 * and short lines as they are. */
static void wrap_block_reflows_prose_not_pictures(void **unused)
{
    (void)unused;
    char *text = wrapped_block(
        60,
        "Actions:\n"
        "  place ID X,Y ROT     put the drawn tile ID with its anchor at X,Y (the start\n"
        "                       tile is 0,0), turned ROT degrees clockwise\n"
        "  pass                 deploy nothing this turn\n"
        "0        90       180      270      0        90       180      270      0\n"
        ".###.    .....    ..|..    ..|..    .###.    .....    ..|..    ..|..    .\n"
        "The board marks the choices with their numbers; the drawn tile is shown.\n"
        "Next sentence.\n"
        "towers: 0/1 12/13[?] 19/20[?] 25/26[?] 31/32[?] 38/39[?] 44/45[?] 51/52[?]\n");
    assert_string_equal(text,
        "Actions:\n"
        "  place ID X,Y ROT     put the drawn tile ID with its anchor\n"
        "                       at X,Y (the start tile is 0,0),\n"
        "                       turned ROT degrees clockwise\n"
        "  pass                 deploy nothing this turn\n"
        "0        90       180      270      0        90       180      270      0\n"
        ".###.    .....    ..|..    ..|..    .###.    .....    ..|..    ..|..    .\n"
        "The board marks the choices with their numbers; the drawn\n"
        "tile is shown.\n"
        "Next sentence.\n"
        "towers: 0/1 12/13[?] 19/20[?] 25/26[?] 31/32[?] 38/39[?]\n"
        "44/45[?] 51/52[?]\n");
    free(text);
}

/* Colour escapes take no columns: a coloured line wraps where the same
 * line without colour would. */
static void wrap_ignores_colour_escapes(void **unused)
{
    (void)unused;
    char *text = wrapped_block(40, "\x1b[31mRed\x1b[0m  score 0 (track 0)  followers 6  keep 0  "
                                   "wall tiles: none\n");
    assert_string_equal(text, "\x1b[31mRed\x1b[0m  score 0 (track 0)  followers 6\n"
                              "     keep 0  wall tiles: none\n");
    free(text);
}

static void progress_counts_and_estimates_time_left(void **unused)
{
    (void)unused;
    char line[128];
    cas__progress_text(line, sizeof line, "check carcassonne", "games", 0, 1000, 0.0);
    assert_string_equal(line, "check carcassonne: 0/1000 games, ? left");
    /* 250 games in 30 s: 750 more take 90 s */
    cas__progress_text(line, sizeof line, "check carcassonne", "games", 250, 1000, 30.0);
    assert_string_equal(line, "check carcassonne: 250/1000 games, 1:30 left");
    cas__progress_text(line, sizeof line, "import", "records", 3, 3, 2.0);
    assert_string_equal(line, "import: 3/3 records, 0:00 left");
}

/* Off a terminal a progress line writes nothing at all. */
static void progress_is_silent_off_a_terminal(void **unused)
{
    (void)unused;
    FILE *file = tmpfile();
    struct cas__progress p;
    cas__progress_begin(&p, file, "check", "games", 10);
    for (int i = 1; i <= 10; i++)
        cas__progress_update(&p, (uint64_t)i);
    cas__progress_end(&p);
    assert_int_equal(ftell(file), 0);
    fclose(file);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_colour_off_a_terminal),
        cmocka_unit_test(width_from_columns_with_a_floor),
        cmocka_unit_test(wrap_breaks_at_spaces_and_indents),
        cmocka_unit_test(wrap_block_reflows_prose_not_pictures),
        cmocka_unit_test(wrap_ignores_colour_escapes),
        cmocka_unit_test(progress_counts_and_estimates_time_left),
        cmocka_unit_test(progress_is_silent_off_a_terminal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
