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
 * worker is not allowed (docs/isolation.md).  For keys that do not pack
 * into a word (sort_marks). */
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

/* Item i's key and place packed into one word that orders as item_cmp
 * orders them (type, a, b, then place: items are appended in action
 * order), or 0 when a or b lies 2^19 or more from 0 (spaces lie within
 * 2^19 of the start tile; kinds, tiles and parts are small). */
#define PACK_BITS 20
#define PLACE_BITS 21
static uint64_t pack_item(const struct carc_mark_item *it, size_t i)
{
    uint64_t a = (uint64_t)((int64_t)it->key.a + (1 << (PACK_BITS - 1)));
    uint64_t b = (uint64_t)((int64_t)it->key.b + (1 << (PACK_BITS - 1)));
    if ((a | b) >> PACK_BITS)
        return 0;
    return (uint64_t)(it->key.type + 1u) << (2 * PACK_BITS + PLACE_BITS) |
           a << (PACK_BITS + PLACE_BITS) | b << PLACE_BITS | (uint64_t)i;
}

/* Items sorted by key, then index: by their packed words where every key
 * packs (a comparison is one compare of two words; the shell sort's
 * item_cmp calls were most of a five-expansion view's marks), else by
 * the items themselves.  copy holds room for n items, words for 2n. */
static void sort_marks(struct carc_mark_item *it, size_t n, struct carc_mark_item *copy,
                       uint64_t *words)
{
    int packed = n >> PLACE_BITS == 0;
    for (size_t i = 0; packed && i < n; i++)
        packed = (words[i] = pack_item(&it[i], i)) != 0;
    if (!packed) {
        sort_items(it, n);
        return;
    }
    cas__carc_sort_words(words, n, words + n);
    for (size_t i = 0; i < n; i++)
        copy[i] = it[words[i] & ((1u << PLACE_BITS) - 1)];
    memcpy(it, copy, n * sizeof *it);
}

static struct carc_mark_key key(int type, int step, int a, int b)
{
    return (struct carc_mark_key){.type = (uint8_t)type, .step = (uint8_t)step, .a = a, .b = b};
}

/* The tile kind a word names, or -1. */
static int kind_named(const struct cas_game *g, const char *word)
{
    for (int k = 0; k < g->nkinds; k++) /* the first byte before a call */
        if (g->kinds[k].id[0] == word[0] && strcmp(g->kinds[k].id, word) == 0)
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

/* An int at *at as sscanf's %d reads it (white space, a sign, digits),
 * *at moved past it: 1; 0 when there is none; -1 for more than nine
 * digits, which sscanf itself is left to read. */
static int scan_int(const char **at, int *out)
{
    const char *c = *at;
    while (*c == ' ' || (*c >= '\t' && *c <= '\r'))
        c++;
    int neg = *c == '-';
    c += *c == '-' || *c == '+';
    int v = 0, digits = 0;
    for (; *c >= '0' && *c <= '9'; c++, digits++) {
        if (digits == 9)
            return -1;
        v = v * 10 + (*c - '0');
    }
    if (!digits)
        return 0;
    *out = neg ? -v : v;
    *at = c;
    return 1;
}

/* Whether word is "X,Y" and nothing more, as sscanf(word, "%d,%d%n")
 * reads it: the pair into *x, *y. */
static int word_is_space(const char *word, int *x, int *y)
{
    const char *c = word;
    int rx = scan_int(&c, x), ry = rx == 1 && *c == ',' ? (c++, scan_int(&c, y)) : 0;
    if (rx < 0 || ry < 0) {
        int used = 0;
        return sscanf(word, "%d,%d%n", x, y, &used) == 2 && word[used] == '\0';
    }
    return rx == 1 && ry == 1 && *c == '\0';
}

/* Whether word is an int and nothing more, as sscanf(word, "%d%n")
 * reads it: into *v. */
static int word_is_int(const char *word, int *v)
{
    const char *c = word;
    int r = scan_int(&c, v);
    if (r < 0) {
        int used = 0;
        return sscanf(word, "%d%n", v, &used) == 1 && word[used] == '\0';
    }
    return r == 1 && *c == '\0';
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
        if (word_is_space(words[i], &m.x, &m.y))
            at = i;
        else if (kind < 0 && i > 0)
            kind = kind_named(s->game, words[i]);
    }
    if (at < 0) { /* a pick names the kind last: "castle pick CG-3" */
        m.kind = nw > 1 ? kind_named(s->game, words[nw - 1]) : -1;
        m.what = m.kind >= 0 ? PM_PICK : PM_NONE;
        return m;
    }
    int deg = 0;
    if (kind >= 0 && at + 2 == nw && word_is_int(words[at + 1], &deg) && deg >= 0 &&
        deg < 360 && deg % 90 == 0) {
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
static size_t action_keys(const struct cas_state *s, cas_action a,
                          const struct phase_meaning *meaning, uint32_t i, int picks,
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
        struct phase_meaning m = *meaning;
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

/* Each phase action's meaning into meanings[i] (read once: its text is
 * written and split for it), and whether the phase placements among them
 * are of more than one tile kind: then the kind (a castle in hand) is
 * chosen first. */
static int read_phases(const struct cas_state *s, const cas_action *actions, size_t n,
                       struct phase_meaning *meanings)
{
    int first = -1, several = 0;
    for (size_t i = 0; i < n; i++) {
        if (ACT_KIND(actions[i]) != ACT_PHASE)
            continue;
        meanings[i] = phase_meaning(s, actions[i]);
        if (meanings[i].what != PM_PLACE)
            continue;
        several |= first >= 0 && meanings[i].kind != first;
        first = meanings[i].kind;
    }
    return several;
}

int cas__carc_marks(const struct cas_state *s, const cas_action *actions, size_t n,
                    struct carc_marks *out)
{
    const struct cas_host *host = s->game->host;
    out->n = 0;
    out->items = NULL;
    if (n == 0)
        return CAS_OK;
    /* one block: up to three items an action, room to sort them (a copy
     * and two words each), the phase actions' meanings */
    size_t cap = 3 * n;
    out->items = host->alloc(host->ctx, 2 * cap * sizeof *out->items +
                                            2 * cap * sizeof(uint64_t) +
                                            n * sizeof(struct phase_meaning));
    if (!out->items)
        return CAS_ENOMEM;
    struct carc_mark_item *copy = out->items + cap;
    uint64_t *words = (uint64_t *)(copy + cap);
    struct phase_meaning *meanings = (struct phase_meaning *)(words + 2 * cap);
    int picks = read_phases(s, actions, n, meanings);
    for (size_t i = 0; i < n; i++)
        out->n += action_keys(s, actions[i], &meanings[i], (uint32_t)i, picks,
                              out->items + out->n);
    sort_marks(out->items, out->n, copy, words);
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

void cas__carc_sort_words(uint64_t *words, size_t n, uint64_t *scratch)
{
    enum { RUN = 8 };
    for (size_t lo = 0; lo < n; lo += RUN) { /* short runs by insertion */
        uint64_t *run = words + lo;
        size_t len = n - lo < RUN ? n - lo : RUN;
        for (size_t i = 1; i < len; i++) {
            uint64_t w = run[i];
            size_t j = i;
            for (; j > 0 && run[j - 1] > w; j--)
                run[j] = run[j - 1];
            run[j] = w;
        }
    }
    uint64_t *from = words, *to = scratch;
    for (size_t width = RUN; width < n; width *= 2) { /* then merged pairwise */
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, o = lo;
            while (i < mid && j < hi)
                to[o++] = from[i] <= from[j] ? from[i++] : from[j++];
            while (i < mid)
                to[o++] = from[i++];
            while (j < hi)
                to[o++] = from[j++];
        }
        uint64_t *t = from;
        from = to;
        to = t;
    }
    if (from != words)
        memcpy(words, from, n * sizeof *words);
}
