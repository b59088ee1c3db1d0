/*
 * club.c — the club's thread: reads the store on a connection of its own,
 * rates every finished game (by game and by mix), gathers the players, their
 * games and the campaigns into a snapshot, and hands it to the loop, which
 * renders the club's pages from it (club_html.c).  A finished game makes
 * the snapshot stale and starts the next; a snapshot older than a minute
 * is remade when a page is asked for (games finished at the terminal or on
 * another server, players added by the command line).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "club.h"
#include "club_snapshot.h"

/* Past this age a page asks for a new snapshot (and is served the old). */
#define SNAPSHOT_MAX_AGE_S 60

struct shared_snapshot {
    int refs;                      /* under the club's lock */
    time_t made;
    struct cas__club_snapshot s;
};

struct cas__club {
    char *database;
    const struct cas__host_saved *host_saved;
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    /* Snapshots asked for and made, counted; one asked for after a game
     * finished is `finished`. */
    unsigned long wanted, built, finished;
    int stop, last_rc;
    struct shared_snapshot *snap;
};

void cas__club_snapshot_free(struct cas__club_snapshot *s)
{
    cas__saves_results_free(s->results, s->n_results);
    cas__rating_pools_free(s->pools, s->n_pools);
    cas__rating_pools_free(s->mix, s->n_mix);
    cas__saves_registered_list_free(s->registered, s->n_registered);
    free(s->players);
    free(s->game_of);
    free(s->ranks);
    for (size_t i = 0; i < s->n_campaigns; i++) {
        free(s->campaigns[i].summary.name);
        free(s->campaigns[i].summary.last_played);
        cas__saves_standings_free(s->campaigns[i].standings, s->campaigns[i].n_standings);
    }
    free(s->campaigns);
    memset(s, 0, sizeof *s);
}

static int by_identity(const struct cas__club_player *x, const char *name, int bot)
{
    if (x->bot != bot)
        return x->bot - bot;
    return strcmp(x->name, name);
}

static int player_order(const void *a, const void *b)
{
    const struct cas__club_player *y = b;
    return by_identity(a, y->name, y->bot);
}

const struct cas__club_player *cas__club_find(const struct cas__club_snapshot *s,
                                              const char *name, int bot)
{
    size_t lo = 0, hi = s->n_players;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = by_identity(&s->players[mid], name, bot);
        if (c == 0)
            return &s->players[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

int cas__club_showable(const struct cas__saves_result *r, const struct cas__host_saved *h)
{
    if (r->served || (h && h->all))
        return 1;
    for (size_t i = 0; h && i < h->n; i++)
        if (h->ids[i] == r->id)
            return 1;
    return 0;
}

/* One seat of a finished game: whose it is, and which game. */
struct seat_ref {
    const char *name;
    int bot;
    size_t game;
};

static int seat_order(const void *a, const void *b)
{
    const struct seat_ref *x = a, *y = b;
    if (x->bot != y->bot)
        return x->bot - y->bot;
    int c = strcmp(x->name, y->name);
    if (c)
        return c;
    return (x->game < y->game) - (x->game > y->game); /* newest first */
}

/* The players of the seats of s->results, each with their games (a player
 * in two seats of one game counts it once), newest first. */
static int gather_seats(struct cas__club_snapshot *s, size_t *n_players)
{
    size_t n_seats = 0;
    for (size_t g = 0; g < s->n_results; g++)
        n_seats += s->results[g].n_players;
    struct seat_ref *seats = malloc((n_seats ? n_seats : 1) * sizeof *seats);
    s->game_of = malloc((n_seats ? n_seats : 1) * sizeof *s->game_of);
    s->players = calloc(n_seats + s->n_registered + 1, sizeof *s->players);
    if (!seats || !s->game_of || !s->players) {
        free(seats);
        return CAS_ENOMEM;
    }
    size_t at = 0;
    for (size_t g = 0; g < s->n_results; g++)
        for (size_t i = 0; i < s->results[g].n_players; i++) {
            const struct cas__saves_player *p = &s->results[g].players[i];
            seats[at++] = (struct seat_ref){cas__rating_identity(p), cas__rating_is_bot(p), g};
        }
    if (n_seats)
        qsort(seats, n_seats, sizeof *seats, seat_order);
    size_t n = 0, games = 0;
    for (size_t i = 0; i < n_seats; i++) {
        struct cas__club_player *p = n ? &s->players[n - 1] : NULL;
        if (!p || by_identity(p, seats[i].name, seats[i].bot) != 0) {
            p = &s->players[n++];
            p->name = seats[i].name;
            p->bot = seats[i].bot;
            p->first_game = games;
            p->last_seen = s->results[seats[i].game].finished;
        } else if (s->game_of[games - 1] == seats[i].game) {
            continue;
        }
        s->game_of[games++] = seats[i].game;
        p->games++;
    }
    free(seats);
    *n_players = n;
    return CAS_OK;
}

/* The registered players among them, and those who never finished a game;
 * then every player's rank in each game pool. */
static int gather_players(struct cas__club_snapshot *s)
{
    size_t n;
    int rc = gather_seats(s, &n);
    if (rc)
        return rc;
    s->n_players = n;
    for (size_t i = 0; i < s->n_registered; i++) {
        struct cas__saves_registered *r = &s->registered[i];
        struct cas__club_player *p = (struct cas__club_player *)cas__club_find(s, r->name, 0);
        if (!p) {
            p = &s->players[n++];
            p->name = r->name;
            p->first_game = 0;
        }
        p->reg = r;
        if (r->last_seen && (!p->last_seen || strcmp(r->last_seen, p->last_seen) > 0))
            p->last_seen = r->last_seen;
    }
    s->n_players = n;
    if (n)
        qsort(s->players, n, sizeof *s->players, player_order);
    size_t n_ranks = n * s->n_pools;
    s->ranks = malloc((n_ranks ? n_ranks : 1) * sizeof *s->ranks);
    if (!s->ranks)
        return CAS_ENOMEM;
    for (size_t i = 0; i < n * s->n_pools; i++)
        s->ranks[i] = -1;
    for (size_t i = 0; i < n; i++)
        s->players[i].rank = &s->ranks[i * s->n_pools];
    for (size_t pool = 0; pool < s->n_pools; pool++)
        for (size_t j = 0; j < s->pools[pool].n_players; j++) {
            const struct cas__rated_player *r = &s->pools[pool].players[j];
            const struct cas__club_player *p = cas__club_find(s, r->name, r->bot);
            if (p)
                p->rank[pool] = (long)j;
        }
    return CAS_OK;
}

static int gather_campaigns(struct cas__saves *store, struct cas__club_snapshot *s)
{
    struct cas__saves_campaign *list;
    size_t n;
    int rc = cas__saves_campaigns(store, &list, &n);
    if (rc)
        return rc;
    s->campaigns = calloc(n ? n : 1, sizeof *s->campaigns);
    if (!s->campaigns) {
        cas__saves_campaigns_free(list, n);
        return CAS_ENOMEM;
    }
    for (size_t i = 0; i < n && rc == CAS_OK; i++) {
        struct cas__club_campaign *c = &s->campaigns[i];
        rc = cas__saves_campaign_standings(store, list[i].name, &c->summary, &c->standings,
                                           &c->n_standings);
        if (rc == CAS_OK)
            s->n_campaigns++;
    }
    cas__saves_campaigns_free(list, n);
    return rc;
}

static int rate(struct cas__club_snapshot *s)
{
    struct cas__ratings_query q = {.by = CAS__POOL_GAME};
    cas__rating_model_default(&q.model);
    int rc = cas__ratings_rate(s->results, s->n_results, &q, &s->pools, &s->n_pools);
    q.by = CAS__POOL_MIX;
    return rc ? rc : cas__ratings_rate(s->results, s->n_results, &q, &s->mix, &s->n_mix);
}

static int build(const char *database, struct cas__club_snapshot *s)
{
    struct cas__saves *store;
    char err[512];
    memset(s, 0, sizeof *s);
    int rc = cas__saves_open_read(database, &store, err, sizeof err);
    if (rc)
        return rc;
    rc = cas__saves_results(store, NULL, &s->results, &s->n_results);
    if (rc == CAS_OK)
        rc = cas__saves_registered_list(store, &s->registered, &s->n_registered);
    if (rc == CAS_OK)
        rc = gather_campaigns(store, s);
    cas__saves_close(store);
    if (rc == CAS_OK)
        rc = rate(s);
    if (rc == CAS_OK)
        rc = gather_players(s);
    if (rc)
        cas__club_snapshot_free(s);
    return rc;
}

static void snapshot_unref(struct cas__club *c, struct shared_snapshot *snap)
{
    if (!snap)
        return;
    pthread_mutex_lock(&c->lock);
    int last = --snap->refs == 0;
    pthread_mutex_unlock(&c->lock);
    if (last) {
        cas__club_snapshot_free(&snap->s);
        free(snap);
    }
}

static void *run(void *arg)
{
    struct cas__club *c = arg;
    pthread_mutex_lock(&c->lock);
    for (;;) {
        while (!c->stop && c->built == c->wanted)
            pthread_cond_wait(&c->cond, &c->lock);
        if (c->stop)
            break;
        unsigned long target = c->wanted;
        pthread_mutex_unlock(&c->lock);
        struct shared_snapshot *snap = calloc(1, sizeof *snap), *old = NULL;
        int rc = snap ? build(c->database, &snap->s) : CAS_ENOMEM;
        if (rc) {
            free(snap);
        } else {
            snap->refs = 1;
            snap->made = time(NULL);
        }
        pthread_mutex_lock(&c->lock);
        if (!rc) {
            old = c->snap;
            c->snap = snap;
        }
        c->last_rc = rc;
        c->built = target;
        pthread_cond_broadcast(&c->cond);
        pthread_mutex_unlock(&c->lock);
        snapshot_unref(c, old);
        pthread_mutex_lock(&c->lock);
    }
    pthread_mutex_unlock(&c->lock);
    return NULL;
}

int cas__club_new(const char *database, const struct cas__host_saved *host_saved,
                  struct cas__club **out)
{
    struct cas__club *c = calloc(1, sizeof *c);
    if (!c || !(c->database = strdup(database))) {
        free(c);
        return CAS_ENOMEM;
    }
    c->host_saved = host_saved;
    c->wanted = 1;
    pthread_mutex_init(&c->lock, NULL);
    pthread_cond_init(&c->cond, NULL);
    if (pthread_create(&c->thread, NULL, run, c) != 0) {
        pthread_cond_destroy(&c->cond);
        pthread_mutex_destroy(&c->lock);
        free(c->database);
        free(c);
        return CAS_EIO;
    }
    *out = c;
    return CAS_OK;
}

void cas__club_free(struct cas__club *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->lock);
    c->stop = 1;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
    pthread_join(c->thread, NULL);
    snapshot_unref(c, c->snap);
    pthread_cond_destroy(&c->cond);
    pthread_mutex_destroy(&c->lock);
    free(c->database);
    free(c);
}

void cas__club_stale(struct cas__club *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&c->lock);
    c->finished = ++c->wanted;
    pthread_cond_broadcast(&c->cond);
    pthread_mutex_unlock(&c->lock);
}

int cas__club_wait(struct cas__club *c)
{
    pthread_mutex_lock(&c->lock);
    while (c->built < c->wanted)
        pthread_cond_wait(&c->cond, &c->lock);
    int rc = c->last_rc;
    pthread_mutex_unlock(&c->lock);
    return rc;
}

/* The latest snapshot with a reference for the caller (NULL: none yet),
 * and whether a game finished since it was made.  An old one asks for the
 * next. */
static struct shared_snapshot *latest(struct cas__club *c, int *stale)
{
    pthread_mutex_lock(&c->lock);
    struct shared_snapshot *snap = c->snap;
    *stale = c->built < c->finished;
    if (snap) {
        snap->refs++;
        if (c->built == c->wanted && time(NULL) - snap->made > SNAPSHOT_MAX_AGE_S) {
            c->wanted++;
            pthread_cond_broadcast(&c->cond);
        }
    }
    pthread_mutex_unlock(&c->lock);
    return snap;
}

int cas__club_page(struct cas__club *c, const char *path, struct cas__club_answer *a)
{
    int stale;
    struct shared_snapshot *snap = latest(c, &stale);
    struct cas__jw w;
    cas__jw_init(&w);
    a->mime = "text/html; charset=utf-8";
    if (snap) {
        a->status = cas__club_render(&snap->s, c->host_saved, path, stale, &w);
    } else {
        a->status = 503;
        cas__club_render(NULL, NULL, path, 1, &w);
    }
    snapshot_unref(c, snap);
    a->body = w.b.failed ? NULL : strdup(cas__jw_text(&w));
    a->len = a->body ? strlen(a->body) : 0;
    cas__jw_free(&w);
    return a->body ? CAS_OK : CAS_ENOMEM;
}
