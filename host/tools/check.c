/*
 * check.c — the conformance checker: random games of one plugin in which
 * every step is checked against what plugin.h promises, then the same
 * games replayed (same seed, same game) and interleaved with a second
 * instance (no shared state).  Random play here is exactly what the
 * session does with random bots: chance by weight on the chance stream,
 * players uniformly on their own streams.
 */
#include "check.h"
#include "term.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "buf.h"
#include "json.h"
#include "marks.h"
#include "match.h"
#include "picture_changes.h"

#define DEFAULT_GAMES 20
#define DEFAULT_MAX_PLIES 100000u
#define TEXT_MAX 256
#define MAX_PLAYERS 64
/* The second game of an interleaved pair is played with this seed offset. */
#define OTHER_SEED 0x5bd1e995u

struct hash_log {
    uint64_t *hashes;
    size_t n, cap;
};

/* Every distinct state of the run, keyed by the plugin's hash, with a
 * digest of its serialized bytes and where it was first seen: two states
 * with one hash and different bytes are a collision, wherever they are. */
struct seen_state {
    uint64_t hash, digest[2];
    uint64_t seed;
    uint32_t ply;
    int used;
};

struct seen_table {
    struct seen_state *slots;
    size_t n, cap; /* cap a power of two, at most half full */
};

struct checker {
    const struct cas__check_target *t;
    const struct cas__check_options *opt;
    struct cas__check_report *r;
    struct cas__match a, b;        /* two instances of the game */
    int nplayers;
    uint64_t seed;
    uint32_t ply, max_plies;
    const cas_state *state;        /* the state being checked, for reports */
    cas_state *scratch;            /* state_copy target */
    struct cas__actions legal, other;
    struct cas__actions clone_legal;
    double *drawn_mass;            /* per legal action: check_random_action */
    size_t drawn_cap;
    struct cas__buf bytes, rebytes, render;
    struct cas__picture *views;    /* check_render_since: each viewer's last
                                    * picture (the public one last), with
                                    * its stamp */
    struct seen_table seen;
    struct hash_log solo_a, solo_b;
    char event_problem[256];       /* set by the event sink */
};

/* --------------------------------------------------------- reporting */

/* Record that `property` broke at the current seed and ply, about
 * `action` (or about no action when has_action is 0).  Returns
 * CAS_EMISMATCH so callers can `return broke(...)`. */
static CAS_PRINTF(5, 6) int broke(struct checker *c, const char *property, int has_action,
                                  cas_action action, const char *fmt, ...)
{
    struct cas__check_report *r = c->r;
    va_list args;
    r->failed = 1;
    snprintf(r->property, sizeof r->property, "%s", property);
    r->nplayers = c->nplayers;
    r->seed = r->first_seed = c->seed;
    r->ply = c->ply;
    r->action[0] = '\0';
    if (has_action && c->state)
        cas__match_action_text(&c->a, c->state, action, r->action, sizeof r->action);
    va_start(args, fmt);
    vsnprintf(r->detail, sizeof r->detail, fmt, args);
    va_end(args);
    return CAS_EMISMATCH;
}

/* The plugin's explanation of its last failure, or a placeholder. */
static const char *why(const struct cas__match *m)
{
    return m->error[0] ? m->error : "no reason given";
}

/* ----------------------------------------------------------- buffers */

static int log_hash(struct hash_log *log, uint64_t hash)
{
    if (log->n == log->cap) {
        size_t cap = log->cap ? log->cap * 2 : 256;
        uint64_t *grown = realloc(log->hashes, cap * sizeof *grown);
        if (!grown)
            return CAS_ENOMEM;
        log->hashes = grown;
        log->cap = cap;
    }
    log->hashes[log->n++] = hash;
    return CAS_OK;
}

static int serialize_into(struct cas__match *m, const cas_state *s, struct cas__buf *b)
{
    cas__buf_reset(b);
    if (cas__buf_reserve(b, 1) != CAS_OK)
        return CAS_ENOMEM;
    for (;;) {
        size_t need = 0;
        int rc = m->vt->serialize(s, CAS_SERIAL_FULL, (uint8_t *)b->data, b->cap, &need);
        if (rc == CAS_OK) {
            b->len = need;
            return need <= b->cap ? CAS_OK : CAS_EINVAL;
        }
        if (rc != CAS_ENOSPC || need <= b->cap)
            return rc == CAS_ENOSPC ? CAS_EINVAL : rc;
        if ((rc = cas__buf_reserve(b, need)) != CAS_OK)
            return rc;
    }
}

/* ------------------------------------------------------- random play */

/* Before each step: where the run is, for whoever watches it. */
static void step(struct checker *c, uint32_t ply)
{
    c->r->ply = ply;
    if (c->opt->on_step)
        c->opt->on_step(c->opt->step_ctx, c->r);
}

/* One random step of s (not terminal) without checks; logs the hash. */
static int random_step(struct checker *c, struct cas__match *m, cas_state *s,
                       struct cas__actions *list, uint64_t seed, uint32_t ply,
                       struct hash_log *log)
{
    step(c, ply);
    int rc = cas__random_step(m, s, list, seed, ply);
    return rc == CAS_OK ? log_hash(log, m->vt->hash(s)) : rc;
}

/* ------------------------------------------------ per-step properties */

static int check_actor(struct checker *c, int actor)
{
    if (actor == CAS_ACTOR_CHANCE || actor == CAS_ACTOR_TERMINAL ||
        (actor >= 0 && actor < c->nplayers))
        return CAS_OK;
    return broke(c, "current-actor", 0, 0, "current() returned %d in a %d-player game",
                 actor, c->nplayers);
}

static int check_legal_list(struct checker *c, const cas_state *s, int actor)
{
    const struct cas__actions *l = &c->legal;
    int rc = cas__match_legal(&c->a, s, &c->legal);
    if (rc != CAS_OK)
        return broke(c, "legal-actions", 0, 0, "legal_actions failed (%d): %s", rc,
                     why(&c->a));
    if (actor == CAS_ACTOR_TERMINAL && l->count != 0)
        return broke(c, "terminal-has-no-actions", 1, l->items[0],
                     "the game is over but %zu actions are listed", l->count);
    if (actor != CAS_ACTOR_TERMINAL && l->count == 0)
        return broke(c, "legal-actions-non-empty", 0, 0,
                     "actor %d has no legal action and the game is not over", actor);
    for (size_t i = 1; i < l->count; i++) {
        if (l->items[i] == l->items[i - 1])
            return broke(c, "legal-actions-unique", 1, l->items[i],
                         "action 0x%" PRIx64 " is listed twice (entries %zu and %zu)",
                         l->items[i], i - 1, i);
        if (l->items[i] < l->items[i - 1])
            return broke(c, "legal-actions-sorted", 1, l->items[i],
                         "entry %zu (0x%" PRIx64 ") comes after a larger one (0x%" PRIx64 ")",
                         i, l->items[i], l->items[i - 1]);
    }
    return CAS_OK;
}

/* Whether text holds no control character (a newline, an escape...). */
static int printable(const char *text)
{
    for (; *text; text++)
        if ((unsigned char)*text < 0x20 || *text == 0x7f)
            return 0;
    return 1;
}

/* Every seat has a label: one printable line, shorter than the host
 * shows (CAS__LABEL_MAX). */
static int check_labels(struct checker *c)
{
    for (int p = 0; p < c->nplayers; p++) {
        const char *label = c->a.vt->player_label(c->a.game, p);
        if (!label || !*label || strnlen(label, CAS__LABEL_MAX) == CAS__LABEL_MAX ||
            !printable(label))
            return broke(c, "player-labels", 0, 0, "player_label(%d) is %s: it must be "
                         "one line of printable text, 1 to %d bytes", p,
                         label ? "not" : "NULL", CAS__LABEL_MAX - 1);
    }
    return CAS_OK;
}

/* Every legal action has one-line text that parses back to it. */
static int check_texts(struct checker *c, const cas_state *s)
{
    const struct cas_game_vtable *vt = c->a.vt;
    char text[TEXT_MAX];
    for (size_t i = 0; i < c->legal.count; i++) {
        cas_action action = c->legal.items[i], parsed = ~action;
        int len = vt->action_text(s, action, text, sizeof text);
        if (len <= 0 || (size_t)len >= sizeof text || strlen(text) != (size_t)len ||
            !printable(text))
            return broke(c, "action-text", 1, action,
                         "action_text returned %d: it must give non-empty one-line text "
                         "without control characters, and its length", len);
        c->a.error[0] = '\0';
        int rc = vt->parse_action(s, text, &parsed);
        if (rc != CAS_OK || parsed != action)
            return broke(c, "text-round-trip", 1, action,
                         "parse_action(\"%s\") gave %d and 0x%" PRIx64 ", not 0x%" PRIx64
                         ": %s", text, rc, rc == CAS_OK ? parsed : 0, action, why(&c->a));
    }
    return CAS_OK;
}

/* The ticket's outcome is the listed outcome whose run of `weight`
 * tickets holds it; the caller tells whether it matched. */
static int picks(struct checker *c, const cas_state *s, uint64_t ticket, cas_action want)
{
    cas_action got = ~want;
    int rc = c->a.vt->chance_pick(s, ticket, &got);
    if (rc == CAS_OK && got == want)
        return CAS_OK;
    return broke(c, "chance-pick", 1, want, "chance_pick(ticket %" PRIu64 ") gave %d and "
                 "0x%" PRIx64 ", the listed outcome there is 0x%" PRIx64, ticket, rc,
                 rc == CAS_OK ? got : 0, want);
}

/* ABI 1.1: chance_total is the listed weights' sum, and chance_pick gives
 * every outcome exactly its weight in tickets — every ticket when there
 * are at most PICK_ALL, else each outcome's first and last. */
#define PICK_ALL 4096u
static int check_chance_pick(struct checker *c, const cas_state *s, uint64_t total)
{
    uint64_t said = c->a.vt->chance_total(s), first = 0;
    if (said != total)
        return broke(c, "chance-total", 0, 0, "chance_total is %" PRIu64 ", the listed "
                     "weights add up to %" PRIu64, said, total);
    int rc = CAS_OK;
    for (size_t i = 0; rc == CAS_OK && i < c->other.n_outcomes; i++) {
        const struct cas_outcome *o = &c->other.outcomes[i];
        uint64_t step = total <= PICK_ALL ? 1 : o->weight - 1;
        for (uint64_t t = first; rc == CAS_OK && t < first + o->weight; t += step ? step : 1)
            rc = picks(c, s, t, o->action);
        first += o->weight;
    }
    cas_action none;
    if (rc == CAS_OK && c->a.vt->chance_pick(s, total, &none) == CAS_OK)
        return broke(c, "chance-pick", 0, 0, "chance_pick accepted ticket %" PRIu64
                     ", past the total", total);
    return rc;
}

/* At chance nodes the outcomes are the legal actions with weights > 0;
 * elsewhere there are none. */
static int check_chance(struct checker *c, const cas_state *s, int actor)
{
    int rc = cas__match_outcomes(&c->a, s, &c->other);
    if (actor != CAS_ACTOR_CHANCE && cas__match_picks_chance(&c->a) &&
        c->a.vt->chance_total(s) != 0)
        return broke(c, "chance-total", 0, 0, "chance_total is %" PRIu64 " outside a "
                     "chance node, not 0", c->a.vt->chance_total(s));
    if (actor != CAS_ACTOR_CHANCE)
        return rc == CAS_EINVAL ? CAS_OK
                                : broke(c, "chance-outcomes", 0, 0,
                                        "chance_outcomes returned %d outside a chance node, "
                                        "not CAS_EINVAL", rc);
    if (rc != CAS_OK)
        return broke(c, "chance-outcomes", 0, 0, "chance_outcomes failed (%d): %s", rc,
                     why(&c->a));
    if (c->other.n_outcomes != c->legal.count)
        return broke(c, "chance-outcomes", 0, 0, "%zu outcomes but %zu legal actions",
                     c->other.n_outcomes, c->legal.count);
    uint64_t total = 0;
    for (size_t i = 0; i < c->other.n_outcomes; i++) {
        const struct cas_outcome *o = &c->other.outcomes[i];
        if (o->action != c->legal.items[i])
            return broke(c, "chance-outcomes", 1, c->legal.items[i],
                         "outcome %zu is 0x%" PRIx64 ", the legal action there 0x%" PRIx64,
                         i, o->action, c->legal.items[i]);
        if (o->weight == 0 || total + o->weight < total)
            return broke(c, "chance-outcomes", 1, o->action,
                         "weight %" PRIu64 " is zero or makes the total overflow", o->weight);
        total += o->weight;
    }
    return cas__match_picks_chance(&c->a) ? check_chance_pick(c, s, total) : CAS_OK;
}

static int check_returns(struct checker *c, const cas_state *s)
{
    int64_t scores[MAX_PLAYERS];
    int rc = c->a.vt->returns(s, scores, (size_t)c->nplayers);
    return rc == CAS_OK ? CAS_OK
                        : broke(c, "returns", 0, 0, "returns failed (%d): %s", rc, why(&c->a));
}

/* Two 64-bit digests of bytes, independent of any hash a plugin may use
 * (FNV-1a included): a collision of both by chance is out of reach. */
static void digest_bytes(const struct cas__buf *b, uint64_t out[2])
{
    const uint8_t *p = (const uint8_t *)b->data;
    uint64_t x = 0x9e3779b97f4a7c15ull ^ b->len, y = 0xc2b2ae3d27d4eb4full + b->len;
    for (size_t i = 0; i < b->len; i++) {
        x = (x ^ p[i]) * 0xff51afd7ed558ccdull;
        x ^= x >> 29;
        y = (y + p[i]) * 0xc4ceb9fe1a85ec53ull + (y >> 31);
    }
    out[0] = x;
    out[1] = y;
}

static int seen_grow(struct seen_table *t)
{
    size_t cap = t->cap ? t->cap * 2 : 4096;
    struct seen_state *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return CAS_ENOMEM;
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->slots[i].used)
            continue;
        size_t j = t->slots[i].hash & (cap - 1);
        while (slots[j].used)
            j = (j + 1) & (cap - 1);
        slots[j] = t->slots[i];
    }
    free(t->slots);
    t->slots = slots;
    t->cap = cap;
    return CAS_OK;
}

/* This state (c->bytes holds its bytes) against every state seen so far in
 * the run: a state that serializes differently but hashes the same would
 * slip past the journal's hash check. */
static int check_hash_sensitive(struct checker *c, uint64_t hash)
{
    struct seen_table *t = &c->seen;
    uint64_t digest[2];
    if (2 * (t->n + 1) > t->cap && seen_grow(t) != CAS_OK)
        return broke(c, "hash-sensitive", 0, 0, "out of memory for the table of states");
    digest_bytes(&c->bytes, digest);
    size_t j = hash & (t->cap - 1);
    for (; t->slots[j].used; j = (j + 1) & (t->cap - 1)) {
        const struct seen_state *e = &t->slots[j];
        if (e->hash != hash)
            continue;
        if (e->digest[0] == digest[0] && e->digest[1] == digest[1])
            return CAS_OK; /* the same state again */
        broke(c, "hash-sensitive", 0, 0, "this state and the one at seed %" PRIu64
              ", ply %" PRIu32 " serialize differently but both hash to %016" PRIx64,
              e->seed, e->ply, hash);
        c->r->first_seed = e->seed;
        return CAS_EMISMATCH;
    }
    t->slots[j] = (struct seen_state){.hash = hash, .digest = {digest[0], digest[1]},
                                      .seed = c->seed, .ply = c->ply, .used = 1};
    t->n++;
    c->r->distinct = t->n;
    return CAS_OK;
}

/* clone and state_copy keep the hash; serialize, deserialize and serialize
 * again keep the hash and the bytes; empty bytes are refused.  *clone
 * receives the clone (the caller frees it). */
static int check_copies(struct checker *c, const cas_state *s, cas_state **clone)
{
    const struct cas_game_vtable *vt = c->a.vt;
    uint64_t hash = vt->hash(s);
    cas_state *back = NULL;
    int rc = vt->state_clone(s, clone);
    if (rc != CAS_OK || vt->hash(*clone) != hash)
        return broke(c, "clone-hash", 0, 0, "state_clone gave %d and hash %016" PRIx64
                     ", the state's is %016" PRIx64, rc, rc ? 0 : vt->hash(*clone), hash);
    rc = vt->state_copy(c->scratch, s);
    if (rc != CAS_OK || vt->hash(c->scratch) != hash)
        return broke(c, "copy-hash", 0, 0, "state_copy gave %d and hash %016" PRIx64
                     ", the state's is %016" PRIx64, rc, vt->hash(c->scratch), hash);
    if ((rc = serialize_into(&c->a, s, &c->bytes)) != CAS_OK)
        return broke(c, "serialize", 0, 0, "serialize failed (%d): %s", rc, why(&c->a));
    rc = vt->deserialize(c->a.game, (const uint8_t *)c->bytes.data, c->bytes.len, &back);
    if (rc != CAS_OK)
        return broke(c, "serialize-round-trip", 0, 0,
                     "deserialize of its own %zu bytes failed (%d): %s", c->bytes.len, rc,
                     why(&c->a));
    uint64_t back_hash = vt->hash(back);
    rc = serialize_into(&c->a, back, &c->rebytes);
    vt->state_free(back);
    if (back_hash != hash)
        return broke(c, "serialize-hash", 0, 0, "after serialize and deserialize the hash is "
                     "%016" PRIx64 ", before %016" PRIx64, back_hash, hash);
    if (rc != CAS_OK || c->rebytes.len != c->bytes.len ||
        memcmp(c->rebytes.data, c->bytes.data, c->bytes.len) != 0)
        return broke(c, "serialize-bytes", 0, 0, "serializing the deserialized state gave "
                     "%zu different bytes (%d), first time %zu", c->rebytes.len, rc,
                     c->bytes.len);
    rc = vt->deserialize(c->a.game, (const uint8_t *)c->bytes.data, 0, &back);
    if (rc == CAS_OK) {
        vt->state_free(back);
        return broke(c, "deserialize-validates", 0, 0, "deserialize accepted zero bytes");
    }
    return check_hash_sensitive(c, hash);
}

/* A clone lists exactly the legal actions of its original. */
static int check_clone_legal(struct checker *c, const cas_state *clone)
{
    int rc = cas__match_legal(&c->a, clone, &c->clone_legal);
    if (rc != CAS_OK)
        return broke(c, "clone-legal-actions", 0, 0, "legal_actions of a clone failed (%d): %s",
                     rc, why(&c->a));
    const struct cas__actions *l = &c->legal, *k = &c->clone_legal;
    size_t n = l->count < k->count ? l->count : k->count, i = 0;
    while (i < n && l->items[i] == k->items[i])
        i++;
    if (i == l->count && i == k->count)
        return CAS_OK;
    return broke(c, "clone-legal-actions", i < l->count, i < l->count ? l->items[i] : 0,
                 "a clone lists %zu legal actions, the state %zu; they first differ at entry "
                 "%zu", k->count, l->count, i);
}

/* Every viewer can be rendered in text, ANSI and JSON. */
static int check_renders(struct checker *c, const cas_state *s)
{
    static const enum cas_render_format formats[] = {CAS_RENDER_TEXT, CAS_RENDER_ANSI,
                                                     CAS_RENDER_JSON};
    static const char *const names[] = {"text", "ANSI", "JSON"};
    struct cas_writer out = {.struct_size = sizeof out, .ctx = &c->render, .write = cas__buf_write};
    for (int viewer = CAS_VIEWER_OMNISCIENT; viewer < c->nplayers; viewer++) {
        for (int f = 0; f < 3; f++) {
            cas__buf_reset(&c->render);
            int rc = c->a.vt->render(s, viewer, formats[f], &out);
            if (rc != CAS_OK || c->render.len == 0)
                return broke(c, "render", 0, 0, "%s render for viewer %d gave %d and %zu "
                             "bytes: %s", names[f], viewer, rc, c->render.len, why(&c->a));
            size_t bad = formats[f] == CAS_RENDER_JSON
                             ? cas__json_object_error(c->render.data, c->render.len) : 0;
            if (bad)
                return broke(c, "render-json", 0, 0, "JSON render for viewer %d is not one "
                             "JSON object: it goes wrong at byte %zu: %.40s", viewer, bad,
                             (const char *)c->render.data + bad - 1);
        }
    }
    return CAS_OK;
}

/* Plies whose click-to-play picture is checked: one in MARKS_EVERY (a
 * prime, so it does not fall in step with a game's turn of 2 or 3 plies),
 * so a long game costs a few pictures, not one per ply. */
#define MARKS_EVERY 5

/* A plugin of ABI 1.2 or later that draws the decision view with marks
 * (CAS_RENDER_SVG_ACTIONS, docs/abi.md) marks it usably: every index in
 * range and ascending, every marked action reachable by clicks, and at
 * least one element when it answers CAS_OK (marking nothing is said with
 * CAS_EINVAL).  Actions no element names are allowed: they become buttons. */
static int check_marks(struct checker *c, const cas_state *s, int actor)
{
    const struct cas_game_vtable *vt = c->a.vt;
    if (actor < 0 || c->ply % MARKS_EVERY != 0 || c->a.plugin->abi_major != 1 ||
        c->a.plugin->abi_minor < 2 ||
        !CAS_HAS_FIELD(vt, struct cas_game_vtable, render_choices) || !vt->render_choices)
        return CAS_OK;
    struct cas_writer out = {.struct_size = sizeof out, .ctx = &c->render, .write = cas__buf_write};
    cas__buf_reset(&c->render);
    c->a.error[0] = '\0';
    int rc = vt->render_choices(s, actor, CAS_RENDER_SVG_ACTIONS, c->legal.items,
                                c->legal.count, &out);
    if (rc == CAS_EINVAL || rc == CAS_ENOTFOUND)
        return CAS_OK; /* nothing marked here: the client lists the actions */
    if (rc != CAS_OK)
        return broke(c, "marks", 0, 0, "the click-to-play picture for player %d gave %d: %s",
                     actor, rc, why(&c->a));
    struct cas__marks_report mr;
    char problem[160];
    rc = cas__marks_verify(c->render.data, c->render.len, c->legal.count, &mr, NULL, problem,
                           sizeof problem);
    if (rc == CAS_ENOMEM)
        return rc;
    if (rc != CAS_OK)
        return broke(c, "marks", 0, 0, "the click-to-play picture for player %d: %s", actor,
                     problem);
    if (mr.elements == 0)
        return broke(c, "marks", 0, 0, "the click-to-play picture for player %d marks nothing "
                     "but was answered with CAS_OK (say CAS_EINVAL instead)", actor);
    if (mr.unreachable != (size_t)-1)
        return broke(c, "marks-reachable", 1, c->legal.items[mr.unreachable],
                     "no clicks on the picture's %zu marked elements narrow the %zu legal "
                     "actions to this one (choice %zu), though an element names it",
                     mr.elements, c->legal.count, mr.unreachable + 1);
    return CAS_OK;
}

/* viewer's picture as the server takes it (the decision view among the
 * legal actions when it decides and the plugin marks something, else the
 * plain one) into c->render: the whole render, and the format used. */
static int whole_picture(struct checker *c, const cas_state *s, int viewer, int actor,
                         enum cas_render_format *format)
{
    struct cas_writer out = {.struct_size = sizeof out, .ctx = &c->render, .write = cas__buf_write};
    cas__buf_reset(&c->render);
    *format = CAS_RENDER_SVG_ACTIONS;
    if (viewer == actor &&
        cas__match_render_to(&c->a, s, viewer, *format, &c->legal, &out) == CAS_OK)
        return CAS_OK;
    cas__buf_reset(&c->render);
    *format = CAS_RENDER_SVG;
    return cas__match_render_to(&c->a, s, viewer, *format, NULL, &out);
}

/* What check_render_since draws: s as viewer sees it, in format. */
struct since_drawing {
    struct checker *c;
    const cas_state *s;
    int viewer;
    enum cas_render_format format;
};

/* A cas__picture_drawer through the plugin's render_since. */
static int draw_since(void *ctx, const unsigned char *since, size_t since_len,
                      unsigned char *stamp, size_t *stamp_len, const struct cas_writer *out)
{
    struct since_drawing *d = ctx;
    struct checker *c = d->c;
    c->a.error[0] = '\0';
    return cas__match_render_since(&c->a, d->s, d->viewer, d->format,
                                   d->format == CAS_RENDER_SVG ? NULL : &c->legal, since,
                                   since_len, stamp, CAS_RENDER_STAMP_MIN, stamp_len, out);
}

/* A plugin with render_since (ABI 1.4, docs/abi.md "ABI 1.4: pictures
 * relative to the last"), at every ply: each player's picture and the
 * public one drawn relative to that viewer's last, its placeholders
 * filled in as the server fills them, is byte for byte the whole render
 * (the first of each drawn whole, from no stamp). */
static int check_render_since(struct checker *c, const cas_state *s, int actor)
{
    if (!c->views || !cas__match_has_render_since(&c->a))
        return CAS_OK;
    for (int i = 0; i <= c->nplayers; i++) {
        struct since_drawing d = {.c = c, .s = s, .viewer = i < c->nplayers ? i : CAS_VIEWER_PUBLIC};
        struct cas__picture *last = &c->views[i];
        if (whole_picture(c, s, d.viewer, actor, &d.format) != CAS_OK)
            return CAS_OK; /* no picture: `render` says so for SVG plugins */
        int relative = last->store && last->stamp_len;
        const char *unfit;
        struct cas__picture now;
        int rc = cas__picture_draw(&now, last, draw_since, &d, &unfit);
        if (rc == CAS_ENOMEM)
            return rc;
        if (rc != CAS_OK)
            return broke(c, "render-since", 0, 0, "render_since for viewer %d gave %d where "
                         "the whole picture was drawn: %s", d.viewer, rc, why(&c->a));
        if (unfit) {
            cas__picture_free(&now);
            return broke(c, "render-since", 0, 0, "the picture for viewer %d drawn relative "
                         "to the last does not fit it: %s", d.viewer, unfit);
        }
        const char *svg = cas__picture_svg(&now);
        if (!svg) {
            cas__picture_free(&now);
            return CAS_ENOMEM;
        }
        if (now.len != c->render.len || memcmp(svg, c->render.data, now.len) != 0) {
            size_t at = 0;
            while (at < now.len && at < c->render.len && svg[at] == c->render.data[at])
                at++;
            cas__picture_free(&now);
            return broke(c, "render-since", 0, 0, "the picture for viewer %d drawn %s, filled "
                         "in, differs from the whole one from byte %zu on: %.60s", d.viewer,
                         relative ? "relative to the last" : "from no stamp", at,
                         at < c->render.len ? c->render.data + at : "(its end)");
        }
        cas__picture_free(last);
        *last = now;
    }
    return CAS_OK;
}

/* The smallest code that is not a legal action. */
static cas_action not_legal(const struct cas__actions *legal)
{
    cas_action candidate = 0;
    for (size_t i = 0; i < legal->count && legal->items[i] <= candidate; i++)
        if (legal->items[i] == candidate)
            candidate++;
    return candidate;
}

/* An action that is not legal is refused and changes nothing. */
static int check_illegal_refused(struct checker *c, const cas_state *s)
{
    const struct cas_game_vtable *vt = c->a.vt;
    cas_action bogus = not_legal(&c->legal);
    uint64_t hash = vt->hash(s);
    int rc = vt->state_copy(c->scratch, s);
    if (rc == CAS_OK)
        rc = vt->apply(c->scratch, bogus, NULL);
    if (rc == CAS_OK || vt->hash(c->scratch) != hash)
        return broke(c, "illegal-action-refused", 0, 0,
                     "apply of the unlisted code 0x%" PRIx64 " returned %d%s", bogus, rc,
                     rc == CAS_OK ? "" : " but changed the state");
    return CAS_OK;
}

static void check_event(void *ctx, const struct cas_event *e)
{
    struct checker *c = ctx;
    if (c->event_problem[0])
        return;
    if (e->struct_size < offsetof(struct cas_event, text) + sizeof e->text ||
        e->kind < CAS_EVENT_SCORE ||
        e->kind > CAS_EVENT_END || !e->text || e->player < -1 || e->player >= c->nplayers ||
        (e->visible_to != CAS_VIEWER_PUBLIC && (e->visible_to < 0 ||
                                                e->visible_to >= c->nplayers)))
        snprintf(c->event_problem, sizeof c->event_problem,
                 "event kind %d, player %d, visible_to %d, text %s", (int)e->kind, e->player,
                 e->visible_to, e->text ? e->text : "(null)");
}

/* ABI 1.2 random_action, checked exactly rather than by statistics: a
 * scripted rng answers the plugin's draws, and every sequence of answers
 * is tried in turn (depth first: each below(n) answered 0, 1, ..., n - 1),
 * so each action drawn gets its exact chance, the product of 1/n over the
 * draws that led to it.  Every drawn action must be listed and every
 * listed one get the same chance.  A sequence longer than DRAW_DEPTH draws
 * (a rejection sampler's retries) is left out; the chances of the rest are
 * still equal for a uniform sampler.  A state with more than DRAW_LEAVES
 * sequences is left unchecked. */
#define DRAW_DEPTH 4u
#define DRAW_LEAVES 16384u

struct draw_script {
    uint64_t answer[DRAW_DEPTH], n[DRAW_DEPTH];
    size_t scripted;  /* answers fixed by the sequences before */
    size_t calls;     /* below() calls in this run */
    uint64_t changed; /* a bound other than the one the same answers got before, or 0 */
};

static uint64_t scripted_below(void *ctx, uint64_t n)
{
    struct draw_script *d = ctx;
    size_t k = d->calls++;
    if (k >= DRAW_DEPTH || n == 0)
        return 0; /* a sequence left out (n == 0 breaks the contract: seen below) */
    if (k < d->scripted) {
        if (d->n[k] != n && !d->changed)
            d->changed = n;
        return d->answer[k] < n ? d->answer[k] : 0;
    }
    d->n[k] = n;
    d->answer[k] = 0;
    d->scripted = k + 1;
    return 0;
}

/* The drawn action's index in the (ascending) listing, or -1. */
static long listed_at(const struct cas__actions *l, cas_action a)
{
    size_t lo = 0, hi = l->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (l->items[mid] < a)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < l->count && l->items[lo] == a ? (long)lo : -1;
}

/* One sequence of answers: the action it draws is listed, its chance is
 * added to it (unless the sequence is too long). */
static int draw_once(struct checker *c, const cas_state *s, struct draw_script *d)
{
    struct cas_rng rng = {.struct_size = sizeof rng, .ctx = d, .below = scripted_below};
    cas_action a = 0;
    d->calls = 0;
    int rc = c->a.vt->random_action(s, &rng, &a);
    if (rc != CAS_OK)
        return broke(c, "random-action", 0, 0, "random_action failed (%d) where %zu actions "
                     "are listed: %s", rc, c->legal.count, why(&c->a));
    for (size_t k = 0; k < d->calls && k < DRAW_DEPTH; k++)
        if (d->n[k] == 0)
            return broke(c, "random-action", 1, a, "random_action asked for a number below 0");
    if (d->changed)
        return broke(c, "random-action-pure", 1, a, "given the same numbers as before, "
                     "random_action asked for one below %" PRIu64 ", not %" PRIu64,
                     d->changed, d->n[d->scripted - 1]);
    long at = listed_at(&c->legal, a);
    if (at < 0)
        return broke(c, "random-action-legal", 1, a, "random_action drew 0x%" PRIx64
                     ", which legal_actions does not list", a);
    if (d->calls <= DRAW_DEPTH) {
        double chance = 1;
        for (size_t k = 0; k < d->calls; k++)
            chance /= (double)d->n[k];
        c->drawn_mass[at] += chance;
    }
    return CAS_OK;
}

static int check_random_action(struct checker *c, const cas_state *s, int actor)
{
    const struct cas__actions *l = &c->legal;
    if (actor < 0 || !cas__match_draws_actions(&c->a))
        return CAS_OK;
    if (l->count > c->drawn_cap) {
        double *grown = realloc(c->drawn_mass, l->count * sizeof *grown);
        if (!grown)
            return broke(c, "random-action", 0, 0, "out of memory");
        c->drawn_mass = grown;
        c->drawn_cap = l->count;
    }
    memset(c->drawn_mass, 0, l->count * sizeof *c->drawn_mass);
    struct draw_script d = {0};
    double total = 0;
    for (size_t leaves = 1;; leaves++) {
        int rc = draw_once(c, s, &d);
        if (rc != CAS_OK)
            return rc;
        if (leaves == DRAW_LEAVES || (leaves == 1 && d.scripted && d.n[0] > DRAW_LEAVES))
            return CAS_OK; /* too many sequences to try */
        d.scripted = d.calls < DRAW_DEPTH ? d.calls : DRAW_DEPTH;
        while (d.scripted > 0 && ++d.answer[d.scripted - 1] >= d.n[d.scripted - 1])
            d.scripted--;
        if (d.scripted == 0)
            break;
    }
    for (size_t i = 0; i < l->count; i++)
        total += c->drawn_mass[i];
    for (size_t i = 0; i < l->count; i++)
        if (fabs(c->drawn_mass[i] * (double)l->count - total) > 1e-9 * total)
            return broke(c, "random-action-uniform", 1, l->items[i], "over every sequence of "
                         "numbers, random_action draws this action with chance %.9g where a "
                         "uniform pick from the %zu listed gives %.9g", c->drawn_mass[i],
                         l->count, total / (double)l->count);
    return CAS_OK;
}

/* Everything that must hold in s before an action is applied. */
static int check_state(struct checker *c, const cas_state *s, int actor, cas_state **clone)
{
    int rc = check_legal_list(c, s, actor);
    if (rc == CAS_OK)
        rc = check_texts(c, s);
    if (rc == CAS_OK)
        rc = check_chance(c, s, actor);
    if (rc == CAS_OK)
        rc = check_returns(c, s);
    if (rc == CAS_OK)
        rc = check_copies(c, s, clone);
    if (rc == CAS_OK)
        rc = check_clone_legal(c, *clone);
    if (rc == CAS_OK)
        rc = check_renders(c, s);
    if (rc == CAS_OK)
        rc = check_marks(c, s, actor);
    if (rc == CAS_OK)
        rc = check_render_since(c, s, actor);
    if (rc == CAS_OK)
        rc = check_illegal_refused(c, s);
    if (rc == CAS_OK)
        rc = check_random_action(c, s, actor);
    return rc;
}

/* Apply the random choice to s; its clone must not change with it. */
static int check_apply(struct checker *c, cas_state *s, const cas_state *clone)
{
    const struct cas_game_vtable *vt = c->a.vt;
    struct cas_event_sink sink = {.struct_size = sizeof sink, .ctx = c, .emit = check_event};
    cas_action action;
    uint64_t before = vt->hash(s);
    int rc = cas__random_action(&c->a, s, &c->legal, c->seed, c->ply, &action);
    if (rc != CAS_OK)
        return broke(c, "chance-outcomes", 0, 0, "no action could be drawn (%d)", rc);
    c->event_problem[0] = '\0';
    c->a.error[0] = '\0';
    rc = vt->apply(s, action, &sink);
    if (rc != CAS_OK)
        return broke(c, "apply-legal", 1, action, "apply of a listed action failed (%d): %s",
                     rc, why(&c->a));
    if (c->event_problem[0])
        return broke(c, "events", 1, action, "malformed %s", c->event_problem);
    if (vt->hash(clone) != before)
        return broke(c, "clone-independent", 1, action,
                     "applying to the state changed its clone's hash");
    return log_hash(&c->solo_a, vt->hash(s));
}

/* ------------------------------------------------------- whole games */

/* Play one random game of match a with every step checked. */
static int check_game(struct checker *c)
{
    const struct cas_game_vtable *vt = c->a.vt;
    cas_state *s = NULL;
    int rc = vt->state_new(c->a.game, &s);
    if (rc == CAS_OK)
        rc = vt->state_new(c->a.game, &c->scratch);
    if (rc != CAS_OK) {
        vt->state_free(s);
        return broke(c, "state-new", 0, 0, "state_new failed (%d): %s", rc, why(&c->a));
    }
    c->solo_a.n = 0;
    c->views = cas__match_has_render_since(&c->a) ? calloc((size_t)c->nplayers + 1,
                                                          sizeof *c->views)
                                                   : NULL;
    rc = check_labels(c);
    for (c->ply = 0; rc == CAS_OK; c->ply++) {
        cas_state *clone = NULL;
        int actor = vt->current(s);
        c->state = s;
        step(c, c->ply); /* where a crash happened, for the caller */
        rc = check_actor(c, actor);
        if (rc == CAS_OK)
            rc = check_state(c, s, actor, &clone);
        if (rc == CAS_OK && actor == CAS_ACTOR_TERMINAL) {
            vt->state_free(clone);
            break;
        }
        if (rc == CAS_OK && c->ply >= c->max_plies)
            rc = broke(c, "terminates", 0, 0, "no end after %" PRIu32 " actions", c->ply);
        if (rc == CAS_OK)
            rc = check_apply(c, s, clone);
        vt->state_free(clone);
        c->r->plies += rc == CAS_OK;
    }
    c->state = NULL;
    for (int i = 0; c->views && i <= c->nplayers; i++)
        cas__picture_free(&c->views[i]);
    free(c->views);
    c->views = NULL;
    vt->state_free(c->scratch);
    c->scratch = NULL;
    vt->state_free(s);
    return rc;
}

/* Play a random game of m without checks, logging every hash. */
static int play_logged(struct checker *c, struct cas__match *m, uint64_t seed,
                       struct hash_log *log)
{
    cas_state *s = NULL;
    int rc = m->vt->state_new(m->game, &s);
    log->n = 0;
    for (uint32_t ply = 0; rc == CAS_OK && m->vt->current(s) != CAS_ACTOR_TERMINAL; ply++)
        rc = ply < c->max_plies ? random_step(c, m, s, &c->legal, seed, ply, log) : CAS_EINVAL;
    m->vt->state_free(s);
    return rc;
}

/* Where two hash logs first differ, or -1 if they are equal. */
static long first_difference(const struct hash_log *x, const uint64_t *y, size_t ny)
{
    size_t n = x->n < ny ? x->n : ny;
    for (size_t i = 0; i < n; i++)
        if (x->hashes[i] != y[i])
            return (long)i;
    return x->n == ny ? -1 : (long)n;
}

/* Replaying the seed gives the same game, hash for hash — drawing chance
 * by listing the outcomes, so a plugin that picks them from a ticket
 * (ABI 1.1) must give the very game the listing gives. */
static int check_same_seed(struct checker *c)
{
    struct hash_log again = {0};
    c->a.generic_chance = 1;
    int rc = play_logged(c, &c->a, c->seed, &again);
    c->a.generic_chance = 0;
    long at = rc == CAS_OK ? first_difference(&c->solo_a, again.hashes, again.n) : 0;
    free(again.hashes);
    if (rc != CAS_OK || at >= 0) {
        c->ply = (uint32_t)(at > 0 ? at : 0);
        return broke(c, "same-seed-same-game", 0, 0,
                     "replaying seed %" PRIu64 " %s at action %ld", c->seed,
                     rc != CAS_OK ? "failed" : "gave a different hash", at);
    }
    return CAS_OK;
}

/* This game and a second one played step by step in turn, the second a
 * state of match `other` (another game instance, or this one again), give
 * the games each plays alone.  c->solo_b holds the second game alone. */
static int check_interleaved_with(struct checker *c, struct cas__match *other,
                                  const char *which)
{
    const struct cas_game_vtable *vt = c->a.vt;
    uint64_t seed_b = c->seed + OTHER_SEED;
    struct hash_log mixed_a = {0}, mixed_b = {0};
    cas_state *sa = NULL, *sb = NULL;
    int rc = vt->state_new(c->a.game, &sa);
    if (rc == CAS_OK)
        rc = vt->state_new(other->game, &sb);
    for (uint32_t ply = 0; rc == CAS_OK && ply < c->max_plies; ply++) {
        int a_over = vt->current(sa) == CAS_ACTOR_TERMINAL;
        int b_over = vt->current(sb) == CAS_ACTOR_TERMINAL;
        if (a_over && b_over)
            break;
        if (!a_over)
            rc = random_step(c, &c->a, sa, &c->legal, c->seed, ply, &mixed_a);
        if (rc == CAS_OK && !b_over)
            rc = random_step(c, other, sb, &c->other, seed_b, ply, &mixed_b);
    }
    vt->state_free(sa);
    vt->state_free(sb);
    long at_a = first_difference(&mixed_a, c->solo_a.hashes, c->solo_a.n);
    long at_b = first_difference(&mixed_b, c->solo_b.hashes, c->solo_b.n);
    free(mixed_a.hashes);
    free(mixed_b.hashes);
    if (rc != CAS_OK || at_a >= 0 || at_b >= 0) {
        c->ply = (uint32_t)(at_a >= 0 ? at_a : at_b >= 0 ? at_b : 0);
        return broke(c, "interleaved-games", 0, 0,
                     "played in turn with a second game (%s, seed %" PRIu64 "), %s", which,
                     seed_b,
                     rc != CAS_OK ? "a step failed"
                     : at_a >= 0 ? "this game diverged from its solo run"
                                 : "the second game diverged from its solo run");
    }
    return CAS_OK;
}

/* Interleaving with a state of another game instance (state kept in
 * globals) and with a second state of the same game (state kept in the
 * game handle) changes nothing. */
static int check_interleaved(struct checker *c)
{
    int rc = play_logged(c, &c->b, c->seed + OTHER_SEED, &c->solo_b);
    if (rc != CAS_OK)
        return broke(c, "same-seed-same-game", 0, 0, "a second instance could not play "
                     "seed %" PRIu64 " (%d)", c->seed + OTHER_SEED, rc);
    rc = check_interleaved_with(c, &c->b, "another instance");
    return rc == CAS_OK ? check_interleaved_with(c, &c->a, "the same instance") : rc;
}

static int open_match(struct checker *c, struct cas__match *m)
{
    const struct cas__check_target *t = c->t;
    char err[sizeof c->r->detail];
    int rc = cas__match_open_isolated(m, t->isolation, t->plugin, t->data_dir, t->options,
                                      t->n_options, t->expansions, t->n_expansions,
                                      c->nplayers, err, sizeof err);
    if (rc != CAS_OK) {
        broke(c, "game-new", 0, 0, "%s", err);
        return rc;
    }
    if (t->on_fault)
        m->on_fault = *t->on_fault;
    return CAS_OK;
}

static int check_one_game(struct checker *c, int index)
{
    int span = c->t->max_players - c->t->min_players + 1;
    c->nplayers = c->t->min_players + index % (span > 0 ? span : 1);
    c->seed = c->opt->seed + (uint64_t)index;
    c->ply = 0;
    c->r->seed = c->seed;
    c->r->nplayers = c->nplayers;
    c->r->ply = 0;
    int rc = open_match(c, &c->a);
    if (rc != CAS_OK)
        return rc;
    rc = open_match(c, &c->b);
    if (rc == CAS_OK) {
        rc = check_game(c);
        if (rc == CAS_OK)
            rc = check_same_seed(c);
        if (rc == CAS_OK)
            rc = check_interleaved(c);
        cas__match_close(&c->b);
    }
    cas__match_close(&c->a);
    return rc;
}

/* Append text to buf (holding a string, cap bytes in all), cut to fit. */
static void append(char *buf, size_t cap, const char *text)
{
    size_t used = strlen(buf);
    snprintf(buf + used, cap - used, "%s", text);
}

/* " FLAG 'VALUE'" onto buf, VALUE in single quotes for the shell (a quote
 * inside as '\''). */
static void append_flag(char *buf, size_t cap, const char *flag, const char *value)
{
    append(buf, cap, " ");
    append(buf, cap, flag);
    append(buf, cap, " '");
    for (const char *at = value; *at; at++) {
        char one[2] = {*at, '\0'};
        append(buf, cap, *at == '\'' ? "'\\''" : one);
    }
    append(buf, cap, "'");
}

/* The rules as the report names them, and as the flags that set them again. */
static void describe_rules(struct cas__check_report *r, const struct cas__check_target *t)
{
    for (size_t i = 0; i < t->n_rules; i++) {
        if (i)
            append(r->rules, sizeof r->rules, " ");
        append(r->rules, sizeof r->rules, t->rules[i]);
        append_flag(r->rule_flags, sizeof r->rule_flags, "--rule", t->rules[i]);
    }
}

/* The plugin path, as the flag that gives it again. */
static void describe_path(struct cas__check_report *r, const char *path)
{
    append_flag(r->path_flag, sizeof r->path_flag, "--plugin-path", path);
}

int cas__check_run(const struct cas__check_target *t, const struct cas__check_options *opt,
                   struct cas__check_report *report)
{
    struct checker c = {.t = t, .opt = opt, .r = report};
    int games = opt->games > 0 ? opt->games : DEFAULT_GAMES;
    int rc = CAS_OK;
    memset(report, 0, sizeof *report);
    snprintf(report->plugin, sizeof report->plugin, "%s", t->plugin->id);
    for (size_t i = 0; i < t->n_expansions; i++) {
        if (i)
            append(report->expansions, sizeof report->expansions, ",");
        append(report->expansions, sizeof report->expansions, t->expansions[i].id);
    }
    describe_rules(report, t);
    if (opt->plugin_path)
        describe_path(report, opt->plugin_path);
    report->seed = opt->seed;
    c.max_plies = opt->max_plies ? opt->max_plies : DEFAULT_MAX_PLIES;
    if (t->max_players > MAX_PLAYERS)
        return broke(&c, "game-new", 0, 0, "the checker handles at most %d players",
                     MAX_PLAYERS);
    char what[96];
    struct cas__progress progress;
    snprintf(what, sizeof what, "check %s", t->plugin->id);
    cas__progress_begin(&progress, opt->progress, what, "games", (uint64_t)games);
    for (int i = 0; i < games && rc == CAS_OK; i++) {
        rc = check_one_game(&c, i);
        report->games += rc == CAS_OK;
        cas__progress_update(&progress, (uint64_t)i + 1);
    }
    cas__progress_end(&progress);
    if (!report->failed)
        report->seed = opt->seed; /* the summary names the first seed */
    cas__actions_free(&c.legal);
    cas__actions_free(&c.other);
    cas__actions_free(&c.clone_legal);
    free(c.drawn_mass);
    cas__buf_free(&c.bytes);
    cas__buf_free(&c.rebytes);
    free(c.seen.slots);
    cas__buf_free(&c.render);
    free(c.solo_a.hashes);
    free(c.solo_b.hashes);
    return rc;
}

void cas__check_report_seal(struct cas__check_report *r)
{
#define SEAL(field) r->field[sizeof r->field - 1] = '\0';
    SEAL(property) SEAL(plugin) SEAL(expansions) SEAL(rules) SEAL(rule_flags)
    SEAL(path_flag) SEAL(action) SEAL(detail)
#undef SEAL
}

/* "game + a,b (rules x=1 y=2)": what was checked. */
static void print_checked(const struct cas__check_report *r, FILE *out)
{
    fprintf(out, "%s%s%s", r->plugin, r->expansions[0] ? " + " : "", r->expansions);
    if (r->rules[0])
        fprintf(out, " (rules %s)", r->rules);
}

void cas__check_print(const struct cas__check_report *r, FILE *out)
{
    print_checked(r, out);
    if (!r->failed) {
        fprintf(out, ": every property held in %d games (%" PRIu64 " actions checked, "
                "%" PRIu64 " distinct states without a hash collision, seeds from %" PRIu64
                ")\n", r->games, r->plies, r->distinct, r->seed);
        return;
    }
    fprintf(out, ": FAILED %s\n", r->property);
    fprintf(out, "  game with seed %" PRIu64 ", %d players, at ply %" PRIu32, r->seed,
            r->nplayers, r->ply);
    if (r->action[0])
        fprintf(out, ", action \"%s\"", r->action);
    fprintf(out, "\n  %s\n", r->detail);
    fprintf(out, "  reproduce: castellan check %s%s%s%s%s --seed %" PRIu64 " --games %" PRIu64
            " --players %d\n", r->plugin, r->expansions[0] ? " --expansions " : "",
            r->expansions, r->rule_flags, r->path_flag, r->first_seed,
            r->seed - r->first_seed + 1, r->nplayers);
}
