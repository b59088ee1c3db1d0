/*
 * test_sendq.c — the send queues under one memory budget (host/server/
 * sendq.c): each queue's own caps, the server's total, the queues furthest
 * behind dropped first with their memory let go at once, the accounting
 * after sends, drops and leaves.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "server.h"

static struct cas__sendq *dropped[16];
static size_t n_dropped;

static void on_drop(struct cas__sendq *q, void *ctx)
{
    (void)ctx;
    dropped[n_dropped++] = q;
}

/* A message of len bytes of text. */
static struct cas__srv_msg *message(size_t len)
{
    char text[4096];
    struct cas__jw w;
    assert_true(len < sizeof text);
    memset(text, 'x', len);
    text[len] = '\0';
    cas__jw_init(&w);
    cas__jw_raw(&w, text);
    struct cas__srv_msg *msg = cas__srv_msg_take(&w);
    assert_non_null(msg);
    assert_int_equal(msg->len, len);
    return msg;
}

/* Push a fresh message of len bytes on q: push's result; the test's
 * reference is let go. */
static int push(struct cas__sendq_budget *b, struct cas__sendq *q, size_t len)
{
    struct cas__srv_msg *msg = message(len);
    int rc = cas__sendq_push(b, q, msg);
    cas__srv_msg_unref(msg);
    return rc;
}

static void test_the_furthest_behind_go_first(void **state)
{
    (void)state;
    struct cas__sendq_budget b;
    struct cas__sendq slow, slower, quick;
    n_dropped = 0;
    cas__sendq_budget_init(&b, 1000, 800, 100, on_drop, NULL);
    cas__sendq_attach(&b, &slow);
    cas__sendq_attach(&b, &slower);
    cas__sendq_attach(&b, &quick);
    for (int i = 0; i < 3; i++)
        assert_int_equal(push(&b, &slow, 100), 0);
    for (int i = 0; i < 5; i++)
        assert_int_equal(push(&b, &slower, 100), 0);
    assert_int_equal(b.total_bytes, 800);
    assert_int_equal(b.total_msgs, 8);
    /* 300 more would pass 1000: the queue holding the most goes. */
    assert_int_equal(push(&b, &quick, 300), 0);
    assert_int_equal(n_dropped, 1);
    assert_ptr_equal(dropped[0], &slower);
    assert_true(slower.dropped);
    assert_int_equal(slower.count, 0);
    assert_int_equal(b.total_bytes, 600);
    /* A dropped queue takes nothing more. */
    assert_int_equal(push(&b, &slower, 1), -1);
    assert_int_equal(b.total_bytes, 600);
    /* quick then holds 600 of 900: a queue that is itself the furthest
     * behind is the one dropped. */
    assert_int_equal(push(&b, &quick, 300), 0);
    assert_int_equal(b.total_bytes, 900);
    assert_int_equal(push(&b, &quick, 200), -1);
    assert_int_equal(n_dropped, 2);
    assert_ptr_equal(dropped[1], &quick);
    assert_int_equal(b.total_bytes, 300);
    assert_int_equal(b.n_dropped, 2);
    /* Sending drains: the budget frees as messages are written. */
    struct cas__srv_msg *m = cas__sendq_pop(&b, &slow);
    assert_non_null(m);
    assert_int_equal(m->len, 100);
    cas__srv_msg_unref(m);
    assert_int_equal(b.total_bytes, 200);
    assert_int_equal(b.total_msgs, 2);
    cas__sendq_detach(&b, &slow);
    cas__sendq_detach(&b, &slower);
    cas__sendq_detach(&b, &quick);
    assert_int_equal(b.total_bytes, 0);
    assert_int_equal(b.total_msgs, 0);
    assert_null(b.queues);
}

static void test_each_queue_has_its_own_caps(void **state)
{
    (void)state;
    struct cas__sendq_budget b;
    struct cas__sendq a, c;
    n_dropped = 0;
    cas__sendq_budget_init(&b, 1 << 20, 500, 4, on_drop, NULL);
    cas__sendq_attach(&b, &a);
    cas__sendq_attach(&b, &c);
    for (int i = 0; i < 4; i++)
        assert_int_equal(push(&b, &a, 10), 0);
    assert_int_equal(push(&b, &a, 10), -1); /* a fifth message */
    assert_int_equal(n_dropped, 1);
    assert_int_equal(push(&b, &c, 400), 0);
    assert_int_equal(push(&b, &c, 101), -1); /* past 500 bytes */
    assert_int_equal(n_dropped, 2);
    assert_int_equal(b.total_bytes, 0);
    cas__sendq_detach(&b, &c);
    cas__sendq_detach(&b, &a);
}

/* One message shared by many queues is counted on each, and freed once
 * the last lets it go. */
static void test_shared_message(void **state)
{
    (void)state;
    struct cas__sendq_budget b;
    struct cas__sendq q[5];
    n_dropped = 0;
    cas__sendq_budget_init(&b, 250, 1000, 10, on_drop, NULL);
    struct cas__srv_msg *msg = message(100);
    for (int i = 0; i < 5; i++) {
        cas__sendq_attach(&b, &q[i]);
        cas__sendq_push(&b, &q[i], msg);
    }
    /* 5 x 100 in a budget of 250: each push past two dropped the queue
     * furthest behind (of equals, the first in the budget's list). */
    assert_int_equal(b.total_bytes, 200);
    assert_int_equal(n_dropped, 3);
    assert_int_equal(msg->refs, 3);
    for (int i = 0; i < 5; i++)
        cas__sendq_detach(&b, &q[i]);
    assert_int_equal(msg->refs, 1);
    cas__srv_msg_unref(msg);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_the_furthest_behind_go_first),
        cmocka_unit_test(test_each_queue_has_its_own_caps),
        cmocka_unit_test(test_shared_message),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
