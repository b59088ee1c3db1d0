/*
 * jcz.c — import_foreign for JCloisterZone 5.x saved games (.jcz): the
 * setup's sets, elements, rules and start tile, the players and the replay
 * of PLACE_TILE (the abbey included), DEPLOY_MEEPLE (barns and wagon moves
 * included), PASS and COMMIT become a hash-free castellan record; the host
 * then checks every action as for any record.  Names, elements and rule
 * variants are mapped by data/jcz.map, so a new set's ids are data;
 * anything castellan does not have is refused, naming it and where it is
 * in the file.
 */
#include "carc.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JCZ_NAME 48
#define JCZ_REST 160
#define JCZ_MAX_NAMES 512
#define JCZ_MAX_EXPANSIONS 8

/* One line of jcz.map: KIND A B REST, by kind
 *   set     A = JCloisterZone's set, B = castellan's expansion ("" for the
 *           base game), REST = OPTION=VALUE settings it implies;
 *   figure  A = meeple type of a meepleId, B = castellan's figure;
 *   tile    A = JCloisterZone's tile id, B = castellan's;
 *   element A = setup element, B = its value as JCloisterZone writes it,
 *           REST = the set it belongs to ("" for the base game);
 *   rule    A = setup rule, B = a value, REST = the OPTION=VALUE it means
 *           ("" for castellan's only way);
 *   count   A = setup element that counts a figure, B = the option of that
 *           count, REST = the rulebook's (the option's default);
 *   note    A = a set or element castellan lacks, REST = what to say. */
struct jcz_name {
    char kind[8];
    char from[JCZ_NAME];
    char to[JCZ_NAME];
    char rest[JCZ_REST];
};

struct jcz_map {
    struct jcz_name names[JCZ_MAX_NAMES];
    int n;
};

/* Where the replay is inside a turn, as JCloisterZone orders its messages:
 * a PLACE_TILE starts the action part (a deployment or PASS, then COMMIT);
 * after the COMMIT come the moves of freed wagons and the next turn. */
enum jcz_stage { JCZ_TURN_START, JCZ_ACTION, JCZ_AFTER_COMMIT };

struct jcz_import {
    const struct cas_host *host;
    const struct cas_writer *out;
    struct jcz_map map;
    int nplayers, actor;   /* actor: turns in order; the host takes the game's */
    size_t ply, message_line; /* message_line: where the message being read starts */
    int placed_x, placed_y;
    long placed_degrees;
    const char *placed;    /* castellan's id of the tile placed this turn */
    enum jcz_stage stage;
    const char *expansions[JCZ_MAX_EXPANSIONS]; /* castellan's ids in play */
    int nexpansions;
};

/* Split one map line into e; 0 if it has too few fields for its kind. */
static int parse_map_line(const char *line, struct jcz_name *e)
{
    int used = 0;
    memset(e, 0, sizeof *e);
    if (sscanf(line, "%7s %47s%n", e->kind, e->from, &used) != 2)
        return 0;
    const char *rest = line + used;
    if (strcmp(e->kind, "note") != 0) {
        int more = 0;
        if (sscanf(rest, " %47s%n", e->to, &more) == 1)
            rest += more;
    }
    rest += strspn(rest, " \t");
    snprintf(e->rest, sizeof e->rest, "%.*s", (int)strcspn(rest, "\r\n"), rest);
    if (strcmp(e->kind, "set") == 0 || strcmp(e->kind, "rule") == 0)
        return 1;
    if (strcmp(e->kind, "note") == 0)
        return e->rest[0] != '\0';
    if (strcmp(e->kind, "count") == 0)
        return e->to[0] && e->rest[0];
    return e->to[0] != '\0' && (strcmp(e->kind, "figure") == 0 ||
                                 strcmp(e->kind, "tile") == 0 ||
                                 strcmp(e->kind, "element") == 0);
}

static int read_map(const struct cas_host *host, struct jcz_map *map)
{
    char path[1024], line[320];
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
        if (map->n == JCZ_MAX_NAMES || !parse_map_line(line, &map->names[map->n])) {
            cas_host_errorf(host, "%s:%d: expected 'set JCZ [EXPANSION [OPTION=VALUE...]]', "
                            "'figure JCZ FIGURE', 'tile JCZ ID', 'element NAME VALUE [SET]', "
                            "'rule NAME VALUE [OPTION=VALUE]', 'count NAME OPTION DEFAULT' or "
                            "'note NAME TEXT' (at most "
                            "%d lines)", path, lineno, JCZ_MAX_NAMES);
            rc = CAS_EDATA;
        }
        map->n++;
    }
    fclose(f);
    return rc;
}

/* The index of the map line `kind from` (with `to`, if not NULL), or -1. */
static int lookup_to(const struct jcz_map *map, const char *kind, const char *from,
                     const char *to)
{
    for (int i = 0; i < map->n; i++)
        if (strcmp(map->names[i].kind, kind) == 0 && strcmp(map->names[i].from, from) == 0 &&
            (!to || strcmp(map->names[i].to, to) == 0))
            return i;
    return -1;
}

static int lookup(const struct jcz_map *map, const char *kind, const char *from)
{
    return lookup_to(map, kind, from, NULL);
}

/* The names of one kind, "a, b, c" (of one `from` only, their `to`s, if
 * not NULL), into buf: what an error offers instead. */
static void list_names(const struct jcz_map *map, const char *kind, const char *from,
                       char *buf, size_t cap)
{
    size_t len = 0;
    const char *last = "";
    buf[0] = '\0';
    for (int i = 0; i < map->n && len < cap; i++) {
        const struct jcz_name *e = &map->names[i];
        const char *name = from ? e->to : e->from;
        if (strcmp(e->kind, kind) != 0 || (from && strcmp(e->from, from) != 0) ||
            strcmp(name, last) == 0) /* a name's lines are adjacent: once each */
            continue;
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", len ? ", " : "", name);
        last = name;
    }
}

/* What jcz.map says about a set or element castellan lacks: "" or
 * " (TEXT)". */
static void note_on(const struct jcz_map *map, const char *name, char *buf, size_t cap)
{
    int line = lookup(map, "note", name);
    snprintf(buf, cap, line < 0 ? "%s" : " (%s)", line < 0 ? "" : map->names[line].rest);
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
    char text[640];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    cas_host_errorf(im->host, "%s (line %zu)", text, at->line);
    return CAS_EPARSE;
}

/* Is castellan's set `set` (a map `set` line's to; "" the base game) in play? */
static int in_play(const struct jcz_import *im, const char *set)
{
    if (!set[0])
        return 1;
    for (int i = 0; i < im->nexpansions; i++)
        if (strcmp(im->expansions[i], set) == 0)
            return 1;
    return 0;
}

static int write_option(struct jcz_import *im, const char *setting, size_t len)
{
    const char *eq = memchr(setting, '=', len);
    if (!eq)
        return CAS_OK;
    return cas_writef(im->out, "Option: %.*s = %.*s\n", (int)(eq - setting), setting,
                      (int)(len - (size_t)(eq - setting) - 1), eq + 1) < 0 ? CAS_ENOMEM
                                                                              : CAS_OK;
}

/* The OPTION=VALUE words of a map line as Option header lines. */
static int write_options(struct jcz_import *im, const char *settings)
{
    for (const char *p = settings; *p;) {
        p += strspn(p, " \t");
        size_t len = strcspn(p, " \t");
        int rc = len ? write_option(im, p, len) : CAS_OK;
        if (rc)
            return rc;
        p += len;
    }
    return CAS_OK;
}

/* A set's id with its edition: JCloisterZone may write "abbey-and-mayor"
 * for the edition its `garden` element implies (1 without, 2 with). */
static void set_id(const struct cas_json *setup, const char *key, char *buf, size_t cap)
{
    const struct cas_json *elements = member(setup, "elements");
    snprintf(buf, cap, strchr(key, ':') ? "%s" : "%s:%d", key,
             member(elements, "garden") ? 2 : 1);
}

static int read_sets(struct jcz_import *im, const struct cas_json *setup)
{
    const struct cas_json *sets = need(im, setup, "setup", "sets", CAS_JSON_OBJECT,
                                       "an object of sets, e.g. {\"basic:1\": 1}");
    if (!sets)
        return CAS_EPARSE;
    int base = 0, rc = CAS_OK;
    for (size_t i = 0; i < sets->n && !rc; i++) {
        const struct cas_json *set = &sets->items[i];
        char id[JCZ_NAME + 8], known[256], note[JCZ_REST + 4];
        set_id(setup, set->key, id, sizeof id);
        int line = lookup(&im->map, "set", id);
        long count;
        if (line < 0) {
            char also[JCZ_REST + 4];
            list_names(&im->map, "set", NULL, known, sizeof known);
            note_on(&im->map, id, note, sizeof note);
            note_on(&im->map, "*set", also, sizeof also);
            char read_as[JCZ_NAME + 64] = "";
            if (strcmp(id, set->key) != 0)
                snprintf(read_as, sizeof read_as, " (read as %s: the edition %s)", id,
                         member(member(setup, "elements"), "garden")
                             ? "the garden element means"
                             : "without gardens");
            return refuse(im, set, "setup.sets.\"%s\"%s: castellan does not implement this "
                          "set%s; it imports %s%s", set->key, read_as, note, known, also);
        }
        if (!is_int(set, &count) || count != 1)
            return refuse(im, set, "setup.sets.\"%s\" = %s: castellan plays one copy of "
                          "a set; write 1", set->key, set->text ? set->text : "(no number)");
        const struct jcz_name *e = &im->map.names[line];
        if (!e->to[0]) {
            base = 1;
            continue;
        }
        if (im->nexpansions == JCZ_MAX_EXPANSIONS)
            return refuse(im, set, "setup.sets: more than %d sets", JCZ_MAX_EXPANSIONS);
        im->expansions[im->nexpansions++] = e->to;
        if (cas_writef(im->out, "Expansion: %s 0\n", e->to) < 0)
            rc = CAS_ENOMEM;
    }
    if (!rc && !base)
        return refuse(im, sets, "setup.sets: no \"basic:1\"; castellan plays every "
                      "expansion with the base game");
    for (int i = 0; i < im->map.n && !rc; i++)
        if (strcmp(im->map.names[i].kind, "set") == 0 && im->map.names[i].to[0] &&
            in_play(im, im->map.names[i].to))
            rc = write_options(im, im->map.names[i].rest);
    return rc;
}

/* An element's value as jcz.map writes it: true, false or the number
 * ("1.0" as 1). */
static void element_value(const struct cas_json *e, char *buf, size_t cap)
{
    if (e->type == CAS_JSON_TRUE || e->type == CAS_JSON_FALSE)
        snprintf(buf, cap, "%s", e->type == CAS_JSON_TRUE ? "true" : "false");
    else if (e->type == CAS_JSON_NUMBER)
        snprintf(buf, cap, "%.*s", (int)strcspn(e->text, "."), e->text);
    else
        snprintf(buf, cap, "(%s)", e->type == CAS_JSON_STRING ? "a string" : "not a value");
}

/* A figure count castellan plays through an option (jcz.map `count`): the
 * element's line then names its set whatever the number.  The line of
 * the element `e` with its value, or -1. */
static int element_line(const struct jcz_import *im, const struct cas_json *e,
                        const char *value)
{
    if (lookup(&im->map, "count", e->key) >= 0 && e->type == CAS_JSON_NUMBER && value[0] &&
        strspn(value, "0123456789") == strlen(value))
        return lookup(&im->map, "element", e->key);
    return lookup_to(&im->map, "element", e->key, value);
}

static int check_element(struct jcz_import *im, const struct cas_json *e)
{
    char value[JCZ_NAME], known[256], note[JCZ_REST + 4];
    element_value(e, value, sizeof value);
    if (lookup(&im->map, "element", e->key) < 0) {
        note_on(&im->map, e->key, note, sizeof note);
        return refuse(im, e, "setup.elements.\"%s\": castellan does not implement this "
                      "element%s; it plays the rulebook's figures (7 meeples, farmers, and "
                      "what its expansions bring)", e->key, note);
    }
    int line = element_line(im, e, value);
    if (line < 0) {
        list_names(&im->map, "element", e->key, known, sizeof known);
        return refuse(im, e, "setup.elements.\"%s\" = %s: castellan plays %s; write %s",
                      e->key, value, e->key, known);
    }
    const char *set = im->map.names[line].rest;
    if (!in_play(im, set))
        return refuse(im, e, "setup.elements.\"%s\": it belongs to the set of %s, which "
                      "setup.sets does not list; add that set or leave the element out",
                      e->key, set);
    return CAS_OK;
}

/* A figure count other than the rulebook's as its option's line: the
 * host checks it against the option's bounds. */
static int write_count(struct jcz_import *im, const struct cas_json *e)
{
    int line = lookup(&im->map, "count", e->key);
    char value[JCZ_NAME];
    element_value(e, value, sizeof value);
    if (line < 0 || strcmp(value, im->map.names[line].rest) == 0)
        return CAS_OK;
    return cas_writef(im->out, "Option: %s = %s\n", im->map.names[line].to, value) < 0
               ? CAS_ENOMEM
               : CAS_OK;
}

/* Every part of a set in play must be there: castellan plays expansions
 * whole.  An element jcz.map knows as false may be left out (farmers); a
 * figure left out is a count of 0 (its `count` option).  Adding a missing
 * part would change the game's scores, so the refusal offers no such fix. */
static int check_parts(struct jcz_import *im, const struct cas_json *elements)
{
    for (int i = 0; i < im->map.n; i++) {
        const struct jcz_name *e = &im->map.names[i];
        if (strcmp(e->kind, "element") != 0 || !in_play(im, e->rest) ||
            member(elements, e->from) || lookup_to(&im->map, "element", e->from, "false") >= 0)
            continue;
        int count = lookup(&im->map, "count", e->from);
        if (count >= 0) {
            if (cas_writef(im->out, "Option: %s = 0\n", im->map.names[count].to) < 0)
                return CAS_ENOMEM;
            continue;
        }
        return refuse(im, elements, "setup.elements: no \"%s\"; castellan plays %s only "
                      "with all its parts, and this game was scored without it (adding "
                      "\"%s\": %s would change its scores): castellan cannot import it",
                      e->from, e->rest[0] ? e->rest : "the base game", e->from, e->to);
    }
    return CAS_OK;
}

static int read_elements(struct jcz_import *im, const struct cas_json *setup)
{
    const struct cas_json *elements = member(setup, "elements");
    if (!elements)
        return CAS_OK;
    if (elements->type != CAS_JSON_OBJECT)
        return refuse(im, elements, "setup.elements: expected an object, e.g. "
                      "{\"small-follower\": 7, \"farmers\": true}");
    for (size_t i = 0; i < elements->n; i++) {
        int rc = check_element(im, &elements->items[i]);
        if (!rc)
            rc = write_count(im, &elements->items[i]);
        if (rc)
            return rc;
    }
    int rc = check_parts(im, elements);
    if (rc)
        return rc;
    /* JCloisterZone plays farmers only when the element is there */
    const struct cas_json *farmers = member(elements, "farmers");
    if (farmers && farmers->type == CAS_JSON_TRUE)
        return CAS_OK;
    return cas_writef(im->out, "Option: farmers = off\n") < 0 ? CAS_ENOMEM : CAS_OK;
}

/* A rule's setting: the OPTION=VALUE jcz.map gives it, written only when
 * the option's plugin is in play (a rule of a set not played changes
 * nothing). */
static int read_rule(struct jcz_import *im, const struct cas_json *rule)
{
    char known[256];
    if (lookup(&im->map, "rule", rule->key) < 0) {
        list_names(&im->map, "rule", NULL, known, sizeof known);
        return refuse(im, rule, "setup.rules.\"%s\": castellan does not implement this "
                      "rule variant; it plays the rulebook's rules and the variants %s",
                      rule->key, known);
    }
    const char *value = rule->type == CAS_JSON_STRING ? rule->text
                        : rule->type == CAS_JSON_TRUE ? "true"
                        : rule->type == CAS_JSON_FALSE ? "false" : "";
    int line = lookup_to(&im->map, "rule", rule->key, value);
    if (line < 0) {
        list_names(&im->map, "rule", rule->key, known, sizeof known);
        return refuse(im, rule, "setup.rules.\"%s\" = %s%s%s: castellan does not implement "
                      "this value; it plays %s", rule->key, value[0] ? "\"" : "",
                      value[0] ? value : "(not a string)", value[0] ? "\"" : "", known);
    }
    const char *setting = im->map.names[line].rest;
    const char *dot = strchr(setting, '.');
    char plugin[JCZ_NAME] = "";
    if (dot && (size_t)(dot - setting) < sizeof plugin)
        snprintf(plugin, sizeof plugin, "%.*s", (int)(dot - setting), setting);
    return in_play(im, plugin) ? write_options(im, setting) : CAS_OK;
}

/* The start tile: "BA/RCr" or, as JCloisterZone 5 writes it, an array of
 * one {"tile": "BA/RCr", "x": 0, "y": 0, "rotation": 0}. */
static int read_start(struct jcz_import *im, const struct cas_json *start)
{
    const struct cas_json *tile = start;
    long x = 0, y = 0, rotation = 0;
    if (start->type == CAS_JSON_ARRAY) {
        const struct cas_json *one = start->n == 1 ? &start->items[0] : NULL;
        tile = member(one, "tile");
        if ((member(one, "x") && !is_int(member(one, "x"), &x)) ||
            (member(one, "y") && !is_int(member(one, "y"), &y)) ||
            (member(one, "rotation") && !is_int(member(one, "rotation"), &rotation)))
            tile = NULL;
    }
    int line = tile && tile->type == CAS_JSON_STRING ? lookup(&im->map, "tile", tile->text) : -1;
    if (line < 0 || strcmp(im->map.names[line].to, "D") != 0 || x || y || rotation)
        return refuse(im, start, "setup.start: castellan starts with the base game's start "
                      "tile \"BA/RCr\" (D) at 0,0 unturned only");
    return CAS_OK;
}

static int read_rules(struct jcz_import *im, const struct cas_json *setup)
{
    const struct cas_json *rules = member(setup, "rules");
    if (rules && rules->type != CAS_JSON_OBJECT)
        return refuse(im, rules, "setup.rules: expected an object of rule variants");
    for (size_t i = 0; rules && i < rules->n; i++) {
        int rc = read_rule(im, &rules->items[i]);
        if (rc)
            return rc;
    }
    const struct cas_json *start = member(setup, "start");
    return start ? read_start(im, start) : CAS_OK;
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

/* A `# warning: ` line after the action it concerns: the host prints it
 * with that action's ply (cas__foreign_read's notes). */
static int warn(struct jcz_import *im, const char *fmt, ...) CAS_PRINTF(2, 3);

static int warn(struct jcz_import *im, const char *fmt, ...)
{
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    return cas_writef(im->out, "# warning: %s\n", text) < 0 ? CAS_ENOMEM : CAS_OK;
}

/* Where castellan keeps its own reading of a tile that scores otherwise
 * than JCloisterZone's data (docs/rules/inns-cathedrals.md 2): said at the
 * ply the tile is placed. */
static int warn_of_tile(struct jcz_import *im)
{
    if (strcmp(im->placed, "IC-14") != 0)
        return CAS_OK;
    static const char sides[] = "NESW";
    return warn(im, "tile IC-14 at %d,%d: castellan puts its inn on two arms, %c and %c "
                "(the rulebook's caption), JCloisterZone on the %c arm only; a road through "
                "the %c arm scores as an inn road here (2 a tile, 0 if open at the end), "
                "as a plain one there", im->placed_x, im->placed_y,
                sides[(1 + im->placed_degrees / 90) % 4], sides[(3 + im->placed_degrees / 90) % 4],
                sides[(1 + im->placed_degrees / 90) % 4], sides[(3 + im->placed_degrees / 90) % 4]);
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
    const struct jcz_name *e = &im->map.names[line];
    im->placed_x = (int)x;
    im->placed_y = (int)y;
    im->placed_degrees = degrees;
    im->placed = e->to;
    im->stage = JCZ_ACTION;
    if (e->rest[0]) /* a tile from the hand, placed by its phase (an abbey): no draw */
        return action(im, im->actor, "%s %ld,%ld", e->rest, x, y);
    if ((rc = action(im, CAS_ACTOR_CHANCE, "draw %s", e->to)) ||
        (rc = action(im, im->actor, "place %s %ld,%ld %ld", e->to, x, y, degrees)))
        return rc;
    return warn_of_tile(im);
}

/* JCloisterZone's half-edge names and castellan's (the tile reference). */
static const char *const half_edges[][2] = {
    {"NL", "Nw"}, {"NR", "Ne"}, {"EL", "En"}, {"ER", "Es"},
    {"SL", "Se"}, {"SR", "Sw"}, {"WL", "Ws"}, {"WR", "Wn"},
};

/* A field's half-edges "NL.NR" as castellan's "field Nw+Ne". */
static int field_name(const char *location, char *buf, size_t cap)
{
    size_t len = (size_t)snprintf(buf, cap, "field ");
    for (const char *p = location; *p; p += 2 + (p[2] == '.')) {
        size_t j = 0;
        while (j < 8 && strncmp(p, half_edges[j][0], 2) != 0)
            j++;
        if (j == 8 || (p[2] && p[2] != '.') || len + 4 > cap)
            return 0;
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", p == location ? "" : "+",
                                half_edges[j][1]);
    }
    return 1;
}

/* A location as castellan names a feature: "monastery", "field Nw+Ne" or,
 * for a city or road, its edges "N+W" (the plugin's lenient notation knows
 * which of the two the tile has there).  JCloisterZone writes edge sets by
 * their letters (N, NW, WE, NWSE) or as all but one (_N: E, S and W), the
 * monastery as I (the pointer's feature says Monastery; older files
 * CLOISTER), a field enclosed by cities as I or II (feature Field): the
 * tile's first or second inner field, in both programs' tile order.  0
 * when it names nothing castellan has. */
static int feature_name(const char *location, const char *feature, char *buf, size_t cap)
{
    int field = feature && strcmp(feature, "Field") == 0;
    if (strcmp(location, "CLOISTER") == 0 || strcmp(location, "MONASTERY") == 0 ||
        (strcmp(location, "I") == 0 && !field && (!feature || strcmp(feature, "Monastery") == 0)))
        return snprintf(buf, cap, "monastery") > 0;
    if (field && (strcmp(location, "I") == 0 || strcmp(location, "II") == 0))
        return snprintf(buf, cap, "field inner%zu", strlen(location)) > 0;
    if (strchr(location, 'L') || strchr(location, 'R'))
        return field_name(location, buf, cap);
    char edges[5] = "";
    if (location[0] == '_' && location[1] && strchr("NESW", location[1]) && !location[2]) {
        size_t n = 0;
        for (const char *e = "NESW"; *e; e++)
            if (*e != location[1])
                edges[n++] = *e;
        location = edges;
    }
    if (!location[0] || strspn(location, "NESW") != strlen(location))
        return 0;
    /* castellan's order, N E S W, after the class the pointer names */
    size_t len = 0;
    if (feature && (strcmp(feature, "Road") == 0 || strcmp(feature, "City") == 0))
        len = (size_t)snprintf(buf, cap, "%s ", feature[0] == 'R' ? "road" : "city");
    const char *joint = "";
    for (const char *e = "NESW"; *e && len + 3 < cap; e++)
        if (strchr(location, *e)) {
            len += (size_t)snprintf(buf + len, cap - len, "%s%c", joint, *e);
            joint = "+";
        }
    return 1;
}

static int deploy(struct jcz_import *im, const struct cas_json *payload, const char *path)
{
    const struct cas_json *pointer = member(payload, "pointer"),
                          *meeple = member(payload, "meepleId");
    const struct cas_json *location = member(pointer, "location"),
                          *feature = member(pointer, "feature");
    long x, y;
    char where[64], type[JCZ_NAME] = "";
    if (!meeple || meeple->type != CAS_JSON_STRING ||
        sscanf(meeple->text, "%*d.%47[^.]", type) != 1)
        return refuse(im, meeple ? meeple : payload, "%s.meepleId: expected "
                      "\"PLAYER.TYPE.N\", e.g. \"0.small.1\"", path);
    int line = lookup(&im->map, "figure", type);
    if (line < 0)
        return refuse(im, meeple, "%s.meepleId = \"%s\": castellan has no figure of type "
                      "\"%s\"", path, meeple->text, type);
    const struct jcz_name *figure = &im->map.names[line];
    if (!pointer || pointer->type != CAS_JSON_OBJECT)
        return refuse(im, pointer ? pointer : payload, "%s.pointer: expected {\"position\": "
                      "[X, Y], \"location\": ..., \"feature\": ...}", path);
    int rc = read_position(im, pointer, path, &x, &y);
    if (rc)
        return rc;
    if (strcmp(figure->rest, "corner") == 0) /* barn: the corner NW of the pointer's tile */
        return action(im, im->actor, "deploy %s corner %ld,%ld NW", figure->to, x, y);
    if (!location || location->type != CAS_JSON_STRING)
        return refuse(im, payload, "%s.pointer.location: expected a location such as "
                      "\"N\" or \"NL.NR\"", path);
    if (!feature_name(location->text,
                      feature && feature->type == CAS_JSON_STRING ? feature->text : NULL,
                      where, sizeof where))
        return refuse(im, location, "%s.pointer.location = \"%s\": not a location castellan "
                      "knows (edges N E S W as NW, WE, _N ..., half-edges NL NR EL ER SL SR "
                      "WL WR joined by '.', I for the monastery, I or II of a Field for an inner "
                      "field)", path, location->text);
    if (im->stage == JCZ_AFTER_COMMIT) { /* after the scoring: a freed figure moves on */
        if (strcmp(figure->rest, "moves") != 0)
            return refuse(im, meeple, "%s.meepleId = \"%s\": after COMMIT only a freed "
                          "wagon moves on, not a %s", path, meeple->text, type);
        return action(im, im->actor, "%s %ld,%ld %s", figure->to, x, y, where);
    }
    if (im->stage != JCZ_ACTION || x != im->placed_x || y != im->placed_y)
        return refuse(im, pointer, "%s.pointer.position [%ld, %ld]: castellan deploys on "
                      "the tile just placed only", path, x, y);
    int rc2 = action(im, im->actor, "deploy %s %s", figure->to, where);
    if (rc2 || strcmp(im->placed, "IC-5") != 0 ||
        !(strncmp(where, "road", 4) == 0 || strcmp(where, "E") == 0 || strcmp(where, "W") == 0))
        return rc2;
    /* docs/rules/inns-cathedrals.md 3: the caption keeps figures off them */
    return warn(im, "a figure on a road stub of tile IC-5 at %ld,%ld: JCloisterZone lets one "
                "stand there, castellan follows the rulebook's caption, which lets no one "
                "stand on the two stubs between its cities, so this game cannot be replayed "
                "here", x, y);
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
    if (strcmp(type->text, "PASS") == 0) /* no figure, no abbey, no wagon move: the game's
                                            `pass` declines whichever it asks */
        return action(im, im->actor, "pass");
    if (strcmp(type->text, "COMMIT") == 0) {
        if (im->stage == JCZ_ACTION) /* the end of the turn's action part */
            im->actor = (im->actor + 1) % im->nplayers;
        im->stage = JCZ_AFTER_COMMIT;
        return CAS_OK;
    }
    if (strcmp(type->text, "GAME_OVER") == 0)
        return CAS_OK;
    return refuse(im, type, "replay[%zu].type = \"%s\": castellan cannot import this "
                  "message; it imports PLACE_TILE, DEPLOY_MEEPLE, PASS, COMMIT and "
                  "GAME_OVER", i, type->text);
}

/* JCloisterZone 4.x also saved JSON: `slots` for the players, the sets as
 * setup.expansions, appVersion 4.x.  Named for what it is, with the way
 * that is left; 0 if doc is no such file. */
static int refuse_4x_json(const struct cas_host *host, const struct cas_json *doc)
{
    const struct cas_json *version = member(doc, "appVersion"), *sign = member(doc, "slots");
    if (!sign)
        sign = member(member(doc, "setup"), "expansions");
    if (!sign && version && version->type == CAS_JSON_STRING &&
        strncmp(version->text, "4.", 2) == 0)
        sign = version;
    if (!sign)
        return 0;
    cas_host_errorf(host, "a JCloisterZone 4.x saved game (JSON: %s, line %zu), not one of "
                    "JCloisterZone 5; castellan reads 5.x files only, and JCloisterZone 5 "
                    "does not open 4.x saves either: replay the game in JCloisterZone 4 and "
                    "write its moves as a castellan record without hashes (docs/saves.md, "
                    "Game records), which `castellan import` checks move by move",
                    sign == version ? "appVersion 4.x"
                    : sign->key && strcmp(sign->key, "slots") == 0 ? "its players as \"slots\""
                                                                   : "setup.expansions",
                    sign->line);
    return 1;
}

int cas__carc_import_foreign(const struct cas_host *host, const char *format,
                             const struct cas_json *doc, const struct cas_writer *out)
{
    if (strcmp(format, "jcz") != 0)
        return CAS_ENOTFOUND;
    if (refuse_4x_json(host, doc))
        return CAS_EPARSE;
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
