/*
 * test_preview.c — the "preview" request (host/server/preview.c), in
 * process: a Carcassonne decider asks what a placement would offer, as the
 * browser shows figure spots on a tile's ghost.  The spots and actions it
 * gets are exactly those of the deploy decision the placement then leads
 * to, for a tile as for an abbey; an illegal or stale action, another
 * seat and a watcher are refused;
 * nothing of the game changes (state, ply, journal, the other viewers'
 * messages) and no chance is drawn: a game previewed at every decision
 * plays out exactly as the same game without a preview.
 */
#define _GNU_SOURCE /* memmem */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "json.h"
#include "loop_guard.h"
#include "saves.h"
#include "table.h"
#include "tconn.h"
#include "wsclient.h"

static void world_close(struct tconn_world *w)
{
    /* The loop's code made no plugin call of its own (loop_guard.h). */
    assert_int_equal(cas__loop_slow_calls(), 0);
    assert_int_equal(cas__loop_store_calls(), 0);
    cas__lobby_close(&w->lobby);
    cas__saves_close(w->store);
}

/* Done with c: it leaves the lobby (nothing is sent to it any more), its
 * messages go. */
static void close_conn(struct tconn_world *w, struct tconn *c)
{
    tconn_close(&w->lobby, c);
}

static const char *error_code(const struct tconn *c)
{
    static char code[64];
    const char *at = strstr(tconn_last(c), "\"code\":\"");
    code[0] = '\0';
    if (strncmp(tconn_last(c), "{\"type\":\"error\"", 15) == 0 && at)
        sscanf(at + 8, "%63[^\"]", code);
    return code;
}

static const char two_humans[] =
    "{\"type\":\"create\",\"game\":\"carcassonne\",\"seed\":\"5\",\"practice\":true,"
    "\"seats\":[{\"name\":\"Ada\",\"agent\":\"human\"},{\"name\":\"Bob\",\"agent\":\"human\"}]}";

/* Abbey & Mayor: abbeys fill holes, from a hand, in a phase of their own. */
static const char two_humans_abbeys[] =
    "{\"type\":\"create\",\"game\":\"carcassonne\",\"expansions\":[\"abbey-mayor\"],"
    "\"seed\":\"5\",\"practice\":true,\"seats\":[{\"name\":\"Ada\",\"agent\":\"human\"},"
    "{\"name\":\"Bob\",\"agent\":\"human\"}]}";

/* A Carcassonne game of two people (create: the request), both seats
 * joined; its table. */
static struct cas__table *seat_game_of(struct tconn_world *w, const char *create, struct tconn seats[2],
                                       char tokens[2][64])
{
    struct tconn c;
    tconn_init(&c);
    tconn_sayf(&w->lobby, &c, "%s", create);
    const char *at = strstr(tconn_last(&c), "\"game\":\"");
    if (!at || strncmp(tconn_last(&c), "{\"type\":\"created\"", 17) != 0)
        fail_msg("create failed: %s", tconn_last(&c));
    int64_t id = strtoll(at + 8, NULL, 10);
    for (int i = 0; i < 2; i++) {
        char key[48];
        snprintf(key, sizeof key, "{\"seat\":%d,\"token\":\"", i);
        at = strstr(tconn_last(&c), key);
        assert_non_null(at);
        sscanf(at + strlen(key), "%63[^\"]", tokens[i]);
    }
    close_conn(w, &c);
    for (int i = 0; i < 2; i++) {
        tconn_init(&seats[i]);
        tconn_sayf(&w->lobby, &seats[i],
                   "{\"type\":\"join\",\"game\":\"%lld\",\"seat\":%d,\"token\":\"%s\"}",
                   (long long)id, i, tokens[i]);
    }
    struct cas__table *t = cas__lobby_find(&w->lobby, id);
    assert_non_null(t);
    return t;
}

static struct cas__table *seat_game(struct tconn_world *w, struct tconn seats[2], char tokens[2][64])
{
    return seat_game_of(w, two_humans, seats, tokens);
}

/* The seat that decides and its view (free it). */
static int decider(struct tconn seats[2], struct cas__botclient_view *v)
{
    for (int i = 0; i < 2; i++) {
        const char *m = tconn_last_state(&seats[i]);
        assert_non_null(m);
        assert_int_equal(cas__botclient_read(m, strlen(m), v), CAS_OK);
        if (v->actor == v->you && v->n_actions > 0)
            return i;
        cas__botclient_view_free(v);
    }
    fail_msg("no seat decides");
    return -1;
}

/* What must not change under a preview. */
struct still {
    uint64_t hash;
    uint32_t ply, saved;
    size_t events, msgs[2];
};

static struct still still_of(struct cas__table *t, struct tconn seats[2])
{
    return (struct still){.hash = t->r.match.vt->hash(t->r.session.state),
                          .ply = t->r.session.ply, .saved = t->j.saved, .events = t->n_events,
                          .msgs = {seats[0].n, seats[1].n}};
}

/* Nothing changed but the messages `asker` got (one: the answer). */
static void expect_still(struct cas__table *t, struct tconn seats[2], const struct still *was,
                         int asker)
{
    struct still now = still_of(t, seats);
    assert_true(now.hash == was->hash);
    assert_int_equal(now.ply, was->ply);
    assert_int_equal(now.saved, was->saved);
    assert_int_equal(now.events, was->events);
    assert_int_equal(now.msgs[asker], was->msgs[asker] + 1);
    assert_int_equal(now.msgs[!asker], was->msgs[!asker]);
}

static void preview(struct tconn_world *w, struct tconn *c, int64_t game, int64_t ply, const char *act)
{
    tconn_sayf(&w->lobby, c, "{\"type\":\"preview\",\"id\":7,\"game\":\"%lld\",\"ply\":%lld,"
               "\"action\":\"%s\"}", (long long)game, (long long)ply, act);
}

static const struct cas_json *field(const struct cas_json *obj, const char *key)
{
    for (size_t i = 0; obj && obj->type == CAS_JSON_OBJECT && i < obj->n; i++)
        if (strcmp(obj->items[i].key, key) == 0)
            return &obj->items[i];
    return NULL;
}

/* The top-level element keyed `key` of an SVG text, copied (free it), or
 * NULL. */
static char *keyed(const char *svg, const char *key)
{
    char attr[96];
    snprintf(attr, sizeof attr, "data-cas-key=\"%s\"", key);
    const char *at = strstr(svg, attr);
    if (!at)
        return NULL;
    while (at > svg && *at != '<')
        at--;
    /* The element ends where the next top-level keyed element starts. */
    const char *end = strstr(strstr(at, attr) + strlen(attr), "data-cas-key=\"");
    const char *close = strstr(at, "</svg>");
    if (!end || end > close)
        end = close;
    else
        while (*end != '<')
            end--;
    while (end > at && (end[-1] == '\n' || end[-1] == ' '))
        end--; /* the white space between elements */
    return strndup(at, (size_t)(end - at));
}

/* A placement previewed gives exactly the deploy decision it leads to:
 * the same actions, the same spots on the board; the placement played
 * after it is the game's as ever. */
static void test_spots_of_a_placement(void **state)
{
    (void)state;
    struct tconn_world w;
    struct tconn seats[2], fresh;
    char tokens[2][64];
    tconn_world_open(&w, "preview_spots.db");
    struct cas__table *t = seat_game(&w, seats, tokens);
    struct cas__botclient_view v;
    int d = decider(seats, &v);
    /* The first placement that leaves a figure somewhere to go. */
    char place[512] = "";
    struct cas_json *reply = NULL;
    for (size_t i = 0; i < v.n_actions && !place[0]; i++) {
        struct still was = still_of(t, seats);
        preview(&w, &seats[d], v.game, v.ply, cas__botclient_action(&v, i));
        expect_still(t, seats, &was, d);
        size_t line, off;
        assert_int_equal(cas__json_parse(tconn_last(&seats[d]), strlen(tconn_last(&seats[d])), &reply,
                                         &line, &off), CAS_OK);
        assert_string_equal(field(reply, "type")->text, "preview");
        assert_string_equal(field(reply, "id")->text, "7");
        assert_string_equal(field(reply, "action")->text, cas__botclient_action(&v, i));
        assert_string_equal(field(reply, "next")->text, "you");
        if (field(reply, "actions")->n > 1)
            snprintf(place, sizeof place, "%s", cas__botclient_action(&v, i));
        else
            cas__json_free(reply);
    }
    assert_true(place[0]);
    const struct cas_json *actions = field(reply, "actions"), *svg = field(reply, "svg");
    assert_int_equal(svg->type, CAS_JSON_STRING);
    char *spots = keyed(svg->text, "marks");
    if (!spots || !strstr(spots, "data-cas-choices"))
        fail_msg("no spots in %s", svg->text);
    assert_non_null(strstr(spots, "data-cas-choices"));
    /* Only the marked elements come: no tile, no player panel. */
    assert_null(strstr(svg->text, "data-cas-key=\"t0,0\""));

    char act[4096];
    snprintf(act, sizeof act, "{\"type\":\"act\",\"game\":\"%lld\",\"ply\":%lld,\"action\":\"%s\"}",
             (long long)v.game, (long long)v.ply, place);
    tconn_sayf(&w.lobby, &seats[d], "%s", act);
    cas__botclient_view_free(&v);
    /* The deploy decision as a page that joins now sees it. */
    tconn_init(&fresh);
    tconn_sayf(&w.lobby, &fresh, "{\"type\":\"join\",\"game\":\"%lld\",\"seat\":%d,"
               "\"token\":\"%s\"}", (long long)t->id, d, tokens[d]);
    assert_int_equal(cas__botclient_read(tconn_last(&fresh), strlen(tconn_last(&fresh)), &v), CAS_OK);
    assert_int_equal(v.actor, d);
    assert_int_equal(v.n_actions, actions->n);
    for (size_t i = 0; i < actions->n; i++)
        assert_string_equal(cas__botclient_action(&v, i), actions->items[i].text);
    const struct cas_json *full = field(v.root, "svg");
    char *real = keyed(full->text, "marks");
    assert_non_null(real);
    assert_string_equal(spots, real);
    print_message("\"%s\": %zu actions, %zu bytes of marks (the whole picture: %zu)\n", place,
                  actions->n, strlen(svg->text), strlen(full->text));
    free(real);
    free(spots);
    cas__botclient_view_free(&v);
    cas__json_free(reply);
    close_conn(&w, &fresh);
    for (int i = 0; i < 2; i++)
        close_conn(&w, &seats[i]);
    world_close(&w);
}

/* Refused, changing nothing: an illegal and a stale action, another
 * seat, a watcher; a preview that would reach chance stops before it. */
static void test_refusals_and_chance(void **state)
{
    (void)state;
    struct tconn_world w;
    struct tconn seats[2], watch;
    char tokens[2][64];
    tconn_world_open(&w, "preview_refusals.db");
    struct cas__table *t = seat_game(&w, seats, tokens);
    struct cas__botclient_view v;
    int d = decider(seats, &v);
    const char *place = cas__botclient_action(&v, 0);
    struct still was = still_of(t, seats);
    preview(&w, &seats[d], v.game, v.ply, "place nowhere");
    assert_string_equal(error_code(&seats[d]), "illegal");
    expect_still(t, seats, &was, d);
    was = still_of(t, seats);
    preview(&w, &seats[d], v.game, v.ply - 1, place);
    assert_string_equal(error_code(&seats[d]), "stale");
    expect_still(t, seats, &was, d);
    was = still_of(t, seats);
    preview(&w, &seats[!d], v.game, v.ply, place);
    assert_string_equal(error_code(&seats[!d]), "not-your-turn");
    expect_still(t, seats, &was, !d);
    tconn_init(&watch);
    tconn_sayf(&w.lobby, &watch, "{\"type\":\"join\",\"game\":\"%lld\"}", (long long)v.game);
    was = still_of(t, seats);
    preview(&w, &watch, v.game, v.ply, place);
    assert_string_equal(error_code(&watch), "bad-token");
    assert_int_equal(still_of(t, seats).msgs[0], was.msgs[0]);
    assert_int_equal(still_of(t, seats).msgs[1], was.msgs[1]);
    close_conn(&w, &watch);

    /* Place, then preview the deploy decision's pass: the turn ends and a
     * tile is drawn next, which a preview does not do. */
    char act[4096];
    snprintf(act, sizeof act, "{\"type\":\"act\",\"game\":\"%lld\",\"ply\":%lld,\"action\":\"%s\"}",
             (long long)v.game, (long long)v.ply, place);
    tconn_sayf(&w.lobby, &seats[d], "%s", act);
    cas__botclient_view_free(&v);
    assert_int_equal(decider(seats, &v), d);
    was = still_of(t, seats);
    preview(&w, &seats[d], v.game, v.ply, "pass");
    expect_still(t, seats, &was, d);
    assert_non_null(strstr(tconn_last(&seats[d]), "\"next\":\"chance\",\"actions\":[],\"svg\":null"));
    cas__botclient_view_free(&v);
    for (int i = 0; i < 2; i++)
        close_conn(&w, &seats[i]);
    world_close(&w);
}

/* Play the game `create` makes out, each decider picking its action by
 * a fixed random sequence; with `look`, every legal action of every
 * decision is previewed first.  The game's final state hash, its
 * journal's length and its events' text into *out. */
struct outcome {
    uint64_t hash;
    uint32_t plies;
    size_t previews;
    char *events;
};

static void play_out(const char *db, const char *create, int look, struct outcome *out)
{
    struct tconn_world w;
    struct tconn seats[2];
    char tokens[2][64];
    uint64_t x = 88172645463325252u;
    tconn_world_open(&w, db);
    struct cas__table *t = seat_game_of(&w, create, seats, tokens);
    out->previews = 0;
    for (int guard = 0; !t->over && guard < 1000; guard++) {
        struct cas__botclient_view v;
        int d = decider(seats, &v);
        for (size_t i = 0; look && i < v.n_actions; i++, out->previews++) {
            preview(&w, &seats[d], v.game, v.ply, cas__botclient_action(&v, i));
            assert_non_null(strstr(tconn_last(&seats[d]), "{\"type\":\"preview\""));
        }
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        char act[4096];
        assert_int_equal(cas__botclient_act(&v, x, act, sizeof act), 1);
        cas__botclient_view_free(&v);
        tconn_sayf(&w.lobby, &seats[d], "%s", act);
    }
    assert_true(t->over);
    out->hash = t->r.match.vt->hash(t->r.session.state);
    out->plies = t->j.saved;
    size_t len = 0;
    for (size_t i = 0; i < t->n_events; i++)
        len += strlen(t->events[i].text) + 1;
    out->events = calloc(1, len + 1);
    for (size_t i = 0; i < t->n_events; i++)
        strcat(strcat(out->events, t->events[i].text), "\n");
    for (int i = 0; i < 2; i++)
        close_conn(&w, &seats[i]);
    world_close(&w);
}

/* Every game served, its chance and hidden cards too: previews change
 * nothing of what is drawn. */
static const char *const games[] = {
    two_humans,
    "{\"type\":\"create\",\"game\":\"carcassonne\",\"expansions\":[\"inns-cathedrals\","
    "\"traders-builders\",\"abbey-mayor\",\"king-robber\",\"castles-germany\"],\"seed\":\"7\","
    "\"practice\":true,\"seats\":[{\"agent\":\"human\"},{\"agent\":\"human\"}]}",
    "{\"type\":\"create\",\"game\":\"the-castle\",\"seed\":\"7\",\"practice\":true,"
    "\"seats\":[{\"agent\":\"human\"},{\"agent\":\"human\"}]}",
    "{\"type\":\"create\",\"game\":\"castles-cards\",\"seed\":\"7\",\"practice\":true,"
    "\"seats\":[{\"agent\":\"human\"},{\"agent\":\"human\"}]}",
};

static void test_no_chance_is_drawn(void **state)
{
    (void)state;
    for (size_t g = 0; g < sizeof games / sizeof games[0]; g++) {
        struct outcome plain, looked;
        play_out("preview_plain.db", games[g], 0, &plain);
        play_out("preview_looked.db", games[g], 1, &looked);
        assert_true(looked.previews > looked.plies);
        assert_true(plain.hash == looked.hash);
        assert_int_equal(plain.plies, looked.plies);
        assert_string_equal(plain.events, looked.events);
        const char *name = strstr(games[g], "\"game\":\"") + 8;
        print_message("%.*s%s: %zu previews in a game of %u plies, the same game as without "
                      "them\n", (int)strcspn(name, "\""), name,
                      strstr(games[g], "expansions") ? " with five expansions" : "",
                      looked.previews, looked.plies);
        free(plain.events);
        free(looked.events);
    }
}

/* An abbey placed in a hole is a monastery a figure may take: its
 * preview, like a tile's, is the same seat's deploy with spots. */
static void test_spots_of_an_abbey(void **state)
{
    (void)state;
    struct tconn_world w;
    struct tconn seats[2];
    char tokens[2][64];
    tconn_world_open(&w, "preview_abbey.db");
    struct cas__table *t = seat_game_of(&w, two_humans_abbeys, seats, tokens);
    uint64_t x = 2654435761u;
    int found = 0;
    for (int guard = 0; !t->over && !found && guard < 1000; guard++) {
        struct cas__botclient_view v;
        int d = decider(seats, &v);
        for (size_t i = 0; i < v.n_actions && !found; i++) {
            int hx, hy;
            if (sscanf(cas__botclient_action(&v, i), "abbey %d,%d", &hx, &hy) != 2)
                continue;
            struct still was = still_of(t, seats);
            preview(&w, &seats[d], v.game, v.ply, cas__botclient_action(&v, i));
            expect_still(t, seats, &was, d);
            if (!strstr(tconn_last(&seats[d]), "\"next\":\"you\"") ||
                !strstr(tconn_last(&seats[d]), "data-cas-choices"))
                fail_msg("an abbey without spots: %s", tconn_last(&seats[d]));
            print_message("\"%s\" at ply %lld: a deploy with spots\n",
                          cas__botclient_action(&v, i), (long long)v.ply);
            found = 1;
        }
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        char act[4096];
        assert_int_equal(cas__botclient_act(&v, x, act, sizeof act), 1);
        cas__botclient_view_free(&v);
        tconn_sayf(&w.lobby, &seats[d], "%s", act);
    }
    assert_true(found);
    for (int i = 0; i < 2; i++)
        close_conn(&w, &seats[i]);
    world_close(&w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spots_of_a_placement),
        cmocka_unit_test(test_refusals_and_chance),
        cmocka_unit_test(test_spots_of_an_abbey),
        cmocka_unit_test(test_no_chance_is_drawn),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
