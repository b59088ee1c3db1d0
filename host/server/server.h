/*
 * server.h — castellan serve (host-internal): many games hosted at once
 * over HTTP and WebSocket on one libwebsockets event loop.  The parts:
 *
 *   srv_msg.c   a finished message, shared by the connections it goes to
 *   protocol.c  decoding a client's message into a request (messages in)
 *   table.c     one hosted game: its session, seats and tokens, event log
 *   create.c    creating a game, adopting one of the terminal
 *   play.c      playing: an act, undo or hint applied, the table advanced
 *   clock.c     clocks, flags, and seats that left
 *   message.c   the state and update messages, built once per viewer
 *   lobby.c     every table of the server: create, claim, list, restore
 *   lobby_feed.c  the lobby's numbered changes and their history
 *   correspondence.c  days-per-move time controls: absolute deadlines
 *   notify.c    the notification hook, run off the loop on a thread of its own
 *   offload.c   a table's plugin calls as jobs of the pool, off the loop
 *   bots.c      the pools: threads running jobs, results posted to the loop
 *   handoff.c   hand-offs between the threads, counted; a move's journal
 *               answer handed straight back to the job that waits for it
 *   club.c      the club's pages (players, ratings, campaigns), rated on a
 *               thread of their own (club.h)
 *   http.c      the libwebsockets glue: HTTP files, WebSocket connections,
 *               send queues and limits
 *
 * The wire protocol is docs/server.md's "Protocol".  The loop thread
 * moves bytes; the pools' threads call the plugins (offload.c).
 */
#ifndef CAS_HOST_SERVER_H
#define CAS_HOST_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include <castellan/plugin.h>

#include "agent.h"
#include "journal.h"
#include "jsonw.h"
#include "picture_changes.h"
#include "revive.h"
#include "saves.h"

/* ---------------------------------------------------------- JSON out */

/* A finished message, shared by every connection it is queued on. */
/* A message compressed after the messages numbered after[1], after[0] (0:
 * none; after[1] only when after[0] is short: srv_msg.c), framed (RSV1
 * set). */
struct cas__srv_frame {
    uint64_t after[2];
    size_t len;
    unsigned char *frame;  /* the frame's len bytes */
    unsigned char *data;   /* its allocation: LWS_PRE bytes of room before frame */
};

#define CAS__SRV_FRAMES 4

struct cas__srv_msg {
    int refs;
    size_t len;
    char *data;        /* CAS__JW_ROOM (= LWS_PRE) bytes, then len bytes of text */
    uint64_t id;       /* unique in the process, never 0 */
    /* Its compressed frames, built when first wanted: most messages go to
     * one view whose connections share their previous message, so one or
     * two are built; past CAS__SRV_FRAMES the oldest is replaced. */
    struct cas__srv_frame frames[CAS__SRV_FRAMES];
    unsigned n_frames;
};

/* Take w's text as a message with one reference (w is emptied); NULL when
 * w failed or memory ran out. */
struct cas__srv_msg *cas__srv_msg_take(struct cas__jw *w);
void cas__srv_msg_unref(struct cas__srv_msg *msg); /* NULL is fine */
/* msg as a compressed frame (permessage-deflate, host/server/wsdeflate.h)
 * for a connection whose last two compressed messages were prev[1] then
 * prev[0] (NULL: none; both NULL for a connection without context
 * takeover), compressed after prev[0], and prev[1] too when prev[0] is
 * short: built with d the first time it is wanted and kept with msg, so
 * every connection of a view after the same messages is sent the same
 * bytes, compressed once.  The frame stays msg's (valid while a reference
 * is held); LWS_PRE bytes of room are before it.  NULL when memory ran
 * out or igzip failed.  The loop's alone. */
struct cas__wsdeflate;
const struct cas__srv_frame *cas__srv_msg_deflated(struct cas__srv_msg *msg,
                                                   struct cas__srv_msg *const prev[2],
                                                   struct cas__wsdeflate *d);
struct cas__buf;
/* msg (shorter than 65536 bytes) as a frame of one stored block
 * (cas__wsdeflate_stored), in out (emptied first, LWS_PRE bytes of room
 * before the frame), at *frame, *len bytes.  CAS_OK, CAS_ENOMEM or
 * CAS_EINVAL. */
int cas__srv_msg_stored(struct cas__srv_msg *msg, struct cas__buf *out,
                        const unsigned char **frame, size_t *len);

/* ---------------------------------------------------------- requests */

enum cas__req_type {
    CAS__REQ_HELLO, CAS__REQ_LOBBY, CAS__REQ_CREATE, CAS__REQ_CLAIM, CAS__REQ_JOIN,
    CAS__REQ_LEAVE, CAS__REQ_ACT, CAS__REQ_UNDO, CAS__REQ_HINT, CAS__REQ_PING,
    CAS__REQ_AUTOPASS, CAS__REQ_LEAVER, CAS__REQ_PREVIEW, CAS__REQ_LEAVE_LOBBY
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
    int64_t since;          /* join, lobby: the last message seen, -1: absent */
    size_t bytes;           /* the message's length */
    int text;               /* join: the text view wanted too */
    int deltas;             /* lobby: numbered changes after the first list */
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
    int days_per_move;      /* create: a correspondence time control, 0: none */
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
/* A request refused: *code = what (an error code of the protocol), the
 * message from fmt into msg; returns CAS_EINVAL. */
int cas__srv_refuse(const char **code, const char *what, char *msg, size_t msglen,
                const char *fmt, ...) CAS_PRINTF(5, 6);

/* ---------------------------------------------------------- the clock */

/* The server's only timekeeper: milliseconds on a monotonic clock.  Tests
 * give their own.  wall_ms: the time of day in Unix milliseconds, for the
 * absolute deadlines of correspondence games (NULL: the real clock). */
struct cas__srv_clock {
    int64_t (*now_ms)(void *ctx);
    void *ctx;
    int64_t (*wall_ms)(void *ctx);
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

/* A hosted game; its insides are the server's own (table.h). */
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
    int lobby_deltas;              /* ... to its numbered changes (else whole lists) */
    struct cas__conn *next_viewer; /* in its table's list */
    struct cas__conn *next_sub;    /* in the lobby's subscribers */
    struct cas__waiting *waiting;  /* its requests waiting for a held table */
    struct cas__table *working;    /* a job for its request is in the pool */
    /* The registered player its browser's key signed in (signin.c): their
     * id (0: a guest) and name; or why the key was refused (static text,
     * NULL: none was offered). */
    int64_t player;
    char player_name[CAS__SAVES_NAME_MAX * 4 + 1];
    const char *signin_refused;
};

/* Send w's text to c (w is emptied; nothing on a failed w). */
void cas__conn_send_jw(struct cas__conn *c, struct cas__jw *w);
/* Send c the error message of cas__req_error (id NULL: none). */
void cas__conn_send_error(struct cas__conn *c, const char *id, const char *code,
                          const char *msg);

/* --------------------------------------------------------- the tables */

struct cas__lobby;

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
/* The lobby's recent finished games (recent.c): the last
 * CAS__RECENT_GAMES served games that ended, from the store. */
#define CAS__RECENT_GAMES 10
struct cas__recent {
    struct cas__lobby *lobby;          /* whose store thread reads them */
    struct cas__saves_result *results; /* owned; the newest last */
    size_t n;
    int current;                       /* 0: being read again */
    int reading, changed_meanwhile, read_once, writing;
};
/* A game finished: the list is read again off the loop (the lobby's list
 * is sent again once it is). */
void cas__recent_changed(struct cas__recent *r);
/* Append ,"finished":[...] (docs/server.md, the lobby message) to w,
 * newest first, as last read (the first call asks for the first read). */
void cas__recent_write(struct cas__recent *r, struct cas__jw *w);
void cas__recent_free(struct cas__recent *r);

struct cas__help;

/* A call of the store made for the loop, off it (store_job.c): run(s,
 * job) on the store's thread with its connection (its code becomes rc,
 * the store's message err), then done(l, job) on the loop, which frees
 * the job if it must.  Embed it first in a struct of your own. */
struct cas__store_job {
    int (*run)(struct cas__saves *s, struct cas__store_job *job);
    void (*done)(struct cas__lobby *l, struct cas__store_job *job);
    int rc;
    char err[1024];
};

/* Hand job to l's store thread; without one (tests) it runs at once in
 * the loop's place, unmarked, and done is called before this returns. */
void cas__store_submit(struct cas__lobby *l, struct cas__store_job *job);
/* (loop) The store thread's answers: each job's done. */
void cas__store_deliver(struct cas__lobby *l);
/* Take every answer still owed (each job's done: l->store_stopping says
 * the server stops), then stop the store's thread; later jobs run inline
 * on l->store. */
void cas__store_stop(struct cas__lobby *l);
/* call(store, game) off the loop, its answer ignored: a claim let go, a
 * game's row deleted. */
void cas__store_quietly(struct cas__lobby *l, int (*call)(struct cas__saves *s, int64_t id),
                        int64_t game);
/* Ask the store whether it takes writes (l->store_up once it answers);
 * one question at a time. */
void cas__store_ask_ready(struct cas__lobby *l);

/* The lobby's list goes to its subscribers at most this often. */
#define CAS__LOBBY_EVERY_MS 1000

/* The lobby's numbered changes (lobby_feed.c): what every subscriber
 * that asked for deltas is sent after its first whole list.  The last
 * CAS__LOBBY_HISTORY of them, at most CAS__LOBBY_HISTORY_BYTES, are kept
 * for a client that resumes; one history for all subscribers, so a
 * subscriber costs the server no memory of its own but its send queue. */
#define CAS__LOBBY_HISTORY 16
#define CAS__LOBBY_HISTORY_BYTES (256u << 10)
struct cas__lobby_feed {
    uint64_t seq;                      /* the last change's number */
    /* change seq - k at history[(seq - k) % CAS__LOBBY_HISTORY], k < n */
    struct cas__srv_msg *history[CAS__LOBBY_HISTORY];
    size_t n_history, history_bytes;
    /* Tables whose entry may have changed since the last change (each
     * once; a slot NULL: that table left), and the ids of listed tables
     * that left meanwhile.  Both at most the tables hosted. */
    struct cas__table **relist;
    size_t n_relist, cap_relist;
    int64_t *removed;
    size_t n_removed, cap_removed;
    int finished_news;                 /* the recent finished games changed */
    int lost;                          /* memory ran out: the next list is whole */
    struct cas__srv_msg *whole;        /* the whole list at seq, shared; NULL: not built */
};

struct cas__lobby {
    struct cas__saves *store;          /* borrowed */
    struct cas__help *helps;           /* owned: notation helps in use (notation.c) */
    struct cas__registry *reg;         /* owned */
    struct cas__strlist path;          /* owned: the plugin search path */
    struct cas__isolation isolation;   /* as play's --isolated/--in-process */
    struct cas__srv_clock clock;
    struct cas__srv_limits limits;
    struct cas__table *tables;
    size_t n_tables;                   /* in memory: live, and the last finished */
    size_t n_creating;                 /* created games on the store's thread, not yet tables */
    struct cas__table **by_id;         /* owned: an index of tables, hashed by id */
    size_t by_id_cap;                  /* buckets, a power of two */
    /* Finished tables still in memory (their players see the result, a
     * reload finds it), oldest first; past limits.keep_finished the oldest
     * leaves memory (its replay stays in the store). */
    struct cas__table *finished, *finished_last;
    /* Tables changed since the last flush, in order (cas__lobby_flush);
     * the pending-writes list of the loop. */
    struct cas__table *changed, *changed_last;
    size_t n_finished;
    struct cas__recent recent;         /* the store's last finished games */
    struct cas__bots *bots;            /* NULL: bots decide inline (tests) */
    /* The pool for worker-isolated games' jobs (NULL: l->bots takes them):
     * their plugin calls may take seconds each, and must not hold the
     * threads the games in process need. */
    struct cas__bots *isolated_pool;
    size_t waiting_bytes;              /* requests waiting for held tables */
    /* Whether the store took writes when the loop last asked (each clock
     * tick, each write): what a job checks before a move. */
    _Atomic int store_up;
    /* The journal's writer thread (saves/writer.c), owned by who started
     * it; NULL: actions are committed on the loop (tests). */
    struct cas__saves_writer *writer;
    /* The store's thread (store_job.c: a second writer, owned by who
     * started it) for every other store call while serving; NULL: they
     * run inline (tests).  Jobs handed it and not answered yet; whether
     * it is stopping; the readiness question, and whether it is asked. */
    struct cas__saves_writer *store_thread;
    size_t store_jobs;
    int store_stopping;
    struct cas__store_job ready_job;
    int asking_ready;
    struct cas__notify *notify;        /* [server] notify-command; NULL: none */
    struct cas__conn *subs;            /* subscribed to the lobby */
    int64_t lobby_next_at;             /* the list goes to subs no sooner */
    /* Terminal games the user lets the server host (NULL: none);
     * borrowed, must outlive the lobby. */
    const struct cas__host_saved *host_saved;
    int lobby_dirty;                   /* news for the subscribers of whole lists */
    struct cas__lobby_feed feed;
    char *preset_dir;                  /* owned; NULL: no presets */
    /* A shared store (PostgreSQL, several servers): when the lobby last
     * looked for games whose server is gone, and the ids it could not
     * bring back (not tried again; owned). */
    int64_t adopted_at;
    int adopting;                      /* the store's thread is reading them */
    int64_t *unrestorable;
    size_t n_unrestorable;
    /* The club's pages (club.h), told when a game finishes; NULL: none
     * (tests); borrowed. */
    struct cas__club *club;
    /* The clock tick's schedule (tick.c): tables due on the server's
     * clock and on the wall clock (min-heaps by due time), those to look
     * at next tick (soon), the tick's own batch; ticks so far, tables they
     * examined (what the tests count), memory that ran out (then the next
     * tick examines every table). */
    struct cas__tables {
        struct cas__table **at;
        size_t n, cap;
    } tick_heap[2], tick_soon, tick_batch;
    uint64_t tick_count, tick_examined;
    int tick_lost;
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
/* The same for a request that waited for a game's shell (offload.c):
 * game gone (0: none), just found played elsewhere or gone, is not
 * brought back again for it. */
void cas__lobby_handle_waited(struct cas__lobby *l, struct cas__conn *c, struct cas__req *req,
                              int64_t gone);
/* c is gone: leave its table and the lobby's subscribers. */
void cas__lobby_disconnect(struct cas__lobby *l, struct cas__conn *c);
/* Send every state owed: by the tables changed since the last flush
 * (each queued itself once) and the lobby's list.  The serving loop calls
 * it once per turn, before it sleeps (serve_run.c), and cas__lobby_handle
 * before a request, so no reply overtakes what was owed before it. */
void cas__lobby_flush(struct cas__lobby *l);
/* The clock tick: every running clock against now (a flag that fell ends
 * its game), a leaver's grace, a store to retry.  Only the tables with
 * something due, or changed since the last tick, are examined (tick.c). */
void cas__lobby_check_clocks(struct cas__lobby *l);
struct cas__table *cas__lobby_find(struct cas__lobby *l, int64_t id);
/* Whether saved game id may be hosted and its replay shown: a game a
 * server created (or hosted before), as store s (the store thread's) says,
 * or one l->host_saved lets it.  *practice (NULL: not asked) says whether
 * it is a practice game. */
int cas__lobby_may_show(const struct cas__lobby *l, struct cas__saves *s, int64_t id,
                        int *practice);
/* Host table t (now l's) and let it go on: chance, bots. */
void cas__lobby_add(struct cas__lobby *l, struct cas__table *t);

/* How a new game is hosted beyond its session description. */
struct cas__table_params {
    int has_clock;
    int64_t base_ms, increment_ms;
    int days_per_move;             /* correspondence (1..14), 0: none */
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
/* (loop) Create the game of c's create request (docs/server.md), or host
 * the unfinished saved game its "resume" names (started at the terminal,
 * say: a token for each human seat): checked here, then inserted and read
 * on the store's thread (cas__store_submit) while a shell of the table
 * holds c's later requests, then opened in a job of the pool; c is
 * answered "created" once open, or with the error. */
void cas__table_create(struct cas__lobby *l, struct cas__conn *c, const struct cas__req *req);
/* (loop) Bring served game id back (a restart, an orphan of another
 * server) the same way, for nobody: one that cannot be is given up
 * (cas__lobby_give_up), one another server plays is left to it. */
void cas__table_bring_back(struct cas__lobby *l, int64_t id);
/* Bring served game `id` back from l's store at once (play --web, which
 * has no store thread): its journal, record and seats; its match is
 * opened by cas__table_open (table.h), which cas__lobby_add does in a job.
 * Claims the game in the store first (cas__saves_game_claim): CAS_ECONFLICT
 * when another server plays it.  The claim goes with cas__table_free. */
int cas__table_restore(struct cas__lobby *l, int64_t id, struct cas__table **out,
                       char *msg, size_t msglen);
void cas__table_free(struct cas__table *t);
/* What a caller outside the server (play --web) may read of a table;
 * the table itself is the server's (table.h). */
int64_t cas__table_id(const struct cas__table *t);
/* The game's title, as the plugin names it. */
const char *cas__table_title(const struct cas__table *t);
int cas__table_players(const struct cas__table *t);
/* Seat's player name; whether a bot decides for it. */
const char *cas__table_seat_name(const struct cas__table *t, int seat);
int cas__table_seat_is_bot(const struct cas__table *t, int seat);
/* Whether the game is over; why it stopped (NULL: it did not). */
int cas__table_over(const struct cas__table *t);
const char *cas__table_failure(const struct cas__table *t);
/* Go on after a change: chance draws, bots start deciding; marks the
 * table dirty. */
void cas__table_advance(struct cas__table *t);
/* A bot's decision arrived: its move, in the bot's job (offload.c). */
void cas__table_bot_done(struct cas__table *t, int rc, cas_action action);
/* Send what t owes its connections, built off the loop: a job (offload.c)
 * when t changed or a connection joined; nothing while t is held. */
void cas__table_flush(struct cas__table *t);
/* Whether seat may take back its last decision now. */
int cas__table_can_undo(struct cas__table *t, int seat);
/* Whether the plugin may be asked for click-to-play marks (ABI >= 1.2). */
int cas__table_may_mark(const struct cas__table *t);
/* What `format` renders of `state` (t's, or a copy of it) for `viewer`,
 * with legal's marks when given, as a string of *len bytes the caller
 * frees; NULL when the plugin draws nothing.  Written straight into a
 * buffer of `room` bytes to start with (0: grown as needed). */
char *cas__table_render(struct cas__table *t, const cas_state *state, int viewer,
                        enum cas_render_format format, const struct cas__actions *legal,
                        size_t room, size_t *len);
/* Act for seat: "act", "undo", "hint" requests; code/msg explain a refusal. */
int cas__table_act(struct cas__table *t, int seat, int64_t ply, const char *text,
                   const char **code, char *msg, size_t msglen);
int cas__table_undo(struct cas__table *t, int seat, const char **code, char *msg, size_t msglen);
/* The action text names for seat at ply, checked as an "act" checks it
 * (the seat decides, the ply is the game's, the action legal): CAS_OK
 * with *out, else a refusal in code/msg (nothing changed). */
int cas__table_legal_action(struct cas__table *t, int seat, int64_t ply, const char *text,
                            cas_action *out, const char **code, char *msg, size_t msglen);
/* A "preview" request (preview.c): the decision that would follow seat's
 * action text at ply, written as the reply into w; nothing of t changes. */
int cas__table_preview(struct cas__table *t, int seat, int64_t ply, const char *text,
                       struct cas__jw *w, const char *id, const char **code, char *msg,
                       size_t msglen);
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
/* Give each table the journal writer's answers that came, on the loop
 * thread (journal_writer.c); nothing without a writer. */
void cas__journal_deliver(struct cas__lobby *l);
/* Whose decision it is: a seat, CAS_ACTOR_CHANCE or CAS_ACTOR_TERMINAL. */
int cas__table_actor(struct cas__table *t);
/* Correspondence time controls (correspondence.c, docs/server.md). */
#define CAS__DAY_MS ((int64_t)24 * 3600 * 1000)
#define CAS__MAX_DAYS_PER_MOVE 14

/* ------------------------------------------------------- notify.c */

struct cas__notify;

/* Commands that queue beyond this are dropped (and said so on stderr):
 * a command that hangs cannot grow memory without bound. */
#define CAS__NOTIFY_MAX_QUEUED 1024
/* How long one run may take, feeding its stdin included, before it is
 * killed. */
#define CAS__NOTIFY_TIMEOUT_MS 10000

/* A notifier running command (the words of [server] notify-command, the
 * first an executable's absolute path; no shell) on a thread of its own,
 * one run at a time.  timeout_ms: 0 for CAS__NOTIFY_TIMEOUT_MS.  CAS_EINVAL
 * (err explains) for a bad command, CAS_ENOMEM.  Caller frees. */
int cas__notify_new(const char *command, int timeout_ms, struct cas__notify **out, char *err,
                    size_t errlen);
/* Queue one run with w's text on its stdin (w is emptied).  Never blocks:
 * called on the event loop. */
void cas__notify_post(struct cas__notify *n, struct cas__jw *w);
/* Wait until every queued run has ended (tests; the end of a server). */
void cas__notify_drain(struct cas__notify *n);
/* Drain, stop the thread, free; NULL is fine. */
void cas__notify_free(struct cas__notify *n);

/* -------------------------------------------------------- offload.c */

/* A table's work for the pool: a seat's request, a bot's decision and
 * move, going on (chance, bots) after it is hosted, the clock's tick
 * (the flag, the store back), only the messages owed, opening its
 * match (the plugin, its worker, the journal replayed), or going to sleep
 * now that nobody follows it (sleep.c). */
enum cas__op {
    CAS__OP_SEAT, CAS__OP_BOT, CAS__OP_ADVANCE, CAS__OP_TICK, CAS__OP_FLUSH, CAS__OP_OPEN,
    CAS__OP_SLEEP
};

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
/* From table code that may run on the loop: unless this is t's job, op
 * is submitted (unless t is held; without a pool it runs at once, as a
 * job) and 1 returned (the caller stops); 0: do it here. */
int cas__offload_defer(struct cas__table *t, enum cas__op op);
/* Whether req from c waits for a held table: then it is queued (req's
 * parsed message taken) or refused with "busy" when too many wait, and 1
 * returned; 0: handle it now. */
int cas__offload_wait(struct cas__lobby *l, struct cas__conn *c, struct cas__req *req);
/* c closed: its waiting requests are dropped; a held table lets it go
 * now and settles its counts later. */
void cas__offload_forget(struct cas__lobby *l, struct cas__conn *c);
/* Whether a job of the pool has t now (the loop leaves it alone). */
int cas__table_held(const struct cas__table *t);

/* ---------------------------------------------------------- bots.c */

struct cas__bots;

/* One job for the pool: work run(job) does on a pool thread (a bot's
 * decision, a table's plugin calls: offload.c), which deliver(job)
 * finishes on the loop thread, owning the job from then on; discard frees
 * one the pool still holds when it stops.  A run that returns
 * CAS__JOB_PARKED waits for another thread (the journal's writer) to hand
 * the job back with cas__bots_resume, which runs it again: the pool no
 * longer touches it meanwhile, and stops only once none is parked. */
enum { CAS__JOB_DONE, CAS__JOB_PARKED };
struct cas__bot_job {
    struct cas__table *table;
    int search;          /* a search (mcts): seconds, where others take ms */
    struct cas__bot_job *next;
    int (*run)(struct cas__bot_job *job); /* CAS__JOB_DONE or CAS__JOB_PARKED */
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
 * and not delivered are discarded.  Parked jobs are waited for: stop the
 * pools before the journal's writer whose answers they wait for. */
void cas__bots_free(struct cas__bots *b);
/* Queue job; the pool holds it until it is delivered. */
void cas__bots_push(struct cas__bots *b, struct cas__bot_job *job);
/* Queue again a job whose run returned CAS__JOB_PARKED (any thread; b
 * waits in cas__bots_free for every parked job to come back). */
void cas__bots_resume(struct cas__bots *b, struct cas__bot_job *job);
/* Deliver every finished job, on the loop thread; first run the calls
 * the pool's threads wait for (cas__on_loop).  What finishes meanwhile
 * is delivered too, in up to CAS__BOTS_DELIVER_ROUNDS rounds in all,
 * without waking the loop (a finished job's thread wakes the loop only
 * once it is no longer delivering); past them the loop is woken again,
 * so that its sockets get their turn. */
#define CAS__BOTS_DELIVER_ROUNDS 4
void cas__bots_deliver(struct cas__bots *b);
/* Run fn(arg) on the loop thread and return once it has run: at once on
 * the loop thread (or without a pool); from a pool thread it waits until
 * the loop's next cas__bots_deliver (or the pool's end) runs it.  What
 * only the loop may touch (the store) is reached this way from a job. */
void cas__on_loop(void (*fn)(void *arg), void *arg);

/* ------------------------------------------------------- handoff.c */

/* Work handed from one of the server's threads to another, counted since
 * the process started (the serve benchmark prints them per move): jobs a
 * pool thread ran (a job that waited for its journal write and was handed
 * back runs once more), wakes of the loop from another thread
 * (cas__httpd_wake), turns of the loop for a wake, and journal answers
 * handed straight to the job waiting for them instead of the loop. */
enum cas__handoff {
    CAS__HANDOFF_POOL_RUN,
    CAS__HANDOFF_WAKE,
    CAS__HANDOFF_WAKE_TURN,
    CAS__HANDOFF_HANDED_BACK,
    CAS__HANDOFF_KINDS
};
struct cas__handoffs {
    uint64_t pool_runs, wakes, wake_turns, handed_back;
};
/* Count one hand-off (any thread; a relaxed atomic add). */
void cas__handoff_count(enum cas__handoff what);
/* The counts so far. */
void cas__handoffs_read(struct cas__handoffs *out);

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
/* Run the loop once: one wait for events (up to timeout_ms with poll; on
 * libuv libwebsockets' 100 ms clock tick bounds it) and their callbacks.
 * A negative return: stopped. */
int cas__httpd_service(struct cas__httpd *h, int timeout_ms);
/* The event loop h runs on: "libuv" or "poll" (the fallback). */
const char *cas__httpd_event_loop(const struct cas__httpd *h);
/* Messages queued to clients and not yet written. */
size_t cas__httpd_queued(const struct cas__httpd *h);
/* The WebSockets open now. */
unsigned cas__httpd_sockets(const struct cas__httpd *h);
/* Wake the loop from another thread. */
void cas__httpd_wake(void *h);
/* Stop the games' pools: the jobs running end, the others are dropped, so
 * nothing hands the journal's writer an action any more (the run stops the
 * pools, then the writer, then h).  cas__httpd_free does it too. */
void cas__httpd_stop_jobs(struct cas__httpd *h);
void cas__httpd_free(struct cas__httpd *h);

/* ---------------------------------------------------------- evloop.c */

struct uv_loop_s;
struct lws_context;
/* A new libuv loop for libwebsockets to run on, or NULL (out of memory,
 * or CASTELLAN_SERVE_EVENT_LOOP=poll asks for libwebsockets' poll loop).
 * Free with cas__evloop_free after the lws context on it is destroyed. */
struct uv_loop_s *cas__evloop_new(void);
/* One turn: wait once for events and run their callbacks. */
void cas__evloop_turn(struct uv_loop_s *loop);
/* Run loop until nothing is left on it: after lws_context_destroy, until
 * libwebsockets has closed every handle of its own. */
void cas__evloop_drain(struct uv_loop_s *loop);
/* Drain loop, then free it (NULL: nothing). */
void cas__evloop_free(struct uv_loop_s *loop);
/* Destroy the lws context *ctx (NULL: none), which runs on loop (NULL:
 * lws's own poll loop), then free loop.  ctx must be the context's
 * pcontext: on a loop of ours lws_context_destroy only starts closing, the
 * loop closes lws's handles, and a second call frees the context and NULLs
 * *ctx. */
void cas__evloop_destroy(struct lws_context **ctx, struct uv_loop_s *loop);

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
    const char *notify_command; /* [server] notify-command, or NULL */
    struct cas__host_saved host_saved; /* serve --host-saved; ids borrowed */
};

/* Open the store and the lobby, listen, resume the unfinished served
 * games and serve until SIGINT/SIGTERM or setup->done; prints problems on
 * stderr.  The exit status. */
int cas__serve_run(const struct cas__serve_setup *setup);

#endif
