/*
 * lobby.c — every table of the server and the requests that are not one
 * game's: create, claim, join and leave, the lobby listing, and the
 * dispatch of a seat's act/undo/hint to its table after its token is
 * checked.  At start it brings every unfinished served game back from the
 * journal.  Messages are sent after each change, built per viewer.
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <openssl/crypto.h>

#include "club.h"
#include "loop_guard.h"
#include "install_dirs.h"
#include "signin.h"
#include "table.h"

static int64_t monotonic_ms(void *ctx)
{
    struct timespec ts;
    (void)ctx;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void cas__srv_limits_default(struct cas__srv_limits *l)
{
    *l = (struct cas__srv_limits){
        .max_message = 64 * 1024, .max_queue = 16u << 20, .max_send = 256u << 20,
        .max_games = 10000, .keep_finished = 64,
        .max_connections = 0, .rate = 20, .burst = 40, .bot_threads = 2,
    };
}

int cas__lobby_open(struct cas__lobby *l, struct cas__saves *store, const char *plugin_path,
                    const struct cas__isolation *iso, const struct cas__srv_clock *clock,
                    const struct cas__srv_limits *limits, char *err, size_t errlen)
{
    memset(l, 0, sizeof *l);
    l->store = store;
    l->recent.lobby = l;
    cas__saves_call_hook = cas__loop_check_store;
    l->store_up = 1;
    l->feed.seq = cas__srv_first_seq(); /* a restarted server's numbers follow on */
    l->clock = clock ? *clock : (struct cas__srv_clock){.now_ms = monotonic_ms};
    if (limits)
        l->limits = *limits;
    else
        cas__srv_limits_default(&l->limits);
    if (iso)
        l->isolation = *iso;
    l->preset_dir = cas__find_installed(CASTELLAN_PRESET_DIR_FROM_BIN,
                                        CASTELLAN_PRESET_INSTALL_DIR,
                                        CASTELLAN_PRESET_SOURCE_DIR);
    if (cas__plugin_search_path(plugin_path, &l->path) != CAS_OK ||
        cas__registry_scan(&l->path, &l->reg) != CAS_OK) {
        snprintf(err, errlen, "out of memory");
        cas__lobby_close(l);
        return CAS_ENOMEM;
    }
    return CAS_OK;
}

void cas__lobby_give_up(struct cas__lobby *l, int64_t id, const char *why)
{
    int64_t *more = realloc(l->unrestorable, (l->n_unrestorable + 1) * sizeof *more);
    if (more) {
        l->unrestorable = more;
        l->unrestorable[l->n_unrestorable++] = id;
    }
    fprintf(stderr, "castellan serve: game %lld is not resumed: %s\n", (long long)id, why);
}

int cas__lobby_restore_all(struct cas__lobby *l, char *err, size_t errlen)
{
    int64_t *ids = NULL;
    size_t n = 0;
    if (cas__saves_served_unfinished(l->store, &ids, &n) != CAS_OK) {
        snprintf(err, errlen, "%s", cas__saves_errmsg(l->store));
        return CAS_EIO;
    }
    for (size_t i = 0; i < n; i++)
        cas__table_bring_back(l, ids[i]);
    free(ids);
    /* A correspondence deadline that passed while the server was down
     * falls now, before anyone may move. */
    cas__lobby_check_clocks(l);
    return CAS_OK;
}

/* The lobby gave up on game id: it could not be brought back. */
static int unrestorable(const struct cas__lobby *l, int64_t id)
{
    for (size_t i = 0; i < l->n_unrestorable; i++)
        if (l->unrestorable[i] == id)
            return 1;
    return 0;
}

/* The unfinished games no server holds, read on the store's thread. */
struct orphans_job {
    struct cas__store_job base;
    int64_t *ids;
    size_t n;
};

static int read_orphans(struct cas__saves *s, struct cas__store_job *base)
{
    struct orphans_job *job = (struct orphans_job *)base;
    return cas__saves_served_orphans(s, &job->ids, &job->n);
}

static void adopt_read(struct cas__lobby *l, struct cas__store_job *base)
{
    struct orphans_job *job = (struct orphans_job *)base;
    l->adopting = 0;
    if (base->rc != CAS_OK && !l->store_stopping)
        fprintf(stderr, "castellan serve: %s\n", base->err);
    for (size_t i = 0; base->rc == CAS_OK && !l->store_stopping && i < job->n; i++)
        if (!cas__lobby_find(l, job->ids[i]) && !unrestorable(l, job->ids[i])) {
            fprintf(stderr, "castellan serve: game %lld goes on here if it can: its "
                    "server is gone\n", (long long)job->ids[i]);
            cas__table_bring_back(l, job->ids[i]);
        }
    free(job->ids);
    free(job);
}

void cas__lobby_adopt_orphans(struct cas__lobby *l)
{
    int64_t now = l->clock.now_ms(l->clock.ctx);
    if (!cas__saves_shared(l->store) || l->adopting || now - l->adopted_at < 1000)
        return;
    l->adopted_at = now;
    struct orphans_job *job = calloc(1, sizeof *job);
    if (!job)
        return;
    job->base.run = read_orphans;
    job->base.done = adopt_read;
    l->adopting = 1;
    cas__store_submit(l, &job->base);
}

void cas__lobby_close(struct cas__lobby *l)
{
    l->changed = l->changed_last = NULL;
    while (l->tables) {
        struct cas__table *t = l->tables;
        l->tables = t->next;
        cas__table_free(t);
    }
    cas__feed_free(l);
    cas__tick_free(l);
    free(l->by_id);
    cas__registry_free(l->reg);
    cas__strlist_free(&l->path);
    free(l->preset_dir);
    free(l->unrestorable);
    cas__recent_free(&l->recent);
    memset(l, 0, sizeof *l);
}

/* The index by id: a table is found without walking the others. */
static size_t bucket_of(const struct cas__lobby *l, int64_t id)
{
    uint64_t h = (uint64_t)id * 0x9E3779B97F4A7C15ull; /* Fibonacci hashing */
    return (size_t)(h >> 32) & (l->by_id_cap - 1);
}

/* Room for one more table in the index (grown to keep chains short);
 * -1 when memory ran out (the table is then found by walking). */
static int index_room(struct cas__lobby *l)
{
    if (l->n_tables < l->by_id_cap)
        return 0;
    size_t cap = l->by_id_cap ? l->by_id_cap * 2 : 64;
    struct cas__table **by_id = calloc(cap, sizeof *by_id);
    if (!by_id)
        return -1;
    free(l->by_id);
    l->by_id = by_id;
    l->by_id_cap = cap;
    for (struct cas__table *t = l->tables; t; t = t->next) {
        size_t b = bucket_of(l, t->id);
        t->next_same_hash = l->by_id[b];
        l->by_id[b] = t;
    }
    return 0;
}

void cas__lobby_link(struct cas__lobby *l, struct cas__table *t)
{
    int indexed = index_room(l) == 0;
    t->next = l->tables;
    t->prev = NULL;
    if (l->tables)
        l->tables->prev = t;
    l->tables = t;
    l->n_tables++;
    if (indexed) {
        size_t b = bucket_of(l, t->id);
        t->next_same_hash = l->by_id[b];
        l->by_id[b] = t;
    } else {
        free(l->by_id); /* out of memory: walk until the next growth */
        l->by_id = NULL;
        l->by_id_cap = 0;
    }
    cas__lobby_news(t);
    cas__tick_soon(l, t);
}

void cas__lobby_add(struct cas__lobby *l, struct cas__table *t)
{
    cas__lobby_link(l, t);
    if (t->opening)
        cas__offload_open(t, NULL, "", NULL, CAS__OPENED_RESTORED);
    else
        cas__offload(t, CAS__OP_ADVANCE);
}

struct cas__table *cas__lobby_find(struct cas__lobby *l, int64_t id)
{
    if (!l->by_id) {
        for (struct cas__table *t = l->tables; t; t = t->next)
            if (t->id == id)
                return t;
        return NULL;
    }
    for (struct cas__table *t = l->by_id[bucket_of(l, id)]; t; t = t->next_same_hash)
        if (t->id == id)
            return t;
    return NULL;
}

/* t leaves the lobby's list and index. */
void cas__lobby_unlink(struct cas__lobby *l, struct cas__table *t)
{
    /* Unlinked where it is: retiring a game costs the same whatever
     * the number of games hosted. */
    if (t->prev)
        t->prev->next = t->next;
    else
        l->tables = t->next;
    if (t->next)
        t->next->prev = t->prev;
    if (l->by_id)
        for (struct cas__table **p = &l->by_id[bucket_of(l, t->id)]; *p;
             p = &(*p)->next_same_hash)
            if (*p == t) {
                *p = t->next_same_hash;
                break;
            }
    l->n_tables--;
    l->lobby_dirty = 1;
    cas__feed_forget(l, t);
}

void cas__lobby_not_opened(struct cas__table *t, enum cas__opened how, const char *why)
{
    struct cas__lobby *l = t->lobby;
    cas__lobby_unlink(l, t);
    if (how == CAS__OPENED_RESTORED)
        cas__lobby_give_up(l, t->id, why);
    else if (how == CAS__OPENED_CREATED)
        cas__store_quietly(l, cas__saves_game_delete, t->id);
}

/* The oldest finished table leaves memory: its viewers follow nothing
 * (a join finds its replay in the store), it leaves the lobby's list. */
static void retire(struct cas__lobby *l, struct cas__table *t)
{
    cas__lobby_unlink(l, t);
    for (struct cas__conn *c = t->viewers, *next; c; c = next) {
        next = c->next_viewer;
        c->table = NULL;
        c->seat = -1;
        c->next_viewer = NULL;
    }
    l->finished = t->next_finished;
    if (!l->finished)
        l->finished_last = NULL;
    l->n_finished--;
    cas__offload_retire(t);
}

/* Count t among the finished tables if it finished since it was last
 * flushed (a table that ends is always a changed one); the lobby's recent
 * games are read again. */
static void count_finished(struct cas__lobby *l, struct cas__table *t)
{
    /* A held one is queued again; an unsaved result once it is durable. */
    if (t->hold.held || !t->over || t->counted_over || cas__table_unshown(t))
        return;
    t->counted_over = 1;
    cas__club_stale(l->club);
    t->next_finished = NULL;
    if (l->finished_last)
        l->finished_last->next_finished = t;
    else
        l->finished = t;
    l->finished_last = t;
    l->n_finished++;
    cas__recent_changed(&l->recent);
    cas__feed_finished_news(l);
}

/* Let the oldest finished leave memory past keep_finished once their
 * last state went. */
static void retire_finished(struct cas__lobby *l)
{
    while (l->n_finished > l->limits.keep_finished && !l->finished->hold.held &&
           !l->finished->owes_update)
        retire(l, l->finished);
}

int cas__host_saved_parse(const char *spec, struct cas__host_saved *out, char *err,
                          size_t errlen)
{
    int64_t *ids = NULL;
    size_t n = 0;
    memset(out, 0, sizeof *out);
    if (strcmp(spec, "all") == 0) {
        out->all = 1;
        return CAS_OK;
    }
    for (const char *p = spec;; p++) {
        char *end;
        long long id = *p >= '1' && *p <= '9' ? strtoll(p, &end, 10) : 0;
        if (id <= 0 || (*end != ',' && *end != '\0')) {
            snprintf(err, errlen, "--host-saved %s: write \"all\" or game ids with commas "
                     "between them (castellan saves list shows the ids), e.g. --host-saved "
                     "12,15", spec);
            free(ids);
            return CAS_EINVAL;
        }
        int64_t *more = realloc(ids, (n + 1) * sizeof *ids);
        if (!more) {
            snprintf(err, errlen, "out of memory");
            free(ids);
            return CAS_ENOMEM;
        }
        ids = more;
        ids[n++] = id;
        p = end;
        if (!*p)
            break;
    }
    out->ids = ids;
    out->n = n;
    return CAS_OK;
}

int cas__lobby_may_show(const struct cas__lobby *l, struct cas__saves *s, int64_t id,
                        int *practice)
{
    const struct cas__host_saved *h = l->host_saved;
    struct cas__saves_served served;
    int may = h && h->all;
    for (size_t i = 0; h && i < h->n; i++)
        may |= h->ids[i] == id;
    if (practice)
        *practice = 0;
    if (cas__saves_served_load(s, id, &served) != CAS_OK)
        return may;
    if (practice)
        *practice = served.practice;
    cas__saves_served_free(&served);
    return 1;
}

/* ------------------------------------------------------ lobby message */

/* A preset's title for people: its first line's words after the dash
 * ("; default.ini — Carcassonne for four bots, farmers on." gives
 * "Carcassonne for four bots"), up to the first comma or full stop; "" when
 * the file has none. */
static void preset_title(const char *dir, const char *file, char *title, size_t cap)
{
    char path[4096], line[256];
    title[0] = '\0';
    snprintf(path, sizeof path, "%s/%s", dir, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    const char *dash = fgets(line, sizeof line, f) ? strstr(line, "\xe2\x80\x94 ") : NULL;
    fclose(f);
    if (line[0] != ';' || !dash)
        return;
    dash += 4;
    size_t len = strcspn(dash, ",.;\r\n");
    snprintf(title, cap, "%.*s", (int)len, dash);
}

static void write_presets(struct cas__lobby *l, struct cas__jw *w)
{
    struct dirent **names = NULL;
    int n = l->preset_dir ? scandir(l->preset_dir, &names, NULL, alphasort) : 0;
    /* the presets' names, then their titles for people, in that order */
    for (int titles = 0; titles < 2; titles++) {
        int first = 1;
        cas__jw_raw(w, titles ? ",\"preset_titles\":[" : ",\"presets\":[");
        for (int i = 0; i < n; i++) {
            size_t len = strlen(names[i]->d_name);
            if (len <= 4 || strcmp(names[i]->d_name + len - 4, ".ini") != 0)
                continue;
            if (!first)
                cas__jw_raw(w, ",");
            if (titles) {
                char title[200];
                preset_title(l->preset_dir, names[i]->d_name, title, sizeof title);
                cas__jw_str(w, title);
            } else {
                cas__jw_strn(w, names[i]->d_name, len - 4);
            }
            first = 0;
        }
        cas__jw_raw(w, "]");
    }
    for (int i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static void write_available(struct cas__lobby *l, struct cas__jw *w)
{
    size_t n = cas__registry_count(l->reg);
    int first = 1;
    cas__jw_raw(w, ",\"games_available\":[");
    for (size_t i = 0; i < n; i++) {
        const struct cas__plugin_info *g = cas__registry_at(l->reg, i);
        if (g->kind != CAS_KIND_GAME || g->refusal)
            continue;
        cas__jw_raw(w, first ? "{\"id\":" : ",{\"id\":");
        cas__jw_str(w, g->id);
        cas__jw_raw(w, ",\"name\":");
        cas__jw_str(w, g->description);
        /* the expansions' ids, then their names for people, in that order */
        for (int names = 0; names < 2; names++) {
            cas__jw_raw(w, names ? "],\"expansion_names\":[" : ",\"expansions\":[");
            for (size_t k = 0, e = 0; k < n; k++) {
                const struct cas__plugin_info *x = cas__registry_at(l->reg, k);
                if (x->kind == CAS_KIND_EXPANSION && !x->refusal && x->extends &&
                    strcmp(x->extends, g->id) == 0) {
                    if (e++)
                        cas__jw_raw(w, ",");
                    cas__jw_str(w, names ? x->description : x->id);
                }
            }
        }
        cas__jw_printf(w, "],\"players\":[%d,%d]}", g->min_players, g->max_players);
        first = 0;
    }
    cas__jw_raw(w, "],\"agents\":[\"human\",\"open\",\"random\",\"greedy\",\"mcts-easy\","
                   "\"mcts\",\"mcts-hard\"]");
}

static const char *status_of(const struct cas__table *t)
{
    if (t->over && !cas__table_unshown(t)) /* an end shows once it is durable */
        return "over";
    for (int i = 0; i < t->nplayers; i++)
        if (t->seats[i].open)
            return "open";
    return "running";
}

void cas__lobby_write_moving_at(struct cas__jw *w, uint32_t ply, int to_move)
{
    cas__jw_printf(w, ",\"ply\":%" PRIu32, ply);
    if (to_move >= 0)
        cas__jw_printf(w, ",\"to_move\":%d", to_move);
    else
        cas__jw_raw(w, ",\"to_move\":null");
}

void cas__lobby_write_moving(const struct cas__table *t, struct cas__jw *w)
{
    /* Whose decision it is, so a page that holds that seat's link can
     * show the game first ("your turn"). */
    cas__lobby_write_moving_at(w, t->r.session.ply, cas__lobby_to_move(t));
}

void cas__lobby_write_entry(struct cas__table *t, struct cas__jw *w)
{
    /* The moving part (ply, whose turn) right after the id: a change
     * that only moved a game on carries just these (lobby_feed.c). */
    cas__jw_printf(w, "{\"game\":\"%lld\"", (long long)t->id);
    cas__lobby_write_moving(t, w);
    cas__jw_raw(w, ",\"title\":");
    cas__jw_str(w, t->r.match.title);
    cas__jw_printf(w, ",\"status\":\"%s\",\"practice\":%s", status_of(t),
                   t->practice ? "true" : "false");
    if (t->days_per_move)
        cas__corr_write_clock(t, w, 0);
    else if (t->has_clock)
        cas__jw_printf(w, ",\"clock\":{\"base_ms\":%" PRId64 ",\"increment_ms\":%"
                       PRId64 "}", t->base_ms, t->increment_ms);
    else
        cas__jw_raw(w, ",\"clock\":null");
    cas__jw_raw(w, ",\"seats\":[");
    for (int i = 0; i < t->nplayers; i++) {
        cas__table_write_seat(t, i, w);
        cas__jw_raw(w, ",\"label\":");
        cas__jw_str(w, cas__table_label(t, i));
        cas__jw_raw(w, "}");
    }
    cas__jw_raw(w, "]}");
}

void cas__lobby_write_list(struct cas__lobby *l, struct cas__jw *w, const char *id)
{
    cas__jw_raw(w, "{\"type\":\"lobby\"");
    if (id && id[0])
        cas__jw_printf(w, ",\"id\":%s", id);
    /* Every entry as the lobby's last change (seq) carried it. */
    cas__jw_printf(w, ",\"seq\":%" PRIu64 ",\"games\":[", l->feed.seq);
    int first = 1;
    for (struct cas__table *t = l->tables; t; t = t->next) {
        if (!t->listed)
            continue;
        if (!first)
            cas__jw_raw(w, ",");
        first = 0;
        cas__jw_raw(w, t->listed);
    }
    cas__jw_raw(w, "]");
    cas__recent_write(&l->recent, w);
    write_presets(l, w);
    write_available(l, w);
    cas__jw_raw(w, "}");
}

/* ------------------------------------------------------------ requests */

/* Seat `seat`'s token and invite link, "seat":..,"token":..,"link":.. */
static void write_link(struct cas__jw *w, const struct cas__table *t, int seat,
                       const char *token)
{
    cas__jw_printf(w, "\"seat\":%d,\"token\":\"%s\",\"link\":\"/game/%lld#seat=%d&token=%s\"",
                   seat, token, (long long)t->id, seat, token);
}

static void handle_create(struct cas__lobby *l, struct cas__conn *c, const struct cas__req *req)
{
    if (l->n_tables + l->n_creating - l->n_finished >= l->limits.max_games) {
        cas__conn_send_error(c, req->id, "full", "the server hosts as many games as it "
                             "may (max-games); try again when one has ended");
        return;
    }
    /* Stored on the store's thread, its match (the plugin, a worker, the
     * journal) opened in a job; the answer comes once it is open. */
    cas__table_create(l, c, req);
}

void cas__lobby_created(struct cas__table *t, struct cas__conn *c, const char *id,
                        const struct cas__invites *invites)
{
    struct cas__jw w;
    cas__jw_init(&w);
    cas__jw_raw(&w, "{\"type\":\"created\"");
    if (id[0])
        cas__jw_printf(&w, ",\"id\":%s", id);
    cas__jw_printf(&w, ",\"game\":\"%lld\",\"seats\":[", (long long)t->id);
    for (int i = 0, k = 0; i < t->nplayers && (size_t)i < invites->n; i++)
        if (!t->seats[i].bot) {
            cas__jw_raw(&w, k++ ? ",{" : "{");
            write_link(&w, t, i, invites->token[i]);
            cas__jw_raw(&w, "}");
        }
    cas__jw_printf(&w, "],\"watch\":\"/game/%lld\"}", (long long)t->id);
    cas__conn_send_jw(c, &w);
}

static struct cas__table *find_or_refuse(struct cas__lobby *l, struct cas__conn *c,
                                         const struct cas__req *req)
{
    struct cas__table *t = cas__lobby_find(l, req->game);
    if (!t) {
        char msg[320];
        snprintf(msg, sizeof msg, "there is no game %lld on this server; the lobby lists "
                 "the games%s (a finished game's replay is at /game/%lld/replay.html)",
                 (long long)req->game, cas__saves_shared(l->store)
                 ? " (or another server on this database plays it)" : "",
                 (long long)req->game);
        cas__conn_send_error(c, req->id, "not-found", msg);
    }
    return t;
}

/* A seat's claim, stored on the store's thread while its table is held. */
struct claim_job {
    struct cas__store_job base;
    struct cas__table *t;
    int seat;
    int64_t game, player;             /* the claimer (0: a guest) */
    int asked;                        /* a guest asked for this name */
    char name[CAS__SAVES_NAME_MAX * 4 + 1];
    char token[CAS__TOKEN_LEN + 1], hash[CAS__HASH_LEN + 1];
    char id[80];
    const char *code;
    char msg[1200];
};

static int store_claim(struct cas__saves *s, struct cas__store_job *base)
{
    struct claim_job *job = (struct claim_job *)base;
    /* A guest may not take a registered player's name. */
    if (job->asked && cas__signin_name_free(s, 0, job->name, job->msg, sizeof job->msg)) {
        job->code = "name-taken";
        return CAS_ECONFLICT;
    }
    int rc = cas__saves_served_claim(s, job->game, job->seat, job->name, job->hash);
    if (rc != CAS_OK) {
        job->code = rc == CAS_EUNAVAILABLE ? "unavailable" : "internal";
        snprintf(job->msg, sizeof job->msg, "%s", cas__saves_errmsg(s));
        return rc;
    }
    cas__signin_took_seat(s, job->player, job->game, job->seat);
    return CAS_OK;
}

/* The claim is stored: the seat is the claimer's (c may have closed). */
static void seat_claimed(struct cas__table *t, struct cas__conn *c, struct claim_job *job)
{
    /* The names revive handed the session are the desc's: rename there. */
    char *copy = strdup(job->name);
    if (copy) {
        free(t->r.desc.players[job->seat].name);
        t->r.desc.players[job->seat].name = copy;
        t->r.names[job->seat] = copy;
    }
    memcpy(t->seats[job->seat].token_hash, job->hash, sizeof job->hash);
    t->seats[job->seat].open = 0;
    /* Connections that joined with the old token watch from now on: the
     * watchers' full state next. */
    for (struct cas__conn *v = t->viewers; v; v = v->next_viewer)
        if (v->seat == job->seat) {
            if (--cas__table_view(t, v->seat)->conns == 0)
                cas__table_view(t, v->seat)->orphaned = 0;
            v->seat = -1;
            cas__table_view(t, -1)->conns++;
            v->fresh = 1;
            v->since = -1;
            cas__table_owe_full(t);
            t->seats[job->seat].connected--;
        }
    cas__lobby_news(t);
    cas__table_changed(t);
    if (!c)
        return;
    struct cas__jw w;
    cas__jw_init(&w);
    cas__jw_raw(&w, "{\"type\":\"claimed\"");
    if (job->id[0])
        cas__jw_printf(&w, ",\"id\":%s", job->id);
    cas__jw_printf(&w, ",\"game\":\"%lld\",", (long long)t->id);
    write_link(&w, t, job->seat, job->token);
    cas__jw_raw(&w, "}");
    cas__conn_send_jw(c, &w);
}

static void claim_done(struct cas__lobby *l, struct cas__store_job *base)
{
    struct claim_job *job = (struct claim_job *)base;
    struct cas__table *t = job->t;
    struct cas__conn *c = t->hold.asker;
    if (base->rc == CAS_OK)
        seat_claimed(t, c, job);
    else if (c && !l->store_stopping)
        cas__conn_send_error(c, job->id, job->code ? job->code : "internal",
                             job->msg[0] ? job->msg : base->err);
    OPENSSL_cleanse(job->token, sizeof job->token);
    free(job);
    cas__offload_release(t);
}

static void handle_claim(struct cas__lobby *l, struct cas__conn *c, const struct cas__req *req)
{
    struct cas__table *t = find_or_refuse(l, c, req);
    char msg[1200];
    if (!t)
        return;
    if (req->seat >= t->nplayers || !t->seats[req->seat].open) {
        snprintf(msg, sizeof msg, "seat %d of game %lld is not open; claim one the lobby "
                 "lists with \"open\":true", req->seat, (long long)t->id);
        cas__conn_send_error(c, req->id, req->seat >= t->nplayers ? "not-found" : "not-open",
                             msg);
        return;
    }
    /* The claimer gets a token of its own: whoever held the seat's link
     * before (its creator) no longer acts for it.  Its name is a signed-in
     * player's own, else the one asked, else the seat's. */
    struct claim_job *job = calloc(1, sizeof *job);
    if (!job) {
        cas__conn_send_error(c, req->id, "internal", "out of memory");
        return;
    }
    if (cas__token_new(job->token) != CAS_OK || cas__sha256_hex(job->token, job->hash) != CAS_OK) {
        free(job);
        cas__conn_send_error(c, req->id, "internal", "the kernel gave no random bytes for a "
                             "token; try again");
        return;
    }
    job->base.run = store_claim;
    job->base.done = claim_done;
    job->t = t;
    job->seat = req->seat;
    job->game = t->id;
    job->player = c->player;
    job->asked = !c->player && req->name;
    snprintf(job->name, sizeof job->name, "%s",
             c->player ? c->player_name : req->name ? req->name : t->r.names[req->seat]);
    snprintf(job->id, sizeof job->id, "%s", req->id);
    cas__offload_hold(t, c);
    cas__store_submit(l, &job->base);
}

void cas__lobby_settle_leave(struct cas__table *t, int seat)
{
    if (seat >= 0) {
        t->seats[seat].connected--;
        cas__table_seat_left(t, seat);
        cas__table_changed(t);
        cas__lobby_news(t);
    }
    struct cas__view *v = cas__table_view(t, seat);
    if (--v->conns == 0)
        v->orphaned = 0;
    if (!t->viewers && !t->over) { /* nobody follows it: the next flush puts it to sleep */
        t->owes_sleep = 1;
        cas__lobby_queue(t->lobby, t);
    }
}

/* c is sent no more of the lobby (nothing when it was not subscribed). */
static void unsubscribe(struct cas__lobby *l, struct cas__conn *c)
{
    if (c->lobby)
        for (struct cas__conn **p = &l->subs; *p; p = &(*p)->next_sub)
            if (*p == c) {
                *p = c->next_sub;
                break;
            }
    c->lobby = c->lobby_deltas = 0;
}

/* c stops following its table (not held: requests for a held one wait). */
static void leave(struct cas__lobby *l, struct cas__conn *c)
{
    struct cas__table *t = c->table;
    (void)l;
    if (!t)
        return;
    for (struct cas__conn **p = &t->viewers; *p; p = &(*p)->next_viewer)
        if (*p == c) {
            *p = c->next_viewer;
            break;
        }
    cas__lobby_settle_leave(t, c->seat);
    c->table = NULL;
    c->seat = -1;
    c->next_viewer = NULL;
}

static void handle_join(struct cas__lobby *l, struct cas__conn *c, const struct cas__req *req)
{
    struct cas__table *t = find_or_refuse(l, c, req);
    char msg[200];
    if (!t)
        return;
    if (req->seat >= 0 && !cas__table_token_ok(t, req->seat, req->token)) {
        snprintf(msg, sizeof msg, "the token is not seat %d's of game %lld; use the seat's "
                 "invite link, or join without seat and token to watch", req->seat,
                 (long long)t->id);
        cas__conn_send_error(c, req->id, "bad-token", msg);
        return;
    }
    leave(l, c);
    c->table = t;
    c->seat = req->seat;
    c->fresh = 1;
    c->since = req->since;
    c->text = req->text;
    c->next_viewer = t->viewers;
    t->viewers = c;
    cas__table_view(t, c->seat)->conns++;
    cas__table_owe_full(t);
    if (c->seat >= 0) {
        t->seats[c->seat].connected++;
        cas__table_changed(t); /* the others see the seat connected */
        cas__table_seat_joined(t, c->seat);
        cas__lobby_news(t);
    }
}

/* The table of a seat's request, its token checked: c must have joined
 * it as that seat. */
static struct cas__table *seat_table(struct cas__lobby *l, struct cas__conn *c,
                                     const struct cas__req *req)
{
    struct cas__table *t = find_or_refuse(l, c, req);
    if (!t)
        return NULL;
    if (c->table != t || c->seat < 0) {
        char msg[200];
        snprintf(msg, sizeof msg, "this connection does not act for a seat of game %lld; "
                 "join it with your seat and token first", (long long)t->id);
        cas__conn_send_error(c, req->id, "bad-token", msg);
        return NULL;
    }
    return t;
}

/* act, undo, hint, autopass, leaver: the plugin's work, on the pool. */
static void handle_seat(struct cas__lobby *l, struct cas__conn *c, const struct cas__req *req)
{
    struct cas__table *t = seat_table(l, c, req);
    if (t)
        cas__offload_seat(t, c, req);
}

static void handle_request(struct cas__lobby *l, struct cas__conn *c, struct cas__req *req,
                           int64_t gone)
{
    struct cas__jw w;
    /* A reply never overtakes what was owed before its request: what
     * changed earlier in this turn of the loop goes out first (or is
     * being built: then a request for that table waits for it). */
    cas__lobby_flush(l);
    /* On a shared store a game whose server is gone goes on here: opened
     * in a job, for which the request waits. */
    if (cas__offload_targets(req->type) && req->game > 0 && cas__saves_shared(l->store) &&
        req->game != gone && !cas__lobby_find(l, req->game) &&
        !unrestorable(l, req->game))
        cas__table_bring_back(l, req->game);
    if (cas__offload_wait(l, c, req))
        return;
    switch (req->type) {
    case CAS__REQ_HELLO:
    case CAS__REQ_PING:
        cas__jw_init(&w);
        cas__jw_raw(&w, req->type == CAS__REQ_PING
                            ? "{\"type\":\"pong\""
                            : "{\"type\":\"hello\",\"server\":\"castellan/" CASTELLAN_VERSION
                              "\",\"protocol\":4");
        if (req->type == CAS__REQ_HELLO)
            cas__signin_write_hello(c, &w);
        if (req->id[0])
            cas__jw_printf(&w, ",\"id\":%s", req->id);
        cas__jw_raw(&w, "}");
        cas__conn_send_jw(c, &w);
        break;
    case CAS__REQ_LOBBY:
        cas__feed_subscribe(l, c, req);
        break;
    case CAS__REQ_LEAVE_LOBBY:
        unsubscribe(l, c);
        break;
    case CAS__REQ_CREATE:
        handle_create(l, c, req);
        break;
    case CAS__REQ_CLAIM:
        handle_claim(l, c, req);
        break;
    case CAS__REQ_JOIN:
        handle_join(l, c, req);
        break;
    case CAS__REQ_LEAVE:
        leave(l, c);
        break;
    case CAS__REQ_ACT:
    case CAS__REQ_UNDO:
    case CAS__REQ_HINT:
    case CAS__REQ_AUTOPASS:
    case CAS__REQ_LEAVER:
    case CAS__REQ_PREVIEW:
        handle_seat(l, c, req);
        break;
    }
}

void cas__lobby_handle(struct cas__lobby *l, struct cas__conn *c, struct cas__req *req)
{
    cas__lobby_handle_waited(l, c, req, 0);
}

void cas__lobby_handle_waited(struct cas__lobby *l, struct cas__conn *c, struct cas__req *req,
                              int64_t gone)
{
    cas__loop_enter();
    handle_request(l, c, req, gone);
    cas__loop_leave();
}

static void disconnect(struct cas__lobby *l, struct cas__conn *c)
{
    cas__offload_forget(l, c);
    leave(l, c);
    unsubscribe(l, c);
}

void cas__lobby_disconnect(struct cas__lobby *l, struct cas__conn *c)
{
    cas__loop_enter();
    disconnect(l, c);
    cas__loop_leave();
}

void cas__lobby_news(struct cas__table *t)
{
    t->lobby->lobby_dirty = 1;
    cas__feed_relist(t->lobby, t);
}

void cas__lobby_queue(struct cas__lobby *l, struct cas__table *t)
{
    cas__tick_soon(l, t); /* what changed may have started or stopped a clock */
    cas__feed_moved(l, t); /* its ply, whose turn: the lobby's next change */
    if (t->queued)
        return;
    t->queued = 1;
    t->next_changed = NULL;
    if (l->changed_last)
        l->changed_last->next_changed = t;
    else
        l->changed = t;
    l->changed_last = t;
}

void cas__lobby_unqueue(struct cas__lobby *l, struct cas__table *t)
{
    struct cas__table *before = NULL;
    if (!t->queued)
        return;
    for (struct cas__table **p = &l->changed; *p; before = *p, p = &(*p)->next_changed)
        if (*p == t) {
            *p = t->next_changed;
            if (l->changed_last == t)
                l->changed_last = before;
            break;
        }
    t->queued = 0;
    t->next_changed = NULL;
}

static void flush_changed(struct cas__lobby *l)
{
    /* Only the tables changed since the last flush, in the order they
     * changed, each once; one that changes again meanwhile waits for the
     * next flush.  A table a job holds is skipped: the job's delivery
     * queues it again (offload.c). */
    struct cas__table *t = l->changed;
    l->changed = l->changed_last = NULL;
    while (t) {
        struct cas__table *next = t->next_changed;
        t->next_changed = NULL;
        t->queued = 0;
        cas__table_flush(t);
        if (!t->hold.held && t->owes_sleep && !t->opening) /* a job writes owes_sleep */
            cas__offload(t, CAS__OP_SLEEP);
        count_finished(l, t);
        t = next;
    }
    /* The lobby's change, or its whole list after news, at most once
     * per CAS__LOBBY_EVERY_MS, whatever changed meanwhile: games created,
     * joined and ended cost the lobby's connections one message a second,
     * not one each.  A later flush sends what waits (the loop flushes
     * after every turn, and turns at least every clock tick). */
    cas__feed_send(l);
    retire_finished(l);
}

void cas__lobby_flush(struct cas__lobby *l)
{
    cas__loop_enter();
    flush_changed(l);
    cas__loop_leave();
}
