/*
 * scoring.c — points: majorities (a tie scores nothing), completed paths,
 * houses and towers during play with the doubling wall tiles, the keep,
 * the score track with its towers (a wall tile taken on an exact landing),
 * and the final scoring in the rulebook's order: the keep bonus,
 * incomplete features through wall tiles, courts, bonus points.
 */
#include <stdio.h>
#include <string.h>

#include "castle.h"

int majority(const cas_state *s, unsigned root)
{
    const struct node *n = &s->nodes[root];
    if (n->figs[0] == n->figs[1])
        return -1;
    return n->figs[0] > n->figs[1] ? 0 : 1;
}

static int per_tile(const struct node *n)
{
    switch (n->cls) {
    case C_PATH: return n->fountain ? 2 : 1;
    case C_HOUSE: return 1;
    case C_TOWER: return 2;
    default: return 0;
    }
}

int feature_points(const cas_state *s, unsigned root)
{
    return per_tile(&s->nodes[root]) * feature_tiles(s, root);
}

int usable(const cas_state *s, int p, int effect)
{
    const struct board *b = &s->game->board;
    int n = 0;
    for (int w = 1; w <= WALL_KINDS; w++)
        if (b->wall_copies[w] && b->wall_effect[w] == effect)
            n += s->p[p].held[w] - s->p[p].fresh[w];
    return n;
}

void use_wall_tile(cas_state *s, int p, int effect)
{
    const struct board *b = &s->game->board;
    for (int w = 1; w <= WALL_KINDS; w++)
        if (b->wall_copies[w] && b->wall_effect[w] == effect &&
            s->p[p].held[w] > s->p[p].fresh[w]) {
            s->p[p].held[w]--;
            return;
        }
}

/* Held wall tiles of `effect`, fresh or not (the end-of-game ones). */
static int held(const cas_state *s, int p, int effect, int *amount)
{
    const struct board *b = &s->game->board;
    int n = 0;
    for (int w = 1; w <= WALL_KINDS; w++)
        if (b->wall_copies[w] && b->wall_effect[w] == effect && s->p[p].held[w]) {
            n += s->p[p].held[w];
            *amount = b->wall_amount[w];
        }
    return n;
}

bool can_double(const cas_state *s, unsigned root)
{
    const struct node *n = &s->nodes[root];
    if (majority(s, root) != s->turn || (n->cls != C_HOUSE && n->cls != C_TOWER))
        return false;
    return usable(s, s->turn, n->cls == C_HOUSE ? W_DOUBLE_HOUSE : W_DOUBLE_TOWER) > 0;
}

void add_points(cas_state *s, int p, int points, bool landing)
{
    const struct board *b = &s->game->board;
    if (points <= 0)
        return;
    s->p[p].score += points;
    if (!landing)
        return;
    int pos = s->p[p].score % b->track;
    for (int t = 0; t < b->ntowers; t++) {
        int d = (pos - b->tower[t].pos + b->track) % b->track;
        if (d <= 1 && s->tower_holds[t]) {
            s->tower_holds[t] = 0;
            s->reveal_player = (int8_t)p;
            return;
        }
    }
}

/* Take every follower off the feature; merchants never come here. */
static void return_followers(cas_state *s, unsigned root)
{
    int kept = 0;
    for (int i = 0; i < s->nfigs; i++) {
        if (root_of(s, s->figs[i].node) == root)
            s->p[s->figs[i].player].supply++;
        else
            s->figs[kept++] = s->figs[i];
    }
    s->nfigs = (uint8_t)kept;
    s->nodes[root].figs[0] = s->nodes[root].figs[1] = 0;
}

void score_completed(cas_state *s, unsigned root, bool doubled, const struct cas_event_sink *ev)
{
    char name[64];
    feature_text(s, root, name, sizeof name);
    int p = majority(s, root), tiles = feature_tiles(s, root);
    const struct node *n = &s->nodes[root];
    if (p < 0) {
        if (n->figs[0])
            note(ev, -1, "%s completed: a tie (%d-%d), nobody scores", name, n->figs[0],
                 n->figs[1]);
        return_followers(s, root);
        return;
    }
    int points = feature_points(s, root);
    if (doubled) {
        use_wall_tile(s, p, n->cls == C_HOUSE ? W_DOUBLE_HOUSE : W_DOUBLE_TOWER);
        points *= 2;
    }
    int before = s->p[p].score;
    add_points(s, p, points, true);
    note_score(ev, p, points, "%s +%d %s (%d tile%s%s%s) %d -> %d", player_name(p), points, name,
               tiles, tiles == 1 ? "" : "s", n->cls == C_PATH && n->fountain ? ", fountain" : "",
               doubled ? ", doubled by a wall tile" : "", before, s->p[p].score);
    if (n->cls == C_HOUSE && tiles > s->p[p].keep_size) {
        note(ev, p, "%s's keep %s %s (%d tile%s)", player_name(p),
             s->p[p].keep_size ? "moves to the larger" : "is placed on", name, tiles,
             tiles == 1 ? "" : "s");
        s->p[p].keep_size = (uint8_t)tiles;
        s->p[p].keep_at = s->nodes[root].placed;
    }
    return_followers(s, root);
}

/* ------------------------------------------------------------ final */

static void final_keep(cas_state *s, const struct cas_event_sink *ev)
{
    int size[NPLAYERS];
    for (int p = 0; p < NPLAYERS; p++) {
        int amount = 0, n = held(s, p, W_KEEP_BONUS, &amount);
        size[p] = s->p[p].keep_size ? s->p[p].keep_size + n * amount : 0;
    }
    int empty = largest_empty_group(s);
    if (size[0] == size[1]) {
        note(ev, -1, "keeps %d and %d: %s", size[0], size[1],
             size[0] ? "a tie, nobody scores the keep bonus" : "nobody has a keep");
        return;
    }
    int p = size[0] > size[1] ? 0 : 1;
    add_points(s, p, empty, false);
    note_score(ev, p, empty, "%s +%d keep bonus: the larger keep (%d against %d) times the "
               "largest group of empty spaces (%d)", player_name(p), empty, size[p],
               size[1 - p], empty);
}

/* A set of feature roots, as bits. */
struct root_set {
    uint8_t bit[MAX_NODES / 8 + 1];
};
static bool in_set(const struct root_set *set, unsigned r) { return set->bit[r / 8] & (1u << (r % 8)); }
static void add_to_set(struct root_set *set, unsigned r) { set->bit[r / 8] |= (uint8_t)(1u << (r % 8)); }

/* Player p's best feature of class cls with p's majority that is incomplete
 * (courts: any) and not in `used`, by `value`; -1 if none is worth a point. */
static int best_feature(const cas_state *s, int p, int cls, const struct root_set *used,
                        int (*value)(const cas_state *, unsigned))
{
    int best = -1, best_value = 0;
    for (unsigned r = 0; r < s->nnodes; r++) {
        const struct node *n = &s->nodes[r];
        if (n->root != r || n->cls != cls || in_set(used, r) || majority(s, r) != p ||
            feature_complete(s, r))
            continue;
        int v = value(s, r);
        if (v > best_value) {
            best = (int)r;
            best_value = v;
        }
    }
    return best;
}

static int markets_of(const cas_state *s, unsigned root) { return s->nodes[root].markets; }

/* Wall tiles 4-6: each scores one incomplete feature of its class that its
 * holder controls, the holder's best, at the normal value. */
static void final_incomplete(cas_state *s, const struct cas_event_sink *ev)
{
    static const int effect_of[3] = {W_INCOMPLETE_PATH, W_INCOMPLETE_HOUSE, W_INCOMPLETE_TOWER};
    for (int p = 0; p < NPLAYERS; p++)
        for (int cls = C_PATH; cls <= C_TOWER; cls++) {
            struct root_set used = {{0}};
            int amount = 0, n = held(s, p, effect_of[cls], &amount);
            for (int i = 0; i < n; i++) {
                int r = best_feature(s, p, cls, &used, feature_points);
                if (r < 0)
                    break;
                add_to_set(&used, (unsigned)r);
                char name[64];
                feature_text(s, (unsigned)r, name, sizeof name);
                int points = feature_points(s, (unsigned)r);
                add_points(s, p, points, false);
                note_score(ev, p, points, "%s +%d %s (incomplete, scored by a wall tile)",
                           player_name(p), points, name);
            }
        }
}

/* Courts: 3 points a market to the player with more merchants; a market
 * bonus wall tile raises that on its holder's best court. */
static void final_courts(cas_state *s, const struct cas_event_sink *ev)
{
    struct root_set bonus = {{0}};
    int bonus_per[NPLAYERS];
    for (int p = 0; p < NPLAYERS; p++) {
        bonus_per[p] = 3;
        int n = held(s, p, W_MARKET_BONUS, &bonus_per[p]);
        for (int i = 0; i < n; i++) {
            int r = best_feature(s, p, C_COURT, &bonus, markets_of);
            if (r >= 0)
                add_to_set(&bonus, (unsigned)r);
        }
    }
    for (unsigned r = 0; r < s->nnodes; r++) {
        const struct node *n = &s->nodes[r];
        if (n->root != r || n->cls != C_COURT || !n->markets || (!n->figs[0] && !n->figs[1]))
            continue;
        char name[64];
        feature_text(s, r, name, sizeof name);
        int p = majority(s, r);
        if (p < 0) {
            note(ev, -1, "%s: a tie of merchants (%d-%d), nobody scores its %d market%s", name,
                 n->figs[0], n->figs[1], n->markets, n->markets == 1 ? "" : "s");
            continue;
        }
        int per = in_set(&bonus, r) ? bonus_per[p] : 3;
        int points = n->markets * per;
        add_points(s, p, points, false);
        note_score(ev, p, points, "%s +%d %s (%d market%s x %d%s)", player_name(p), points, name,
                   n->markets, n->markets == 1 ? "" : "s", per,
                   in_set(&bonus, r) ? ", a wall tile's market bonus" : "");
    }
}

static void final_points(cas_state *s, const struct cas_event_sink *ev)
{
    for (int p = 0; p < NPLAYERS; p++) {
        int amount = 0, n = held(s, p, W_POINTS, &amount);
        if (n) {
            add_points(s, p, n * amount, false);
            note_score(ev, p, n * amount, "%s +%d from %d bonus-point wall tile%s",
                       player_name(p), n * amount, n, n == 1 ? "" : "s");
        }
    }
}

void final_scoring(cas_state *s, const struct cas_event_sink *ev)
{
    final_keep(s, ev);
    final_incomplete(s, ev);
    final_courts(s, ev);
    final_points(s, ev);
    s->phase = PH_OVER;
    int64_t a = s->p[0].score, b = s->p[1].score;
    if (ev) {
        char text[128];
        if (a == b)
            snprintf(text, sizeof text, "game over: a draw at %lld", (long long)a);
        else
            snprintf(text, sizeof text, "game over: %s wins %lld to %lld",
                     player_name(a > b ? 0 : 1), (long long)(a > b ? a : b),
                     (long long)(a > b ? b : a));
        struct cas_event e = {.struct_size = sizeof e, .kind = CAS_EVENT_END,
                              .player = a == b ? -1 : (a > b ? 0 : 1),
                              .visible_to = CAS_VIEWER_PUBLIC, .text = text};
        ev->emit(ev->ctx, &e);
    }
}
