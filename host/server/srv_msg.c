/*
 * srv_msg.c — a finished JSON message of the server, shared by every
 * connection it is queued on (reference counted).  The text sits after the writer's room, where libwebsockets
 * wants its header.
 */
#include <libwebsockets.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

_Static_assert(CAS__JW_ROOM == LWS_PRE, "the JSON writer's room must be libwebsockets' LWS_PRE");

struct cas__srv_msg *cas__srv_msg_take(struct cas__jw *w)
{
    struct cas__srv_msg *msg = w->b.failed || w->b.len == 0 ? NULL : malloc(sizeof *msg);
    if (msg) {
        msg->refs = 1;
        msg->data = cas__buf_take(&w->b, &msg->len);
        msg->len -= CAS__JW_ROOM;
    }
    cas__jw_free(w);
    return msg;
}

void cas__srv_msg_unref(struct cas__srv_msg *msg)
{
    if (msg && --msg->refs == 0) {
        free(msg->data);
        free(msg);
    }
}

void cas__conn_send_jw(struct cas__conn *c, struct cas__jw *w)
{
    struct cas__srv_msg *msg = cas__srv_msg_take(w);
    if (msg) {
        c->send(c, msg);
        cas__srv_msg_unref(msg);
    }
}
