/*
 * notation.c — canonical action text (docs/notation/carcassonne.md):
 *   draw D | place D 1,0 90 | deploy meeple city N+W | pass | <phase text>
 * Coordinates and rotations follow JCloisterZone: start tile at 0,0, x east,
 * y south, rotation in degrees clockwise; a figure's feature is named by the
 * edges or half-edges it touches on the placed tile in board orientation.
 * Output is canonical; input is lenient where a name is still exact: parts
 * in any order, a field by any of its half-edges, `inner1` for a tile's
 * only inner field, a city or road by its edges alone, `place X,Y ROT` for
 * the tile just drawn.
 */
#include "carc.h"

#include <stdio.h>
#include <stdlib.h>

const char *const cas__carc_colours[CARC_MAX_PLAYERS] = {"Red", "Blue", "Green",
                                                         "Yellow", "Black", "Pink"};

/* Corner q (0 NW, 1 NE, 2 SE, 3 SW) of a tile is the NW corner of the
 * tile this far from it: a corner is named by the tile south-east of it. */
static const int corner_dx[4] = {0, 1, 1, 0}, corner_dy[4] = {0, 0, 1, 1};

int cas__carc_action_text(const struct cas_state *s, cas_action a, char *buf,
                          size_t cap)
{
    const struct cas_game *g = s->game;
    struct carc_text t = {.buf = buf, .cap = cap, .len = 0};
    switch (ACT_KIND(a)) {
    case ACT_DRAW: {
        cas_action k = a & 0xFFFFFFFFu;
        if (k >= (cas_action)g->nkinds)
            return CAS_EINVAL;
        carc_text_s(&t, "draw ");
        carc_text_s(&t, g->kinds[k].id);
        return carc_text_end(&t);
    }
    case ACT_PLACE: {
        int k, x, y, rot;
        if (cas__carc_placement_of(s, a, &k, &x, &y, &rot) != CAS_OK)
            return CAS_EINVAL;
        carc_text_s(&t, "place ");
        carc_text_s(&t, g->kinds[k].id);
        carc_text_n(&t, " ", 1);
        carc_text_i(&t, x);
        carc_text_n(&t, ",", 1);
        carc_text_i(&t, y);
        carc_text_n(&t, " ", 1);
        carc_text_i(&t, rot * 90);
        return carc_text_end(&t);
    }
    case ACT_DEPLOY: {
        if (s->placed < 0 || ACT_DEPLOY_FIG(a) >= g->nfig)
            return CAS_EINVAL;
        const struct carc_tile *tile = &C_TILES(s)[s->placed];
        const struct carc_kind *k = &g->kinds[tile->kind];
        int local = ACT_DEPLOY_LOCAL(a);
        carc_text_s(&t, "deploy ");
        carc_text_s(&t, g->fig[ACT_DEPLOY_FIG(a)].def.name);
        if (g->fig[ACT_DEPLOY_FIG(a)].def.flags & CAS_CARC_FIG_CORNER) {
            if (local < CARC_CORNER_LOCAL || local >= CARC_CORNER_LOCAL + 4)
                return CAS_EINVAL;
            int q = local - CARC_CORNER_LOCAL;
            carc_text_s(&t, " corner ");
            carc_text_i(&t, tile->x + corner_dx[q]);
            carc_text_n(&t, ",", 1);
            carc_text_i(&t, tile->y + corner_dy[q]);
            carc_text_s(&t, " NW");
            return carc_text_end(&t);
        }
        if (local >= k->nf)
            return CAS_EINVAL;
        carc_text_n(&t, " ", 1);
        carc_text_s(&t, k->rot[tile->rot].ftext[local]);
        return carc_text_end(&t);
    }
    case ACT_PASS:
        carc_text_s(&t, "pass");
        return carc_text_end(&t);
    case ACT_PHASE: {
        int ph = ACT_PHASE_INDEX(a);
        if (ph >= g->nphases)
            return CAS_EINVAL;
        const struct carc_phase_ref *p = &g->phases[ph];
        return p->phase->text(g->exp[p->exp].xctx, CARC_COF(s),
                              a & CAS_CARC_PAYLOAD_MASK, buf, cap);
    }
    default:
        return CAS_EINVAL;
    }
}

static int find_kind(const struct cas_game *g, const char *id)
{
    for (int k = 0; k < g->nkinds; k++)
        if (strcmp(g->kinds[k].id, id) == 0)
            return k;
    return -1;
}

static int parse_fail(const struct cas_state *s, const char *text, const char *why)
{
    cas_host_errorf(s->game->host, "cannot read action \"%s\": %s", text, why);
    return CAS_EPARSE;
}

/* "place ID X,Y ROT", or "place X,Y ROT" for the tile just drawn. */
static int parse_place(const struct cas_state *s, const char *text, cas_action *out)
{
    char id[CARC_ID_LEN + 1];
    int x, y, deg, used = 0, k;
    if (sscanf(text, "place %d,%d %d%n", &x, &y, &deg, &used) == 3 && text[used] == '\0') {
        k = s->drawn;
    } else if (sscanf(text, "place %16s %d,%d %d%n", id, &x, &y, &deg, &used) == 4 &&
               text[used] == '\0') {
        if ((k = find_kind(s->game, id)) < 0)
            return parse_fail(s, text, "unknown tile id");
    } else {
        return parse_fail(s, text, "write place ID X,Y ROTATION, e.g. place D 1,0 90 (the "
                          "ID may be left out for the tile just drawn)");
    }
    if (deg % 90 != 0 || deg < 0 || deg > 270)
        return parse_fail(s, text, "rotation must be 0, 90, 180 or 270");
    if (x < -30000 || x > 30000 || y < -30000 || y > 30000)
        return parse_fail(s, text, "coordinates out of range");
    *out = cas__carc_placement_code(s, k, x, y, deg / 90);
    return CAS_OK;
}

/* "corner X,Y NW" for a figure kind deployed on a corner of the placed
 * tile: X,Y is the tile south-east of the corner. */
static int parse_corner(const struct cas_state *s, const char *text, int fk,
                        const char *where, cas_action *out)
{
    int x, y, used = 0;
    if (sscanf(where, "corner %d,%d NW%n", &x, &y, &used) != 2 || where[used] != '\0')
        return parse_fail(s, text, "a corner figure is deployed as "
                                   "deploy KIND corner X,Y NW (X,Y: the tile south-east "
                                   "of the corner)");
    const struct carc_tile *t = &C_TILES(s)[s->placed];
    for (int q = 0; q < 4; q++)
        if (x == t->x + corner_dx[q] && y == t->y + corner_dy[q]) {
            *out = ACT_DEPLOY_CODE(fk, CARC_CORNER_LOCAL + q);
            return CAS_OK;
        }
    cas_host_errorf(s->game->host, "\"%s\": the corner is not one of the placed tile "
                    "%d,%d's; name it by the tile south-east of it: %d,%d to %d,%d",
                    text, t->x, t->y, t->x, t->y, t->x + 1, t->y + 1);
    return CAS_EILLEGAL;
}

#define MAX_PARTS 16

/* Split "city N+E" into its class word and parts; the count of parts, or
 * -1 when there are too many.  Points into buf, a copy of name. */
static int split_feature(const char *name, char *buf, size_t cap, const char **cls,
                         const char **parts)
{
    snprintf(buf, cap, "%s", name);
    char *space = strchr(buf, ' ');
    *cls = buf;
    if (!space)
        return 0;
    *space = '\0';
    int n = 0;
    for (char *part = space + 1; part; n++) {
        if (n == MAX_PARTS)
            return -1;
        parts[n] = part;
        part = strchr(part, '+');
        if (part)
            *part++ = '\0';
    }
    return n;
}

/* Whether part `given` is part `canonical`: the same, or `inner1` for a
 * tile's only inner field (`inner`), as an importer numbers them. */
static int same_part(const char *given, const char *canonical)
{
    return strcmp(given, canonical) == 0 ||
           (strcmp(given, "inner1") == 0 && strcmp(canonical, "inner") == 0);
}

/* Whether the written name `given` names the feature `canonical`: the same
 * class and the same parts in any order, or for a field any of its
 * half-edges (as JCloisterZone names one). */
static int names_feature(const char *given, const char *canonical)
{
    char gbuf[CARC_FTEXT_LEN * 2], cbuf[CARC_FTEXT_LEN];
    const char *gcls, *ccls, *gparts[MAX_PARTS], *cparts[MAX_PARTS];
    int ng = split_feature(given, gbuf, sizeof gbuf, &gcls, gparts);
    int nc = split_feature(canonical, cbuf, sizeof cbuf, &ccls, cparts);
    if (ng < 0 || nc < 0 || strcmp(gcls, ccls) != 0)
        return 0;
    if (ng != nc && !(strcmp(ccls, "field") == 0 && ng > 0 && ng < nc))
        return 0;
    for (int i = 0; i < ng; i++) {
        int found = 0;
        for (int j = 0; j < nc && !found; j++)
            found = same_part(gparts[i], cparts[j]);
        for (int j = 0; j < i && found; j++)
            found = strcmp(gparts[i], gparts[j]) != 0; /* each part once */
        if (!found)
            return 0;
    }
    return 1;
}

/* The tile's features as "'a', 'b'" into buf. */
static void list_features(const struct carc_kind *k, int rot, char *buf, size_t cap)
{
    buf[0] = '\0';
    for (int f = 0; f < k->nf; f++)
        snprintf(buf + strlen(buf), cap - strlen(buf), "%s'%s'", f ? ", " : "",
                 k->rot[rot].ftext[f]);
}

static int parse_deploy(const struct cas_state *s, const char *text, cas_action *out)
{
    const struct cas_game *g = s->game;
    const char *fig = text + strlen("deploy ");
    size_t len = strcspn(fig, " ");
    int fk = -1;
    for (int i = 0; i < g->nfig; i++)
        if (strlen(g->fig[i].def.name) == len && strncmp(g->fig[i].def.name, fig, len) == 0)
            fk = i;
    if (fk < 0)
        return parse_fail(s, text, "unknown figure; the base game has 'meeple'");
    const char *feature = fig + len + (fig[len] == ' ');
    if (s->placed < 0) {
        cas_host_errorf(g->host, "\"%s\": no tile was placed this turn", text);
        return CAS_EILLEGAL;
    }
    const struct carc_tile *t = &C_TILES(s)[s->placed];
    const struct carc_kind *k = &g->kinds[t->kind];
    if (g->fig[fk].def.flags & CAS_CARC_FIG_CORNER)
        return parse_corner(s, text, fk, feature, out);
    for (int f = 0; f < k->nf; f++)
        if (strcmp(k->rot[t->rot].ftext[f], feature) == 0) {
            *out = ACT_DEPLOY_CODE(fk, f);
            return CAS_OK;
        }
    /* A half-edge belongs to one field and a set of edges to one road or
     * city, so at most one feature can match. */
    for (int f = 0; f < k->nf; f++)
        if (names_feature(feature, k->rot[t->rot].ftext[f])) {
            *out = ACT_DEPLOY_CODE(fk, f);
            return CAS_OK;
        }
    /* A city or a road by its edges alone: an edge is one or the other. */
    if (!strchr(feature, ' ') && strcmp(feature, "monastery") != 0) {
        char classed[CARC_FTEXT_LEN * 2];
        for (int f = 0; f < k->nf; f++) {
            snprintf(classed, sizeof classed, "%.*s %s",
                     (int)strcspn(k->rot[t->rot].ftext[f], " "), k->rot[t->rot].ftext[f],
                     feature);
            if (names_feature(classed, k->rot[t->rot].ftext[f])) {
                *out = ACT_DEPLOY_CODE(fk, f);
                return CAS_OK;
            }
        }
    }
    char known[400];
    list_features(k, t->rot, known, sizeof known);
    /* Where the tile lies is said too: a placement turned otherwise than the
     * record meant shows here first, at the deployment after it. */
    cas_host_errorf(g->host, "\"%s\": tile %s has no such feature; it has %s, as placed "
                    "at %d,%d turned %d (if the tile was meant to lie otherwise, the "
                    "placement before this action is what is wrong)", text, k->id, known, t->x,
                    t->y, 90 * t->rot);
    return CAS_EILLEGAL;
}

static int parse_phase(const struct cas_state *s, const char *text, cas_action *out)
{
    const struct cas_game *g = s->game;
    for (int i = 0; i < g->nphases; i++) {
        uint64_t payload;
        const struct carc_phase_ref *p = &g->phases[i];
        if (p->phase->parse(g->exp[p->exp].xctx, CARC_COF(s), text, &payload) == CAS_OK) {
            *out = ACT_PHASE_CODE(i, payload);
            return CAS_OK;
        }
    }
    return parse_fail(s, text, "expected draw, place, deploy or pass");
}

static int parse_any(const struct cas_state *s, const char *text, cas_action *out)
{
    if (strncmp(text, "draw ", 5) == 0) {
        int k = find_kind(s->game, text + 5);
        if (k < 0)
            return parse_fail(s, text, "unknown tile id");
        *out = ACT_DRAW_CODE(k);
        return CAS_OK;
    }
    if (strncmp(text, "place ", 6) == 0)
        return parse_place(s, text, out);
    if (strncmp(text, "deploy ", 7) == 0)
        return parse_deploy(s, text, out);
    if (strcmp(text, "pass") == 0) {
        *out = ACT_MAKE(ACT_PASS);
        return CAS_OK;
    }
    return parse_phase(s, text, out);
}

/* Lenient input: `pass` where no figure decision is open declines the
 * expansion decision the game asks for now (`abbey keep`, `wagon home`),
 * as a phase whose parse accepts the word says; the stored text stays
 * that phase's canonical one.  A record converted from JCloisterZone, whose
 * PASS means any of them, needs no knowledge of which. */
static int parse_pass_for_phase(const struct cas_state *s, cas_action *out)
{
    const struct cas_game *g = s->game;
    for (int i = 0; i < g->nphases; i++) {
        uint64_t payload;
        const struct carc_phase_ref *p = &g->phases[i];
        if (p->phase->parse(g->exp[p->exp].xctx, CARC_COF(s), "pass", &payload) == CAS_OK &&
            cas__carc_is_legal(s, ACT_PHASE_CODE(i, payload))) {
            *out = ACT_PHASE_CODE(i, payload);
            return 1;
        }
    }
    return 0;
}

/* What the game asks for at this stage, for an action that is not it. */
static const char *asked_now(const struct cas_state *s)
{
    switch (s->stage) {
    case ST_DRAW:
        return "chance draws a tile now";
    case ST_PLACE:
        return "the tile drawn is to be placed now";
    case ST_DEPLOY:
        return "a figure is to be deployed on the tile just placed, or pass, now";
    case ST_XPHASE:
        return "an expansion's decision is asked now (see the choices)";
    default:
        return "the game is over";
    }
}

/* Why legal-looking action a is not legal now, in words, into buf. */
static void why_illegal(const struct cas_state *s, cas_action a, char *buf, size_t cap)
{
    int kind, x, y, rot;
    if (ACT_KIND(a) == ACT_PLACE && s->stage == ST_PLACE &&
        cas__carc_placement_of(s, a, &kind, &x, &y, &rot) == CAS_OK) {
        if (kind != s->drawn)
            snprintf(buf, cap, "the tile drawn is %s", s->game->kinds[s->drawn].id);
        else
            cas__carc_placement_refusal(s, kind, x, y, rot, buf, cap);
    } else if (ACT_KIND(a) == ACT_DEPLOY && s->stage == ST_DEPLOY) {
        int node = cas__carc_deploy_node(s, ACT_DEPLOY_FIG(a), ACT_DEPLOY_LOCAL(a));
        if (node < 0)
            snprintf(buf, cap, "the placed tile has no such place for a %s",
                     s->game->fig[ACT_DEPLOY_FIG(a)].def.name);
        else
            cas__carc_deploy_refusal(s, s->player, ACT_DEPLOY_FIG(a), node, buf, cap);
    } else {
        snprintf(buf, cap, "%s", asked_now(s));
    }
}

int cas__carc_parse_action(const struct cas_state *s, const char *text,
                           cas_action *out)
{
    cas_action a = 0;
    int rc = parse_any(s, text, &a);
    if (rc != CAS_OK)
        return rc;
    if (a == ACT_MAKE(ACT_PASS) && !cas__carc_is_legal(s, a) && parse_pass_for_phase(s, &a)) {
        *out = a;
        return CAS_OK;
    }
    if (!cas__carc_is_legal(s, a)) {
        char why[200];
        why_illegal(s, a, why, sizeof why);
        cas_host_errorf(s->game->host, "\"%s\" is not legal now: %s", text, why);
        return CAS_EILLEGAL;
    }
    *out = a;
    return CAS_OK;
}

int cas__carc_notation_help(const struct cas_game *g, const struct cas_writer *out)
{
    static const char help[] =
        "Carcassonne actions (docs/notation/carcassonne.md):\n"
        "  place ID X,Y ROT     put the drawn tile ID with its anchor at X,Y (the start\n"
        "                       tile is 0,0, x grows east, y grows south), turned ROT\n"
        "                       degrees clockwise: 0, 90, 180 or 270\n"
        "  deploy FIGURE WHERE  stand a figure on a feature of the tile just placed,\n"
        "                       named in board orientation: road/city by its edges\n"
        "                       clockwise from north (city N+W), a field by its\n"
        "                       half-edges (field Nw+Ne: Nw Ne En Es Se Sw Ws Wn),\n"
        "                       or monastery\n"
        "  pass                 deploy nothing this turn\n"
        "The board marks the choices with their numbers; the drawn tile is shown in\n"
        "each rotation, titled with the choices that use it.\n";
    int rc = out->write(out->ctx, help, sizeof help - 1);
    for (int i = 0; rc >= 0 && i < g->nexp; i++) { /* each expansion's own (1.8) */
        const struct cas_carc_expansion *d = g->exp[i].desc;
        if (CAS_HAS_FIELD(d, struct cas_carc_expansion, notation_help) && d->notation_help)
            rc = cas_writef(out, "\n%s:\n%s", g->exp[i].id, d->notation_help);
    }
    return rc < 0 ? rc : CAS_OK;
}
