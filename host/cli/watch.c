/*
 * watch.c — `--watch FILE.svg`: the picture of the board kept up to date
 * beside the terminal.  It wraps the session's hooks rather than replacing
 * them, so the journal still saves every action and takes back every
 * undone one before the picture changes.
 */
#include <stdio.h>

#include "watch.h"

#include "picture.h"

static void watch_write(struct cas__watch *w, const cas_state *state)
{
    char err[1024];
    struct cas__session *s = w->session;
    if (cas__picture_write(s->match, state, s->viewer, w->path, err, sizeof err) &&
        !w->warned) {
        fprintf(stderr, "castellan %s: --watch: %s (the game goes on)\n", w->cmd, err);
        w->warned = 1;
    }
}

static int watch_on_action(void *ctx, uint32_t ply, int actor, const char *text,
                           uint64_t hash_after, char *err, size_t errlen)
{
    struct cas__watch *w = ctx;
    int rc = w->inner.on_action ? w->inner.on_action(w->inner.ctx, ply, actor, text,
                                                     hash_after, err, errlen)
                                : CAS_OK;
    if (rc >= 0)
        watch_write(w, w->session->state);
    return rc;
}

/* Called before the state goes back: the picture is drawn from the state
 * the session returns to, the kept copy from before the undone decision. */
static int watch_on_undo(void *ctx, uint32_t from_ply)
{
    struct cas__watch *w = ctx;
    const struct cas__undo *u = &w->session->undo;
    int rc = w->inner.on_undo ? w->inner.on_undo(w->inner.ctx, from_ply) : CAS_OK;
    if (rc >= 0 && u->count > 0)
        watch_write(w, u->steps[u->count - 1].before);
    return rc;
}

static void watch_on_event(void *ctx, const struct cas_event *event)
{
    struct cas__watch *w = ctx;
    if (w->inner.on_event)
        w->inner.on_event(w->inner.ctx, event);
}

void cas__watch_attach(struct cas__watch *w, struct cas__session *s, const char *cmd,
                       const char *path)
{
    *w = (struct cas__watch){.inner = s->hooks, .session = s, .cmd = cmd, .path = path};
    s->hooks = (struct cas__session_hooks){.ctx = w, .on_action = watch_on_action,
                                           .on_undo = watch_on_undo,
                                           .on_event = watch_on_event};
    watch_write(w, s->state);
}
