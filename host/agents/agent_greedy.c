/*
 * agent_greedy.c — the greedy bot: best immediate score.
 *
 * Each legal action is tried on a copy of the state and valued as the
 * player's own return minus the best opponent's.  When the same player
 * decides again right after (a Carcassonne turn: place a tile, then deploy
 * or pass), the bot follows its own best continuation, up to
 * GREEDY_DEPTH decisions in all, before it values the position: a placement
 * only scores once the turn is complete.  Chance and opponents' decisions
 * are never looked through.  Equal values are broken uniformly with the
 * player's PRNG stream at this ply, so the bot replays exactly.
 */
#include "agent.h"
#include "prng.h"

#include <inttypes.h>
#include <stdlib.h>

#define GREEDY_DEPTH 3
#define GREEDY_MAX_PLAYERS 64

struct greedy_search {
    struct cas__match *m;
    int player;
    cas_state *scratch[GREEDY_DEPTH]; /* one working state per depth */
    struct cas__actions lists[GREEDY_DEPTH];
};

/* Own return minus the best opponent's, in `state`. */
static int value_of(struct greedy_search *g, const cas_state *state, int64_t *value)
{
    int64_t scores[GREEDY_MAX_PLAYERS];
    int n = g->m->nplayers;
    if (n > GREEDY_MAX_PLAYERS)
        return CAS_EINVAL;
    int rc = g->m->vt->returns(state, scores, (size_t)n);
    if (rc != CAS_OK)
        return rc;
    int64_t best_other = 0;
    int seen_other = 0;
    for (int p = 0; p < n; p++)
        if (p != g->player && (!seen_other || scores[p] > best_other)) {
            best_other = scores[p];
            seen_other = 1;
        }
    *value = scores[g->player] - best_other;
    return CAS_OK;
}

/* Value of playing `action` in `state`: apply it on scratch[depth] and
 * follow the player's own next decisions while they last. */
static int value_after(struct greedy_search *g, const cas_state *state,
                       cas_action action, int depth, int64_t *value)
{
    const struct cas_game_vtable *vt = g->m->vt;
    cas_state *work = g->scratch[depth];
    int rc = vt->state_copy(work, state);
    if (rc == CAS_OK)
        rc = vt->apply(work, action, NULL);
    if (rc != CAS_OK)
        return rc;
    if (depth + 1 >= GREEDY_DEPTH || cas__match_current(g->m, work) != g->player)
        return value_of(g, work, value);
    struct cas__actions *list = &g->lists[depth + 1];
    rc = cas__match_legal(g->m, work, list);
    if (rc == CAS_OK && list->count == 0)
        return value_of(g, work, value);
    for (size_t i = 0; rc == CAS_OK && i < list->count; i++) {
        int64_t v;
        rc = value_after(g, work, list->items[i], depth + 1, &v);
        if (rc == CAS_OK && (i == 0 || v > *value))
            *value = v;
    }
    return rc;
}

static int greedy_pick(struct greedy_search *g, const struct cas__decision *d,
                       cas_action *out)
{
    size_t n = d->legal->count, n_best = 0;
    size_t *best = malloc(n * sizeof *best);
    int64_t best_value = 0;
    int rc = best ? CAS_OK : CAS_ENOMEM;
    for (size_t i = 0; rc == CAS_OK && i < n; i++) {
        int64_t v;
        rc = value_after(g, d->state, d->legal->items[i], 0, &v);
        if (rc != CAS_OK)
            break;
        if (n_best == 0 || v > best_value) {
            best_value = v;
            n_best = 0;
        }
        if (v == best_value)
            best[n_best++] = i;
    }
    if (rc == CAS_OK) {
        struct cas__prng r;
        cas__prng_init(&r, d->seed, d->ply, CAS__STREAM_PLAYER(d->player));
        *out = d->legal->items[best[cas__prng_below(&r, n_best)]];
    }
    free(best);
    return rc;
}

static int search_begin(struct greedy_search *g, const struct cas__decision *d)
{
    *g = (struct greedy_search){.m = d->match, .player = d->player};
    int rc = d->legal->count ? CAS_OK : CAS_EINVAL;
    for (int i = 0; rc == CAS_OK && i < GREEDY_DEPTH; i++)
        rc = d->match->vt->state_clone(d->state, &g->scratch[i]);
    return rc;
}

static void search_end(struct greedy_search *g)
{
    for (int i = 0; i < GREEDY_DEPTH; i++) {
        g->m->vt->state_free(g->scratch[i]);
        cas__actions_free(&g->lists[i]);
    }
}

static int greedy_choose(struct cas__agent *agent, const struct cas__decision *d,
                         cas_action *out)
{
    (void)agent;
    struct greedy_search g;
    int rc = search_begin(&g, d);
    if (rc == CAS_OK)
        rc = greedy_pick(&g, d, out);
    search_end(&g);
    return rc;
}

/* "it leaves you +4 against the best opponent after your move (+0 now;
 * the best other choice, +2)". */
static int greedy_explain(struct cas__agent *agent, const struct cas__decision *d,
                          cas_action action, char *buf, size_t cap)
{
    (void)agent;
    struct greedy_search g;
    int64_t now = 0, chosen = 0, other = 0;
    int has_other = 0;
    int rc = search_begin(&g, d);
    if (rc == CAS_OK)
        rc = value_of(&g, d->state, &now);
    for (size_t i = 0; rc == CAS_OK && i < d->legal->count; i++) {
        int64_t v;
        rc = value_after(&g, d->state, d->legal->items[i], 0, &v);
        if (rc == CAS_OK && d->legal->items[i] == action)
            chosen = v;
        else if (rc == CAS_OK && (!has_other || v > other)) {
            other = v;
            has_other = 1;
        }
    }
    search_end(&g);
    if (rc != CAS_OK)
        return rc;
    int n = snprintf(buf, cap, "it leaves you %+" PRId64 " against the best opponent after "
                     "your move (%+" PRId64 " now", chosen, now);
    if (has_other && n >= 0 && (size_t)n < cap)
        n += snprintf(buf + n, cap - (size_t)n, "; the best other choice, %+" PRId64, other);
    if (n >= 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, ")");
    return CAS_OK;
}

static const struct cas__agent_ops greedy_ops = {
    .kind = "greedy", .choose = greedy_choose, .free = cas__agent_plain_free,
    .explain = greedy_explain,
};

int cas__agent_greedy_new(struct cas__agent **out)
{
    return cas__agent_plain_new(&greedy_ops, out);
}
