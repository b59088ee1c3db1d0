/*
 * test_outbuf.c — the renders' buffered writer (plugin-api/castellan/
 * outbuf.h): cas_outf writes the conversions it knows (%d %u, with l or
 * ll, %zu %s %Ns %-Ns %.*s %c %%) itself in one pass, and what it writes is byte
 * for byte what vsnprintf writes, at the extremes of each type and across
 * the buffer's flushes; from any other conversion on, the rest of the
 * format goes through vsnprintf.  cas_out_json_text escapes what a JSON
 * string must not hold as it is; cas_out_sdigits, the one writer of a
 * signed decimal (cas_outi, the JSON writer, Carcassonne's texts).
 */
#define _GNU_SOURCE /* vasprintf */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <castellan/outbuf.h>

/* What the writer was handed, gathered in one string. */
struct sink {
    char *data;
    size_t len, writes;
};

static int sink_write(void *ctx, const char *data, size_t len)
{
    struct sink *s = ctx;
    char *grown = realloc(s->data, s->len + len + 1);
    if (!grown)
        return CAS_ENOMEM;
    memcpy(grown + s->len, data, len);
    s->data = grown;
    s->len += len;
    s->data[s->len] = '\0';
    s->writes++;
    return CAS_OK;
}

/* vsnprintf's text for fmt, in a malloc'd string. */
static char *expected(const char *fmt, ...) CAS_PRINTF(1, 2);
static char *expected(const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    char *text = NULL;
    assert_true(vasprintf(&text, fmt, args) >= 0);
    va_end(args);
    return text;
}

#define CHECK_SAME(...)                                                  \
    do {                                                                 \
        struct sink s = {NULL, 0, 0};                                    \
        struct cas_writer w = {.ctx = &s, .write = sink_write};         \
        struct cas_outbuf ob = CAS_OUTBUF_INIT(&w);                      \
        cas_outf(&ob, __VA_ARGS__);                                      \
        assert_int_equal(cas_out_finish(&ob), CAS_OK);                   \
        char *want = expected(__VA_ARGS__);                              \
        assert_string_equal(s.data ? s.data : "", want);                 \
        free(want);                                                      \
        free(s.data);                                                    \
    } while (0)

static void known_conversions_write_what_vsnprintf_writes(void **unused)
{
    (void)unused;
    CHECK_SAME("<rect x=\"%d\" y=\"%d\"/>", 0, -7);
    CHECK_SAME("%d %d %d", INT_MIN, INT_MAX, -1);
    CHECK_SAME("%u|%u", 0u, UINT_MAX);
    CHECK_SAME("%zu|%zu", (size_t)0, SIZE_MAX);
    CHECK_SAME("%s and %s%s", "text", "", "<tail>");
    CHECK_SAME("[%c%c]", 'k', '"');
    CHECK_SAME("100%% of %d%%", 42);
    CHECK_SAME("no conversion at all");
    CHECK_SAME("%d", 1000000007);
    CHECK_SAME("%ld|%ld|%lu", LONG_MIN, LONG_MAX, ULONG_MAX);
    CHECK_SAME("%lld|%lld|%llu|%lld", LLONG_MIN, LLONG_MAX, ULLONG_MAX, 0ll);
    CHECK_SAME("%u %u %u %u %u", 9u, 10u, 99u, 100u, 4294967295u);
    CHECK_SAME("%d %d %d %d %d %d %d %d", 999, 1000, -9999, 10000, 99999, -100000, 999999,
               1000000);
    CHECK_SAME("%d %d %d %d", 123456789, -1234567890, 1000000000, 99999999);
    CHECK_SAME("%llu %llu %lld", 4294967296ull, 10000000000ull, -4294967296ll);
    CHECK_SAME("[%.*s|%.*s|%.*s|%.*s]", 2, "xyz", 0, "xyz", 9, "xyz", -1, "whole");
    CHECK_SAME("%.*s%s", 3, "ab", "tail");
    CHECK_SAME("%s", "");
    CHECK_SAME("[%-8s|%8s|%-3s|%2s|%-40s|%1s]", "Red", "Blue", "Yellow", "toolong", "x", "");
    CHECK_SAME("%-10s goods: %d wine", "Green", 3);
}

static void other_conversions_hand_the_rest_to_vsnprintf(void **unused)
{
    (void)unused;
    CHECK_SAME("%3d|%-4s|%.*s|%lld|%04x", 7, "ab", 2, "xyz", -5ll, 255u);
    CHECK_SAME("%d then %2d", 1, 2);
    CHECK_SAME("%s %.1f", "pi", 3.14);
    CHECK_SAME("%d, %s, %c and then %5d, %s", -12, "known", 'q', 42, "after");
    CHECK_SAME("%lu then %lx", 7ul, 255ul);
    CHECK_SAME("%.2s then %.3d", "abc", 5);
    CHECK_SAME("%-4s|%3d|%-4s", "ab", 7, "cd");
    CHECK_SAME("%-s|%4d|%s", "ab", 5, "cd");
}

/* What a plugin may pass by mistake or on purpose: an absent string
 * (printf's "(null)", or nothing under a precision below 6) and a field
 * 4,096 bytes wide or wider (handed to vsnprintf with the rest). */
static void absent_strings_and_wide_fields_write_what_vsnprintf_writes(void **unused)
{
    (void)unused;
    const char *volatile none = NULL; /* unknown to the compiler's format checks */
    CHECK_SAME("[%s|%.*s|%.*s|%8s|%-8s]", none, 3, none, 6, none, none, none);
    CHECK_SAME("[%5000s]", "wide");
    CHECK_SAME("[%-4097s|%d|%s]", "x", 3, "after");
}

/* Many pieces across the 8 KiB buffer: flushed in large writes, in order,
 * equal to the same text printed at once; one plain piece longer than the
 * buffer is written whole. */
static void pieces_cross_the_buffer_in_order(void **unused)
{
    (void)unused;
    struct sink s = {NULL, 0, 0};
    struct cas_writer w = {.ctx = &s, .write = sink_write};
    struct cas_outbuf ob = CAS_OUTBUF_INIT(&w);
    size_t cap = 64 * CAS_OUTBUF_SIZE, len = 0;
    char *want = malloc(cap);
    assert_non_null(want);
    for (int i = -3000; i < 3000; i++) {
        cas_outf(&ob, "<use x=\"%d\" k=\"%s\"/>", i * 37, i % 2 ? "odd" : "even");
        len += (size_t)snprintf(want + len, cap - len, "<use x=\"%d\" k=\"%s\"/>", i * 37,
                                i % 2 ? "odd" : "even");
    }
    char *longer = malloc(3 * CAS_OUTBUF_SIZE);
    assert_non_null(longer);
    memset(longer, 'q', 3 * CAS_OUTBUF_SIZE - 1);
    longer[3 * CAS_OUTBUF_SIZE - 1] = '\0';
    cas_outf(&ob, "[%s]", longer);
    len += (size_t)snprintf(want + len, cap - len, "[%s]", longer);
    assert_int_equal(cas_out_finish(&ob), CAS_OK);
    assert_int_equal(s.len, len);
    assert_memory_equal(s.data, want, len);
    assert_true(s.writes < len / (CAS_OUTBUF_SIZE / 2)); /* large writes, not one a piece */
    free(longer);
    free(want);
    free(s.data);
}

/* cas_out_json_text: '"' and '\\' behind a backslash, every control
 * character and DEL as \u00XX, every other byte as it is, across the
 * buffer's flushes. */
static void json_text_escapes_quotes_backslashes_and_controls(void **unused)
{
    (void)unused;
    struct sink s = {NULL, 0, 0};
    struct cas_writer w = {.ctx = &s, .write = sink_write};
    struct cas_outbuf ob = CAS_OUTBUF_INIT(&w);
    cas_out_json_text(&ob, "CG-1");
    cas_out_json_text(&ob, "|a\"b\\c\x01\x1f\x7f\t\n\xc3\xa9 d|");
    assert_int_equal(cas_out_finish(&ob), CAS_OK);
    assert_string_equal(s.data, "CG-1|a\\\"b\\\\c\\u0001\\u001f\\u007f\\u0009\\u000a\xc3\xa9 d|");
    free(s.data);

    char every[256], want[256 * 6 + 1];
    size_t len = 0;
    for (int ch = 1; ch < 256; ch++) {
        every[ch - 1] = (char)ch;
        if (ch < 0x20 || ch == 0x7F)
            len += (size_t)snprintf(want + len, sizeof want - len, "\\u%04x", ch);
        else if (ch == '"' || ch == '\\')
            len += (size_t)snprintf(want + len, sizeof want - len, "\\%c", ch);
        else
            want[len++] = (char)ch;
    }
    every[255] = '\0';
    want[len] = '\0';
    s = (struct sink){NULL, 0, 0};
    cas_out_init(&ob, &w);
    for (int i = 0; i < 3 * CAS_OUTBUF_SIZE / 255; i++)
        cas_out_json_text(&ob, every);
    assert_int_equal(cas_out_finish(&ob), CAS_OK);
    assert_int_equal(s.len, len * (3 * CAS_OUTBUF_SIZE / 255));
    for (size_t at = 0; at < s.len; at += len)
        assert_memory_equal(s.data + at, want, len);
    free(s.data);
}

/* cas_out_sdigits writes what "%lld" writes, at the extremes too. */
static void signed_digits_write_what_printf_writes(void **unused)
{
    (void)unused;
    const long long values[] = {LLONG_MIN, LLONG_MIN + 1, INT_MIN, -100000, -4294967296LL,
                                -10, -1, 0, 1, 9, 10, 4294967295LL, 4294967296LL,
                                INT_MAX, LLONG_MAX};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        char got[20], want[24];
        size_t n = cas_out_sdigits(got, values[i]);
        assert_int_equal(n, (size_t)snprintf(want, sizeof want, "%lld", values[i]));
        assert_memory_equal(got, want, n);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(known_conversions_write_what_vsnprintf_writes),
        cmocka_unit_test(other_conversions_hand_the_rest_to_vsnprintf),
        cmocka_unit_test(absent_strings_and_wide_fields_write_what_vsnprintf_writes),
        cmocka_unit_test(pieces_cross_the_buffer_in_order),
        cmocka_unit_test(json_text_escapes_quotes_backslashes_and_controls),
        cmocka_unit_test(signed_digits_write_what_printf_writes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
