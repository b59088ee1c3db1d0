/*
 * test_json.c — the strict JSON object check the conformance checker
 * applies to JSON renders.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "json.h"

static size_t error_at(const char *text)
{
    return cas__json_object_error(text, strlen(text));
}

static void test_valid_objects(void **unused)
{
    (void)unused;
    static const char *const good[] = {
        "{}",
        " {\"a\":1}\n",
        "{\"a\":[1,-2.5e+3,0,0.25,true,false,null],\"b\":{\"c\":\"x\\\"\\u00e9\\n\"}}",
        "{\"players\":[{\"label\":\"Red\",\"hand\":[]}]}",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        if (error_at(good[i]) != 0)
            fail_msg("rejected at %zu: %s", error_at(good[i]), good[i]);
}

static void test_invalid_texts(void **unused)
{
    (void)unused;
    assert_int_equal(error_at(""), 1);
    assert_int_equal(error_at("[1]"), 1);           /* not an object */
    assert_int_equal(error_at("{\"a\":1,}"), 8);    /* trailing comma */
    assert_int_equal(error_at("{\"a\":01}"), 7);    /* leading zero */
    assert_int_equal(error_at("{\"a\":1} {}"), 9);  /* two values */
    assert_int_equal(error_at("{a:1}"), 2);         /* unquoted key */
    assert_int_equal(error_at("{\"a\":\"x\ty\"}"), 8); /* raw tab in a string */
    assert_int_equal(error_at("{\"a\":\"\\x\"}"), 9); /* bad escape */
    assert_int_equal(error_at("{\"a\":tru}"), 6);
    assert_true(error_at("{\"a\":[1,2}") > 0);
    assert_true(cas__json_object_error("{}\0", 3) > 0); /* a NUL after it */
}

static void test_deep_nesting_is_refused(void **unused)
{
    (void)unused;
    char text[2100] = "{\"a\":";
    size_t len = strlen(text);
    for (int i = 0; i < 1000; i++)
        text[len++] = '[';
    text[len] = '\0';
    assert_true(error_at(text) > 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_objects),
        cmocka_unit_test(test_invalid_texts),
        cmocka_unit_test(test_deep_nesting_is_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
