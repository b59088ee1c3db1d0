/*
 * protocol.c — the client's messages (docs/server.md, "Protocol") read
 * with the host's strict JSON reader and checked field by field: a message
 * that is not one JSON object, names no known type or carries a field of
 * the wrong kind is refused with a sentence naming the field and what it
 * must be.  Unknown fields are ignored, so newer clients can talk to this
 * server.  Nothing here touches a game: decoding has no effects.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "server.h"

#define MAX_TEXT 4096 /* the longest string field (an action's text) */
#define MAX_NAME 64

static const struct {
    const char *name;
    enum cas__req_type type;
} types[] = {
    {"hello", CAS__REQ_HELLO}, {"lobby", CAS__REQ_LOBBY}, {"create", CAS__REQ_CREATE},
    {"claim", CAS__REQ_CLAIM}, {"join", CAS__REQ_JOIN},   {"leave", CAS__REQ_LEAVE},
    {"act", CAS__REQ_ACT},     {"undo", CAS__REQ_UNDO},   {"hint", CAS__REQ_HINT},
    {"ping", CAS__REQ_PING},   {"autopass", CAS__REQ_AUTOPASS}, {"leaver", CAS__REQ_LEAVER},
    {"preview", CAS__REQ_PREVIEW}, {"leave_lobby", CAS__REQ_LEAVE_LOBBY},
};

struct decoding {
    struct cas__req *req;
    const char **code;
    char *msg;
    size_t msglen;
};

static CAS_PRINTF(3, 4) int refuse(struct decoding *d, const char *code, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(d->msg, d->msglen, fmt, args);
    va_end(args);
    *d->code = code;
    return CAS_EINVAL;
}

static const struct cas_json *member(const struct cas_json *obj, const char *key)
{
    for (size_t i = 0; i < obj->n; i++)
        if (strcmp(obj->items[i].key, key) == 0)
            return &obj->items[i];
    return NULL;
}

/* A string without NUL bytes of at most max bytes. */
static int string_value(struct decoding *d, const struct cas_json *v, const char *field,
                        size_t max, const char **out)
{
    if (v->type != CAS_JSON_STRING)
        return refuse(d, "bad-message", "field \"%s\" must be a string", field);
    if (strlen(v->text) != v->len)
        return refuse(d, "bad-message", "field \"%s\" holds a NUL character", field);
    if (v->len > max)
        return refuse(d, "bad-message", "field \"%s\" is %zu bytes long; at most %zu are "
                      "allowed", field, v->len, max);
    *out = v->text;
    return CAS_OK;
}

static int opt_string(struct decoding *d, const struct cas_json *obj, const char *field,
                      size_t max, const char **out)
{
    const struct cas_json *v = member(obj, field);
    *out = NULL;
    return v ? string_value(d, v, field, max, out) : CAS_OK;
}

/* A JSON number that is a whole number in [min, max]. */
static int integer_value(struct decoding *d, const struct cas_json *v, const char *field,
                         int64_t min, int64_t max, int64_t *out)
{
    char *end;
    if (v->type != CAS_JSON_NUMBER)
        return refuse(d, "bad-message", "field \"%s\" must be a number", field);
    errno = 0;
    long long n = strtoll(v->text, &end, 10);
    if (*end || errno || n < min || n > max)
        return refuse(d, "bad-message", "field \"%s\" is %.40s; it must be a whole number "
                      "from %" PRId64 " to %" PRId64, field, v->text, min, max);
    *out = n;
    return CAS_OK;
}

/* An optional true or false; absent: false. */
static int opt_bool(struct decoding *d, const struct cas_json *obj, const char *field,
                    int *out)
{
    const struct cas_json *v = member(obj, field);
    *out = v && v->type == CAS_JSON_TRUE;
    if (v && v->type != CAS_JSON_TRUE && v->type != CAS_JSON_FALSE)
        return refuse(d, "bad-message", "field \"%s\" must be true or false", field);
    return CAS_OK;
}

/* A game id: a positive whole number, or a string of its digits. */
static int game_value(struct decoding *d, const struct cas_json *obj, int64_t *out)
{
    const struct cas_json *v = member(obj, "game");
    *out = 0;
    if (!v)
        return CAS_OK;
    if (v->type == CAS_JSON_STRING) {
        char *end;
        errno = 0;
        long long n = v->len && v->len < 20 && v->text[0] != '-' && v->text[0] != '+'
                          ? strtoll(v->text, &end, 10) : 0;
        if (n <= 0 || errno || *end)
            return refuse(d, "bad-message", "field \"game\" is \"%.40s\"; a game is named by "
                          "its number, as the lobby lists it", v->text);
        *out = n;
        return CAS_OK;
    }
    return integer_value(d, v, "game", 1, INT64_MAX, out);
}

/* The request's id, echoed in replies: a number or a short string. */
static int id_value(struct decoding *d, const struct cas_json *obj)
{
    const struct cas_json *v = member(obj, "id");
    struct cas__jw w;
    if (!v)
        return CAS_OK;
    if (v->type == CAS_JSON_NUMBER) {
        if (v->len >= sizeof d->req->id)
            return refuse(d, "bad-message", "field \"id\" is a number of %zu characters; "
                          "use at most 64", v->len);
        snprintf(d->req->id, sizeof d->req->id, "%s", v->text);
        return CAS_OK;
    }
    if (v->type != CAS_JSON_STRING || v->len > 64)
        return refuse(d, "bad-message", "field \"id\" must be a number or a string of at "
                      "most 64 bytes");
    cas__jw_init(&w);
    cas__jw_strn(&w, v->text, v->len);
    if (w.b.failed || cas__jw_len(&w) >= sizeof d->req->id) {
        cas__jw_free(&w);
        return refuse(d, "bad-message", "field \"id\" must be a string of plain characters "
                      "(its escaped form is too long)");
    }
    snprintf(d->req->id, sizeof d->req->id, "%s", cas__jw_text(&w));
    cas__jw_free(&w);
    return CAS_OK;
}

static int expansions_value(struct decoding *d, const struct cas_json *obj)
{
    const struct cas_json *v = member(obj, "expansions");
    if (!v)
        return CAS_OK;
    if (v->type != CAS_JSON_ARRAY)
        return refuse(d, "bad-message", "field \"expansions\" must be an array of "
                      "expansion ids");
    if (v->n > CAS__REQ_MAX_LIST)
        return refuse(d, "bad-message", "field \"expansions\" lists %zu; at most %d are "
                      "allowed", v->n, CAS__REQ_MAX_LIST);
    for (size_t i = 0; i < v->n; i++)
        if (string_value(d, &v->items[i], "expansions[]", MAX_NAME,
                         &d->req->expansions[d->req->n_expansions++]))
            return CAS_EINVAL;
    return CAS_OK;
}

static int rules_value(struct decoding *d, const struct cas_json *obj)
{
    const struct cas_json *v = member(obj, "rules");
    if (!v)
        return CAS_OK;
    if (v->type != CAS_JSON_OBJECT)
        return refuse(d, "bad-message", "field \"rules\" must be an object of rule names "
                      "and values, e.g. {\"farmers\":\"on\"}");
    if (v->n > CAS__REQ_MAX_LIST)
        return refuse(d, "bad-message", "field \"rules\" sets %zu rules; at most %d are "
                      "allowed", v->n, CAS__REQ_MAX_LIST);
    for (size_t i = 0; i < v->n; i++) {
        const struct cas_json *r = &v->items[i];
        if (strlen(r->key) > MAX_NAME || !r->key[0] || strchr(r->key, '='))
            return refuse(d, "bad-message", "rule name \"%.64s\" is not a rule name",
                          r->key);
        if (r->type != CAS_JSON_STRING && r->type != CAS_JSON_NUMBER)
            return refuse(d, "bad-message", "rule \"%s\" must have a string value",
                          r->key);
        if (strlen(r->text) != r->len || r->len > MAX_NAME)
            return refuse(d, "bad-message", "rule \"%s\" has a value that is too long or "
                          "holds a NUL character", r->key);
        d->req->rules[i][0] = r->key;
        d->req->rules[i][1] = r->text;
        d->req->n_rules++;
    }
    return CAS_OK;
}

/* A player's name goes into a players list "NAME:AGENT,...": no ',' or
 * ':' and no control characters. */
static int name_ok(struct decoding *d, const char *name, const char *field)
{
    if (!name)
        return CAS_OK;
    if (!name[0])
        return refuse(d, "bad-message", "field \"%s\" is empty; leave it out for the "
                      "default name", field);
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        if (*p < 0x20 || *p == ',' || *p == ':' || *p == 0x7F)
            return refuse(d, "bad-message", "field \"%s\" (\"%.64s\") may not hold a comma, "
                          "a colon or a control character", field, name);
    return CAS_OK;
}

static int seats_value(struct decoding *d, const struct cas_json *obj)
{
    const struct cas_json *v = member(obj, "seats");
    if (!v)
        return CAS_OK;
    if (v->type != CAS_JSON_ARRAY || v->n == 0)
        return refuse(d, "bad-message", "field \"seats\" must be an array of seats, e.g. "
                      "[{\"name\":\"Ada\",\"agent\":\"human\"},{\"agent\":\"greedy\"}]");
    if (v->n > CAS__REQ_MAX_SEATS)
        return refuse(d, "bad-message", "field \"seats\" has %zu seats; at most %d are "
                      "allowed", v->n, CAS__REQ_MAX_SEATS);
    for (size_t i = 0; i < v->n; i++) {
        const struct cas_json *s = &v->items[i];
        struct cas__req_seat *seat = &d->req->seats[d->req->n_seats++];
        if (s->type != CAS_JSON_OBJECT)
            return refuse(d, "bad-message", "seat %zu must be an object with \"agent\" and "
                          "optionally \"name\"", i);
        if (opt_string(d, s, "name", MAX_NAME, &seat->name) || name_ok(d, seat->name, "name") ||
            opt_string(d, s, "agent", MAX_NAME, &seat->agent))
            return CAS_EINVAL;
        if (!seat->agent)
            seat->agent = "open";
    }
    return CAS_OK;
}

static int clock_value(struct decoding *d, const struct cas_json *obj)
{
    const struct cas_json *v = member(obj, "clock"), *base, *inc, *days;
    const int64_t day = CAS__DAY_MS;
    int64_t n;
    if (!v || v->type == CAS_JSON_NULL)
        return CAS_OK;
    if (v->type == CAS_JSON_OBJECT && (days = member(v, "days_per_move"))) {
        if (member(v, "base_ms") || member(v, "increment_ms"))
            return refuse(d, "bad-message", "field \"clock\" gives both \"days_per_move\" "
                          "(correspondence) and a Fischer \"base_ms\"/\"increment_ms\"; "
                          "choose one");
        if (integer_value(d, days, "clock.days_per_move", 1, CAS__MAX_DAYS_PER_MOVE, &n))
            return CAS_EINVAL;
        d->req->days_per_move = (int)n;
        return CAS_OK;
    }
    if (v->type != CAS_JSON_OBJECT || !(base = member(v, "base_ms")))
        return refuse(d, "bad-message", "field \"clock\" must be null, an object with "
                      "\"base_ms\" and optionally \"increment_ms\" (Fischer), or one with "
                      "\"days_per_move\" (correspondence, 1 to 14)");
    d->req->has_clock = 1;
    if (integer_value(d, base, "clock.base_ms", 1000, day, &d->req->base_ms))
        return CAS_EINVAL;
    inc = member(v, "increment_ms");
    return inc ? integer_value(d, inc, "clock.increment_ms", 0, day, &d->req->increment_ms)
               : CAS_OK;
}

static int seat_value(struct decoding *d, const struct cas_json *obj)
{
    const struct cas_json *v = member(obj, "seat");
    int64_t seat;
    d->req->seat = -1;
    if (!v || v->type == CAS_JSON_NULL)
        return CAS_OK;
    if (integer_value(d, v, "seat", 0, CAS__REQ_MAX_SEATS - 1, &seat))
        return CAS_EINVAL;
    d->req->seat = (int)seat;
    return CAS_OK;
}

/* "since": the number of the last message the client holds (-1: none). */
static int since_value(struct decoding *d, const struct cas_json *obj)
{
    const struct cas_json *since = member(obj, "since");
    d->req->since = -1;
    if (since && since->type != CAS_JSON_NULL)
        return integer_value(d, since, "since", 0, INT64_MAX / 2, &d->req->since);
    return CAS_OK;
}

/* A join's "since" and "text" (true: the text view too). */
static int join_options(struct decoding *d, const struct cas_json *obj)
{
    const struct cas_json *text = member(obj, "text");
    if (since_value(d, obj))
        return CAS_EINVAL;
    if (text && text->type != CAS_JSON_TRUE && text->type != CAS_JSON_FALSE &&
        text->type != CAS_JSON_NULL)
        return refuse(d, "bad-message", "field \"text\" must be true or false");
    d->req->text = text && text->type == CAS_JSON_TRUE;
    return CAS_OK;
}

/* The fields each type needs. */
static int need(struct decoding *d, int ok, const char *what)
{
    return ok ? CAS_OK : refuse(d, "bad-message", "a \"%s\" message needs %s",
                                types[d->req->type].name, what);
}

static int fields(struct decoding *d, const struct cas_json *obj)
{
    struct cas__req *r = d->req;
    const struct cas_json *ply = member(obj, "ply");
    r->ply = -1;
    /* A create's "game" names the game plugin; elsewhere the hosted game. */
    if ((r->type != CAS__REQ_CREATE && game_value(d, obj, &r->game)) || seat_value(d, obj) ||
        opt_string(d, obj, "token", 64, &r->token) ||
        opt_string(d, obj, "name", MAX_NAME, &r->name) || name_ok(d, r->name, "name") ||
        opt_string(d, obj, "action", MAX_TEXT, &r->action) ||
        (ply && integer_value(d, ply, "ply", 0, UINT32_MAX, &r->ply)))
        return CAS_EINVAL;
    switch (r->type) {
    case CAS__REQ_CREATE:
        if (member(obj, "resume")) {
            const struct cas_json *g = member(obj, "resume");
            struct cas_json renamed = *g;
            renamed.key = "game";
            struct cas_json wrapper = {.type = CAS_JSON_OBJECT, .items = &renamed, .n = 1};
            return game_value(d, &wrapper, &r->resume);
        }
        if (opt_string(d, obj, "preset", MAX_NAME, &r->preset) ||
            opt_string(d, obj, "game", MAX_NAME, &r->game_id) ||
            opt_string(d, obj, "seed", 24, &r->seed) ||
            opt_bool(d, obj, "practice", &r->practice) || expansions_value(d, obj) ||
            rules_value(d, obj) || seats_value(d, obj) || clock_value(d, obj))
            return CAS_EINVAL;
        return need(d, r->preset || (r->game_id && r->n_seats),
                    "\"preset\", or \"game\" and \"seats\"");
    case CAS__REQ_LOBBY: /* "deltas": numbered changes after the first list */
        return since_value(d, obj) || opt_bool(d, obj, "deltas", &r->deltas) ? CAS_EINVAL
                                                                            : CAS_OK;
    case CAS__REQ_CLAIM:
        return need(d, r->game && r->seat >= 0, "\"game\" and \"seat\"");
    case CAS__REQ_JOIN:
        if (need(d, r->game, "\"game\"") || join_options(d, obj))
            return CAS_EINVAL;
        return need(d, (r->seat >= 0) == (r->token != NULL),
                    "both \"seat\" and \"token\" to act for a seat, or neither to watch");
    case CAS__REQ_ACT:
    case CAS__REQ_PREVIEW:
        return need(d, r->game && r->action && r->ply >= 0,
                    "\"game\", \"ply\" and \"action\"");
    case CAS__REQ_UNDO:
    case CAS__REQ_HINT:
        return need(d, r->game, "\"game\"");
    case CAS__REQ_AUTOPASS: {
        const struct cas_json *on = member(obj, "on");
        if (!on || (on->type != CAS_JSON_TRUE && on->type != CAS_JSON_FALSE))
            return refuse(d, "bad-message", "\"on\" must be true or false");
        r->on = on->type == CAS_JSON_TRUE;
        return need(d, r->game, "\"game\"");
    }
    case CAS__REQ_LEAVER:
        if (opt_string(d, obj, "choice", 8, &r->choice))
            return CAS_EINVAL;
        if (!r->choice || (strcmp(r->choice, "claim") != 0 && strcmp(r->choice, "bot") != 0))
            return refuse(d, "bad-message", "\"choice\" must be \"claim\" or \"bot\"");
        return need(d, r->game, "\"game\"");
    default:
        return CAS_OK;
    }
}

int cas__req_decode(const char *text, size_t len, struct cas__req *out,
                    const char **code, char *msg, size_t msglen)
{
    struct decoding d = {.req = out, .code = code, .msg = msg, .msglen = msglen};
    size_t line, offset;
    memset(out, 0, sizeof *out);
    out->bytes = len;
    int rc = cas__json_parse(text, len, &out->root, &line, &offset);
    if (rc == CAS_ENOMEM) {
        *code = "internal";
        snprintf(msg, msglen, "the server is out of memory");
        return rc;
    }
    if (rc)
        return refuse(&d, "bad-message", "the message is not one JSON object (it goes wrong "
                      "at byte %zu)", offset);
    const struct cas_json *obj = out->root, *type;
    if ((rc = id_value(&d, obj)))
        goto fail;
    if (!(type = member(obj, "type")) || type->type != CAS_JSON_STRING) {
        rc = refuse(&d, "bad-message", "the message has no \"type\" string; every message "
                    "names its type, e.g. {\"type\":\"lobby\"}");
        goto fail;
    }
    size_t i = 0;
    while (i < sizeof types / sizeof types[0] && strcmp(types[i].name, type->text) != 0)
        i++;
    if (i == sizeof types / sizeof types[0]) {
        rc = refuse(&d, "unknown-type", "\"%.40s\" is no message type of protocol 4; use "
                    "hello, lobby, leave_lobby, create, claim, join, leave, act, preview, "
                    "undo, hint, autopass, leaver or ping",
                    type->text);
        goto fail;
    }
    out->type = types[i].type;
    if ((rc = fields(&d, obj)))
        goto fail;
    return CAS_OK;
fail:
    cas__json_free(out->root);
    out->root = NULL;
    return rc;
}

void cas__req_free(struct cas__req *req)
{
    cas__json_free(req->root);
    req->root = NULL;
}

void cas__req_error(struct cas__jw *w, const char *id, const char *code, const char *msg)
{
    cas__jw_raw(w, "{\"type\":\"error\"");
    if (id && id[0]) {
        cas__jw_raw(w, ",\"id\":");
        cas__jw_raw(w, id);
    }
    cas__jw_raw(w, ",\"code\":");
    cas__jw_str(w, code);
    cas__jw_raw(w, ",\"message\":");
    cas__jw_str(w, msg);
    cas__jw_raw(w, "}");
}

int cas__srv_refuse(const char **code, const char *what, char *msg, size_t msglen,
                const char *fmt, ...)
{
    va_list args;
    *code = what;
    va_start(args, fmt);
    vsnprintf(msg, msglen, fmt, args);
    va_end(args);
    return CAS_EINVAL;
}
