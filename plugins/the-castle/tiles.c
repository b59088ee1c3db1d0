/*
 * tiles.c — the tile file: castle tile kinds (in the bag) and start tiles
 * (printed on the start spaces), each with its path sides and features,
 * and the 4 rotations of each.  Format (one statement a line, '#' comments):
 *
 *   provisional yes|no
 *   tile ID COUNT EDGES        a castle tile; EDGES: N E S W, 'P' path, '.' none
 *   start-tile ID EDGES        a start space's tile (not in the bag)
 *     path SIDES [fountain]    N+S; one side: the path ends on this tile
 *     house PARTS              PARTS: halves Nw Ne En Es Se Sw Ws Wn, or a
 *     tower PARTS              side letter for both its halves: "N+En"
 *     court PARTS [market[=K]]
 *
 * Every half of every side belongs to exactly one house, tower or court;
 * the middle of every path side to exactly one path.  Errors name
 * path:line, the bad value and the fix, and leave the caller's set as it was.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "castle.h"

const char *const cls_names[N_CLS] = {"path", "house", "tower", "court"};
const char *const role_names[N_CLS] = {"herald", "squire", "knight", "merchant"};
static const char side_letters[] = "NESW";
static const char *const half_names[8] = {"Nw", "Ne", "En", "Es", "Se", "Sw", "Ws", "Wn"};

struct tile_reader {
    struct line_reader lr;
    struct tileset *set;
    struct tile_kind *cur;
    bool seen_provisional;
};

int tiles_find(const struct tileset *t, const char *id)
{
    for (int k = 0; k < t->nkinds; k++)
        if (strcmp(t->kind[k].id, id) == 0)
            return k;
    return -1;
}

static int side_of(char c)
{
    const char *at = c ? strchr(side_letters, c) : NULL;
    return at ? (int)(at - side_letters) : -1;
}

/* Slot of half name "Es" (first half slot 0, second slot 2 of its side). */
static int half_slot(const char *name)
{
    for (int h = 0; h < 8; h++)
        if (strcmp(name, half_names[h]) == 0)
            return SLOT(h / 2, (h % 2) ? 2 : 0);
    return -1;
}

static int claim(struct tile_reader *r, int slot, int feature, const char *part)
{
    struct rotation *base = &r->cur->rot[0];
    if (base->slot[slot] != NONE8)
        return lines_fail(&r->lr, "'%s' of tile %s is already taken by an earlier feature; "
                          "give each part to one feature", part, r->cur->id);
    base->slot[slot] = (uint8_t)feature;
    return CAS_OK;
}

/* One '+'-separated part: a path's side (its middle), or a house's,
 * tower's or court's side (both halves) or half. */
static int claim_part(struct tile_reader *r, const char *part, bool path, int feature)
{
    int side = part[1] ? -1 : side_of(part[0]);
    if (path) {
        if (side < 0)
            return lines_fail(&r->lr, "path side '%s' is not N, E, S or W; write e.g. 'path N+S'",
                              part);
        if (!(r->cur->rot[0].path_sides & (1u << side)))
            return lines_fail(&r->lr, "path side %s of tile %s has no path in its edges; "
                              "mark it 'P' in the tile line or drop it", part, r->cur->id);
        return claim(r, SLOT(side, MIDDLE), feature, part);
    }
    if (side >= 0) {
        int rc = claim(r, SLOT(side, 0), feature, part);
        return rc ? rc : claim(r, SLOT(side, 2), feature, part);
    }
    int slot = half_slot(part);
    if (slot < 0)
        return lines_fail(&r->lr, "'%s' is neither a side (N E S W) nor a half "
                          "(Nw Ne En Es Se Sw Ws Wn)", part);
    return claim(r, slot, feature, part);
}

static int read_parts(struct tile_reader *r, const char *list, bool path, int feature)
{
    char copy[64];
    snprintf(copy, sizeof copy, "%s", list);
    char *save = NULL;
    for (char *part = strtok_r(copy, "+", &save); part; part = strtok_r(NULL, "+", &save)) {
        int rc = claim_part(r, part, path, feature);
        if (rc)
            return rc;
    }
    return CAS_OK;
}

static int read_feature(struct tile_reader *r, int cls)
{
    struct line_reader *lr = &r->lr;
    struct tile_kind *k = r->cur;
    if (!k)
        return lines_fail(lr, "'%s' before any 'tile' or 'start-tile' line", lr->word[0]);
    if (k->nf == MAX_TF)
        return lines_fail(lr, "tile %s has more than %d features", k->id, MAX_TF);
    if (lr->nwords < 2)
        return lines_fail(lr, "'%s' needs its parts, e.g. '%s %s'", lr->word[0], lr->word[0],
                          cls == C_PATH ? "N+S" : "Nw+E");
    int feature = k->nf++;
    struct feature_def *f = &k->f[feature];
    f->cls = (uint8_t)cls;
    int rc = read_parts(r, lr->word[1], cls == C_PATH, feature);
    if (rc)
        return rc;
    for (int i = 2; i < lr->nwords; i++) {
        const char *w = lr->word[i];
        long n = 1;
        if (cls == C_PATH && strcmp(w, "fountain") == 0 && !f->fountain)
            f->fountain = 1;
        else if (cls == C_COURT && strncmp(w, "market", 6) == 0 && !f->markets &&
                 (w[6] == '\0' || (w[6] == '=' && parse_number(w + 7, 1, 9, &n))))
            f->markets = (uint8_t)n;
        else
            return lines_fail(lr, "unknown or repeated word '%s' after %s; %s", w, lr->word[0],
                              cls == C_PATH    ? "a path may say 'fountain'"
                              : cls == C_COURT ? "a court may say 'market' or 'market=K' (K 1..9)"
                                               : "a house or tower takes only its parts");
    }
    return CAS_OK;
}

/* A finished tile: every part claimed; then its rotations. */
static int finish_tile(struct tile_reader *r)
{
    struct tile_kind *k = r->cur;
    if (!k)
        return CAS_OK;
    struct rotation *base = &k->rot[0];
    for (int slot = 0; slot < SLOTS; slot++) {
        int side = SLOT_SIDE(slot);
        bool path_side = base->path_sides & (1u << side);
        bool wanted = SLOT_PART(slot) != MIDDLE || path_side;
        if (wanted && base->slot[slot] == NONE8) {
            const char *what = SLOT_PART(slot) == MIDDLE ? "path side" : "half";
            char name[4];
            if (SLOT_PART(slot) == MIDDLE)
                snprintf(name, sizeof name, "%c", side_letters[side]);
            else
                snprintf(name, sizeof name, "%s", half_names[side * 2 + (SLOT_PART(slot) == 2)]);
            cas_host_errorf(r->lr.host, "%s:%d: tile %s leaves %s %s to no feature; "
                            "add it to a %s", r->lr.path, k->line, k->id, what, name,
                            SLOT_PART(slot) == MIDDLE ? "path" : "house, tower or court");
            return CAS_EDATA;
        }
    }
    for (int rot = 0; rot < 4; rot++) {
        struct rotation *rr = &k->rot[rot];
        if (rot) {
            memset(rr->slot, NONE8, sizeof rr->slot);
            rr->path_sides = 0;
            for (int slot = 0; slot < SLOTS; slot++)
                rr->slot[(slot + 3 * rot) % SLOTS] = base->slot[slot];
            for (int side = 0; side < 4; side++)
                if (base->path_sides & (1u << side))
                    rr->path_sides |= (uint8_t)(1u << ((side + rot) % 4));
        }
        memset(rr->sides, 0, sizeof rr->sides);
        for (int slot = 0; slot < SLOTS; slot++)
            if (rr->slot[slot] != NONE8)
                rr->sides[rr->slot[slot]] |= (uint16_t)(1u << SLOT_SIDE(slot));
    }
    r->cur = NULL;
    return CAS_OK;
}

static bool id_ok(const char *id)
{
    size_t n = strlen(id);
    if (n == 0 || n >= ID_LEN)
        return false;
    for (const char *c = id; *c; c++)
        if (!((*c >= 'A' && *c <= 'Z') || (*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
              *c == '-'))
            return false;
    return true;
}

static int read_tile(struct tile_reader *r, bool start)
{
    struct line_reader *lr = &r->lr;
    int rc = finish_tile(r);
    if (rc)
        return rc;
    int want = start ? 3 : 4;
    if (lr->nwords != want)
        return lines_fail(lr, "'%s' takes %s, got %d word(s)", lr->word[0],
                          start ? "ID EDGES (e.g. 'start-tile S1 P...')"
                                : "ID COUNT EDGES (e.g. 'tile T01 4 P.P.')",
                          lr->nwords - 1);
    const char *id = lr->word[1];
    if (!id_ok(id))
        return lines_fail(lr, "tile id '%s' must be 1 to %d letters, digits or '-'", id,
                          ID_LEN - 1);
    if (tiles_find(r->set, id) >= 0)
        return lines_fail(lr, "tile id '%s' is used twice; give each kind its own id", id);
    if (r->set->nkinds == MAX_KINDS)
        return lines_fail(lr, "more than %d tile kinds; merge some", MAX_KINDS);
    long count = 0;
    if (!start && !parse_number(lr->word[2], 1, MAX_INTERIOR, &count))
        return lines_fail(lr, "copy count '%s' must be a whole number from 1 to %d",
                          lr->word[2], MAX_INTERIOR);
    const char *edges = lr->word[want - 1];
    if (strlen(edges) != 4 || strspn(edges, "P.") != 4)
        return lines_fail(lr, "edges '%s' must be 4 characters N E S W, each 'P' (path) or "
                          "'.' (no path), e.g. 'P.P.'", edges);
    struct tile_kind *k = &r->set->kind[r->set->nkinds++];
    memset(k, 0, sizeof *k);
    memset(k->rot[0].slot, NONE8, sizeof k->rot[0].slot);
    snprintf(k->id, sizeof k->id, "%s", id);
    k->count = (uint8_t)count;
    k->start = start;
    k->line = lr->line;
    for (int side = 0; side < 4; side++)
        if (edges[side] == 'P')
            k->rot[0].path_sides |= (uint8_t)(1u << side);
    r->set->total += (int)count;
    if (r->set->total > MAX_INTERIOR)
        return lines_fail(lr, "more than %d castle tiles in all; lower the counts", MAX_INTERIOR);
    r->cur = k;
    return CAS_OK;
}

static int read_statement(struct tile_reader *r)
{
    const char *w = r->lr.word[0];
    if (strcmp(w, "tile") == 0)
        return read_tile(r, false);
    if (strcmp(w, "start-tile") == 0)
        return read_tile(r, true);
    for (int c = 0; c < N_CLS; c++)
        if (strcmp(w, cls_names[c]) == 0)
            return read_feature(r, c);
    if (strcmp(w, "provisional") == 0)
        return lines_provisional(&r->lr, &r->seen_provisional, &r->set->provisional);
    return lines_fail(&r->lr, "unknown statement '%s'; use tile, start-tile, path, house, "
                      "tower, court or provisional", w);
}

int tiles_load(const struct cas_host *host, const char *path, struct tileset *out)
{
    struct tile_reader r = {0};
    int rc = lines_open(&r.lr, host, path, "tiles");
    if (rc)
        return rc;
    r.set = host->alloc(host->ctx, sizeof *r.set);
    if (!r.set) {
        lines_close(&r.lr);
        return CAS_ENOMEM;
    }
    memset(r.set, 0, sizeof *r.set);
    while ((rc = lines_next(&r.lr)) > 0 && (rc = read_statement(&r)) == CAS_OK)
        ;
    if (rc == CAS_OK)
        rc = finish_tile(&r);
    if (rc == CAS_OK && r.set->total == 0) {
        cas_host_errorf(host, "%s: no castle tiles; add 'tile ID COUNT EDGES' lines", path);
        rc = CAS_EDATA;
    }
    if (rc == CAS_OK && !r.seen_provisional) {
        cas_host_errorf(host, "%s: missing 'provisional yes|no' line; say whether the tiles "
                        "are checked against the real game", path);
        rc = CAS_EDATA;
    }
    if (rc == CAS_OK)
        *out = *r.set;
    host->release(host->ctx, r.set);
    lines_close(&r.lr);
    return rc;
}
