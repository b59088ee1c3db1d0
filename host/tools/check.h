/*
 * check.h — the conformance checker every plugin gets (host-internal):
 * random games in which every step is checked against the ABI's promises.
 * `castellan check` and the test suite both call cas__check_run.
 */
#ifndef CAS_HOST_CHECK_H
#define CAS_HOST_CHECK_H

#include <stdint.h>
#include <stdio.h>

#include <castellan/plugin.h>

/* The game to check: a loaded game plugin and how to open it.  Borrowed. */
struct cas__isolation;
struct cas__fault_handler;
struct cas__check_report;

struct cas__check_target {
    const struct cas_plugin *plugin;
    const char *data_dir;
    const struct cas_option_value *options; /* every declared option */
    size_t n_options;
    const struct cas_expansion_ref *expansions;
    size_t n_expansions;
    /* The options not at their default as --rule NAME=VALUE takes them, for
     * the report (options holds the values); NULL when none. */
    const char *const *rules;
    size_t n_rules;
    int min_players, max_players; /* games cycle through these counts */
    /* How the game runs (host/worker/worker.h); NULL: in process. */
    const struct cas__isolation *isolation;
    /* Who hears of a worker's crash or hang; NULL: printed, exit 1. */
    const struct cas__fault_handler *on_fault;
};

struct cas__check_options {
    int games;          /* random games to play; 0 means 20 */
    uint64_t seed;      /* game i is played with seed + i */
    uint32_t max_plies; /* a longer game fails "terminates"; 0 means 100000 */
    FILE *progress;     /* a progress line if a terminal (cas__progress), or NULL */
    /* --plugin-path as given, repeated in the report's reproduce line; or
     * NULL. */
    const char *plugin_path;
    /* Told before every step (the report's seed, nplayers and ply say
     * where the run is), or NULL: a check run in a worker says so to the
     * host, which then knows where a crash or a hang happened. */
    void (*on_step)(void *ctx, const struct cas__check_report *where);
    void *step_ctx;
};

/* The outcome of a run: counts, and the first broken property.  While the
 * run goes on, seed, nplayers and ply tell where it is (a crash handler
 * may print them). */
struct cas__check_report {
    int games;             /* games finished */
    uint64_t plies;        /* steps checked */
    uint64_t distinct;     /* distinct states (by serialized bytes) seen */
    int failed;            /* 0: every property held */
    char property[48];     /* e.g. "text-round-trip" */
    char plugin[64];
    char expansions[256];  /* their ids, comma-separated */
    char rules[512];       /* the target's rules, space-separated, or "" */
    char rule_flags[768];  /* the same as shell-quoted --rule flags */
    char path_flag[1100];  /* " --plugin-path 'DIR'" when one was given, or "" */
    int nplayers;
    uint64_t seed;
    /* The first game the failure needs: seed, or for two states of
     * different games that collide, the earlier one's seed. */
    uint64_t first_seed;
    uint32_t ply;
    char action[128];      /* the action concerned, as text, or "" */
    char detail[512];      /* what was expected and what happened */
};

/* Play opt->games random games of t and check every step: legal actions
 * non-empty, sorted and unique until the end; action text round-trips;
 * clone, copy and serialize/deserialize keep the hash; reserializing gives
 * the same bytes; any two states of the run that serialize differently
 * hash differently; a clone lists the same legal actions; chance outcomes match the legal actions with weights > 0;
 * illegal actions are refused; renders succeed for every viewer; events
 * are well formed; a plugin's chance_total and chance_pick (ABI 1.1) agree
 * with the listed outcomes ticket for ticket; the same seed gives the same
 * game (replayed with chance drawn from the listing); two interleaved
 * games do not disturb each other.  Stops at the first failure.  Returns
 * CAS_OK when everything held, CAS_EMISMATCH when a property broke, another
 * negative code when the game could not even be opened; the report says
 * which in every case. */
int cas__check_run(const struct cas__check_target *t, const struct cas__check_options *opt,
                   struct cas__check_report *report);

/* The failure (or the summary) as lines for a person. */
void cas__check_print(const struct cas__check_report *report, FILE *out);

/* Every text of r NUL-terminated within its array: a report that crossed
 * from a worker is read as text only after this. */
void cas__check_report_seal(struct cas__check_report *r);

/* In castellan-worker started for a check (check_child.c): the rest of
 * the setup r, the descriptors that came with it; the exit status. */
struct cas__setup_reader;
int cas__check_serve(int sock, struct cas__setup_reader *r, const int *fds, size_t n_fds);

/* `castellan check` of t in one confined worker (check_child.c): the
 * checker runs there, next to the plugin.  CAS_OK with the whole report
 * (passed or failed); else CAS_EIO, with the worker's fault in fault in
 * check's words ("crash (signal 11)", "hang (no answer within MS ms)",
 * "abi (...)") and where it happened (seed, nplayers, ply, and the
 * target's names) in *report.  deadline_ms bounds each step (0: the
 * default). */
int cas__worker_check(const struct cas__check_target *t, const struct cas__check_options *opt,
                      unsigned deadline_ms, struct cas__check_report *report, char *fault,
                      size_t cap);

#endif
