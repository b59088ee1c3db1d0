/*
 * test_json.c — the strict JSON object check the conformance checker
 * applies to JSON renders, and the tree `import` hands to import_foreign.
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

static void test_tree_holds_values_keys_and_places(void **unused)
{
    (void)unused;
    static const char text[] =
        "{\"a\": [1, -2.5e3, true, null],\n"
        " \"s\": \"x\\n\\u00e9\\ud83d\\ude00\\\"\",\n"
        " \"o\": {}}";
    struct cas_json *root;
    size_t line, offset;
    assert_int_equal(cas__json_parse(text, sizeof text - 1, &root, &line, &offset), CAS_OK);
    assert_int_equal(root->type, CAS_JSON_OBJECT);
    assert_int_equal(root->n, 3);
    const struct cas_json *a = &root->items[0], *s = &root->items[1], *o = &root->items[2];
    assert_string_equal(a->key, "a");
    assert_int_equal(a->type, CAS_JSON_ARRAY);
    assert_int_equal(a->n, 4);
    assert_string_equal(a->items[1].text, "-2.5e3");
    assert_int_equal(a->items[2].type, CAS_JSON_TRUE);
    assert_int_equal(a->items[3].type, CAS_JSON_NULL);
    assert_int_equal(s->type, CAS_JSON_STRING);
    assert_string_equal(s->text, "x\n\xc3\xa9\xf0\x9f\x98\x80\"");
    assert_int_equal(s->len, 9);
    assert_int_equal(s->line, 2);
    assert_int_equal(o->line, 3);
    assert_int_equal(o->offset, 71);
    assert_int_equal(o->n, 0);
    cas__json_free(root);
}

static void test_tree_refuses_bad_text_with_its_line(void **unused)
{
    (void)unused;
    struct cas_json *root;
    size_t line, offset;
    static const char text[] = "{\"a\": 1,\n \"b\": [1,]}";
    assert_int_equal(cas__json_parse(text, sizeof text - 1, &root, &line, &offset),
                     CAS_EPARSE);
    assert_null(root);
    assert_int_equal(line, 2);
    assert_int_equal(offset, 19); /* the "]" after a trailing comma */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid_objects),
        cmocka_unit_test(test_invalid_texts),
        cmocka_unit_test(test_deep_nesting_is_refused),
        cmocka_unit_test(test_tree_holds_values_keys_and_places),
        cmocka_unit_test(test_tree_refuses_bad_text_with_its_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
