/*
 * evloop.c — the event loop castellan serve runs libwebsockets on: a libuv
 * loop (epoll, so an idle connection costs nothing per turn) that
 * castellan owns and lends to libwebsockets as a "foreign" loop, so
 * libwebsockets installs no signal handlers of its own and the serving
 * loop (serve_run.c) still runs one turn at a time and flushes the
 * changed tables between turns (docs/server.md, "The event loop").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libwebsockets.h>
#include <uv.h>

#include "server.h"

struct uv_loop_s *cas__evloop_new(void)
{
    const char *chosen = getenv("CASTELLAN_SERVE_EVENT_LOOP");
    if (chosen && !strcmp(chosen, "poll"))
        return NULL;
    uv_loop_t *loop = malloc(sizeof *loop);
    if (loop && uv_loop_init(loop)) {
        free(loop);
        loop = NULL;
    }
    return loop;
}

void cas__evloop_turn(struct uv_loop_s *loop)
{
    /* One wait for events (libwebsockets' 100 ms clock tick bounds it)
     * and the callbacks they call, then back to the caller. */
    uv_run(loop, UV_RUN_ONCE);
}

static void close_handle(uv_handle_t *handle, void *arg)
{
    (void)arg;
    if (!uv_is_closing(handle))
        uv_close(handle, NULL);
}

void cas__evloop_drain(struct uv_loop_s *loop)
{
    uv_run(loop, UV_RUN_DEFAULT);
}

void cas__evloop_free(struct uv_loop_s *loop)
{
    if (!loop)
        return;
    /* A handle left open (none should be) is closed here rather than
     * leaked. */
    cas__evloop_drain(loop);
    for (int tries = 0; uv_loop_close(loop) == UV_EBUSY && tries < 2; tries++) {
        uv_walk(loop, close_handle, NULL);
        uv_run(loop, UV_RUN_DEFAULT);
    }
    free(loop);
}

void cas__evloop_destroy(struct lws_context **ctx, struct uv_loop_s *loop)
{
    if (*ctx)
        lws_context_destroy(*ctx);
    if (loop && *ctx) {
        cas__evloop_drain(loop);
        if (*ctx)
            lws_context_destroy(*ctx);
    }
    cas__evloop_free(loop);
}
