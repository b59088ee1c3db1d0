/*
 * notation.c — the canonical text of every action (docs/notation/the-castle.md)
 * and its parser.  Texts name cells as column letter and row number of the
 * board file's grid ("d4"), rotations in degrees clockwise, and features by
 * class, a cell and the parts they take there in board orientation
 * ("house d4 E+Sw").  Parsing matches the text against the legal actions,
 * so whatever parses is legal and round-trips exactly.
 */
#include <stdio.h>
#include <string.h>

#include "castle.h"

int feature_text(const cas_state *s, unsigned root, char *buf, size_t cap)
{
    unsigned node = feature_canonical(s, root);
    char cell[8], slots[48];
    cell_name(&s->game->board, s->placed[s->nodes[node].placed].cell, cell, sizeof cell);
    slots_text(s, node, slots, sizeof slots);
    int len = snprintf(buf, cap, "%s %s %s", cls_names[s->nodes[root].cls], cell, slots);
    return len < 0 || (size_t)len >= cap ? CAS_ENOSPC : len;
}

static int put(size_t cap, int len)
{
    return len < 0 || (size_t)len >= cap ? CAS_ENOSPC : len;
}

int notation_text(const cas_state *s, cas_action a, char *buf, size_t cap)
{
    const struct tileset *t = &s->game->tiles;
    unsigned x = act_a(a), y = act_b(a);
    switch (act_kind(a)) {
    case A_DRAW:
        if (x >= (unsigned)t->nkinds)
            return CAS_EINVAL;
        return put(cap, snprintf(buf, cap, "draw %s", t->kind[x].id));
    case A_REVEAL:
        if (x < 1 || x > WALL_KINDS)
            return CAS_EINVAL;
        return put(cap, snprintf(buf, cap, "reveal %u", x));
    case A_PLACE: {
        char cell[8];
        if (s->drawn == NONE8 || x >= MAX_GRID || y > 3)
            return CAS_EINVAL;
        cell_name(&s->game->board, (int)x, cell, sizeof cell);
        return put(cap, snprintf(buf, cap, "place %s %s %u", t->kind[s->drawn].id, cell,
                                      y * 90));
    }
    case A_FOLLOW: {
        if (s->last == NONE8 || x >= t->kind[s->placed[s->last].kind].nf)
            return CAS_EINVAL;
        unsigned node = s->placed[s->last].node_base + x;
        char slots[48];
        slots_text(s, node, slots, sizeof slots);
        return put(cap, snprintf(buf, cap, "%s %s", role_names[s->nodes[node].cls], slots));
    }
    case A_PASS:
        return put(cap, snprintf(buf, cap, "pass"));
    case A_SCORE: {
        char name[64];
        if (x >= s->nnodes || s->nodes[x].root != x)
            return CAS_EINVAL;
        feature_text(s, x, name, sizeof name);
        return put(cap, snprintf(buf, cap, "score %s%s", name, y ? " double" : ""));
    }
    case A_EXTRA:
        return put(cap, snprintf(buf, cap, "extra turn"));
    case A_END_TURN:
        return put(cap, snprintf(buf, cap, "end turn"));
    default:
        return CAS_EINVAL;
    }
}

/* The first word of every action text, for telling "not legal now" from
 * "not an action". */
static bool known_verb(const char *text)
{
    static const char *const verbs[] = {"draw", "reveal", "place", "herald", "squire", "knight",
                                        "merchant", "pass", "score", "extra", "end"};
    size_t n = strcspn(text, " ");
    for (size_t i = 0; i < sizeof verbs / sizeof verbs[0]; i++)
        if (strlen(verbs[i]) == n && strncmp(text, verbs[i], n) == 0)
            return true;
    return false;
}

/* "place ID CELL DEG" read directly (the longest list to match against):
 * the code, or 0 when the words do not name a cell and rotation. */
static cas_action parse_place(const cas_state *s, const char *text)
{
    const struct board *b = &s->game->board;
    char id[ID_LEN + 1], col, tail;
    int row, deg;
    if (s->drawn == NONE8 ||
        sscanf(text, "place %9s %c%d %d%c", id, &col, &row, &deg, &tail) != 4 ||
        strcmp(id, s->game->tiles.kind[s->drawn].id) != 0 || col < 'a' || col >= 'a' + b->w ||
        row < 1 || row > b->h || deg < 0 || deg > 270 || deg % 90)
        return 0;
    cas_action a = act(A_PLACE, (unsigned)((row - 1) * b->w + (col - 'a')), (unsigned)deg / 90);
    char canonical[64];
    if (notation_text(s, a, canonical, sizeof canonical) < 0 || strcmp(canonical, text) != 0)
        return 0; /* e.g. "d04": not the canonical spelling */
    return a;
}

int notation_parse(const cas_state *s, const char *text, cas_action *out)
{
    if (s->phase == PH_PLACE && strncmp(text, "place ", 6) == 0) {
        cas_action a = parse_place(s, text);
        if (a && placement_fits(s, (int)act_a(a), s->drawn, (int)act_b(a))) {
            *out = a;
            return CAS_OK;
        }
    }
    struct action_list l;
    legal_list(s, &l);
    char buf[128];
    for (size_t i = 0; i < l.n; i++)
        if (notation_text(s, l.a[i], buf, sizeof buf) > 0 && strcmp(buf, text) == 0) {
            *out = l.a[i];
            return CAS_OK;
        }
    const struct cas_host *host = s->game->host;
    if (!known_verb(text)) {
        cas_host_errorf(host, "'%s' is not an action of The Castle; actions start with draw, "
                        "reveal, place, herald, squire, knight, merchant, pass, score, extra "
                        "or end", text);
        return CAS_EPARSE;
    }
    char first[128] = "";
    if (l.n)
        notation_text(s, l.a[0], first, sizeof first);
    cas_host_errorf(host, "'%s' is not legal now (%zu legal action%s%s%s)", text, l.n,
                    l.n == 1 ? "" : "s", l.n ? ", e.g. " : "", first);
    return CAS_EILLEGAL;
}
