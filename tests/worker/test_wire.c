/*
 * test_wire.c — the worker protocol (host/worker/wire.h): frames built by
 * the encoder decode to the same fields; every malformed body (short,
 * unknown kind or op, a count or length past the end, a string without
 * its NUL, bytes left over) is an error with a reason, never a read past
 * the buffer; and the worker's dispatcher answers bad handles with an
 * error reply.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "worker.h"

const struct cas_plugin *cas_plugin_entry(void);

/* The body of w's frame, decoded; the test fails if it does not decode. */
static void decode_ok(const struct cas__wire_out *w, struct cas__wire_msg *msg)
{
    char why[256] = "";
    assert_int_equal(cas__wire_get_u32(cas__wire_frame(w)), w->b.len - 4);
    if (cas__wire_decode(cas__wire_frame(w) + 4, w->b.len - 4, msg, why, sizeof why) != CAS_OK)
        fail_msg("a frame the encoder built does not decode: %s", why);
}

/* body[0..len) is refused with a reason that contains `reason`. */
static void refused(const uint8_t *body, size_t len, const char *reason)
{
    struct cas__wire_msg msg;
    char why[256] = "";
    uint8_t *copy = malloc(len ? len : 1); /* exactly len bytes: ASan sees any overread */
    assert_non_null(copy);
    memcpy(copy, body, len);
    assert_int_equal(cas__wire_decode(copy, len, &msg, why, sizeof why), CAS_ECORRUPT);
    if (!strstr(why, reason))
        fail_msg("refused for \"%s\", not for \"%s\"", why, reason);
    free(copy);
}

static void test_call_round_trip(void **unused)
{
    (void)unused;
    struct cas__wire_out w = {0};
    struct cas__wire_msg msg;
    cas__wire_begin(&w, CAS__WIRE_CALL, CAS__OP_PARSE_ACTION);
    cas__wire_u32(&w, 7);
    cas__wire_str(&w, "play 3");
    assert_int_equal(cas__wire_end(&w), CAS_OK);
    decode_ok(&w, &msg);
    assert_int_equal(msg.kind, CAS__WIRE_CALL);
    assert_int_equal(msg.op, CAS__OP_PARSE_ACTION);
    assert_int_equal(msg.n_fields, 2);
    assert_int_equal(msg.f[0].n, 7);
    assert_string_equal((const char *)msg.f[1].data, "play 3");
    assert_int_equal(msg.f[1].len, 6);

    const uint64_t actions[] = {1, UINT64_MAX, 42};
    cas__wire_begin(&w, CAS__WIRE_CALL, CAS__OP_RENDER_CHOICES);
    cas__wire_u32(&w, 1);
    cas__wire_i32(&w, -2);
    cas__wire_i32(&w, CAS_RENDER_TEXT);
    cas__wire_u64s(&w, actions, 3);
    assert_int_equal(cas__wire_end(&w), CAS_OK);
    decode_ok(&w, &msg);
    assert_int_equal((int64_t)msg.f[1].n, -2);
    assert_int_equal(msg.f[3].n, 3);
    assert_int_equal(cas__wire_get_u64(msg.f[3].data + 8), UINT64_MAX);
    cas__wire_out_free(&w);
}

static void test_reply_with_events(void **unused)
{
    (void)unused;
    struct cas__wire_out w = {0};
    struct cas__wire_msg msg;
    struct cas_event scored = CAS_INIT(struct cas_event, .kind = CAS_EVENT_SCORE, .player = 1,
                                       .visible_to = CAS_VIEWER_PUBLIC, .points = -8,
                                       .text = "Blue -8", .category = "city",
                                       .subject = "city at 0,1", .final = 1);
    struct cas_event old = {.struct_size = offsetof(struct cas_event, category),
                            .kind = CAS_EVENT_INFO, .player = -1, .visible_to = 0,
                            .text = "a draw", .category = "ignored: 1.0 size"};
    cas__wire_begin(&w, CAS__WIRE_REPLY, CAS__OP_APPLY);
    cas__wire_i32(&w, CAS_OK);
    cas__wire_str(&w, "");
    cas__wire_str(&w, "1a warning\n");
    size_t list = cas__wire_events_begin(&w);
    cas__wire_event(&w, list, &scored);
    cas__wire_event(&w, list, &old);
    cas__wire_i32(&w, CAS_ACTOR_CHANCE);
    assert_int_equal(cas__wire_end(&w), CAS_OK);
    decode_ok(&w, &msg);
    assert_int_equal(msg.n_fields, 5);
    assert_string_equal((const char *)msg.f[2].data, "1a warning\n");
    assert_int_equal(msg.f[3].n, 2);
    assert_int_equal((int64_t)msg.f[4].n, CAS_ACTOR_CHANCE);
    const uint8_t *cursor = msg.f[3].data;
    struct cas_event e;
    cas__wire_event_next(&cursor, &e);
    assert_int_equal(e.kind, CAS_EVENT_SCORE);
    assert_int_equal(e.player, 1);
    assert_int_equal(e.visible_to, CAS_VIEWER_PUBLIC);
    assert_int_equal(e.points, -8);
    assert_string_equal(e.text, "Blue -8");
    assert_string_equal(e.category, "city");
    assert_string_equal(e.subject, "city at 0,1");
    assert_int_equal(e.final, 1);
    cas__wire_event_next(&cursor, &e);
    assert_int_equal(e.kind, CAS_EVENT_INFO);
    assert_string_equal(e.text, "a draw");
    assert_null(e.category); /* a 1.0 event has none, whatever lies past its size */
    assert_ptr_equal(cursor, msg.f[3].data + msg.f[3].len);
    cas__wire_out_free(&w);
}

static void test_malformed_bodies(void **unused)
{
    (void)unused;
    refused((const uint8_t *)"\x01", 1, "outside 2..");
    refused((const uint8_t *)"\x00\x03", 2, "kind 0");
    refused((const uint8_t *)"\x05\x03", 2, "kind 5");
    refused((const uint8_t *)"\x01\x00", 2, "op 0 does not exist");
    refused((const uint8_t *)"\x01\xff", 2, "op 255 does not exist");
    refused((const uint8_t *)"\x01\x01", 2, "op 1 does not exist for message kind 1");
    refused((const uint8_t *)"\x02\x02", 2, "op 2 does not exist for message kind 2");
    /* state_free: a u32 handle, short by one byte, then with one too many */
    refused((const uint8_t *)"\x01\x04\x01\x00\x00", 5, "a u32 needs 4 bytes, 3 left");
    refused((const uint8_t *)"\x01\x04\x01\x00\x00\x00\x00", 7, "1 bytes follow");
    /* parse_action: handle, then strings gone wrong */
    refused((const uint8_t *)"\x01\x0c\x01\x00\x00\x00\x00\x00\x00\x00", 10, "no NUL");
    refused((const uint8_t *)"\x01\x0c\x01\x00\x00\x00\x03\x00\x00\x00" "ab", 12,
            "needs 3 bytes, 2 left");
    refused((const uint8_t *)"\x01\x0c\x01\x00\x00\x00\x03\x00\x00\x00" "abc", 13,
            "not NUL-terminated");
    refused((const uint8_t *)"\x01\x0c\x01\x00\x00\x00\x03\x00\x00\x00" "a\0\0", 13,
            "not NUL-terminated");
    refused((const uint8_t *)"\x01\x0c\x01\x00\x00\x00\xff\xff\xff\xff" "a", 11,
            "needs 4294967295 bytes");
    /* render_choices: an action count far past the bytes there */
    refused((const uint8_t *)"\x01\x14\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00"
                             "\xff\xff\xff\x1f\x00", 19, "does not fit");
    /* an apply reply: rc, "", "", then events gone wrong */
    static const uint8_t head[] = {2, 10, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0};
    uint8_t body[128];
    memcpy(body, head, sizeof head);
    memcpy(body + sizeof head, "\xff\xff\xff\xff", 4);
    refused(body, sizeof head + 4, "events cannot fit");
    uint8_t event[] = {1, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
                       1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0};
    memcpy(body + sizeof head, event, sizeof event);
    refused(body, sizeof head + sizeof event, "kind 9");
    event[4] = CAS_EVENT_INFO;
    event[4 + 21] = 2;
    memcpy(body + sizeof head, event, sizeof event);
    refused(body, sizeof head + sizeof event, "has_category 2");
}

/* Every prefix of a valid body is refused; every one-byte change decodes
 * or is refused, and never reads outside the buffer (ASan watches). */
static void test_truncations_and_mutations(void **unused)
{
    (void)unused;
    struct cas__wire_out w = {0};
    struct cas_event e = CAS_INIT(struct cas_event, .kind = CAS_EVENT_SCORE, .text = "x",
                                  .category = "road", .subject = "r");
    cas__wire_begin(&w, CAS__WIRE_REPLY, CAS__OP_APPLY);
    cas__wire_i32(&w, CAS_OK);
    cas__wire_str(&w, "why");
    cas__wire_str(&w, "");
    cas__wire_event(&w, cas__wire_events_begin(&w), &e);
    cas__wire_i32(&w, 0);
    assert_int_equal(cas__wire_end(&w), CAS_OK);
    const uint8_t *body = cas__wire_frame(&w) + 4;
    size_t len = w.b.len - 4;
    struct cas__wire_msg msg;
    char why[256];
    for (size_t cut = 0; cut < len; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1);
        memcpy(copy, body, cut);
        assert_int_equal(cas__wire_decode(copy, cut, &msg, why, sizeof why), CAS_ECORRUPT);
        free(copy);
    }
    size_t decoded = 0;
    for (size_t at = 0; at < len; at++)
        for (unsigned v = 0; v < 256; v++) {
            uint8_t *copy = malloc(len);
            memcpy(copy, body, len);
            copy[at] = (uint8_t)v;
            if (cas__wire_decode(copy, len, &msg, why, sizeof why) == CAS_OK) {
                decoded++;
                const uint8_t *cursor = msg.f[3].data;
                for (uint64_t i = 0; i < msg.f[3].n; i++)
                    cas__wire_event_next(&cursor, &e);
                assert_ptr_equal(cursor, msg.f[3].data + msg.f[3].len);
            }
            free(copy);
        }
    assert_true(decoded >= len); /* the unchanged byte, at least */
    cas__wire_out_free(&w);
}

/* The worker's dispatcher against the fixture game in this process. */
static void test_dispatch_checks_handles(void **unused)
{
    (void)unused;
    struct cas__worker_side ws = {.vt = cas_plugin_entry()->game, .nplayers = 2, .fd = -1};
    struct cas_host host = cas__worker_services(&ws, "");
    size_t n_options = cas_plugin_entry()->n_options;
    struct cas_option_value options[16];
    assert_true(n_options <= 16);
    for (size_t i = 0; i < n_options; i++)
        options[i] = (struct cas_option_value){sizeof options[i],
                                               cas_plugin_entry()->options[i].name,
                                               cas_plugin_entry()->options[i].default_value};
    struct cas_game_params params = {.struct_size = sizeof params, .nplayers = 2,
                                     .options = options, .n_options = n_options};
    assert_int_equal(ws.vt->game_new(&host, &params, &ws.game, NULL), CAS_OK);
    struct cas__wire_out call = {0}, reply = {0};
    struct cas__wire_msg msg, answer;
    char why[256];
    const struct { unsigned op; uint32_t handle; int rc; const char *error; } cases[] = {
        {CAS__OP_STATE_NEW, 0, CAS_OK, ""},
        {CAS__OP_HASH, 1, CAS_OK, ""},
        {CAS__OP_HASH, 2, CAS_EINVAL, "worker: no state has handle 2"},
        {CAS__OP_CURRENT, 0, CAS_EINVAL, "worker: no state has handle 0"},
        {CAS__OP_STATE_FREE, 1, CAS_OK, ""},
        {CAS__OP_STATE_FREE, 1, CAS_EINVAL, "worker: no state has handle 1"},
        {CAS__OP_LEGAL, 0xffffffffu, CAS_EINVAL, "worker: no state has handle 4294967295"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cas__wire_begin(&call, CAS__WIRE_CALL, cases[i].op);
        if (cases[i].op != CAS__OP_STATE_NEW)
            cas__wire_u32(&call, cases[i].handle);
        assert_int_equal(cas__wire_end(&call), CAS_OK);
        decode_ok(&call, &msg);
        cas__worker_dispatch(&ws, &msg, &reply);
        assert_int_equal(cas__wire_end(&reply), CAS_OK);
        if (cas__wire_decode(cas__wire_frame(&reply) + 4, reply.b.len - 4, &answer, why, sizeof why))
            fail_msg("case %zu: the reply does not decode: %s", i, why);
        assert_int_equal(answer.op, cases[i].op);
        assert_int_equal((int64_t)answer.f[0].n, cases[i].rc);
        assert_string_equal((const char *)answer.f[1].data, cases[i].error);
    }
    /* every call naming a state no one has: a well-formed error reply */
    for (unsigned op = 1; op < CAS__OP_COUNT; op++) {
        const char *sig = cas__wire_signature(CAS__WIRE_CALL, op);
        if (!sig || op == CAS__OP_QUIT)
            continue;
        cas__wire_begin(&call, CAS__WIRE_CALL, op);
        for (const char *c = sig; *c; c++)
            switch (*c) {
            case 'u': cas__wire_u32(&call, 999); break;
            case 'i': cas__wire_i32(&call, 0); break;
            case 'q': cas__wire_u64(&call, 0); break;
            case 'z': cas__wire_str(&call, ""); break;
            case 's': cas__wire_bytes(&call, NULL, 0); break;
            case 'a': cas__wire_u64s(&call, NULL, 0); break;
            default: fail_msg("op %u: field code %c", op, *c);
            }
        assert_int_equal(cas__wire_end(&call), CAS_OK);
        decode_ok(&call, &msg);
        cas__worker_dispatch(&ws, &msg, &reply);
        assert_int_equal(cas__wire_end(&reply), CAS_OK);
        if (cas__wire_decode(cas__wire_frame(&reply) + 4, reply.b.len - 4, &answer, why, sizeof why))
            fail_msg("%s: the error reply does not decode: %s", cas__wire_op_name(op), why);
        if (strchr(sig, 'u') && op != CAS__OP_BENCH_FLOOR)
            assert_true((int64_t)answer.f[0].n < 0);
    }
    /* a deserialize of garbage */
    cas__wire_begin(&call, CAS__WIRE_CALL, CAS__OP_DESERIALIZE);
    cas__wire_bytes(&call, "\x01\x02", 2);
    assert_int_equal(cas__wire_end(&call), CAS_OK);
    decode_ok(&call, &msg);
    cas__worker_dispatch(&ws, &msg, &reply);
    assert_int_equal(cas__wire_end(&reply), CAS_OK);
    assert_int_equal(cas__wire_decode(cas__wire_frame(&reply) + 4, reply.b.len - 4, &answer, why, sizeof why),
                     CAS_OK);
    assert_true((int64_t)answer.f[0].n < 0);
    assert_int_equal(answer.f[3].n, 0);
    cas__wire_out_free(&call);
    cas__wire_out_free(&reply);
    cas__worker_side_free(&ws);
    ws.vt->game_free(ws.game);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_call_round_trip),
        cmocka_unit_test(test_reply_with_events),
        cmocka_unit_test(test_malformed_bodies),
        cmocka_unit_test(test_truncations_and_mutations),
        cmocka_unit_test(test_dispatch_checks_handles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
