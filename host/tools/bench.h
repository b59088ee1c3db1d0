/*
 * bench.h — `castellan bench` measurements (host-internal).  Each section
 * measures one thing on the same match and prints its own figures; adding
 * a measurement (the save journal's throughput, resume time) is adding a
 * row to cas__bench_sections.
 */
#ifndef CAS_HOST_BENCH_H
#define CAS_HOST_BENCH_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "check.h"
#include "match.h"

/* The session without one of its expansions, for the marginal section. */
struct cas__bench_without {
    const char *id;           /* the expansion left out */
    struct cas__match *match; /* borrowed; NULL when it could not be opened */
    const char *error;        /* why not, when match is NULL */
};

/* --rounds takes 1 to this many. */
#define CAS__BENCH_MAX_ROUNDS 99

/* What every section gets. */
struct cas__bench {
    struct cas__match *match; /* the game measured, borrowed */
    /* The same game without expansions, same players and game options: the
     * playouts are compared with it.  Borrowed; NULL for no comparison. */
    struct cas__match *alone;
    /* Why there is no such match although there are expansions, or NULL. */
    const char *alone_error;
    int games;                /* playouts to run */
    /* --rounds: the playouts and marginal sections time each of their
     * matches this many times, one after another in turn, and print the
     * median round's figures (1 to CAS__BENCH_MAX_ROUNDS). */
    int rounds;
    /* --marginal: the session without each of its expansions in turn, one
     * entry per expansion, borrowed; n_without is 0 without expansions. */
    int marginal_requested;
    int game_has_expansions;  /* some are installed: marginal may ask for them */
    const struct cas__bench_without *without;
    size_t n_without;
    int floor;                /* --floor: also time the game's bare loop */
    /* The playouts' games per second once the playouts section ran, for
     * the floor's ratio; 0 before. */
    double playouts_per_second;
    double playouts_per_cpu_second; /* the same per second of CPU time */
    uint64_t seed;
    FILE *out;
    int width;                /* columns to wrap out's lines to (0: 80) */
    FILE *progress;           /* a progress line if a terminal, or NULL */
    /* States met along playouts, collected before the first section that
     * needs them and freed by cas__bench_run. */
    cas_state **samples;
    size_t n_samples;
    /* --isolated: the same game in a worker process (host/worker), whose
     * cost per action the isolation section measures against match (then
     * in process).  Borrowed; NULL with isolated_error saying why. */
    int isolated_requested;
    struct cas__match *isolated;
    const char *isolated_error;
    /* With --isolated: the game as check takes it, to time 100 checked
     * games in process and in one worker; NULL: not timed. */
    const struct cas__check_target *check;
    /* --database: a PostgreSQL URL whose journal and resume the saves
     * section also measures, or NULL. */
    const char *pg_url;
    /* The serve section's measurement, which the bench command gives
     * (host/clients/bench_serve.c: the clients are a room above the tools);
     * NULL: the section cannot run. */
    int (*serve)(struct cas__bench *b);
    /* Its last measure alone (--only serve-hosted): a move's cost with up
     * to `hosted` games hosted (--hosted; 0: 8,000). */
    int (*serve_hosted)(struct cas__bench *b);
    size_t hosted;
    /* The club pages' snapshot and pages timed on the ratings section's
     * history, the store at database (host/clients/bench_club.c); NULL:
     * not timed. */
    int (*club)(struct cas__bench *b, const char *database);
};

enum { CAS__BENCH_ON_FLOOR = 1, CAS__BENCH_ON_ISOLATED = 2, CAS__BENCH_ON_MARGINAL = 3,
       CAS__BENCH_ON_ONLY = 4 /* with --only alone */ };

struct cas__bench_section {
    const char *name; /* for --only */
    const char *what; /* one line for --help */
    int needs_samples; /* measures b->samples (at least one) */
    /* 0: always; else it runs only when asked for: CAS__BENCH_ON_FLOOR
     * (--floor), CAS__BENCH_ON_ISOLATED (--isolated),
     * CAS__BENCH_ON_MARGINAL (--marginal), or --only. */
    int on_request;
    /* Measure and print.  Returns CAS_OK or a negative code after printing
     * why it could not measure. */
    int (*run)(struct cas__bench *b);
};

/* The save journal's throughput and resume time (host/bench_saves.c). */
int cas__bench_saves(struct cas__bench *b);

/* Every rating recomputed from a stored history of 100,000 finished games
 * (host/tools/bench_ratings.c). */
int cas__bench_ratings(struct cas__bench *b);

/* MCTS iterations per second on one and on every core (host/bench_mcts.c). */
/* The state of the first player decision of the bench's first game of m
 * into *out (the caller frees it), its legal actions into legal. */
int cas__bench_first_decision(struct cas__bench *b, struct cas__match *m, cas_state **out,
                              struct cas__actions *legal);

int cas__bench_mcts(struct cas__bench *b);

/* Every section, in the order they run; NULL-name terminated. */
extern const struct cas__bench_section cas__bench_sections[];

/* Run every section, or only the one named `only` when it is not NULL.
 * Returns the first failure. */
int cas__bench_run(struct cas__bench *b, const char *only);

/* One line of results onto b->out (fmt's trailing newline optional),
 * wrapped to b->width with continuation lines indented by `indent`. */
void cas__bench_vprint(struct cas__bench *b, int indent, const char *fmt, va_list args);

/* A throwaway store for a section: a new private folder under `base`
 * (NULL: $TMPDIR, else /tmp) with the path of NAME in it; dir[512] and
 * db[600] are the caller's.  CAS_EIO when the folder cannot be made.
 * cas__bench_scratch_remove removes the store (and its -wal, -shm) and the
 * folder. */
int cas__bench_scratch(const char *base, const char *name, char *dir, char *db);
void cas__bench_scratch_remove(const char *dir, const char *db);

/* Seconds on a monotonic clock, for sections. */
double cas__bench_now(void);

#endif
