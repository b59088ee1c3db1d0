/*
 * target.h — a game plugin and its expansions found, resolved, loaded and
 * given their options (defaults, or --rule NAME=VALUE checked exactly as
 * `castellan play` checks them): what `castellan check` and `castellan
 * bench` run (host-internal).
 */
#ifndef CAS_HOST_TARGET_H
#define CAS_HOST_TARGET_H

#include "check.h"
#include "match.h"
#include "registry.h"
#include "session_plan.h"

struct cas__target {
    struct cas__strlist path;
    struct cas__registry *reg;      /* owns the plugin infos */
    /* The game, its expansions in resolved order and every option's value;
     * plan.nplayers is unused (0): the commands choose the count. */
    struct cas__session_plan plan;
    struct cas_expansion_ref *refs; /* one per expansion; owned */
    /* The options not at their default, as --rule takes them: NAME=VALUE
     * for the game's, ID.NAME=VALUE for an expansion's. */
    struct cas__strlist rules;
    int min_players, max_players;   /* what the combination allows */
};

/* What check or bench was asked to measure; the caller owns the strings. */
struct cas__target_request {
    const char *plugin_path;  /* --plugin-path, searched first; or NULL */
    const char *game;         /* the game's id */
    const char *game_flag;    /* how errors name the game ("--game", "PLUGIN") */
    const char *expansions;   /* comma-separated ids; NULL or "" for none */
    const char *const *rules; /* "NAME=VALUE" or "ID.NAME=VALUE", n_rules */
    size_t n_rules;
    /* --isolated, --in-process, --plugin-deadline; zero: the defaults */
    struct cas__isolation isolation;
};

/* Find the request's game and expansions on the plugin search path, load
 * and order them, and give every option the value a rule sets (as
 * `castellan play --rule`) or its default.  When rules are given the game
 * is opened once, for the fewest players, so the plugin judges the values
 * too.  On failure err explains as play does (the flag, the bad value, the
 * closest valid choice) and t needs no close; the result is CAS_EPARSE when
 * a flag is malformed (bad usage), another negative code otherwise. */
int cas__target_open(struct cas__target *t, const struct cas__target_request *req,
                     char *err, size_t errlen);

/* CAS_OK when the combination allows nplayers; else CAS_EINVAL and err
 * says "GAME is for MIN to MAX players, not N" (bad usage of --players). */
int cas__target_check_players(const struct cas__target *t, int nplayers, char *err,
                              size_t errlen);

/* Open a match of the target for nplayers; same contract as
 * cas__match_open. */
int cas__target_match(const struct cas__target *t, struct cas__match *m, int nplayers,
                      char *err, size_t errlen);

/* The same game without its expansions, with the game's own options as in
 * the target: what bench compares the combination against.  Same
 * contract. */
int cas__target_match_alone(const struct cas__target *t, struct cas__match *m, int nplayers,
                            char *err, size_t errlen);

/* The target without expansion left_out (an index into t->refs), the
 * others with their options as in the target: what bench's marginal
 * section compares the combination against.  refs is the caller's room
 * for the other expansions' refs (plan.n_expansions - 1 of them); it must
 * stay untouched while the match is open.  Same contract otherwise. */
int cas__target_match_without(const struct cas__target *t, size_t left_out,
                              struct cas_expansion_ref *refs, struct cas__match *m,
                              int nplayers, char *err, size_t errlen);

/* What cas__check_run needs to check the target, borrowing from it, over
 * every player count the combination allows. */
struct cas__check_target cas__target_check(const struct cas__target *t);

void cas__target_close(struct cas__target *t);

#endif
