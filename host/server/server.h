/*
 * server.h — castellan serve (host-internal): many games hosted at once
 * over HTTP and WebSocket on one libwebsockets event loop.  The parts:
 *
 *   jsonw.c     a JSON writer with careful escaping (messages out)
 *   protocol.c  decoding a client's message into a request (messages in)
 *   table.c     one hosted game: session, seats and tokens, clocks, viewers
 *   message.c   the state and update messages, built once per viewer
 *   picture.c   a picture's keyed elements and its changes between plies
 *   lobby.c     every table of the server: create, claim, list, restore
 *   bots.c      bot decisions on threads, results posted back to the loop
 *   http.c      the libwebsockets glue: HTTP files, WebSocket connections,
 *               send queues and limits
 *
 * The wire protocol is docs/server.md's "Protocol".  Everything but bots.c's
 * threads runs on the loop thread.
 */
#ifndef CAS_HOST_SERVER_H
#define CAS_HOST_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include <castellan/plugin.h>

#include "agent.h"
#include "journal.h"
#include "revive.h"
#include "saves.h"

/* ---------------------------------------------------------- JSON out */

/* A message being written: LWS_PRE bytes of room before the text, so the
 * buffer goes to lws_write as it is.  A failed allocation sets failed and
 * makes every later call a no-op. */
struct cas__jw {
    char *buf;
    size_t len, cap;   /* len counts the text only */
    int failed;
};

void cas__jw_init(struct cas__jw *w);
void cas__jw_free(struct cas__jw *w);
/* Append text as it is (the caller's JSON). */
void cas__jw_raw(struct cas__jw *w, const char *text);
void cas__jw_rawn(struct cas__jw *w, const char *text, size_t n);
void cas__jw_printf(struct cas__jw *w, const char *fmt, ...) CAS_PRINTF(2, 3);
/* Append a JSON string of text[0..n) ("null" for NULL): quotes, backslash
 * and control characters escaped, bytes that are not UTF-8 replaced by
 * U+FFFD, and "</" written "<\/" so a page may embed it. */
void cas__jw_strn(struct cas__jw *w, const char *text, size_t n);
void cas__jw_str(struct cas__jw *w, const char *text);
/* The text written so far (NUL-terminated; "" after a failure). */
const char *cas__jw_text(const struct cas__jw *w);

/* A finished message, shared by every connection it is queued on. */
struct cas__srv_msg {
    int refs;
    size_t len;
    char *data;        /* LWS_PRE bytes, then len bytes of text */
};

/* Take w's text as a message with one reference (w is emptied); NULL when
 * w failed or memory ran out. */
struct cas__srv_msg *cas__srv_msg_take(struct cas__jw *w);
void cas__srv_msg_unref(struct cas__srv_msg *msg); /* NULL is fine */

/* ---------------------------------------------------------- pictures */

/* One keyed top-level element of a picture: offsets into its svg. */
struct cas__pic_part {
    size_t key, key_len;     /* the data-cas-key value */
    size_t at, len;          /* the whole element */
};

/* A plugin's SVG cut into its keyed top-level elements (docs/abi.md
 * "Keyed pictures"). */
struct cas__picture {
    char *svg;               /* owned; NULL: no picture */
    size_t len;
    int keyed;               /* every top-level element keyed, keys unique */
    size_t root_at, root_len;/* the root <svg ...> start tag */
    struct cas__pic_part *parts;
    size_t n;
    size_t *sorted;          /* parts' indices in key order */
};

/* Take svg[0..len) (malloc'd; NULL: none) as pic, cut when it is keyed.
 * Never fails: an unkeyed or malformed picture is kept whole. */
void cas__picture_take(struct cas__picture *pic, char *svg, size_t len);
void cas__picture_free(struct cas__picture *pic);
/* Write the changes from old to new as a JSON object
 * {"root":..?,"put":[[key,after,svg],...],"remove":[key,...]} into w
 * (docs/server.md "Picture changes"); -1 (nothing written) when either is
 * not keyed and the picture must go whole. */
int cas__picture_diff(const struct cas__picture *old, const struct cas__picture *new,
                      struct cas__jw *w);

/* ---------------------------------------------------------- requests */

enum cas__req_type {
    CAS__REQ_HELLO, CAS__REQ_LOBBY, CAS__REQ_CREATE, CAS__REQ_CLAIM, CAS__REQ_JOIN,
    CAS__REQ_LEAVE, CAS__REQ_ACT, CAS__REQ_UNDO, CAS__REQ_HINT, CAS__REQ_PING,
    CAS__REQ_AUTOPASS, CAS__REQ_LEAVER
};

#define CAS__REQ_MAX_SEATS 16
#define CAS__REQ_MAX_LIST 64

struct cas__req_seat {
    const char *name;  /* NULL: "Player N" */
    const char *agent; /* "human", "open" or a bot spec */
};

/* A decoded request.  Strings point into the parsed tree, owned here. */
struct cas__req {
    enum cas__req_type type;
    char id[80];            /* the request's "id" as JSON text, "" if none */
    int64_t game;           /* 0: absent */
    int64_t resume;         /* create: an unfinished saved game to host */
    int seat;               /* -1: absent */
    int64_t ply;            /* -1: absent */
    int64_t since;          /* join: the last message seen, -1: absent */
    size_t bytes;           /* the message's length */
    int text;               /* join: the text view wanted too */
    const char *token, *name, *action, *preset, *game_id, *seed;
    const char *choice;     /* leaver: "claim" or "bot" */
    const char *expansions[CAS__REQ_MAX_LIST];
    size_t n_expansions;
    const char *rules[CAS__REQ_MAX_LIST][2];   /* key, value */
    size_t n_rules;
    struct cas__req_seat seats[CAS__REQ_MAX_SEATS];
    size_t n_seats;
    int has_clock;
    int64_t base_ms, increment_ms;
    int on;                 /* autopass: the seat's choice */
    int practice;           /* create: a practice game (may choose its seed) */
    struct cas_json *root;  /* owned */
};

/* Decode one message text[0..len).  On success *out holds the request
 * (cas__req_free).  On failure returns a negative code, out->id holds the
 * request's id if it could be read, and code (an error code of the
 * protocol: "bad-message", "unknown-type") and msg explain; nothing is
 * left to free. */
int cas__req_decode(const char *text, size_t len, struct cas__req *out,
                    const char **code, char *msg, size_t msglen);
void cas__req_free(struct cas__req *req);

/* Write {"type":"error","id":ID,"code":CODE,"message":MSG} into w. */
void cas__req_error(struct cas__jw *w, const char *id, const char *code, const char *msg);

/* ---------------------------------------------------------- the clock */

/* The server's only timekeeper: milliseconds on a monotonic clock.  Tests
 * give their own. */
struct cas__srv_clock {
    int64_t (*now_ms)(void *ctx);
    void *ctx;
};

/* ------------------------------------------------------------ limits */

struct cas__srv_limits {
    size_t max_message;      /* bytes of one incoming message */
    size_t max_queue;        /* bytes queued to one slow connection */
    size_t max_send;         /* bytes queued to every connection together */
    unsigned max_games;      /* live games: finished ones do not count */
    unsigned keep_finished;  /* finished games kept in memory for their viewers */
    unsigned max_connections; /* TCP connections; 0: as many as the open-file
                                 limit allows, at most CAS__DEFAULT_MAX_CONNECTIONS */
    double rate, burst;      /* messages per second per connection, bucket */
    unsigned bot_threads;
};

void cas__srv_limits_default(struct cas__srv_limits *l);

/* ------------------------------------------------------------ tokens */

/* A token: 128 random bits as 32 hex digits.  A hash: SHA-256 as 64. */
#define CAS__TOKEN_LEN 32
#define CAS__HASH_LEN 64
/* The secret beside a drawn seed in its commitment: 128 random bits. */
#define CAS__SEED_NONCE_BYTES 16

/* n_bytes (<= 64) random bytes from getrandom(2) as 2 * n_bytes hex digits
 * into buf.  CAS_EIO when the kernel has no randomness to give. */
int cas__random_hex(char *buf, size_t n_bytes);
/* A fresh token into buf.  CAS_EIO as cas__random_hex. */
int cas__token_new(char buf[CAS__TOKEN_LEN + 1]);
/* The lowercase hex SHA-256 of text's bytes into out: what the store keeps
 * of a token (saves/schema.c's migration 4 computes the same). */
int cas__sha256_hex(const char *text, char out[CAS__HASH_LEN + 1]);
/* Whether the token a client presented (NULL: none) hashes to hash; the
 * hashes are compared in constant time. */
int cas__token_matches(const char *hash, const char *presented);

/* The clear tokens of a game's seats, made for its creator (or a seat's
 * claimer) and handed out once: the server keeps only their hashes.  By
 * seat; "" for a seat that has none (a bot). */
struct cas__invites {
    size_t n;
    char (*token)[CAS__TOKEN_LEN + 1];
};

/* Wipe and free the tokens; a zeroed struct is fine. */
void cas__invites_free(struct cas__invites *inv);
/* A fresh token for each of n seats: the clear ones into *inv, their
 * hashes into served->seats (allocated here; served->n_seats = n; open 0).
 * On failure both are freed.  CAS_ENOMEM, CAS_EIO (no randomness). */
int cas__invites_mint(struct cas__invites *inv, size_t n, struct cas__saves_served *served);

/* ------------------------------------------------------ connections */

struct cas__table;

/* One client connection as the lobby and the tables see it; the
 * transport (http.c, or a test) embeds it and delivers what send gets. */
struct cas__conn {
    /* Queue msg to the client, taking a reference of it. */
    void (*send)(struct cas__conn *c, struct cas__srv_msg *msg);
    struct cas__table *table;      /* the game followed, or NULL */
    int seat;                      /* the seat acted for, -1 watching */
    int fresh;                     /* joined: owed a full state or a resume */
    int64_t since;                 /* the message it resumes after, -1: none */
    int text;                      /* wants the text view */
    int lobby;                     /* subscribed to the lobby */
    struct cas__conn *next_viewer; /* in its table's list */
    struct cas__conn *next_sub;    /* in the lobby's subscribers */
    struct cas__waiting *waiting;  /* its requests waiting for a busy table */
};

/* Send w's text to c (w is emptied; nothing on a failed w). */
void cas__conn_send_jw(struct cas__conn *c, struct cas__jw *w);

/* --------------------------------------------------------- the tables */

struct cas__lobby;

/* One event of the game's log. */
struct cas__srv_event {
    uint32_t ply;
    int player;          /* the actor when it was emitted; -1 chance */
    int visible_to;
    char *text;          /* owned */
};

/* A seat's action as the game's notation, for the next update. */
struct cas__played {
    uint32_t ply;
    int player;
    char *text;          /* owned */
};

#define CAS__VIEW_HISTORY 16
#define CAS__VIEW_HISTORY_BYTES (256u << 10)

/* What one viewer of a table (a seat, or every watcher: the public view)
 * was sent, shared by all its connections: rendered once per message.
 * When its last connection leaves it goes on for CAS__VIEW_HISTORY more
 * messages (so a page that lost its connection resumes from the history)
 * and is released then. */
struct cas__view {
    unsigned conns;                /* connections following as this viewer */
    unsigned orphaned;             /* messages built since the last one left */
    uint64_t seq;                  /* the message pic belongs to; 0: none */
    struct cas__picture pic;
    int marked;
    size_t events_sent, events_epoch;
    /* The last updates, each a continuation of the one before: message
     * seq - k at history[(seq - k) % N] for k < n_history. */
    struct cas__srv_msg *history[CAS__VIEW_HISTORY];
    size_t n_history, history_bytes;
    struct cas__srv_msg *full;     /* the full state at full_seq */
    uint64_t full_seq;
    struct cas__srv_msg *text;     /* the text view at text_seq */
    uint64_t text_seq;
    /* What its connections are owed, noted by the loop before a job builds
     * the messages (cas__table_plan): an update (some follow), a full
     * state (some joined afresh; need_full: one resumes from nothing,
     * else they resume after since_lo..since_hi), the text view. */
    int follow, fresh, need_full, want_text;
    uint64_t since_lo, since_hi;
};

struct cas__seat {
    char token_hash[CAS__HASH_LEN + 1]; /* the token's SHA-256; "" none */
    int open;            /* anyone may claim it */
    int bot;             /* a bot decides for it */
    char *agent;         /* "human" or the bot's spec; owned */
    struct cas__agent *brain; /* the bot's agent; owned; NULL for humans */
    int64_t clock_ms;    /* remaining time; meaningful with a clock */
    int connected;       /* connections acting for it */
    int joined;          /* someone has joined as this seat since it was hosted */
    int manual_pass;     /* the seat clicks its own forced passes (autopass off) */
    int64_t left_at;     /* when its last connection went (server clock, ms) */
};

/* A seat gone this long at its turn may be claimed or given to a bot by
 * the others (docs/server.md, "Clocks"); the bot that takes it. */
#define CAS__LEAVER_GRACE_MS 60000
#define CAS__LEAVER_BOT "greedy"

/* A request that came for a table the pool holds: it waits, in order,
 * and is handled once the table is free (offload.c).  A connection of a
 * seat that closed meanwhile leaves its count to be settled here too. */
struct cas__waiting {
    struct cas__req req;           /* owned (its parsed message) */
    struct cas__conn *conn;        /* NULL once it closed */
    int left_seat;                 /* left: the seat a closed connection acted for */
    int left;
    size_t bytes;
    struct cas__table *table;      /* whose inbox it is in */
    struct cas__waiting *next;     /* in the table's inbox */
    struct cas__waiting *next_of_conn;
};

struct cas__table_job;

/* While a job of the pool has a table (held), the loop touches none of
 * its fields but these: requests for it wait in the inbox, its lobby
 * entry is the one written when it was last free, its viewer list only
 * loses closed connections (the counts settle when it is free). */
struct cas__hold {
    int held;
    int running;                   /* (the job's) it runs now, on a pool thread */
    struct cas__table_job *job;    /* the job in the pool, if held */
    struct cas__waiting *inbox, **inbox_tail;
    size_t n_waiting, waiting_bytes;
    char *listing;                 /* owned: its lobby entry when last free */
    /* Kept by the jobs: a bot's decision to hand the pool once the job is
     * delivered (t->busy), and whether the last job built an update. */
    struct cas__decision bot;
    int built_update;
    int actor;                     /* whose decision it is, as last asked */
    int news;                      /* the lobby's listing changed (lobby_dirty) */
};

struct cas__table {
    struct cas__lobby *lobby;
    int64_t id;                    /* the game's row in the store */
    struct cas__saves_game saved;  /* owned: what revive replays */
    struct cas__revived r;         /* match, session and plan */
    struct cas__agent **proxies;   /* owned: the session's agents */
    struct cas__seat *seats;       /* owned, one per player */
    int nplayers;
    struct cas__journal j;
    /* The decision being applied: what the proxy agents hand the session. */
    cas_action pending;
    int pending_undo;
    int applying_actor;            /* for the events emitted meanwhile */
    /* Clock: base and increment (has_clock), when the actor's turn began. */
    int has_clock;
    int64_t base_ms, increment_ms, turn_started;
    int flagged;                   /* seat whose flag fell, -1 */
    int clock_running;             /* every human seat has joined (docs/server.md) */
    int forfeit;                   /* flagged left and the others claimed the game */
    int leaver_shown;              /* 1 + the leaver the viewers know of, 0: none */
    /* Fair draws (docs/server.md): a practice game shows its seed; another
     * publishes seed_commitment, the SHA-256 of seed_reveal ("SEED:NONCE"),
     * and shows the reveal once it is over.  "" where there is none. */
    int practice;
    char seed_reveal[24 + 1 + 2 * CAS__SEED_NONCE_BYTES + 1];
    char seed_commitment[CAS__HASH_LEN + 1];
    /* A bot decides on a thread: nothing touches the match meanwhile. */
    int busy;
    struct cas__actions bot_legal; /* owned: the bot's decision's list */
    struct cas__agent *hint;       /* owned; made at the first hint */
    char origin[32];               /* "game 7", for revive's messages */
    struct cas__srv_event *events; /* owned log */
    size_t n_events, cap_events;
    size_t events_reset;           /* bumped by an undo: logs are resent */
    struct cas__conn *viewers;     /* connections following the game */
    struct cas__view *views;       /* owned: nplayers seats, then the public */
    uint64_t seq;                  /* the last message number */
    struct cas__played *played;    /* owned: seats' actions since the last */
    size_t n_played, cap_played;
    int dirty;                     /* an update is owed to the viewers */
    int joined;                    /* a connection is owed a full state */
    int over;
    int claimed;                   /* holds the store's claim on the game */
    /* The store was unavailable (its database away) when an action or the
     * result was to be saved: the action, applied but not acknowledged,
     * waits (text owned; NULL: none) with the game, and is saved by
     * cas__table_retry_store once the store is back; while it waits, and
     * while the store is away, moves are refused (`unavailable`).  A timed
     * game's clock does not run while the store is away (away_since);
     * viewers get the state again when it is back after a refusal
     * (refused_away), to play the refused move again. */
    struct {
        char *text;
        uint32_t ply;
        int actor;
        uint64_t hash;
        int64_t clock_ms;
    } unsaved;
    int result_unsaved, store_away, refused_away;
    int64_t away_since;
    char failure[512];             /* why the table stopped, "" if fine */
    struct cas__table *next;       /* in the lobby */
    struct cas__table *next_same_hash; /* in the lobby's index by id */
    struct cas__table *next_finished;  /* in the lobby's finished, oldest first */
    int counted_over;              /* the lobby has counted it finished */
    struct cas__hold hold;         /* the pool's hold on it (offload.c) */
};

/* Which saved games started at the terminal (not by a server) the server
 * may host and show (serve --host-saved): all, or the n listed. */
struct cas__host_saved {
    int all;
    int64_t *ids;
    size_t n;
};

/* Parse --host-saved's value, "all" or "ID[,ID...]", into *out (ids
 * owned by the caller: free(out->ids)).  On a mistake CAS_EINVAL with err
 * naming it. */
int cas__host_saved_parse(const char *spec, struct cas__host_saved *out, char *err,
                          size_t errlen);

/* The lobby: every table of the server, the store and the plugins. */
struct cas__lobby {
    struct cas__saves *store;          /* borrowed */
    struct cas__registry *reg;         /* owned */
    struct cas__strlist path;          /* owned: the plugin search path */
    struct cas__isolation isolation;   /* as play's --isolated/--in-process */
    struct cas__srv_clock clock;
    struct cas__srv_limits limits;
    struct cas__table *tables;
    size_t n_tables;                   /* in memory: live, and the last finished */
    struct cas__table **by_id;         /* owned: an index of tables, hashed by id */
    size_t by_id_cap;                  /* buckets, a power of two */
    /* Finished tables still in memory (their players see the result, a
     * reload finds it), oldest first; past limits.keep_finished the oldest
     * leaves memory (its replay stays in the store). */
    struct cas__table *finished, *finished_last;
    size_t n_finished;
    struct cas__bots *bots;            /* NULL: bots decide inline (tests) */
    /* The pool for worker-isolated games' jobs (NULL: l->bots takes them):
     * their plugin calls may take seconds each, and must not hold the
     * threads the games in process need. */
    struct cas__bots *isolated_pool;
    size_t waiting_bytes;              /* requests waiting for held tables */
    struct cas__conn *subs;            /* subscribed to the lobby */
    /* Terminal games the user lets the server host (NULL: none);
     * borrowed, must outlive the lobby. */
    const struct cas__host_saved *host_saved;
    int lobby_dirty;
    char *preset_dir;                  /* owned; NULL: no presets */
    /* A shared store (PostgreSQL, several servers): when the lobby last
     * looked for games whose server is gone, and the ids it could not
     * bring back (not tried again; owned). */
    int64_t adopted_at;
    int64_t *unrestorable;
    size_t n_unrestorable;
};

/* Open an empty lobby on store (borrowed; must outlive it) with the
 * plugins of the search path (plugin_path may be NULL) and the isolation
 * asked (NULL: auto, as play).  clock NULL: the real monotonic clock;
 * limits NULL: the defaults.  Set l->bots before tables are opened to let
 * bots think on threads.  Caller frees with cas__lobby_close. */
int cas__lobby_open(struct cas__lobby *l, struct cas__saves *store, const char *plugin_path,
                    const struct cas__isolation *iso, const struct cas__srv_clock *clock,
                    const struct cas__srv_limits *limits, char *err, size_t errlen);
/* Bring every unfinished served game back from the journal and go on with
 * it; a game that cannot be is reported on stderr and skipped, and one
 * another server on the same database plays is left to it.  CAS_EIO (err
 * explains) when the store cannot be read. */
int cas__lobby_restore_all(struct cas__lobby *l, char *err, size_t errlen);
/* On a shared store, at most once a second: take over and go on with the
 * unfinished served games no server holds (their server died); a no-op on
 * SQLite.  Called from the event loop. */
void cas__lobby_adopt_orphans(struct cas__lobby *l);
void cas__lobby_close(struct cas__lobby *l);

/* Handle one decoded request of connection c; replies go to c, changes
 * to every viewer concerned. */
void cas__lobby_handle(struct cas__lobby *l, struct cas__conn *c, struct cas__req *req);
/* A connection of seat (-1: a watcher) left held table t: its counts
 * settle now that t is free (offload.c). */
void cas__lobby_settle_leave(struct cas__table *t, int seat);
/* Write t's entry of the lobby listing ({"game":...}) into w. */
void cas__lobby_write_entry(struct cas__table *t, struct cas__jw *w);
/* c is gone: leave its table and the lobby's subscribers. */
void cas__lobby_disconnect(struct cas__lobby *l, struct cas__conn *c);
/* Send every state owed (tables marked dirty, the lobby). */
void cas__lobby_flush(struct cas__lobby *l);
/* Check every running clock against now: a flag that fell ends its game. */
void cas__lobby_check_clocks(struct cas__lobby *l);
struct cas__table *cas__lobby_find(struct cas__lobby *l, int64_t id);
/* Whether saved game id may be hosted and its replay shown: a game a
 * server created (or hosted before), or one l->host_saved lets it.
 * *practice (NULL: not asked) says whether it is a practice game. */
int cas__lobby_may_show(struct cas__lobby *l, int64_t id, int *practice);
/* Host table t (now l's) and let it go on: chance, bots. */
void cas__lobby_add(struct cas__lobby *l, struct cas__table *t);

/* How a new game is hosted beyond its session description. */
struct cas__table_params {
    int has_clock;
    int64_t base_ms, increment_ms;
    /* A practice game: the only kind whose seed its creator may choose
     * (desc->seed_given); otherwise the server draws the seed and commits
     * to it. */
    int practice;
    unsigned char open[CAS__REQ_MAX_SEATS]; /* seats anyone may claim */
};

/* Insert the game desc describes (validated against l's plugins, with its
 * seed or a fresh one) into the store as a served game and open its table
 * (not yet in the lobby's list: the caller links it).  *invites receives
 * the seats' clear tokens for the creator (caller frees with
 * cas__invites_free); the store keeps their hashes.  On failure code and
 * msg explain and nothing is stored. */
int cas__table_create_desc(struct cas__lobby *l, const struct cas__session_desc *desc,
                           const struct cas__table_params *params, struct cas__table **out,
                           struct cas__invites *invites, const char **code, char *msg,
                           size_t msglen);
/* Host unfinished saved game id (started at the terminal, say): a token
 * for each human seat into *invites (as cas__table_create_desc), then
 * opened as a restart would.  CAS_ENOTFOUND,
 * CAS_ECONFLICT (finished, or hosted already) with code and msg. */
int cas__table_adopt(struct cas__lobby *l, int64_t id, struct cas__table **out,
                     struct cas__invites *invites, const char **code, char *msg,
                     size_t msglen);
/* The same for a create request (docs/server.md). */
int cas__table_create(struct cas__lobby *l, const struct cas__req *req,
                      struct cas__table **out, struct cas__invites *invites,
                      const char **code, char *msg, size_t msglen);
/* Bring served game `id` back from the store. */
/* Claims the game in the store first (cas__saves_game_claim): CAS_ECONFLICT
 * when another server plays it.  The claim goes with cas__table_free. */
int cas__table_restore(struct cas__lobby *l, int64_t id, struct cas__table **out,
                       char *msg, size_t msglen);
void cas__table_free(struct cas__table *t);
/* Go on after a change: chance draws, bots start deciding; marks the
 * table dirty. */
void cas__table_advance(struct cas__table *t);
/* A bot's decision arrived: its move, in the bot's job (offload.c). */
void cas__table_bot_done(struct cas__table *t, int rc, cas_action action);
/* Send what t owes its connections, built off the loop: a job (offload.c)
 * when t changed or a connection joined; nothing while t is held. */
void cas__table_flush(struct cas__table *t);
/* (loop) Note in t's views what their connections are owed. */
void cas__table_plan(struct cas__table *t);
/* (job) Build what the plan says: an update to each view followed when t
 * changed (built once per viewer), the full state for those that joined
 * and cannot resume from the history, the text views. */
void cas__table_build(struct cas__table *t);
/* (loop) Send each connection what the last build made for it. */
void cas__table_send(struct cas__table *t);
/* The view of viewer seat (-1: public). */
struct cas__view *cas__table_view(struct cas__table *t, int seat);
/* Let go of everything view holds. */
void cas__view_release(struct cas__view *v);
/* Whether seat may take back its last decision now. */
int cas__table_can_undo(struct cas__table *t, int seat);
/* Whether the plugin may be asked for click-to-play marks (ABI >= 1.2). */
int cas__table_may_mark(const struct cas__table *t);
/* Act for seat: "act", "undo", "hint" requests; code/msg explain a refusal. */
int cas__table_act(struct cas__table *t, int seat, int64_t ply, const char *text,
                   const char **code, char *msg, size_t msglen);
int cas__table_undo(struct cas__table *t, int seat, const char **code, char *msg, size_t msglen);
int cas__table_hint(struct cas__table *t, int seat, struct cas__jw *w, const char *id,
                    const char **code, char *msg, size_t msglen);
/* Write seat i's opening fields: {"seat":..,"name":..,"agent":..,"open":..,
 * "connected":.. without the closing brace (a comma before all but the
 * first). */
void cas__table_write_seat(const struct cas__table *t, int i, struct cas__jw *w);
/* Whether token is seat's (its hash compared in constant time). */
int cas__table_token_ok(const struct cas__table *t, int seat, const char *token);
/* The flag of the actor fell when now is past its time. */
void cas__table_check_clock(struct cas__table *t, int64_t now);
/* A connection joined as `seat`: the clocks start once every human seat
 * has (docs/server.md, "Clocks"). */
void cas__table_seat_joined(struct cas__table *t, int seat);
/* How long the deciding seat's turn has run by `now`: 0 while the clock
 * waits for every human seat. */
int64_t cas__table_turn_elapsed(const struct cas__table *t, int64_t now);

/* The deciding seat if it has been gone past the grace (the others may
 * then let a bot take it or claim the game), else -1. */
int cas__table_gone(struct cas__table *t, int64_t now);
/* The seat's choice: a decision whose only legal action is "pass" is
 * played for it (on, the default) or waits for its click. */
void cas__table_set_autopass(struct cas__table *t, int seat, int on);
/* The seat's last connection went: the grace for leavers starts. */
void cas__table_seat_left(struct cas__table *t, int seat);
/* `seat`'s choice about the seat to move that left (state "leaver"):
 * "claim" ends the game with it ranked last, "bot" gives it to a bot. */
int cas__table_leaver(struct cas__table *t, int seat, const char *choice, const char **code,
                      char *msg, size_t msglen);
/* Save what waits for the store (an action, the result) if it is back,
 * and go on with the game. */
void cas__table_retry_store(struct cas__table *t);
/* Whose decision it is: a seat, CAS_ACTOR_CHANCE or CAS_ACTOR_TERMINAL. */
int cas__table_actor(struct cas__table *t);

/* -------------------------------------------------------- offload.c */

/* A table's work for the pool: a seat's request, a bot's decision and
 * move, going on (chance, bots) after it is hosted, the clock's tick
 * (the flag, the store back), or only the messages owed. */
enum cas__op { CAS__OP_SEAT, CAS__OP_BOT, CAS__OP_ADVANCE, CAS__OP_TICK, CAS__OP_FLUSH };

/* Requests that may wait for one held table, their bytes, and for all. */
#define CAS__WAITING_PER_TABLE 64
#define CAS__WAITING_BYTES (1u << 20)
#define CAS__WAITING_BYTES_ALL (64u << 20)
/* Threads for the worker-isolated games' jobs. */
#define CAS__ISOLATED_THREADS 8

/* Do op for t as a job of the pool (t held until it is delivered); without
 * a pool, here and now. */
void cas__offload(struct cas__table *t, enum cas__op op);
/* Seat c->seat's request (act, undo, hint, autopass, leaver) on t, as a
 * job; the answer goes to c. */
void cas__offload_seat(struct cas__table *t, struct cas__conn *c, const struct cas__req *req);
/* From table code that may run on the loop: when t's work belongs to the
 * pool and this is not t's job, op is submitted (unless t is held) and 1
 * returned (the caller stops); 0: do it here. */
int cas__offload_defer(struct cas__table *t, enum cas__op op);
/* Whether req from c waits for a held table: then it is queued (req's
 * parsed message taken) or refused with "busy" when too many wait, and 1
 * returned; 0: handle it now. */
int cas__offload_wait(struct cas__lobby *l, struct cas__conn *c, struct cas__req *req);
/* c closed: its waiting requests are dropped; a held table lets it go
 * now and settles its counts later. */
void cas__offload_forget(struct cas__lobby *l, struct cas__conn *c);
/* Free what t's hold keeps (waiting requests, its listing). */
void cas__hold_free(struct cas__table *t);

/* ---------------------------------------------------------- bots.c */

struct cas__bots;

/* One job for the pool: work run(job) does on a pool thread (a bot's
 * decision, a table's plugin calls: offload.c), which deliver(job)
 * finishes on the loop thread, owning the job from then on; discard frees
 * one the pool still holds when it stops. */
struct cas__bot_job {
    struct cas__table *table;
    int search;          /* a search (mcts): seconds, where others take ms */
    struct cas__bot_job *next;
    void (*run)(struct cas__bot_job *job);
    void (*deliver)(struct cas__bot_job *job);
    void (*discard)(struct cas__bot_job *job);
};

/* The pool's order, fair across games: a quick decision (random, greedy)
 * goes before every search, and searches run on at most threads - 1 of
 * the threads (1 of 1), so one game's search never keeps another game's
 * quick bot waiting for it; searches are served in the order they came,
 * and since a game has at most one decision in the pool (its table is
 * busy meanwhile), that is round-robin across games.  Not locked: the
 * pool holds its lock around these. */
struct cas__bot_queue {
    struct cas__bot_job *quick, **quick_tail, *searches, **searches_tail;
    unsigned searching, max_searching;
};
void cas__bot_queue_init(struct cas__bot_queue *q, unsigned threads);
void cas__bot_queue_push(struct cas__bot_queue *q, struct cas__bot_job *job);
/* The job a free thread takes now, or NULL (none, or only searches while
 * max_searching run). */
struct cas__bot_job *cas__bot_queue_next(struct cas__bot_queue *q);
/* job, which cas__bot_queue_next gave, is decided. */
void cas__bot_queue_done(struct cas__bot_queue *q, const struct cas__bot_job *job);

/* A pool of n threads running jobs in cas__bot_queue's order; wake(ctx)
 * is called from a pool thread after a job is done (lws_cancel_service).
 * Caller frees. */
int cas__bots_new(unsigned n, void (*wake)(void *ctx), void *ctx, struct cas__bots **out);
/* Stop the threads after the jobs in hand and free the pool; jobs done
 * and not delivered are discarded. */
void cas__bots_free(struct cas__bots *b);
/* Queue job; the pool holds it until it is delivered. */
void cas__bots_push(struct cas__bots *b, struct cas__bot_job *job);
/* Deliver every finished job, on the loop thread; first run the calls
 * the pool's threads wait for (cas__on_loop). */
void cas__bots_deliver(struct cas__bots *b);
/* Run fn(arg) on the loop thread and return once it has run: at once on
 * the loop thread (or without a pool); from a pool thread it waits until
 * the loop's next cas__bots_deliver (or the pool's end) runs it.  What
 * only the loop may touch (the store) is reached this way from a job. */
void cas__on_loop(void (*fn)(void *arg), void *arg);

/* ----------------------------------------------------------- http.c */

/* The Content-Security-Policy of every answer: the table's (index.html's
 * own meta policy) and never framed. */
#define CAS__SERVE_CSP                                                                     \
    "default-src 'self'; script-src 'self'; connect-src 'self'; img-src 'self' data:; "   \
    "style-src 'self' 'unsafe-inline'; object-src 'none'; base-uri 'none'; "              \
    "form-action 'none'; frame-ancestors 'none'"

struct cas__serve_options {
    const char *listen;        /* "ADDR:PORT"; port 0: any free one */
    const char *cert, *key;    /* TLS when both are set */
    const char *www;           /* the client's files */
    const char *allowed_hosts; /* host names answered besides IP addresses and
                                  localhost: comma-separated, or NULL */
    struct cas__srv_limits limits;
    int quiet;                 /* no log lines on stderr */
};

struct cas__httpd;

/* Start serving lobby on opts->listen.  *port receives the port bound.
 * Caller frees with cas__httpd_free. */
int cas__httpd_start(struct cas__lobby *l, const struct cas__serve_options *opts,
                     struct cas__httpd **out, int *port, char *err, size_t errlen);
/* Run the loop once (up to timeout_ms); a negative return: stopped. */
int cas__httpd_service(struct cas__httpd *h, int timeout_ms);
/* Messages queued to clients and not yet written. */
size_t cas__httpd_queued(const struct cas__httpd *h);
/* The WebSockets open now. */
unsigned cas__httpd_sockets(const struct cas__httpd *h);
/* Wake the loop from another thread. */
void cas__httpd_wake(void *h);
void cas__httpd_free(struct cas__httpd *h);

/* ----------------------------------------------------------- sendq.c */

/* One connection's queue of messages to send, in a budget's list. */
struct cas__sendq {
    struct cas__srv_msg **ring;
    size_t head, count, cap, bytes;
    struct cas__sendq *prev, *next;
    int dropped;               /* over a limit: emptied, to be closed */
};

/* Every queue of a server: at most max_each bytes and max_msgs messages
 * in one, max_total bytes in all (a message queued on n queues counts n
 * times).  drop(q, ctx) tells the transport q was dropped. */
struct cas__sendq_budget {
    size_t max_total, max_each, max_msgs;
    size_t total_bytes, total_msgs;
    unsigned long n_dropped;   /* queues dropped since the start */
    struct cas__sendq *queues;
    void (*drop)(struct cas__sendq *q, void *ctx);
    void *ctx;
};

void cas__sendq_budget_init(struct cas__sendq_budget *b, size_t max_total, size_t max_each,
                            size_t max_msgs, void (*drop)(struct cas__sendq *q, void *ctx),
                            void *ctx);
/* q (uninitialized) joins b, empty. */
void cas__sendq_attach(struct cas__sendq_budget *b, struct cas__sendq *q);
/* q leaves b; its messages are let go. */
void cas__sendq_detach(struct cas__sendq_budget *b, struct cas__sendq *q);
/* Queue msg on q, taking a reference: 0, or -1 when q was dropped instead
 * (already, past its own caps, or as the furthest behind).  Past the
 * budget, the queues holding the most bytes are dropped first (emptied,
 * drop called) until msg fits. */
int cas__sendq_push(struct cas__sendq_budget *b, struct cas__sendq *q, struct cas__srv_msg *msg);
/* The oldest message of q (the caller's reference), or NULL. */
struct cas__srv_msg *cas__sendq_pop(struct cas__sendq_budget *b, struct cas__sendq *q);

/* ---------------------------------------------------------- access.c */

/* The host names the server answers to besides IP addresses and
 * localhost (allowed-hosts, --allow-host): owned, lowercase. */
struct cas__allowed_hosts {
    char **names;
    size_t n;
};

/* list: names separated by commas or blanks (NULL: none).  CAS_EINVAL
 * (err explains) for a name with a scheme, path or odd character. */
int cas__allowed_hosts_parse(const char *list, struct cas__allowed_hosts *out, char *err,
                             size_t errlen);
void cas__allowed_hosts_free(struct cas__allowed_hosts *a);
/* Whether a request whose Host header is host (NULL: none) is answered:
 * an IP address, localhost (or *.localhost) or a name of a; any port. */
int cas__host_allowed(const struct cas__allowed_hosts *a, const char *host);
/* Whether a browser page of origin (the Origin header; NULL or "": not a
 * browser, allowed) may use the server reached as host: the same host and
 * port, or a name of a. */
int cas__origin_allowed(const struct cas__allowed_hosts *a, const char *origin,
                        const char *host);

/* ---------------------------------------------------------- listen.c */

#define CAS__DEFAULT_MAX_CONNECTIONS 20000u
/* Files the server keeps open besides its connections: the store, plugins,
 * workers' pipes, the listening socket, lws's own. */
#define CAS__FDS_BESIDES_CONNECTIONS 64u

/* A listening TCP socket (non-blocking, close-on-exec) bound to exactly
 * the numeric address of listen ("ADDR:PORT", "[ADDR6]:PORT"; an IPv6
 * address binds IPv6 only).  *fd is the caller's to close; *port the port
 * bound (port 0 asks for any free one).  CAS_EINVAL for a listen that is
 * not ADDRESS:PORT, CAS_EIO when it cannot be bound; err explains. */
int cas__listen_open(const char *listen, int *fd, int *port, char *err, size_t errlen);
/* Make sure this process may open the files max_connections connections
 * need, raising the soft limit up to the hard one; CAS_EINVAL (err names
 * the number needed and how to get it) when the hard limit is too low. */
int cas__fd_limit_check(unsigned max_connections, char *err, size_t errlen);
/* wanted, or fewer: as many connections as the hard open-file limit allows. */
unsigned cas__fd_limit_connections(unsigned wanted);

/* ------------------------------------------------- serving (serve_run.c) */

/* Everything one run of the server needs; zero fields take the defaults. */
struct cas__serve_setup {
    struct cas__serve_options opts;
    const char *database;      /* NULL: the user's store */
    const char *plugin_path;
    const char *config;        /* a file with a [server] section, or NULL */
    struct cas__isolation isolation;
    const struct cas__srv_clock *clock;
    /* Told the port once listening (play --web creates its game here); a
     * negative return stops the server. */
    int (*ready)(void *ctx, struct cas__lobby *l, int port);
    /* Asked after each turn of the loop: nonzero stops it. */
    int (*done)(void *ctx, struct cas__lobby *l, struct cas__httpd *h);
    void *ready_ctx;
    int no_restore;            /* leave the store's other served games be */
    struct cas__host_saved host_saved; /* serve --host-saved; ids borrowed */
};

/* Open the store and the lobby, listen, resume the unfinished served
 * games and serve until SIGINT/SIGTERM or setup->done; prints problems on
 * stderr.  The exit status. */
int cas__serve_run(const struct cas__serve_setup *setup);

/* `castellan bench --only serve` (bench_serve.c): castellan serve under
 * --games concurrent games over WebSocket: moves per second, latency,
 * memory per idle game.  The bench command hands it to the bench sections
 * (struct cas__bench, serve). */
struct cas__bench;
int cas__bench_serve(struct cas__bench *b);

#endif
