/*
 * saves.h — the save store and plain-text game records (host-internal).
 * The store is a SQLite file (the default) or, named by a postgresql://
 * URL, a PostgreSQL database shared by several castellans; every function
 * below works on both, with the same schema and guarantees.
 *
 * The store journals every game: what was combined (game and expansion ids
 * with versions, in order), how (rule options, config text, seed, players
 * and their agents) and every action as canonical text with the state hash
 * after it.  The action journal is the truth; everything else only speeds
 * things up.  docs/saves.md describes the schema and the record format.
 *
 * Error protocol: functions return CAS_OK or a negative CAS_E* code.  Store
 * functions explain a failure in cas__saves_errmsg(store); functions that
 * have no store yet take an err buffer.  Every message names the file (or
 * the URL, without its password).
 */
#ifndef CAS_SAVES_SAVES_H
#define CAS_SAVES_SAVES_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <castellan/plugin.h>

/* The application_id every castellan save database carries ("CASL"). */
#define CAS__SAVES_APPLICATION_ID 0x4341534C
/* The schema version this castellan writes (PRAGMA user_version). */
#define CAS__SAVES_SCHEMA_VERSION 7
/* Times as ISO 8601 UTC text (2026-11-29T15:04:05Z), for strftime: C's
 * and SQLite's write the same text with it; so do the store's times and
 * those castellan shows beside them. */
#define CAS__SAVES_TIME_FORMAT "%Y-%m-%dT%H:%M:%SZ"

struct cas__saves;

struct cas__saves_plugin_ref {
    char *id, *version;
    int line;              /* record line it came from; 0 otherwise */
};

struct cas__saves_option { /* a [rules] setting exactly as configured */
    char *key, *value;
};

struct cas__saves_player {
    char *name, *agent;
    int has_score;         /* score is valid (the game is finished) */
    int64_t score;
    /* Read from the store only (schema 7): the registered player who took
     * the seat, by their name now (a rename shows), or NULL for a guest, a
     * bot, a removed player.  name stays the name the seat had. */
    char *registered;
};

struct cas__saves_action {
    uint32_t ply;          /* 0-based, dense */
    int actor;             /* player index or CAS_ACTOR_CHANCE */
    char *text;            /* canonical action text, no newline */
    uint64_t hash;         /* state hash after the action */
    int hashless;          /* a record line without #HASH: nothing to check */
    int line;              /* record line it came from; 0 otherwise */
    /* Converted from another program's record, which says whose turn it is
     * its own way: replay takes the actor the game asks for. */
    int actor_unknown;
    /* The actor's remaining clock after the action (schema 3), when
     * has_clock (a game with a time control). */
    int has_clock;
    int64_t clock_ms;
};

enum cas__saves_status { CAS__SAVES_PLAYING = 0, CAS__SAVES_FINISHED = 1 };

/* One saved game.  Every pointer is owned by the struct and released by
 * cas__saves_game_free; a zeroed struct is empty and valid to free. */
struct cas__saves_game {
    int64_t id;                   /* row id in the store; 0 when not stored */
    char *campaign;               /* NULL: none */
    char *castellan_version;      /* castellan that started the game */
    struct cas__saves_plugin_ref game;
    struct cas__saves_plugin_ref *expansions; /* in resolved order */
    size_t n_expansions;
    struct cas__saves_option *options;
    size_t n_options;
    struct cas__saves_player *players;        /* by seat */
    size_t n_players;
    char *config_text;            /* NULL or the config file as read */
    uint64_t seed;
    enum cas__saves_status status;
    char *created_at, *updated_at;/* ISO 8601 UTC; NULL: the store sets now */
    struct cas__saves_action *actions;
    size_t n_actions;             /* with actions loaded, or counted */
};

void cas__saves_game_free(struct cas__saves_game *g);

/* ------------------------------------------------------------ the store */

/* $XDG_DATA_HOME/castellan/saves.db, or ~/.local/share/castellan/saves.db.
 * Caller frees the result; NULL when neither variable is set or on OOM. */
char *cas__saves_default_path(void);

/* Open the store at path, creating it (and its folders) if it does not
 * exist (built aside as PATH.new-PID and linked into place whole, so that
 * concurrent or killed castellans never meet it half made), and migrate an
 * older schema.  An existing file is checked before
 * SQLite writes anything to it: a file that is not an SQLite database, is
 * truncated, belongs to another application (application_id) or comes from a
 * newer castellan (user_version) is refused with a message naming the file,
 * and left as it was.  The connection is defensive (SQLITE_DBCONFIG_DEFENSIVE,
 * trusted_schema off, no triggers or views), in WAL mode.  Caller owns *out
 * (cas__saves_close).  Errors: CAS_EIO, CAS_ECORRUPT, CAS_EMISMATCH,
 * CAS_EVERSION, CAS_ENOMEM. */
int cas__saves_open(const char *path, struct cas__saves **out, char *err,
                    size_t errlen);

/* 1 when `where` names a PostgreSQL database (a postgresql:// or
 * postgres:// URL) rather than a file.  Every function that opens a store
 * takes either: a URL opens the PostgreSQL backend (docs/saves.md), where
 * the same schema, journal and checks live in a database of a server. */
int cas__saves_is_url(const char *where);

/* Open and migrate only up to schema version `target` (tests of
 * migrations); otherwise as cas__saves_open. */
int cas__saves_open_at(const char *path, int target, struct cas__saves **out,
                       char *err, size_t errlen);

/* Open the existing store at path only to read it (saves list and show,
 * export, replay), checked as cas__saves_open checks it but never created,
 * migrated or changed.  It may be read-only for castellan, the file or its
 * folder: when SQLite cannot read it in place (a WAL and no -shm it may
 * create), a private copy is read and removed on close.  CAS_ENOTFOUND when
 * there is no file; CAS_EVERSION for an older schema (open it once
 * writable to migrate it); otherwise as cas__saves_open.  An existing store
 * that castellan may not write is refused by cas__saves_open with a message
 * that says so. */
int cas__saves_open_read(const char *path, struct cas__saves **out, char *err,
                         size_t errlen);

/* Any number of connections in one process (and its threads, one
 * connection each) may share a store: a SQLite file this process has open
 * already is never opened again outside SQLite, since closing a descriptor
 * drops the process's locks on the file (sqlite_store.c, "files open
 * here"). */

void cas__saves_close(struct cas__saves *s); /* NULL is fine */

/* Make text (a failure of the caller's own, about this store) the store's
 * last failure, prefixed with its path; returns code. */
int cas__saves_explain(struct cas__saves *s, int code, const char *text);

/* The last failure explained, never NULL; valid until the next call. */
const char *cas__saves_errmsg(const struct cas__saves *s);
const char *cas__saves_path(const struct cas__saves *s);
/* PRAGMA user_version of the open store. */
int cas__saves_schema_version(struct cas__saves *s);
/* PRAGMA integrity_check: CAS_OK when "ok", CAS_ECORRUPT with the first
 * problem in errmsg otherwise. */
int cas__saves_integrity_check(struct cas__saves *s);

/* ----------------------------------------------------------- journal */

/* Store a copy of game g from another store under its own id g->id (saves
 * migrate), otherwise as cas__saves_game_insert.  CAS_ECONFLICT when a game
 * with that id is already stored. */
int cas__saves_game_copy(struct cas__saves *s, struct cas__saves_game *g);

/* Store a game with its header, players and any actions it already has, in
 * one transaction, creating its campaign if needed.  Sets g->id.  A game
 * whose actions are not numbered 0..n-1 is refused (CAS_EINVAL). */
int cas__saves_game_insert(struct cas__saves *s, struct cas__saves_game *g);

/* Journal one action of game `id` and set its last-played time, in one
 * transaction.  Fails with CAS_ECONFLICT if that ply is already saved
 * (another castellan plays the same game) and CAS_EIO if it cannot be
 * committed. */
int cas__saves_append(struct cas__saves *s, int64_t id, uint32_t ply,
                      int actor, const char *text, uint64_t hash);

/* cas__saves_append with the actor's remaining clock after the action
 * (clock_ms >= 0; -1: no clock). */
int cas__saves_append_timed(struct cas__saves *s, int64_t id, uint32_t ply,
                            int actor, const char *text, uint64_t hash, int64_t clock_ms);

/* A player took back game id's actions from `from_ply` on: delete them and
 * the snapshots taken after them, and set the last-played time, in one
 * transaction, so the journal is the game's line of play again. */
int cas__saves_take_back(struct cas__saves *s, int64_t id, uint32_t from_ply);

/* Mark game `id` finished with final scores by seat, in one transaction. */
int cas__saves_finish(struct cas__saves *s, int64_t id, const int64_t *scores,
                      size_t n);

/* Record that game `id` was played just now (updated_at). */
int cas__saves_touch(struct cas__saves *s, int64_t id);

/* After a forced resume: replace the hashes of plies from_ply.. with
 * hashes[0..n) and record the versions now in use (game and expansions by
 * position), in one transaction. */
int cas__saves_rebase(struct cas__saves *s, int64_t id, uint32_t from_ply,
                      const uint64_t *hashes, size_t n,
                      const struct cas__saves_game *versions);

/* Claim game `id` for this open store: while the claim holds, another
 * castellan's claim of the same game is refused (CAS_ECONFLICT, "another
 * castellan is playing game N"), so several `castellan serve` processes on
 * one database never both play one game.  PostgreSQL: a session advisory
 * lock on the game (docs/saves.md), released by cas__saves_game_release,
 * by closing the store, or by the server when the connection ends however
 * the process ended.  SQLite (one machine): always CAS_OK; the journal's
 * primary key still refuses a second writer.  A claim held already by this
 * store is CAS_OK again (and needs one release more).  A store whose
 * claims a journal writer holds (cas__saves_writer_hold_claims) claims
 * and releases on the writer's connection. */
int cas__saves_game_claim(struct cas__saves *s, int64_t id);
int cas__saves_game_release(struct cas__saves *s, int64_t id);

/* CAS_OK when the store can be used now.  A PostgreSQL server that went
 * away (restarted, the network) makes every function fail with
 * CAS_EUNAVAILABLE, changing nothing, until it answers again; the store
 * connects again by itself, never blocking for more than 20 ms in 100 ms,
 * with a wait between attempts that doubles up to 5 s.  Each call (this one is cheap) moves that on; once connected,
 * the store takes its games' claims again (one another castellan took
 * meanwhile fails with CAS_ECONFLICT), and an action whose commit went
 * unanswered is saved once: appending it again finds it committed.  A
 * SQLite file is always ready.  A store whose claims a journal writer
 * holds (cas__saves_writer_hold_claims) is ready when that connection is
 * too.  A PostgreSQL connection the database server closed (a restart)
 * is noticed here without a round trip (what the server said is read) and
 * made again, and the claims taken again, before the next move needs it:
 * a game idle meanwhile is not taken for one whose server is gone. */
int cas__saves_ready(struct cas__saves *s);

/* 1 when other castellans may be using the store at the same time on
 * other machines (PostgreSQL), so games may have to be claimed from them;
 * 0 for a SQLite file. */
int cas__saves_shared(const struct cas__saves *s);

/* What a writer's entry writes: an action (cas__saves_append_timed, the
 * only kind a batch takes), a take-back of the plies from `ply` on
 * (cas__saves_take_back), a result (cas__saves_finish; with actor >= 0
 * the seat whose flag fell, or that left when forfeit, first through
 * cas__saves_served_flag), a bot that plays seat `actor` from now on,
 * spec in text (cas__saves_served_bot), or any other work with the store:
 * call(s, owner) on the thread's connection (its code is rc; it may
 * explain a failure with cas__saves_fail, copied into err). */
enum cas__saves_write {
    CAS__WRITE_APPEND,
    CAS__WRITE_TAKE_BACK,
    CAS__WRITE_RESULT,
    CAS__WRITE_BOT,
    CAS__WRITE_CALL,
};

/* One write to journal in a batch (cas__saves_append_batch) or on the
 * journal's writer thread (cas__saves_writer_*), and what became of it. */
struct cas__saves_entry {
    enum cas__saves_write kind;
    int64_t game;
    uint32_t ply;
    int actor;
    char *text;            /* owned: the action's canonical text */
    uint64_t hash;         /* the state hash after it */
    int64_t clock_ms;      /* the actor's clock after it; -1: no clock */
    int64_t *scores;       /* owned: a result's, one per player */
    size_t n_scores;
    int forfeit;           /* a result's: the flagged seat left */
    void *owner;           /* the caller's, handed back untouched */
    int (*call)(struct cas__saves *s, void *owner); /* CAS__WRITE_CALL's */
    int rc;                /* once written: CAS_OK or why it is not saved */
    char *err;             /* owned: the store's message when rc fails */
    struct cas__saves_entry *next;
    /* Owned: actions of the same game right after this one (kind
     * CAS__WRITE_APPEND, linked by more, NULL: none), journaled with it:
     * in a batch, in its transaction; one at a time, in order, none after
     * one that failed (each with its own rc and err). */
    struct cas__saves_entry *more;
    /* Set by the submitter, or NULL: called on the writer's thread once e
     * is written (its rc and err, and its more's, set) in place of
     * putting e on the done list and waking the loop; it returns 1 when it
     * took e (the callee's from then on: it frees it), 0 to leave e to the
     * done list as any other.  castellan serve hands a person's move back
     * this way to the job waiting for it (host/server/handoff.c). */
    int (*written)(struct cas__saves_entry *e);
};

/* A new entry of kind CAS__WRITE_APPEND (text copied, rc CAS_OK, no
 * error); NULL on OOM.  The caller may set another kind and its fields. */
struct cas__saves_entry *cas__saves_entry_new(int64_t game, uint32_t ply, int actor,
                                              const char *text, uint64_t hash,
                                              int64_t clock_ms, void *owner);
/* Free one entry (NULL is fine) and the actions journaled with it (more),
 * not the entries after it (next). */
void cas__saves_entry_free(struct cas__saves_entry *e);
/* Free every entry of a list linked by next. */
void cas__saves_entries_free(struct cas__saves_entry *list);

/* Journal every entry of the list (linked by next), and the actions
 * journaled with each (more), in ONE transaction, as
 * cas__saves_append_timed journals one: group commit, one disk flush (or
 * PostgreSQL round trip) for actions of several games.  CAS_OK: all are
 * committed (each entry's rc CAS_OK).  Otherwise nothing of the list is,
 * and the code and errmsg say why (the first failure); the caller may
 * journal them one at a time to learn which failed (cas__saves_writer
 * does). */
int cas__saves_append_batch(struct cas__saves *s, struct cas__saves_entry *list);

/* Write one entry of any kind on its own (its rc and err set); the code. */
int cas__saves_write_entry(struct cas__saves *s, struct cas__saves_entry *e);

/* How many journal transactions this open store has committed
 * (cas__saves_append and cas__saves_append_batch, one each), for the
 * tests that check that batches group. */
uint64_t cas__saves_journal_commits(const struct cas__saves *s);

/* CAS__WRITE_CALL's entry: call(s, owner) to run on a writer's thread
 * (text ""); NULL on OOM. */
struct cas__saves_entry *cas__saves_call_new(int (*call)(struct cas__saves *s, void *owner),
                                             void *owner);

/* ------------------------------------------------- the journal's writer */

/* A thread with a store connection of its own that journals the actions
 * it is given, so that an event loop never waits for a disk or a database
 * (castellan serve, docs/server.md "The journal's writer").  Whatever is
 * queued while it commits goes into its next transaction together (group
 * commit, cas__saves_append_batch).  Entries of one game are journaled in
 * the order they were submitted. */
struct cas__saves_writer;

/* Open the store `where` (a file or URL, as cas__saves_open) for a writer;
 * its thread starts with cas__saves_writer_start.  wake(ctx), when set, is
 * called on the writer's thread after entries are done (the loop is woken
 * to take them).  Caller frees with cas__saves_writer_stop.  Errors as
 * cas__saves_open; CAS_ENOMEM. */
int cas__saves_writer_open(const char *where, void (*wake)(void *ctx), void *ctx,
                           struct cas__saves_writer **out, char *err, size_t errlen);
/* Start the thread: what was submitted before goes into its first
 * transaction.  CAS_ENOMEM when no thread can be made. */
int cas__saves_writer_start(struct cas__saves_writer *w);
/* Queue e (the writer owns it until it is handed back done). */
void cas__saves_writer_submit(struct cas__saves_writer *w, struct cas__saves_entry *e);
/* The entries written since the last call, in the order they were
 * submitted (the caller owns them), or NULL; with wait, blocks until there
 * is one (tests).  An entry's rc: CAS_OK once it is durable; otherwise
 * nothing of it is saved, and err says why: CAS_EUNAVAILABLE (the database
 * is away; submit it again later), CAS_ECONFLICT (that ply is saved
 * already: another castellan plays the game), another code. */
struct cas__saves_entry *cas__saves_writer_done(struct cas__saves_writer *w, int wait);
/* The writer's store's cas__saves_journal_commits. */
uint64_t cas__saves_writer_commits(struct cas__saves_writer *w);
/* Journal whatever is queued, stop the thread, close its store and free
 * w, with the entries done and not taken (NULL is fine).  The claims held
 * for other stores go with its connection; those stores claim on their
 * own connections again. */
void cas__saves_writer_stop(struct cas__saves_writer *w);
/* From now until w stops, s's claims (cas__saves_game_claim and _release)
 * are taken on w's connection, the one that journals the games' actions:
 * PostgreSQL runs what a connection sent before it ends it and drops its
 * advisory locks only then, so a castellan killed with an append in its
 * backend's hands keeps the game claimed until that append is committed
 * or rolled back, and whoever claims the game next reads every action
 * (docs/saves.md, "One game, one castellan").  Any thread may claim
 * through s (one at a time per store, as ever): the claim waits for the
 * batch w is writing.  Nothing changes for a store of one machine
 * (SQLite), whose claims are no locks.  Call before s is used by another
 * thread. */
void cas__saves_writer_hold_claims(struct cas__saves_writer *w, struct cas__saves *s);
/* cas__saves_writer_hold_claims(w, the store of writer `of`): castellan
 * serve's store thread claims its games through the journal's writer.
 * Call before `of` starts. */
void cas__saves_writer_hold_claims_of(struct cas__saves_writer *w,
                                      struct cas__saves_writer *of);

/* ------------------------------------------------------------- reading */

/* Load game `id` into *out (caller frees with cas__saves_game_free), with
 * its actions when with_actions, else only their count.  CAS_ENOTFOUND. */
int cas__saves_game_load(struct cas__saves *s, int64_t id, int with_actions,
                         struct cas__saves_game *out);

/* The ids of all games, newest first, of one campaign or all (NULL).
 * Caller frees *ids with free(). */
int cas__saves_game_ids(struct cas__saves *s, const char *campaign,
                        int64_t **ids, size_t *n);

/* Delete game `id` with everything that belongs to it.  CAS_ENOTFOUND. */
int cas__saves_game_delete(struct cas__saves *s, int64_t id);

/* A finished game's result, as ratings read it. */
struct cas__saves_result {
    int64_t id;
    char *game_id;
    char *expansions;             /* their ids joined by '+', in resolved
                                   * order; "" for none */
    char *finished;               /* updated_at: when it was finished */
    int flagged;                  /* served: seat whose flag fell; else -1 */
    int forfeit;                  /* served: flagged had left and the others
                                   * claimed the game (schema 5) */
    int served;                   /* a game castellan serve hosted */
    struct cas__saves_player *players; /* by seat, with their scores */
    size_t n_players;
};

/* Every finished game last played at or after `since` (an ISO 8601 time
 * as the store writes them, 2026-12-01T18:00:00Z, or a prefix of one;
 * NULL: all), in the order they were finished (updated_at, then id), read
 * in two queries however many games there are.  Caller frees *out with
 * cas__saves_results_free. */
int cas__saves_results(struct cas__saves *s, const char *since,
                       struct cas__saves_result **out, size_t *n);
/* The last `limit` served games finished (castellan serve's), as
 * cas__saves_results gives them (the order they were finished: the newest
 * last), in two queries.  Caller frees *out with cas__saves_results_free. */
int cas__saves_served_recent(struct cas__saves *s, unsigned limit,
                             struct cas__saves_result **out, size_t *n);
void cas__saves_results_free(struct cas__saves_result *r, size_t n);

/* ------------------------------------------- games of castellan serve */

struct cas__saves_served_seat {
    /* The SHA-256 of the seat's invite token in hex (schema 4; the clear
     * token before), owned: the server hands the token out and keeps this. */
    char *token;
    int open;              /* anyone may still claim the seat */
    /* Schema 5: the agent of the bot that plays the seat since its player
     * left (docs/server.md, "Clocks"); owned; NULL: the player's own. */
    char *bot;
};

/* A game castellan serve hosts: its time control and seats. */
struct cas__saves_served {
    int64_t game;
    int64_t base_ms, increment_ms;   /* 0 and 0: no clock */
    int flagged;                     /* seat whose flag fell, or -1 */
    int forfeit;                     /* schema 5: flagged had left and the
                                      * others claimed the game */
    /* Schema 4: a practice game (its creator chose the seed; marked so
     * everywhere), and the secret that commits to the seed of a game whose
     * seed the server drew (hex; owned; NULL: none, a practice game or one
     * served before schema 4).  docs/server.md, "Fair draws". */
    int practice;
    char *seed_nonce;
    /* Schema 6: a correspondence time control, days per move (1..14; 0:
     * none), and the Unix ms at which the first turn's time runs out (0:
     * the clock has not started).  docs/server.md, "Correspondence". */
    int days_per_move;
    int64_t first_deadline;
    struct cas__saves_served_seat *seats; /* by seat; owned */
    size_t n_seats;
};

void cas__saves_served_free(struct cas__saves_served *g);

/* Record that game g->game (already inserted) is hosted by the server,
 * with its time control and every seat's token, in one transaction. */
int cas__saves_served_insert(struct cas__saves *s, const struct cas__saves_served *g);

/* Seat `seat` of served game `game` was claimed by `name`: it is no longer
 * open, the player has that name and the seat's token hash is token_hash
 * (the claimer's new token; the old one no longer works), in one
 * transaction.  CAS_ENOTFOUND for a seat the server does not host. */
int cas__saves_served_claim(struct cas__saves *s, int64_t game, int seat, const char *name,
                            const char *token_hash);

/* The clock of correspondence game `game` started: its first turn's time
 * runs out at first_deadline (Unix ms). */
int cas__saves_served_start(struct cas__saves *s, int64_t game, int64_t first_deadline);

/* The flag of `seat` fell in served game `game`; forfeit: rather, the
 * seat had left and the others claimed the game (ranked the same way). */
int cas__saves_served_flag(struct cas__saves *s, int64_t game, int seat, int forfeit);

/* A bot of agent `agent` plays seat `seat` of served game `game` from now
 * on, for its player who left (the player keeps the seat's name).
 * CAS_ENOTFOUND for a seat the server does not host. */
int cas__saves_served_bot(struct cas__saves *s, int64_t game, int seat, const char *agent);

/* Load served game `game` into *out (caller frees with
 * cas__saves_served_free).  CAS_ENOTFOUND when the server never hosted it. */
int cas__saves_served_load(struct cas__saves *s, int64_t game, struct cas__saves_served *out);

/* The ids of the served games still being played, oldest first (the
 * server brings them back on start).  Caller frees *ids with free(). */
int cas__saves_served_unfinished(struct cas__saves *s, int64_t **ids, size_t *n);

/* The served games still being played that no castellan has claimed
 * (cas__saves_game_claim): their server is gone.  Oldest first; in SQLite
 * every unfinished one.  Caller frees *ids with free(). */
int cas__saves_served_orphans(struct cas__saves *s, int64_t **ids, size_t *n);

/* -------------------------------------------------- registered players */

/* A player registered on this server (docs/players.md): a name, unique
 * whatever its case, and the SHA-256 of the secret of their key (the key
 * itself is never stored).  Guests and bots are not registered. */
struct cas__saves_registered {
    int64_t id;
    char *name;
    char *created_at;
    char *last_seen;         /* NULL: never signed in or played */
    size_t games;            /* seats they took */
    char *key_hash;          /* 64 hex digits */
};

void cas__saves_registered_free(struct cas__saves_registered *r);
void cas__saves_registered_list_free(struct cas__saves_registered *r, size_t n);

/* The longest name, in characters. */
#define CAS__SAVES_NAME_MAX 32

/* Whether name may be a registered player's name: 1 to 32 characters of
 * valid UTF-8, no control character, comma or colon (a players list
 * "NAME:AGENT,..." holds names), no space at either end.  CAS_OK, or CAS_EINVAL with a sentence
 * naming the value and the fix in err. */
int cas__saves_name_check(const char *name, char *err, size_t errlen);

/* name's key for uniqueness: ASCII letters lower-cased, the rest as it is
 * ("Ada", "ADA" and "ada" are one name).  Writes at most cap bytes. */
void cas__saves_name_key(const char *name, char *key, size_t cap);

/* Register `name` with key_hash; sets *id.  CAS_EINVAL for a bad name,
 * CAS_ECONFLICT when the name (in any case) is taken; messages in errmsg. */
int cas__saves_registered_add(struct cas__saves *s, const char *name,
                              const char *key_hash, int64_t *id);

/* The registered player called name (any case) or with that id into *out
 * (caller frees with cas__saves_registered_free).  CAS_ENOTFOUND. */
int cas__saves_registered_find(struct cas__saves *s, const char *name,
                               struct cas__saves_registered *out);
int cas__saves_registered_get(struct cas__saves *s, int64_t id,
                              struct cas__saves_registered *out);

/* Every registered player, by name.  Caller frees with
 * cas__saves_registered_list_free. */
int cas__saves_registered_list(struct cas__saves *s, struct cas__saves_registered **out,
                               size_t *n);

/* Rename old_name to new_name (checked as for add; a change of case
 * only is allowed).  Seats keep the name they had; ratings and the
 * players page follow the player.  CAS_ENOTFOUND, CAS_ECONFLICT. */
int cas__saves_registered_rename(struct cas__saves *s, const char *old_name,
                                 const char *new_name);

/* Replace name's key hash (the old key stops working); sets *id. */
int cas__saves_registered_rekey(struct cas__saves *s, const char *name,
                                const char *key_hash, int64_t *id);

/* Remove name: their seats keep their names and results, unlinked.
 * CAS_ENOTFOUND. */
int cas__saves_registered_remove(struct cas__saves *s, const char *name);

/* Store r (from another store: saves migrate) under its own id with its
 * key hash and times, so its key keeps working.  CAS_OK also when the same
 * player (id, name and key hash) is there already; CAS_ECONFLICT when the
 * id or the name is another's there. */
int cas__saves_registered_copy(struct cas__saves *s, const struct cas__saves_registered *r);

/* Registered player id was seen now (signed in, took a seat, played). */
int cas__saves_registered_seen(struct cas__saves *s, int64_t id);

/* Seat `seat` of game `game` was taken by registered player `id`. */
int cas__saves_seat_register(struct cas__saves *s, int64_t game, int seat, int64_t id);

/* ----------------------------------------------------------- campaigns */

struct cas__saves_campaign {
    char *name;
    size_t games, finished;
    int64_t unfinished;     /* newest unfinished game's id, 0 if none */
    char *last_played;      /* newest game's updated_at */
};

struct cas__saves_standing {
    char *player;
    size_t games, wins;     /* finished games; a tie for first is a win */
    int64_t points;
};

/* All campaigns by name.  Caller frees with cas__saves_campaigns_free. */
int cas__saves_campaigns(struct cas__saves *s, struct cas__saves_campaign **out,
                         size_t *n);
void cas__saves_campaigns_free(struct cas__saves_campaign *c, size_t n);

/* One campaign's summary and its standings (most wins, then points, then
 * name).  CAS_ENOTFOUND for an unknown name.  Caller frees both. */
int cas__saves_campaign_standings(struct cas__saves *s, const char *name,
                                  struct cas__saves_campaign *summary,
                                  struct cas__saves_standing **out, size_t *n);
void cas__saves_standings_free(struct cas__saves_standing *st, size_t n);

/* --------------------------------------------------------- test probes */

/* The store's phases that change its files.  A phase announces its BEGIN,
 * each file change it makes itself rather than through SQLite (STEP: the
 * link and unlink of a new store) and, when it succeeded, its END. */
enum cas__saves_phase {
    CAS__SAVES_CREATE, /* building a new store aside and linking it in */
    CAS__SAVES_START,  /* cas__saves_game_insert: a game's header */
    CAS__SAVES_APPEND, /* cas__saves_append: one action */
    CAS__SAVES_FINISH, /* cas__saves_finish: a game's result */
    CAS__SAVES_CLOSE,  /* cas__saves_close: SQLite checkpoints the WAL */
};
enum cas__saves_moment { CAS__SAVES_BEGIN, CAS__SAVES_STEP, CAS__SAVES_END };

/* Called, when set, with a method's name each time a public function of
 * the store is about to use its connection (a query, a round trip):
 * castellan serve counts those its event loop makes (loop_guard.h), and
 * a test may hold a store thread there.  Set it before any store is used
 * by two threads. */
extern void (*cas__saves_call_hook)(const char *method);

/* NULL, and never set by castellan itself: only the fault injection of a
 * test build (tests/support/faults.c) points it at a function that stops
 * or fails the process at a chosen moment of a chosen phase. */
extern void (*cas__saves_probe)(enum cas__saves_phase phase,
                                enum cas__saves_moment moment);

/* -------------------------------------------------------- game records */

/* Write g (with its actions) as a plain-text game record: header lines
 * "Key: value", a blank line, then "PLY ACTOR TEXT #HASH" per action, or
 * "PLY ACTOR TEXT" without with_hashes (a record another program can
 * write).  CAS_EINVAL for an action text with a newline, CAS_EIO on write
 * errors. */
int cas__record_write(const struct cas__saves_game *g, FILE *out, int with_hashes);

/* Parse a record (text[0..len), named `name` in messages) into *out.
 * Errors are CAS_EPARSE with "NAME:LINE: what is wrong; what would be
 * right" in err; *out is then empty.  Caller frees *out. */
int cas__record_parse(const char *text, size_t len, const char *name,
                      struct cas__saves_game *out, char *err, size_t errlen);

/* Read and parse the file at path ("-" is stdin). */
int cas__record_read_file(const char *path, struct cas__saves_game *out,
                          char *err, size_t errlen);

#endif
