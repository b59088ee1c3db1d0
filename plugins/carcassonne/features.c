/*
 * features.c — features as a union-find over the feature nodes of placed
 * tiles.  Every node stores its root directly (the smaller set is relabelled
 * on union), so lookups on a const state are O(1); members of a set form a
 * circular list for walks.  Roots carry the open-edge count (0 = complete
 * road or city), summed attributes (coats of arms, inns, goods), the
 * number of figures on the feature and flags.
 */
#include "carc.h"

int cas__carc_union(struct cas_state *s, int a, int b)
{
    struct carc_node *n = S_NODES(s);
    int ra = n[a].root, rb = n[b].root;
    if (ra == rb)
        return ra;
    if (n[ra].size < n[rb].size) {
        int t = ra;
        ra = rb;
        rb = t;
    }
    int m = rb;
    do {
        n[m].root = (uint16_t)ra;
        m = n[m].next;
    } while (m != rb);
    uint16_t next = n[ra].next;
    n[ra].next = n[rb].next;
    n[rb].next = next;
    n[ra].size = (uint16_t)(n[ra].size + n[rb].size);
    n[ra].open = (int16_t)(n[ra].open + n[rb].open);
    n[ra].flags |= n[rb].flags;
    n[ra].figs = (uint8_t)(n[ra].figs + n[rb].figs);
    for (int i = 0; i < CARC_MAX_ATTRS; i++)
        n[ra].attr[i] = (uint8_t)(n[ra].attr[i] + n[rb].attr[i]);
    return ra;
}

const struct carc_feature_def *cas__carc_fdef(const struct cas_state *s, int node)
{
    const struct carc_node *n = &C_NODES(s)[node];
    const struct carc_tile *t = &C_TILES(s)[n->tile];
    return &s->game->kinds[t->kind].f[n->local];
}

/* The spaces of a 2x1 tile t that its features of the set from `local`
 * on cover (one or both). */
static int spaces_from(const struct cas_state *s, const struct carc_tile *t,
                       const struct carc_kind *k, int root, int local)
{
    unsigned cells = 0;
    for (int l = local; l < k->nf; l++)
        if (C_NODES(s)[t->node_base + l].root == root)
            cells |= k->f[l].cellmask;
    return (int)(cells & 1) + (int)(cells >> 1 & 1);
}

/* A tile counts once however many of its features the set holds: count it
 * at its lowest local feature in the set, with the spaces they cover (a
 * tile of one space: one). */
void cas__carc_feature_size(const struct cas_state *s, int node, int *spaces,
                            int *tiles)
{
    _Static_assert(CARC_MAX_CELLS == 2, "spaces_from counts two cells");
    const struct carc_node *n = C_NODES(s);
    int root = n[node].root, m = root;
    *spaces = *tiles = 0;
    do {
        const struct carc_tile *t = &C_TILES(s)[n[m].tile];
        int local = n[m].local, first = 1;
        for (int l = 0; l < local && first; l++)
            first = n[t->node_base + l].root != root;
        if (first) {
            const struct carc_kind *k = &s->game->kinds[t->kind];
            (*tiles)++;
            *spaces += k->ncells == 1 ? 1 : spaces_from(s, t, k, root, local);
        }
        m = n[m].next;
    } while (m != root);
}

/* The filled spaces of the ring around cloister node's tile, and how many
 * spaces were looked at; with stop_at_gap, the walk stops at the first
 * empty space (then *filled < *size). */
static void ring_walk(const struct cas_state *s, int node, int stop_at_gap, int *filled,
                      int *size)
{
    const struct carc_tile *t = &C_TILES(s)[C_NODES(s)[node].tile];
    const struct carc_kind *k = &s->game->kinds[t->kind];
    const struct carc_rot *r = &k->rot[t->rot];
    *filled = *size = 0;
    if (k->ncells == 1) { /* the common case: the 8 spaces around */
        *size = 8;
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++) {
                if (!dx && !dy)
                    continue;
                int here = cas__carc_tile_at(s, t->x + dx, t->y + dy) >= 0;
                *filled += here;
                if (!here && stop_at_gap)
                    return;
            }
        return;
    }
    /* a 2x1 tile: the box one space around its two cells, less those */
    int dx = r->dx[1], dy = r->dy[1]; /* cell 1 from the anchor */
    int x0 = t->x + (dx < 0 ? dx : 0) - 1, x1 = t->x + (dx > 0 ? dx : 0) + 1;
    int y0 = t->y + (dy < 0 ? dy : 0) - 1, y1 = t->y + (dy > 0 ? dy : 0) + 1;
    for (int y = y0; y <= y1; y++)
        for (int x = x0; x <= x1; x++) {
            if ((x == t->x && y == t->y) || (x == t->x + dx && y == t->y + dy))
                continue;
            (*size)++;
            int here = cas__carc_tile_at(s, x, y) >= 0;
            *filled += here;
            if (!here && stop_at_gap)
                return;
        }
}

void cas__carc_ring(const struct cas_state *s, int node, int *filled, int *size)
{
    ring_walk(s, node, 0, filled, size);
}

/* Most rings have a gap: looking stops at the first. */
int cas__carc_feature_complete(const struct cas_state *s, int node)
{
    int cls = cas__carc_feature_class(s, node);
    if (cls == CAS_CARC_ROAD || cls == CAS_CARC_CITY)
        return C_NODES(s)[C_NODES(s)[node].root].open == 0;
    if (cls == CAS_CARC_CLOISTER) {
        int filled, size;
        ring_walk(s, node, 1, &filled, &size);
        return filled == size;
    }
    return 0;
}

int cas__carc_field_cities(const struct cas_state *s, int node)
{
    const struct carc_node *n = C_NODES(s);
    int root = n[node].root, m = root;
    uint16_t seen[256];
    int nseen = 0;
    do {
        const struct carc_tile *t = &C_TILES(s)[n[m].tile];
        const struct carc_feature_def *d = &s->game->kinds[t->kind].f[n[m].local];
        for (int i = 0; i < d->ntouch; i++) {
            int city = n[t->node_base + d->touch[i]].root;
            if (n[city].open != 0)
                continue;
            int dup = 0;
            for (int j = 0; j < nseen && !dup; j++)
                dup = seen[j] == city;
            if (!dup && nseen < 256)
                seen[nseen++] = (uint16_t)city;
        }
        m = n[m].next;
    } while (m != root);
    return nseen;
}
