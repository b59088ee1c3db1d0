/*
 * test_marks_verify.c — the reader of click-to-play marks behind `castellan
 * check`'s marks property (host/tools/marks.c): valid marks, each kind of
 * malformed mark, and reachability by clicks.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "marks.h"

static int verify(const char *svg, size_t n, struct cas__marks_report *r, char *why)
{
    return cas__marks_verify(svg, strlen(svg), n, r, NULL, why, 200);
}

/* Two spots, then two rotations: four placements, each one spot and one
 * rotation; the fifth action (pass) is a button. */
static void test_two_steps(void **state)
{
    (void)state;
    const char *svg =
        "<svg><style><![CDATA[a>b{}]]></style><!-- <g data-cas-step=\"x\"> -->"
        "<g class=\"mark\" data-cas-choices=\"0 1\" data-cas-step=\"1\" data-cas-label=\"a&gt;\">"
        "<rect/></g><g data-cas-choices=\"2 3\" data-cas-step=\"1\"/>"
        "<g data-cas-choices=\"0 2\" data-cas-step=\"2\"/><g data-cas-choices=\"1 3\" "
        "data-cas-step=\"2\"/></svg>";
    struct cas__marks_report r;
    char why[200];
    unsigned char each[5];
    assert_int_equal(cas__marks_verify(svg, strlen(svg), 5, &r, each, why, sizeof why), CAS_OK);
    assert_int_equal(r.elements, 4);
    assert_int_equal(r.marked, 4);
    assert_int_equal(r.reachable, 4);
    assert_true(r.unreachable == (size_t)-1);
    assert_int_equal(each[0], CAS__MARK_REACHABLE);
    assert_int_equal(each[4], CAS__MARK_NONE);
}

/* Two actions named only together can never be told apart. */
static void test_unreachable(void **state)
{
    (void)state;
    struct cas__marks_report r;
    char why[200];
    assert_int_equal(verify("<svg><g data-cas-choices=\"0 1\" data-cas-step=\"1\"/>"
                            "<g data-cas-choices=\"2\" data-cas-step=\"1\"/></svg>", 3, &r, why),
                     CAS_OK);
    assert_int_equal(r.marked, 3);
    assert_int_equal(r.reachable, 1);
    assert_int_equal(r.unreachable, 0);
    /* a later step may be skipped over, but never clicked before an earlier */
    assert_int_equal(verify("<svg><g data-cas-choices=\"0 1\" data-cas-step=\"1\"/>"
                            "<g data-cas-choices=\"0\" data-cas-step=\"3\"/></svg>", 2, &r, why),
                     CAS_OK);
    assert_int_equal(r.reachable, 1);
    assert_int_equal(r.unreachable, 1);
}

static void test_malformed(void **state)
{
    (void)state;
    static const char *const bad[] = {
        "<g data-cas-choices=\"0 5\" data-cas-step=\"1\"/>",  /* past the last action */
        "<g data-cas-choices=\"1 0\" data-cas-step=\"1\"/>",  /* not ascending */
        "<g data-cas-choices=\"1 1\" data-cas-step=\"1\"/>",  /* twice */
        "<g data-cas-choices=\"0  1\" data-cas-step=\"1\"/>", /* two spaces */
        "<g data-cas-choices=\"0 \" data-cas-step=\"1\"/>",   /* trailing space */
        "<g data-cas-choices=\"\" data-cas-step=\"1\"/>",     /* names nothing */
        "<g data-cas-choices=\"0\" data-cas-step=\"0\"/>",    /* step 0 */
        "<g data-cas-choices=\"0\" data-cas-step=\"x\"/>",    /* not a number */
        "<g data-cas-choices=\"0\"/>",                        /* no step */
        "<g data-cas-step=\"1\"/>",                           /* no choices */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct cas__marks_report r;
        char why[200];
        assert_int_equal(verify(bad[i], 3, &r, why), CAS_EPARSE);
        assert_non_null(strstr(why, "marked element 1"));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_two_steps),
        cmocka_unit_test(test_unreachable),
        cmocka_unit_test(test_malformed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
