/*
 * figures.c — figures on the board: who may deploy what where (class,
 * supply, occupancy, farmers option, expansion vetoes), deploying,
 * returning, and the strength a figure adds to its owner's majority.
 *
 * Deployed figures are a short unordered array (at most players x supply);
 * removal swaps the last one in, so callers that remove while walking walk
 * backwards.
 */
#include "carc.h"

#include <string.h>

int cas__carc_strength(const struct cas_state *s, int fig)
{
    const struct carc_fig *f = &C_FIGS(s)[fig];
    const struct carc_figkind *k = &s->game->fig[f->kind];
    if (s->game->nexp > 0) {
        int answer = cas__carc_hook_strength(s, fig, C_NODES(s)[f->node].root);
        if (answer != CAS_CARC_NO_ANSWER)
            return answer;
    }
    if (k->def.strength_on)
        return k->def.strength_on(s->game->exp[k->exp].xctx, CARC_COF(s), f->player,
                                  C_NODES(s)[f->node].root);
    return k->def.strength;
}

/* Does player have a figure of a kind that needs no escort on the feature
 * with this root?  (An escorted figure stands only beside one.) */
static int has_companion(const struct cas_state *s, int player, int root)
{
    const struct carc_fig *f = C_FIGS(s);
    int left = C_NODES(s)[root].figs; /* the walk stops once all are seen */
    for (int i = 0; left > 0 && i < s->nfigs; i++) {
        if (carc_root(s, f[i].node) != root)
            continue;
        left--;
        if (f[i].player == player &&
            !(s->game->fig[f[i].kind].def.flags & CAS_CARC_FIG_ESCORTED))
            return 1;
    }
    return 0;
}

/* The checks that ask plugins: the figure kind's own can_deploy and the
 * expansions' veto_deploy. */
static int hooks_allow(const struct cas_state *s, int player, int figkind, int node)
{
    const struct cas_game *g = s->game;
    const struct carc_figkind *k = &g->fig[figkind];
    if (k->def.can_deploy &&
        k->def.can_deploy(g->exp[k->exp].xctx, CARC_COF(s), player, C_NODES(s)[node].root))
        return 0;
    return !cas__carc_hook_veto_deploy(s, player, figkind, node);
}

int cas__carc_deploy_legal(const struct cas_state *s, int player, int figkind,
                           int node)
{
    const struct cas_game *g = s->game;
    const struct carc_figkind *k = &g->fig[figkind];
    int cls = cas__carc_feature_class(s, node);
    int root = C_NODES(s)[node].root;
    if (!(k->def.classes & CAS_CARC_CLASS_BIT(cls)))
        return 0;
    if (cls == CAS_CARC_FIELD && !g->farmers)
        return 0;
    if (s->supply[player][figkind] == 0)
        return 0;
    if (!(k->def.flags & CAS_CARC_FIG_JOINS) && carc_occupied(s, root))
        return 0;
    if ((k->def.flags & CAS_CARC_FIG_ESCORTED) && !has_companion(s, player, root))
        return 0;
    return hooks_allow(s, player, figkind, node);
}

/* The classes of mask as "roads, cities", into buf. */
static void class_names(uint32_t mask, char *buf, size_t cap)
{
    static const char *const plural[] = {[CAS_CARC_ROAD] = "roads", [CAS_CARC_CITY] = "cities",
                                         [CAS_CARC_FIELD] = "fields",
                                         [CAS_CARC_CLOISTER] = "monasteries"};
    size_t len = 0;
    buf[0] = '\0';
    for (size_t c = 0; c < sizeof plural / sizeof plural[0] && len < cap; c++)
        if (plural[c] && mask & CAS_CARC_CLASS_BIT(c))
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", plural[c]);
}

void cas__carc_deploy_refusal(const struct cas_state *s, int player, int figkind, int node,
                              char *buf, size_t cap)
{
    const struct cas_game *g = s->game;
    const struct carc_figkind *k = &g->fig[figkind];
    int cls = cas__carc_feature_class(s, node), root = C_NODES(s)[node].root;
    char classes[64];
    class_names(k->def.classes, classes, sizeof classes);
    if (!(k->def.classes & CAS_CARC_CLASS_BIT(cls)))
        snprintf(buf, cap, "a %s stands on %s only", k->def.name, classes);
    else if (cls == CAS_CARC_FIELD && !g->farmers)
        snprintf(buf, cap, "farmers are off in this game (option farmers)");
    else if (s->supply[player][figkind] == 0)
        snprintf(buf, cap, "%s has no %s left in the supply", cas__carc_colours[player],
                 k->def.name);
    else if (!(k->def.flags & CAS_CARC_FIG_JOINS) && carc_occupied(s, root))
        snprintf(buf, cap, "a figure already stands on that feature (on this tile or one "
                 "it joins)");
    else if ((k->def.flags & CAS_CARC_FIG_ESCORTED) && !has_companion(s, player, root))
        snprintf(buf, cap, "a %s goes only where %s has a follower already", k->def.name,
                 cas__carc_colours[player]);
    else
        snprintf(buf, cap, "the rules of an expansion in play forbid a %s there",
                 k->def.name);
}

/* The field node of cell `sub` of placement t whose two half-edges
 * meeting at its corner q (0 NW, 1 NE, 2 SE, 3 SW) are one field, or -1. */
static int tile_corner_field(const struct cas_state *s, const struct carc_tile *t, int sub,
                             int q)
{
    uint8_t local = s->game->kinds[t->kind].rot[t->rot].corner[sub][q];
    return local != SEG_FREE ? t->node_base + local : -1;
}

/* The same for the tile at x,y, or -1 for an empty space. */
static int corner_field(const struct cas_state *s, int x, int y, int q)
{
    int ci = cas__carc_cell_find(s, x, y);
    if (ci < 0 || C_CELLS(s)[ci].tile == CARC_NONE)
        return -1;
    const struct carc_cell *cell = &C_CELLS(s)[ci];
    return tile_corner_field(s, &C_TILES(s)[cell->tile], cell->sub, q);
}

/* May corner q of the placed tile hold a corner figure as far as the tile
 * itself tells: one-space, its own field there, and tiles on the two
 * sides meeting at the corner (placed_sides knows them for the tile placed
 * last; a state read from a save may name another)? */
static int corner_may_hold(const struct cas_state *s, const struct carc_tile *t, int q)
{
    const struct carc_kind *k = &s->game->kinds[t->kind];
    unsigned sides = 1u << q | 1u << (q + 3) % 4;
    return k->ncells == 1 && k->rot[t->rot].corner[0][q] != SEG_FREE &&
           (s->placed != s->ntiles - 1 || (s->placed_sides & sides) == sides);
}

static unsigned corners_to_check(const struct cas_state *s, const struct carc_tile *t)
{
    unsigned corners = 0;
    for (int q = 0; q < 4; q++)
        corners |= (unsigned)corner_may_hold(s, t, q) << q;
    return corners;
}

/* Corner q of the placed tile: the placed tile's field there if all four
 * tiles meeting at that point have field in their corner, else -1. */
static int placed_corner_field(const struct cas_state *s, int q)
{
    static const int point_dx[4] = {0, 1, 1, 0}, point_dy[4] = {0, 0, 1, 1};
    static const int around_dx[4] = {0, -1, -1, 0}, around_dy[4] = {0, 0, -1, -1};
    const struct carc_tile *t = &C_TILES(s)[s->placed];
    if (!corner_may_hold(s, t, q))
        return -1;
    int px = t->x + point_dx[q], py = t->y + point_dy[q];
    int mine = tile_corner_field(s, t, 0, q);
    for (int i = 0; i < 4; i++) /* tile i around the point: corner i */
        if (i != q && corner_field(s, px + around_dx[i], py + around_dy[i], i) < 0)
            return -1;
    return mine;
}

int cas__carc_deploy_node(const struct cas_state *s, int figkind, int local)
{
    const struct cas_game *g = s->game;
    if (s->placed < 0 || figkind >= g->nfig)
        return -1;
    const struct carc_tile *t = &C_TILES(s)[s->placed];
    if (g->fig[figkind].def.flags & CAS_CARC_FIG_CORNER)
        return local >= CARC_CORNER_LOCAL && local < CARC_CORNER_LOCAL + 4
                   ? placed_corner_field(s, local - CARC_CORNER_LOCAL)
                   : -1;
    return local < g->kinds[t->kind].nf ? t->node_base + local : -1;
}

void cas__carc_prepare_deploys(struct cas_game *g)
{
    unsigned classes_allowed = ~0u;
    if (!g->farmers)
        classes_allowed &= ~CAS_CARC_CLASS_BIT(CAS_CARC_FIELD);
    for (int i = 0; i < g->nkinds; i++) {
        struct carc_kind *k = &g->own_kinds[i];
        for (int fk = 0; fk < g->nfig; fk++) {
            unsigned classes = g->fig[fk].def.classes & classes_allowed;
            k->deploy_features[fk] = cas__carc_parts_of_classes(k, classes);
        }
    }
}

/* What the deploy listing works out once for the placed tile's features,
 * so that each figure kind's legality is a mask: bit f of `free`, feature
 * f holds no figure; of `escorts`, the active player has a figure there
 * that an escorted figure may stand beside.  Each is worked out when first
 * asked: a player whose supply is empty needs neither. */
struct deploy_facts {
    int nf;
    unsigned free, escorts;
    int free_known, escorts_known;
};

static unsigned free_features(const struct cas_state *s, const struct carc_tile *t,
                              struct deploy_facts *facts)
{
    if (!facts->free_known) {
        for (int f = 0; f < facts->nf; f++)
            facts->free |= (unsigned)!carc_occupied(s, carc_root(s, t->node_base + f)) << f;
        facts->free_known = 1;
    }
    return facts->free;
}

static unsigned escorts(const struct cas_state *s, const struct carc_tile *t,
                        struct deploy_facts *facts)
{
    if (!facts->escorts_known) {
        unsigned occupied = ~free_features(s, t, facts) & ((1u << facts->nf) - 1);
        for (; occupied; occupied &= occupied - 1) {
            int f = __builtin_ctz(occupied);
            if (has_companion(s, s->player, carc_root(s, t->node_base + f)))
                facts->escorts |= 1u << f;
        }
        facts->escorts_known = 1;
    }
    return facts->escorts;
}

/* The features of the placed tile figure kind fk may stand on before its
 * own can_deploy and the expansions' vetoes are asked: deploy_legal's
 * class, farmers, occupancy and companion tests, as masks. */
static unsigned allowed_features(const struct cas_state *s, const struct carc_tile *t,
                                 const struct carc_kind *k, int fk,
                                 struct deploy_facts *facts)
{
    unsigned flags = s->game->fig[fk].def.flags, features = k->deploy_features[fk];
    if (!(flags & CAS_CARC_FIG_JOINS))
        features &= free_features(s, t, facts);
    if (features && (flags & CAS_CARC_FIG_ESCORTED))
        features &= escorts(s, t, facts);
    return features;
}

/* Append deploy action (fk, f) to buf when it fits; n counts it either way. */
static size_t append_deploy(cas_action *buf, size_t cap, size_t n, int fk, int f)
{
    if (n < cap)
        buf[n] = ACT_DEPLOY_CODE(fk, f);
    return n + 1;
}

/* Figure kind fk's deploys on `locals` that its can_deploy and the
 * expansions' vetoes allow (for a corner kind: that deploy_legal allows). */
static size_t append_checked(const struct cas_state *s, const struct carc_tile *t, int fk,
                             unsigned locals, int corners, cas_action *buf, size_t cap,
                             size_t n)
{
    for (; locals; locals &= locals - 1) {
        int f = __builtin_ctz(locals);
        int legal;
        if (corners) {
            int node = cas__carc_deploy_node(s, fk, f);
            legal = node >= 0 && cas__carc_deploy_legal(s, s->player, fk, node);
        } else {
            legal = hooks_allow(s, s->player, fk, t->node_base + f);
        }
        if (legal)
            n = append_deploy(buf, cap, n, fk, f);
    }
    return n;
}

/* Bit fk: player has a figure of kind fk in supply.  The supply row is
 * read as one word, so the listing branches once per kind it lists, not
 * once per kind there is. */
static unsigned kinds_in_supply(const struct cas_state *s, int player)
{
    _Static_assert(CARC_MAX_FIGKINDS == 8, "one byte a kind in a 64-bit word");
    uint64_t row;
    memcpy(&row, s->supply[player], sizeof row);
    const uint64_t low7 = 0x7F7F7F7F7F7F7F7Full, high = 0x8080808080808080ull;
    uint64_t nonzero = (((row & low7) + low7) | row) & high; /* a byte's top bit */
    return (unsigned)((nonzero >> 7) * 0x0102040810204080ull >> 56);
}

int cas__carc_deploy_actions(const struct cas_state *s, cas_action *buf,
                             size_t cap, size_t *count)
{
    const struct cas_game *g = s->game;
    const struct carc_tile *t = &C_TILES(s)[s->placed];
    const struct carc_kind *k = &g->kinds[t->kind];
    struct deploy_facts facts = {.nf = k->nf};
    size_t n = 0;
    /* figure kind, then feature (corners after features), then pass:
     * ascending code order */
    for (unsigned kinds = kinds_in_supply(s, s->player); kinds; kinds &= kinds - 1) {
        int fk = __builtin_ctz(kinds);
        const struct cas_carc_figure_kind *def = &g->fig[fk].def;
        if (def->flags & CAS_CARC_FIG_CORNER) {
            n = append_checked(s, t, fk, corners_to_check(s, t) << CARC_CORNER_LOCAL, 1, buf,
                               cap, n);
            continue;
        }
        unsigned locals = allowed_features(s, t, k, fk, &facts);
        if (!locals)
            continue; /* mostly an escorted kind without its companion here */
        if (def->can_deploy || k->deploy_vetoed[fk] || n + (size_t)k->nf > cap) {
            n = append_checked(s, t, fk, locals, 0, buf, cap, n);
            continue;
        }
        for (; locals; locals &= locals - 1) /* nothing to ask */
            buf[n++] = ACT_DEPLOY_CODE(fk, __builtin_ctz(locals));
    }
    if (n < cap)
        buf[n] = ACT_MAKE(ACT_PASS);
    n++;
    *count = n;
    return n > cap ? CAS_ENOSPC : CAS_OK;
}

void cas__carc_stand_figure(struct cas_state *s, int player, int figkind, int node)
{
    S_FIGS(s)[s->nfigs++] = (struct carc_fig){.player = (uint8_t)player,
                                              .kind = (uint8_t)figkind,
                                              .node = (uint16_t)node};
    S_NODES(s)[carc_root(s, node)].figs++;
}

void cas__carc_deploy(struct cas_state *s, int player, int figkind, int node)
{
    cas__carc_stand_figure(s, player, figkind, node);
    s->supply[player][figkind]--;
}

void cas__carc_return_figure(struct cas_state *s, int fig)
{
    struct carc_fig *f = S_FIGS(s);
    s->supply[f[fig].player][f[fig].kind]++;
    S_NODES(s)[carc_root(s, f[fig].node)].figs--;
    f[fig] = f[--s->nfigs];
}

void cas__carc_return_escorted(struct cas_state *s, int root)
{
    unsigned escorted = s->game->escorted;
    if (!escorted || !carc_occupied(s, root))
        return;
    for (int i = s->nfigs - 1; i >= 0; i--) {
        const struct carc_fig *f = &C_FIGS(s)[i];
        if ((escorted >> f->kind & 1) && carc_root(s, f->node) == root &&
            !has_companion(s, f->player, root))
            cas__carc_return_figure(s, i);
    }
}
