/*
 * jcz.c — import_foreign for JCloisterZone 5.x saved games (.jcz): the
 * setup's sets, elements, rules and start tile, the players and the replay
 * of PLACE_TILE, DEPLOY_MEEPLE, PASS and COMMIT become a hash-free castellan
 * record; the host then checks every action as for any record.  Names are
 * mapped by data/jcz.map, so a new set's ids are data; anything castellan
 * does not have is refused, naming it and where it is in the file.
 */
#include "carc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JCZ_NAME 48
#define JCZ_MAX_NAMES 512

struct jcz_name {
    char kind[8];          /* "set", "figure" or "tile" */
    char from[JCZ_NAME];   /* JCloisterZone's name */
    char to[JCZ_NAME];     /* castellan's; "" for the base game's set */
};

struct jcz_map {
    struct jcz_name names[JCZ_MAX_NAMES];
    int n;
};

struct jcz_import {
    const struct cas_host *host;
    const struct cas_writer *out;
    struct jcz_map map;
    int nplayers, actor;   /* actor: turns in order; the host takes the game's */
    size_t ply, message_line; /* message_line: where the message being read starts */
    int placed_x, placed_y, have_placed;
};

static int read_map(const struct cas_host *host, struct jcz_map *map)
{
    char path[1024], line[256];
    snprintf(path, sizeof path, "%s/jcz.map", host->data_dir);
    FILE *f = fopen(path, "r");
    if (!f) {
        cas_host_errorf(host, "%s: cannot open: %s", path, strerror(errno));
        return CAS_EIO;
    }
    int rc = CAS_OK, lineno = 0;
    map->n = 0;
    while (rc == CAS_OK && fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#' || line[0] == '\n')
            continue;
        struct jcz_name *e = &map->names[map->n];
        e->to[0] = '\0';
        int fields = sscanf(line, "%7s %47s %47s", e->kind, e->from, e->to);
        if (map->n == JCZ_MAX_NAMES || fields < 2 ||
            (fields < 3 && strcmp(e->kind, "set") != 0)) {
            cas_host_errorf(host, "%s:%d: expected 'set JCZ [EXPANSION]', 'figure JCZ "
                            "FIGURE' or 'tile JCZ ID'", path, lineno);
            rc = CAS_EDATA;
        }
        map->n++;
    }
    fclose(f);
    return rc;
}

/* The index of the map line `kind from`, or -1. */
static int lookup(const struct jcz_map *map, const char *kind, const char *from)
{
    for (int i = 0; i < map->n; i++)
        if (strcmp(map->names[i].kind, kind) == 0 && strcmp(map->names[i].from, from) == 0)
            return i;
    return -1;
}

/* The names of one kind, "a, b, c", into buf (for what an error offers). */
static void list_names(const struct jcz_map *map, const char *kind, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < map->n && len < cap; i++)
        if (strcmp(map->names[i].kind, kind) == 0)
            len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ", " : "",
                                    map->names[i].from);
}

static const struct cas_json *member(const struct cas_json *v, const char *key)
{
    if (!v || v->type != CAS_JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < v->n; i++)
        if (strcmp(v->items[i].key, key) == 0)
            return &v->items[i];
    return NULL;
}

/* A member that must be there with this type; else explains and NULL. */
static const struct cas_json *need(struct jcz_import *im, const struct cas_json *v,
                                   const char *path, const char *key,
                                   enum cas_json_type type, const char *what)
{
    const struct cas_json *m = member(v, key);
    if (!m || m->type != type) {
        cas_host_errorf(im->host, "%s%s%s (line %zu): expected %s here%s", path,
                        path[0] ? "." : "", key, m ? m->line : v->line, what,
                        m ? "" : ", found nothing");
        return NULL;
    }
    return m;
}

static int is_int(const struct cas_json *v, long *out)
{
    if (!v || v->type != CAS_JSON_NUMBER)
        return 0;
    char *end;
    errno = 0;
    *out = strtol(v->text, &end, 10);
    return *end == '\0' && errno == 0 && *out > -100000 && *out < 100000;
}

static int refuse(struct jcz_import *im, const struct cas_json *at, const char *fmt, ...)
    CAS_PRINTF(3, 4);

static int refuse(struct jcz_import *im, const struct cas_json *at, const char *fmt, ...)
{
    char text[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    cas_host_errorf(im->host, "%s (line %zu)", text, at->line);
    return CAS_EPARSE;
}

static int read_sets(struct jcz_import *im, const struct cas_json *setup)
{
    const struct cas_json *sets = need(im, setup, "setup", "sets", CAS_JSON_OBJECT,
                                       "an object of sets, e.g. {\"basic:1\": 1}");
    if (!sets)
        return CAS_EPARSE;
    int base = 0;
    for (size_t i = 0; i < sets->n; i++) {
        const struct cas_json *set = &sets->items[i];
        int line = lookup(&im->map, "set", set->key);
        long count;
        if (line < 0) {
            char known[256];
            list_names(&im->map, "set", known, sizeof known);
            return refuse(im, set, "setup.sets.\"%s\": castellan does not implement this "
                          "set; it imports %s", set->key, known);
        }
        if (!is_int(set, &count) || count != 1)
            return refuse(im, set, "setup.sets.\"%s\" = %s: castellan plays one copy of "
                          "a set; write 1", set->key, set->text ? set->text : "(no number)");
        if (!im->map.names[line].to[0])
            base = 1;
        else if (cas_writef(im->out, "Expansion: %s 0\n", im->map.names[line].to) < 0)
            return CAS_ENOMEM;
    }
    if (!base)
        return refuse(im, sets, "setup.sets: no \"basic:1\"; castellan plays every "
                      "expansion with the base game");
    return CAS_OK;
}

/* Elements castellan plays as JCloisterZone writes them by default. */
static const struct {
    const char *name;
    enum cas_json_type type;
    const char *value; /* the number for CAS_JSON_NUMBER */
} standard_elements[] = {
    {"small-follower", CAS_JSON_NUMBER, "7"}, {"farmers", CAS_JSON_TRUE, NULL},
    {"big-follower", CAS_JSON_NUMBER, "1"},   {"inn", CAS_JSON_TRUE, NULL},
    {"cathedral", CAS_JSON_TRUE, NULL},       {"builder", CAS_JSON_NUMBER, "1"},
    {"pig", CAS_JSON_NUMBER, "1"},            {"traders", CAS_JSON_TRUE, NULL},
};

static int read_elements(struct jcz_import *im, const struct cas_json *setup)
{
    const struct cas_json *elements = member(setup, "elements");
    if (!elements)
        return CAS_OK;
    for (size_t i = 0; i < elements->n; i++) {
        const struct cas_json *e = &elements->items[i];
        int ok = 0;
        for (size_t j = 0; j < sizeof standard_elements / sizeof *standard_elements; j++)
            if (strcmp(standard_elements[j].name, e->key) == 0)
                ok = e->type == standard_elements[j].type &&
                     (!standard_elements[j].value ||
                      strcmp(e->text, standard_elements[j].value) == 0);
        if (!ok)
            return refuse(im, e, "setup.elements.\"%s\": castellan does not implement this "
                          "element or count; it plays the rulebook's figures (7 meeples, "
                          "farmers, and what its expansions bring)", e->key);
    }
    return CAS_OK;
}

static int read_rules(struct jcz_import *im, const struct cas_json *setup)
{
    const struct cas_json *rules = member(setup, "rules");
    if (rules && rules->type == CAS_JSON_OBJECT && rules->n)
        return refuse(im, &rules->items[0], "setup.rules.\"%s\": castellan does not "
                      "implement this rule variant; it plays the rulebook's rules, so "
                      "only a game without rule variants imports", rules->items[0].key);
    const struct cas_json *start = member(setup, "start");
    if (start) {
        int line = start->type == CAS_JSON_STRING ? lookup(&im->map, "tile", start->text) : -1;
        if (line < 0 || strcmp(im->map.names[line].to, "D") != 0)
            return refuse(im, start, "setup.start: castellan starts with the base game's "
                          "start tile \"BA/RCr\" (D) only");
    }
    return CAS_OK;
}

/* A player's name as a record value: backslash, tab, line breaks escaped. */
static int write_player(struct jcz_import *im, const char *name)
{
    char buf[256];
    size_t len = 0;
    for (const unsigned char *p = (const unsigned char *)name; *p && len < sizeof buf - 5; p++) {
        if (*p == '\\')
            len += (size_t)snprintf(buf + len, sizeof buf - len, "\\\\");
        else if (*p == '\n')
            len += (size_t)snprintf(buf + len, sizeof buf - len, "\\n");
        else if (*p == '\t')
            len += (size_t)snprintf(buf + len, sizeof buf - len, "\\t");
        else if (*p < 0x20)
            len += (size_t)snprintf(buf + len, sizeof buf - len, "\\x%02X", *p);
        else
            buf[len++] = (char)*p;
    }
    buf[len] = '\0';
    return cas_writef(im->out, "Player: human %s\n", buf) < 0 ? CAS_ENOMEM : CAS_OK;
}

static int read_players(struct jcz_import *im, const struct cas_json *root)
{
    const struct cas_json *players = need(im, root, "", "players", CAS_JSON_ARRAY,
                                          "an array of players");
    if (!players)
        return CAS_EPARSE;
    if (players->n < 2 || players->n > CARC_MAX_PLAYERS)
        return refuse(im, players, "players: %zu players; castellan plays 2 to %d",
                      players->n, CARC_MAX_PLAYERS);
    for (size_t i = 0; i < players->n; i++) {
        const struct cas_json *name = member(&players->items[i], "name");
        if (!name || name->type != CAS_JSON_STRING || !name->len)
            return refuse(im, &players->items[i], "players[%zu]: expected {\"name\": "
                          "\"...\"}", i);
        int rc = write_player(im, name->text);
        if (rc)
            return rc;
    }
    im->nplayers = (int)players->n;
    return cas_writef(im->out, "\n") < 0 ? CAS_ENOMEM : CAS_OK;
}

static int action(struct jcz_import *im, int actor, const char *fmt, ...) CAS_PRINTF(3, 4);

static int action(struct jcz_import *im, int actor, const char *fmt, ...)
{
    char text[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return cas_writef(im->out, "# line %zu\n%zu %d %s\n", im->message_line, im->ply++,
                      actor, text) < 0 ? CAS_ENOMEM : CAS_OK;
}

static int read_position(struct jcz_import *im, const struct cas_json *payload,
                         const char *path, long *x, long *y)
{
    const struct cas_json *pos = member(payload, "position");
    if (!pos || pos->type != CAS_JSON_ARRAY || pos->n != 2 || !is_int(&pos->items[0], x) ||
        !is_int(&pos->items[1], y))
        return refuse(im, pos ? pos : payload, "%s.position: expected [X, Y], two "
                      "integers", path);
    return CAS_OK;
}

static int place_tile(struct jcz_import *im, const struct cas_json *payload, const char *path)
{
    const struct cas_json *tile = member(payload, "tileId"),
                          *rotation = member(payload, "rotation");
    long x, y, degrees = -1;
    if (!tile || tile->type != CAS_JSON_STRING)
        return refuse(im, payload, "%s.tileId: expected a tile id such as \"BA/C\"", path);
    int line = lookup(&im->map, "tile", tile->text);
    if (line < 0)
        return refuse(im, tile, "%s.tileId = \"%s\": no tile of the sets castellan "
                      "implements has this id (data/jcz.map lists them)", path, tile->text);
    static const char *const rotations[] = {"R0", "R90", "R180", "R270"};
    for (int r = 0; r < 4 && rotation && rotation->type == CAS_JSON_STRING; r++)
        if (strcmp(rotation->text, rotations[r]) == 0)
            degrees = 90L * r;
    if (degrees < 0)
        return refuse(im, rotation ? rotation : payload, "%s.rotation: expected \"R0\", "
                      "\"R90\", \"R180\" or \"R270\"", path);
    int rc = read_position(im, payload, path, &x, &y);
    if (rc)
        return rc;
    const char *id = im->map.names[line].to;
    im->placed_x = (int)x;
    im->placed_y = (int)y;
    im->have_placed = 1;
    if ((rc = action(im, CAS_ACTOR_CHANCE, "draw %s", id)))
        return rc;
    return action(im, im->actor, "place %s %ld,%ld %ld", id, x, y, degrees);
}

/* JCloisterZone's half-edge names and castellan's (the tile reference). */
static const char *const half_edges[][2] = {
    {"NL", "Nw"}, {"NR", "Ne"}, {"EL", "En"}, {"ER", "Es"},
    {"SL", "Se"}, {"SR", "Sw"}, {"WL", "Ws"}, {"WR", "Wn"},
};

/* A location as castellan names a feature: "monastery", "field Nw+Ne" or,
 * for a city or road, its edges "N+W" (the plugin's lenient notation knows
 * which of the two the tile has there).  0 when it names nothing. */
static int feature_name(const char *location, char *buf, size_t cap)
{
    if (strcmp(location, "CLOISTER") == 0 || strcmp(location, "MONASTERY") == 0)
        return snprintf(buf, cap, "monastery") > 0;
    size_t len = 0;
    if (strchr(location, 'L') || strchr(location, 'R')) {
        len = (size_t)snprintf(buf, cap, "field ");
        for (const char *p = location; *p; p += 2 + (p[2] == '.')) {
            size_t j = 0;
            while (j < 8 && strncmp(p, half_edges[j][0], 2) != 0)
                j++;
            if (j == 8 || (p[2] && p[2] != '.') || len + 4 > cap)
                return 0;
            len += (size_t)snprintf(buf + len, cap - len, "%s%s",
                                    p == location ? "" : "+", half_edges[j][1]);
        }
        return 1;
    }
    for (const char *p = location; *p; p++) {
        if (!strchr("NESW", *p) || len + 3 > cap)
            return 0;
        len += (size_t)snprintf(buf + len, cap - len, "%s%c", p == location ? "" : "+", *p);
    }
    return len > 0;
}

static int deploy(struct jcz_import *im, const struct cas_json *payload, const char *path)
{
    const struct cas_json *pointer = member(payload, "pointer"),
                          *meeple = member(payload, "meepleId");
    const struct cas_json *location = member(pointer, "location");
    long x, y;
    char where[64], type[JCZ_NAME] = "";
    if (!location || location->type != CAS_JSON_STRING)
        return refuse(im, payload, "%s.pointer.location: expected a location such as "
                      "\"N\" or \"NL.NR\"", path);
    int rc = read_position(im, pointer, path, &x, &y);
    if (rc)
        return rc;
    if (!im->have_placed || x != im->placed_x || y != im->placed_y)
        return refuse(im, pointer, "%s.pointer.position [%ld, %ld]: castellan deploys on "
                      "the tile just placed only", path, x, y);
    if (!feature_name(location->text, where, sizeof where))
        return refuse(im, location, "%s.pointer.location = \"%s\": not a location castellan "
                      "knows (edges N E S W, half-edges NL NR EL ER SL SR WL WR joined by "
                      "'.', or CLOISTER)", path, location->text);
    if (!meeple || meeple->type != CAS_JSON_STRING ||
        sscanf(meeple->text, "%*d.%47[^.]", type) != 1)
        return refuse(im, meeple ? meeple : payload, "%s.meepleId: expected "
                      "\"PLAYER.TYPE.N\", e.g. \"0.small.1\"", path);
    int line = lookup(&im->map, "figure", type);
    if (line < 0)
        return refuse(im, meeple, "%s.meepleId = \"%s\": castellan has no figure of type "
                      "\"%s\"", path, meeple->text, type);
    return action(im, im->actor, "deploy %s %s", im->map.names[line].to, where);
}

static int read_message(struct jcz_import *im, const struct cas_json *m, size_t i)
{
    char path[48];
    snprintf(path, sizeof path, "replay[%zu].payload", i);
    const struct cas_json *type = member(m, "type"), *payload = member(m, "payload");
    im->message_line = m->line;
    if (!type || type->type != CAS_JSON_STRING)
        return refuse(im, m, "replay[%zu]: expected {\"type\": ..., \"payload\": ...}", i);
    int placing = strcmp(type->text, "PLACE_TILE") == 0,
        deploying = strcmp(type->text, "DEPLOY_MEEPLE") == 0;
    if ((placing || deploying) && (!payload || payload->type != CAS_JSON_OBJECT))
        return refuse(im, m, "replay[%zu]: expected {\"type\": ..., \"payload\": {...}}",
                      i);
    if (placing)
        return place_tile(im, payload, path);
    if (deploying)
        return deploy(im, payload, path);
    if (strcmp(type->text, "PASS") == 0)
        return action(im, im->actor, "pass");
    if (strcmp(type->text, "COMMIT") == 0) {
        im->actor = (im->actor + 1) % im->nplayers;
        im->have_placed = 0;
        return CAS_OK;
    }
    if (strcmp(type->text, "GAME_OVER") == 0)
        return CAS_OK;
    return refuse(im, type, "replay[%zu].type = \"%s\": castellan cannot import this "
                  "message; it imports PLACE_TILE, DEPLOY_MEEPLE, PASS, COMMIT and "
                  "GAME_OVER", i, type->text);
}

int cas__carc_import_foreign(const struct cas_host *host, const char *format,
                             const struct cas_json *doc, const struct cas_writer *out)
{
    if (strcmp(format, "jcz") != 0)
        return CAS_ENOTFOUND;
    struct jcz_import *im = calloc(1, sizeof *im);
    if (!im)
        return CAS_ENOMEM;
    im->host = host;
    im->out = out;
    int rc = read_map(host, &im->map);
    const struct cas_json *setup = NULL, *replay = NULL;
    if (rc)
        goto free_import;
    if (!(setup = need(im, doc, "", "setup", CAS_JSON_OBJECT, "the game's setup object")) ||
        !(replay = need(im, doc, "", "replay", CAS_JSON_ARRAY, "the replay array"))) {
        rc = CAS_EPARSE;
        goto free_import;
    }
    if (cas_writef(out, "Castellan-Record: 1\nGame: carcassonne 0\n") < 0) {
        rc = CAS_ENOMEM;
        goto free_import;
    }
    if ((rc = read_sets(im, setup)) || (rc = read_elements(im, setup)) ||
        (rc = read_rules(im, setup)))
        goto free_import;
    if (cas_writef(out, "Seed: 0\n") < 0) {
        rc = CAS_ENOMEM;
        goto free_import;
    }
    if ((rc = read_players(im, doc)))
        goto free_import;
    for (size_t i = 0; i < replay->n && !rc; i++)
        rc = read_message(im, &replay->items[i], i);
free_import:
    free(im);
    return rc;
}
