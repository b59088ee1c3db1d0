/*
 * tileset.c — the tile-set file parser (format: docs/carcassonne-tiles.md),
 * the `tiles` count-override option, and the precomputed rotations of every
 * tile kind (edge signatures, segment tables, notation names).
 *
 * A tile kind lists its edges and its features.  Each side of a space has
 * three slots in clockwise order: first half (field), middle (road or city),
 * second half (field).  A city side is one middle slot.  The parser checks
 * that every slot is claimed by exactly one feature of the right class.
 */
#include "carc.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

const char *const cas__carc_half_names[8] = {"Nw", "Ne", "En", "Es",
                                            "Se", "Sw", "Ws", "Wn"};
const char cas__carc_side_names[4] = {'N', 'E', 'S', 'W'};


struct parser {
    const struct cas_host *host;
    const char *path;
    int line;
    struct carc_kind *kinds;
    int nkinds, cap;
    char (*attrs)[16];
    int nattrs;
    struct carc_kind *cur;  /* tile being read */
    uint8_t edge0[CARC_MAX_CELLS][4];
    uint8_t seg0[CARC_MAX_CELLS][4][3];
    int tile_line;
    char start_id[CARC_ID_LEN];
    int start_line;
};

static int fail(struct parser *p, const char *fmt, const char *a, const char *b)
{
    char what[320];
    snprintf(what, sizeof what, fmt, a, b);
    cas_host_errorf(p->host, "%s:%d: %s", p->path, p->line, what);
    return CAS_EDATA;
}

static int edge_of_letter(char c)
{
    switch (c) {
    case 'C': return EDGE_CITY;
    case 'R': return EDGE_ROAD;
    case 'F': return EDGE_FIELD;
    case '~': return EDGE_RIVER;
    case '*': return EDGE_ANY;
    default: return -1;
    }
}

static int side_of_letter(char c)
{
    const char *at = strchr("NESW", c);
    return (c && at) ? (int)(at - "NESW") : -1;
}

/* "N", "E1" -> cell, side.  The cell digit is required on 2x1 tiles. */
static int parse_edge_name(struct parser *p, const char *name, int *cell, int *side)
{
    *side = side_of_letter(name[0]);
    if (*side < 0)
        return -1;
    const char *rest = name + 1;
    *cell = 0;
    if (p->cur->ncells > 1) {
        if (!isdigit((unsigned char)rest[0]))
            return -1;
        *cell = rest[0] - '0';
        rest++;
    }
    if (*rest || *cell >= p->cur->ncells || p->edge0[*cell][*side] == EDGE_NONE)
        return -1;
    return 0;
}

static int parse_half_name(struct parser *p, const char *name, int *cell, int *half)
{
    for (int h = 0; h < 8; h++) {
        if (strncmp(name, cas__carc_half_names[h], 2) != 0)
            continue;
        const char *rest = name + 2;
        *cell = 0;
        if (p->cur->ncells > 1) {
            if (!isdigit((unsigned char)rest[0]))
                return -1;
            *cell = *rest++ - '0';
        }
        if (*rest || *cell >= p->cur->ncells || p->edge0[*cell][h / 2] == EDGE_NONE)
            return -1;
        *half = h;
        return 0;
    }
    return -1;
}

static int attr_index(const struct parser *p, const char *name, size_t len)
{
    for (int i = 0; i < p->nattrs; i++)
        if (strlen(p->attrs[i]) == len && strncmp(p->attrs[i], name, len) == 0)
            return i;
    return -1;
}

/* "coat" or "coat=2" */
static int parse_attr(struct parser *p, struct carc_feature_def *f, const char *tok)
{
    const char *eq = strchr(tok, '=');
    size_t len = eq ? (size_t)(eq - tok) : strlen(tok);
    int a = attr_index(p, tok, len);
    if (a < 0) {
        char known[200] = "";
        for (int i = 0; i < p->nattrs; i++)
            snprintf(known + strlen(known), sizeof known - strlen(known), "%s%s",
                     i ? ", " : "", p->attrs[i]);
        return fail(p, "unknown attribute '%s'; known here: %s "
                       "(an expansion declares the others)", tok, known);
    }
    long n = 1;
    if (eq) {
        char *end;
        n = strtol(eq + 1, &end, 10);
        if (*end || n < 1 || n > 9)
            return fail(p, "attribute count in '%s' must be 1..9%s", tok, "");
    }
    f->attr[a] = (uint8_t)(f->attr[a] + n);
    return 0;
}

static int claim(struct parser *p, int cell, int side, int slot, int feature,
                 const char *tok)
{
    if (p->seg0[cell][side][slot] != SEG_FREE)
        return fail(p, "'%s' is already part of another feature of this tile%s",
                    tok, "");
    p->seg0[cell][side][slot] = (uint8_t)feature;
    return 0;
}

/* The '+'-joined list of a road or city. */
static int parse_edges(struct parser *p, struct carc_feature_def *f, int feature,
                       char *list)
{
    int want = f->cls == CAS_CARC_ROAD ? EDGE_ROAD : EDGE_CITY;
    char *save;
    for (char *tok = strtok_r(list, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
        int cell, side;
        if (parse_edge_name(p, tok, &cell, &side) < 0)
            return fail(p, "'%s' is not an edge of this tile; use N, E, S, W%s",
                        tok, p->cur->ncells > 1 ? " with the cell digit (N0, E1)" : "");
        if (p->edge0[cell][side] != want)
            return fail(p, "edge '%s' is not a %s edge in the tile's edge list",
                        tok, want == EDGE_ROAD ? "road (R)" : "city (C)");
        if (claim(p, cell, side, 1, feature, tok))
            return CAS_EDATA;
        f->cellmask |= (uint8_t)(1u << cell);
        f->nedges++;
    }
    return 0;
}

static int parse_halves(struct parser *p, struct carc_feature_def *f, int feature,
                        char *list)
{
    if (strcmp(list, "inner") == 0)
        return 0;
    char *save;
    for (char *tok = strtok_r(list, "+", &save); tok; tok = strtok_r(NULL, "+", &save)) {
        int cell, half;
        if (parse_half_name(p, tok, &cell, &half) < 0)
            return fail(p, "'%s' is not a half-edge of this tile; use Nw Ne En Es "
                           "Se Sw Ws Wn%s or inner", tok,
                        p->cur->ncells > 1 ? " with the cell digit (Nw0)" : "");
        if (p->edge0[cell][half / 2] == EDGE_CITY)
            return fail(p, "half-edge '%s' lies on a city edge; fields touch only "
                           "F, R and ~ edges%s", tok, "");
        if (claim(p, cell, half / 2, (half % 2) * 2, feature, tok))
            return CAS_EDATA;
        f->cellmask |= (uint8_t)(1u << cell);
    }
    return 0;
}

/* "N,S": the cities a field touches, each named by one of its edges. */
static int parse_touches(struct parser *p, struct carc_feature_def *f, char *list)
{
    char *save;
    for (char *tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        int cell, side;
        if (parse_edge_name(p, tok, &cell, &side) < 0 ||
            p->edge0[cell][side] != EDGE_CITY)
            return fail(p, "touches '%s': name a city edge of this tile (e.g. N)%s",
                        tok, "");
        uint8_t city = p->seg0[cell][side][1];
        if (city == SEG_FREE)
            return fail(p, "touches '%s': declare that city before the field%s",
                        tok, "");
        if (f->ntouch >= CARC_MAX_FEATURES)
            return fail(p, "too many cities touched%s%s", "", "");
        f->touch[f->ntouch++] = city;
    }
    return 0;
}

static int parse_feature(struct parser *p, char **tok, int ntok)
{
    struct carc_kind *k = p->cur;
    if (!k)
        return fail(p, "'%s' before any 'tile' line%s", tok[0], "");
    if (k->nf >= CARC_MAX_FEATURES)
        return fail(p, "more than 16 features on one tile%s%s", "", "");
    int idx = k->nf;
    struct carc_feature_def *f = &k->f[idx];
    memset(f, 0, sizeof *f);
    int next = 1;
    if (strcmp(tok[0], "road") == 0 || strcmp(tok[0], "city") == 0) {
        f->cls = tok[0][0] == 'r' ? CAS_CARC_ROAD : CAS_CARC_CITY;
        snprintf(f->name, sizeof f->name, "%s", tok[0]);
        if (ntok < 2)
            return fail(p, "'%s' needs its edges, e.g. %s N+W", tok[0], tok[0]);
        if (parse_edges(p, f, idx, tok[1]))
            return CAS_EDATA;
        next = 2;
    } else if (strcmp(tok[0], "field") == 0) {
        f->cls = CAS_CARC_FIELD;
        snprintf(f->name, sizeof f->name, "field");
        if (ntok < 2)
            return fail(p, "'field' needs half-edges (Nw+Ne) or 'inner'%s%s", "", "");
        if (parse_halves(p, f, idx, tok[1]))
            return CAS_EDATA;
        next = 2;
        if (ntok >= 4 && strcmp(tok[2], "touches") == 0) {
            if (parse_touches(p, f, tok[3]))
                return CAS_EDATA;
            next = 4;
        }
    } else if (strcmp(tok[0], "monastery") == 0) {
        f->cls = CAS_CARC_CLOISTER;
        snprintf(f->name, sizeof f->name, "monastery");
    } else if (strcmp(tok[0], "cloister") == 0) {
        if (ntok < 2 || strlen(tok[1]) >= sizeof f->name)
            return fail(p, "'cloister' needs a short name, e.g. cloister garden%s%s",
                        "", "");
        f->cls = CAS_CARC_CLOISTER;
        snprintf(f->name, sizeof f->name, "%s", tok[1]);
        next = 2;
    } else {
        return fail(p, "unknown line '%s'; expected tile, city, road, field, "
                       "monastery, cloister, wagon-links, start or tileset%s", tok[0], "");
    }
    for (int i = next; i < ntok; i++)
        if (parse_attr(p, f, tok[i]))
            return CAS_EDATA;
    if (!f->cellmask)
        f->cellmask = (uint8_t)((1u << k->ncells) - 1);
    k->has_cloister |= f->cls == CAS_CARC_CLOISTER;
    k->nf++;
    return 0;
}

/* Every slot of the finished tile claimed exactly as its edges demand. */
static int check_tile(struct parser *p)
{
    struct carc_kind *k = p->cur;
    if (!k)
        return 0;
    int line = p->line;
    p->line = p->tile_line;
    for (int c = 0; c < k->ncells; c++)
        for (int side = 0; side < 4; side++) {
            int e = p->edge0[c][side];
            char name[4] = {cas__carc_side_names[side],
                            k->ncells > 1 ? (char)('0' + c) : 0, 0, 0};
            if ((e == EDGE_CITY || e == EDGE_ROAD) && p->seg0[c][side][1] == SEG_FREE)
                return fail(p, "tile %s: edge %s belongs to no feature", k->id, name);
            if (e == EDGE_FIELD || e == EDGE_ROAD || e == EDGE_RIVER)
                for (int slot = 0; slot < 3; slot += 2)
                    if (p->seg0[c][side][slot] == SEG_FREE)
                        return fail(p, "tile %s: half-edge %s belongs to no field",
                                    k->id,
                                    cas__carc_half_names[side * 2 + slot / 2]);
        }
    p->line = line;
    return 0;
}

static void store_unrotated(struct parser *p)
{
    struct carc_rot *r = &p->cur->rot[0];
    memcpy(r->edge, p->edge0, sizeof r->edge);
    memcpy(r->seg, p->seg0, sizeof r->seg);
}

/* The first byte of `id` a JSON string or a terminal would read as more
 * than itself (a control character, '"' or '\\'), or NULL.  Such ids are
 * refused at the file, so that no render or message carries them (renders
 * escape ids as well). */
static const char *unsafe_id_byte(const char *id)
{
    for (; *id; id++)
        if (iscntrl((unsigned char)*id) || *id == '"' || *id == '\\')
            return id;
    return NULL;
}

/* Writes `id` into `out` (size `size`), every control byte as \xNN, for
 * an error message. */
static void show_id(const char *id, char *out, size_t size)
{
    size_t n = 0;
    for (; *id && n + 5 < size; id++) {
        if (iscntrl((unsigned char)*id))
            n += (size_t)snprintf(out + n, size - n, "\\x%02x", (unsigned char)*id);
        else
            out[n++] = *id;
    }
    out[n] = '\0';
}

static int parse_tile(struct parser *p, char **tok, int ntok)
{
    if (check_tile(p))
        return CAS_EDATA;
    if (p->cur)
        store_unrotated(p);
    if (ntok < 4)
        return fail(p, "expected 'tile ID COUNT EDGES', e.g. tile D 4 CRFR%s%s", "", "");
    const char *bad = unsafe_id_byte(tok[1]);
    if (bad) {
        char shown[CARC_ID_LEN * 4], byte[8], one[2] = {*bad, '\0'};
        show_id(tok[1], shown, sizeof shown);
        show_id(one, byte, sizeof byte);
        return fail(p, "tile id '%s' contains '%s'; an id may not contain control "
                       "characters, '\"' or '\\'; use letters, digits or '-'", shown, byte);
    }
    if (strlen(tok[1]) >= CARC_ID_LEN || strpbrk(tok[1], ":,"))
        return fail(p, "tile id '%s' must be under 16 characters without ':' or ','%s",
                    tok[1], "");
    for (int i = 0; i < p->nkinds; i++)
        if (strcmp(p->kinds[i].id, tok[1]) == 0)
            return fail(p, "tile id '%s' is used twice%s", tok[1], "");
    char *end;
    long count = strtol(tok[2], &end, 10);
    if (*end || count < 0 || count > 999)
        return fail(p, "count '%s' must be a number 0..999%s", tok[2], "");
    int ncells = 1, hand = 0;
    for (int i = 4; i < ntok; i++) {
        if (strcmp(tok[i], "size=2x1") == 0)
            ncells = 2;
        else if (strcmp(tok[i], "hand") == 0)
            hand = 1;
        else
            return fail(p, "unexpected '%s'; tile options are size=2x1 and hand%s",
                        tok[i], "");
    }
    size_t want = ncells == 1 ? 4 : 6;
    if (strlen(tok[3]) != want)
        return fail(p, "edges '%s' must have %s letters", tok[3],
                    ncells == 1 ? "4 (N E S W)" : "6 (N0 N1 E1 S1 S0 W0)");
    if (p->nkinds >= CARC_MAX_KINDS)
        return fail(p, "too many tile kinds%s%s", "", "");
    if (p->nkinds == p->cap) {
        int cap = p->cap ? p->cap * 2 : 32;
        struct carc_kind *grown =
            p->host->realloc(p->host->ctx, p->kinds, (size_t)cap * sizeof *grown);
        if (!grown)
            return CAS_ENOMEM;
        p->kinds = grown;
        p->cap = cap;
    }
    struct carc_kind *k = &p->kinds[p->nkinds++];
    memset(k, 0, sizeof *k);
    snprintf(k->id, sizeof k->id, "%s", tok[1]);
    k->count = (int)count;
    k->ncells = ncells;
    k->hand = hand;
    memset(p->edge0, EDGE_NONE, sizeof p->edge0);
    memset(p->seg0, SEG_FREE, sizeof p->seg0);
    /* outline order: 1x1 N E S W; 2x1 N0 N1 E1 S1 S0 W0 */
    static const int cell2[6] = {0, 1, 1, 1, 0, 0}, side2[6] = {0, 0, 1, 2, 2, 3};
    for (size_t i = 0; i < want; i++) {
        int e = edge_of_letter(tok[3][i]);
        if (e < 0) {
            char letter[2] = {tok[3][i], 0};
            return fail(p, "edge letter '%s' unknown; use C (city), R (road), F "
                           "(field), ~ (river) or * (any) [%s]", letter, tok[3]);
        }
        int c = ncells == 1 ? 0 : cell2[i], side = ncells == 1 ? (int)i : side2[i];
        p->edge0[c][side] = (uint8_t)e;
    }
    p->cur = k;
    p->tile_line = p->line;
    return 0;
}

/* One part a wagon-links group names: a road or city by one of its edges,
 * a cloister by its name; its feature index, or -1. */
static int linked_feature(struct parser *p, const char *name)
{
    const struct carc_kind *k = p->cur;
    int cell, side;
    if (parse_edge_name(p, name, &cell, &side) == 0) {
        int e = p->edge0[cell][side];
        uint8_t f = p->seg0[cell][side][1];
        return (e == EDGE_ROAD || e == EDGE_CITY) && f != SEG_FREE ? f : -1;
    }
    for (int f = 0; f < k->nf; f++)
        if (k->f[f].cls == CAS_CARC_CLOISTER && strcmp(k->f[f].name, name) == 0)
            return f;
    return -1;
}

/* "wagon-links [jcz] GROUP...": each GROUP two parts or more joined by
 * '+', each linked to the others (docs/carcassonne-tiles.md). */
static int parse_links(struct parser *p, char **tok, int ntok)
{
    struct carc_kind *k = p->cur;
    if (!k)
        return fail(p, "'%s' before any 'tile' line%s", tok[0], "");
    int reading = CAS_CARC_LINKS_DEFAULT, next = 1;
    if (ntok > 1 && strcmp(tok[1], "jcz") == 0) {
        reading = CAS_CARC_LINKS_JCZ;
        next = 2;
    }
    if (next >= ntok)
        return fail(p, "'%s' needs groups of parts joined by +, e.g. %s W+E M+S",
                    tok[0], tok[0]);
    if (k->links_read >> reading & 1)
        return fail(p, "tile %s has a %s line of this reading already; put all its "
                       "groups on one line", k->id, tok[0]);
    k->links_read |= (uint8_t)(1u << reading);
    for (int i = next; i < ntok; i++) {
        unsigned group = 0;
        int parts = 0;
        char *save;
        for (char *part = strtok_r(tok[i], "+", &save); part;
             part = strtok_r(NULL, "+", &save), parts++) {
            int f = linked_feature(p, part);
            if (f < 0)
                return fail(p, "'%s' is no road, city or cloister of this tile; name a "
                               "road or city by one of its edges (N, E, S, W%s), a "
                               "cloister by its name (monastery), declared above",
                            part, k->ncells > 1 ? " with the cell digit" : "");
            if (group >> f & 1)
                return fail(p, "'%s' is named twice in one group%s", part, "");
            group |= 1u << f;
        }
        if (parts < 2)
            return fail(p, "a group links two parts or more joined by +, e.g. W+E; "
                           "'%s' is one%s", tok[i], "");
        for (unsigned left = group; left; left &= left - 1)
            k->links[reading][__builtin_ctz(left)] |=
                (uint16_t)(group & ~(1u << __builtin_ctz(left)));
    }
    return 0;
}

static int parse_line(struct parser *p, char *line)
{
    char *hash = strchr(line, '#');
    if (hash)
        *hash = '\0';
    char *tok[16];
    int ntok = 0;
    char *save;
    for (char *t = strtok_r(line, " \t\r\n", &save); t && ntok < 16;
         t = strtok_r(NULL, " \t\r\n", &save))
        tok[ntok++] = t;
    if (ntok == 0)
        return 0;
    if (strcmp(tok[0], "tileset") == 0)
        return 0;
    if (strcmp(tok[0], "start") == 0) {
        if (ntok != 2 || strlen(tok[1]) >= CARC_ID_LEN)
            return fail(p, "expected 'start ID'%s%s", "", "");
        snprintf(p->start_id, sizeof p->start_id, "%s", tok[1]);
        p->start_line = p->line;
        return 0;
    }
    if (strcmp(tok[0], "tile") == 0)
        return parse_tile(p, tok, ntok);
    if (strcmp(tok[0], "wagon-links") == 0)
        return parse_links(p, tok, ntok);
    return parse_feature(p, tok, ntok);
}

static int resolve_start(struct parser *p, int *start_kind)
{
    if (!p->start_id[0])
        return 0;
    for (int i = 0; i < p->nkinds; i++)
        if (strcmp(p->kinds[i].id, p->start_id) == 0) {
            *start_kind = i;
            return 0;
        }
    p->line = p->start_line;
    char shown[CARC_ID_LEN * 4];
    show_id(p->start_id, shown, sizeof shown);
    return fail(p, "start tile '%s' is not defined in this file%s", shown, "");
}

int cas__carc_parse_tileset(const struct cas_host *host, const char *path,
                            struct carc_kind **kinds, int *nkinds,
                            char (*attrs)[16], int nattrs, int *start_kind)
{
    struct parser p = {.host = host, .path = path, .kinds = *kinds,
                       .nkinds = *nkinds, .cap = *nkinds, .attrs = attrs,
                       .nattrs = nattrs};
    FILE *f = fopen(path, "r");
    if (!f) {
        cas_host_errorf(host, "%s: cannot open tile set: %s", path, strerror(errno));
        return CAS_EIO;
    }
    char line[512];
    int rc = 0;
    int first = *nkinds;
    while (rc == 0 && fgets(line, sizeof line, f)) {
        p.line++;
        rc = parse_line(&p, line);
    }
    fclose(f);
    if (rc == 0 && (rc = check_tile(&p)) == 0 && p.cur)
        store_unrotated(&p);
    if (rc == 0 && p.nkinds == first) {
        cas_host_errorf(host, "%s: no 'tile' lines; a tile set needs at least one", path);
        rc = CAS_EDATA;
    }
    if (rc == 0)
        rc = resolve_start(&p, start_kind);
    *kinds = p.kinds;
    *nkinds = p.nkinds;
    return rc;
}

static int find_kind(struct carc_kind *kinds, int nkinds, const char *id, size_t len)
{
    for (int i = 0; i < nkinds; i++)
        if (strlen(kinds[i].id) == len && strncmp(kinds[i].id, id, len) == 0)
            return i;
    return -1;
}

int cas__carc_apply_counts(const struct cas_host *host, const char *spec,
                           struct carc_kind *kinds, int nkinds)
{
    int counts[CARC_MAX_KINDS];
    for (int i = 0; i < nkinds; i++)
        counts[i] = kinds[i].count;
    for (const char *at = spec; *at;) {
        at += strspn(at, " ,");
        if (!*at)
            break;
        size_t len = strcspn(at, ",");
        const char *colon = memchr(at, ':', len);
        char *end = NULL;
        long n = colon ? strtol(colon + 1, &end, 10) : -1;
        if (!colon || end == colon + 1 || (size_t)(end - at) != len - strspn(end, " ") ||
            n < 0 || n > 999) {
            cas_host_errorf(host, "tiles: bad entry '%.*s'; write ID:COUNT entries "
                            "separated by commas, e.g. *:0,D:2,E:3", (int)len, at);
            return CAS_EOPTION;
        }
        size_t idlen = (size_t)(colon - at);
        while (idlen && at[idlen - 1] == ' ')
            idlen--;
        if (idlen == 1 && at[0] == '*') {
            for (int i = 0; i < nkinds; i++)
                counts[i] = (int)n;
        } else {
            int k = find_kind(kinds, nkinds, at, idlen);
            if (k < 0) {
                cas_host_errorf(host, "tiles: unknown tile id '%.*s'; ids are those "
                                "of the tile sets (e.g. %s)", (int)idlen, at,
                                kinds[0].id);
                return CAS_EOPTION;
            }
            counts[k] = (int)n;
        }
        at += len;
    }
    for (int i = 0; i < nkinds; i++)
        kinds[i].count = counts[i];
    return CAS_OK;
}

/* ---------------------------------------------------------- rotations */

static void feature_text(const struct carc_kind *k, const struct carc_rot *r,
                         int f, int inner_no, int inner_total, char *out,
                         size_t cap)
{
    const struct carc_feature_def *d = &k->f[f];
    size_t n = (size_t)snprintf(out, cap, "%s", d->name);
    if (d->cls == CAS_CARC_CLOISTER)
        return;
    char sep = ' ';
    for (int side = 0; side < 4; side++)
        for (int c = 0; c < k->ncells; c++)
            for (int slot = 0; slot < 3; slot++) {
                int is_field = d->cls == CAS_CARC_FIELD;
                if ((slot == 1) == is_field || r->seg[c][side][slot] != f)
                    continue;
                const char *name = is_field
                    ? cas__carc_half_names[side * 2 + slot / 2]
                    : (const char[2]){cas__carc_side_names[side], 0};
                n += (size_t)snprintf(out + n, cap - n, "%c%s", sep, name);
                if (k->ncells > 1)
                    n += (size_t)snprintf(out + n, cap - n, "%d", c);
                sep = '+';
            }
    if (sep == ' ') {
        if (inner_total > 1)
            snprintf(out + n, cap - n, " inner%d", inner_no);
        else
            snprintf(out + n, cap - n, " inner");
    }
}

/* The feature whose two half-edges meet at corner q of cell `sub`, if it
 * is one feature there, else SEG_FREE.  On a 2x1 tile a corner in the
 * middle of a long side joins the halves of that side's two cells (the
 * side before or after it is the inner one). */
static uint8_t corner_feature(const struct carc_kind *k, const struct carc_rot *r, int sub,
                              int q)
{
    int before = (q + 3) % 4;
    uint8_t a = r->seg[sub][q][0], b = r->seg[sub][before][2];
    if (k->ncells == 2 && r->edge[sub][before] == EDGE_NONE)
        b = r->seg[1 - sub][q][2];
    else if (k->ncells == 2 && r->edge[sub][q] == EDGE_NONE)
        a = r->seg[1 - sub][before][0];
    return a != SEG_FREE && a == b ? a : SEG_FREE;
}

static void rotate_kind(struct carc_kind *k)
{
    static const int8_t base_dx[CARC_MAX_CELLS] = {0, 1}, base_dy[CARC_MAX_CELLS] = {0, 0};
    memset(k->of_class, 0, sizeof k->of_class);
    k->any_edges = 0;
    for (int f = 0; f < k->nf; f++)
        k->of_class[k->f[f].cls] |= (uint16_t)(1u << f);
    for (unsigned set = 0; set < 1u << CAS_CARC_CLOISTER; set++) {
        k->of_classes[set] = 0;
        for (int cls = CAS_CARC_ROAD; cls <= CAS_CARC_CLOISTER; cls++)
            if (set & CAS_CARC_CLASS_BIT(cls) >> 1)
                k->of_classes[set] |= k->of_class[cls];
    }
    for (int rot = 0; rot < 4; rot++) {
        struct carc_rot *r = &k->rot[rot];
        if (rot > 0) {
            memset(r->edge, EDGE_NONE, sizeof r->edge);
            memset(r->seg, SEG_FREE, sizeof r->seg);
            for (int c = 0; c < k->ncells; c++)
                for (int side = 0; side < 4; side++) {
                    int b = (side + rot) % 4;
                    r->edge[c][b] = k->rot[0].edge[c][side];
                    memcpy(r->seg[c][b], k->rot[0].seg[c][side], 3);
                }
        }
        for (int c = 0; c < k->ncells; c++) {
            int x = base_dx[c], y = base_dy[c];
            for (int i = 0; i < rot; i++) {
                int t = x;
                x = -y;
                y = t;
            }
            r->dx[c] = (int8_t)x;
            r->dy[c] = (int8_t)y;
            r->sig[c] = r->care[c] = 0;
            for (int b = 0; b < 4; b++) {
                uint32_t e = r->edge[c][b];
                k->any_edges |= e == EDGE_ANY;
                r->sig[c] |= e << (8 * b);
                if (e != EDGE_ANY && e != EDGE_NONE)
                    r->care[c] |= 0xFFu << (8 * b);
            }
        }
        for (int c = 0; c < k->ncells; c++)
            for (int q = 0; q < 4; q++)
                r->corner[c][q] = corner_feature(k, r, c, q);
        int inner_total = 0, inner_no = 0;
        for (int f = 0; f < k->nf; f++) {
            int has_half = 0;
            for (int c = 0; c < k->ncells; c++)
                for (int s = 0; s < 4; s++)
                    has_half |= r->seg[c][s][0] == f || r->seg[c][s][2] == f;
            inner_total += k->f[f].cls == CAS_CARC_FIELD && !has_half;
        }
        for (int f = 0; f < k->nf; f++) {
            feature_text(k, r, f, inner_no + 1, inner_total, r->ftext[f],
                         sizeof r->ftext[f]);
            if (strstr(r->ftext[f], " inner"))
                inner_no++;
        }
    }
}

void cas__carc_pattern_masks(int p, uint32_t *req, uint32_t *care)
{
    *req = *care = 0;
    for (int b = 0; b < 4; b++, p /= 5)
        if (p % 5) {
            *req |= (uint32_t)(p % 5) << (8 * b);
            *care |= 0xFFu << (8 * b);
        }
}

/* Which rotations of a one-space tile fit each requirement pattern. */
static void fill_fitmask(struct carc_kind *k)
{
    memset(k->fitmask, 0, sizeof k->fitmask);
    memset(k->fitting, 0, sizeof k->fitting);
    if (k->ncells != 1) {
        for (int p = 0; p < CARC_PATTERNS; p++) {
            uint32_t req, care;
            cas__carc_pattern_masks(p, &req, &care);
            for (int rot = 0; rot < 4; rot++)
                for (int c = 0; c < k->ncells; c++)
                    if (((k->rot[rot].sig[c] ^ req) & care & k->rot[rot].care[c]) == 0)
                        k->fitmask[p] |= (uint8_t)(1u << (CARC_MAX_CELLS * rot + c));
        }
        return;
    }
    for (int p = 0; p < CARC_PATTERNS; p++) {
        uint32_t req, care;
        cas__carc_pattern_masks(p, &req, &care);
        for (int rot = 0; rot < 4; rot++)
            if (((k->rot[rot].sig[0] ^ req) & care & k->rot[rot].care[0]) == 0)
                k->fitmask[p] |= (uint8_t)(1u << rot);
        if (k->fitmask[p])
            k->fitting[p / 64] |= 1ull << (p % 64);
    }
}

void cas__carc_prepare_rotations(struct carc_kind *kinds, int nkinds)
{
    for (int i = 0; i < nkinds; i++) {
        rotate_kind(&kinds[i]);
        fill_fitmask(&kinds[i]);
    }
}
