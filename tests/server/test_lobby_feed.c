/*
 * test_lobby_feed.c — the lobby's numbered changes (host/server/
 * lobby_feed.c) in process, on a clock the test moves: a subscriber that
 * asked for deltas gets the whole list once, then exactly the entries a
 * scripted run of creates, claims, joins, moves and finished games
 * changed, coalesced per second; the list it holds after each change is
 * the server's whole list; a resume gets exactly what it missed out of
 * the history, or the whole list when it missed too much; the history
 * and a subscriber that never reads stay bounded.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <libwebsockets.h>

#include "json.h"
#include "saves.h"
#include "table.h"
#include "tconn.h"
#include "wsclient.h"

static int64_t fake_now = 1000000;

static int64_t fake_clock(void *ctx)
{
    (void)ctx;
    return fake_now;
}

static const struct cas__srv_clock clock_of_test = {.now_ms = fake_clock};

struct world {
    struct cas__saves *store;
    struct cas__lobby lobby;
};

static void world_open(struct world *w, const char *name, const struct cas__srv_limits *limits)
{
    char err[1024], db[256];
    snprintf(db, sizeof db, "%s.db", name);
    tconn_fresh_db(db);
    assert_int_equal(cas__saves_open(db, &w->store, err, sizeof err), CAS_OK);
    assert_int_equal(cas__lobby_open(&w->lobby, w->store, NULL, NULL, &clock_of_test, limits,
                                     err, sizeof err), CAS_OK);
}

static void world_close(struct world *w)
{
    cas__lobby_close(&w->lobby);
    cas__saves_close(w->store);
}

/* The next second: what waits goes out. */
static void next_second(struct world *w)
{
    fake_now += CAS__LOBBY_EVERY_MS;
    cas__lobby_flush(&w->lobby);
}

static const char open_seat[] =
    "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":[{\"name\":\"Ada\",\"agent\":"
    "\"human\"},{\"agent\":\"open\"}]}";
static const char two_bots[] =
    "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":[{\"agent\":\"random\"},"
    "{\"agent\":\"random\"}]}";

/* Create a game (its answer to a connection of its own): its id, and
 * seat 0's token into token0 when given. */
static int64_t create(struct world *w, const char *msg, char *token0)
{
    struct tconn c;
    long long id = 0;
    tconn_init(&c);
    tconn_sayf(&w->lobby, &c, "%s", msg);
    const char *at = strstr(tconn_last(&c), "\"game\":\"");
    if (!at)
        fail_msg("create failed: %s", tconn_last(&c));
    assert_int_equal(sscanf(at + 8, "%lld", &id), 1);
    if (token0)
        assert_int_equal(sscanf(strstr(tconn_last(&c), "\"token\":\"") + 9, "%63[0-9a-f]", token0),
                         1);
    tconn_free(&c);
    return id;
}

/* -------------------------------------- the list a client holds, in C */

/* A JSON value written back out, members in order: equal values give
 * equal text. */
static void canon(const struct cas_json *v, struct cas__jw *w)
{
    switch (v->type) {
    case CAS_JSON_OBJECT:
    case CAS_JSON_ARRAY:
        cas__jw_raw(w, v->type == CAS_JSON_OBJECT ? "{" : "[");
        for (size_t i = 0; i < v->n; i++) {
            if (i)
                cas__jw_raw(w, ",");
            if (v->items[i].key) {
                cas__jw_str(w, v->items[i].key);
                cas__jw_raw(w, ":");
            }
            canon(&v->items[i], w);
        }
        cas__jw_raw(w, v->type == CAS_JSON_OBJECT ? "}" : "]");
        break;
    case CAS_JSON_STRING:
        cas__jw_strn(w, v->text, v->len);
        break;
    case CAS_JSON_NUMBER:
        cas__jw_raw(w, v->text);
        break;
    case CAS_JSON_TRUE:
        cas__jw_raw(w, "true");
        break;
    case CAS_JSON_FALSE:
        cas__jw_raw(w, "false");
        break;
    default:
        cas__jw_raw(w, "null");
    }
}

static const struct cas_json *member(const struct cas_json *obj, const char *key)
{
    for (size_t i = 0; obj && i < obj->n; i++)
        if (strcmp(obj->items[i].key, key) == 0)
            return &obj->items[i];
    return NULL;
}

#define MAX_KEYS 16
#define MAX_GAMES 64

/* One game as the client holds it: its fields, each as canonical text. */
struct entry {
    char game[32];
    char *key[MAX_KEYS], *value[MAX_KEYS];
    size_t n;
};

struct held {
    uint64_t seq;
    struct entry games[MAX_GAMES];
    size_t n;
};

static void entry_clear(struct entry *e)
{
    for (size_t i = 0; i < e->n; i++) {
        free(e->key[i]);
        free(e->value[i]);
    }
    memset(e, 0, sizeof *e);
}

static void held_clear(struct held *h)
{
    for (size_t i = 0; i < h->n; i++)
        entry_clear(&h->games[i]);
    memset(h, 0, sizeof *h);
}

static struct entry *find(struct held *h, const char *game)
{
    for (size_t i = 0; i < h->n; i++)
        if (strcmp(h->games[i].game, game) == 0)
            return &h->games[i];
    return NULL;
}

/* Set e's fields from obj's (a whole entry, or a moved one's few). */
static void entry_set(struct entry *e, const struct cas_json *obj)
{
    snprintf(e->game, sizeof e->game, "%s", member(obj, "game")->text);
    for (size_t i = 0; i < obj->n; i++) {
        struct cas__jw w;
        cas__jw_init(&w);
        canon(&obj->items[i], &w);
        size_t k = 0;
        while (k < e->n && strcmp(e->key[k], obj->items[i].key) != 0)
            k++;
        if (k == e->n) {
            assert_true(e->n < MAX_KEYS);
            e->key[e->n++] = strdup(obj->items[i].key);
        } else {
            free(e->value[k]);
        }
        e->value[k] = strdup(cas__jw_text(&w));
        cas__jw_free(&w);
    }
}

/* Apply a lobby message (whole or change) to h, as the browser does. */
static void apply(struct held *h, const char *text)
{
    struct cas_json *root;
    size_t line, offset;
    assert_int_equal(cas__json_parse(text, strlen(text), &root, &line, &offset), CAS_OK);
    const struct cas_json *seq = member(root, "seq");
    assert_non_null(seq);
    uint64_t n = strtoull(seq->text, NULL, 10);
    if (member(root, "delta")) {
        assert_true(n == h->seq + 1); /* numbered one after the last */
        const struct cas_json *put = member(root, "put"), *moved = member(root, "moved"),
                              *remove = member(root, "remove");
        for (size_t i = 0; i < remove->n; i++) {
            struct entry *e = find(h, remove->items[i].text);
            assert_non_null(e);
            entry_clear(e);
            *e = h->games[--h->n];
            memset(&h->games[h->n], 0, sizeof h->games[h->n]);
        }
        for (size_t i = 0; i < put->n; i++) {
            struct entry *e = find(h, member(&put->items[i], "game")->text);
            if (e) {
                entry_clear(e);
            } else {
                assert_true(h->n < MAX_GAMES);
                e = &h->games[h->n++];
            }
            entry_set(e, &put->items[i]);
        }
        for (size_t i = 0; i < moved->n; i++) {
            struct entry *e = find(h, member(&moved->items[i], "game")->text);
            assert_non_null(e); /* only a game held already moves */
            entry_set(e, &moved->items[i]);
        }
    } else {
        held_clear(h);
        const struct cas_json *games = member(root, "games");
        for (size_t i = 0; i < games->n; i++)
            entry_set(&h->games[h->n++], &games->items[i]);
    }
    h->seq = n;
    cas__json_free(root);
}

/* Whether e and f hold the same fields with the same values. */
static int same_entry(const struct entry *e, const struct entry *f)
{
    if (e->n != f->n)
        return 0;
    for (size_t i = 0; i < e->n; i++) {
        size_t k = 0;
        while (k < f->n && strcmp(f->key[k], e->key[i]) != 0)
            k++;
        if (k == f->n || strcmp(e->value[i], f->value[k]) != 0)
            return 0;
    }
    return 1;
}

/* The list h holds is the server's whole list now (asked for by another
 * connection, which then leaves). */
static void holds_the_whole_list(struct world *w, struct held *h)
{
    struct tconn other;
    struct held whole = {0};
    tconn_init(&other);
    tconn_sayf(&w->lobby, &other, "{\"type\":\"lobby\",\"deltas\":true}");
    apply(&whole, tconn_last(&other));
    assert_true(whole.seq == h->seq);
    assert_int_equal(whole.n, h->n);
    for (size_t i = 0; i < whole.n; i++) {
        struct entry *mine = find(h, whole.games[i].game);
        assert_non_null(mine);
        assert_true(same_entry(mine, &whole.games[i]));
    }
    held_clear(&whole);
    tconn_close(&w->lobby, &other);
}

/* Every entry as the last change carried it is the entry as written now
 * (nothing changed since is left out of the changes): for each table not
 * held and not marked since. */
static void entries_are_current(struct world *w)
{
    for (struct cas__table *t = w->lobby.tables; t; t = t->next) {
        if (t->hold.held || t->relist_slot)
            continue;
        struct cas__jw now;
        cas__jw_init(&now);
        cas__lobby_write_entry(t, &now);
        assert_non_null(t->listed);
        assert_string_equal(t->listed, cas__jw_text(&now));
        cas__jw_free(&now);
    }
}

/* The ids of one array of a change message, "a,b,c" ("" for none). */
static const char *ids_of(const char *change, const char *array)
{
    static char out[512];
    struct cas_json *root;
    size_t line, offset;
    out[0] = '\0';
    assert_int_equal(cas__json_parse(change, strlen(change), &root, &line, &offset), CAS_OK);
    const struct cas_json *a = member(root, array);
    assert_non_null(a);
    for (size_t i = 0; i < a->n; i++) {
        const struct cas_json *id = a->items[i].type == CAS_JSON_STRING
                                        ? &a->items[i] : member(&a->items[i], "game");
        snprintf(out + strlen(out), sizeof out - strlen(out), "%s%s", i ? "," : "", id->text);
    }
    cas__json_free(root);
    return out;
}

/* c was sent exactly one more message since it had n, a change with these
 * ids put, moved and removed; h follows it. */
static void expect_change(struct world *w, struct tconn *c, size_t *n, struct held *h,
                          const char *put, const char *moved, const char *removed)
{
    assert_int_equal(c->n, *n + 1);
    *n = c->n;
    assert_non_null(strstr(tconn_last(c), "\"delta\":true"));
    assert_string_equal(ids_of(tconn_last(c), "put"), put);
    assert_string_equal(ids_of(tconn_last(c), "moved"), moved);
    assert_string_equal(ids_of(tconn_last(c), "remove"), removed);
    apply(h, tconn_last(c));
    holds_the_whole_list(w, h);
    entries_are_current(w);
}

static char *id_text(int64_t id)
{
    static char text[4][24];
    static int k;
    k = (k + 1) % 4;
    snprintf(text[k], sizeof text[k], "%lld", (long long)id);
    return text[k];
}

/* ------------------------------------------------------------- tests */

static void test_a_subscriber_sees_exactly_what_changed(void **state)
{
    (void)state;
    struct world w;
    struct cas__srv_limits limits;
    struct tconn sub, bob, ada;
    struct held h = {0};
    char ada_token[64];
    cas__srv_limits_default(&limits);
    limits.keep_finished = 1;
    world_open(&w, "feed-script", &limits);
    tconn_init(&sub);
    tconn_init(&bob);
    tconn_init(&ada);

    /* The whole list once, numbered: the one shared message (no id). */
    tconn_sayf(&w.lobby, &sub, "{\"type\":\"lobby\",\"deltas\":true,\"id\":7}");
    assert_int_equal(sub.n, 1);
    assert_null(strstr(tconn_last(&sub), "\"delta\""));
    assert_null(strstr(tconn_last(&sub), "\"id\":7"));
    assert_ptr_equal(sub.sent[0], w.lobby.feed.whole);
    assert_non_null(strstr(tconn_last(&sub), "\"presets\":["));
    apply(&h, tconn_last(&sub));
    assert_int_equal(h.n, 0);
    size_t n = sub.n;

    /* A create: one change with its entry. */
    int64_t a = create(&w, open_seat, ada_token);
    expect_change(&w, &sub, &n, &h, id_text(a), "", "");
    assert_non_null(strstr(tconn_last(&sub), "\"status\":\"open\""));

    /* Three creates within a second: one change, a second later. */
    int64_t b = create(&w, open_seat, NULL);
    int64_t c = create(&w, open_seat, NULL);
    int64_t d = create(&w, open_seat, NULL);
    assert_int_equal(sub.n, n);
    next_second(&w);
    char three[80];
    snprintf(three, sizeof three, "%lld,%lld,%lld", (long long)b, (long long)c, (long long)d);
    expect_change(&w, &sub, &n, &h, three, "", "");

    /* A claim: that game only, running, with Bob. */
    tconn_sayf(&w.lobby, &bob, "{\"type\":\"claim\",\"game\":\"%lld\",\"seat\":1,"
               "\"name\":\"Bob\"}", (long long)a);
    char bob_token[64];
    assert_int_equal(sscanf(strstr(tconn_last(&bob), "\"token\":\"") + 9, "%63[0-9a-f]", bob_token),
                     1);
    next_second(&w);
    expect_change(&w, &sub, &n, &h, id_text(a), "", "");
    assert_non_null(strstr(tconn_last(&sub), "\"status\":\"running\""));
    assert_non_null(strstr(tconn_last(&sub), "\"name\":\"Bob\""));

    /* Both join: their seats show connected (the entry is put again). */
    tconn_sayf(&w.lobby, &ada, "{\"type\":\"join\",\"game\":\"%lld\",\"seat\":0,"
               "\"token\":\"%s\"}", (long long)a, ada_token);
    tconn_sayf(&w.lobby, &bob, "{\"type\":\"join\",\"game\":\"%lld\",\"seat\":1,"
               "\"token\":\"%s\"}", (long long)a, bob_token);
    next_second(&w);
    expect_change(&w, &sub, &n, &h, id_text(a), "", "");

    /* A move: the game only moved on (ply and whose turn). */
    struct tconn *seats[2] = {&ada, &bob};
    assert_true(tconn_play_first(&w.lobby, seats, 2) >= 0);
    next_second(&w);
    expect_change(&w, &sub, &n, &h, "", id_text(a), "");
    /* {"game":"A","ply":N,"to_move":K}: nothing else. */
    char moved_entry[64];
    snprintf(moved_entry, sizeof moved_entry, "\"moved\":[{\"game\":\"%lld\",\"ply\":",
             (long long)a);
    const char *at = strstr(tconn_last(&sub), moved_entry);
    assert_non_null(at);
    at = strstr(at, ",\"to_move\":");
    assert_non_null(at);
    assert_non_null(strchr("0123456789n", at[11]));
    assert_non_null(strstr(at, "}],\"remove\":[]"));
    assert_true(strstr(at, "}],\"remove\":[]") - at < 17);
    assert_null(strstr(tconn_last(&sub), "\"title\""));

    /* Nothing changed: nothing is sent. */
    next_second(&w);
    assert_int_equal(sub.n, n);

    /* A game the bots finish at once: put, over, with the recent games;
     * at once, as a second passed since the last change. */
    int64_t e = create(&w, two_bots, NULL);
    expect_change(&w, &sub, &n, &h, id_text(e), "", "");
    assert_non_null(strstr(tconn_last(&sub), "\"status\":\"over\""));
    assert_non_null(strstr(tconn_last(&sub), "\"finished\":["));
    /* Another: the older finished one leaves memory (keep_finished 1). */
    int64_t f = create(&w, two_bots, NULL);
    next_second(&w);
    expect_change(&w, &sub, &n, &h, id_text(f), "", id_text(e));
    assert_null(cas__lobby_find(&w.lobby, e));

    held_clear(&h);
    cas__lobby_disconnect(&w.lobby, &sub.base);
    cas__lobby_disconnect(&w.lobby, &ada.base);
    cas__lobby_disconnect(&w.lobby, &bob.base);
    tconn_free(&sub);
    tconn_free(&ada);
    tconn_free(&bob);
    world_close(&w);
}

/* A subscriber that did not ask for deltas gets whole lists, after news
 * only (protocol 2's lobby), never a change. */
static void test_without_deltas_whole_lists(void **state)
{
    (void)state;
    struct world w;
    struct tconn old;
    world_open(&w, "feed-whole", NULL);
    tconn_init(&old);
    tconn_sayf(&w.lobby, &old, "{\"type\":\"lobby\"}");
    create(&w, open_seat, NULL);
    assert_int_equal(old.n, 2);
    int64_t b = create(&w, open_seat, NULL);
    assert_int_equal(old.n, 2); /* at most one a second */
    next_second(&w);
    assert_int_equal(old.n, 3);
    assert_null(strstr(tconn_last(&old), "\"delta\""));
    char entry[64];
    snprintf(entry, sizeof entry, "{\"game\":\"%lld\"", (long long)b);
    assert_non_null(strstr(tconn_last(&old), entry));
    next_second(&w);
    assert_int_equal(old.n, 3);
    tconn_close(&w.lobby, &old);
    world_close(&w);
}

static uint64_t seq_of(const char *msg)
{
    const char *at = strstr(msg, "\"seq\":");
    assert_non_null(at);
    return strtoull(at + 6, NULL, 10);
}

/* A subscriber arriving after news (a game created a moment ago) finds
 * it in its list at once: the change goes out then, to every subscriber,
 * rather than at the end of the second; the others get it once. */
static void test_a_new_subscriber_sees_news_at_once(void **state)
{
    (void)state;
    struct world w;
    struct tconn sub, late;
    world_open(&w, "feed-late", NULL);
    tconn_init(&sub);
    tconn_init(&late);
    tconn_sayf(&w.lobby, &sub, "{\"type\":\"lobby\",\"deltas\":true}");
    create(&w, open_seat, NULL); /* the first change: at once */
    assert_int_equal(sub.n, 2);
    int64_t b = create(&w, open_seat, NULL); /* within the second: waits */
    assert_int_equal(sub.n, 2);
    tconn_sayf(&w.lobby, &late, "{\"type\":\"lobby\",\"deltas\":true}");
    char entry[64];
    snprintf(entry, sizeof entry, "{\"game\":\"%lld\"", (long long)b);
    assert_int_equal(late.n, 1);
    assert_non_null(strstr(tconn_last(&late), entry));
    assert_int_equal(sub.n, 3);
    assert_non_null(strstr(tconn_last(&sub), entry));
    assert_true(seq_of(tconn_last(&sub)) == seq_of(tconn_last(&late)));
    next_second(&w);
    assert_int_equal(sub.n, 3);
    assert_int_equal(late.n, 1);
    cas__lobby_disconnect(&w.lobby, &sub.base);
    cas__lobby_disconnect(&w.lobby, &late.base);
    tconn_free(&sub);
    tconn_free(&late);
    world_close(&w);
}

static void test_a_resume_gets_exactly_what_it_missed(void **state)
{
    (void)state;
    struct world w;
    struct tconn sub, back;
    world_open(&w, "feed-resume", NULL);
    tconn_init(&sub);
    tconn_sayf(&w.lobby, &sub, "{\"type\":\"lobby\",\"deltas\":true}");
    uint64_t first = seq_of(tconn_last(&sub));
    for (int i = 0; i < 5; i++) {
        create(&w, open_seat, NULL);
        next_second(&w);
    }
    assert_int_equal(sub.n, 6);
    assert_true(seq_of(tconn_last(&sub)) == first + 5);

    /* From a number in the history: exactly the changes after it, the
     * very messages the others were sent. */
    tconn_init(&back);
    tconn_sayf(&w.lobby, &back, "{\"type\":\"lobby\",\"deltas\":true,\"since\":%llu}",
               (unsigned long long)(first + 2));
    assert_int_equal(back.n, 3);
    for (size_t i = 0; i < 3; i++)
        assert_ptr_equal(back.sent[i], sub.sent[3 + i]);
    /* From the last number: nothing. */
    tconn_free(&back);
    tconn_sayf(&w.lobby, &back, "{\"type\":\"lobby\",\"deltas\":true,\"since\":%llu}",
               (unsigned long long)(first + 5));
    assert_int_equal(back.n, 0);
    /* From a number after the last (another server's): the whole list. */
    tconn_sayf(&w.lobby, &back, "{\"type\":\"lobby\",\"deltas\":true,\"since\":%llu}",
               (unsigned long long)(first + 99));
    assert_int_equal(back.n, 1);
    assert_null(strstr(tconn_last(&back), "\"delta\""));
    assert_true(seq_of(tconn_last(&back)) == first + 5);
    tconn_close(&w.lobby, &back);

    /* Past the history's CAS__LOBBY_HISTORY changes: the whole list. */
    for (int i = 0; i < CAS__LOBBY_HISTORY; i++) {
        create(&w, open_seat, NULL);
        next_second(&w);
    }
    assert_int_equal(w.lobby.feed.n_history, CAS__LOBBY_HISTORY);
    tconn_sayf(&w.lobby, &back, "{\"type\":\"lobby\",\"deltas\":true,\"since\":%llu}",
               (unsigned long long)(first + 4));
    assert_int_equal(back.n, 1);
    assert_null(strstr(tconn_last(&back), "\"delta\""));
    assert_true(seq_of(tconn_last(&back)) == first + 5 + CAS__LOBBY_HISTORY);
    assert_non_null(strstr(tconn_last(&back), "\"presets\":["));
    /* ... and one in it still resumes. */
    tconn_free(&back);
    tconn_sayf(&w.lobby, &back, "{\"type\":\"lobby\",\"deltas\":true,\"since\":%llu}",
               (unsigned long long)(first + 5));
    assert_int_equal(back.n, CAS__LOBBY_HISTORY);
    cas__lobby_disconnect(&w.lobby, &back.base);
    cas__lobby_disconnect(&w.lobby, &sub.base);
    tconn_free(&back);
    tconn_free(&sub);
    world_close(&w);
}

/* A page that goes to a table says so (protocol 4, "leave_lobby"): it is
 * sent nothing more of the lobby, whichever way it subscribed; a client
 * of protocol 3, which never says it, goes on getting the changes at a
 * table as before.  Coming back, it resumes after the last change it
 * held; leaving a lobby it did not follow is no error. */
static void test_leave_lobby_ends_the_subscription(void **state)
{
    (void)state;
    struct world w;
    struct tconn page, old, v3;
    world_open(&w, "feed-leave", NULL);
    tconn_init(&page);
    tconn_init(&old);
    tconn_init(&v3);
    tconn_sayf(&w.lobby, &page, "{\"type\":\"hello\"}");
    assert_non_null(strstr(tconn_last(&page), "\"protocol\":4"));
    tconn_sayf(&w.lobby, &page, "{\"type\":\"lobby\",\"deltas\":true}");
    tconn_sayf(&w.lobby, &old, "{\"type\":\"lobby\"}");
    tconn_sayf(&w.lobby, &v3, "{\"type\":\"lobby\",\"deltas\":true}");
    int64_t a = create(&w, open_seat, NULL);
    next_second(&w);
    assert_int_equal(page.n, 3);
    assert_int_equal(old.n, 2);
    assert_int_equal(v3.n, 2);
    uint64_t held = seq_of(tconn_last(&page));
    /* All three go to the table; two of them leave the lobby. */
    struct tconn *all[3] = {&page, &old, &v3};
    size_t had[3];
    for (int i = 0; i < 3; i++) {
        tconn_sayf(&w.lobby, all[i], "{\"type\":\"join\",\"game\":\"%lld\"}", (long long)a);
        assert_non_null(strstr(tconn_last(all[i]), "\"type\":\"state\""));
    }
    tconn_sayf(&w.lobby, &page, "{\"type\":\"leave_lobby\",\"id\":7}");
    tconn_sayf(&w.lobby, &old, "{\"type\":\"leave_lobby\"}");
    for (int i = 0; i < 3; i++)
        had[i] = all[i]->n;
    assert_false(page.base.lobby || old.base.lobby);
    assert_true(v3.base.lobby);
    int64_t b = create(&w, open_seat, NULL);
    next_second(&w);
    next_second(&w);
    assert_int_equal(page.n, had[0]);
    assert_int_equal(old.n, had[1]);
    assert_int_equal(v3.n, had[2] + 1);
    assert_string_equal(ids_of(tconn_last(&v3), "put"), id_text(b));
    /* Back in the lobby: the change it missed, the one the other got. */
    tconn_sayf(&w.lobby, &page, "{\"type\":\"lobby\",\"deltas\":true,\"since\":%llu}",
               (unsigned long long)held);
    assert_int_equal(page.n, had[0] + 1);
    assert_ptr_equal(page.sent[page.n - 1], v3.sent[v3.n - 1]);
    /* Leaving twice, or a lobby never followed: nothing, no error. */
    for (int i = 0; i < 2; i++) {
        size_t n = old.n;
        tconn_sayf(&w.lobby, &old, "{\"type\":\"leave_lobby\"}");
        assert_int_equal(old.n, n);
    }
    for (int i = 0; i < 3; i++) {
        tconn_close(&w.lobby, all[i]);
    }
    assert_null(w.lobby.subs);
    world_close(&w);
}

/* The seat of c's last state that decides plays its first legal action;
 * 1 when it did. */
static int play_if_deciding(struct world *w, struct tconn *c)
{
    return tconn_play_first(&w->lobby, &c, 1) >= 0;
}

/* A game of two human seats, created by a connection of its own: its id,
 * and the seats' tokens. */
static long long create_two_seats(struct world *w, char tokens[2][64])
{
    struct tconn c;
    tconn_init(&c);
    tconn_sayf(&w->lobby, &c, "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":["
               "{\"agent\":\"human\"},{\"agent\":\"human\"}]}");
    long long id = 0;
    assert_int_equal(sscanf(strstr(tconn_last(&c), "\"game\":\"") + 8, "%lld", &id), 1);
    for (int i = 0; i < 2; i++) {
        char key[32];
        snprintf(key, sizeof key, "{\"seat\":%d,\"token\":\"", i);
        assert_int_equal(sscanf(strstr(tconn_last(&c), key) + strlen(key), "%63[0-9a-f]", tokens[i]),
                         1);
    }
    tconn_free(&c);
    return id;
}

/* A table a job holds is listed as it was when the job began.  That entry
 * is no longer written at every job: it is the feed's listed entry with
 * the ply and turn of then, or (with nobody following the lobby, nothing
 * listed) the entry last written whole, kept from hold to hold; written
 * again only when more changed (a seat joined).  Over a game played to
 * its end, held before every move (with a follower: changes published
 * while held), the entry the lobby lists it with is byte for byte the one
 * written when it was last free, and a follower's list stays the
 * server's whole list. */
static void play_held(const char *name, int follow)
{
    struct world w;
    struct tconn sub, seats[2];
    struct held h = {0};
    char tokens[2][64];
    size_t n = 0;
    world_open(&w, name, NULL);
    if (follow) {
        tconn_init(&sub);
        tconn_sayf(&w.lobby, &sub, "{\"type\":\"lobby\",\"deltas\":true}");
        apply(&h, tconn_last(&sub));
        n = sub.n;
    }
    long long id = create_two_seats(&w, tokens);
    struct cas__table *t = cas__lobby_find(&w.lobby, id);
    assert_non_null(t);
    while (follow && n < sub.n) /* the create's change, at once */
        apply(&h, sub.msgs[n++]);
    size_t holds = 0, written = 0;
    for (int move = 0; !t->over; move++) {
        assert_true(move < 400);
        if (move < 2) { /* a seat joins: more than the ply changed */
            tconn_init(&seats[move]);
            tconn_sayf(&w.lobby, &seats[move], "{\"type\":\"join\",\"game\":\"%lld\","
                       "\"seat\":%d,\"token\":\"%s\"}", id, move, tokens[move]);
        }
        struct cas__jw now, listed;
        cas__jw_init(&now);
        cas__jw_init(&listed);
        cas__lobby_write_entry(t, &now);
        cas__offload_hold(t, NULL);
        holds++;
        written += !t->hold.listing_kept;
        assert_true(t->hold.listing || t->hold.listing_kept);
        assert_int_equal(cas__feed_entry(t, &listed), 1);
        assert_string_equal(cas__jw_text(&listed), cas__jw_text(&now));
        /* The change made while it is held carries that entry. */
        next_second(&w);
        if (!follow) {
            assert_null(t->listed);
        } else if (sub.n > n) {
            assert_int_equal(sub.n, n + 1);
            n = sub.n;
            apply(&h, tconn_last(&sub));
            assert_string_equal(t->listed, cas__jw_text(&now));
            holds_the_whole_list(&w, &h);
        }
        cas__offload_release(t);
        cas__jw_free(&now);
        cas__jw_free(&listed);
        if (move >= 1)
            assert_true(play_if_deciding(&w, &seats[0]) || play_if_deciding(&w, &seats[1]));
    }
    assert_true(holds > 10);
    if (follow) {
        next_second(&w);
        apply(&h, tconn_last(&sub));
        holds_the_whole_list(&w, &h);
        entries_are_current(&w);
        /* Written only where a seat had joined since the last change. */
        assert_int_equal(written, 2);
        held_clear(&h);
        tconn_close(&w.lobby, &sub);
    }
    for (int i = 0; i < 2; i++)
        tconn_close(&w.lobby, &seats[i]);
    world_close(&w);
}

static void test_a_held_table_is_listed_as_it_was(void **state)
{
    (void)state;
    play_held("feed-held", 1);
}

static void test_an_unlisted_held_table_keeps_its_entry(void **state)
{
    (void)state;
    play_held("feed-unlisted", 0);
}

/* ------------------------------------------------------------ bounds */

/* A subscriber that never reads: what it is sent waits in a send queue
 * with the server's caps (sendq.c), which drop it once full. */
struct deaf {
    struct cas__conn base;
    struct cas__sendq_budget *budget;
    struct cas__sendq q;
};

static void deaf_send(struct cas__conn *c, struct cas__srv_msg *msg)
{
    struct deaf *d = (struct deaf *)c;
    cas__sendq_push(d->budget, &d->q, msg);
}

static void dropped(struct cas__sendq *q, void *ctx)
{
    (void)q;
    ++*(int *)ctx;
}

static void test_bounds_hold_against_a_client_that_never_reads(void **state)
{
    (void)state;
    struct world w;
    struct cas__sendq_budget budget;
    struct deaf deaf, whole;
    int drops = 0;
    world_open(&w, "feed-bounds", NULL);
    /* 64 messages or 256 KiB each, as a server configured small. */
    cas__sendq_budget_init(&budget, 1u << 20, 256u << 10, 64, dropped, &drops);
    struct deaf *subs[2] = {&deaf, &whole};
    for (int i = 0; i < 2; i++) {
        memset(subs[i], 0, sizeof *subs[i]);
        subs[i]->base.send = deaf_send;
        subs[i]->base.seat = -1;
        subs[i]->budget = &budget;
        cas__sendq_attach(&budget, &subs[i]->q);
    }
    struct cas__req req = {.type = CAS__REQ_LOBBY, .since = -1, .deltas = 1};
    cas__lobby_handle(&w.lobby, &deaf.base, &req);
    req.deltas = 0;
    cas__lobby_handle(&w.lobby, &whole.base, &req);

    /* Big changes: 150 games with long names a second. */
    char big[1024];
    snprintf(big, sizeof big, "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":["
             "{\"name\":\"%032d\",\"agent\":\"human\"},{\"agent\":\"open\"}]}", 7);
    for (int second = 0; second < 8; second++) {
        for (int i = 0; i < 150; i++)
            create(&w, big, NULL);
        next_second(&w);
        /* The history: at most CAS__LOBBY_HISTORY_BYTES, unless one change
         * alone is more; every change over 30 KB here. */
        const struct cas__lobby_feed *f = &w.lobby.feed;
        assert_true(f->history_bytes <= CAS__LOBBY_HISTORY_BYTES || f->n_history == 1);
        assert_true(f->n_history <= CAS__LOBBY_HISTORY);
    }
    assert_true(w.lobby.feed.history[w.lobby.feed.seq % CAS__LOBBY_HISTORY]->len > 30000);
    assert_true(w.lobby.feed.n_history < 8);
    /* Both were dropped by their queue's caps (the whole list's reader by
     * its bytes first), holding nothing. */
    assert_int_equal(drops, 2);
    assert_true(deaf.q.dropped && whole.q.dropped);
    assert_int_equal(deaf.q.bytes + whole.q.bytes, 0);
    /* Then 100 small changes to the one that asks for changes: at most 64
     * queued even as they come one by one. */
    cas__lobby_disconnect(&w.lobby, &deaf.base);
    cas__lobby_disconnect(&w.lobby, &whole.base);
    cas__sendq_detach(&budget, &deaf.q);
    cas__sendq_attach(&budget, &deaf.q);
    req.deltas = 1;
    req.since = (int64_t)w.lobby.feed.seq;
    cas__lobby_handle(&w.lobby, &deaf.base, &req);
    for (int i = 0; i < 100; i++) {
        create(&w, open_seat, NULL);
        next_second(&w);
        assert_true(deaf.q.count <= 64);
    }
    assert_int_equal(drops, 3);
    cas__lobby_disconnect(&w.lobby, &deaf.base);
    cas__sendq_detach(&budget, &deaf.q);
    cas__sendq_detach(&budget, &whole.q);
    world_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_a_subscriber_sees_exactly_what_changed),
        cmocka_unit_test(test_without_deltas_whole_lists),
        cmocka_unit_test(test_a_new_subscriber_sees_news_at_once),
        cmocka_unit_test(test_a_resume_gets_exactly_what_it_missed),
        cmocka_unit_test(test_leave_lobby_ends_the_subscription),
        cmocka_unit_test(test_a_held_table_is_listed_as_it_was),
        cmocka_unit_test(test_an_unlisted_held_table_keeps_its_entry),
        cmocka_unit_test(test_bounds_hold_against_a_client_that_never_reads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
