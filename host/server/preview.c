/*
 * preview.c — a "preview" request (docs/server.md, Protocol): the decider
 * asks what its next decision would offer if it played an action, as
 * JCloisterZone shows a tile's figure spots on its ghost before the tile
 * is placed.  On the pool, as every plugin call of a served game: the
 * action is applied to a clone of the state, never to the game, so
 * nothing is journaled, no chance is drawn (a chance node is the
 * session's to draw, and the preview stops before it) and no viewer is
 * owed anything.  Only the seat that decides may ask, and only its own
 * connection hears the answer.
 */
#define _GNU_SOURCE /* memmem */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "table.h"

static int has_mark(const char *at, size_t len)
{
    static const char mark[] = "data-cas-choices";
    return memmem(at, len, mark, sizeof mark - 1) != NULL;
}

/* pic as the reply's "svg": of a keyed picture only the top-level
 * elements that hold a mark, in the root it came in (the rest is what the
 * seat's own picture shows already); an unkeyed one whole. */
static void write_marks(struct cas__jw *w, struct cas__picture *pic)
{
    if (!pic->keyed) {
        cas__jw_strn(w, cas__picture_svg(pic), pic->len);
        return;
    }
    const char *svg = cas__picture_bytes(pic);
    struct cas__buf b;
    cas__buf_init(&b, 0);
    cas__buf_add(&b, svg + pic->root_at, pic->root_len);
    for (size_t i = 0; i < pic->n; i++) {
        const struct cas__pic_part *p = &pic->parts[i];
        if (has_mark(svg + p->at, p->len))
            cas__buf_add(&b, svg + p->at, p->len);
    }
    cas__buf_add(&b, "</svg>", 6);
    if (b.failed)
        cas__jw_raw(w, "null");
    else
        cas__jw_strn(w, b.data, b.len);
    cas__buf_free(&b);
}

/* The decision the clone is at, for seat: its actions and marks. */
static int write_next(struct cas__table *t, const cas_state *next, int seat, struct cas__jw *w)
{
    struct cas__match *m = &t->r.match;
    struct cas__actions legal = {0};
    int rc = cas__match_legal(m, next, &legal);
    if (rc != CAS_OK)
        goto free_legal;
    cas__jw_raw(w, ",\"actions\":[");
    for (size_t i = 0; i < legal.count; i++) {
        char text[512];
        cas__match_action_text(m, next, legal.items[i], text, sizeof text);
        cas__jw_raw(w, i ? "," : "");
        cas__jw_str(w, text);
    }
    cas__jw_raw(w, "],\"svg\":");
    size_t len = 0;
    char *svg = cas__table_may_mark(t) ? cas__table_render(t, next, seat, CAS_RENDER_SVG_ACTIONS,
                                                           &legal, 0, &len)
                                       : NULL;
    if (svg) {
        struct cas__picture pic;
        cas__picture_take(&pic, svg, len); /* owns svg now */
        write_marks(w, &pic);
        cas__picture_free(&pic);
    } else {
        cas__jw_raw(w, "null");
    }
free_legal:
    cas__actions_free(&legal);
    return rc;
}

int cas__table_preview(struct cas__table *t, int seat, int64_t ply, const char *text,
                       struct cas__jw *w, const char *id, const char **code, char *msg,
                       size_t msglen)
{
    struct cas__match *m = &t->r.match;
    cas_action action = 0;
    cas_state *next = NULL;
    if (cas__table_legal_action(t, seat, ply, text, &action, code, msg, msglen))
        return CAS_EINVAL;
    int rc = m->vt->state_clone(t->r.session.state, &next);
    if (rc == CAS_OK)
        rc = m->vt->apply(next, action, NULL);
    if (rc != CAS_OK) {
        m->vt->state_free(next);
        return cas__srv_refuse(code, "internal", msg, msglen, "game %lld could not preview "
                               "\"%.200s\": %s", (long long)t->id, text,
                               cas__match_reason(m, rc));
    }
    cas__jw_raw(w, "{\"type\":\"preview\"");
    if (id && id[0])
        cas__jw_printf(w, ",\"id\":%s", id);
    cas__jw_printf(w, ",\"game\":\"%lld\",\"ply\":%lld,\"action\":", (long long)t->id,
                   (long long)ply);
    cas__jw_str(w, text);
    /* Only a decision of the same seat is shown: another seat's is not
     * this one's to see, and a chance node is the session's to draw. */
    int after = cas__match_current(m, next);
    cas__jw_raw(w, ",\"next\":");
    if (after == seat) {
        cas__jw_raw(w, "\"you\"");
        rc = write_next(t, next, seat, w);
    } else {
        cas__jw_raw(w, after == CAS_ACTOR_CHANCE ? "\"chance\""
                       : after == CAS_ACTOR_TERMINAL ? "\"over\"" : "\"other\"");
        cas__jw_raw(w, ",\"actions\":[],\"svg\":null");
    }
    cas__jw_raw(w, "}");
    m->vt->state_free(next);
    if (rc != CAS_OK) {
        cas__jw_free(w);
        cas__jw_init(w);
        return cas__srv_refuse(code, "internal", msg, msglen, "game %lld could not list the "
                               "decision after \"%.200s\": %s", (long long)t->id, text,
                               cas__match_reason(m, rc));
    }
    return CAS_OK;
}
