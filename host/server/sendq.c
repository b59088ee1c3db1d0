/*
 * sendq.c — the send queues of castellan serve's connections under one
 * memory budget.  Each connection's queue is capped (max-queue-bytes, and
 * a count of messages), and all queues together are capped too
 * (max-send-bytes): thirty clients that never read must not take the
 * machine's memory.  When a message would pass the server's budget, the
 * queues furthest behind (holding the most bytes) are dropped first, their
 * messages freed at once, until it fits: a slow client pays, the others go
 * on.  The transport (http.c) closes a dropped queue's connection.
 */
#include <stdlib.h>

#include "server.h"

void cas__sendq_budget_init(struct cas__sendq_budget *b, size_t max_total, size_t max_each,
                            size_t max_msgs, void (*drop)(struct cas__sendq *q, void *ctx),
                            void *ctx)
{
    *b = (struct cas__sendq_budget){.max_total = max_total, .max_each = max_each,
                                    .max_msgs = max_msgs, .drop = drop, .ctx = ctx};
}

void cas__sendq_attach(struct cas__sendq_budget *b, struct cas__sendq *q)
{
    *q = (struct cas__sendq){.next = b->queues};
    if (b->queues)
        b->queues->prev = q;
    b->queues = q;
}

struct cas__srv_msg *cas__sendq_pop(struct cas__sendq_budget *b, struct cas__sendq *q)
{
    if (!q->count)
        return NULL;
    struct cas__srv_msg *msg = q->ring[q->head];
    q->head = (q->head + 1) % q->cap;
    q->count--;
    q->bytes -= msg->len;
    b->total_bytes -= msg->len;
    b->total_msgs--;
    return msg;
}

static void empty(struct cas__sendq_budget *b, struct cas__sendq *q)
{
    while (q->count)
        cas__srv_msg_unref(cas__sendq_pop(b, q));
    free(q->ring);
    q->ring = NULL;
    q->cap = q->head = 0;
}

/* q is too far behind or out of memory: its messages go now, and the
 * transport is told to close its connection. */
static void drop(struct cas__sendq_budget *b, struct cas__sendq *q)
{
    empty(b, q);
    if (!q->dropped) {
        q->dropped = 1;
        b->n_dropped++;
        if (b->drop)
            b->drop(q, b->ctx);
    }
}

void cas__sendq_detach(struct cas__sendq_budget *b, struct cas__sendq *q)
{
    empty(b, q);
    if (q->prev)
        q->prev->next = q->next;
    else if (b->queues == q)
        b->queues = q->next;
    if (q->next)
        q->next->prev = q->prev;
    q->prev = q->next = NULL;
}

/* The queue holding the most bytes, or NULL when all are empty. */
static struct cas__sendq *furthest_behind(struct cas__sendq_budget *b)
{
    struct cas__sendq *worst = NULL;
    for (struct cas__sendq *q = b->queues; q; q = q->next)
        if (q->bytes && (!worst || q->bytes > worst->bytes))
            worst = q;
    return worst;
}

static int grow(struct cas__sendq *q)
{
    size_t cap = q->cap ? q->cap * 2 : 8;
    struct cas__srv_msg **ring = malloc(cap * sizeof *ring);
    if (!ring)
        return -1;
    for (size_t i = 0; i < q->count; i++)
        ring[i] = q->ring[(q->head + i) % q->cap];
    free(q->ring);
    q->ring = ring;
    q->head = 0;
    q->cap = cap;
    return 0;
}

int cas__sendq_push(struct cas__sendq_budget *b, struct cas__sendq *q, struct cas__srv_msg *msg)
{
    if (q->dropped)
        return -1;
    if (q->count >= b->max_msgs || q->bytes + msg->len > b->max_each) {
        drop(b, q);
        return -1;
    }
    while (b->total_bytes + msg->len > b->max_total) {
        struct cas__sendq *victim = furthest_behind(b);
        if (!victim || victim == q) {
            drop(b, q);
            return -1;
        }
        drop(b, victim);
    }
    if (q->count == q->cap && grow(q)) {
        drop(b, q);
        return -1;
    }
    msg->refs++;
    q->ring[(q->head + q->count++) % q->cap] = msg;
    q->bytes += msg->len;
    b->total_bytes += msg->len;
    b->total_msgs++;
    return 0;
}
