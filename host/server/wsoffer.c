/*
 * wsoffer.c — permessage-deflate as castellan serve negotiates it with
 * libwebsockets: the offer every context makes, and, per connection,
 * whether castellan compresses what is sent (wsdeflate.c) and may keep the
 * client's window between messages.  One place, so that the serve
 * benchmark's bare server (host/clients/floor_server.c) negotiates exactly
 * as the server does.
 */
#include <string.h>

#include "wsoffer.h"

/* permessage-deflate (RFC 7692), offered to every client that asks: an
 * update compresses to a fraction, the previous message being its
 * dictionary (context takeover).  libwebsockets negotiates it and
 * inflates what a client sends (in 1 KiB steps, bounded per message by
 * http.c's receive()); what the server sends it compresses itself
 * (http.c's write_deflated, srv_msg.c, wsdeflate.c), once per message and
 * previous message rather than once per connection, so libwebsockets
 * never makes its deflate stream (about 140 KB per connection). */
const struct lws_extension cas__ws_extensions[] = {
    {"permessage-deflate", lws_extension_callback_pm_deflate,
     "permessage-deflate; client_no_context_takeover; client_max_window_bits"},
    {NULL, NULL, NULL},
};

/* Whether castellan compresses what is sent on wsi: libwebsockets took
 * permessage-deflate (setting one of its options fails when it is not
 * active) and wsi is a connection of its own, not a WebSocket carried in
 * an HTTP/2 stream (RFC 8441), whose frames libwebsockets must wrap: there
 * libwebsockets compresses as before, per connection, at the level and
 * memory level set here. */
int cas__ws_deflate_ours(struct lws *wsi)
{
    if (lws_set_extension_option(wsi, "permessage-deflate", "compression_level", "1") != 0)
        return 0;
    lws_set_extension_option(wsi, "permessage-deflate", "mem_level", "4");
    return lws_get_network_wsi(wsi) == wsi;
}

/* Whether the client let the server keep its window between messages:
 * not when it asked for server_no_context_takeover anywhere in its offer
 * (libwebsockets then agrees to it), nor when the offer is too long to
 * read here (libwebsockets reads no more than this either). */
int cas__ws_takeover_allowed(struct lws *wsi)
{
    char offer[512];
    int n = lws_hdr_copy(wsi, offer, sizeof offer, WSI_TOKEN_EXTENSIONS);
    return n >= 0 && !strstr(offer, "server_no_context_takeover");
}
