/*
 * castellan/plugin.h — the host ABI: the only header a new game plugin needs.
 *
 * A plugin is a shared object <id>.so beside a manifest <id>.ini.  It exports
 * exactly one symbol, CAS_PLUGIN_ENTRY_SYMBOL, returning a const descriptor.
 * The host reads the manifest before it dlopen()s anything, then checks the
 * descriptor against the manifest and against its own ABI version.
 *
 * ABI discipline (see docs/abi.md for the version table):
 *  - every struct that crosses the boundary starts with `size_t struct_size`
 *    and only ever grows at its end; a reader must check struct_size before it
 *    touches a field added after 1.0 (CAS_HAS_FIELD);
 *  - the major version changes only when an existing field changes meaning;
 *    a plugin built for minor M loads in any host of the same major with
 *    minor >= M;
 *  - plugins keep no global mutable state: everything lives in the handles.
 *
 * Error reporting: functions that can fail return an int, 0 (CAS_OK) on
 * success or a negative CAS_E* code.  A plugin may explain a failure in words
 * through host->set_error before returning; the host prefixes the plugin id.
 *
 * Determinism: a plugin never calls rand(), time() or any clock.  Chance is a
 * decision of the actor CAS_ACTOR_CHANCE: the plugin lists outcomes with
 * weights, the host picks one with its seeded PRNG and applies it like any
 * other action, so the journal replays bit for bit.
 */
#ifndef CASTELLAN_PLUGIN_H
#define CASTELLAN_PLUGIN_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CAS_ABI_MAJOR 1
#define CAS_ABI_MINOR 5

/* The one symbol a plugin exports; its type is cas_plugin_entry_fn. */
#define CAS_PLUGIN_ENTRY_SYMBOL "cas_plugin_entry"

#if defined(__GNUC__)
#define CAS_EXPORT __attribute__((visibility("default")))
#define CAS_PRINTF(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define CAS_EXPORT
#define CAS_PRINTF(fmt, args)
#endif

/* True when a struct received across the boundary is large enough to hold
 * FIELD, i.e. its producer knew about the field. */
#define CAS_HAS_FIELD(ptr, type, field) \
    ((ptr)->struct_size >= offsetof(type, field) + sizeof(((type *)0)->field))

/* Initialising a sized struct with its struct_size and the fields named,
 * the rest zero, clean under -Wall -Wextra (a positional `{ sizeof x }`
 * warns of missing initialisers):
 *   static const struct cas_plugin desc = { CAS_SIZED(struct cas_plugin), .id = "x" };
 *   struct cas_event e = CAS_INIT(struct cas_event, .kind = CAS_EVENT_INFO);
 * CAS_INIT needs at least one field after the type. */
#define CAS_SIZED(type) .struct_size = sizeof(type)
#define CAS_INIT(type, ...) ((type){CAS_SIZED(type), __VA_ARGS__})

/* Build fingerprint: sizes of pointer, long and size_t, and byte order.
 * A plugin whose fingerprint differs from the host's was built for another
 * platform and is refused before any of its functions is called. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define CAS_BUILD_BIG_ENDIAN 1u
#else
#define CAS_BUILD_BIG_ENDIAN 0u
#endif
#define CAS_BUILD_FINGERPRINT                                            \
    ((uint32_t)sizeof(void *) | ((uint32_t)sizeof(long) << 8) |          \
     ((uint32_t)sizeof(size_t) << 16) | (CAS_BUILD_BIG_ENDIAN << 24))

/* ------------------------------------------------------------------ errors */

enum cas_error {
    CAS_OK = 0,
    CAS_EINVAL = -1,    /* an argument is out of its documented range      */
    CAS_ENOMEM = -2,    /* an allocation failed                             */
    CAS_EILLEGAL = -3,  /* the action is not legal in this state            */
    CAS_EPARSE = -4,    /* text is not a valid action / record / file       */
    CAS_ENOSPC = -5,    /* caller's buffer too small; size needed reported  */
    CAS_EVERSION = -6,  /* version or encoding not supported                */
    CAS_EOPTION = -7,   /* a rule option value is not acceptable            */
    CAS_EDATA = -8,     /* a data file (tiles, deck) is invalid             */
    CAS_ECORRUPT = -9,  /* serialized bytes are damaged or inconsistent     */
    CAS_EIO = -10,      /* a file or database could not be read or written  */
    CAS_ENOTFOUND = -11,/* the named thing does not exist                   */
    CAS_ECONFLICT = -12,/* two requests contradict each other               */
    CAS_ETERMINAL = -13,/* the game is over; no action applies              */
    CAS_EMISMATCH = -14,/* a check failed: hash, version or fingerprint     */
    CAS_EUNAVAILABLE = -15,/* host only: a service it needs (its database) is
                            * away for now; nothing changed, try again later */
    CAS_ERROR_MIN = -15
};

/* What code means, in a few words ("the database or service is
 * unavailable"); never NULL.  For messages that have nothing better. */
static inline const char *cas_strerror(int code)
{
    switch (code) {
    case CAS_OK: return "success";
    case CAS_EINVAL: return "invalid argument";
    case CAS_ENOMEM: return "out of memory";
    case CAS_EILLEGAL: return "illegal action";
    case CAS_EPARSE: return "cannot be parsed";
    case CAS_ENOSPC: return "buffer too small";
    case CAS_EVERSION: return "version not supported";
    case CAS_EOPTION: return "unacceptable rule option";
    case CAS_EDATA: return "invalid data file";
    case CAS_ECORRUPT: return "damaged data";
    case CAS_EIO: return "input/output error";
    case CAS_ENOTFOUND: return "not found";
    case CAS_ECONFLICT: return "conflict";
    case CAS_ETERMINAL: return "the game is over";
    case CAS_EMISMATCH: return "check failed";
    case CAS_EUNAVAILABLE: return "the database or service is unavailable for now";
    default: return "unknown error";
    }
}

/* ------------------------------------------------------------------ actors */

/* current() returns a player index 0..nplayers-1, or one of these. */
#define CAS_ACTOR_CHANCE (-1)
#define CAS_ACTOR_TERMINAL (-2)

/* Viewers for render(): a player index, or everyone's common knowledge,
 * or the omniscient view (debugging, replays of finished games, checks). */
#define CAS_VIEWER_PUBLIC (-1)
#define CAS_VIEWER_OMNISCIENT (-2)

/* An action is a compact value chosen by the plugin.  Codes are only
 * meaningful to the state they were listed for; what is journaled is the
 * canonical text, so saves survive changes to the codes. */
typedef uint64_t cas_action;

/* Opaque handles, defined by each plugin. */
typedef struct cas_game cas_game;
typedef struct cas_state cas_state;

/* ------------------------------------------------------- host services */

enum cas_log_level { CAS_LOG_ERROR, CAS_LOG_WARN, CAS_LOG_INFO, CAS_LOG_DEBUG };

/* Services the host lends to one plugin.  The table and every string in it
 * stay valid until the plugin is unloaded.  Plugins must allocate through
 * alloc/realloc/release so the host can count and bound memory. */
struct cas_host {
    size_t struct_size;
    uint16_t abi_major, abi_minor; /* the host's ABI version */
    void *ctx;                     /* pass back to every service */
    void (*log)(void *ctx, enum cas_log_level level, const char *message);
    /* Explain the failure about to be returned.  The text is copied. */
    void (*set_error)(void *ctx, const char *message);
    void *(*alloc)(void *ctx, size_t size);              /* NULL on failure */
    void *(*realloc)(void *ctx, void *block, size_t size);
    void (*release)(void *ctx, void *block);              /* NULL is fine */
    /* Absolute path of this plugin's data folder (tile sets, decks), no
     * trailing slash.  Owned by the host. */
    const char *data_dir;
    /* ABI 1.3: read-only data shared by this plugin's games in the process
     * (docs/abi.md "ABI 1.3: shared data"); check CAS_HAS_FIELD and NULL
     * (a host that does not share): without it, keep your own copy.
     * share: the host's copy of data[0..size) kept under key (text naming
     * everything the bytes depend on): the copy another game shared when
     * its bytes are the same, else a new copy, with one reference for the
     * caller.  The bytes must hold no pointers (they are copied) and must
     * not be written after.  NULL when the host keeps other bytes under
     * that key or memory ran out: keep using your own.
     * unshare: give one reference back (in game_free); NULL is fine. */
    const void *(*share)(void *ctx, const char *key, const void *data, size_t size);
    void (*unshare)(void *ctx, const void *shared);
};

/* printf-style convenience over set_error; truncates past 512 bytes. */
static inline CAS_PRINTF(2, 3) void cas_host_errorf(const struct cas_host *host,
                                                     const char *fmt, ...)
{
    char text[512];
    va_list args;
    va_start(args, fmt);
    vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    host->set_error(host->ctx, text);
}

/* ------------------------------------------------------- output streams */

/* A sink for text the plugin renders.  write() returns 0 or a negative
 * CAS_E* code, which the plugin must pass back up unchanged. */
struct cas_writer {
    size_t struct_size;
    void *ctx;
    int (*write)(void *ctx, const char *data, size_t len);
};

/* printf-style convenience over a writer. */
static inline CAS_PRINTF(2, 3) int cas_writef(const struct cas_writer *out,
                                               const char *fmt, ...)
{
    char text[1024];
    va_list args;
    va_start(args, fmt);
    int len = vsnprintf(text, sizeof text, fmt, args);
    va_end(args);
    if (len < 0)
        return CAS_EINVAL;
    if ((size_t)len >= sizeof text)
        len = (int)sizeof text - 1;
    return out->write(out->ctx, text, (size_t)len);
}

enum cas_event_kind {
    CAS_EVENT_SCORE = 1, /* player gained (or lost) points               */
    CAS_EVENT_INFO = 2,  /* something happened: a draw, a figure returns */
    CAS_EVENT_END = 3    /* the game is over; text names the winner(s)   */
};

/* One event emitted while an action is applied.  Valid only during emit();
 * the sink copies what it keeps. */
struct cas_event {
    size_t struct_size;
    enum cas_event_kind kind;
    int player;      /* who it concerns, or -1 for nobody in particular  */
    int visible_to;  /* CAS_VIEWER_PUBLIC or the one player who may see it */
    int64_t points;  /* for CAS_EVENT_SCORE: the change of score         */
    const char *text;/* human-readable reason: "Red +8 city (4 tiles, 2 coats)" */
    /* ---- 1.1: what a CAS_EVENT_SCORE scored, for programs (results,
     * records).  A reader checks CAS_HAS_FIELD; NULL category: not said. */
    const char *category; /* one word: "road", "city", "monastery", "field" */
    const char *subject;  /* which one, in the game's words: "city at 0,-1" */
    int final;            /* with a category: 1 in the final scoring, else 0 */
};

struct cas_event_sink {
    size_t struct_size;
    void *ctx;
    void (*emit)(void *ctx, const struct cas_event *event);
};

/* --------------------------------------------------------- rule options */

enum cas_option_type {
    CAS_OPTION_BOOL = 1,  /* "on" or "off"                            */
    CAS_OPTION_INT = 2,   /* decimal integer within [min, max]        */
    CAS_OPTION_CHOICE = 3,/* one of the '|'-separated words in choices */
    CAS_OPTION_TEXT = 4   /* free text; the plugin validates it        */
};

/* A rule option a plugin understands.  The host validates names, types and
 * ranges generically (so config errors can name the closest valid choice)
 * and always passes every declared option, defaults filled in. */
struct cas_option_spec {
    size_t struct_size;
    const char *name;          /* lower-case, [a-z0-9-]              */
    enum cas_option_type type;
    const char *default_value; /* as text, e.g. "on"                 */
    int64_t min, max;          /* CAS_OPTION_INT only                */
    const char *choices;       /* CAS_OPTION_CHOICE only: "a|b|c"    */
    const char *help;          /* one line                            */
};

/* A validated option value handed to game_new. */
struct cas_option_value {
    size_t struct_size;
    const char *name;
    const char *value;
};

/* ------------------------------------------------------- game creation */

/* One expansion the session combines, in resolved order. */
struct cas_expansion_ref {
    size_t struct_size;
    const char *id;
    const char *version;
    const char *data_dir;       /* the expansion's data folder            */
    const void *extension;      /* the expansion descriptor's `extension` */
    const struct cas_option_value *options; /* this expansion's options  */
    size_t n_options;
};

struct cas_game_params {
    size_t struct_size;
    int nplayers;
    const struct cas_option_value *options; /* the game's own options */
    size_t n_options;
    const struct cas_expansion_ref *expansions;
    size_t n_expansions;
};

/* A chance outcome: an action code and its relative weight (> 0). */
struct cas_outcome {
    cas_action action;
    uint64_t weight;
};

enum cas_render_format {
    CAS_RENDER_TEXT = 1, /* plain text, fits 80 columns          */
    CAS_RENDER_ANSI = 2, /* text with ANSI colour escapes         */
    CAS_RENDER_JSON = 3, /* one JSON object: the viewer's observation */
    CAS_RENDER_SVG = 4,  /* one self-contained SVG 1.1 document, UTF-8,
                            the same bytes for the same state and viewer;
                            a plugin without pictures returns CAS_EINVAL
                            (docs/abi.md, "Render formats") */
    CAS_RENDER_SVG_ACTIONS = 5 /* ABI 1.2, render_choices only: the SVG of
                            CAS_RENDER_SVG with every element a player may
                            click marked with the choices it narrows to
                            (docs/abi.md, "Click to play").  The host asks
                            it only of a plugin built for 1.2 or later; a
                            plugin that marks nothing returns CAS_EINVAL */
};

/* Purposes for serialize(); 1.0 defines only the full state. */
enum cas_serial_purpose {
    CAS_SERIAL_FULL = 1 /* everything, hidden information included */
};

/* A source of uniform random numbers the host lends for one call (ABI 1.1):
 * a plugin that must draw (a determinization) asks it instead of keeping a
 * generator, so the draws are the host's seeded ones and replay exactly. */
struct cas_rng {
    size_t struct_size;
    void *ctx;
    /* Uniform in [0, n), n > 0. */
    uint64_t (*below)(void *ctx, uint64_t n);
};

/* What `castellan bench --floor` hands a game's bench_floor (1.1): play
 * `games` games of the bare loop the plugin's README describes, drawing
 * every random number from the host through rng. */
struct cas_floor_run {
    size_t struct_size;
    int games;                  /* in                                      */
    const struct cas_rng *rng;  /* in: the only randomness the loop uses   */
    uint64_t steps;     /* out: random decisions taken (draws, choices)    */
    uint64_t checksum;  /* out: a digest of the boards, so no work can be
                           optimised away and two runs can be compared    */
};

/* ABI 1.4: what render_since is asked, and what it answers (docs/abi.md
 * "ABI 1.4: pictures relative to the last").  Filled by the host; the
 * plugin reads a field added after 1.4 only when CAS_HAS_FIELD says the
 * host knew it. */
struct cas_render_since {
    size_t struct_size;
    int viewer;                      /* as render's                          */
    enum cas_render_format format;   /* CAS_RENDER_SVG, or CAS_RENDER_SVG_ACTIONS
                                        with the decision's actions below    */
    const cas_action *actions;       /* SVG_ACTIONS: as render_choices'      */
    size_t n;
    const struct cas_writer *out;
    /* in: the stamp this entry returned with the picture the host holds
     * for this viewer, byte for byte (see below); NULL (since_len 0): none,
     * draw the whole picture */
    const unsigned char *since;
    size_t since_len;
    /* out: the stamp of the picture written now, at most stamp_cap bytes
     * into stamp; stamp_len 0 (the host's value on entry): none, so the
     * next picture is drawn whole */
    unsigned char *stamp;
    size_t stamp_cap;
    size_t stamp_len;
    /* ---- ABI 1.5 */
    /* in: nonzero when the host takes a run of kept elements as one
     * placeholder, <g data-cas-key="KEY" data-cas-same="N"/> (below);
     * read it only when CAS_HAS_FIELD(req, struct cas_render_since, runs) */
    int runs;
};

/* The room a host gives a stamp (stamp_cap): at least this many bytes. */
#define CAS_RENDER_STAMP_MIN 256

/* The element a keyed picture writes, under render_since, in place of one
 * that is byte for byte the element of the same key in the picture of the
 * stamp `since` (docs/abi.md): exactly
 * <g data-cas-key="KEY" data-cas-same=""/>
 * and, where the host takes runs (ABI 1.5, req->runs), in place of N
 * elements that follow one another in that picture from the one keyed KEY
 * on, each byte for byte as there with the same text between them:
 * <g data-cas-key="KEY" data-cas-same="N"/> (N in decimal, 1 to
 * CAS_SAME_RUN_MAX, no leading zero). */
#define CAS_SAME_ATTR "data-cas-same"
#define CAS_SAME_RUN_MAX 99999999

/* The game vtable.  Unless stated otherwise every pointer argument must be
 * non-NULL, handles are used by one thread at a time, and two handles never
 * share mutable state (two games side by side in one process must work). */
/* ABI 1.1: a parsed JSON value, as the host hands a foreign record to
 * import_foreign.  Plain data, owned by the host. */
enum cas_json_type {
    CAS_JSON_NULL, CAS_JSON_FALSE, CAS_JSON_TRUE, CAS_JSON_NUMBER,
    CAS_JSON_STRING, CAS_JSON_ARRAY, CAS_JSON_OBJECT
};

struct cas_json {
    enum cas_json_type type;
    /* STRING: the decoded UTF-8 text; NUMBER: the literal as written.
     * NUL-terminated; NULL for the other types. */
    const char *text;
    size_t len;
    const char *key;              /* member name inside an object, else NULL */
    const struct cas_json *items; /* ARRAY elements or OBJECT members */
    size_t n;
    size_t line, offset;          /* where the value starts: 1-based line, byte */
};

struct cas_game_vtable {
    size_t struct_size;

    /* Create a game (rules, tile sets, expansions) from validated params.
     * host must outlive the game.  On CAS_EOPTION *bad_option is the index
     * of the offending value in params->options or, counting on past those,
     * in the expansions' options taken in order (bad_option may be NULL).  On
     * failure *out is NULL and host->set_error has explained why.
     * The caller owns *out and frees it with game_free. */
    int (*game_new)(const struct cas_host *host,
                    const struct cas_game_params *params, cas_game **out,
                    size_t *bad_option);
    void (*game_free)(cas_game *game); /* NULL is fine */

    /* A fresh state at the start of the game.  Caller owns *out (state_free).
     * A state must not outlive its game. */
    int (*state_new)(const cas_game *game, cas_state **out);
    void (*state_free)(cas_state *state); /* NULL is fine */
    /* Independent deep copy; caller owns *out. */
    int (*state_clone)(const cas_state *state, cas_state **out);
    /* Overwrite dst with src (same game), reusing dst's memory: the cheap
     * path for playouts. */
    int (*state_copy)(cas_state *dst, const cas_state *src);

    /* Whose decision it is: player index, CAS_ACTOR_CHANCE or
     * CAS_ACTOR_TERMINAL. */
    int (*current)(const cas_state *state);

    /* Legal actions of the current actor, sorted ascending and unique, into
     * buf[0..cap).  *count receives how many there are; if more than cap,
     * returns CAS_ENOSPC with *count the size needed.  Never empty unless the
     * state is terminal (then *count = 0).  At a chance node this lists the
     * outcomes' actions, as chance_outcomes does. */
    int (*legal_actions)(const cas_state *state, cas_action *buf, size_t cap,
                         size_t *count);

    /* At a chance node: each outcome with its weight, sorted by action.
     * Same buffer protocol as legal_actions.  CAS_EINVAL elsewhere. */
    int (*chance_outcomes)(const cas_state *state, struct cas_outcome *buf,
                           size_t cap, size_t *count);

    /* Apply a legal action of the current actor (or chance outcome).
     * events may be NULL.  CAS_EILLEGAL leaves the state unchanged. */
    int (*apply)(cas_state *state, cas_action action,
                 const struct cas_event_sink *events);

    /* Canonical text of an action legal in this state, NUL-terminated into
     * buf[0..cap).  Returns the text length (without NUL) or a negative
     * code; CAS_ENOSPC when cap is too small.  Text never contains a newline
     * and parse_action(state, text) gives back the same code. */
    int (*action_text)(const cas_state *state, cas_action action, char *buf,
                       size_t cap);
    /* Parse canonical text into a legal action of this state.  CAS_EPARSE
     * for text that names nothing, CAS_EILLEGAL for a well-formed action
     * that is not legal now; both explain via host->set_error. */
    int (*parse_action)(const cas_state *state, const char *text,
                        cas_action *out);

    /* Scores so far (final ones when terminal) into scores[0..nplayers).
     * A terminal game's winners are the players with the highest return. */
    int (*returns)(const cas_state *state, int64_t *scores, size_t n);

    /* Serialize into buf[0..cap); *len gets the size written, or the size
     * needed with CAS_ENOSPC.  The bytes start with the plugin's encoding
     * version (state_encoding below). */
    int (*serialize)(const cas_state *state, enum cas_serial_purpose purpose,
                     uint8_t *buf, size_t cap, size_t *len);
    /* Rebuild a state of this game from serialize()d bytes, validating them:
     * CAS_EVERSION for an unknown encoding, CAS_ECORRUPT for damaged data.
     * Caller owns *out. */
    int (*deserialize)(const cas_game *game, const uint8_t *buf, size_t len,
                       cas_state **out);
    uint32_t state_encoding; /* current encoding version serialize writes */

    /* 64-bit hash of the whole state (hidden information included); equal
     * states hash equal across clone, serialize/deserialize and processes. */
    uint64_t (*hash)(const cas_state *state);

    /* Render what `viewer` may see, never more (hidden hands, draw order).
     * CAS_RENDER_JSON is the viewer's observation for agents. */
    int (*render)(const cas_state *state, int viewer,
                  enum cas_render_format format, const struct cas_writer *out);

    /* Display name of a player seat ("Red"), for events and renders. */
    const char *(*player_label)(const cas_game *game, int player);

    /* ---- ABI 1.1, optional: NULL (or a shorter struct_size) means absent.
     * Readers check CAS_HAS_FIELD first. */

    /* Hidden state: overwrite `out` (a state of the same game) with a state
     * that `viewer` (a player index) cannot tell apart from `state`, its
     * hidden part (others' hands, the order of a pile) drawn through rng
     * with the odds the viewer's knowledge gives.  It must be a function of
     * what viewer may see and of rng only: never of the hidden part of
     * `state`.  Search bots sample these to play without peeking.  A plugin
     * whose states hide nothing but future chance leaves it NULL. */
    int (*determinize)(const cas_state *state, int viewer, const struct cas_rng *rng,
                       cas_state *out);

    /* The scores the game would end with if no one acted any more (e.g.
     * Carcassonne's final scoring of unfinished features), into
     * scores[0..nplayers); on a terminal state the returns themselves.
     * Search bots score the playouts they stop early with it, so it uses
     * only what every player may see.  CAS_EINVAL where the game defines
     * none. */
    int (*projected_returns)(const cas_state *state, int64_t *scores, size_t n);

    /* Render the decision in front of `viewer` for a person choosing among
     * actions[0..n) (the legal actions, in legal_actions order): what
     * render() shows, with the piece or card being played drawn out (a
     * drawn tile in each of its rotations) and choice number i+1 marked
     * where actions[i] would put it, wherever the game can show that.  The
     * host lists the numbered actions itself after this text.  TEXT must
     * read without colour; ANSI may add colour, never meaning.  NULL: the
     * host shows render(). */
    int (*render_choices)(const cas_state *state, int viewer,
                          enum cas_render_format format, const cas_action *actions,
                          size_t n, const struct cas_writer *out);
    /* How this game's actions are written, for a player's `help`: a few
     * plain-text lines (at most 80 columns), each ending in a newline. */
    int (*notation_help)(const cas_game *game, const struct cas_writer *out);

    /* Also 1.1 and optional (the host takes the generic path without them). */

    /* Chance without a listing: at a chance node, the total weight of the
     * outcomes chance_outcomes would list (0 elsewhere).  With chance_pick
     * the host draws a ticket uniform in [0, total) and asks for its
     * outcome, instead of listing and walking the weights: same
     * distribution, same outcome for the same ticket, same journal text. */
    uint64_t (*chance_total)(const cas_state *state);
    /* The outcome `ticket` (0 <= ticket < chance_total) falls on when the
     * outcomes, in chance_outcomes' order, each cover `weight` consecutive
     * tickets from 0 up.  A pure function of the state (a clone or a
     * deserialized copy answers the same).  CAS_EINVAL outside a chance
     * node or for a ticket out of range.  Needs chance_total. */
    int (*chance_pick)(const cas_state *state, uint64_t ticket, cas_action *out);

    /* The bare reference loop of `castellan bench --floor`: the least work
     * any engine of this game must do, without its full rules, built from
     * the same game data (the README of the plugin says what it does).
     * Never called in play; CAS_OK or a negative code. */
    int (*bench_floor)(const cas_game *game, struct cas_floor_run *run);

    /* Convert a record of another program into a castellan game record
     * (docs/saves.md), written to out: the header lines (a `Game` and each
     * `Expansion` with version `0`, which the host replaces with the
     * installed versions; `Seed`, `Player`s) and one hash-free action line
     * per action, each after a comment `# line N` naming the line of the
     * foreign file it comes from (errors then point there).  The host
     * replays a player's action as the game's current player's, whatever
     * actor the line gives (the foreign turn order may differ: a bonus
     * turn).  `format` names the foreign format ("jcz": JCloisterZone), doc
     * is its parsed JSON, owned by the host and valid during the call.
     * No game exists yet: host is only for set_error, allocation and
     * data_dir.  CAS_ENOTFOUND for a format this plugin does not read
     * (quietly); CAS_EPARSE or CAS_EVERSION for a record it cannot convert,
     * explained via host->set_error naming the JSON path, the value and
     * the fix.  The host then imports the text as any hash-free record, so
     * legality is checked there. */
    int (*import_foreign)(const struct cas_host *host, const char *format,
                          const struct cas_json *doc, const struct cas_writer *out);

    /* ---- ABI 1.2, optional. */

    /* One legal action of the current player, drawn through rng with the
     * same distribution as a uniform pick from legal_actions, without
     * listing them all: the fast path of random agents and playouts.  A
     * pure function of the state and of what rng returns.  CAS_EINVAL at a
     * chance node or a terminal state (chance has chance_pick). */
    int (*random_action)(const cas_state *state, const struct cas_rng *rng,
                         cas_action *out);

    /* ---- ABI 1.4, optional. */

    /* The picture render (CAS_RENDER_SVG) or render_choices
     * (CAS_RENDER_SVG_ACTIONS) writes, keyed (docs/abi.md "Keyed
     * pictures"), except that each top-level element the plugin can tell
     * is byte for byte the element of the same key in the picture req->since
     * was returned with may be written as the placeholder
     * <g data-cas-key="KEY" data-cas-same=""/>, in its place (ABI 1.5: a
     * run of them as one, where req->runs says the host takes it; see
     * CAS_SAME_ATTR).  The host
     * puts the previous element's bytes there, so the picture it holds is
     * the whole one, byte for byte.  The host passes since only for the
     * same game and viewer, with the picture it was returned with, and
     * never after taking a move back; the plugin must still check what it
     * relies on (a stamp that does not fit the state: draw whole).  Writes
     * the new picture's stamp (req->stamp, up to stamp_cap bytes,
     * stamp_len) or none.  Returns what render or render_choices would;
     * CAS_EINVAL for a format it does not draw this way. */
    int (*render_since)(const cas_state *state, struct cas_render_since *req);
};

/* --------------------------------------------------------- descriptor */

enum cas_plugin_kind { CAS_KIND_GAME = 1, CAS_KIND_EXPANSION = 2 };

/* What cas_plugin_entry returns: static, const, valid while loaded. */
struct cas_plugin {
    size_t struct_size;
    uint16_t abi_major, abi_minor; /* CAS_ABI_MAJOR, CAS_ABI_MINOR built with */
    uint32_t fingerprint;          /* CAS_BUILD_FINGERPRINT                 */
    const char *id;                /* must equal the manifest's id          */
    const char *version;           /* must equal the manifest's version     */
    enum cas_plugin_kind kind;
    const char *extends;           /* expansions: the game id; games: NULL   */
    int min_players, max_players;  /* expansions: max they allow, or 0      */
    const struct cas_option_spec *options;
    size_t n_options;
    const struct cas_game_vtable *game; /* games only; NULL for expansions */
    /* Expansions only: the descriptor of the game's own extension ABI
     * (e.g. struct cas_carc_expansion), opaque to the host. */
    const void *extension;
};

typedef const struct cas_plugin *(*cas_plugin_entry_fn)(void);

#ifdef __cplusplus
}
#endif
#endif /* CASTELLAN_PLUGIN_H */
