/*
 * wsoffer.h — permessage-deflate as castellan serve negotiates it with
 * libwebsockets (host-internal: http.c, and the serve benchmark's bare
 * server, which must negotiate exactly as the server does): the offer, and
 * whether castellan compresses a connection's messages itself.
 */
#ifndef CAS_HOST_WSOFFER_H
#define CAS_HOST_WSOFFER_H

#include <libwebsockets.h>

/* The extensions a context offers: permessage-deflate, as http.c says. */
extern const struct lws_extension cas__ws_extensions[];

/* Whether castellan compresses what is sent on wsi (wsdeflate.c), and sets
 * libwebsockets' own deflate options for when it does not. */
int cas__ws_deflate_ours(struct lws *wsi);
/* Whether the client lets the server keep its window between messages. */
int cas__ws_takeover_allowed(struct lws *wsi);

#endif
