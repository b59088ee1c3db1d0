/*
 * marks.c — what each choice of a decision points at, for the click-to-play
 * picture (CAS_RENDER_SVG_ACTIONS, docs/abi.md "ABI 1.2: click to play"):
 * a placement is a space then a rotation, a deploy a spot on the placed
 * tile then a figure kind, and an expansion's phase action whatever its
 * canonical text names.
 *
 * The engine does not know what an expansion's payload means, so a phase
 * action is read from its text, by the conventions every shipped expansion
 * writes (docs/plugin-guide/carcassonne-expansions.md, "Click to play"):
 * "x,y" is a space (an abbey's hole), "x,y PART" a part of the tile there
 * (a wagon's move), "ID x,y DEG" a tile of kind ID placed from a hand (a
 * castle), a lone tile id a pick ("castle pick CG-3").  Text without any
 * of these (a keep, a pass) is left unmarked: the client lists it as a
 * button.  This keeps the expansion ABI as it is: an expansion that writes
 * its choices this way is marked without doing anything.
 */
#include <stdio.h>

#include "carc.h"

static int key_cmp(const struct carc_mark_key *a, const struct carc_mark_key *b)
{
    if (a->type != b->type)
        return a->type < b->type ? -1 : 1;
    if (a->a != b->a)
        return a->a < b->a ? -1 : 1;
    return a->b < b->b ? -1 : a->b > b->b;
}

static int item_cmp(const struct carc_mark_item *a, const struct carc_mark_item *b)
{
    int c = key_cmp(&a->key, &b->key);
    if (c)
        return c;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* Shell sort by key, then index (a total order): no allocation and no
 * libc qsort, which may ask the system for memory figures a sandboxed
 * worker is not allowed (docs/isolation.md). */
static void sort_items(struct carc_mark_item *it, size_t n)
{
    static const size_t gaps[] = {701, 301, 132, 57, 23, 10, 4, 1};
    for (size_t g = 0; g < sizeof gaps / sizeof gaps[0]; g++)
        for (size_t i = gaps[g]; i < n; i++) {
            struct carc_mark_item v = it[i];
            size_t j = i;
            for (; j >= gaps[g] && item_cmp(&it[j - gaps[g]], &v) > 0; j -= gaps[g])
                it[j] = it[j - gaps[g]];
            it[j] = v;
        }
}

static struct carc_mark_key key(int type, int step, int a, int b)
{
    return (struct carc_mark_key){.type = (uint8_t)type, .step = (uint8_t)step, .a = a, .b = b};
}

/* The tile kind a word names, or -1. */
static int kind_named(const struct cas_game *g, const char *word)
{
    for (int k = 0; k < g->nkinds; k++)
        if (strcmp(g->kinds[k].id, word) == 0)
            return k;
    return -1;
}

/* The feature of tile t whose text (as its part_text) is `text`, or -1. */
static int feature_named(const struct cas_state *s, int t, const char *text)
{
    const struct carc_tile *tile = &C_TILES(s)[t];
    const struct carc_kind *k = &s->game->kinds[tile->kind];
    for (int f = 0; f < k->nf; f++)
        if (strcmp(k->rot[tile->rot].ftext[f], text) == 0)
            return f;
    return -1;
}

/* What a phase action's text points at (see the header comment). */
struct phase_meaning {
    enum { PM_NONE, PM_PICK, PM_SPACE, PM_FEATURE, PM_PLACE } what;
    int kind, x, y, rot, tile, feature;
};

static struct phase_meaning phase_meaning(const struct cas_state *s, cas_action a)
{
    struct phase_meaning m = {.what = PM_NONE};
    char text[160], *words[16];
    int nw = 0;
    if (cas__carc_action_text(s, a, text, sizeof text) < 0)
        return m;
    for (char *w = text; *w && nw < 16;) { /* split at spaces, in place */
        words[nw++] = w;
        char *sp = strchr(w, ' ');
        if (!sp)
            break;
        *sp = '\0';
        w = sp + 1;
    }
    int at = -1, kind = -1;
    for (int i = 0; i < nw && at < 0; i++) {
        int used = 0;
        if (sscanf(words[i], "%d,%d%n", &m.x, &m.y, &used) == 2 && words[i][used] == '\0')
            at = i;
        else if (kind < 0 && i > 0)
            kind = kind_named(s->game, words[i]);
    }
    if (at < 0) { /* a pick names the kind last: "castle pick CG-3" */
        m.kind = nw > 1 ? kind_named(s->game, words[nw - 1]) : -1;
        m.what = m.kind >= 0 ? PM_PICK : PM_NONE;
        return m;
    }
    int deg = 0, used = 0;
    if (kind >= 0 && at + 2 == nw && sscanf(words[at + 1], "%d%n", &deg, &used) == 1 &&
        words[at + 1][used] == '\0' && deg >= 0 && deg < 360 && deg % 90 == 0) {
        m.what = PM_PLACE;
        m.kind = kind;
        m.rot = deg / 90;
        return m;
    }
    if (at + 1 == nw) {
        m.what = PM_SPACE;
        return m;
    }
    /* the rest is a part's text, which may hold spaces */
    char part[160] = "";
    size_t len = 0;
    for (int i = at + 1; i < nw; i++)
        len += (size_t)snprintf(part + len, sizeof part - len, "%s%s", i > at + 1 ? " " : "",
                                words[i]);
    m.tile = cas__carc_tile_at(s, m.x, m.y);
    m.feature = m.tile >= 0 && len < sizeof part ? feature_named(s, m.tile, part) : -1;
    m.what = m.feature >= 0 ? PM_FEATURE : PM_NONE;
    return m;
}

/* Append the keys of action i (steps in order) to items; returns how many. */
static size_t action_keys(const struct cas_state *s, cas_action a, uint32_t i, int picks,
                          struct carc_mark_item *items)
{
    struct carc_mark_key k[3];
    size_t n = 0;
    int kind, x, y, rot;
    switch (ACT_KIND(a)) {
    case ACT_PLACE:
        if (cas__carc_placement_of(s, a, &kind, &x, &y, &rot) != CAS_OK)
            return 0;
        k[n++] = key(MARK_SPACE, 1, x, y);
        k[n++] = key(MARK_ROT, 2, kind, rot);
        break;
    case ACT_DEPLOY: {
        int local = ACT_DEPLOY_LOCAL(a);
        if (s->placed < 0)
            return 0;
        k[n++] = local >= CARC_CORNER_LOCAL
                     ? key(MARK_CORNER, 1, s->placed, local - CARC_CORNER_LOCAL)
                     : key(MARK_FEATURE, 1, s->placed, local);
        k[n++] = key(MARK_FIGURE, 2, ACT_DEPLOY_FIG(a), 0);
        break;
    }
    case ACT_PHASE: {
        struct phase_meaning m = phase_meaning(s, a);
        switch (m.what) {
        case PM_PICK: k[n++] = key(MARK_PICK, 1, m.kind, 0); break;
        case PM_SPACE: k[n++] = key(MARK_SPACE, 1, m.x, m.y); break;
        case PM_FEATURE: k[n++] = key(MARK_FEATURE, 1, m.tile, m.feature); break;
        case PM_PLACE:
            if (picks)
                k[n++] = key(MARK_PICK, 1, m.kind, 0);
            k[n] = key(MARK_SPACE, (int)n + 1, m.x, m.y);
            n++;
            k[n] = key(MARK_ROT, (int)n + 1, m.kind, m.rot);
            n++;
            break;
        default: break;
        }
        break;
    }
    default: break;
    }
    for (size_t j = 0; j < n; j++)
        items[j] = (struct carc_mark_item){.key = k[j], .index = i};
    return n;
}

/* Whether the phase placements among the actions are of more than one tile
 * kind: then the kind (a castle in hand) is chosen first. */
static int several_kinds(const struct cas_state *s, const cas_action *actions, size_t n)
{
    int first = -1;
    for (size_t i = 0; i < n; i++) {
        if (ACT_KIND(actions[i]) != ACT_PHASE)
            continue;
        struct phase_meaning m = phase_meaning(s, actions[i]);
        if (m.what != PM_PLACE)
            continue;
        if (first >= 0 && m.kind != first)
            return 1;
        first = m.kind;
    }
    return 0;
}

int cas__carc_marks(const struct cas_state *s, const cas_action *actions, size_t n,
                    struct carc_marks *out)
{
    const struct cas_host *host = s->game->host;
    out->n = 0;
    out->items = NULL;
    if (n == 0)
        return CAS_OK;
    out->items = host->alloc(host->ctx, 3 * n * sizeof *out->items);
    if (!out->items)
        return CAS_ENOMEM;
    int picks = several_kinds(s, actions, n);
    for (size_t i = 0; i < n; i++)
        out->n += action_keys(s, actions[i], (uint32_t)i, picks, out->items + out->n);
    sort_items(out->items, out->n);
    return CAS_OK;
}

void cas__carc_marks_free(const struct cas_state *s, struct carc_marks *m)
{
    s->game->host->release(s->game->host->ctx, m->items);
    m->items = NULL;
    m->n = 0;
}

size_t cas__carc_mark_run(const struct carc_marks *m, size_t at)
{
    size_t end = at + 1;
    while (end < m->n && key_cmp(&m->items[end].key, &m->items[at].key) == 0)
        end++;
    return end;
}
