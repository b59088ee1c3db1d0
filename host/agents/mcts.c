/*
 * mcts.c — the search behind the mcts agent: trees of actions (no states),
 * iterations of select / expand / playout / back-up, root or tree
 * parallelization over pthreads, and reuse of the subtree of the next
 * position.
 */
#include "mcts.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "prng.h"

#define NONE UINT32_MAX
#define MAX_NODES (1u << 21)     /* per tree: past it, iterations stop growing it */
#define MAX_PLAYOUT 1000000u     /* actions: a game longer than this is a plugin bug */
#define REUSE_DEPTH 16           /* how deep the next position is looked for */
#define MAX_PLAYERS 64
#define TIME_CHECK_EVERY 8       /* iterations between clock readings */
#define SPIN_TURNS 4000          /* looks at the turn before sleeping on it */
#define RING_CLOSED UINT64_MAX   /* the turn before tree-parallel workers may start */
/* The share of a +margin reward that is the score margin, the rest the win. */
#define MARGIN_WEIGHT 0.25

/* One edge and the position it leads to.  Children are a sibling list
 * sorted by action, so they merge with sorted legal-action lists. */
struct node {
    cas_action action;   /* from the parent */
    uint64_t hash;       /* of the state reached (reuse only; 0 unknown) */
    double reward;       /* sum, for the player who chose `action` */
    uint32_t visits;
    uint32_t avail;      /* parent visits in which `action` was legal */
    uint32_t child, sibling;
    uint32_t n_children;
    uint32_t n_legal;    /* perfect information: legal actions here, 0 unknown */
};

struct tree {
    struct node *nodes;  /* nodes[0] is the root */
    size_t n, cap;
    const cas_game *game;/* the game the tree was grown for */
};

struct worker {
    struct cas__mcts *search;
    const struct cas__decision *d;
    struct tree tree;    /* its own (root parallelization; worker 0's is shared) */
    struct tree *t;      /* the tree it grows: its own, or worker 0's */
    unsigned index;
    cas_state *root, *work, *scratch; /* only during a search */
    struct cas__actions list;
    struct cas__prng rng;
    uint64_t budget, done;
    double deadline;
    int rc;
    uint32_t *path;      /* nodes of this iteration, root first */
    int *path_actor;     /* who chose path[i] (the actor at path[i - 1]) */
    size_t path_cap, depth;
    int64_t scores[MAX_PLAYERS];
    double rewards[MAX_PLAYERS];
};

/* Tree parallelization's turns: each round every worker in index order
 * descends the shared tree (turn 2kr + i), then in the same order backs its
 * playout up (turn 2kr + k + i), so the tree goes through the same states
 * for a seed whatever the scheduling; playouts run in between, in
 * parallel.  stop is only read and written by the worker whose turn it is. */
struct ring {
    pthread_mutex_t lock;
    pthread_cond_t moved;
    atomic_uint_fast64_t turn;
    unsigned sleepers;
    int stop;
};

struct cas__mcts {
    struct cas__mcts_params params;
    struct worker *workers;  /* params.threads of them */
    struct cas__mcts_stats last;
    struct ring ring;        /* tree parallelization only */
    uint64_t total;          /* the decision's iteration budget, all workers */
};

/* ------------------------------------------------------------ params */

unsigned cas__mcts_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1u;
}

void cas__mcts_level(enum cas__agent_level level, unsigned threads,
                     struct cas__mcts_params *out)
{
    static const uint64_t iterations[] = {0, 200, 1000, 5000};
    *out = (struct cas__mcts_params){
        .iterations = iterations[level],
        .threads = threads ? threads : cas__mcts_cores(),
        .exploration = 0.7,
        .rollout = CAS__ROLLOUT_RANDOM,
        .rollout_limit = level == CAS__LEVEL_EASY ? 0 : 20,
        .reuse = 1,
        .parallel = CAS__PARALLEL_ROOT,
        .reward = CAS__REWARD_MARGIN,
    };
}

void cas__mcts_from_spec(const struct cas__agent_spec *spec, struct cas__mcts_params *out)
{
    cas__mcts_level(spec->level, spec->threads, out);
    if (spec->iterations)
        out->iterations = spec->iterations;
    if (spec->millis) {
        out->millis = spec->millis;
        out->iterations = 0;
    }
    if (spec->rollout)
        out->rollout = spec->rollout;
    if (spec->parallel)
        out->parallel = spec->parallel;
    if (spec->reward)
        out->reward = spec->reward;
}

static double now_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* -------------------------------------------------------------- trees */

static int tree_reserve(struct tree *t, size_t need)
{
    if (need <= t->cap)
        return CAS_OK;
    size_t cap = t->cap ? t->cap : 1024;
    while (cap < need)
        cap *= 2;
    struct node *nodes = realloc(t->nodes, cap * sizeof *nodes);
    if (!nodes)
        return CAS_ENOMEM;
    t->nodes = nodes;
    t->cap = cap;
    return CAS_OK;
}

static void tree_reset(struct tree *t, const cas_game *game, uint64_t hash)
{
    t->n = 1;
    t->game = game;
    t->nodes[0] = (struct node){.hash = hash, .child = NONE, .sibling = NONE};
}

/* A new child of `parent` for `action`, inserted after `before` (NONE: as
 * the first child) to keep the list sorted.  NONE when the tree is full. */
static uint32_t add_child(struct tree *t, uint32_t parent, uint32_t before, cas_action action)
{
    if (t->n >= MAX_NODES || tree_reserve(t, t->n + 1) != CAS_OK)
        return NONE;
    uint32_t i = (uint32_t)t->n++;
    uint32_t *link = before == NONE ? &t->nodes[parent].child : &t->nodes[before].sibling;
    t->nodes[i] = (struct node){.action = action, .child = NONE, .sibling = *link};
    *link = i;
    t->nodes[parent].n_children++;
    return i;
}

/* The child of `parent` for `action`; *before gets the last child with a
 * smaller action (NONE if none), where a new one would go. */
static uint32_t find_child(const struct tree *t, uint32_t parent, cas_action action,
                           uint32_t *before)
{
    *before = NONE;
    for (uint32_t c = t->nodes[parent].child; c != NONE; c = t->nodes[c].sibling) {
        if (t->nodes[c].action == action)
            return c;
        if (t->nodes[c].action > action)
            break;
        *before = c;
    }
    return NONE;
}

/* Copy the subtree under `top` of `from` into `to` as its whole tree. */
static int copy_subtree(const struct tree *from, uint32_t top, struct tree *to)
{
    /* nodes are copied in the order of a stack walk; map[i] is where
     * from's node i went */
    uint32_t *map = malloc(from->n * sizeof *map);
    uint32_t *stack = malloc(from->n * sizeof *stack);
    int rc = map && stack ? tree_reserve(to, from->n) : CAS_ENOMEM;
    size_t depth = 0;
    to->n = 0;
    if (rc == CAS_OK)
        stack[depth++] = top;
    while (rc == CAS_OK && depth > 0) {
        uint32_t i = stack[--depth];
        map[i] = (uint32_t)to->n;
        to->nodes[to->n++] = from->nodes[i];
        for (uint32_t c = from->nodes[i].child; c != NONE; c = from->nodes[c].sibling)
            stack[depth++] = c;
    }
    for (size_t j = 0; rc == CAS_OK && j < to->n; j++) {
        struct node *n = &to->nodes[j];
        n->child = n->child == NONE ? NONE : map[n->child];
        n->sibling = n->sibling == NONE ? NONE : map[n->sibling];
    }
    if (rc == CAS_OK)
        to->nodes[0].sibling = NONE;
    free(map);
    free(stack);
    return rc;
}

/* Make the node of the position hashed `hash` the root, if the last search
 * reached it within REUSE_DEPTH; otherwise start afresh.  Returns the root
 * visits kept. */
static uint64_t tree_rebase(struct tree *t, const cas_game *game, uint64_t hash, int reuse)
{
    uint32_t found = NONE;
    if (reuse && t->n > 0 && t->game == game) {
        /* breadth first, so the shallowest match wins */
        uint32_t *queue = malloc(t->n * sizeof *queue);
        uint8_t *depth = malloc(t->n);
        size_t head = 0, tail = 0;
        if (queue && depth) {
            queue[tail] = 0;
            depth[tail++] = 0;
        }
        while (head < tail && found == NONE) {
            uint32_t i = queue[head];
            uint8_t level = depth[head++];
            if (t->nodes[i].hash == hash && t->nodes[i].visits > 0)
                found = i;
            for (uint32_t c = t->nodes[i].child; c != NONE && level < REUSE_DEPTH;
                 c = t->nodes[c].sibling) {
                queue[tail] = c;
                depth[tail++] = (uint8_t)(level + 1);
            }
        }
        free(queue);
        free(depth);
    }
    if (found != NONE) {
        struct tree kept = {0};
        if (copy_subtree(t, found, &kept) == CAS_OK) {
            free(t->nodes);
            *t = kept;
            t->game = game;
            return t->nodes[0].visits;
        }
        free(kept.nodes);
    }
    if (tree_reserve(t, 1) == CAS_OK)
        tree_reset(t, game, hash);
    return 0;
}

/* ------------------------------------------------------------ playing */

/* A chance outcome of `state`, drawn by weight: by a ticket the plugin
 * turns into the outcome when it can (chance_pick, ABI 1.1), else by
 * walking the listed weights with the same ticket, so the same outcome. */
static int draw_chance(struct worker *w, const cas_state *state, cas_action *out)
{
    size_t index;
    struct cas__match *m = w->d->match;
    if (cas__match_picks_chance(m)) {
        uint64_t total = m->vt->chance_total(state);
        if (total == 0)
            return CAS_EINVAL;
        return m->vt->chance_pick(state, cas__prng_below(&w->rng, total), out);
    }
    int rc = cas__match_outcomes(m, state, &w->list);
    if (rc == CAS_OK)
        rc = cas__prng_pick_weighted(&w->rng, w->list.outcomes, w->list.n_outcomes, &index);
    if (rc == CAS_OK)
        *out = w->list.outcomes[index].action;
    return rc;
}

/* Own return minus the best other's, for `player` in `state`. */
static int margin_of(struct worker *w, const cas_state *state, int player, int64_t *out)
{
    int n = w->d->match->nplayers;
    int rc = w->d->match->vt->returns(state, w->scores, (size_t)n);
    int64_t best_other = INT64_MIN;
    for (int p = 0; p < n; p++)
        if (p != player && w->scores[p] > best_other)
            best_other = w->scores[p];
    *out = w->scores[player] - (n > 1 ? best_other : 0);
    return rc;
}

/* The greedy playout's choice for `actor` among w->list: the best margin
 * right after the action, ties broken uniformly. */
static int greedy_action(struct worker *w, int actor, cas_action *out)
{
    const struct cas_game_vtable *vt = w->d->match->vt;
    int64_t best = INT64_MIN;
    uint64_t ties = 0;
    for (size_t i = 0; i < w->list.count; i++) {
        int64_t v;
        int rc = vt->state_copy(w->scratch, w->work);
        if (rc == CAS_OK)
            rc = vt->apply(w->scratch, w->list.items[i], NULL);
        if (rc == CAS_OK)
            rc = margin_of(w, w->scratch, actor, &v);
        if (rc != CAS_OK)
            return rc;
        if (v > best) {
            best = v;
            ties = 0;
        }
        if (v == best && cas__prng_below(&w->rng, ++ties) == 0)
            *out = w->list.items[i];
    }
    return CAS_OK;
}

/* Play w->work on to the end, or for rollout_limit actions when the plugin
 * projects returns; the final (or projected) returns into w->scores. */
static int playout(struct worker *w)
{
    struct cas__match *m = w->d->match;
    const struct cas_game_vtable *vt = m->vt;
    const struct cas__mcts_params *p = &w->search->params;
    int can_project = CAS_HAS_FIELD(vt, struct cas_game_vtable, projected_returns) &&
                      vt->projected_returns;
    int draws = cas__match_draws_actions(m); /* the same draw as from the listing */
    struct cas_rng rng = cas__prng_rng(&w->rng);
    int rc = CAS_OK;
    for (uint32_t steps = 0; rc == CAS_OK; steps++) {
        int actor = cas__match_current(m, w->work);
        cas_action action = 0;
        if (actor == CAS_ACTOR_TERMINAL)
            return vt->returns(w->work, w->scores, (size_t)m->nplayers);
        if (can_project && p->rollout_limit && steps >= p->rollout_limit)
            return vt->projected_returns(w->work, w->scores, (size_t)m->nplayers);
        if (steps >= MAX_PLAYOUT)
            return CAS_EINVAL;
        if (actor == CAS_ACTOR_CHANCE) {
            rc = draw_chance(w, w->work, &action);
        } else if (draws && p->rollout != CAS__ROLLOUT_GREEDY) {
            rc = vt->random_action(w->work, &rng, &action);
        } else {
            rc = cas__match_legal(m, w->work, &w->list);
            if (rc == CAS_OK && w->list.count == 0)
                rc = CAS_EINVAL;
            if (rc == CAS_OK && p->rollout == CAS__ROLLOUT_GREEDY)
                rc = greedy_action(w, actor, &action);
            else if (rc == CAS_OK)
                action = w->list.items[cas__prng_below(&w->rng, w->list.count)];
        }
        if (rc == CAS_OK)
            rc = vt->apply(w->work, action, NULL);
    }
    return rc;
}

/* A player's score margin over the best other as a share of both scores'
 * size, in [-1, 1]: scale-free, so no game knowledge is needed. */
static double relative_margin(const int64_t *scores, int n, int player)
{
    int64_t other = INT64_MIN;
    for (int p = 0; p < n; p++)
        if (p != player && scores[p] > other)
            other = scores[p];
    if (n < 2)
        return 0;
    double own = (double)scores[player], size = fabs(own) + fabs((double)other);
    return size > 0 ? (own - (double)other) / size : 0;
}

/* Scores into rewards in [0, 1]: a win is 1, a shared first place 1/k;
 * with +margin that counts 1 - MARGIN_WEIGHT and the relative margin, from
 * 0 (lost everything) to 1, counts MARGIN_WEIGHT. */
static void rewards_of(struct worker *w)
{
    int n = w->d->match->nplayers, tied = 0;
    int64_t best = INT64_MIN;
    for (int p = 0; p < n; p++)
        best = w->scores[p] > best ? w->scores[p] : best;
    for (int p = 0; p < n; p++)
        tied += w->scores[p] == best;
    for (int p = 0; p < n; p++)
        w->rewards[p] = w->scores[p] == best ? 1.0 / tied : 0.0;
    if (w->search->params.reward != CAS__REWARD_MARGIN)
        return;
    for (int p = 0; p < n; p++)
        w->rewards[p] = (1 - MARGIN_WEIGHT) * w->rewards[p] +
                        MARGIN_WEIGHT * (1 + relative_margin(w->scores, n, p)) / 2;
}

/* ---------------------------------------------------------- iterations */

static double ucb(const struct node *c, double exploration)
{
    if (c->visits == 0)
        return INFINITY;
    return c->reward / c->visits + exploration * sqrt(log((double)c->avail) / c->visits);
}

/* At a player's node: the child to follow, or a legal action not in the
 * tree yet (*child = the new node, *fresh = 1; NONE when the tree is full).
 * Every child legal now counts this visit as available. */
static int select_child(struct worker *w, uint32_t node, uint32_t *child, cas_action *action,
                        int *fresh)
{
    struct tree *t = w->t;
    double c = w->search->params.exploration, best = -INFINITY;
    int hidden = w->search->last.determinized;
    *fresh = 0;
    *child = NONE;
    if (!hidden && t->nodes[node].n_legal &&
        t->nodes[node].n_children == t->nodes[node].n_legal) {
        for (uint32_t k = t->nodes[node].child; k != NONE; k = t->nodes[k].sibling) {
            t->nodes[k].avail++;
            double v = ucb(&t->nodes[k], c);
            if (v > best) {
                best = v;
                *child = k;
            }
        }
        *action = t->nodes[*child].action;
        return CAS_OK;
    }
    int rc = cas__match_legal(w->d->match, w->work, &w->list);
    if (rc == CAS_OK && w->list.count == 0)
        rc = CAS_EINVAL;
    if (rc != CAS_OK)
        return rc;
    t->nodes[node].n_legal = (uint32_t)w->list.count;
    /* merge the sorted legal actions with the sorted children */
    size_t missing = 0;
    uint32_t k = t->nodes[node].child;
    for (size_t i = 0; i < w->list.count; i++) {
        while (k != NONE && t->nodes[k].action < w->list.items[i])
            k = t->nodes[k].sibling;
        if (k == NONE || t->nodes[k].action != w->list.items[i]) {
            missing++;
            continue;
        }
        t->nodes[k].avail++;
        double v = ucb(&t->nodes[k], c);
        if (v > best) {
            best = v;
            *child = k;
        }
    }
    if (missing == 0) {
        *action = t->nodes[*child].action;
        return CAS_OK;
    }
    /* expand a legal action not tried yet, chosen uniformly */
    uint64_t pick = cas__prng_below(&w->rng, missing);
    for (size_t i = 0; i < w->list.count; i++) {
        uint32_t before;
        if (find_child(t, node, w->list.items[i], &before) != NONE || pick-- > 0)
            continue;
        *action = w->list.items[i];
        *child = add_child(t, node, before, *action);
        if (*child != NONE)
            t->nodes[*child].avail = 1;
        *fresh = 1;
        return CAS_OK;
    }
    return CAS_EINVAL; /* unreachable: pick < missing */
}

/* At a chance node: an outcome drawn by weight, and its child. */
static int chance_child(struct worker *w, uint32_t node, uint32_t *child, cas_action *action,
                        int *fresh)
{
    uint32_t before;
    int rc = draw_chance(w, w->work, action);
    if (rc != CAS_OK)
        return rc;
    *child = find_child(w->t, node, *action, &before);
    *fresh = *child == NONE;
    if (*fresh)
        *child = add_child(w->t, node, before, *action);
    return CAS_OK;
}

static int grow_path(struct worker *w, size_t need)
{
    if (need <= w->path_cap)
        return CAS_OK;
    size_t cap = w->path_cap ? w->path_cap * 2 : 256;
    uint32_t *path = realloc(w->path, cap * sizeof *path);
    if (path)
        w->path = path;
    int *actors = path ? realloc(w->path_actor, cap * sizeof *actors) : NULL;
    if (actors)
        w->path_actor = actors;
    if (!actors)
        return CAS_ENOMEM;
    w->path_cap = cap;
    return CAS_OK;
}

/* The iteration's root state into w->work: a fresh determinization when
 * the game hides state, else the position itself.  Touches no tree. */
static int start_state(struct worker *w)
{
    const struct cas__decision *d = w->d;
    const struct cas_game_vtable *vt = d->match->vt;
    if (w->search->last.determinized) {
        struct cas_rng rng = cas__prng_rng(&w->rng);
        return vt->determinize(d->state, d->player, &rng, w->work);
    }
    return vt->state_copy(w->work, w->root);
}

/* From the root down the tree to a new node (or the end of the game, or a
 * full tree), the path into w->path.  Each node passed counts its visit at
 * once: in a shared tree that visit, not yet rewarded, is the virtual loss
 * that steers the other workers elsewhere until back_up. */
static int descend(struct worker *w)
{
    const struct cas_game_vtable *vt = w->d->match->vt;
    struct tree *t = w->t;
    int reuse = w->search->params.reuse && !w->search->last.determinized;
    uint32_t node = 0;
    int fresh = 0;
    int rc = grow_path(w, 1);
    w->depth = 0;
    if (rc == CAS_OK) {
        w->path[w->depth++] = 0;
        t->nodes[0].visits++;
    }
    while (rc == CAS_OK && !fresh) {
        int actor = cas__match_current(w->d->match, w->work);
        uint32_t child;
        cas_action action;
        if (actor == CAS_ACTOR_TERMINAL)
            break;
        rc = actor == CAS_ACTOR_CHANCE ? chance_child(w, node, &child, &action, &fresh)
                                       : select_child(w, node, &child, &action, &fresh);
        if (rc == CAS_OK)
            rc = vt->apply(w->work, action, NULL);
        if (rc != CAS_OK || child == NONE)
            break; /* a full tree: play on from here without a node */
        if (fresh && reuse)
            t->nodes[child].hash = vt->hash(w->work);
        rc = grow_path(w, w->depth + 1);
        if (rc == CAS_OK) {
            w->path_actor[w->depth] = actor;
            w->path[w->depth++] = child;
            t->nodes[child].visits++;
            node = child;
        }
    }
    return rc;
}

/* The rewards of the playout in w->scores added along w->path. */
static void back_up(struct worker *w)
{
    rewards_of(w);
    for (size_t i = 1; i < w->depth; i++)
        if (w->path_actor[i] >= 0)
            w->t->nodes[w->path[i]].reward += w->rewards[w->path_actor[i]];
}

/* One iteration on the worker's own tree. */
static int iterate(struct worker *w)
{
    int rc = start_state(w);
    if (rc == CAS_OK)
        rc = descend(w);
    if (rc == CAS_OK)
        rc = playout(w);
    if (rc == CAS_OK)
        back_up(w);
    return rc;
}

/* Root parallelization, or a single thread: iterations on its own tree. */
static void *run_worker(void *arg)
{
    struct worker *w = arg;
    int timed = w->search->params.millis != 0;
    w->done = 0;
    while (w->rc == CAS_OK) {
        if (timed ? w->done % TIME_CHECK_EVERY == 0 && w->done > 0 &&
                        now_seconds() >= w->deadline
                  : w->done >= w->budget)
            break;
        w->rc = iterate(w);
        w->done++;
    }
    return NULL;
}

/* ------------------------------------------------ tree parallelization */

/* Wait for `turn`: looking for a while (the other worker is usually
 * about to pass it), then asleep. */
static void wait_turn(struct ring *r, uint64_t turn)
{
    for (int i = 0; i < SPIN_TURNS; i++)
        if (atomic_load_explicit(&r->turn, memory_order_acquire) == turn)
            return;
    pthread_mutex_lock(&r->lock);
    r->sleepers++;
    while (atomic_load_explicit(&r->turn, memory_order_acquire) != turn)
        pthread_cond_wait(&r->moved, &r->lock);
    r->sleepers--;
    pthread_mutex_unlock(&r->lock);
}

static void pass_turn(struct ring *r)
{
    pthread_mutex_lock(&r->lock);
    atomic_fetch_add_explicit(&r->turn, 1, memory_order_release);
    if (r->sleepers)
        pthread_cond_broadcast(&r->moved);
    pthread_mutex_unlock(&r->lock);
}

/* Whether worker w, in its descent turn of `round`, ends the search: the
 * iteration budget is spent, or (worker 0, which decides for the round)
 * the time is up. */
static int round_ends(struct worker *w, uint64_t round)
{
    struct cas__mcts *s = w->search;
    uint64_t k = s->params.threads;
    if (s->params.millis)
        return w->index == 0 && round > 0 && now_seconds() >= w->deadline;
    return round * k + w->index >= s->total;
}

/* Tree parallelization: worker w's part of every round on the shared tree
 * (struct ring says in which order).  A worker that stops, or fails, sets
 * ring.stop in its turn; every later turn then only passes on. */
static void *run_tree_worker(void *arg)
{
    struct worker *w = arg;
    struct cas__mcts *s = w->search;
    struct ring *r = &s->ring;
    uint64_t k = s->params.threads;
    w->done = 0;
    for (uint64_t round = 0;; round++) {
        uint64_t base = 2 * k * round;
        int rc = start_state(w);
        wait_turn(r, base + w->index);
        if (r->stop || round_ends(w, round) || rc != CAS_OK) {
            r->stop = 1;
            w->rc = rc;
            pass_turn(r);
            return NULL;
        }
        rc = descend(w);
        r->stop |= rc != CAS_OK;
        pass_turn(r);
        if (rc == CAS_OK)
            rc = playout(w);
        wait_turn(r, base + k + w->index);
        if (rc == CAS_OK)
            back_up(w);
        r->stop |= rc != CAS_OK;
        w->rc = rc;
        w->done += rc == CAS_OK;
        int stop = r->stop;
        pass_turn(r);
        if (stop)
            return NULL;
    }
}

/* ------------------------------------------------------------- search */

/* Whether the workers grow one tree together (worker 0's). */
static int shares_tree(const struct cas__mcts *s)
{
    return s->params.parallel == CAS__PARALLEL_TREE && s->params.threads > 1;
}

/* The trees to read the root of: every worker's, or the shared one. */
static unsigned n_trees(const struct cas__mcts *s)
{
    return shares_tree(s) ? 1 : s->params.threads;
}

int cas__mcts_new(const struct cas__mcts_params *params, struct cas__mcts **out)
{
    *out = NULL;
    if (params->threads == 0 || params->threads > CAS__MCTS_MAX_THREADS ||
        (params->iterations == 0 && params->millis == 0) ||
        (params->rollout != CAS__ROLLOUT_RANDOM && params->rollout != CAS__ROLLOUT_GREEDY) ||
        (params->parallel != CAS__PARALLEL_ROOT && params->parallel != CAS__PARALLEL_TREE) ||
        (params->reward != CAS__REWARD_WIN && params->reward != CAS__REWARD_MARGIN))
        return CAS_EINVAL;
    struct cas__mcts *s = calloc(1, sizeof *s);
    if (s)
        s->workers = calloc(params->threads, sizeof *s->workers);
    if (!s || !s->workers) {
        free(s);
        return CAS_ENOMEM;
    }
    s->params = *params;
    pthread_mutex_init(&s->ring.lock, NULL);
    pthread_cond_init(&s->ring.moved, NULL);
    for (unsigned i = 0; i < params->threads; i++) {
        struct worker *w = &s->workers[i];
        w->search = s;
        w->index = i;
        w->t = shares_tree(s) ? &s->workers[0].tree : &w->tree;
    }
    *out = s;
    return CAS_OK;
}

void cas__mcts_free(struct cas__mcts *s)
{
    if (!s)
        return;
    for (unsigned i = 0; i < s->params.threads; i++) {
        free(s->workers[i].tree.nodes);
        free(s->workers[i].path);
        free(s->workers[i].path_actor);
        cas__actions_free(&s->workers[i].list);
    }
    free(s->workers);
    pthread_mutex_destroy(&s->ring.lock);
    pthread_cond_destroy(&s->ring.moved);
    free(s);
}

const struct cas__mcts_stats *cas__mcts_last(const struct cas__mcts *s)
{
    return &s->last;
}

/* Worker w's states and budget for decision d. */
static int prepare(struct worker *w, const struct cas__decision *d, uint64_t hash,
                   double deadline)
{
    const struct cas__mcts_params *p = &w->search->params;
    const struct cas_game_vtable *vt = d->match->vt;
    w->d = d;
    w->rc = CAS_OK;
    w->deadline = deadline;
    w->budget = p->iterations / p->threads + (w->index < p->iterations % p->threads);
    cas__prng_init(&w->rng, d->seed, d->ply, CAS__STREAM_PLAYER(d->player));
    cas__prng_fork(&w->rng, w->index);
    if (w->t == &w->tree)
        w->search->last.reused += tree_rebase(w->t, d->match->game, hash,
                                              p->reuse && !w->search->last.determinized);
    int rc = w->t->n ? CAS_OK : CAS_ENOMEM;
    /* the real state is copied only for a game that hides nothing */
    if (rc == CAS_OK && !w->search->last.determinized)
        rc = vt->state_clone(d->state, &w->root);
    if (rc == CAS_OK)
        rc = vt->state_clone(d->state, &w->work);
    if (rc == CAS_OK && p->rollout == CAS__ROLLOUT_GREEDY)
        rc = vt->state_clone(d->state, &w->scratch);
    return rc;
}

static void release_states(struct worker *w, const struct cas_game_vtable *vt)
{
    vt->state_free(w->root);
    vt->state_free(w->work);
    vt->state_free(w->scratch);
    w->root = w->work = w->scratch = NULL;
}

/* Run every worker, on threads when there are several. */
static int run_workers(struct cas__mcts *s)
{
    unsigned n = s->params.threads, started = 0;
    void *(*run)(void *) = shares_tree(s) ? run_tree_worker : run_worker;
    pthread_t *threads = n > 1 ? calloc(n, sizeof *threads) : NULL;
    /* no turn is taken until every thread runs: one that cannot be started
     * would otherwise leave the others waiting for its turn forever */
    atomic_store(&s->ring.turn, RING_CLOSED);
    s->ring.stop = 0;
    if (n == 1) {
        run_worker(&s->workers[0]);
        return s->workers[0].rc;
    }
    if (!threads)
        return CAS_ENOMEM;
    int rc = CAS_OK;
    for (; started < n; started++)
        if (pthread_create(&threads[started], NULL, run, &s->workers[started]) != 0) {
            rc = CAS_ENOMEM;
            break;
        }
    pthread_mutex_lock(&s->ring.lock);
    s->ring.stop = rc != CAS_OK; /* those started pass their turns and end */
    atomic_store(&s->ring.turn, 0);
    pthread_cond_broadcast(&s->ring.moved);
    pthread_mutex_unlock(&s->ring.lock);
    for (unsigned i = 0; i < started; i++)
        pthread_join(threads[i], NULL);
    free(threads);
    for (unsigned i = 0; rc == CAS_OK && i < n; i++)
        rc = s->workers[i].rc;
    return rc;
}

/* The legal action most visited over every tree's root; ties go to the
 * higher reward, then to the first listed. */
static cas_action most_visited(struct cas__mcts *s, const struct cas__decision *d)
{
    size_t best = 0;
    uint64_t best_visits = 0;
    double best_reward = -1;
    for (size_t i = 0; i < d->legal->count; i++) {
        uint64_t visits = 0;
        double reward = 0;
        for (unsigned k = 0; k < n_trees(s); k++) {
            struct tree *t = &s->workers[k].tree;
            uint32_t before, c = find_child(t, 0, d->legal->items[i], &before);
            if (c != NONE) {
                visits += t->nodes[c].visits;
                reward += t->nodes[c].reward;
            }
        }
        if (visits > best_visits || (visits == best_visits && reward > best_reward)) {
            best = i;
            best_visits = visits;
            best_reward = reward;
        }
    }
    return d->legal->items[best];
}

int cas__mcts_choose(struct cas__mcts *s, const struct cas__decision *d, cas_action *out)
{
    const struct cas_game_vtable *vt = d->match->vt;
    if (d->legal->count == 0 || d->match->nplayers > MAX_PLAYERS)
        return CAS_EINVAL;
    double start = now_seconds();
    s->last = (struct cas__mcts_stats){
        .determinized = CAS_HAS_FIELD(vt, struct cas_game_vtable, determinize) &&
                        vt->determinize != NULL,
    };
    /* hidden state: the hash would tell positions apart that the player
     * cannot, so nothing is carried over */
    uint64_t hash = s->last.determinized ? 0 : vt->hash(d->state);
    double deadline = start + (double)s->params.millis / 1000.0;
    s->total = s->params.iterations;
    int rc = CAS_OK;
    for (unsigned i = 0; rc == CAS_OK && i < s->params.threads; i++)
        rc = prepare(&s->workers[i], d, hash, deadline);
    if (rc == CAS_OK)
        rc = run_workers(s);
    for (unsigned i = 0; i < s->params.threads; i++) {
        s->last.iterations += s->workers[i].done;
        s->last.nodes += i < n_trees(s) ? s->workers[i].tree.n : 0;
        release_states(&s->workers[i], vt);
    }
    if (rc == CAS_OK)
        *out = most_visited(s, d);
    s->last.seconds = now_seconds() - start;
    return rc;
}
