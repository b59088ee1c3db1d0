/*
 * message.c — what a table sends its viewers (docs/server.md "Protocol"):
 * a numbered update per change (the seats' actions as notation, the events
 * the viewer may see, the players and clocks, the picture's changes and,
 * for the decider, the legal actions), a full state to a connection that
 * joins, and the text view to those that asked for it.
 *
 * Every message is built once per viewer — each seat, and one public view
 * for every watcher — and shared by all the connections of that viewer;
 * a joining watcher costs one more reference to the full state, not a
 * render.  Each viewer keeps its last picture (the base of the next
 * changes) and a bounded history of updates from which a client that
 * missed some resumes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

int cas__table_may_mark(const struct cas__table *t)
{
    const struct cas_plugin *p = t->r.match.plugin;
    return p->abi_major == 1 && p->abi_minor >= 2;
}

struct cas__view *cas__table_view(struct cas__table *t, int seat)
{
    return &t->views[seat >= 0 && seat < t->nplayers ? seat : t->nplayers];
}

static void drop_history(struct cas__view *v)
{
    for (size_t i = 0; i < CAS__VIEW_HISTORY; i++) {
        cas__srv_msg_unref(v->history[i]);
        v->history[i] = NULL;
    }
    v->n_history = 0;
    v->history_bytes = 0;
}

/* A full state or text view of an earlier message is never sent again
 * (each is sent only at its own seq): let go of it (about 9 KB a view for
 * a Carcassonne full state) rather than keep it until the next. */
static void drop_stale(const struct cas__table *t, struct cas__view *v)
{
    if (v->full && v->full_seq != t->seq) {
        cas__srv_msg_unref(v->full);
        v->full = NULL;
    }
    if (v->text && v->text_seq != t->seq) {
        cas__srv_msg_unref(v->text);
        v->text = NULL;
    }
}

void cas__view_release(struct cas__view *v)
{
    drop_history(v);
    cas__picture_free(&v->pic);
    cas__srv_msg_unref(v->full);
    cas__srv_msg_unref(v->text);
    memset(v, 0, sizeof *v);
}

/* --------------------------------------------------------- rendering */

char *cas__table_render(struct cas__table *t, const cas_state *state, int viewer,
                        enum cas_render_format format, const struct cas__actions *legal,
                        size_t room, size_t *len)
{
    struct cas__buf b;
    cas__buf_init(&b, 0);
    struct cas_writer out = {.struct_size = sizeof out, .ctx = &b, .write = cas__buf_write};
    int rc = room ? cas__buf_reserve(&b, room) : CAS_OK;
    if (rc == CAS_OK)
        rc = cas__match_render_to(&t->r.match, state, viewer, format, legal, &out);
    char *text = cas__buf_take_fit(&b, len); /* b freed; kept as the view's picture */
    if (rc != CAS_OK || !text || *len == 0) {
        free(text);
        return NULL;
    }
    return text;
}

/* t's own state, as cas__table_render renders it. */
static char *render(struct cas__table *t, int viewer, enum cas_render_format format,
                    const struct cas__actions *legal, size_t room, size_t *len)
{
    return cas__table_render(t, t->r.session.state, viewer, format, legal, room, len);
}

static int decides(struct cas__table *t, int seat)
{
    return seat >= 0 && !t->over && !t->failure[0] && cas__table_actor(t) == seat;
}

/* The decider's legal actions (in the session's scratch list), or NULL. */
static const struct cas__actions *legal_of(struct cas__table *t, int seat)
{
    struct cas__session *s = &t->r.session;
    if (!decides(t, seat) || cas__match_legal(&t->r.match, s->state, &s->scratch) != CAS_OK)
        return NULL;
    return &s->scratch;
}

/* What a view's picture is drawn in: t's state as viewer sees it, in
 * format (the decision view among legal, else plain). */
struct drawing {
    struct cas__table *t;
    int viewer;
    enum cas_render_format format;
    const struct cas__actions *legal;
};

/* A cas__picture_drawer: through the plugin's render_since (ABI 1.4)
 * where it has one, else whole with no stamp. */
static int draw_view(void *ctx, const unsigned char *since, size_t since_len, unsigned char *stamp,
                size_t *stamp_len, const struct cas_writer *out)
{
    const struct drawing *d = ctx;
    struct cas__match *m = &d->t->r.match;
    const cas_state *state = d->t->r.session.state;
    *stamp_len = 0;
    if (!cas__match_has_render_since(m))
        return cas__match_render_to(m, state, d->viewer, d->format, d->legal, out);
    return cas__match_render_since(m, state, d->viewer, d->format, d->legal, since, since_len,
                                   stamp, CAS_RENDER_STAMP_MIN, stamp_len, out);
}

/* The picture in format as the view's next after prev (the view's last
 * picture, NULL: none), which most of it repeats: drawn relative to prev
 * where the plugin draws so and prev has a stamp, else whole.  -1 when
 * the plugin drew nothing. */
static int take_picture(struct cas__table *t, int viewer, enum cas_render_format format,
                        const struct cas__actions *legal, const struct cas__picture *prev,
                        struct cas__picture *pic)
{
    struct drawing d = {.t = t, .viewer = viewer, .format = format, .legal = legal};
    return cas__picture_draw(pic, prev, draw_view, &d, NULL) == CAS_OK ? 0 : -1;
}

/* The viewer's picture now: the decision view with its marks for the
 * decider, else the plain one. */
static void render_picture(struct cas__table *t, int seat, const struct cas__actions *legal,
                           const struct cas__picture *prev, struct cas__picture *pic,
                           int *marked)
{
    int viewer = seat >= 0 ? seat : CAS_VIEWER_PUBLIC;
    *marked = legal && cas__table_may_mark(t) &&
              take_picture(t, viewer, CAS_RENDER_SVG_ACTIONS, legal, prev, pic) == 0;
    if (!*marked && take_picture(t, viewer, CAS_RENDER_SVG, NULL, prev, pic) != 0)
        memset(pic, 0, sizeof *pic);
}

void cas__table_views_rewound(struct cas__table *t)
{
    for (int i = 0; i <= t->nplayers; i++)
        cas__picture_stamp(&t->views[i].pic, NULL, 0);
}

/* --------------------------------------------------------- the fields */

void cas__table_write_seat(const struct cas__table *t, int i, struct cas__jw *w)
{
    const struct cas__seat *s = &t->seats[i];
    /* no printf: every update and lobby entry writes each seat */
    cas__jw_raw(w, i ? ",{\"seat\":" : "{\"seat\":");
    cas__jw_int(w, i);
    cas__jw_raw(w, ",\"name\":");
    cas__jw_str(w, t->r.names[i]);
    cas__jw_raw(w, ",\"agent\":");
    cas__jw_str(w, s->agent);
    cas__jw_raw(w, s->open ? ",\"open\":true" : ",\"open\":false");
    cas__jw_raw(w, s->bot || s->connected ? ",\"connected\":true" : ",\"connected\":false");
}

/* A score in JSON, or null where the plugin gave none. */
static void write_score(struct cas__jw *w, const char *key, const int64_t *scores, int have,
                        int seat)
{
    cas__jw_raw(w, ",\"");
    cas__jw_raw(w, key);
    cas__jw_raw(w, "\":");
    if (have)
        cas__jw_int(w, scores[seat]);
    else
        cas__jw_raw(w, "null");
}

/* Each seat's score as it stands (returns(), what the board shows) and,
 * where the plugin has them, the scores the game would end with now. */
static void write_players(struct cas__table *t, struct cas__jw *w)
{
    size_t n = (size_t)t->nplayers;
    int64_t *scores = calloc(2 * n, sizeof *scores);
    int64_t *projected = scores ? scores + n : NULL;
    const cas_state *state = t->r.session.state;
    int have = scores && t->r.match.vt->returns(state, scores, n) == CAS_OK;
    int have_projected = scores && !t->over &&
                         cas__match_projected(&t->r.match, state, projected) == CAS_OK;
    int actor = cas__table_actor(t);
    int64_t now = t->lobby->clock.now_ms(t->lobby->clock.ctx);
    cas__jw_raw(w, ",\"players\":[");
    for (int i = 0; i < t->nplayers; i++) {
        const struct cas__seat *s = &t->seats[i];
        cas__table_write_seat(t, i, w);
        cas__jw_raw(w, ",\"label\":");
        cas__jw_str(w, cas__match_label(&t->r.match, i));
        write_score(w, "score", scores, have, i);
        write_score(w, "projected", projected, have_projected, i);
        if (t->days_per_move) {
            cas__jw_raw(w, ",\"clock_ms\":");
            cas__jw_int(w, cas__corr_left(t, i, cas__corr_wall(t)));
            cas__jw_raw(w, "}");
        } else if (t->has_clock) {
            int64_t left = s->clock_ms;
            if (i == actor && !t->over)
                left -= cas__table_turn_elapsed(t, now);
            cas__jw_raw(w, ",\"clock_ms\":");
            cas__jw_int(w, left < 0 ? 0 : left);
            cas__jw_raw(w, "}");
        } else {
            cas__jw_raw(w, ",\"clock_ms\":null}");
        }
    }
    cas__jw_raw(w, "]");
    free(scores);
}

void cas__table_write_result(struct cas__table *t, struct cas__jw *w)
{
    size_t n = (size_t)t->nplayers;
    int64_t *scores = calloc(n, sizeof *scores);
    if (!scores) {
        cas__jw_raw(w, "null");
        return;
    }
    if (t->flagged >= 0)
        cas__match_projected(&t->r.match, t->r.session.state, scores);
    else
        t->r.match.vt->returns(t->r.session.state, scores, n);
    int64_t best = INT64_MIN;
    for (size_t i = 0; i < n; i++)
        if ((int)i != t->flagged && scores[i] > best)
            best = scores[i];
    cas__jw_raw(w, "{\"scores\":[");
    for (size_t i = 0; i < n; i++)
        cas__jw_printf(w, "%s%" PRId64, i ? "," : "", scores[i]);
    cas__jw_raw(w, "],\"winners\":[");
    for (size_t i = 0, k = 0; i < n; i++)
        if ((int)i != t->flagged && scores[i] == best)
            cas__jw_printf(w, "%s%zu", k++ ? "," : "", i);
    if (t->flagged >= 0)
        cas__jw_printf(w, "],\"reason\":\"%s\",\"flagged\":%d}", t->forfeit ? "left" : "flag",
                       t->flagged);
    else
        cas__jw_raw(w, "],\"reason\":\"end\",\"flagged\":null}");
    free(scores);
}

/* A score event's ,"score":{...}: who scored how many points for what. */
static void write_event_score(const struct cas__srv_event *e, struct cas__jw *w)
{
    cas__jw_raw(w, ",\"score\":{\"player\":");
    cas__jw_int(w, e->scorer);
    cas__jw_raw(w, ",\"points\":");
    cas__jw_int(w, e->points);
    cas__jw_raw(w, ",\"category\":");
    if (e->category)
        cas__jw_str(w, e->category);
    else
        cas__jw_raw(w, "null");
    cas__jw_raw(w, ",\"final\":");
    cas__jw_bool(w, e->final);
    cas__jw_raw(w, "}");
}

/* The events of the log from `from` on that viewer `seat` may see. */
static void write_events(struct cas__table *t, int seat, size_t from, struct cas__jw *w)
{
    cas__jw_raw(w, ",\"events\":[");
    int first = 1;
    for (size_t i = from; i < t->n_events; i++) {
        const struct cas__srv_event *e = &t->events[i];
        if (e->visible_to != CAS_VIEWER_PUBLIC && e->visible_to != seat)
            continue;
        cas__jw_raw(w, first ? "{\"ply\":" : ",{\"ply\":");
        cas__jw_uint(w, e->ply);
        cas__jw_raw(w, ",\"player\":");
        if (e->player >= 0)
            cas__jw_int(w, e->player);
        else
            cas__jw_raw(w, "null");
        cas__jw_raw(w, ",\"text\":");
        cas__jw_str(w, e->text);
        if (e->scorer >= 0)
            write_event_score(e, w);
        cas__jw_raw(w, "}");
        first = 0;
    }
    cas__jw_raw(w, "]");
}

/* The legal actions' canonical text, in the legal list's order. */
static void write_actions(struct cas__table *t, const struct cas__actions *legal,
                          struct cas__jw *w)
{
    cas__jw_raw(w, ",\"actions\":[");
    for (size_t i = 0; legal && i < legal->count; i++) {
        char text[512];
        cas__match_action_text(&t->r.match, t->r.session.state, legal->items[i], text,
                               sizeof text);
        if (i)
            cas__jw_raw(w, ",");
        cas__jw_str(w, text);
    }
    cas__jw_raw(w, "]");
}

/* The time control, whether the clocks run yet (they wait for every human
 * seat), and a seat gone past its grace: they change with joins and
 * leaves, so every state and update carries them. */
static void write_clock(struct cas__table *t, struct cas__jw *w)
{
    if (t->days_per_move)
        cas__corr_write_clock(t, w, 1);
    else if (t->has_clock) {
        cas__jw_raw(w, ",\"clock\":{\"base_ms\":");
        cas__jw_int(w, t->base_ms);
        cas__jw_raw(w, ",\"increment_ms\":");
        cas__jw_int(w, t->increment_ms);
        cas__jw_raw(w, ",\"running\":");
        cas__jw_bool(w, t->clock_running && !t->over);
        cas__jw_raw(w, "}");
    } else
        cas__jw_raw(w, ",\"clock\":null");
    int gone = cas__table_gone(t, t->lobby->clock.now_ms(t->lobby->clock.ctx));
    if (gone >= 0) {
        cas__jw_raw(w, ",\"leaver\":{\"seat\":");
        cas__jw_int(w, gone);
        cas__jw_raw(w, "}");
    } else
        cas__jw_raw(w, ",\"leaver\":null");
}

/* What every view's message of one build shares, written once for them
 * all: the players' fields (names, scores and projected scores, clocks,
 * read once). */
struct shared_fields {
    struct cas__jw players;
    int written;
};

static void write_shared_players(struct cas__table *t, struct shared_fields *sf,
                                 struct cas__jw *w)
{
    if (!sf->written) {
        cas__jw_init(&sf->players);
        write_players(t, &sf->players);
        sf->written = 1;
    }
    if (sf->players.b.failed)
        write_players(t, w);
    else
        cas__jw_rawn(w, cas__jw_text(&sf->players), cas__jw_len(&sf->players));
}

/* The fields every state and update begins with. */
static void write_head(struct cas__table *t, const char *type, int seat,
                       struct shared_fields *sf, struct cas__jw *w)
{
    int actor = cas__table_actor(t);
    cas__jw_raw(w, "{\"type\":\"");
    cas__jw_raw(w, type);
    cas__jw_raw(w, "\",\"game\":\"");
    cas__jw_int(w, t->id);
    cas__jw_raw(w, "\",\"seq\":");
    cas__jw_uint(w, t->seq);
    cas__jw_raw(w, ",\"ply\":");
    cas__jw_uint(w, t->r.session.ply);
    cas__jw_raw(w, ",\"you\":");
    if (seat >= 0)
        cas__jw_int(w, seat);
    else
        cas__jw_raw(w, "null");
    if (t->over || actor == CAS_ACTOR_TERMINAL)
        cas__jw_raw(w, ",\"actor\":\"over\"");
    else if (actor == CAS_ACTOR_CHANCE)
        cas__jw_raw(w, ",\"actor\":\"chance\"");
    else {
        cas__jw_raw(w, ",\"actor\":");
        cas__jw_int(w, actor);
    }
    write_shared_players(t, sf, w);
    write_clock(t, w);
}

/* The fields every state and update ends with. */
static void write_tail(struct cas__table *t, int seat, struct cas__jw *w)
{
    cas__jw_raw(w, ",\"can_undo\":");
    cas__jw_bool(w, cas__table_can_undo(t, seat));
    cas__jw_raw(w, ",\"over\":");
    cas__jw_bool(w, t->over);
    cas__jw_raw(w, ",\"result\":");
    if (t->over)
        cas__table_write_result(t, w);
    else
        cas__jw_raw(w, "null");
    if (t->failure[0]) {
        cas__jw_raw(w, ",\"failure\":");
        cas__jw_str(w, t->failure);
    }
    cas__jw_raw(w, "}");
}

/* Whether the draws were fixed (docs/server.md, "Fair draws"): the seed's
 * commitment from the start, the seed itself only once the game is over
 * (from the start in a practice game, whose creator chose it). */
static void write_draws(const struct cas__table *t, struct cas__jw *w)
{
    cas__jw_raw(w, ",\"practice\":");
    cas__jw_bool(w, t->practice);
    cas__jw_raw(w, ",\"seed_commitment\":");
    cas__jw_str(w, t->seed_commitment[0] ? t->seed_commitment : NULL);
    if (t->practice || t->over) {
        cas__jw_raw(w, ",\"seed\":\"");
        cas__jw_uint(w, t->saved.seed);
        cas__jw_raw(w, "\"");
    } else
        cas__jw_raw(w, ",\"seed\":null");
    cas__jw_raw(w, ",\"seed_reveal\":");
    cas__jw_str(w, t->over && t->seed_reveal[0] ? t->seed_reveal : NULL);
}

static void write_svg(struct cas__jw *w, struct cas__picture *pic, int marked)
{
    cas__jw_raw(w, ",\"svg\":");
    cas__jw_strn(w, cas__picture_svg(pic), pic->len);
    cas__jw_raw(w, ",\"marked\":");
    cas__jw_bool(w, marked);
}

/* ------------------------------------------------------- the messages */

/* Bring view v (of seat) to the table's message seq with a picture of its
 * own, starting its history afresh: what a full state is built on. */
static void view_sync(struct cas__table *t, struct cas__view *v, int seat,
                      const struct cas__actions *legal)
{
    if (v->seq == t->seq && v->seq)
        return;
    drop_history(v);
    cas__picture_free(&v->pic);
    render_picture(t, seat, legal, NULL, &v->pic, &v->marked);
    v->seq = t->seq;
    v->events_sent = t->n_events;
    v->events_epoch = t->events_reset;
}

/* The full state of seat's view at the table's message seq, built once
 * and shared by every connection that joins at it. */
static struct cas__srv_msg *full_state(struct cas__table *t, int seat, struct shared_fields *sf)
{
    struct cas__view *v = cas__table_view(t, seat);
    if (v->full && v->full_seq == t->seq)
        return v->full;
    const struct cas__actions *legal = legal_of(t, seat);
    view_sync(t, v, seat, legal);
    struct cas__jw w;
    cas__jw_init(&w);
    write_head(t, "state", seat, sf, &w);
    cas__jw_raw(&w, ",\"title\":");
    cas__jw_str(&w, t->r.match.title);
    write_draws(t, &w);
    write_svg(&w, &v->pic, v->marked);
    write_actions(t, legal, &w);
    write_events(t, seat, 0, &w);
    cas__jw_raw(&w, ",\"events_reset\":true");
    write_tail(t, seat, &w);
    cas__srv_msg_unref(v->full);
    v->full = cas__srv_msg_take(&w);
    v->full_seq = t->seq;
    return v->full;
}

static void write_played(struct cas__table *t, struct cas__jw *w)
{
    cas__jw_raw(w, ",\"played\":[");
    for (size_t i = 0; i < t->n_played; i++) {
        cas__jw_raw(w, i ? ",{\"ply\":" : "{\"ply\":");
        cas__jw_uint(w, t->played[i].ply);
        cas__jw_raw(w, ",\"player\":");
        cas__jw_int(w, t->played[i].player);
        cas__jw_raw(w, ",\"text\":");
        cas__jw_str(w, t->played[i].text);
        cas__jw_raw(w, "}");
    }
    cas__jw_raw(w, "]");
}

static void remember(struct cas__view *v, uint64_t seq, struct cas__srv_msg *msg)
{
    struct cas__srv_msg **slot = &v->history[seq % CAS__VIEW_HISTORY];
    if (*slot) {
        v->history_bytes -= (*slot)->len;
        cas__srv_msg_unref(*slot);
        v->n_history--;
    }
    msg->refs++;
    *slot = msg;
    v->n_history++;
    v->history_bytes += msg->len;
    /* The oldest go first when the history holds too many bytes. */
    while (v->n_history > 1 && v->history_bytes > CAS__VIEW_HISTORY_BYTES) {
        struct cas__srv_msg **old = &v->history[(seq - v->n_history + 1) % CAS__VIEW_HISTORY];
        v->history_bytes -= (*old)->len;
        cas__srv_msg_unref(*old);
        *old = NULL;
        v->n_history--;
    }
}

/* The update of seat's view from message seq - 1 to seq (v follows: it is
 * at seq - 1), remembered in its history. */
static struct cas__srv_msg *update(struct cas__table *t, int seat, struct cas__view *v,
                                   struct shared_fields *sf)
{
    const struct cas__actions *legal = legal_of(t, seat);
    struct cas__picture pic;
    int marked;
    render_picture(t, seat, legal, &v->pic, &pic, &marked);
    /* An update is far smaller than its picture, which leaves room for the
     * escaping's worst case of the changed elements. */
    struct cas__jw w;
    cas__jw_init_room(&w, pic.len + 4096);
    write_head(t, "update", seat, sf, &w);
    if (t->over) /* the seed revealed */
        write_draws(t, &w);
    write_played(t, &w);
    int reset = v->events_epoch != t->events_reset || v->events_sent > t->n_events;
    write_events(t, seat, reset ? 0 : v->events_sent, &w);
    cas__jw_raw(&w, ",\"events_reset\":");
    cas__jw_bool(&w, reset);
    size_t mark = cas__jw_len(&w);
    cas__jw_raw(&w, ",\"svg_changes\":");
    if (cas__picture_diff(&v->pic, &pic, &w) == 0) {
        cas__jw_raw(&w, ",\"marked\":");
        cas__jw_bool(&w, marked);
    } else {
        cas__jw_cut(&w, mark);
        write_svg(&w, &pic, marked);
    }
    write_actions(t, legal, &w);
    write_tail(t, seat, &w);
    cas__picture_free(&v->pic);
    v->pic = pic;
    v->marked = marked;
    v->seq = t->seq;
    v->events_sent = t->n_events;
    v->events_epoch = t->events_reset;
    struct cas__srv_msg *msg = cas__srv_msg_take(&w);
    if (msg)
        remember(v, t->seq, msg);
    else
        drop_history(v);
    return msg;
}

/* The text view of seat at the table's message seq, built once. */
static struct cas__srv_msg *text_view(struct cas__table *t, int seat)
{
    struct cas__view *v = cas__table_view(t, seat);
    if (v->text && v->text_seq == t->seq)
        return v->text;
    size_t len = 0;
    char *text = render(t, seat >= 0 ? seat : CAS_VIEWER_PUBLIC, CAS_RENDER_TEXT, NULL, 0, &len);
    struct cas__jw w;
    cas__jw_init(&w);
    cas__jw_printf(&w, "{\"type\":\"text\",\"game\":\"%lld\",\"seq\":%" PRIu64 ",\"text\":",
                   (long long)t->id, t->seq);
    cas__jw_strn(&w, text, len);
    cas__jw_raw(&w, "}");
    free(text);
    cas__srv_msg_unref(v->text);
    v->text = cas__srv_msg_take(&w);
    v->text_seq = t->seq;
    return v->text;
}

static void send_msg(struct cas__conn *c, struct cas__srv_msg *msg)
{
    if (msg)
        c->send(c, msg);
}

/* Whether every connection of v that joined afresh may resume from its
 * history (after since_lo..since_hi) rather than take the full state. */
static int resumable(const struct cas__table *t, const struct cas__view *v, uint64_t lo,
                     uint64_t hi)
{
    return v->seq == t->seq && hi <= t->seq && t->seq - lo <= v->n_history;
}

void cas__table_plan(struct cas__table *t)
{
    for (int i = 0; i <= t->nplayers; i++) {
        struct cas__view *v = &t->views[i];
        v->follow = v->fresh = v->need_full = v->want_text = 0;
        v->since_lo = UINT64_MAX;
        v->since_hi = 0;
    }
    for (struct cas__conn *c = t->viewers; c; c = c->next_viewer) {
        struct cas__view *v = cas__table_view(t, c->seat);
        v->want_text |= c->text;
        if (!c->fresh) {
            v->follow = 1;
            continue;
        }
        v->fresh = 1;
        if (c->since < 0) {
            v->need_full = 1;
        } else {
            uint64_t since = (uint64_t)c->since;
            v->since_lo = since < v->since_lo ? since : v->since_lo;
            v->since_hi = since > v->since_hi ? since : v->since_hi;
        }
    }
}

void cas__table_build(struct cas__table *t)
{
    t->hold.built_update = 0;
    if (!t->owes_update && !t->owes_full)
        return;
    if (cas__table_unshown(t)) /* owed still: the job after the writer's answer builds it */
        return;
    struct shared_fields sf = {.written = 0};
    if (t->owes_update) {
        t->seq++;
        t->hold.built_update = 1;
        /* One update per view that connections follow, built once. */
        for (int i = 0; i <= t->nplayers; i++) {
            struct cas__view *v = &t->views[i];
            int seat = i < t->nplayers ? i : -1;
            if (v->follow && v->seq + 1 == t->seq) {
                cas__srv_msg_unref(update(t, seat, v, &sf)); /* the history keeps its own */
            } else if (v->follow) {
                v->need_full = 1; /* out of step: its connections get the full state */
            } else if (v->fresh && !v->need_full && v->seq && v->seq + 1 == t->seq) {
                /* Only pages that resume (a seat's own join made this
                 * update): the history goes on, so they resume from it. */
                cas__srv_msg_unref(update(t, seat, v, &sf));
            } else if (!v->conns && v->seq + 1 == t->seq && v->orphaned < CAS__VIEW_HISTORY) {
                v->orphaned++; /* for a page that comes back */
                cas__srv_msg_unref(update(t, seat, v, &sf));
            } else if (!v->conns && v->seq) {
                cas__view_release(v);
            }
            drop_stale(t, v);
        }
        t->owes_update = 0;
        for (size_t i = 0; i < t->n_played; i++)
            free(t->played[i].text);
        t->n_played = 0;
    }
    for (int i = 0; i <= t->nplayers; i++) {
        struct cas__view *v = &t->views[i];
        int seat = i < t->nplayers ? i : -1;
        if (v->need_full || (v->fresh && !resumable(t, v, v->since_lo, v->since_hi)))
            full_state(t, seat, &sf);
        if (v->want_text)
            text_view(t, seat);
    }
    t->owes_full = 0;
    if (sf.written)
        cas__jw_free(&sf.players);
}

/* A joined connection: the updates after c->since from its view's
 * history when they are all there, else the full state, built by the
 * last job; 0 when neither is there (a job builds it next). */
static int catch_up(struct cas__table *t, struct cas__conn *c)
{
    struct cas__view *v = cas__table_view(t, c->seat);
    uint64_t since = c->since < 0 ? 0 : (uint64_t)c->since;
    if (c->since >= 0 && resumable(t, v, since, since)) {
        for (uint64_t k = since + 1; k <= t->seq; k++)
            send_msg(c, v->history[k % CAS__VIEW_HISTORY]);
    } else if (v->full && v->full_seq == t->seq) {
        send_msg(c, v->full);
    } else if (!v->fresh) {
        return 0; /* it was not owed one when the job started */
    }
    c->fresh = 0;
    if (c->text && v->text && v->text_seq == t->seq)
        send_msg(c, v->text);
    return 1;
}

void cas__table_send(struct cas__table *t)
{
    for (struct cas__conn *c = t->viewers; c; c = c->next_viewer) {
        struct cas__view *v = cas__table_view(t, c->seat);
        if (!c->fresh && t->hold.built_update) {
            /* The update to seq, when the view followed (else a full state). */
            if (v->seq == t->seq && v->n_history) {
                send_msg(c, v->history[t->seq % CAS__VIEW_HISTORY]);
                if (c->text && v->text && v->text_seq == t->seq)
                    send_msg(c, v->text);
            } else {
                c->fresh = 1;
                c->since = -1;
            }
        }
        if (c->fresh && !catch_up(t, c))
            cas__table_owe_full(t);
    }
    t->hold.built_update = 0;
}

int cas__table_unshown(const struct cas__table *t)
{
    return t->writing || t->unsaved.text || t->result_unsaved;
}

void cas__table_flush(struct cas__table *t)
{
    if (!t->hold.held && !cas__table_unshown(t) && (t->owes_update || t->owes_full))
        cas__offload(t, CAS__OP_FLUSH);
}
