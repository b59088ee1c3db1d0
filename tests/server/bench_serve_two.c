/*
 * bench_serve_two.c — the serve benchmark with two `castellan serve`
 * processes on one PostgreSQL database (docs/saves.md): GAMES fixture
 * games of two WebSocket clients each, half created and played through
 * each server, on loopback, every move journaled; prints moves per second
 * and the p50/p99 latency from a move's send to the next state's arrival.
 * A measuring tool, not a test: it prints figures and asserts nothing
 * about them.
 *
 *   bench_serve_two URL [GAMES]     (GAMES default 100, at most 1000)
 *
 * Run from the build tree (CASTELLAN_BUILD_DIR names it); the database at
 * URL must exist.  It stops by itself when every game is over.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "json.h"
#include "serve_client.h"
#include "serve_process.h"
#include "wsclient.h"

#define MAX_GAMES 1000

struct client {
    struct cas__wsc_conn *conn;
    int seat;
    char token[64];
    int64_t game;
    int over, errors;
    int64_t acted_ply;
    double sent_at;       /* when the last move went out; 0: none pending */
    char created[4096];
};

static double *latencies;
static size_t n_latencies, cap_latencies;
static long moves;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void note_latency(double l)
{
    if (n_latencies == cap_latencies) {
        cap_latencies = cap_latencies ? cap_latencies * 2 : 4096;
        latencies = realloc(latencies, cap_latencies * sizeof *latencies);
        if (!latencies)
            abort();
    }
    latencies[n_latencies++] = l;
}

static void on_message(struct cas__wsc_conn *conn, void *user, const char *text, size_t len)
{
    struct client *c = user;
    struct cas__botclient_view v;
    char act[8192];
    if (cas__botclient_read(text, len, &v) != CAS_OK)
        return;
    if (strcmp(v.type, "created") == 0) {
        snprintf(c->created, sizeof c->created, "%s", text);
        c->game = v.game;
    } else if (strcmp(v.type, "error") == 0) {
        c->errors++;
        fprintf(stderr, "bench_serve_two: %s\n", text);
    } else if (strcmp(v.type, "state") == 0) {
        if (c->sent_at > 0 && v.ply >= c->acted_ply) {
            note_latency(now_s() - c->sent_at);
            c->sent_at = 0;
        }
        c->over = v.over;
        if (c->acted_ply != v.ply + 1 &&
            cas__botclient_act(&v, (uint64_t)v.ply * 7 + 3, act, sizeof act)) {
            c->sent_at = now_s();
            cas__wsc_send(conn, act);
            c->acted_ply = v.ply + 1;
            moves++;
        }
    }
    cas__botclient_view_free(&v);
}

static const struct cas__wsc_events events = {.message = on_message};

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: bench_serve_two URL [GAMES]\n");
        return 2;
    }
    int games = argc > 2 ? atoi(argv[2]) : 100;
    if (games < 2 || games > MAX_GAMES) {
        fprintf(stderr, "bench_serve_two: GAMES is 2 to %d\n", MAX_GAMES);
        return 2;
    }
    const char *const extra[] = {"--database", argv[1], NULL};
    struct serve_process servers[2];
    serve_start(&servers[0], "bench-serve-a", extra);
    serve_start(&servers[1], "bench-serve-b", extra);
    struct cas__wsc *w;
    if (cas__wsc_new(&events, &w) != CAS_OK)
        return 1;
    struct client *creators = calloc((size_t)games, sizeof *creators);
    struct client *players = calloc((size_t)games * 2, sizeof *players);
    if (!creators || !players)
        return 1;
    /* Create every game, half on each server. */
    for (int i = 0; i < games; i++) {
        char msg[256];
        creators[i].seat = -1;
        if (cas__wsc_connect(w, "127.0.0.1", servers[i % 2].port, &creators[i],
                             &creators[i].conn) != CAS_OK)
            return 1;
        snprintf(msg, sizeof msg, "{\"type\":\"create\",\"game\":\"fixture\",\"seats\":["
                 "{\"agent\":\"human\"},{\"agent\":\"human\"}],\"practice\":true,\"seed\":\"%d\"}", i + 1);
        cas__wsc_send(creators[i].conn, msg);
    }
    for (int done = 0, turns = 0; done < games && turns < 100000; turns++) {
        cas__wsc_service(w, 20);
        done = 0;
        for (int i = 0; i < games; i++)
            done += creators[i].game != 0 || creators[i].errors;
    }
    /* Two players per game, through the server that created it. */
    double start = now_s();
    for (int i = 0; i < games; i++)
        for (int seat = 0; seat < 2; seat++) {
            struct client *p = &players[i * 2 + seat];
            char msg[256];
            p->seat = seat;
            serve_token_of(creators[i].created, seat, p->token, sizeof p->token);
            if (cas__wsc_connect(w, "127.0.0.1", servers[i % 2].port, p, &p->conn) != CAS_OK)
                return 1;
            snprintf(msg, sizeof msg, "{\"type\":\"join\",\"game\":\"%lld\",\"seat\":%d,"
                     "\"token\":\"%s\"}", (long long)creators[i].game, seat, p->token);
            cas__wsc_send(p->conn, msg);
        }
    int over = 0, errors = 0;
    for (int turns = 0; over < games && turns < 200000; turns++) {
        cas__wsc_service(w, 10);
        over = errors = 0;
        for (int i = 0; i < games; i++) {
            over += players[i * 2].over && players[i * 2 + 1].over;
            errors += players[i * 2].errors + players[i * 2 + 1].errors;
        }
        if (errors)
            break;
    }
    double elapsed = now_s() - start;
    qsort(latencies, n_latencies, sizeof *latencies, cmp_double);
    printf("serve (two processes on one store): %d games of 2 WebSocket "
           "clients, %d over, %d errors; %ld moves in %.2f s: %.0f moves/s, every move "
           "journaled; latency from a move's send to the next state p50 %.2f ms, p99 "
           "%.2f ms\n", games, over, errors, moves, elapsed, (double)moves / elapsed,
           n_latencies ? latencies[n_latencies / 2] * 1e3 : 0,
           n_latencies ? latencies[n_latencies * 99 / 100] * 1e3 : 0);
    cas__wsc_free(w);
    for (int i = 0; i < games; i++) {
        cas__wsc_conn_free(creators[i].conn);
        cas__wsc_conn_free(players[i * 2].conn);
        cas__wsc_conn_free(players[i * 2 + 1].conn);
    }
    serve_stop(&servers[0]);
    serve_stop(&servers[1]);
    free(creators);
    free(players);
    free(latencies);
    return over == games && !errors ? 0 : 1;
}
