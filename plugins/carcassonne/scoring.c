/*
 * scoring.c — scoring: features completed by this turn's tile (roads,
 * cities, cloisters around it), majorities with ties sharing full points,
 * figures returning, and the final scoring of incomplete features and of
 * fields (farmers).  Expansion hooks fold into every value (CHAIN) and see
 * every completion and scoring (CALL-ALL).
 */
#include "carc.h"

#include <stdio.h>

void cas__carc_event(struct cas_state *s, enum cas_event_kind kind, int player,
                     int64_t points, const char *text)
{
    if (!s->sink)
        return;
    struct cas_event e = {.struct_size = sizeof e, .kind = kind, .player = player,
                          .visible_to = CAS_VIEWER_PUBLIC, .points = points,
                          .text = text};
    s->sink->emit(s->sink->ctx, &e);
}

void cas__carc_add_score(struct cas_state *s, int player, int64_t points,
                         const char *reason, const struct carc_score_about *about)
{
    s->score[player] += points;
    if (!s->sink)
        return;
    char text[200];
    snprintf(text, sizeof text, "%s %+lld %s", cas__carc_colours[player],
             (long long)points, reason);
    struct cas_event e = {.struct_size = sizeof e, .kind = CAS_EVENT_SCORE, .player = player,
                          .visible_to = CAS_VIEWER_PUBLIC, .points = points, .text = text};
    if (about) {
        e.category = about->category;
        e.subject = about->subject;
        e.final = about->final;
    }
    s->sink->emit(s->sink->ctx, &e);
}

/* The engine's value of a feature, before expansion hooks; when `why` is
 * not NULL, the reason in words (only worth building for an event sink). */
static int64_t base_points(const struct cas_state *s, int root,
                           enum cas_carc_when when, char *why, size_t cap)
{
    const struct cas_game *g = s->game;
    const struct carc_feature_def *d = cas__carc_fdef(s, root);
    const char *late = when == CAS_CARC_FINAL ? ", incomplete" : "";
    int spaces, tiles, filled, size;
    switch (d->cls) {
    case CAS_CARC_ROAD:
        cas__carc_feature_size(s, root, &spaces, &tiles);
        if (why)
            snprintf(why, cap, "road (%d tile%s%s)", spaces, spaces == 1 ? "" : "s", late);
        return spaces;
    case CAS_CARC_CITY: {
        int coats = g->coat_attr >= 0 ? C_NODES(s)[root].attr[g->coat_attr] : 0;
        int per = when == CAS_CARC_DURING ? 2 : 1;
        cas__carc_feature_size(s, root, &spaces, &tiles);
        if (why)
            snprintf(why, cap, "city (%d tile%s, %d coat%s%s)", spaces,
                     spaces == 1 ? "" : "s", coats, coats == 1 ? "" : "s", late);
        return (int64_t)per * (spaces + coats);
    }
    case CAS_CARC_CLOISTER:
        cas__carc_ring(s, root, &filled, &size);
        if (why)
            snprintf(why, cap, "%s (%d around%s)", d->name, filled, late);
        return filled + 1;
    default: {
        int cities = cas__carc_field_cities(s, root);
        if (why)
            snprintf(why, cap, "field (%d completed cit%s)", cities,
                     cities == 1 ? "y" : "ies");
        return 3 * (int64_t)cities;
    }
    }
}

static void return_figures_on(struct cas_state *s, int root)
{
    if (!carc_occupied(s, root))
        return; /* nothing returns, so no escort is lost */
    for (int i = s->nfigs - 1; i >= 0; i--) {
        const struct carc_fig *f = &C_FIGS(s)[i];
        if (C_NODES(s)[f->node].root == root &&
            !(s->game->fig[f->kind].def.flags & CAS_CARC_FIG_STAYS))
            cas__carc_return_figure(s, i);
    }
    cas__carc_return_escorted(s, root);
}

/* Add winner p's points for root with their event: the category is the
 * feature's name unless an expansion's rule renamed it (then the text says
 * so too). */
static void tell_score(struct cas_state *s, int root, enum cas_carc_when when, int p,
                       int64_t points, const char *why, const char *subject)
{
    if (!s->sink) {
        cas__carc_add_score(s, p, points, why, NULL);
        return;
    }
    const char *name = cas__carc_fdef(s, root)->name;
    const char *category = cas__carc_hook_category(s, root, when, p, name);
    char text[160];
    if (strcmp(category, name) == 0)
        snprintf(text, sizeof text, "%s", why);
    else
        snprintf(text, sizeof text, "%s [%s]", why, category);
    struct carc_score_about about = {category, subject, when == CAS_CARC_FINAL};
    cas__carc_add_score(s, p, points, text, &about);
}

/* Players with a figure on root that goes home when it scores (a mayor in
 * a city without coats: strength 0), as a bit mask. */
static unsigned powerless_occupants(const struct cas_state *s, int root)
{
    unsigned who = 0;
    int left = C_NODES(s)[root].figs;
    for (int i = 0; left > 0 && i < s->nfigs; i++) {
        const struct carc_fig *f = &C_FIGS(s)[i];
        if (C_NODES(s)[f->node].root != root)
            continue;
        left--;
        if (!(s->game->fig[f->kind].def.flags & CAS_CARC_FIG_STAYS))
            who |= 1u << f->player;
    }
    return who;
}

/* Majority by strength, ties share full points.  Every winner of an
 * occupied feature is told, 0 points included (an open inn road, an open
 * cathedral city at the end); where no figure has strength (a mayor in a
 * city without coats), each owner of a figure sent home is told +0. */
void cas__carc_score_feature(struct cas_state *s, int root, enum cas_carc_when when)
{
    const struct cas_game *g = s->game;
    int strength[CARC_MAX_PLAYERS] = {0}, best = 0;
    int occupied = carc_occupied(s, root);
    int left = C_NODES(s)[root].figs; /* the walk stops once all are found */
    for (int i = 0; left > 0 && i < s->nfigs; i++) {
        const struct carc_fig *f = &C_FIGS(s)[i];
        if (C_NODES(s)[f->node].root == root) {
            strength[f->player] += cas__carc_strength(s, i);
            left--;
        }
    }
    for (int p = 0; p < g->nplayers; p++)
        best = strength[p] > best ? strength[p] : best;
    int64_t points[CARC_MAX_PLAYERS] = {0};
    unsigned told = 0;
    if (best > 0) {
        for (int p = 0; p < g->nplayers; p++)
            told |= (unsigned)(strength[p] == best) << p;
    } else if (occupied && s->sink) {
        told = powerless_occupants(s, root);
    }
    if (told) {
        char why[120] = "", subject[64] = "";
        int64_t base = base_points(s, root, when, s->sink ? why : NULL, sizeof why);
        if (s->sink) {
            const struct carc_tile *t = &C_TILES(s)[C_NODES(s)[root].tile];
            snprintf(subject, sizeof subject, "%s at %d,%d", cas__carc_fdef(s, root)->name,
                     t->x, t->y);
        }
        for (int p = 0; p < g->nplayers; p++) {
            if (!(told >> p & 1))
                continue;
            points[p] = best > 0 ? cas__carc_hook_points(s, root, when, p, base) : 0;
            tell_score(s, root, when, p, points[p], why, subject);
        }
    }
    cas__carc_hook_scored(s, root, when, points);
    return_figures_on(s, root);
}

static void complete(struct cas_state *s, int node)
{
    int root = C_NODES(s)[node].root;
    if (C_NODES(s)[root].flags & NODE_SCORED)
        return;
    if (!cas__carc_feature_complete(s, root))
        return;
    S_NODES(s)[root].flags |= NODE_SCORED;
    cas__carc_hook_completed(s, root);
    cas__carc_score_feature(s, root, CAS_CARC_DURING);
}

static const int side_dx[4] = {0, 1, 0, -1}, side_dy[4] = {-1, 0, 1, 0};

static void complete_cloisters_of(struct cas_state *s, int tile)
{
    const struct carc_tile *o = &C_TILES(s)[tile];
    const struct carc_kind *k = &s->game->kinds[o->kind];
    for (unsigned f = k->of_class[CAS_CARC_CLOISTER]; f; f &= f - 1)
        complete(s, o->node_base + __builtin_ctz(f));
}

/* Cloister tiles among the 3x3 spaces centred on one-space tile t, in
 * placement order (the order of the cloister list).  The four beside the
 * tile placed last are known from its placement; the others are looked
 * up. */
static int cloisters_around(const struct cas_state *s, const struct carc_tile *t, int *near)
{
    const uint64_t *cloister_kinds = s->game->cloister_kinds;
    int self = (int)(t - C_TILES(s)), around[9], n = 0;
    cas__carc_diagonal_tiles(s, t->x, t->y, around);
    around[4] = self;
    for (int b = 0; b < 4; b++)
        around[5 + b] = self != s->ntiles - 1
                            ? cas__carc_tile_at(s, t->x + side_dx[b], t->y + side_dy[b])
                        : s->placed_sides >> b & 1 ? s->placed_beside[b]
                                                   : -1;
    for (int p = 0; p < 9; p++) {
        int at = around[p];
        if (at < 0)
            continue;
        unsigned kind = C_TILES(s)[at].kind;
        if (!(cloister_kinds[kind / 64] >> (kind % 64) & 1))
            continue;
        int i = n++;
        for (; i > 0 && near[i - 1] > at; i--)
            near[i] = near[i - 1];
        near[i] = at;
    }
    return n;
}

/* The box one space around tile t's spaces (its cloisters' ring, the tile
 * included): x0..x1, y0..y1. */
struct ring_box {
    int x0, y0, x1, y1;
};

static struct ring_box ring_of(const struct cas_game *g, const struct carc_tile *t)
{
    const struct carc_kind *k = &g->kinds[t->kind];
    const struct carc_rot *r = &k->rot[t->rot];
    int dx = r->dx[k->ncells - 1], dy = r->dy[k->ncells - 1];
    return (struct ring_box){t->x + (dx < 0 ? dx : 0) - 1, t->y + (dy < 0 ? dy : 0) - 1,
                             t->x + (dx > 0 ? dx : 0) + 1, t->y + (dy > 0 ? dy : 0) + 1};
}

/* Does a space of tile t lie in the box one space around tile o's spaces
 * (the ring of a 2x1 cloister, or t reaching a cloister with its second
 * space)? */
static int within_ring(const struct cas_game *g, const struct carc_tile *t,
                       const struct carc_tile *o)
{
    const struct carc_rot *rt = &g->kinds[t->kind].rot[t->rot];
    struct ring_box b = ring_of(g, o);
    for (int c = 0; c < g->kinds[t->kind].ncells; c++) {
        int x = t->x + rt->dx[c], y = t->y + rt->dy[c];
        if (x >= b.x0 && x <= b.x1 && y >= b.y0 && y <= b.y1)
            return 1;
    }
    return 0;
}

_Static_assert(CARC_RING_WORDS == 32, "a ring word holds 32 spaces of a row");

/* The spaces one around tile t's (its cloisters' ring, itself included)
 * into the folded map of rings. */
static void mark_ring(struct cas_state *s, const struct carc_tile *t)
{
    struct ring_box b = ring_of(s->game, t);
    uint32_t row = 0;
    for (int x = b.x0; x <= b.x1; x++)
        row |= 1u << (x & 31);
    for (int y = b.y0; y <= b.y1; y++)
        s->cloister_rings[y & 31] |= row;
}

void cas__carc_add_cloisters(struct cas_state *s, int t)
{
    const struct carc_tile *tile = &C_TILES(s)[t];
    const struct carc_kind *k = &s->game->kinds[tile->kind];
    for (unsigned f = k->of_class[CAS_CARC_CLOISTER]; f; f &= f - 1)
        S_CLOISTERS(s)[s->ncloisters++] = (struct carc_cloister){
            .tile = (uint16_t)t, .node = (uint16_t)(tile->node_base + __builtin_ctz(f)),
            .x = tile->x, .y = tile->y, .ncells = (uint16_t)k->ncells};
    mark_ring(s, tile);
}

/* May a cloister's ring hold a space of tile t?  No is sure. */
static int in_some_ring(const struct cas_state *s, const struct carc_tile *t)
{
    const struct carc_kind *k = &s->game->kinds[t->kind];
    const struct carc_rot *r = &k->rot[t->rot];
    for (int c = 0; c < k->ncells; c++) {
        int x = t->x + r->dx[c], y = t->y + r->dy[c];
        if (s->cloister_rings[y & 31] >> (x & 31) & 1)
            return 1;
    }
    return 0;
}

/* Entry i leaves the cloister list, the others keeping their order; the
 * map of rings is drawn again from those left (a few times a game). */
static void drop_cloister(struct cas_state *s, int i)
{
    struct carc_cloister *list = S_CLOISTERS(s);
    memmove(list + i, list + i + 1, (size_t)(s->ncloisters - i - 1) * sizeof *list);
    s->ncloisters--;
    memset(s->cloister_rings, 0, sizeof s->cloister_rings);
    for (int j = 0; j < s->ncloisters; j++)
        mark_ring(s, &C_TILES(s)[list[j].tile]);
}

/* Cloisters whose tile touches the placed tile (diagonals included) may
 * have been completed by it: with few cloisters on the board, a walk of
 * the list of those not yet scored, which drops each as it scores; with
 * many and one-space tiles only, the 8 spaces around (the same cloisters
 * in the same order, at a cost that does not grow). */
static void complete_cloisters_near(struct cas_state *s, const struct carc_tile *t)
{
    const struct cas_game *g = s->game;
    if (!in_some_ring(s, t))
        return;
    if (s->ncloisters > 24 && !g->multi_cell) {
        int near[9], n = cloisters_around(s, t, near);
        for (int i = 0; i < n; i++)
            complete_cloisters_of(s, near[i]);
        return;
    }
    int reach = g->kinds[t->kind].ncells; /* 2x1 tiles reach one further */
    /* the farthest any cloister may be: most are out of it, found without
     * looking up their kind */
    int bound = reach + (g->multi_cell ? CARC_MAX_CELLS - 1 : 0), tx = t->x, ty = t->y;
    const struct carc_cloister *cloisters = C_CLOISTERS(s);
    for (int i = 0; i < s->ncloisters; i++) {
        const struct carc_cloister *o = &cloisters[i];
        if ((unsigned)(o->x - tx + bound) > (unsigned)(2 * bound) ||
            (unsigned)(o->y - ty + bound) > (unsigned)(2 * bound))
            continue;
        int dx = o->x - tx, dy = o->y - ty;
        int far = reach + o->ncells - 1;
        if (dx < -far || dx > far || dy < -far || dy > far)
            continue;
        if (far > 1 && !within_ring(g, t, &C_TILES(s)[o->tile]))
            continue; /* the square bound is loose once a 2x1 tile is involved */
        complete(s, o->node);
        if (C_NODES(s)[C_NODES(s)[o->node].root].flags & NODE_SCORED)
            drop_cloister(s, i--); /* no later tile can complete it */
    }
}

/* A `*` edge (abbey) joins nothing: the road or city it closes on the
 * neighbour's side is not part of the placed tile's features. */
static void complete_closed_by_any_edges(struct cas_state *s, const struct carc_tile *t)
{
    const struct carc_kind *k = &s->game->kinds[t->kind];
    const struct carc_rot *r = &k->rot[t->rot];
    for (int c = 0; c < k->ncells; c++)
        for (int b = 0; b < 4; b++) {
            if (r->edge[c][b] != EDGE_ANY)
                continue;
            int ci = cas__carc_cell_find(s, t->x + r->dx[c] + side_dx[b],
                                         t->y + r->dy[c] + side_dy[b]);
            if (ci < 0 || C_CELLS(s)[ci].tile == CARC_NONE)
                continue;
            const struct carc_cell *cell = &C_CELLS(s)[ci];
            const struct carc_tile *o = &C_TILES(s)[cell->tile];
            uint8_t seg = s->game->kinds[o->kind].rot[o->rot].seg[cell->sub][(b + 2) % 4][1];
            if (seg != 0xFF)
                complete(s, o->node_base + seg);
        }
}

void cas__carc_score_turn(struct cas_state *s)
{
    const struct carc_tile *t = &C_TILES(s)[s->placed];
    const struct carc_kind *k = &s->game->kinds[t->kind];
    unsigned closable = CAS_CARC_CLASS_BIT(CAS_CARC_ROAD) | CAS_CARC_CLASS_BIT(CAS_CARC_CITY);
    for (unsigned f = cas__carc_parts_of_classes(k, closable); f; f &= f - 1)
        complete(s, t->node_base + __builtin_ctz(f));
    if (k->any_edges)
        complete_closed_by_any_edges(s, t);
    complete_cloisters_near(s, t);
}

/* Roots holding figures, ascending, of the classes in `mask`. */
static int occupied_roots(const struct cas_state *s, unsigned mask, cas_action *roots)
{
    size_t n = 0;
    for (int i = 0; i < s->nfigs; i++) {
        int root = C_NODES(s)[C_FIGS(s)[i].node].root;
        if (mask & CAS_CARC_CLASS_BIT(cas__carc_feature_class(s, root)))
            roots[n++] = (cas_action)root;
    }
    return (int)cas__carc_sort_unique(roots, n);
}

void cas__carc_final_scoring(struct cas_state *s)
{
    cas_action roots[CARC_MAX_FIGURES];
    unsigned features = CAS_CARC_CLASS_BIT(CAS_CARC_ROAD) |
                        CAS_CARC_CLASS_BIT(CAS_CARC_CITY) |
                        CAS_CARC_CLASS_BIT(CAS_CARC_CLOISTER);
    int n = occupied_roots(s, features, roots);
    for (int i = 0; i < n; i++) {
        if (C_NODES(s)[roots[i]].flags & NODE_SCORED)
            continue; /* completed earlier: figures that stay (none in base) */
        S_NODES(s)[roots[i]].flags |= NODE_SCORED;
        cas__carc_score_feature(s, (int)roots[i], CAS_CARC_FINAL);
    }
    n = occupied_roots(s, CAS_CARC_CLASS_BIT(CAS_CARC_FIELD), roots);
    for (int i = 0; i < n; i++)
        cas__carc_score_feature(s, (int)roots[i], CAS_CARC_FINAL);
    cas__carc_hook_final(s);
}

void cas__carc_winners_text(const struct cas_state *s, char *buf, size_t cap)
{
    const struct cas_game *g = s->game;
    int64_t best = INT64_MIN;
    for (int p = 0; p < g->nplayers; p++)
        best = s->score[p] > best ? s->score[p] : best;
    size_t n = (size_t)snprintf(buf, cap, "game over; winner:");
    for (int p = 0; p < g->nplayers && n < cap; p++)
        if (s->score[p] == best)
            n += (size_t)snprintf(buf + n, cap - n, " %s", cas__carc_colours[p]);
    if (n < cap)
        snprintf(buf + n, cap - n, " with %lld", (long long)best);
}
