/*
 * test_decision_view.c — what a person sees before choosing (ABI 1.1
 * render_choices): the card in play drawn out with what its type does,
 * each choice numbered at the row of the chooser's Kingdom it concerns,
 * colour only added to the plain text; and the notation help.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "castles_fixture.h"

/* Red draws a MINION with WIZARDs in two columns: it may go under either
 * (choices 1 and 2) or under the empty third column (3). */
static void minion_choices_mark_the_wizard_rows(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "castle=castle w1=witch40 w2=mage40", "", 0);
    cc_draw(&g, "minion20");
    assert_string_equal(cc_legal(&g), "place minion20 w1\nplace minion20 w2\n"
                                      "place minion20 w3\n");
    char *text = cas_test_render_choices(&g, 0, CAS_RENDER_TEXT);
    assert_non_null(strstr(text, "\n  w1 witch40       <- 1\n"));
    assert_non_null(strstr(text, "\n  w2 mage40        <- 2\n"));
    assert_non_null(strstr(text, "\n  w3 -             <- 3\n"));
    static const char card[] =
        "Card in play:\n"
        "+------------+\n"
        "| MINION     |\n"
        "|         20 |\n"
        "+------------+\n"
        "  minion20: Blocker under a WIZARD, alone or with MAGICK\n";
    assert_non_null(strstr(text, card));
    /* Blue's Kingdom carries no marks: the choices are Red's */
    const char *blue = strstr(text, "\nBlue ");
    assert_non_null(blue);
    assert_null(strstr(blue, "<- 1\n"));
    cas_test_expect_width(text, 80);
    char *ansi = cas_test_render_choices(&g, 0, CAS_RENDER_ANSI);
    char *plain = cas_test_strip_ansi(ansi);
    assert_string_equal(plain, text);
    free(plain);
    free(ansi);
    free(text);
    cas_test_game_close(&g);
}

/* Without choices to show (the plain render), no marks and no legend. */
static void plain_render_has_no_marks(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open_with(&g, "castle=castle w1=witch40", "", 0);
    cc_draw(&g, "minion20");
    char *text = cas_test_render(&g, 0, CAS_RENDER_TEXT);
    assert_null(strstr(text, "<-"));
    free(text);
    cas_test_game_close(&g);
}

static void notation_help_lists_the_verbs(void **unused)
{
    (void)unused;
    struct cas_test_game g;
    cc_open(&g, NULL);
    char *help = cas_test_notation_help(&g);
    assert_non_null(strstr(help, "\n  topoff STACK DEPTH "));
    assert_non_null(strstr(help, "\n  war nobles|wizards "));
    cas_test_expect_width(help, 80);
    free(help);
    assert_null(g.vt->projected_returns); /* Castles defines no final scoring */
    cas_test_game_close(&g);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(minion_choices_mark_the_wizard_rows),
        cmocka_unit_test(plain_render_has_no_marks),
        cmocka_unit_test(notation_help_lists_the_verbs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
