/*
 * expansion.c — the Carcassonne extension ABI from the engine's side:
 * checking and loading expansion descriptors (attributes, tile sets, figure
 * kinds, phases), dispatching hooks with their documented semantics
 * (CALL-ALL, CHAIN, VETO, FIRST), and the services table lent to
 * expansions (cas__carc_api).
 */
#include "carc.h"

#include <stdio.h>
#include <stdlib.h>

#define HOOK(g, i, name) ((g)->exp[i].hooks.name)

/* ---------------------------------------------------------------- loading */

static int register_attribute(struct cas_game *g, const char *name)
{
    for (int i = 0; i < g->nattrs; i++)
        if (strcmp(g->attrs[i], name) == 0)
            return i;
    if (g->nattrs >= CARC_MAX_ATTRS || strlen(name) >= sizeof g->attrs[0]) {
        cas_host_errorf(g->host, "attribute '%s': at most %d attributes of under 16 "
                        "characters fit a game", name, CARC_MAX_ATTRS);
        return CAS_EDATA;
    }
    snprintf(g->attrs[g->nattrs], sizeof g->attrs[0], "%s", name);
    return g->nattrs++;
}

static int check_descriptor(struct cas_game *g, const struct cas_expansion_ref *ref,
                            const struct cas_carc_expansion *x)
{
    if (!x || x->struct_size < offsetof(struct cas_carc_expansion, n_phases) +
                                   sizeof x->n_phases) {
        cas_host_errorf(g->host, "expansion %s: no Carcassonne extension descriptor "
                        "(struct cas_carc_expansion); rebuild it against "
                        "castellan/carcassonne.h", ref->id);
        return CAS_EVERSION;
    }
    if (x->abi_major != CAS_CARC_ABI_MAJOR || x->abi_minor > CAS_CARC_ABI_MINOR) {
        cas_host_errorf(g->host, "expansion %s: built for Carcassonne extension ABI "
                        "%u.%u, this game provides %d.%d; rebuild the expansion",
                        ref->id, x->abi_major, x->abi_minor, CAS_CARC_ABI_MAJOR,
                        CAS_CARC_ABI_MINOR);
        return CAS_EVERSION;
    }
    return CAS_OK;
}

/* A figure kind's supply per player: the owner's INT option named after
 * it in the plural (figure `barn`: option `barns`), which the host has
 * checked against the option's bounds, or the descriptor's per_player. */
static int figure_supply(const struct cas_expansion_ref *ref,
                         const struct cas_carc_figure_kind *def)
{
    char plural[64];
    snprintf(plural, sizeof plural, "%ss", def->name);
    for (size_t i = 0; i < ref->n_options; i++)
        if (strcmp(ref->options[i].name, plural) == 0)
            return atoi(ref->options[i].value);
    return def->per_player;
}

static int add_content(struct cas_game *g, const struct cas_expansion_ref *ref,
                       const struct cas_carc_expansion *x, int e)
{
    for (size_t i = 0; i < x->n_attributes; i++) {
        int rc = register_attribute(g, x->attributes[i]);
        if (rc < 0)
            return rc;
    }
    for (size_t i = 0; i < x->n_tile_sets; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", ref->data_dir, x->tile_sets[i]);
        int ignored_start = -1;
        int rc = cas__carc_parse_tileset(g->host, path, &g->own_kinds, &g->nkinds,
                                         g->attrs, g->nattrs, &ignored_start);
        g->kinds = g->own_kinds;
        if (rc != CAS_OK)
            return rc;
    }
    for (size_t i = 0; i < x->n_figures; i++) {
        if (g->nfig >= CARC_MAX_FIGKINDS) {
            cas_host_errorf(g->host, "expansion %s: more than %d figure kinds in the "
                            "game", ref->id, CARC_MAX_FIGKINDS);
            return CAS_EDATA;
        }
        g->fig[g->nfig].def = x->figures[i];
        g->fig[g->nfig].def.per_player = figure_supply(ref, &x->figures[i]);
        g->fig[g->nfig++].exp = e;
    }
    for (size_t i = 0; i < x->n_phases; i++) {
        if (g->nphases >= CARC_MAX_PHASES) {
            cas_host_errorf(g->host, "expansion %s: more than %d phases in the game",
                            ref->id, CARC_MAX_PHASES);
            return CAS_EDATA;
        }
        unsigned slot = (unsigned)x->phases[i].slot;
        if (slot < sizeof g->slot_phases / sizeof g->slot_phases[0])
            g->slot_phases[slot] |= 1u << g->nphases;
        g->phases[g->nphases].phase = &x->phases[i];
        g->phases[g->nphases++].exp = e;
    }
    return CAS_OK;
}

/* The hooks a plugin built against any 1.x header has, in this engine's
 * struct: each pointer wholly inside its struct_size, NULL for the rest. */
static void copy_hooks(struct cas_carc_hooks *to, const struct cas_carc_hooks *from)
{
    const size_t first = sizeof to->struct_size, slot = sizeof(void (*)(void));
    memset(to, 0, sizeof *to);
    to->struct_size = sizeof *to;
    if (!from || from->struct_size <= first)
        return;
    size_t size = from->struct_size < sizeof *to ? from->struct_size : sizeof *to;
    memcpy((char *)to + first, (const char *)from + first, (size - first) / slot * slot);
}

/* The hooks every turn runs, as masks of the expansions that have them. */
static void mark_turn_hooks(struct cas_game *g)
{
    g->tile_placed_hooks = g->turn_scoring_hooks = g->turn_end_hooks = 0;
    /* nexp is at most CARC_MAX_EXPANSIONS; saying so keeps GCC's bounds
     * check (sanitizer builds) from fearing exp[32] */
    for (int i = 0; i < g->nexp && i < CARC_MAX_EXPANSIONS; i++) {
        const struct cas_carc_hooks *h = &g->exp[i].hooks;
        g->tile_placed_hooks |= (unsigned)(h->tile_placed != NULL) << i;
        g->turn_scoring_hooks |= (unsigned)(h->turn_scoring != NULL) << i;
        g->turn_end_hooks |= (unsigned)(h->turn_end != NULL) << i;
    }
}

int cas__carc_load_expansions(struct cas_game *g, const struct cas_game_params *params,
                              size_t *bad_option)
{
    (void)bad_option;
    if (params->n_expansions > CARC_MAX_EXPANSIONS) {
        cas_host_errorf(g->host, "%zu expansions: at most %d can be combined",
                        params->n_expansions, CARC_MAX_EXPANSIONS);
        return CAS_EINVAL;
    }
    for (size_t i = 0; i < params->n_expansions; i++) {
        const struct cas_expansion_ref *ref = &params->expansions[i];
        const struct cas_carc_expansion *x = ref->extension;
        int rc = check_descriptor(g, ref, x);
        if (rc == CAS_OK)
            rc = add_content(g, ref, x, g->nexp);
        if (rc != CAS_OK)
            return rc;
        g->exp[g->nexp].desc = x;
        copy_hooks(&g->exp[g->nexp].hooks, x->hooks);
        g->exp[g->nexp++].id = ref->id;
    }
    mark_turn_hooks(g);
    return CAS_OK;
}

/* Expansion i's veto_deploy concerns, on tiles of kind k, the figure kinds
 * its vetoes_deploy names (all without one). */
static void mark_deploy_vetoes(struct cas_game *g, int k, int i)
{
    int (*filter)(void *, const cas_carc_game *, int, int) = HOOK(g, i, vetoes_deploy);
    if (!HOOK(g, i, veto_deploy))
        return;
    for (int fk = 0; fk < g->nfig && fk < CARC_MAX_FIGKINDS; fk++)
        if (!filter || filter(g->exp[i].xctx, (const cas_carc_game *)g, k, fk))
            g->own_kinds[k].deploy_vetoed[fk] |= (uint8_t)(1u << i);
}

void cas__carc_mark_vetoed_kinds(struct cas_game *g)
{
    for (int k = 0; k < g->nkinds; k++) {
        struct carc_kind *kind = &g->own_kinds[k];
        kind->vetoed = 0;
        memset(kind->deploy_vetoed, 0, sizeof kind->deploy_vetoed);
        for (int i = 0; i < g->nexp; i++) {
            int (*filter)(void *, const cas_carc_game *, int) = HOOK(g, i, vetoes_kind);
            if ((HOOK(g, i, veto_placement) != NULL || HOOK(g, i, veto_area) != NULL) &&
                (!filter || filter(g->exp[i].xctx, (const cas_carc_game *)g, k)))
                kind->vetoed |= 1u << i;
            mark_deploy_vetoes(g, k, i);
        }
    }
}

/* Run expansion i's init, if it has one; *own_bad as its init sets it. */
static int init_expansion(struct cas_game *g, int i, const struct cas_expansion_ref *ref,
                          size_t *own_bad)
{
    const struct cas_carc_expansion *x = g->exp[i].desc;
    if (!x->init)
        return CAS_OK;
    int rc = x->init(&cas__carc_api, g->host, (const cas_carc_game *)g, ref->options,
                     ref->n_options, &g->exp[i].xctx, own_bad);
    if (rc == CAS_OK && !g->exp[i].xctx) {
        cas_host_errorf(g->host, "expansion %s: init left *xctx NULL; the ABI "
                        "needs a unique non-NULL context", g->exp[i].id);
        return CAS_EINVAL;
    }
    return rc;
}

/* Where expansion context xctx starts its probe in g->xblocks. */
static unsigned context_slot(const struct cas_game *g, const void *xctx)
{
    return (unsigned)(((uint64_t)(uintptr_t)xctx * g->xslot_multiplier) >> 60);
}

/* Does the multiplier give every expansion's context a slot of its own? */
static int slots_distinct(const struct cas_game *g)
{
    unsigned used = 0;
    for (int i = 0; i < g->nexp; i++) {
        unsigned bit = 1u << context_slot(g, g->exp[i].xctx);
        if (used & bit)
            return 0;
        used |= bit;
    }
    return 1;
}

/* The expansions' contexts and state blocks in a small open-addressing
 * table (over twice as many slots as expansions), so api->xstate finds a
 * block without a walk of the expansions: every hook asks it.  The
 * multiplier is chosen so that no two contexts share a slot (a lookup is
 * one probe, whatever addresses the contexts got); should none of the
 * tries manage, probing still finds every block. */
static void index_contexts(struct cas_game *g)
{
    _Static_assert(sizeof g->xblocks / sizeof g->xblocks[0] == 16 && CARC_MAX_EXPANSIONS < 16,
                   "context_slot gives 4 bits and a slot must stay free");
    g->xslot_multiplier = 0x9E3779B97F4A7C15ull;
    for (int try = 0; try < 64 && !slots_distinct(g); try++)
        g->xslot_multiplier += 0x5851F42D4C957F2Eull; /* even step: stays odd */
    memset(g->xblocks, 0, sizeof g->xblocks);
    for (int i = 0; i < g->nexp; i++) {
        unsigned h = context_slot(g, g->exp[i].xctx);
        while (g->xblocks[h].xctx)
            h = (h + 1) % 16;
        g->xblocks[h].xctx = g->exp[i].xctx;
        g->xblocks[h].state_off = g->exp[i].state_off;
    }
}

/* 1.6: each expansion with a block learns where it lies in every state. */
static void tell_state_offsets(const struct cas_game *g)
{
    for (int i = 0; i < g->nexp; i++) {
        const struct cas_carc_expansion *d = g->exp[i].desc;
        if (d->state_size > 0 && CAS_HAS_FIELD(d, struct cas_carc_expansion, state_offset) &&
            d->state_offset)
            d->state_offset(g->exp[i].xctx, g->exp[i].state_off);
    }
}

/* Called once the state layout is known.  An expansion's init names a bad
 * option by its index in its own options; game_new's *bad_option counts
 * on from the game's options through each expansion's in order. */
int cas__carc_init_expansions(struct cas_game *g, const struct cas_game_params *params,
                              size_t *bad_option)
{
    size_t options_before = params->n_options;
    for (int i = 0; i < g->nexp; i++) {
        const struct cas_expansion_ref *ref = &params->expansions[i];
        size_t own_bad = SIZE_MAX;
        int rc = init_expansion(g, i, ref, &own_bad);
        if (rc == CAS_EOPTION && bad_option && own_bad < ref->n_options)
            *bad_option = options_before + own_bad;
        if (rc != CAS_OK)
            return rc;
        options_before += ref->n_options;
    }
    index_contexts(g);
    tell_state_offsets(g);
    return CAS_OK;
}

void cas__carc_fini_expansions(struct cas_game *g)
{
    for (int i = 0; i < g->nexp; i++) {
        const struct cas_carc_expansion *d = g->exp[i].desc;
        void *xctx = g->exp[i].xctx;
        if (!xctx)
            continue;
        if (CAS_HAS_FIELD(d, struct cas_carc_expansion, fini_host) && d->fini_host)
            d->fini_host(xctx, g->host);
        else if (d->fini)
            d->fini(xctx);
    }
}

void cas__carc_init_xstates(struct cas_state *s)
{
    const struct cas_game *g = s->game;
    for (int i = 0; i < g->nexp; i++) {
        void *block = (char *)s + g->exp[i].state_off;
        memset(block, 0, g->exp[i].desc->state_size);
        if (g->exp[i].desc->state_init)
            g->exp[i].desc->state_init(g->exp[i].xctx, CARC_OF(s), block);
    }
}

/* ---------------------------------------------------------------- hooks */

int64_t cas__carc_hook_points(const struct cas_state *s, int node,
                              enum cas_carc_when when, int winner, int64_t pts)
{
    const struct cas_game *g = s->game;
    for (int i = 0; i < g->nexp; i++) {
        int64_t (*fn)(void *, const cas_carc *, cas_carc_feature, enum cas_carc_when,
                      int, int64_t) = HOOK(g, i, feature_points);
        if (fn)
            pts = fn(g->exp[i].xctx, CARC_COF(s), node, when, winner, pts);
    }
    return pts;
}

const char *cas__carc_hook_category(const struct cas_state *s, int node,
                                    enum cas_carc_when when, int winner,
                                    const char *category)
{
    const struct cas_game *g = s->game;
    for (int i = 0; i < g->nexp; i++) {
        const char *(*fn)(void *, const cas_carc *, cas_carc_feature, enum cas_carc_when,
                          int, const char *) = HOOK(g, i, score_category);
        if (fn) {
            const char *named = fn(g->exp[i].xctx, CARC_COF(s), node, when, winner, category);
            category = named ? named : category;
        }
    }
    return category;
}

/* Only the expansions that said they may veto this kind are asked; one
 * with veto_area once for all placements, the others per placement. */
int cas__carc_veto_begin(const struct cas_state *s, int kind, struct carc_veto *v)
{
    const struct cas_game *g = s->game;
    v->ask = 0;
    v->nboxes = 0;
    for (unsigned asked = g->kinds[kind].vetoed; asked; asked &= asked - 1) {
        int i = __builtin_ctz(asked);
        int (*area)(void *, const cas_carc *, int, int *, size_t, size_t *) =
            HOOK(g, i, veto_area);
        size_t room = (size_t)(CAS_CARC_VETO_BOXES - v->nboxes), n = 0;
        if (area && area(g->exp[i].xctx, CARC_COF(s), kind, v->boxes + 4 * v->nboxes, room,
                         &n) == CAS_OK && n <= room)
            v->nboxes += (int)n;
        else if (HOOK(g, i, veto_placement))
            v->ask |= 1u << i;
    }
    return v->ask || v->nboxes;
}

int cas__carc_veto_ask(const struct cas_state *s, unsigned ask, int kind, int x, int y,
                       int rot)
{
    const struct cas_game *g = s->game;
    for (; ask; ask &= ask - 1) {
        int i = __builtin_ctz(ask);
        if (g->exp[i].hooks.veto_placement(g->exp[i].xctx, CARC_COF(s), kind, x, y, rot))
            return 1;
    }
    return 0;
}

int cas__carc_hook_veto_place(const struct cas_state *s, int kind, int x, int y, int rot)
{
    struct carc_veto v;
    return cas__carc_veto_begin(s, kind, &v) && cas__carc_veto_hits(s, &v, kind, x, y, rot);
}

/* Only the expansions that said they may veto this figure kind on this
 * turn's tile are asked (every one that vetoes when no tile was placed). */
int cas__carc_hook_veto_deploy(const struct cas_state *s, int player, int kind, int node)
{
    const struct cas_game *g = s->game;
    int tile_kind = C_TILES(s)[C_NODES(s)[node].tile].kind;
    unsigned asked = g->kinds[tile_kind].deploy_vetoed[kind];
    for (; asked; asked &= asked - 1) {
        int i = __builtin_ctz(asked);
        int (*fn)(void *, const cas_carc *, int, int, cas_carc_feature) =
            HOOK(g, i, veto_deploy);
        if (fn && fn(g->exp[i].xctx, CARC_COF(s), player, kind, node))
            return 1;
    }
    return 0;
}

int cas__carc_hook_strength(const struct cas_state *s, int fig, int node)
{
    const struct cas_game *g = s->game;
    for (int i = 0; i < g->nexp; i++) {
        int (*fn)(void *, const cas_carc *, int, cas_carc_feature) =
            HOOK(g, i, figure_strength);
        int answer = fn ? fn(g->exp[i].xctx, CARC_COF(s), fig, node) : CAS_CARC_NO_ANSWER;
        if (answer != CAS_CARC_NO_ANSWER)
            return answer;
    }
    return CAS_CARC_NO_ANSWER;
}

/* The hooks of every turn visit only the expansions that have them. */
void cas__carc_hook_tile_placed(struct cas_state *s, int tile)
{
    const struct cas_game *g = s->game;
    for (unsigned asked = g->tile_placed_hooks; asked; asked &= asked - 1) {
        int i = __builtin_ctz(asked);
        g->exp[i].hooks.tile_placed(g->exp[i].xctx, CARC_OF(s), s->player, tile);
    }
}

void cas__carc_hook_completed(struct cas_state *s, int node)
{
    const struct cas_game *g = s->game;
    for (int i = 0; i < g->nexp; i++) {
        void (*fn)(void *, cas_carc *, int, cas_carc_feature) =
            HOOK(g, i, feature_completed);
        if (fn)
            fn(g->exp[i].xctx, CARC_OF(s), s->player, node);
    }
}

void cas__carc_hook_scored(struct cas_state *s, int node, enum cas_carc_when when,
                           const int64_t *points)
{
    const struct cas_game *g = s->game;
    for (int i = 0; i < g->nexp; i++) {
        void (*fn)(void *, cas_carc *, int, cas_carc_feature, enum cas_carc_when,
                   const int64_t *) = HOOK(g, i, feature_scored);
        if (fn)
            fn(g->exp[i].xctx, CARC_OF(s), s->player, node, when, points);
    }
}

void cas__carc_hook_final(struct cas_state *s)
{
    const struct cas_game *g = s->game;
    for (int i = 0; i < g->nexp; i++) {
        void (*fn)(void *, cas_carc *) = HOOK(g, i, final_scoring);
        if (fn)
            fn(g->exp[i].xctx, CARC_OF(s));
    }
}

void cas__carc_hook_turn_scoring(struct cas_state *s)
{
    const struct cas_game *g = s->game;
    for (unsigned asked = g->turn_scoring_hooks; asked; asked &= asked - 1) {
        int i = __builtin_ctz(asked);
        g->exp[i].hooks.turn_scoring(g->exp[i].xctx, CARC_OF(s), s->player);
    }
}

int cas__carc_hook_bag_empty(struct cas_state *s)
{
    const struct cas_game *g = s->game;
    int yes = 0;
    for (int i = 0; i < g->nexp; i++) {
        int (*fn)(void *, cas_carc *, int) = HOOK(g, i, bag_empty);
        if (fn)
            yes |= fn(g->exp[i].xctx, CARC_OF(s), s->player) != 0;
    }
    return yes;
}

void cas__carc_hook_turn_end(struct cas_state *s)
{
    const struct cas_game *g = s->game;
    for (unsigned asked = g->turn_end_hooks; asked; asked &= asked - 1) {
        int i = __builtin_ctz(asked);
        g->exp[i].hooks.turn_end(g->exp[i].xctx, CARC_OF(s), s->player);
    }
}

/* ---------------------------------------------------------------- services */

#define GAME_OF(gh) ((const struct cas_game *)(gh))

static int api_attribute_index(const cas_carc_game *gh, const char *name)
{
    const struct cas_game *g = GAME_OF(gh);
    for (int i = 0; i < g->nattrs; i++)
        if (strcmp(g->attrs[i], name) == 0)
            return i;
    return CAS_ENOTFOUND;
}

static int api_figure_kind_index(const cas_carc_game *gh, const char *name)
{
    const struct cas_game *g = GAME_OF(gh);
    for (int i = 0; i < g->nfig; i++)
        if (strcmp(g->fig[i].def.name, name) == 0)
            return i;
    return CAS_ENOTFOUND;
}

static int api_tile_kind_index(const cas_carc_game *gh, const char *id)
{
    const struct cas_game *g = GAME_OF(gh);
    for (int i = 0; i < g->nkinds; i++)
        if (strcmp(g->kinds[i].id, id) == 0)
            return i;
    return CAS_ENOTFOUND;
}

static int api_nplayers(const cas_carc_game *gh) { return GAME_OF(gh)->nplayers; }

static const cas_carc_game *api_game(const cas_carc *c)
{
    return (const cas_carc_game *)CSTATE_OF(c)->game;
}

/* Probing from xctx's slot finds the first expansion with that context,
 * as a walk in order would. */
static const void *api_xstate_const(const cas_carc *c, void *xctx)
{
    const struct cas_game *g = CSTATE_OF(c)->game;
    for (unsigned h = context_slot(g, xctx); g->xblocks[h].xctx; h = (h + 1) % 16)
        if (g->xblocks[h].xctx == xctx)
            return (const char *)c + g->xblocks[h].state_off;
    return NULL;
}

static void *api_xstate(cas_carc *c, void *xctx)
{
    return (void *)api_xstate_const(c, xctx);
}

static int api_active_player(const cas_carc *c) { return CSTATE_OF(c)->player; }
static int api_placed_tile(const cas_carc *c) { return CSTATE_OF(c)->placed; }
static int api_tile_count(const cas_carc *c) { return CSTATE_OF(c)->ntiles; }
static int api_bag_left(const cas_carc *c) { return CSTATE_OF(c)->bag_left; }

static int api_tile_info(const cas_carc *c, int tile, struct cas_carc_tile_info *out)
{
    const struct cas_state *s = CSTATE_OF(c);
    if (tile < 0 || tile >= s->ntiles)
        return CAS_EINVAL;
    const struct carc_tile *t = &C_TILES(s)[tile];
    out->id = s->game->kinds[t->kind].id;
    out->kind = t->kind;
    out->x = t->x;
    out->y = t->y;
    out->rot = t->rot;
    out->player = t->player;
    return CAS_OK;
}

static int api_tile_at(const cas_carc *c, int x, int y)
{
    return cas__carc_tile_at(CSTATE_OF(c), x, y);
}

static int api_tile_features(const cas_carc *c, int tile, cas_carc_feature *buf,
                             size_t cap, size_t *count)
{
    const struct cas_state *s = CSTATE_OF(c);
    if (tile < 0 || tile >= s->ntiles)
        return CAS_EINVAL;
    const struct carc_tile *t = &C_TILES(s)[tile];
    size_t nf = (size_t)s->game->kinds[t->kind].nf;
    *count = nf;
    if (nf > cap)
        return CAS_ENOSPC;
    for (size_t f = 0; f < nf; f++)
        buf[f] = t->node_base + (int)f;
    return CAS_OK;
}

static unsigned api_tile_parts_of(const cas_carc *c, int tile, unsigned classes,
                                  cas_carc_feature *first)
{
    const struct cas_state *s = CSTATE_OF(c);
    if (tile < 0 || tile >= s->ntiles) {
        *first = CAS_CARC_NO_FEATURE;
        return 0;
    }
    const struct carc_tile *t = &C_TILES(s)[tile];
    *first = t->node_base;
    return cas__carc_parts_of_classes(&s->game->kinds[t->kind], classes);
}

static int valid_feature(const struct cas_state *s, cas_carc_feature f)
{
    return f >= 0 && f < s->nnodes;
}

static int api_feature_info(const cas_carc *c, cas_carc_feature f,
                            struct cas_carc_feature_info *out)
{
    const struct cas_state *s = CSTATE_OF(c);
    if (!valid_feature(s, f))
        return CAS_EINVAL;
    int root = carc_root(s, f);
    const struct carc_feature_def *d = cas__carc_fdef(s, root);
    const struct carc_tile *t = &C_TILES(s)[C_NODES(s)[root].tile];
    memset(out, 0, sizeof *out);
    out->struct_size = sizeof *out;
    out->cls = (enum cas_carc_class)d->cls;
    out->name = d->name;
    cas__carc_feature_size(s, root, &out->spaces, &out->tiles);
    out->open_edges = C_NODES(s)[root].open;
    out->complete = cas__carc_feature_complete(s, root);
    if (d->cls == CAS_CARC_CLOISTER)
        cas__carc_ring(s, root, &out->ring_filled, &out->ring_size);
    if (d->cls == CAS_CARC_FIELD)
        out->completed_cities = cas__carc_field_cities(s, root);
    out->x = t->x;
    out->y = t->y;
    return CAS_OK;
}

static int api_same_feature(const cas_carc *c, cas_carc_feature a, cas_carc_feature b)
{
    const struct cas_state *s = CSTATE_OF(c);
    return valid_feature(s, a) && valid_feature(s, b) &&
           carc_root(s, a) == carc_root(s, b);
}

static int api_attribute(const cas_carc *c, cas_carc_feature f, int attribute)
{
    const struct cas_state *s = CSTATE_OF(c);
    if (!valid_feature(s, f) || attribute < 0 || attribute >= s->game->nattrs)
        return 0;
    return C_NODES(s)[carc_root(s, f)].attr[attribute];
}

static int api_figures_on(const cas_carc *c, cas_carc_feature f,
                          struct cas_carc_figure *buf, size_t cap, size_t *count)
{
    const struct cas_state *s = CSTATE_OF(c);
    if (!valid_feature(s, f))
        return CAS_EINVAL;
    size_t n = 0;
    int root = carc_root(s, f);
    int left = C_NODES(s)[root].figs; /* the walk stops once all are found */
    for (int i = 0; left > 0 && i < s->nfigs; i++) {
        const struct carc_fig *fig = &C_FIGS(s)[i];
        if (carc_root(s, fig->node) != root)
            continue;
        left--;
        if (n < cap)
            buf[n] = (struct cas_carc_figure){.id = i, .player = fig->player,
                                              .kind = fig->kind, .feature = root};
        n++;
    }
    *count = n;
    return n > cap ? CAS_ENOSPC : CAS_OK;
}

static int api_supply(const cas_carc *c, int player, int kind)
{
    const struct cas_state *s = CSTATE_OF(c);
    if (player < 0 || player >= s->game->nplayers || kind < 0 || kind >= s->game->nfig)
        return 0;
    return s->supply[player][kind];
}

static int api_can_place(const cas_carc *c, int kind, int x, int y, int rot)
{
    const struct cas_state *s = CSTATE_OF(c);
    if (kind < 0 || kind >= s->game->nkinds || rot < 0 || rot > 3)
        return 0;
    return cas__carc_fits(s, kind, x, y, rot);
}

/* Roads and cities are counted as they close (board.c); cloisters, which
 * no rule counts during play, by a walk of every node. */
static int api_completed_count(const cas_carc *c, enum cas_carc_class cls)
{
    const struct cas_state *s = CSTATE_OF(c);
    const struct carc_node *nodes = C_NODES(s);
    int n = 0;
    if (cls == CAS_CARC_ROAD || cls == CAS_CARC_CITY)
        return s->nclosed[cls];
    for (int i = 0; i < s->nnodes; i++)
        if (nodes[i].root == i && nodes[i].cls == (int)cls)
            n += cas__carc_feature_complete(s, i);
    return n;
}

static void api_add_score(cas_carc *c, int player, int64_t points, const char *reason)
{
    struct cas_state *s = STATE_OF(c);
    if (player >= 0 && player < s->game->nplayers)
        cas__carc_add_score(s, player, points, reason, NULL);
}

static void api_add_score_about(cas_carc *c, int player, int64_t points, const char *reason,
                                const char *category, const char *subject,
                                enum cas_carc_when when)
{
    struct cas_state *s = STATE_OF(c);
    struct carc_score_about about = {category, subject, when == CAS_CARC_FINAL};
    if (player >= 0 && player < s->game->nplayers)
        cas__carc_add_score(s, player, points, reason, category ? &about : NULL);
}

static int api_events_wanted(const cas_carc *c) { return CSTATE_OF(c)->sink != NULL; }

static int api_deploy_vetoed(const cas_carc *c, int player, int kind, cas_carc_feature part)
{
    const struct cas_state *s = CSTATE_OF(c);
    if (!valid_feature(s, part) || player < 0 || player >= s->game->nplayers || kind < 0 ||
        kind >= s->game->nfig)
        return 0;
    return cas__carc_hook_veto_deploy(s, player, kind, part);
}

static void api_event(cas_carc *c, int player, const char *text)
{
    cas__carc_event(STATE_OF(c), CAS_EVENT_INFO, player, 0, text);
}

static int api_deploy(cas_carc *c, int player, int kind, cas_carc_feature f)
{
    struct cas_state *s = STATE_OF(c);
    if (!valid_feature(s, f) || player < 0 || player >= s->game->nplayers ||
        kind < 0 || kind >= s->game->nfig || s->supply[player][kind] == 0)
        return CAS_EILLEGAL;
    cas__carc_deploy(s, player, kind, f);
    return CAS_OK;
}

static int api_return_figure(cas_carc *c, int figure_id)
{
    struct cas_state *s = STATE_OF(c);
    if (figure_id < 0 || figure_id >= s->nfigs)
        return CAS_EINVAL;
    int root = carc_root(s, C_FIGS(s)[figure_id].node);
    cas__carc_return_figure(s, figure_id);
    cas__carc_return_escorted(s, root);
    return CAS_OK;
}

static int placed_copies(const struct cas_state *s, int kind)
{
    int n = 0;
    for (int t = 0; t < s->ntiles; t++)
        n += C_TILES(s)[t].kind == kind;
    return n;
}

static int api_place_tile(cas_carc *c, int kind, int x, int y, int rot)
{
    struct cas_state *s = STATE_OF(c);
    if (s->placed >= 0 || !api_can_place(c, kind, x, y, rot) ||
        placed_copies(s, kind) >= s->game->kinds[kind].count)
        return CAS_EILLEGAL;
    s->placed = (int16_t)cas__carc_place(s, kind, x, y, rot, s->player);
    s->placed_by_phase = 1;
    cas__carc_hook_tile_placed(s, s->placed);
    return CAS_OK;
}

static void api_grant_extra_turn(cas_carc *c)
{
    STATE_OF(c)->extra_turn = 1;
}

static int api_tile_kind_count(const cas_carc_game *gh, int kind)
{
    const struct cas_game *g = GAME_OF(gh);
    return kind >= 0 && kind < g->nkinds ? g->kinds[kind].count : 0;
}

/* x, then y (then rotation): the order open_spots and placements promise. */
static int compare_ints(const int *p, const int *q, int n)
{
    for (int i = 0; i < n; i++)
        if (p[i] != q[i])
            return (p[i] > q[i]) - (p[i] < q[i]);
    return 0;
}

static int compare_xyr(const void *a, const void *b) { return compare_ints(a, b, 3); }

/* The open spots with at least `sides` of their four sides facing a tile
 * (`count` of them), sorted by x then y: packed into codes (x, then y,
 * biased to unsigned) and sorted with the placement codes' sort, which is
 * cheaper than qsort's call per comparison; the scratch buffer grows from
 * the host when the stack one is short. */
static int sorted_spots(const struct cas_state *s, int sides, size_t count, int *xy,
                        size_t cap)
{
    if (count > cap)
        return CAS_ENOSPC;
    if (count == 0)
        return CAS_OK; /* the abbey's question at most turns: no hole */
    cas_action local[1024], *keys = local;
    const struct cas_host *host = s->game->host;
    if (count > sizeof local / sizeof local[0] &&
        !(keys = host->alloc(host->ctx, count * sizeof *keys)))
        return CAS_ENOMEM;
    size_t n = 0;
    for (int i = 0; i < s->nfront && n < count; i++) { /* stop early: count is known */
        const struct carc_cell *cell = &C_CELLS(s)[C_FRONT(s)[i]];
        if (cell->open >= sides)
            keys[n++] = (cas_action)(uint16_t)(cell->x + 0x8000) << 16 |
                        (uint16_t)(cell->y + 0x8000);
    }
    cas__carc_sort_unique(keys, n);
    for (size_t i = 0; i < n; i++) {
        xy[2 * i] = (int)(keys[i] >> 16) - 0x8000;
        xy[2 * i + 1] = (int)(keys[i] & 0xFFFF) - 0x8000;
    }
    if (keys != local)
        host->release(host->ctx, keys);
    return CAS_OK;
}

static int api_open_spots(const cas_carc *c, int *xy, size_t cap, size_t *count)
{
    const struct cas_state *s = CSTATE_OF(c);
    *count = s->nfront;
    return sorted_spots(s, 1, *count, xy, cap);
}

/* The engine keeps the count, so a caller asking only how many (cap 0)
 * pays nothing for the frontier. */
static int api_enclosed_spots(const cas_carc *c, int *xy, size_t cap, size_t *count)
{
    const struct cas_state *s = CSTATE_OF(c);
    *count = s->nenclosed;
    return sorted_spots(s, 4, *count, xy, cap);
}

static const char *api_player_label(const cas_carc_game *gh, int player)
{
    return player >= 0 && player < GAME_OF(gh)->nplayers ? cas__carc_colours[player]
                                                         : "nobody";
}

/* Legal placement codes decoded into x,y,rot triples.  The codes of a 2x1
 * tile are collected with duplicates before sorting, hence the scratch
 * buffer, grown from the host when the stack one is short. */
static int api_placements(const cas_carc *c, int kind, int *xyr, size_t cap, size_t *count)
{
    const struct cas_state *s = CSTATE_OF(c);
    if (kind < 0 || kind >= s->game->nkinds)
        return CAS_EINVAL;
    cas_action local[1024], *codes = local;
    size_t room = sizeof local / sizeof local[0], n;
    int rc = cas__carc_placements(s, kind, codes, room, &n);
    if (rc == CAS_ENOSPC) {
        const struct cas_host *host = s->game->host;
        room = n;
        codes = host->alloc(host->ctx, room * sizeof *codes);
        if (!codes)
            return CAS_ENOMEM;
        rc = cas__carc_placements(s, kind, codes, room, &n);
    }
    if (rc == CAS_OK) {
        for (size_t i = 0; i < n && i < cap; i++) {
            int k;
            cas__carc_placement_of(s, codes[i], &k, &xyr[3 * i], &xyr[3 * i + 1],
                                   &xyr[3 * i + 2]);
        }
        /* spot codes come by pattern group: into x, y, rotation order (the
         * coordinate codes of other tiles are in it already) */
        if (n <= cap && s->game->kinds[kind].ncells == 1)
            qsort(xyr, n, 3 * sizeof *xyr, compare_xyr);
        *count = n;
        rc = n > cap ? CAS_ENOSPC : CAS_OK;
    }
    if (codes != local)
        s->game->host->release(s->game->host->ctx, codes);
    return rc;
}

static int api_fits_anywhere(const cas_carc *c, int kind)
{
    const struct cas_state *s = CSTATE_OF(c);
    return kind >= 0 && kind < s->game->nkinds && cas__carc_fits_anywhere(s, kind);
}

static cas_carc_feature api_figure_part(const cas_carc *c, int figure)
{
    const struct cas_state *s = CSTATE_OF(c);
    if (figure < 0 || figure >= s->nfigs)
        return CAS_CARC_NO_FEATURE;
    return C_FIGS(s)[figure].node;
}

static int api_part_tile(const cas_carc *c, cas_carc_feature f)
{
    const struct cas_state *s = CSTATE_OF(c);
    return valid_feature(s, f) ? C_NODES(s)[f].tile : -1;
}

static int api_part_text(const cas_carc *c, cas_carc_feature f, char *buf, size_t cap)
{
    const struct cas_state *s = CSTATE_OF(c);
    if (!valid_feature(s, f))
        return CAS_EINVAL;
    const struct carc_node *n = &C_NODES(s)[f];
    const struct carc_tile *t = &C_TILES(s)[n->tile];
    int len = snprintf(buf, cap, "%s", s->game->kinds[t->kind].rot[t->rot].ftext[n->local]);
    return (size_t)len < cap ? len : CAS_ENOSPC;
}

static unsigned api_part_edges(const cas_carc *c, cas_carc_feature f)
{
    const struct cas_state *s = CSTATE_OF(c);
    if (!valid_feature(s, f))
        return 0;
    const struct carc_node *n = &C_NODES(s)[f];
    const struct carc_tile *t = &C_TILES(s)[n->tile];
    const struct carc_kind *k = &s->game->kinds[t->kind];
    unsigned sides = 0;
    for (int cell = 0; cell < k->ncells; cell++)
        for (int b = 0; b < 4; b++)
            if (k->rot[t->rot].seg[cell][b][1] == n->local)
                sides |= 1u << (4 * cell + b);
    return sides;
}

static int api_score_feature(cas_carc *c, cas_carc_feature f, enum cas_carc_when when)
{
    struct cas_state *s = STATE_OF(c);
    if (!valid_feature(s, f) || (when != CAS_CARC_DURING && when != CAS_CARC_FINAL))
        return CAS_EINVAL;
    cas__carc_score_feature(s, carc_root(s, f), when);
    return CAS_OK;
}

static int api_feature_class(const cas_carc *c, cas_carc_feature f)
{
    const struct cas_state *s = CSTATE_OF(c);
    return valid_feature(s, f) ? cas__carc_feature_class(s, f) : 0;
}

static int api_feature_complete(const cas_carc *c, cas_carc_feature f)
{
    const struct cas_state *s = CSTATE_OF(c);
    return valid_feature(s, f) && cas__carc_feature_complete(s, carc_root(s, f));
}

static unsigned api_part_links(const cas_carc *c, cas_carc_feature p, int reading)
{
    const struct cas_state *s = CSTATE_OF(c);
    if (!valid_feature(s, p) || reading < 0 || reading >= CAS_CARC_LINK_READINGS)
        return 0;
    const struct carc_node *n = &C_NODES(s)[p];
    const struct carc_kind *k = &s->game->kinds[C_TILES(s)[n->tile].kind];
    return k->links[k->links_read >> reading & 1 ? reading : CAS_CARC_LINKS_DEFAULT][n->local];
}

const struct cas_carc_api cas__carc_api = {
    .struct_size = sizeof(struct cas_carc_api),
    .abi_major = CAS_CARC_ABI_MAJOR,
    .abi_minor = CAS_CARC_ABI_MINOR,
    .attribute_index = api_attribute_index,
    .figure_kind_index = api_figure_kind_index,
    .tile_kind_index = api_tile_kind_index,
    .nplayers = api_nplayers,
    .game = api_game,
    .xstate = api_xstate,
    .xstate_const = api_xstate_const,
    .active_player = api_active_player,
    .placed_tile = api_placed_tile,
    .tile_count = api_tile_count,
    .tile_info = api_tile_info,
    .tile_at = api_tile_at,
    .tile_features = api_tile_features,
    .feature_info = api_feature_info,
    .same_feature = api_same_feature,
    .attribute = api_attribute,
    .figures_on = api_figures_on,
    .supply = api_supply,
    .bag_left = api_bag_left,
    .can_place = api_can_place,
    .completed_count = api_completed_count,
    .add_score = api_add_score,
    .event = api_event,
    .deploy = api_deploy,
    .return_figure = api_return_figure,
    .place_tile = api_place_tile,
    .grant_extra_turn = api_grant_extra_turn,
    .tile_kind_count = api_tile_kind_count,
    .open_spots = api_open_spots,
    .player_label = api_player_label,
    .figure_part = api_figure_part,
    .part_tile = api_part_tile,
    .part_text = api_part_text,
    .part_edges = api_part_edges,
    .score_feature = api_score_feature,
    .feature_class = api_feature_class,
    .placements = api_placements,
    .fits_anywhere = api_fits_anywhere,
    .add_score_about = api_add_score_about,
    .enclosed_spots = api_enclosed_spots,
    .feature_complete = api_feature_complete,
    .events_wanted = api_events_wanted,
    .deploy_vetoed = api_deploy_vetoed,
    .tile_parts_of = api_tile_parts_of,
    .part_links = api_part_links,
};
