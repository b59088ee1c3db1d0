/*
 * features.c — tiles on the board and the features they form: where a tile
 * fits (only paths must match), joining same-class parts across an edge
 * (a union-find whose roots carry open sides, followers, markets and
 * fountains), completion, and the walks over a feature's members.
 *
 * Across an edge, slot part k of one side meets part 2-k of the other
 * side (their halves run clockwise in opposite directions).  A feature's
 * open count is the number of (member, side) pairs facing an empty
 * interior space; the wall closes a side, and so does a different feature.
 */
#include <stdio.h>
#include <string.h>

#include "castle.h"

static const struct rotation *rot_of(const cas_state *s, const struct placement *pl)
{
    return &s->game->tiles.kind[pl->kind].rot[pl->rot];
}

bool cell_requirement(const cas_state *s, int cell, uint8_t *need, uint8_t *care)
{
    const struct board *b = &s->game->board;
    if (b->cell[cell] != CELL_INTERIOR || s->at[cell] != NONE8)
        return false;
    *need = *care = 0;
    for (int side = 0; side < 4; side++) {
        int n = board_neighbour(b, cell, side);
        if (n < 0 || s->at[n] == NONE8)
            continue; /* off the grid, wall or empty space: anything goes */
        *care |= (uint8_t)(1u << side);
        if (rot_of(s, &s->placed[s->at[n]])->path_sides & (1u << ((side + 2) % 4)))
            *need |= (uint8_t)(1u << side);
    }
    return *care != 0;
}

bool placement_fits(const cas_state *s, int cell, int kind, int rot)
{
    uint8_t need, care;
    return cell_requirement(s, cell, &need, &care) &&
           (s->game->tiles.kind[kind].rot[rot].path_sides & care) == need;
}

/* Join b's set into a's (or the other way, smaller into larger). */
static void join(cas_state *s, unsigned a, unsigned b)
{
    unsigned ra = root_of(s, a), rb = root_of(s, b);
    if (ra == rb)
        return;
    if (s->nodes[ra].size < s->nodes[rb].size) {
        unsigned t = ra;
        ra = rb;
        rb = t;
    }
    struct node *to = &s->nodes[ra], *from = &s->nodes[rb];
    unsigned last = rb;
    for (unsigned m = rb; m != NONE16; m = s->nodes[m].next) {
        s->nodes[m].root = (uint16_t)ra;
        last = m;
    }
    s->nodes[last].next = to->next;
    to->next = (uint16_t)rb;
    to->size = (uint16_t)(to->size + from->size);
    to->open = (int16_t)(to->open + from->open);
    to->fountain |= from->fountain;
    to->markets = (uint8_t)(to->markets + from->markets);
    for (int p = 0; p < NPLAYERS; p++)
        to->figs[p] = (uint8_t)(to->figs[p] + from->figs[p]);
}

static void add_done(cas_state *s, unsigned root, uint16_t *done, int *ndone)
{
    if (!done || s->nodes[root].cls == C_COURT || s->nodes[root].open != 0)
        return;
    for (int i = 0; i < *ndone; i++)
        if (done[i] == root)
            return;
    if (*ndone < MAX_PENDING)
        done[(*ndone)++] = (uint16_t)root;
}

int place_tile(cas_state *s, int cell, int kind, int rot, uint16_t *done, int *ndone)
{
    const struct board *b = &s->game->board;
    const struct tile_kind *k = &s->game->tiles.kind[kind];
    const struct rotation *r = &k->rot[rot];
    int index = s->nplaced++;
    struct placement *pl = &s->placed[index];
    *pl = (struct placement){.cell = (uint16_t)cell, .kind = (uint8_t)kind, .rot = (uint8_t)rot,
                             .node_base = s->nnodes};
    s->at[cell] = (uint8_t)index;
    for (int f = 0; f < k->nf; f++) {
        struct node *n = &s->nodes[pl->node_base + f];
        *n = (struct node){.root = (uint16_t)(pl->node_base + f), .next = NONE16, .size = 1,
                           .placed = (uint8_t)index, .local = (uint8_t)f, .cls = k->f[f].cls,
                           .fountain = k->f[f].fountain, .markets = k->f[f].markets};
    }
    s->nnodes = (uint16_t)(s->nnodes + k->nf);
    /* open sides first, so no join below sees a feature as closed too early */
    for (int side = 0; side < 4; side++) {
        int nb = board_neighbour(b, cell, side);
        if (nb >= 0 && b->cell[nb] != CELL_WALL && s->at[nb] == NONE8)
            for (int f = 0; f < k->nf; f++)
                if (r->sides[f] & (1u << side))
                    s->nodes[pl->node_base + f].open++;
    }
    uint16_t touched[4 * MAX_TF];
    int ntouched = 0;
    for (int side = 0; side < 4; side++) {
        int nb = board_neighbour(b, cell, side);
        if (nb < 0 || s->at[nb] == NONE8)
            continue;
        const struct placement *other = &s->placed[s->at[nb]];
        const struct rotation *or = rot_of(s, other);
        int oside = (side + 2) % 4;
        for (int part = 0; part < 3; part++) {
            uint8_t mine = r->slot[SLOT(side, part)];
            uint8_t theirs = or->slot[SLOT(oside, 2 - part)];
            if (mine == NONE8 || theirs == NONE8)
                continue;
            unsigned a = pl->node_base + mine, c = other->node_base + theirs;
            if (s->nodes[a].cls == s->nodes[c].cls)
                join(s, a, c);
        }
        /* the neighbour's features facing this cell counted it as open */
        const struct tile_kind *ok = &s->game->tiles.kind[other->kind];
        for (int f = 0; f < ok->nf; f++)
            if (or->sides[f] & (1u << oside)) {
                s->nodes[root_of(s, other->node_base + f)].open--;
                touched[ntouched++] = (uint16_t)(other->node_base + f);
            }
    }
    for (int i = 0; i < ntouched; i++)
        add_done(s, root_of(s, touched[i]), done, ndone);
    for (int f = 0; f < k->nf; f++)
        add_done(s, root_of(s, pl->node_base + f), done, ndone);
    return index;
}

bool feature_complete(const cas_state *s, unsigned root)
{
    return s->nodes[root].cls != C_COURT && s->nodes[root].open == 0;
}

int feature_tiles(const cas_state *s, unsigned root)
{
    uint8_t seen[(MAX_PLACED + 7) / 8] = {0};
    int n = 0;
    for (unsigned m = root; m != NONE16; m = s->nodes[m].next) {
        unsigned p = s->nodes[m].placed;
        if (!(seen[p / 8] & (1u << (p % 8)))) {
            seen[p / 8] |= (uint8_t)(1u << (p % 8));
            n++;
        }
    }
    return n;
}

uint16_t feature_canonical(const cas_state *s, unsigned root)
{
    unsigned best = root;
    for (unsigned m = root; m != NONE16; m = s->nodes[m].next) {
        unsigned cb = s->placed[s->nodes[best].placed].cell, cm = s->placed[s->nodes[m].placed].cell;
        if (cm < cb || (cm == cb && s->nodes[m].local < s->nodes[best].local))
            best = m;
    }
    return (uint16_t)best;
}

int slots_text(const cas_state *s, unsigned node, char *buf, size_t cap)
{
    static const char sides[] = "NESW";
    static const char *const halves[8] = {"Nw", "Ne", "En", "Es", "Se", "Sw", "Ws", "Wn"};
    const struct node *n = &s->nodes[node];
    const struct rotation *r = rot_of(s, &s->placed[n->placed]);
    size_t len = 0;
    buf[0] = '\0';
    for (int side = 0; side < 4; side++) {
        bool first = r->slot[SLOT(side, 0)] == n->local;
        bool middle = r->slot[SLOT(side, MIDDLE)] == n->local;
        bool second = r->slot[SLOT(side, 2)] == n->local;
        const char *parts[2] = {NULL, NULL};
        char letter[2] = {sides[side], '\0'};
        if (middle || (first && second))
            parts[0] = letter;
        else if (first)
            parts[0] = halves[side * 2];
        else if (second)
            parts[0] = halves[side * 2 + 1];
        for (int i = 0; i < 2 && parts[i]; i++)
            len += (size_t)snprintf(buf + len, len < cap ? cap - len : 0, "%s%s",
                                    len ? "+" : "", parts[i]);
    }
    return len < cap ? (int)len : CAS_ENOSPC;
}

void cell_name(const struct board *b, int cell, char *buf, size_t cap)
{
    int row = cell / b->w + 1; /* at most MAX_GRID_H: two digits */
    char text[4] = {(char)('a' + cell % b->w), row >= 10 ? (char)('0' + row / 10) : (char)('0' + row),
                    row >= 10 ? (char)('0' + row % 10) : '\0', '\0'};
    snprintf(buf, cap, "%s", text);
}

int largest_empty_group(const cas_state *s)
{
    const struct board *b = &s->game->board;
    uint8_t seen[MAX_GRID] = {0};
    uint16_t queue[MAX_GRID];
    int best = 0;
    for (int c = 0; c < b->w * b->h; c++) {
        if (seen[c] || b->cell[c] != CELL_INTERIOR || s->at[c] != NONE8)
            continue;
        int head = 0, tail = 0, size = 0;
        queue[tail++] = (uint16_t)c;
        seen[c] = 1;
        while (head < tail) {
            int cur = queue[head++];
            size++;
            for (int side = 0; side < 4; side++) {
                int n = board_neighbour(b, cur, side);
                if (n >= 0 && !seen[n] && b->cell[n] == CELL_INTERIOR && s->at[n] == NONE8) {
                    seen[n] = 1;
                    queue[tail++] = (uint16_t)n;
                }
            }
        }
        if (size > best)
            best = size;
    }
    return best;
}
