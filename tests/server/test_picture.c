/*
 * test_picture.c — a picture's keyed elements and its changes
 * (host/server/picture.c): what is cut, what goes whole, and that the
 * changes from one picture turn it into the next (added, changed, removed,
 * moved elements, the root's start tag), and a cut that knows the picture
 * before is the same cut.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "picture_patch.h"
#include "server.h"

#define HEAD "<?xml version=\"1.0\"?>\n<!-- a comment -->\n"
#define ROOT "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 10 10\">"

static void take(struct cas__picture *pic, const char *svg)
{
    cas__picture_take(pic, strdup(svg), strlen(svg));
}

/* The changes from a to b as text (NULL: whole picture). */
static char *changes(const char *a, const char *b)
{
    struct cas__picture x, y;
    struct cas__jw w;
    take(&x, a);
    take(&y, b);
    cas__jw_init(&w);
    char *out = cas__picture_diff(&x, &y, &w) == 0 ? strdup(cas__jw_text(&w)) : NULL;
    cas__jw_free(&w);
    cas__picture_free(&x);
    cas__picture_free(&y);
    return out;
}

/* The changes from a to b turn a into b. */
static void expect_round_trip(const char *a, const char *b)
{
    char *d = changes(a, b);
    assert_non_null(d);
    char *got = picture_patch_text(strdup(a), d, strlen(d));
    assert_non_null(got);
    if (!picture_same(got, b))
        fail_msg("changes %s turned\n%s\ninto\n%s\nnot\n%s", d, a, got, b);
    free(got);
    free(d);
}

static void test_cuts_keyed_elements(void **state)
{
    (void)state;
    struct cas__picture pic;
    take(&pic, HEAD ROOT "\n<style data-cas-key=\"s\"><![CDATA[ a>b{} </g> ]]></style>\n"
               "<g data-cas-key=\"a\" class=\"x>y\"><g><rect/></g><!-- </g> --></g>"
               "<rect data-cas-key=\"b\" title='a > b'/>\n</svg>\n");
    assert_true(pic.keyed);
    assert_int_equal(pic.n, 3);
    const char *bytes = cas__picture_bytes(&pic);
    assert_memory_equal(bytes + pic.parts[1].key, "a", 1);
    assert_memory_equal(bytes + pic.parts[1].at + pic.parts[1].len - 4, "</g>", 4);
    assert_memory_equal(bytes + pic.root_at, "<svg ", 5);
    cas__picture_free(&pic);
}

/* Anything off the convention goes whole: an unkeyed element, a key twice,
 * text between elements, no root, a truncated picture. */
static void test_goes_whole_off_the_convention(void **state)
{
    (void)state;
    static const char *const whole[] = {
        ROOT "<g data-cas-key=\"a\"/><rect/></svg>",
        ROOT "<g data-cas-key=\"a\"/><g data-cas-key=\"a\"/></svg>",
        ROOT "<g data-cas-key=\"a\"/>words<g data-cas-key=\"b\"/></svg>",
        ROOT "<g data-cas-key=\"\"/></svg>",
        "<g data-cas-key=\"a\"/>",
        ROOT "<g data-cas-key=\"a\"><rect/>",
        ROOT "</svg>",
        "",
    };
    for (size_t i = 0; i < sizeof whole / sizeof *whole; i++) {
        struct cas__picture pic;
        take(&pic, whole[i]);
        if (pic.keyed)
            fail_msg("cut as keyed: %s", whole[i]);
        cas__picture_free(&pic);
        assert_null(changes(whole[i], ROOT "<g data-cas-key=\"a\"/></svg>"));
    }
}

static void test_changes_turn_one_picture_into_the_next(void **state)
{
    (void)state;
    const char *a = ROOT "<g data-cas-key=\"a\">1</g><g data-cas-key=\"b\">2</g>"
                         "<g data-cas-key=\"c\">3</g><g data-cas-key=\"d\">4</g></svg>";
    /* nothing changed: nothing sent */
    char *d = changes(a, a);
    assert_string_equal(d, "{\"put\":[],\"remove\":[]}");
    free(d);
    /* one element changed: only it */
    d = changes(a, ROOT "<g data-cas-key=\"a\">1</g><g data-cas-key=\"b\">2!</g>"
                        "<g data-cas-key=\"c\">3</g><g data-cas-key=\"d\">4</g></svg>");
    assert_string_equal(d, "{\"put\":[[\"b\",\"a\",\"<g data-cas-key=\\\"b\\\">2!<\\/g>\"]],"
                           "\"remove\":[]}");
    free(d);
    /* added first, in the middle and last; removed; changed */
    expect_round_trip(a, ROOT "<g data-cas-key=\"z\"/><g data-cas-key=\"a\">1</g>"
                              "<g data-cas-key=\"y\"/><g data-cas-key=\"c\">3</g>"
                              "<g data-cas-key=\"d\">5</g><g data-cas-key=\"x\"/></svg>");
    /* moved: d to the front, a to the end */
    expect_round_trip(a, ROOT "<g data-cas-key=\"d\">4</g><g data-cas-key=\"b\">2</g>"
                              "<g data-cas-key=\"c\">3</g><g data-cas-key=\"a\">1</g></svg>");
    /* the root's start tag: sent when it changed */
    const char *grown = "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"-10 0 20 10\">"
                        "<g data-cas-key=\"a\">1</g><g data-cas-key=\"b\">2</g>"
                        "<g data-cas-key=\"c\">3</g><g data-cas-key=\"d\">4</g></svg>";
    d = changes(a, grown);
    assert_non_null(strstr(d, "\"root\":\"<svg "));
    free(d);
    expect_round_trip(a, grown);
    /* everything replaced */
    expect_round_trip(a, ROOT "<g data-cas-key=\"e\"/></svg>");
}

/* Cut knowing the picture `before`, the picture `now` is cut exactly as
 * without, and its changes from `before` are the same. */
static void expect_same_cut_after(const char *before, const char *now)
{
    struct cas__picture prev, plain, after;
    take(&prev, before);
    take(&plain, now);
    cas__picture_take_after(&after, strdup(now), strlen(now), &prev);
    assert_int_equal(after.keyed, plain.keyed);
    assert_int_equal(after.n, plain.n);
    if (plain.keyed) {
        assert_int_equal(after.root_at, plain.root_at);
        assert_int_equal(after.root_len, plain.root_len);
        for (size_t k = 0; k < plain.n; k++) {
            const struct cas__pic_part *a = &after.parts[k], *b = &plain.parts[k];
            assert_int_equal(a->key, b->key);
            assert_int_equal(a->key_len, b->key_len);
            assert_int_equal(a->at, b->at);
            assert_int_equal(a->len, b->len);
            assert_int_equal(b->was, -1); /* cut after nothing */
            /* the hint names prev's part of the same key, or none */
            if (a->was >= 0) {
                const struct cas__pic_part *q = &prev.parts[a->was];
                assert_true(prev.keyed && (size_t)a->was < prev.n);
                assert_memory_equal(cas__picture_bytes(&prev) + q->key,
                                    cas__picture_bytes(&after) + a->key, a->key_len);
                assert_int_equal(q->key_len, a->key_len);
            }
        }
        assert_memory_equal(after.sorted, plain.sorted, plain.n * sizeof *plain.sorted);
        /* and the changes from prev are the same, hinted or not */
        struct cas__jw wa, wp;
        cas__jw_init(&wa);
        cas__jw_init(&wp);
        int ra = cas__picture_diff(&prev, &after, &wa), rp = cas__picture_diff(&prev, &plain, &wp);
        assert_int_equal(ra, rp);
        if (ra == 0)
            assert_string_equal(cas__jw_text(&wa), cas__jw_text(&wp));
        cas__jw_free(&wa);
        cas__jw_free(&wp);
    }
    cas__picture_free(&prev);
    cas__picture_free(&plain);
    cas__picture_free(&after);
}

/* Cut knowing the picture before, a picture is cut exactly as without:
 * every pair of a set of pictures (kept, changed, added, removed, moved,
 * a duplicate key, old or new, a prefix of an element, unkeyed ones). */
static void test_a_cut_after_a_picture_is_the_same_cut(void **state)
{
    (void)state;
    static const char *const pictures[] = {
        HEAD ROOT "<g data-cas-key=\"a\">1</g><g data-cas-key=\"b\">2</g>"
                  "<g data-cas-key=\"c\">3</g><g data-cas-key=\"d\">4</g></svg>",
        ROOT "<g data-cas-key=\"a\">1</g>\n<g data-cas-key=\"b\">2!</g>\n"
             "<g data-cas-key=\"c\">3</g><g data-cas-key=\"d\">4</g></svg>",
        ROOT "<g data-cas-key=\"z\"/><g data-cas-key=\"a\">1</g><g data-cas-key=\"y\"/>"
             "<g data-cas-key=\"c\">3</g><g data-cas-key=\"d\">5</g><g data-cas-key=\"x\"/></svg>",
        ROOT "<g data-cas-key=\"d\">4</g><g data-cas-key=\"b\">2</g>"
             "<!-- between --><g data-cas-key=\"c\">3</g><g data-cas-key=\"a\">1</g></svg>",
        ROOT "<g data-cas-key=\"a\">1</g><g data-cas-key=\"a\">1</g></svg>",
        ROOT "<g data-cas-key=\"a\">1</g><g data-cas-key=\"q\"/><g data-cas-key=\"q\"/></svg>",
        ROOT "<g data-cas-key=\"a\">1</g><g data-cas-key=\"b\">2</g></svg>",
        ROOT "<g data-cas-key=\"a\">1</g><g data-cas-key=\"b\">2</g><g>unkeyed</g></svg>",
        ROOT "<g data-cas-key=\"a\">1<g>2</g></g><g data-cas-key=\"b\">2</g><g data-cas-key=\"c\">3</g>"
             "<g data-cas-key=\"d\">4</g></svg>",
        "<svg viewBox=\"0 0 1 1\"><g data-cas-key=\"a\">1</g><g data-cas-key=\"b\">2",
    };
    size_t n = sizeof pictures / sizeof pictures[0];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++)
            expect_same_cut_after(pictures[i], pictures[j]);
}

/* Keys are ordered by their bytes, then length (a key before those it is
 * a prefix of), however much of them their first 8 bytes decide; a key
 * twice is found twice when the two differ nowhere, and not when they
 * differ past byte 8. */
static void test_keys_that_share_their_first_bytes(void **state)
{
    (void)state;
    static const char *const keys[] = {
        "tile-long-key-2", "tile-long-key-10", "tile-lon", "tile-lo", "t", "tile-long-key-1",
        "\xc3\xa9t\xc3\xa9", "tile-long-kez", "tile-long", "tile-lon\x01", "tile-long-key-1x",
    };
    size_t n = sizeof keys / sizeof *keys;
    char svg[2048], moved[2048];
    size_t len = (size_t)snprintf(svg, sizeof svg, "%s", ROOT), mlen = len;
    memcpy(moved, svg, len);
    for (size_t i = 0; i < n; i++) {
        len += (size_t)snprintf(svg + len, sizeof svg - len, "<g data-cas-key=\"%s\">%zu</g>",
                                keys[i], i);
        /* the other picture: backwards, every third changed */
        mlen += (size_t)snprintf(moved + mlen, sizeof moved - mlen,
                                 "<g data-cas-key=\"%s\">%zu</g>", keys[n - 1 - i],
                                 (n - 1 - i) + ((n - 1 - i) % 3 == 0 ? 100 : 0));
    }
    snprintf(svg + len, sizeof svg - len, "</svg>");
    snprintf(moved + mlen, sizeof moved - mlen, "</svg>");
    struct cas__picture pic;
    take(&pic, svg);
    assert_true(pic.keyed);
    assert_int_equal(pic.n, n);
    for (size_t i = 1; i < n; i++) {
        const char *a = keys[pic.sorted[i - 1]], *b = keys[pic.sorted[i]];
        size_t la = strlen(a), lb = strlen(b);
        int c = memcmp(a, b, la < lb ? la : lb);
        if (!(c < 0 || (c == 0 && la < lb)))
            fail_msg("\"%s\" sorted before \"%s\"", a, b);
    }
    cas__picture_free(&pic);
    expect_round_trip(svg, moved);
    expect_round_trip(moved, svg);
    expect_same_cut_after(moved, svg);
    expect_same_cut_after(svg, moved);
    /* the same long key twice, and two that differ only past byte 8 */
    take(&pic, ROOT "<g data-cas-key=\"tile-long-key-7\"/><g data-cas-key=\"tile-long-key-7\"/>"
                    "</svg>");
    assert_false(pic.keyed);
    cas__picture_free(&pic);
    take(&pic, ROOT "<g data-cas-key=\"tile-long-key-7\"/><g data-cas-key=\"tile-long-key-8\"/>"
                    "</svg>");
    assert_true(pic.keyed);
    cas__picture_free(&pic);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cuts_keyed_elements),
        cmocka_unit_test(test_goes_whole_off_the_convention),
        cmocka_unit_test(test_changes_turn_one_picture_into_the_next),
        cmocka_unit_test(test_a_cut_after_a_picture_is_the_same_cut),
        cmocka_unit_test(test_keys_that_share_their_first_bytes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
