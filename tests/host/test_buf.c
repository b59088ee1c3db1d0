/*
 * test_buf.c — the growable byte buffer (host/util/buf.h): bytes and
 * formatted text appended in order and NUL-terminated, long formatted
 * pieces, writing into reserved room, the limit that stops untrusted
 * input (sticky, nothing half-added), taking the bytes, reuse after
 * reset and free; arrays grown by doubling.
 */
#include <malloc.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "buf.h"

static void appends_in_order_and_terminates(void **unused)
{
    (void)unused;
    struct cas__buf b;
    cas__buf_init(&b, 0);
    assert_null(b.data);
    assert_int_equal(cas__buf_add(&b, "ab\0c", 4), CAS_OK);
    assert_int_equal(cas__buf_addstr(&b, "de"), CAS_OK);
    assert_int_equal(cas__buf_addf(&b, "-%d-%s", 42, "x"), CAS_OK);
    assert_int_equal(b.len, 11);
    assert_memory_equal(b.data, "ab\0cde-42-x", 12); /* the NUL past len too */
    assert_int_equal(b.failed, CAS_OK);
    cas__buf_free(&b);
    assert_null(b.data);
    assert_int_equal(b.len, 0);
}

static void long_formatted_pieces_grow_it(void **unused)
{
    (void)unused;
    struct cas__buf b;
    cas__buf_init(&b, 0);
    char word[1000];
    memset(word, 'w', sizeof word - 1);
    word[sizeof word - 1] = '\0';
    for (int i = 0; i < 50; i++)
        assert_int_equal(cas__buf_addf(&b, "%s%d;", word, i), CAS_OK);
    size_t expected = 50 * (999 + 1) + 10 * 1 + 40 * 2;
    assert_int_equal(b.len, expected);
    assert_int_equal(strlen(b.data), expected);
    assert_memory_equal(b.data + 999, "0;", 2);
    assert_memory_equal(b.data + b.len - 3, "49;", 3);
    assert_true(b.cap >= b.len);
    cas__buf_free(&b);
}

static void writes_into_reserved_room(void **unused)
{
    (void)unused;
    struct cas__buf b;
    cas__buf_init(&b, 0);
    assert_int_equal(cas__buf_addstr(&b, "head:"), CAS_OK);
    assert_int_equal(cas__buf_reserve(&b, 5000), CAS_OK);
    assert_true(b.cap - b.len >= 5000);
    memset(b.data + b.len, 'z', 5000);
    cas__buf_setlen(&b, b.len + 5000);
    assert_int_equal(b.len, 5005);
    assert_int_equal(strlen(b.data), 5005);
    /* Adding nothing still gives an empty text, not NULL. */
    struct cas__buf empty;
    struct cas__buf zeroed = {0};
    assert_int_equal(cas__buf_addstr(&zeroed, "zeroed works"), CAS_OK);
    assert_string_equal(zeroed.data, "zeroed works");
    cas__buf_free(&zeroed);
    cas__buf_init(&empty, 0);
    assert_int_equal(cas__buf_addf(&empty, "%s", ""), CAS_OK);
    assert_int_equal(empty.len, 0);
    assert_string_equal(empty.data, "");
    cas__buf_free(&empty);
    assert_int_equal(cas__buf_add(&empty, "", 0), CAS_OK);
    assert_string_equal(empty.data, "");
    cas__buf_free(&empty);
    cas__buf_free(&b);
}

static void the_limit_stops_growth_for_good(void **unused)
{
    (void)unused;
    struct cas__buf b;
    cas__buf_init(&b, 10);
    assert_int_equal(cas__buf_addstr(&b, "0123456789"), CAS_OK); /* exactly the limit */
    assert_true(b.cap <= 10);
    assert_int_equal(cas__buf_add(&b, "x", 1), CAS_ENOSPC);
    assert_int_equal(b.len, 10);
    assert_string_equal(b.data, "0123456789");
    /* Sticky: later additions, even ones that would fit, change nothing. */
    cas__buf_setlen(&b, 2);
    assert_int_equal(cas__buf_addstr(&b, "a"), CAS_ENOSPC);
    assert_int_equal(cas__buf_addf(&b, "%d", 1), CAS_ENOSPC);
    assert_int_equal(cas__buf_reserve(&b, 1), CAS_ENOSPC);
    assert_string_equal(b.data, "01");
    /* A failed buffer gives nothing to take, and frees itself. */
    size_t len = 99;
    assert_null(cas__buf_take(&b, &len));
    assert_int_equal(len, 0);
    assert_null(b.data);

    /* A formatted piece past the limit is not added in part. */
    cas__buf_init(&b, 8);
    assert_int_equal(cas__buf_addstr(&b, "abc"), CAS_OK);
    assert_int_equal(cas__buf_addf(&b, "%s", "defghijk"), CAS_ENOSPC);
    assert_int_equal(b.len, 3);
    assert_string_equal(b.data, "abc");
    cas__buf_free(&b);

    /* A reserve that would overflow size_t is refused, not wrapped. */
    cas__buf_init(&b, 0);
    assert_int_equal(cas__buf_addstr(&b, "a"), CAS_OK);
    assert_int_equal(cas__buf_reserve(&b, SIZE_MAX), CAS_ENOSPC);
    cas__buf_free(&b);
}

/* Kept bytes give back what growth left free: 5,000 bytes grown to 8,192
 * come out in an allocation of about 5,000, whole. */
static void take_fit_gives_back_the_slack(void **unused)
{
    (void)unused;
    struct cas__buf b;
    cas__buf_init(&b, 0);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(cas__buf_addstr(&b, "abcde"), CAS_OK);
    assert_true(b.cap >= 8192);
    size_t len = 0;
    char *text = cas__buf_take_fit(&b, &len);
    assert_non_null(text);
    assert_int_equal(len, 5000);
    assert_true(malloc_usable_size(text) < 5100);
    for (int i = 0; i < 1000; i++)
        assert_memory_equal(text + 5 * i, "abcde", 5);
    assert_int_equal(text[5000], '\0');
    free(text);
    assert_null(b.data);
    assert_null(cas__buf_take_fit(&b, &len)); /* nothing held */
    assert_int_equal(len, 0);
}

static void take_hands_over_and_reset_reuses(void **unused)
{
    (void)unused;
    struct cas__buf b;
    cas__buf_init(&b, 100);
    size_t len = 99;
    assert_null(cas__buf_take(&b, &len)); /* never grew */
    assert_int_equal(len, 0);
    assert_int_equal(cas__buf_addstr(&b, "kept"), CAS_OK);
    char *text = cas__buf_take(&b, &len);
    assert_string_equal(text, "kept");
    assert_int_equal(len, 4);
    assert_null(b.data);
    assert_int_equal(b.max, 100);
    free(text);

    assert_int_equal(cas__buf_addstr(&b, "one"), CAS_OK);
    char *before = b.data;
    cas__buf_reset(&b);
    assert_int_equal(b.len, 0);
    assert_string_equal(b.data, "");
    assert_ptr_equal(b.data, before); /* memory kept */
    assert_int_equal(cas__buf_addstr(&b, "two"), CAS_OK);
    assert_string_equal(b.data, "two");
    /* reset also clears a failure */
    assert_int_equal(cas__buf_reserve(&b, 1000), CAS_ENOSPC);
    cas__buf_reset(&b);
    assert_int_equal(cas__buf_addstr(&b, "three"), CAS_OK);
    assert_string_equal(b.data, "three");
    cas__buf_free(&b);
}

static void arrays_grow_by_doubling(void **unused)
{
    (void)unused;
    uint64_t *items = NULL;
    size_t cap = 0;
    assert_int_equal(cas__grow((void **)&items, &cap, 1, sizeof *items), CAS_OK);
    assert_int_equal(cap, 64);
    for (size_t i = 0; i < 64; i++)
        items[i] = i;
    uint64_t *before = items;
    assert_int_equal(cas__grow((void **)&items, &cap, 64, sizeof *items), CAS_OK);
    assert_ptr_equal(items, before); /* enough room: nothing done */
    assert_int_equal(cas__grow((void **)&items, &cap, 300, sizeof *items), CAS_OK);
    assert_int_equal(cap, 512);
    for (size_t i = 0; i < 64; i++)
        assert_int_equal(items[i], i); /* kept */
    items[299] = 299;
    /* A count whose bytes would overflow is refused, the array kept. */
    assert_int_equal(cas__grow((void **)&items, &cap, SIZE_MAX / 4, sizeof *items), CAS_ENOMEM);
    assert_int_equal(cap, 512);
    assert_int_equal(items[299], 299);
    free(items);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(appends_in_order_and_terminates),
        cmocka_unit_test(long_formatted_pieces_grow_it),
        cmocka_unit_test(writes_into_reserved_room),
        cmocka_unit_test(the_limit_stops_growth_for_good),
        cmocka_unit_test(take_hands_over_and_reset_reuses),
        cmocka_unit_test(take_fit_gives_back_the_slack),
        cmocka_unit_test(arrays_grow_by_doubling),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
