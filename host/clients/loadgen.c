/*
 * loadgen.c — many scripted players against a castellan serve on loopback,
 * for the load test and `castellan bench --only serve`: a creator makes
 * the games, two connections per game join as its seats, and each seat
 * plays the first legal action of every state in which it decides, after a
 * think time.  Counts and bounds are the caller's: it stops after a number
 * of moves or a time, whichever comes first.  It reads the state messages
 * with a few string searches, not a JSON parser, so the client costs the
 * shared cores as little as possible.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "server.h"
#include "wsclient.h"

struct seat {
    struct cas__wsc_conn *conn;
    struct loadgen *lg;
    int64_t game;
    int index;                  /* the seat; -1 the creator, WATCHER, IDLE */
    int64_t opened_at;          /* bytes read from its socket when it opened */
    int64_t read_at;            /* ... when its last message was whole */
    char token[64];
    int64_t acted_ply;          /* ply + 1 of the last act planned, 0 none */
    int64_t sent_ply;           /* ply + 1 of the last act sent, 0 none */
    int64_t seen_ply;           /* the ply of the last state or update seen */
    double sent_at;             /* when the act left, 0: none waiting */
    double due;                 /* when the pending act is sent, 0: none */
    int over;
    int heard;                  /* its first state arrived */
    char act[1024];
};

#define WATCHER -2
#define IDLE -3
#define LOBBY -4                /* lobby[0] follows its changes, lobby[1] whole lists */

struct loadgen {
    const struct cas__loadgen_params *p;
    struct cas__loadgen_result *r;
    struct cas__wsc *w;
    struct seat creator;        /* index -1: makes the games */
    struct seat *seats;         /* 2 per game played */
    size_t asked, created, n_seats, seats_over;
    char create[1024];          /* the create request */
    struct seat *others;        /* watchers, then idle connections */
    size_t n_others;
    double *latencies;
    size_t n_latencies, cap_latencies;
    uint32_t *wire, *raw;       /* per update received, with p->wire */
    size_t n_wire, cap_wire;
    struct seat lobby[2];       /* with p->lobby: changes, whole lists */
    int playing;                /* the play is timed: the lobby's bytes count */
    int failed;
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The integer after `key` in m, or def. */
static int64_t int_after(const char *m, const char *key, int64_t def)
{
    const char *at = strstr(m, key);
    return at ? strtoll(at + strlen(key), NULL, 10) : def;
}

static void note_latency(struct loadgen *lg, double seconds)
{
    if (lg->n_latencies == lg->cap_latencies) {
        size_t cap = lg->cap_latencies ? lg->cap_latencies * 2 : 4096;
        double *more = realloc(lg->latencies, cap * sizeof *more);
        if (!more)
            return;
        lg->latencies = more;
        lg->cap_latencies = cap;
    }
    lg->latencies[lg->n_latencies++] = seconds;
}

/* A state for seat s: note the latency of its last act, and plan the next
 * when it decides. */
static void on_state(struct seat *s, const char *m)
{
    struct loadgen *lg = s->lg;
    int64_t ply = int_after(m, "\"ply\":", -1);
    if (s->sent_at > 0 && ply >= s->acted_ply) {
        note_latency(lg, now_s() - s->sent_at);
        s->sent_at = 0;
    }
    lg->r->states++;
    s->seen_ply = ply;
    if (strstr(m, "\"over\":true")) {
        if (!s->over) {
            s->over = 1;
            lg->seats_over++;
            lg->r->games_over = lg->seats_over / 2;
        }
        return;
    }
    if (int_after(m, "\"actor\":", -1) != s->index || s->acted_ply == ply + 1)
        return;
    const char *a = strstr(m, "\"actions\":[\"");
    if (!a)
        return;
    a += 12;
    size_t n = strcspn(a, "\"\\");
    if (a[n] != '"' || n + 100 > sizeof s->act)
        return; /* an action with escapes: not in the games benched */
    snprintf(s->act, sizeof s->act, "{\"type\":\"act\",\"game\":\"%lld\",\"ply\":%lld,"
             "\"action\":\"%.*s\"}", (long long)s->game, (long long)ply, (int)n, a);
    s->acted_ply = ply + 1;
    s->due = now_s() + lg->p->think_ms / 1000.0;
}

/* The bytes the message just whole on s took on the wire: what its
 * socket read since the last one was whole (the frame as the server sent
 * it, compressed or not, header included: cas__wsc_bytes_read), so
 * nothing is compressed again here; 0 when the count is unknown. */
static size_t wire_bytes(struct seat *s)
{
    int64_t now = cas__wsc_bytes_read(s->conn), was = s->read_at;
    s->read_at = now;
    return now >= 0 && was >= 0 && now > was ? (size_t)(now - was) : 0;
}

/* An update's bytes, raw and on the wire, among those of the run. */
static void note_wire(struct seat *s, size_t len)
{
    struct loadgen *lg = s->lg;
    size_t n = wire_bytes(s);
    if (!n)
        return;
    if (lg->n_wire == lg->cap_wire) {
        size_t cap = lg->cap_wire ? lg->cap_wire * 2 : 4096;
        uint32_t *w = realloc(lg->wire, cap * sizeof *w), *r;
        if (w)
            lg->wire = w;
        if (!w || !(r = realloc(lg->raw, cap * sizeof *r)))
            return;
        lg->raw = r;
        lg->cap_wire = cap;
    }
    lg->wire[lg->n_wire] = (uint32_t)n;
    lg->raw[lg->n_wire++] = (uint32_t)len;
}

/* The creator keeps at most CREATE_WINDOW creates unanswered, as many
 * people creating games on their own connections would: a client that
 * sends thousands of requests at once has the server queue thousands of
 * answers, and past 1024 queued messages (or max-queue-bytes) the server
 * drops it as a client that does not read (docs/server.md, "Limits"). */
#define CREATE_WINDOW 64
#define STALL_S 120

static void ask_more(struct loadgen *lg)
{
    size_t total = lg->p->games + lg->p->hosted;
    while (lg->asked < total && lg->asked - lg->created < CREATE_WINDOW) {
        cas__wsc_send(lg->creator.conn, lg->create);
        lg->asked++;
    }
}

/* A lobby subscriber's message: its bytes counted while the play is
 * timed; the first (the whole list) apart. */
static void on_lobby(struct seat *s, size_t len)
{
    struct loadgen *lg = s->lg;
    struct cas__loadgen_lobby *l = &lg->r->lobby[s == &lg->lobby[1]];
    size_t wire = wire_bytes(s);
    if (!s->heard) {
        s->heard = 1;
        l->first_raw = len;
        l->first_wire = wire;
    } else if (lg->playing) {
        l->raw += len;
        l->wire += wire;
        l->messages++;
    }
}

static void on_message(struct cas__wsc_conn *c, void *user, const char *text, size_t len)
{
    struct seat *s = user;
    struct loadgen *lg = s->lg;
    (void)c;
    if (s->index == LOBBY) {
        on_lobby(s, len);
        return;
    }
    if (lg->p->wire && s->index != -1) {
        /* Every message moves the count on; the updates are counted. */
        if (strncmp(text, "{\"type\":\"update\"", 16) == 0)
            note_wire(s, len);
        else
            wire_bytes(s);
    }
    if (s->index != -1 && strncmp(text, "{\"type\":\"state\"", 15) == 0)
        s->heard = 1;
    if (s->index == WATCHER && (strncmp(text, "{\"type\":\"state\"", 15) == 0 ||
                                strncmp(text, "{\"type\":\"update\"", 16) == 0))
        s->seen_ply = int_after(text, "\"ply\":", s->seen_ply);
    if (s->index == WATCHER || s->index == IDLE)
        return;
    if (s->index < 0) {
        if (strncmp(text, "{\"type\":\"created\"", 17) == 0 && lg->created >= lg->p->games) {
            lg->created++; /* one of the idle games hosted beside them */
            ask_more(lg);
        } else if (strncmp(text, "{\"type\":\"created\"", 17) == 0) {
            s = &lg->seats[2 * lg->created];
            int64_t game = int_after(text, "\"game\":\"", 0);
            for (int i = 0; i < 2; i++) {
                char key[40];
                snprintf(key, sizeof key, "{\"seat\":%d,\"token\":\"", i);
                const char *at = strstr(text, key);
                s[i].game = game;
                s[i].index = i;
                s[i].lg = lg;
                if (at)
                    sscanf(at + strlen(key), "%63[0-9a-f]", s[i].token);
            }
            lg->created++;
            ask_more(lg);
        } else if (strstr(text, "\"type\":\"error\"")) {
            lg->r->errors++;
            snprintf(lg->r->first_error, sizeof lg->r->first_error, "%.300s", text);
        }
        return;
    }
    if (strncmp(text, "{\"type\":\"state\"", 15) == 0 ||
        strncmp(text, "{\"type\":\"update\"", 16) == 0) {
        on_state(s, text);
    } else if (strstr(text, "\"type\":\"error\"")) {
        lg->r->errors++;
        if (!lg->r->first_error[0])
            snprintf(lg->r->first_error, sizeof lg->r->first_error, "%.300s", text);
    }
}

/* The count of what a connection reads starts once it is open (the
 * server's answer to the upgrade is not a message). */
static void on_open(struct cas__wsc_conn *c, void *user)
{
    struct seat *s = user;
    s->opened_at = s->read_at = cas__wsc_bytes_read(c);
}

static void on_closed(struct cas__wsc_conn *c, void *user)
{
    struct seat *s = user;
    (void)c;
    s->lg->r->closed++;
}

static const struct cas__wsc_events events = {.open = on_open, .message = on_message,
                                              .closed = on_closed};

/* This process's CPU seconds so far, user and system. */
static void own_cpu(double *user, double *sys)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    *user = (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec / 1e6;
    *sys = (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec / 1e6;
}

/* What a connection read from its socket since it opened, 0 unknown. */
static uint64_t read_since_open(const struct seat *s)
{
    int64_t now = s->conn ? cas__wsc_bytes_read(s->conn) : -1;
    return now >= 0 && s->opened_at >= 0 && now > s->opened_at ? (uint64_t)(now - s->opened_at)
                                                                : 0;
}

/* With wire: every byte the connections read once open. */
static uint64_t read_by_all(const struct loadgen *lg)
{
    uint64_t n = read_since_open(&lg->creator) + read_since_open(&lg->lobby[0]) +
                 read_since_open(&lg->lobby[1]);
    for (size_t i = 0; i < lg->n_seats + lg->n_others; i++)
        n += read_since_open(i < lg->n_seats ? &lg->seats[i] : &lg->others[i - lg->n_seats]);
    return n;
}

static int compare(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Send the acts that are due; the microseconds until the next one is
 * (at most max_us), rounded up to whole milliseconds, the wait's grain. */
static int64_t send_due(struct loadgen *lg, int64_t max_us)
{
    double t = now_s(), next = t + (double)max_us / 1e6;
    for (size_t i = 0; i < lg->n_seats; i++) {
        struct seat *s = &lg->seats[i];
        if (s->due > 0 && s->due <= t && lg->r->moves < lg->p->max_moves) {
            s->due = 0;
            s->sent_ply = s->acted_ply;
            s->sent_at = now_s();
            cas__wsc_send(s->conn, s->act);
            lg->r->moves++;
        } else if (s->due > 0 && s->due < next) {
            next = s->due;
        }
    }
    return ((int64_t)((next - t) * 1e3) + 1) * 1000;
}

/* Whether s has seen what followed the last act sent in its game (whose
 * seats are pair): the state after it, or a later one. */
static int caught_up(const struct seat *s, const struct seat pair[2])
{
    int64_t last = pair[0].sent_ply > pair[1].sent_ply ? pair[0].sent_ply : pair[1].sent_ply;
    return s->seen_ply >= last;
}

/* The seats and watchers not caught up. */
static size_t behind(const struct loadgen *lg)
{
    size_t n = 0, watching = (size_t)lg->p->watchers * lg->p->games;
    for (size_t i = 0; i < lg->n_seats; i++)
        n += !caught_up(&lg->seats[i], &lg->seats[i & ~(size_t)1]);
    for (size_t i = 0; i < watching && i < lg->n_others; i++)
        n += !caught_up(&lg->others[i], &lg->seats[2 * (i / lg->p->watchers)]);
    return n;
}

int cas__loadgen_run(const struct cas__loadgen_params *p, struct cas__loadgen_result *r)
{
    struct loadgen lg = {.p = p, .r = r};
    int rc;
    memset(r, 0, sizeof *r);
    lg.seats = calloc(2 * (p->games ? p->games : 1), sizeof *lg.seats);
    if (!lg.seats || (rc = cas__wsc_new(&events, &lg.w)) != CAS_OK) {
        free(lg.seats);
        return CAS_ENOMEM;
    }
    /* Creating and joining are bounded apart from the play measured: they
     * stop when nothing came for STALL_S (so thousands of games, or a
     * server under valgrind, take what they need). */
    double deadline = now_s() + STALL_S;
    lg.creator = (struct seat){.lg = &lg, .index = -1};
    if ((rc = cas__wsc_connect(lg.w, "127.0.0.1", p->port, &lg.creator, &lg.creator.conn)))
        goto done;
    snprintf(lg.create, sizeof lg.create, "{\"type\":\"create\",\"game\":\"%s\",\"practice\":true,"
             "\"seed\":\"%" PRIu64 "\",\"expansions\":%.600s,\"seats\":[{\"agent\":\"human\"},"
             "{\"agent\":\"human\"}]}", p->game, p->seed, p->expansions ? p->expansions : "[]");
    ask_more(&lg);
    for (size_t was = 0; lg.created < p->games + p->hosted && !r->errors && !r->closed &&
                         now_s() < deadline;) {
        cas__wsc_service(lg.w, 10);
        if (lg.created > was) {
            was = lg.created;
            deadline = now_s() + STALL_S;
        }
    }
    r->created = lg.created;
    r->creator_closed = r->closed != 0;
    if (lg.created < p->games + p->hosted) {
        rc = CAS_EIO;
        goto done;
    }
    if (p->created)
        p->created(p->ctx);
    /* Every seat joins; play starts as the states arrive. */
    for (size_t i = 0; i < 2 * p->games && !rc; i++) {
        char join[256];
        struct seat *s = &lg.seats[i];
        rc = cas__wsc_connect(lg.w, "127.0.0.1", p->port, s, &s->conn);
        lg.n_seats = i + (rc == CAS_OK);
        snprintf(join, sizeof join, "{\"type\":\"join\",\"game\":\"%lld\",\"seat\":%d,"
                 "\"token\":\"%s\"}", (long long)s->game, s->index, s->token);
        if (rc == CAS_OK)
            cas__wsc_send(s->conn, join);
    }
    lg.n_others = (size_t)p->watchers * p->games + p->idle;
    lg.others = calloc(lg.n_others ? lg.n_others : 1, sizeof *lg.others);
    if (!lg.others)
        rc = CAS_ENOMEM;
    for (size_t i = 0; i < lg.n_others && !rc; i++) {
        struct seat *s = &lg.others[i];
        int watching = i < (size_t)p->watchers * p->games;
        *s = (struct seat){.lg = &lg, .index = watching ? WATCHER : IDLE,
                           .game = watching ? lg.seats[2 * (i / p->watchers)].game : 0};
        if ((rc = cas__wsc_connect(lg.w, "127.0.0.1", p->port, s, &s->conn)))
            lg.n_others = i;
        else if (watching) {
            char join[128];
            snprintf(join, sizeof join, "{\"type\":\"join\",\"game\":\"%lld\"}",
                     (long long)s->game);
            cas__wsc_send(s->conn, join);
        }
    }
    /* The lobby's subscribers: one to its changes, one to whole lists. */
    for (int i = 0; i < 2 && p->lobby && !rc; i++) {
        struct seat *s = &lg.lobby[i];
        *s = (struct seat){.lg = &lg, .index = LOBBY};
        if ((rc = cas__wsc_connect(lg.w, "127.0.0.1", p->port, s, &s->conn)) == CAS_OK)
            cas__wsc_send(s->conn, i ? "{\"type\":\"lobby\"}"
                                     : "{\"type\":\"lobby\",\"deltas\":true}");
    }
    /* Every connection open, and every seat and watcher sent its full
     * state (each lobby subscriber its list), before the play is timed (no
     * act leaves meanwhile). */
    deadline = now_s() + STALL_S;
    size_t everyone = lg.n_seats + lg.n_others + (p->lobby ? 2 : 0);
    for (size_t ready = 0, was = 0; !rc && ready < everyone && now_s() < deadline;) {
        cas__wsc_service(lg.w, 10);
        ready = p->lobby ? (size_t)(lg.lobby[0].heard + lg.lobby[1].heard) : 0;
        for (size_t i = 0; i < lg.n_seats + lg.n_others; i++) {
            const struct seat *s = i < lg.n_seats ? &lg.seats[i] : &lg.others[i - lg.n_seats];
            ready += s->index == IDLE ? cas__wsc_is_open(s->conn) : s->heard;
        }
        if (ready > was) {
            was = ready;
            deadline = now_s() + STALL_S;
        }
    }
    if (p->joined)
        p->joined(p->ctx);
    lg.n_wire = 0;
    r->client_loop = cas__wsc_event_loop(lg.w);
    double user_start, sys_start;
    own_cpu(&user_start, &sys_start);
    double play_start = now_s();
    deadline = play_start + p->max_seconds;
    /* The first acts spread over one think time, not all at once. */
    for (size_t i = 0; i < lg.n_seats; i++)
        if (lg.seats[i].due > 0)
            lg.seats[i].due = play_start + p->think_ms / 1000.0 * (double)i / (double)lg.n_seats;
    lg.playing = 1;
    double next_create = p->lobby ? play_start : deadline;
    while (!rc && now_s() < deadline && r->moves < p->max_moves && !r->errors &&
           r->games_over < p->games) {
        /* Each act leaves when due, not with the next batch: acts
         * sent in bursts would queue behind each other in the server
         * and add their own wait to the latency measured. */
        cas__wsc_service_us(lg.w, send_due(&lg, 5000));
        if (now_s() >= next_create) { /* the lobby's news: a game created a second */
            cas__wsc_send(lg.creator.conn, lg.create);
            next_create += 1;
        }
    }
    lg.playing = 0;
    /* What answers the acts sent, while it comes (2 s at most after the
     * last of it): every seat and watcher sees what followed its game's
     * last act, so the games over and the bytes read counted do not
     * depend on which socket the server wrote first when the play stopped
     * at its bounds.  The acts due then stay unsent. */
    for (double until = now_s() + 2; now_s() < until && !rc;) {
        size_t was = behind(&lg);
        if (!was)
            break;
        cas__wsc_service(lg.w, 5);
        if (behind(&lg) < was)
            until = now_s() + 2;
    }
    r->seconds = now_s() - play_start;
    own_cpu(&r->client_user, &r->client_sys);
    r->client_user -= user_start;
    r->client_sys -= sys_start;
    if (p->played)
        p->played(p->ctx);
    uint64_t closed = r->closed; /* before ours close */
    if (p->wire)
        r->bytes_read = read_by_all(&lg);
    if (lg.n_latencies) {
        qsort(lg.latencies, lg.n_latencies, sizeof *lg.latencies, compare);
        r->p50_ms = lg.latencies[lg.n_latencies / 2] * 1e3;
        r->p99_ms = lg.latencies[(lg.n_latencies * 99) / 100] * 1e3;
        r->answered = lg.n_latencies;
    }
    if (lg.n_wire) {
        double *w = malloc(lg.n_wire * sizeof *w), *raw = malloc(lg.n_wire * sizeof *raw);
        for (size_t i = 0; w && raw && i < lg.n_wire; i++) {
            w[i] = lg.wire[i];
            raw[i] = lg.raw[i];
        }
        if (w && raw) {
            qsort(w, lg.n_wire, sizeof *w, compare);
            qsort(raw, lg.n_wire, sizeof *raw, compare);
            r->wire_median = w[lg.n_wire / 2];
            r->wire_max = w[lg.n_wire - 1];
            r->raw_median = raw[lg.n_wire / 2];
            r->updates = lg.n_wire;
        }
        free(w);
        free(raw);
    }
    cas__wsc_free(lg.w);
    r->closed = closed;
    goto free_seats;
done:
    cas__wsc_free(lg.w);
free_seats:
    cas__wsc_conn_free(lg.creator.conn);
    for (int i = 0; i < 2; i++) {
        cas__wsc_conn_free(lg.lobby[i].conn);
    }
    for (size_t i = 0; i < lg.n_seats + lg.n_others; i++) {
        struct seat *s = i < lg.n_seats ? &lg.seats[i] : &lg.others[i - lg.n_seats];
        cas__wsc_conn_free(s->conn);
    }
    free(lg.seats);
    free(lg.others);
    free(lg.latencies);
    free(lg.wire);
    free(lg.raw);
    return rc;
}
