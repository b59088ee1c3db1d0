/*
 * lobby_feed.c — the lobby's numbered changes (docs/server.md, Protocol,
 * "lobby"): each table's entry as the changes last carried it, the tables
 * whose entry may have changed since, and at most one change a second
 * carrying only the entries added or changed ("put"), those that only
 * moved on ("moved": ply and whose turn) and those removed.  A change is
 * one message shared by every subscriber that asked for changes; the last
 * few are kept for a client that resumes from its last number.  A client
 * that did not ask gets the whole list after news, as protocol 2 did.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

/* Mark t for the next change (whole: its entry written again). */
static void mark(struct cas__lobby *l, struct cas__table *t, int whole)
{
    struct cas__lobby_feed *f = &l->feed;
    /* A correspondence game's deadline, in its entry, moves with it. */
    t->relist_whole |= whole || t->days_per_move;
    t->hold.listing_stale |= whole;
    if (t->relist_slot || f->lost)
        return;
    if (f->n_relist == f->cap_relist) {
        size_t cap = f->cap_relist ? 2 * f->cap_relist : 64;
        struct cas__table **more = realloc(f->relist, cap * sizeof *more);
        if (!more) {
            f->lost = 1; /* the next change looks at every table */
            return;
        }
        f->relist = more;
        f->cap_relist = cap;
    }
    f->relist[f->n_relist++] = t;
    t->relist_slot = f->n_relist;
}

void cas__feed_relist(struct cas__lobby *l, struct cas__table *t)
{
    mark(l, t, 1);
}

void cas__feed_moved(struct cas__lobby *l, struct cas__table *t)
{
    mark(l, t, 0);
}

void cas__feed_forget(struct cas__lobby *l, struct cas__table *t)
{
    struct cas__lobby_feed *f = &l->feed;
    if (t->relist_slot)
        f->relist[t->relist_slot - 1] = NULL;
    t->relist_slot = 0;
    if (!t->listed)
        return;
    free(t->listed);
    t->listed = NULL;
    if (f->n_removed == f->cap_removed) {
        size_t cap = f->cap_removed ? 2 * f->cap_removed : 16;
        int64_t *more = realloc(f->removed, cap * sizeof *more);
        if (!more) {
            f->lost = 1;
            return;
        }
        f->removed = more;
        f->cap_removed = cap;
    }
    f->removed[f->n_removed++] = t->id;
}

void cas__feed_finished_news(struct cas__lobby *l)
{
    l->feed.finished_news = 1;
    l->lobby_dirty = 1; /* the whole list holds the recent games too */
}

static void drop_history(struct cas__lobby_feed *f)
{
    for (size_t i = 0; i < CAS__LOBBY_HISTORY; i++) {
        cas__srv_msg_unref(f->history[i]);
        f->history[i] = NULL;
    }
    f->n_history = f->history_bytes = 0;
}

void cas__feed_free(struct cas__lobby *l)
{
    struct cas__lobby_feed *f = &l->feed;
    drop_history(f);
    free(f->relist);
    free(f->removed);
    cas__srv_msg_unref(f->whole);
    memset(f, 0, sizeof *f);
}

/* The change numbered f->seq joins the history; the oldest leave past
 * its count or bytes. */
static void remember(struct cas__lobby_feed *f, struct cas__srv_msg *msg)
{
    struct cas__srv_msg **slot = &f->history[f->seq % CAS__LOBBY_HISTORY];
    if (*slot) {
        f->history_bytes -= (*slot)->len;
        cas__srv_msg_unref(*slot);
        f->n_history--;
    }
    msg->refs++;
    *slot = msg;
    f->n_history++;
    f->history_bytes += msg->len;
    while (f->n_history > 1 && f->history_bytes > CAS__LOBBY_HISTORY_BYTES) {
        struct cas__srv_msg **old =
            &f->history[(f->seq - f->n_history + 1) % CAS__LOBBY_HISTORY];
        f->history_bytes -= (*old)->len;
        cas__srv_msg_unref(*old);
        *old = NULL;
        f->n_history--;
    }
}

/* Where an entry's moving part (,"ply":N,"to_move":K) lies: after
 * {"game":"ID", before ,"title": (cas__lobby_write_entry's order). */
static void moving_part(const char *entry, size_t *from, size_t *to)
{
    const char *id_end = strchr(entry + sizeof "{\"game\":\"" - 1, '"');
    const char *title = strstr(entry, ",\"title\":");
    *from = id_end ? (size_t)(id_end + 1 - entry) : 0;
    *to = title && *from ? (size_t)(title - entry) : *from;
}

int cas__feed_listed_as_is(const struct cas__table *t)
{
    /* A correspondence game's deadline, in its entry, moves with it. */
    return t->listed && !t->relist_whole && !t->days_per_move;
}

int cas__feed_entry(struct cas__table *t, struct cas__jw *w)
{
    if (!t->hold.held) {
        cas__lobby_write_entry(t, w);
        return 1;
    }
    const char *entry = t->hold.listing_kept ? t->listed : t->hold.listing;
    if (!entry)
        return 0;
    /* The entry with the ply and turn it had when its job began. */
    size_t from, to;
    moving_part(entry, &from, &to);
    cas__jw_rawn(w, entry, from);
    cas__lobby_write_moving_at(w, t->hold.ply, t->hold.to_move);
    cas__jw_raw(w, entry + to);
    return 1;
}

/* Whether entries a and b differ only in their moving parts. */
static int only_moved(const char *a, const char *b)
{
    size_t a0, a1, b0, b1;
    moving_part(a, &a0, &a1);
    moving_part(b, &b0, &b1);
    return a0 && a0 == b0 && memcmp(a, b, a0) == 0 && strcmp(a + a1, b + b1) == 0;
}

/* Keep entry as t's listed one, with its moving part's values; memory
 * out: the next change starts over. */
static void keep_listed(struct cas__table *t, const char *entry)
{
    char *keep = strdup(entry);
    if (!keep) {
        t->lobby->feed.lost = 1;
        return;
    }
    free(t->listed);
    t->listed = keep;
    size_t from, to;
    moving_part(keep, &from, &to);
    const char *ply = strstr(keep + from, "\"ply\":"), *turn = strstr(keep + from, "\"to_move\":");
    t->listed_ply = ply ? (uint32_t)strtoul(ply + 6, NULL, 10) : 0;
    t->listed_to_move = turn && turn[10] != 'n' ? atoi(turn + 10) : -1;
}

/* Whose decision t's entry shows: as last asked (no plugin call on the
 * loop), none when it is over or stopped. */
int cas__lobby_to_move(const struct cas__table *t)
{
    int actor = t->over || t->failure[0] ? -1 : t->hold.actor;
    return actor >= 0 && actor < t->nplayers ? actor : -1;
}

/* A free table that only moved on since it was listed: its moving part
 * to the change if it differs, spliced into its listed entry. */
static void compare_moved(struct cas__table *t, struct cas__jw *moved)
{
    uint32_t ply = t->r.session.ply;
    int turn = cas__lobby_to_move(t);
    if (ply == t->listed_ply && turn == t->listed_to_move)
        return;
    size_t from, to, mark = cas__jw_len(moved);
    moving_part(t->listed, &from, &to);
    cas__jw_raw(moved, mark > 1 ? "," : "");
    size_t start = cas__jw_len(moved);
    cas__jw_rawn(moved, t->listed, from);
    cas__lobby_write_moving(t, moved);
    cas__jw_raw(moved, "}");
    if (moved->b.failed)
        return;
    /* the listed entry: its head, the new moving part, its tail */
    struct cas__jw w;
    cas__jw_init(&w);
    cas__jw_rawn(&w, cas__jw_text(moved) + start, cas__jw_len(moved) - start - 1);
    cas__jw_raw(&w, t->listed + to);
    if (w.b.failed)
        t->lobby->feed.lost = 1;
    else
        keep_listed(t, cas__jw_text(&w));
    cas__jw_free(&w);
}

/* Add t's entry to the change (put or moved) if it differs from what the
 * last change carried, and keep it as carried. */
static void compare(struct cas__table *t, struct cas__jw *put, struct cas__jw *moved)
{
    int whole = t->relist_whole;
    t->relist_whole = 0;
    if (!whole && t->listed && !t->hold.held) {
        compare_moved(t, moved);
        return;
    }
    struct cas__jw now;
    cas__jw_init(&now);
    if (!cas__feed_entry(t, &now) || now.b.failed) {
        cas__jw_free(&now);
        return;
    }
    const char *entry = cas__jw_text(&now);
    if (t->listed && strcmp(t->listed, entry) == 0) {
        cas__jw_free(&now);
        return;
    }
    if (t->listed && only_moved(t->listed, entry)) {
        size_t from, to;
        moving_part(entry, &from, &to);
        cas__jw_raw(moved, cas__jw_len(moved) > 1 ? "," : "");
        cas__jw_rawn(moved, entry, to);
        cas__jw_raw(moved, "}");
    } else {
        cas__jw_raw(put, cas__jw_len(put) > 1 ? "," : "");
        cas__jw_raw(put, entry);
    }
    keep_listed(t, entry);
    cas__jw_free(&now);
}

/* Memory ran out on the way: every table is looked at again, the history
 * is dropped and a number skipped, so each subscriber sees a gap and
 * resumes into a whole list. */
static void start_over(struct cas__lobby *l)
{
    struct cas__lobby_feed *f = &l->feed;
    f->lost = 0;
    f->n_relist = f->n_removed = 0;
    drop_history(f);
    f->seq++;
    cas__srv_msg_unref(f->whole);
    f->whole = NULL;
    for (struct cas__table *t = l->tables; t; t = t->next) {
        t->relist_slot = 0;
        t->relist_whole = 0;
        struct cas__jw w;
        cas__jw_init(&w);
        int shown = cas__feed_entry(t, &w) && !w.b.failed; /* a held one's is made of listed */
        free(t->listed);
        t->listed = NULL;
        if (shown)
            keep_listed(t, cas__jw_text(&w));
        cas__jw_free(&w);
    }
}

/* The change since the last one, built, numbered, kept and sent to the
 * subscribers that asked for changes; nothing when nothing changed. */
static void publish(struct cas__lobby *l)
{
    struct cas__lobby_feed *f = &l->feed;
    if (f->lost) {
        start_over(l);
        return;
    }
    struct cas__jw put, moved, w;
    cas__jw_init(&put);
    cas__jw_init(&moved);
    cas__jw_raw(&put, "[");
    cas__jw_raw(&moved, "[");
    for (size_t i = 0; i < f->n_relist; i++)
        if (f->relist[i]) {
            f->relist[i]->relist_slot = 0;
            compare(f->relist[i], &put, &moved);
        }
    f->n_relist = 0;
    int news = cas__jw_len(&put) > 1 || cas__jw_len(&moved) > 1 || f->n_removed ||
               f->finished_news;
    cas__jw_init(&w);
    if (news) {
        cas__jw_printf(&w, "{\"type\":\"lobby\",\"seq\":%" PRIu64 ",\"delta\":true,\"put\":",
                       f->seq + 1);
        cas__jw_raw(&put, "]");
        cas__jw_raw(&moved, "]");
        cas__jw_raw(&w, cas__jw_text(&put));
        cas__jw_raw(&w, ",\"moved\":");
        cas__jw_raw(&w, cas__jw_text(&moved));
        cas__jw_raw(&w, ",\"remove\":[");
        for (size_t i = 0; i < f->n_removed; i++)
            cas__jw_printf(&w, "%s\"%" PRId64 "\"", i ? "," : "", f->removed[i]);
        cas__jw_raw(&w, "]");
        if (f->finished_news)
            cas__recent_write(&l->recent, &w);
        cas__jw_raw(&w, "}");
    }
    if (put.b.failed || moved.b.failed || w.b.failed)
        f->lost = 1;
    f->n_removed = 0;
    f->finished_news = 0;
    cas__jw_free(&put);
    cas__jw_free(&moved);
    if (!news || f->lost) {
        cas__jw_free(&w);
        if (f->lost)
            start_over(l);
        return;
    }
    struct cas__srv_msg *msg = cas__srv_msg_take(&w);
    f->seq++;
    cas__srv_msg_unref(f->whole); /* the whole list is one change older */
    f->whole = NULL;
    if (!msg) { /* the subscribers see the number missing, and resume */
        drop_history(f);
        return;
    }
    remember(f, msg);
    for (struct cas__conn *c = l->subs; c; c = c->next_sub)
        if (c->lobby_deltas)
            c->send(c, msg);
    cas__srv_msg_unref(msg);
}

/* The whole list at the last change, without an id: built once per
 * change and shared (NULL: memory ran out). */
static struct cas__srv_msg *whole_list(struct cas__lobby *l)
{
    struct cas__lobby_feed *f = &l->feed;
    if (!f->whole) {
        struct cas__jw w;
        cas__jw_init(&w);
        cas__lobby_write_list(l, &w, NULL);
        f->whole = cas__srv_msg_take(&w);
    }
    return f->whole;
}

static int pending(const struct cas__lobby *l)
{
    const struct cas__lobby_feed *f = &l->feed;
    return f->n_relist || f->n_removed || f->finished_news || f->lost || l->lobby_dirty;
}

/* What is due goes out: the change to those that asked for changes, the
 * whole list after news to the others.  With nobody subscribed nothing
 * is built, and what changed waits (at most every table once).  A
 * subscriber arriving (now) has it built first, paced or not, when nobody
 * else is subscribed or after news: so its list shows a game created or
 * ended a moment ago, and the others get that news no more often than
 * they would have (once), only sooner. */
static void send_due(struct cas__lobby *l, int now_anyway)
{
    if (!l->subs && !now_anyway) {
        l->lobby_dirty = 0; /* a whole list is built for the next one to come */
        return;
    }
    if (!pending(l))
        return;
    int64_t now = l->clock.now_ms(l->clock.ctx);
    if (now < l->lobby_next_at && !now_anyway)
        return;
    if (l->subs) /* sent to nobody, a change does not count against the pace */
        l->lobby_next_at = now + CAS__LOBBY_EVERY_MS;
    publish(l);
    if (l->lobby_dirty)
        for (struct cas__conn *c = l->subs; c; c = c->next_sub)
            if (!c->lobby_deltas && whole_list(l))
                c->send(c, l->feed.whole);
    l->lobby_dirty = 0;
}

void cas__feed_send(struct cas__lobby *l)
{
    send_due(l, 0);
}

/* Whether the history holds every change after since. */
static int resumable(const struct cas__lobby_feed *f, int64_t since)
{
    return since >= 0 && (uint64_t)since <= f->seq && f->seq - (uint64_t)since <= f->n_history;
}

void cas__feed_subscribe(struct cas__lobby *l, struct cas__conn *c, const struct cas__req *req)
{
    struct cas__lobby_feed *f = &l->feed;
    if (!c->lobby)
        send_due(l, !l->subs || l->lobby_dirty);
    if (!c->lobby) {
        c->lobby = 1;
        c->next_sub = l->subs;
        l->subs = c;
    }
    c->lobby_deltas = req->deltas;
    if (req->deltas && resumable(f, req->since)) {
        for (uint64_t s = (uint64_t)req->since + 1; s <= f->seq; s++)
            c->send(c, f->history[s % CAS__LOBBY_HISTORY]);
        return;
    }
    /* The whole list shared (built once per change, compressed once for
     * the connections after the same messages): to a subscriber of
     * changes always, so asking for it again and again costs the server
     * a reference, not a list's build and compression each time; without
     * an id it could not echo anyway. */
    if (req->deltas || !req->id[0]) {
        if (whole_list(l))
            c->send(c, f->whole);
        return;
    }
    struct cas__jw w;
    cas__jw_init(&w);
    cas__lobby_write_list(l, &w, req->id);
    cas__conn_send_jw(c, &w);
}
