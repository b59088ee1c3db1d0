/*
 * srv_msg.c — a finished JSON message of the server, shared by every
 * connection it is queued on (reference counted), and the receive buffers'
 * growth.  The text sits after the writer's room, where libwebsockets
 * wants its header.
 */
#include <libwebsockets.h>
#include <stdlib.h>
#include <string.h>

#include "server.h"

_Static_assert(CAS__JW_ROOM == LWS_PRE, "the JSON writer's room must be libwebsockets' LWS_PRE");

struct cas__srv_msg *cas__srv_msg_take(struct cas__jw *w)
{
    struct cas__srv_msg *msg = w->failed || !w->buf ? NULL : malloc(sizeof *msg);
    if (msg) {
        msg->refs = 1;
        msg->len = w->len;
        msg->data = w->buf;
        w->buf = NULL;
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

int cas__append(char **buf, size_t *len, size_t *cap, const char *in, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t grown = *cap ? *cap : 1024;
        while (grown < *len + n + 1)
            grown *= 2;
        char *more = realloc(*buf, grown);
        if (!more)
            return -1;
        *buf = more;
        *cap = grown;
    }
    memcpy(*buf + *len, in, n);
    *len += n;
    (*buf)[*len] = '\0';
    return 0;
}
