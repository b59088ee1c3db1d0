/*
 * serve_client.c — a test's player of `castellan serve` (see
 * serve_client.h).
 */
#include "serve_client.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static void on_message(struct cas__wsc_conn *conn, void *user, const char *text, size_t len)
{
    struct serve_client *c = user;
    struct cas__botclient_view v;
    char act[8192];
    assert_int_equal(cas__botclient_read(text, len, &v), CAS_OK);
    if (strcmp(v.type, "created") == 0) {
        snprintf(c->created, sizeof c->created, "%s", text);
        c->game = v.game;
    } else if (strcmp(v.type, "error") == 0) {
        c->errors++;
        fprintf(stderr, "server error: %s\n", text);
        snprintf(c->last_error, sizeof c->last_error, "%s", v.code);
        snprintf(c->last_message, sizeof c->last_message, "%s", text);
        /* "Play again then": the state shown when the store is back is
         * of the same ply. */
        if (strcmp(v.code, "unavailable") == 0 && strstr(text, "nothing was played")) {
            c->not_played++;
            c->acted_ply = 0;
        }
        c->kept += strcmp(v.code, "unavailable") == 0 && strstr(text, "this move is kept");
    } else if (v.state) {
        if (!c->states++)
            c->first_ply = v.ply;
        c->failed |= strstr(text, "\"failure\":") != NULL;
        c->over = v.over;
        c->ply = v.ply;
        c->decides = !v.over && v.you >= 0 && v.actor == v.you && v.n_actions > 0;
        assert_int_equal(v.you, c->seat);
        /* A state may come again for the same ply (another seat joined):
         * act once per ply, as the page does. */
        if (c->seat >= 0 && !c->passive && (!c->stop_after || c->acts < c->stop_after) &&
            c->acted_ply != v.ply + 1 &&
            cas__botclient_act(&v, (uint64_t)v.ply * 7 + 3, act, sizeof act)) {
            cas__wsc_send(conn, act);
            c->acts++;
            c->acted_ply = v.ply + 1;
        }
    }
    cas__botclient_view_free(&v);
}

const struct cas__wsc_events serve_client_events = {.message = on_message};

int serve_stopped_at_decision(void *ctx)
{
    const struct serve_client *c = ctx;
    return c->acts >= c->stop_after && c->decides && c->acted_ply != c->ply + 1;
}

void serve_run_until(struct cas__wsc *w, int (*done)(void *), void *ctx)
{
    for (int i = 0; i < 200000 && !done(ctx); i++)
        cas__wsc_service(w, 50);
    assert_true(done(ctx));
}

void serve_connect(struct cas__wsc *w, const struct serve_process *p, struct serve_client *c)
{
    assert_int_equal(cas__wsc_connect(w, "127.0.0.1", p->port, c, &c->conn), CAS_OK);
}

void serve_join(struct serve_client *c, int64_t game, int seat)
{
    char msg[256];
    c->seat = seat;
    c->game = game;
    if (seat >= 0)
        snprintf(msg, sizeof msg, "{\"type\":\"join\",\"game\":\"%lld\",\"seat\":%d,"
                 "\"token\":\"%s\"}", (long long)game, seat, c->token);
    else
        snprintf(msg, sizeof msg, "{\"type\":\"join\",\"game\":\"%lld\"}", (long long)game);
    cas__wsc_send(c->conn, msg);
}

int serve_token_of(const char *created, int seat, char *out, size_t cap)
{
    char key[32];
    snprintf(key, sizeof key, "{\"seat\":%d,\"token\":\"", seat);
    const char *at = strstr(created, key);
    out[0] = '\0';
    if (!at)
        return 0;
    at += strlen(key);
    snprintf(out, cap, "%.*s", (int)strcspn(at, "\""), at);
    return 1;
}

static int created_or_failed(void *ctx)
{
    const struct serve_client *c = ctx;
    return c->game != 0 || c->errors;
}

int64_t serve_create(struct cas__wsc *w, const struct serve_process *p, const char *msg,
                     struct serve_client *a, struct serve_client *b)
{
    struct serve_client creator = {.seat = -1};
    serve_connect(w, p, &creator);
    cas__wsc_send(creator.conn, msg);
    serve_run_until(w, created_or_failed, &creator);
    assert_int_equal(creator.errors, 0);
    if (a)
        assert_true(serve_token_of(creator.created, 0, a->token, sizeof a->token));
    if (b)
        assert_true(serve_token_of(creator.created, 1, b->token, sizeof b->token));
    cas__wsc_close(creator.conn);
    for (int i = 0; i < 100 && cas__wsc_is_open(creator.conn); i++)
        cas__wsc_service(w, 10);
    cas__wsc_conn_free(creator.conn);
    return creator.game;
}
