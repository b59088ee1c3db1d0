/*
 * table.h — a hosted game's insides, for the server's own files (and its
 * tests): the table, its seats, its event log and what each viewer was
 * sent.  Outside host/server/ a table is an opaque pointer read through
 * server.h's accessors.
 */
#ifndef CAS_HOST_SERVER_TABLE_H
#define CAS_HOST_SERVER_TABLE_H

#include <stdatomic.h>
#include <stdint.h>

#include "server.h"

/* One event of the game's log. */
struct cas__srv_event {
    uint32_t ply;
    int player;          /* the actor when it was emitted; -1 chance */
    int visible_to;
    char *text;          /* owned, with category after it */
    /* A score event (CAS_EVENT_SCORE): who scored, how many points and,
     * where the plugin says it (ABI 1.1), what scored and whether in the
     * final scoring; scorer -1 for other events. */
    int scorer;
    int64_t points;
    const char *category; /* in text's allocation; NULL: not said */
    int final;
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

/* An action journaled with the one before it (t->unsaved.more). */
struct cas__unsaved_action {
    uint32_t ply;
    int actor;
    char *text;                    /* owned */
    uint64_t hash;
    int64_t clock_ms;
};

/* Who goes on with the journal writer's answer for a write that a job of
 * the pool submitted and waits for: that job, once its run ends, or the
 * writer, handing it back to the pool (handoff.c).  Zeroed: none waits. */
struct cas__hand {
    atomic_uintptr_t state;
};
/* The job submits a write whose answer it waits for (e->written). */
void cas__hand_wait(struct cas__hand *h);
/* The job's run ends.  1: it parked (may_park; the writer hands it back,
 * and until then nobody may touch it); 0: it goes on, with the answer in
 * *answer when it came meanwhile (the job's to apply and free), NULL when
 * it did not (then, without may_park, it goes to the loop as any answer)
 * or when nothing waited. */
int cas__hand_end(struct cas__hand *h, int may_park, struct cas__saves_entry **answer);
/* The writer's answer e (on its thread): what becomes of it. */
enum cas__hand_answer {
    CAS__HAND_TAKEN,  /* the job, still running, takes it when its run ends */
    CAS__HAND_RESUME, /* the job parked: the caller queues it on the pool again */
    CAS__HAND_LOOP,   /* the job went without it: the loop gets it, as any */
};
enum cas__hand_answer cas__hand_answer(struct cas__hand *h, struct cas__saves_entry *e);
/* Whether a job parked, waiting for its answer (tests). */
int cas__hand_parked(struct cas__hand *h);

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
    /* Its lobby entry when last free: the feed's listed entry when
     * nothing else had changed since it was listed (listing_kept), else
     * the entry last written whole (listing, owned; NULL with neither:
     * not shown, still opening), kept from hold to hold until more than
     * its moving part changes (listing_stale: the lobby's news of it);
     * either with ply and to_move for its moving part. */
    char *listing;
    int listing_kept;
    int listing_stale;
    uint32_t ply;
    int to_move;
    /* The journal writer's answer for t->unsaved when it came while held:
     * applied (cas__table_written) once the job is delivered. */
    int written, written_rc;
    size_t written_saved;
    char *written_why;             /* owned; may be NULL */
    /* Kept by the jobs: a bot's decision to hand the pool once the job is
     * delivered (t->busy), whether the last job built an update, whose
     * decision it is as last asked (the loop reads it: no plugin call),
     * and news for the lobby's listing. */
    struct cas__decision bot;
    int built_update;
    int actor;
    int news;
    /* Held by a store job (cas__offload_hold) for this connection, whose
     * answer it is (NULL: nobody's, or it closed). */
    struct cas__conn *asker;
    /* The job's own journal write, when it waits for its answer. */
    struct cas__hand hand;
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
    /* Set only through cas__table_changed / cas__table_owe_full, which
     * queue the table for the loop's flush (cas__lobby_flush). */
    int owes_update;               /* an update is owed to the viewers */
    int owes_full;                 /* a connection is owed a full state */
    int queued;                    /* in the lobby's changed tables */
    struct cas__table *next_changed;
    /* Its place in the clock tick's schedule (tick.c): 1 + its index in
     * the lobby's heaps (server clock, wall clock) and in the soon list,
     * 0 when not there; when it falls due on each; the tick that last
     * examined it. */
    size_t tick_slot[2], soon_slot;
    int64_t tick_at[2];
    uint64_t tick_seen;
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
        /* With the journal's writer, a take-back, the result or a bot
         * taking a seat waits here too (kind): text then names it ("take
         * back", "result", the bot's spec), so text says something waits. */
        enum cas__saves_write kind;
        char *text;
        uint32_t ply;
        int actor;
        uint64_t hash;
        int64_t clock_ms;
        int64_t *scores;           /* owned: a result's, nplayers of them */
        int forfeit;
        char *why;                 /* owned: the writer's last failure, or NULL */
        /* With the journal's writer, chance's draws right after an action
         * wait with it (owned, in order): journaled in its transaction, so
         * a move and the draw after it cost one write and one answer
         * (cas__journal_joins). */
        struct cas__unsaved_action *more;
        size_t n_more;
    } unsaved;
    /* The unsaved action is on the journal's writer thread (t->busy too):
     * nothing is sent or played until it comes back (journal_writer.c). */
    int writing;
    int result_unsaved, store_away, refused_away;
    int64_t away_since;
    /* Correspondence (docs/server.md): days per move (0: none), the Unix
     * ms at which the deciding seat's time runs out (0: the clock waits
     * for every human seat), and the last seat that decided (-1: none). */
    int days_per_move;
    int64_t deadline;
    int corr_last_seat;
    char *failure;                 /* why the table stopped (cas__table_fail), "" if fine */
    struct cas__table *next, *prev; /* in the lobby's list (prev: unlinked in O(1)) */
    struct cas__table *next_same_hash; /* in the lobby's index by id */
    struct cas__table *next_finished;  /* in the lobby's finished, oldest first */
    int counted_over;              /* the lobby has counted it finished */
    struct cas__hold hold;         /* the pool's hold on it (offload.c) */
    struct cas__help *help;        /* its notation help, shared (notation.c); NULL: not yet */
    int opening;                   /* read from the store, its match not opened yet */
    char **labels;                 /* owned: each seat's label, as the plugin said at open */
    struct cas__sleep *sleep;      /* owned: its states' bytes while it sleeps (sleep.c) */
    int owes_sleep;                /* its last follower left: a job puts it to sleep */
    /* Its lobby entry as the lobby's changes last carried it (owned; NULL:
     * not listed yet), its ply and whose turn there, its slot in the
     * feed's relist + 1 (0: none), and whether more than those two may
     * have changed since (else the entry is not written again). */
    char *listed;
    uint32_t listed_ply;
    int listed_to_move;
    size_t relist_slot;
    int relist_whole;
};

/* Seat's label as the plugin gave it when t opened (no plugin call). */
const char *cas__table_label(const struct cas__table *t, int seat);

/* The view of viewer seat (-1: public). */
struct cas__view *cas__table_view(struct cas__table *t, int seat);
/* Let go of everything view holds. */
void cas__view_release(struct cas__view *v);
/* t's state went back (an undo): each view's next picture is drawn whole,
 * since the stamp of its last one is about a later state (ABI 1.4
 * render_since promises plugins no stamp after a move taken back). */
void cas__table_views_rewound(struct cas__table *t);
/* Something the viewers see changed: an update is owed, and t waits in
 * the lobby's changed tables for the flush at the end of the loop's turn
 * (queued once however often it changes). */
void cas__table_changed(struct cas__table *t);
/* A connection joined t (or now follows another of its views): a full
 * state or a resume is owed it, at the same flush. */
void cas__table_owe_full(struct cas__table *t);
/* Queue t in l's changed tables, once; take it out (a table freed while
 * queued).  lobby.c. */
void cas__lobby_queue(struct cas__lobby *l, struct cas__table *t);
void cas__lobby_unqueue(struct cas__lobby *l, struct cas__table *t);
/* t's lobby entry changed in a way the subscribers of whole lists hear
 * of (a game created, joined, left, ended): sent at the next flush, at
 * most once a second.  lobby.c. */
void cas__lobby_news(struct cas__table *t);
/* The lobby's changes (lobby_feed.c).  t's entry may have changed: it is
 * looked at when the next change is made (once however often it is
 * marked); moved: only its ply and whose turn may have (a move, a job
 * delivered), which costs no entry written. */
void cas__feed_relist(struct cas__lobby *l, struct cas__table *t);
void cas__feed_moved(struct cas__lobby *l, struct cas__table *t);
/* t leaves the lobby: the next change removes it if it was listed. */
void cas__feed_forget(struct cas__lobby *l, struct cas__table *t);
/* Subscribe c to the lobby (req: its "deltas" and "since"): a whole list
 * now, or the changes after "since" out of the history. */
void cas__feed_subscribe(struct cas__lobby *l, struct cas__conn *c, const struct cas__req *req);
/* Send the lobby's subscribers what changed, if any did and
 * CAS__LOBBY_EVERY_MS passed since the last send. */
void cas__feed_send(struct cas__lobby *l);
/* Let go of the feed (the lobby closes). */
void cas__feed_free(struct cas__lobby *l);
/* The recent finished games changed: the next change carries them. */
void cas__feed_finished_news(struct cas__lobby *l);
/* The lobby's whole list, {"type":"lobby",...} (id: the request's, or
 * NULL), into w.  lobby.c. */
void cas__lobby_write_list(struct cas__lobby *l, struct cas__jw *w, const char *id);
/* Message numbers that a restarted server never reuses (table.c). */
uint64_t cas__srv_first_seq(void);
/* The server clock's now (ms). */
int64_t cas__table_now(const struct cas__table *t);
/* Stop t for why (kept with where the journal stands); the first reason
 * stays. */
void cas__table_fail(struct cas__table *t, const char *why);
/* t->failure of a table that has not stopped (""): a reason is allocated
 * only when one comes, not kept in every table.  play.c. */
extern char cas__table_fine[1];
/* Let go of t->failure (t is being freed).  play.c. */
void cas__table_fail_free(struct cas__table *t);
/* Add event to t's log (best effort: the journal is the truth), as
 * emitted by t->applying_actor. */
void cas__table_add_event(struct cas__table *t, const struct cas_event *event);
/* A bot of spec decides for seat from now on.  CAS_ENOMEM. */
int cas__table_give_to_bot(struct cas__table *t, int seat, const char *spec);
/* t->unsaved is durable: record it (the played list, the actor's clock,
 * the next turn's start) and let it go; the action journaled after it
 * (unsaved.more), if any, waits in its place. */
void cas__table_action_saved(struct cas__table *t);
/* (loop) The writer's answer for what t->unsaved holds: its first `saved`
 * actions are durable, and rc says whether all are (else why the next
 * failed; why is copied).  All durable, the game goes on in a job of the
 * pool (inline without one), which builds the viewers' update; while a
 * job holds t the answer waits in t->hold for its delivery (offload.c).
 * CAS_ECONFLICT or CAS_ENOTFOUND, the table stops; anything else, what is
 * not durable waits as in an outage (its seat is told), and is submitted
 * again later.  play.c. */
void cas__table_written(struct cas__table *t, size_t saved, int rc, const char *why);
/* (the job of the pool that holds t and waited for the answer, offload.c)
 * The same answer, applied in the job: all durable, the game goes on here
 * (cas__table_advance; the job builds the update); any failure is kept
 * for the job's delivery, which applies it on the loop as above. */
void cas__table_written_in_job(struct cas__table *t, size_t saved, int rc, const char *why);

/* ------------------------------------------------- journal_writer.c */

/* Hand t->unsaved to the lobby's writer: t is busy (frozen, nothing sent
 * to its viewers) until cas__journal_deliver gives the answer back.
 * CAS_ENOMEM (err says so). */
int cas__journal_submit(struct cas__table *t, char *err, size_t errlen);
/* A write other than an action (kind: a take-back from ply, the result
 * with scores[nplayers] and the seat flagged (actor, -1 none) and forfeit,
 * a bot of spec text for seat actor) waits in t->unsaved and goes to the
 * writer as an action does: nothing of it is shown until it is durable
 * (cas__table_written), a failure keeps it for later.  Called only when
 * t->lobby->writer is set and nothing else waits.  CAS_ENOMEM. */
int cas__journal_keep(struct cas__table *t, enum cas__saves_write kind, uint32_t ply,
                      int actor, const char *text, const int64_t *scores, int forfeit,
                      char *err, size_t errlen);
/* The writer's answer e for its table (e->owner), handed to apply (the
 * loop's cas__table_written or a job's cas__table_written_in_job): how
 * many of its actions are durable, and the code and words of the first
 * that is not; e is freed. */
void cas__journal_answered(struct cas__saves_entry *e,
                           void (*apply)(struct cas__table *t, size_t saved, int rc,
                                         const char *why));
/* Let go of what t->unsaved holds: nothing waits any more. */
void cas__journal_forget(struct cas__table *t);
/* With the lobby's writer, the action just applied (on_action, table.c)
 * waits in t->unsaved, or after what waits there unsubmitted (more), until
 * the table knows the next decision: chance's draw joins it
 * (cas__journal_joins), anything else sends it to the writer (step,
 * play.c).  CAS_ENOMEM (err says so). */
int cas__journal_add(struct cas__table *t, uint32_t ply, int actor, const char *text,
                     uint64_t hash, int64_t clock_ms, char *err, size_t errlen);
/* Whether chance's next draw may be journaled with the action waiting in
 * t->unsaved, unsubmitted: an action (not a take-back, result or bot),
 * never written yet, of a game without correspondence deadlines (each
 * draw's deadline needs the action before it saved), and a few at most. */
int cas__journal_joins(const struct cas__table *t);
/* The clock journaled with actor's action (a Fischer clock, or a
 * correspondence deadline) is saved: it holds from now on. */
void cas__table_took_clock(struct cas__table *t, int actor, int64_t clock);
/* Write the result of a game that is over: {"scores":..,"winners":..,
 * "reason":..,"flagged":..} (docs/server.md, state). */
void cas__table_write_result(struct cas__table *t, struct cas__jw *w);

/* ------------------------------------------------------------ tick.c */

/* Look at t at the next clock tick (it changed): the tick then places it
 * by what falls due next in it.  Loop only. */
void cas__tick_soon(struct cas__lobby *l, struct cas__table *t);
/* t leaves the tick's schedule (it is being freed). */
void cas__tick_forget(struct cas__lobby *l, struct cas__table *t);
/* Free the schedule itself, every table gone (cas__lobby_close). */
void cas__tick_free(struct cas__lobby *l);

/* ------------------------------------------------- correspondence.c */

/* The time of day, Unix ms, on the lobby's clock (of t's lobby). */
int64_t cas__srv_wall(const struct cas__lobby *l);
int64_t cas__corr_wall(const struct cas__table *t);
/* The deadline to journal with an action of `actor` just applied (the
 * one in force for the next decision: a new one when another seat decides
 * next), or -1 when the game has no correspondence clock or it has not
 * started.  Changes nothing: cas__corr_saved applies it once saved. */
int64_t cas__corr_deadline_after(struct cas__table *t, int actor);
/* The action whose journal entry carried `deadline` is saved: a new
 * deadline starts the next seat's turn (and tells the notify hook). */
void cas__corr_saved(struct cas__table *t, int actor, int64_t deadline);
/* Every human seat has joined: the first turn's clock starts (stored, so
 * a restart keeps it). */
void cas__corr_start(struct cas__table *t);
/* After a restart, from the journal replayed: the deadline in force is
 * the last action's, else the stored first one (t->deadline as loaded);
 * and which seat decided last. */
void cas__corr_restore(struct cas__table *t, const struct cas__saves_game *saved);
/* The deciding seat's time is up at wall time now: that seat, else -1. */
int cas__corr_expired(struct cas__table *t, int64_t now);
/* The ms seat has left to decide in (its whole allowance while it does
 * not decide, or before the clock starts). */
int64_t cas__corr_left(struct cas__table *t, int seat, int64_t now);
/* ,"clock":{...} of a correspondence game (state, update, lobby: full
 * when full). */
void cas__corr_write_clock(struct cas__table *t, struct cas__jw *w, int full);
/* The game is over: the notify hook hears of it once per human seat. */
void cas__corr_game_over(struct cas__table *t);


/* The store is the loop's: a job reaches it through the loop (cas__on_loop),
 * the loop directly (a journal append goes to the journal's writer thread
 * instead when the lobby has one).  Each returns the store's code; err
 * (may be NULL) says why it failed.  Append an action; whether the store takes writes
 * (as the store's thread last answered the clock tick: l->store_up); the
 * result (with the seat flagged, ranked last, or -1, and whether it left:
 * forfeit). */
int cas__table_store_append(struct cas__table *t, uint32_t ply, int actor, const char *text,
                            uint64_t hash, int64_t clock_ms, char *err, size_t errlen);
int cas__table_store_ready(struct cas__table *t);
int cas__table_store_finish(struct cas__table *t, int flagged, int forfeit,
                            const int64_t *scores, char *err, size_t errlen);
/* A bot of spec plays seat from now on, across restarts. */
int cas__table_store_bot(struct cas__table *t, int seat, const char *spec, char *err,
                         size_t errlen);

/* (loop) Note in t's views what their connections are owed. */
void cas__table_plan(struct cas__table *t);
/* (job) Build what the plan says: an update to each view followed when t
 * changed (built once per viewer), the full state for those that joined
 * and cannot resume from the history, the text views.  message.c. */
void cas__table_build(struct cas__table *t);
/* Whether t has an action or result that is not durable yet (on the
 * journal's writer, or kept while the store is away): nothing of it is
 * shown, so nothing is built or sent until it is.  message.c. */
int cas__table_unshown(const struct cas__table *t);
/* (loop) Send each connection what the last build made for it. */
void cas__table_send(struct cas__table *t);
/* A connection of seat (-1: a watcher) left held table t: its counts
 * settle now that t is free.  lobby.c. */
void cas__lobby_settle_leave(struct cas__table *t, int seat);
/* Write t's entry of the lobby listing ({"game":...}) into w; its moving
 * part alone (,"ply":N,"to_move":K).  lobby.c. */
void cas__lobby_write_entry(struct cas__table *t, struct cas__jw *w);
void cas__lobby_write_moving(const struct cas__table *t, struct cas__jw *w);
/* The moving part of an entry at ply with to_move (-1: none).  lobby.c. */
void cas__lobby_write_moving_at(struct cas__jw *w, uint32_t ply, int to_move);
/* (loop) Whether t's entry is the feed's listed one but for its moving
 * part: listed, and nothing else marked changed since.  lobby_feed.c. */
int cas__feed_listed_as_is(const struct cas__table *t);
/* (loop) t's entry as the lobby lists it now into w: a held table's as
 * it was when its job began; 0 when it is not listed (still opening).
 * lobby_feed.c. */
int cas__feed_entry(struct cas__table *t, struct cas__jw *w);
/* Whose decision t's lobby entry shows (-1: none).  lobby_feed.c. */
int cas__lobby_to_move(const struct cas__table *t);
/* Free what t's hold keeps (waiting requests, its listing).  offload.c. */
void cas__hold_free(struct cas__table *t);

/* (loop) A table to be read from the store: opening, nothing else; NULL
 * on OOM.  Caller frees with cas__table_free. */
struct cas__table *cas__table_shell(struct cas__lobby *l);
/* (the store's thread, or t's job) Claim served game id in store s and
 * read t from it: its journal, record and seats (cas__table_restore's
 * part).  Errors with msg; t is then only fit to be freed. */
int cas__table_load(struct cas__table *t, struct cas__saves *s, int64_t id, char *msg,
                    size_t msglen);
/* (loop) A store job (store_job.c) holds t for connection c (NULL: none):
 * requests for t, and c's later ones, wait in order as for a pool job;
 * cas__offload_release lets it go and handles them, cas__offload_drop
 * handles them without t and frees it (never linked, or unlinked): game
 * gone (0: none), just found played elsewhere or gone, is not brought
 * back again for them.  offload.c. */
void cas__offload_hold(struct cas__table *t, struct cas__conn *c);
/* (loop) t (out of the lobby's lists, followed by nobody) goes: its match
 * is closed in a job of the pool (a worker told to quit may take its
 * deadline), then t is freed on the loop (cas__table_free). */
void cas__offload_retire(struct cas__table *t);
void cas__offload_release(struct cas__table *t);
void cas__offload_drop(struct cas__table *t, int64_t gone);
/* (journal_writer.c, about to submit an action of t) 1 when t's job of
 * the pool is running and waits for that action's answer, holding t:
 * the entry is then given cas__offload_handed_back (e->written), which
 * the writer calls with the answer on its thread. */
int cas__offload_waits(struct cas__table *t);
/* (the writer's thread) e, written, for its table's waiting job: 1 when
 * that job took it (still running, or queued on its pool again), 0 when
 * the job went without it (its table stopped): e is then the loop's. */
int cas__offload_handed_back(struct cas__saves_entry *e);

/* (job) Open the match of t, read by cas__table_restore: the plugin, its
 * worker if isolated, the journal replayed, the clocks; t->opening is
 * cleared.  Errors with msg; t is then only fit to be freed. */
int cas__table_open(struct cas__table *t, char *msg, size_t msglen);

/* How a table came to be opened: a create request, a resume request (a
 * terminal's game adopted), or brought back from the store (a restart, an
 * orphan of another server). */
enum cas__opened { CAS__OPENED_CREATED, CAS__OPENED_ADOPTED, CAS__OPENED_RESTORED };

/* (loop) Open t (cas__table_restore'd, in the lobby already) in a job of
 * the pool, frozen until it is; requests for it, and c's later ones, wait
 * in order.  Once open, c (may be NULL) is answered "created" with id and
 * the invites (taken), and the game goes on; if it cannot be, c gets the
 * error and t leaves the lobby (cas__lobby_not_opened).  offload.c. */
void cas__offload_open(struct cas__table *t, struct cas__conn *c, const char *id,
                       struct cas__invites *invites, enum cas__opened how);
/* Whether a request of type is for one game (req->game): it waits while
 * that game is held.  offload.c. */
int cas__offload_targets(enum cas__req_type type);
/* (loop) t opened for c's create or resume request (req id): its answer
 * with the seats' links (invites).  lobby.c. */
void cas__lobby_created(struct cas__table *t, struct cas__conn *c, const char *id,
                        const struct cas__invites *invites);
/* (loop) t joins l's tables (found by id; listed once open and free) /
 * leaves them.  lobby.c. */
void cas__lobby_link(struct cas__lobby *l, struct cas__table *t);
void cas__lobby_unlink(struct cas__lobby *l, struct cas__table *t);
/* (loop) Game id cannot be brought back (why): said once on stderr, not
 * tried again.  lobby.c. */
void cas__lobby_give_up(struct cas__lobby *l, int64_t id, const char *why);
/* (loop) t could not be opened (why): it leaves the lobby's lists (the
 * caller frees it); a created game leaves the store, a restored one is
 * not tried again.  lobby.c. */
void cas__lobby_not_opened(struct cas__table *t, enum cas__opened how, const char *why);

/* ------------------------------------------------- sleep.c */

struct cas__sleep_bytes {
    uint8_t *data;
    size_t len;
};

/* The states of a sleeping table: the session's, then each undo step's
 * state before its decision, in order. */
struct cas__sleep {
    uint64_t hash;               /* the session state's, 0 when unhashed */
    size_t n;
    struct cas__sleep_bytes bytes[];
};

/* (job, at its end) Put t to sleep when no connection follows it and it
 * waits for nothing but a person's decision: its states (the session's
 * and undo's) kept as the plugin's serialized bytes, its views' pictures
 * and messages let go.  Nothing changes otherwise (a sleep that cannot be
 * done, for want of memory or of the plugin's serialize, is not done). */
void cas__table_sleep(struct cas__table *t);
/* (job, at its start) Bring t's states back if it sleeps: CAS_OK (t is
 * awake), else t is stopped (cas__table_fail) and still sleeps, so the job
 * must not read its state. */
int cas__table_wake(struct cas__table *t);
/* Whether t sleeps now. */
int cas__table_asleep(const struct cas__table *t);
/* (loop, a job delivered) t could not wake, so nothing can be built for
 * it: each connection that joined it since is sent a "stopped" message
 * saying why (docs/server.md), instead of the state it waits for. */
void cas__table_tell_stopped(struct cas__table *t);
/* Let go of a sleeping t's bytes (it is being freed). */
void cas__table_sleep_free(struct cas__table *t);

/* ------------------------------------------------- notation.c */

/* (loop, before a job) NULL when t has its notation help (from the
 * lobby's, built by another table's job); else the key a job builds it
 * for (caller frees; NULL on OOM too: no help then). */
char *cas__help_wanted(struct cas__table *t);
/* (job) Build t's notation help: text (caller frees; NULL: none) and len. */
void cas__help_build(struct cas__table *t, char **text, size_t *len);
/* (loop, the job delivered) Keep what the job built (key and text are
 * taken) in the lobby, t using it. */
void cas__help_keep(struct cas__table *t, char *key, char *text, size_t len);
/* (loop) Whether t's help is known yet (its first job was delivered). */
int cas__help_ready(const struct cas__table *t);
/* (loop) A copy of t's help (caller frees) and its length; NULL: none
 * (or OOM). */
char *cas__help_copy(const struct cas__table *t, size_t *len);
/* (loop) t no longer uses its help: the last table frees it. */
void cas__help_release(struct cas__table *t);

#endif
