/*
 * session_plan.h — a parsed session description (config/session_desc.h)
 * checked against the installed plugins, and the game it creates
 * (host-internal).
 */
#ifndef CAS_HOST_SESSION_PLAN_H
#define CAS_HOST_SESSION_PLAN_H

#include "registry.h"
#include "worker.h"
#include "session_desc.h"

struct cas_option_value;
struct cas__match;

/* Every option one plugin declares, in its declaration order, with the
 * session's value or the default. */
struct cas__plugin_options {
    struct cas_option_value *values; /* names and values owned here */
    size_t count;
};

/* A session checked against the installed plugins, ready to play. */
struct cas__session_plan {
    struct cas__plugin_info *game;        /* loaded; owned by the registry */
    struct cas__plugin_info **expansions; /* resolved order; array owned here */
    size_t n_expansions;
    struct cas__plugin_options game_options;
    struct cas__plugin_options *expansion_options; /* parallel to expansions */
    int nplayers;
    /* How the game runs: desc's isolation and deadline, auto resolved to
     * a worker when the game or an expansion is not bundled. */
    struct cas__isolation isolation;
    /* Where its foreign plugins were loaded: the session's choice. */
    enum cas__foreign foreign;
};

/* plan's isolation with what the user asked on the command line laid
 * over it: a mode other than auto, a deadline other than 0. */
void cas__session_plan_isolate(struct cas__session_plan *plan,
                               const struct cas__isolation *asked);

/* Resolve desc's game and expansions in reg (loading them), validate every
 * [rules] setting against the options the plugins declare, fill defaults,
 * and check the player count against the game's limits as raised by the
 * expansions.  On failure err names the file:line (or flag), the bad value
 * and the closest valid choice, and *out is empty.  The plan borrows from
 * reg, which must outlive it; free it with cas__session_plan_free. */
int cas__session_desc_validate(const struct cas__session_desc *desc,
                               struct cas__registry *reg,
                               struct cas__session_plan *out, char *err,
                               size_t errlen);
/* cas__session_desc_validate without the player count: for check and
 * bench, which choose it themselves (desc may have no players).  Same
 * contract; out->nplayers is 0. */
int cas__session_desc_validate_rules(const struct cas__session_desc *desc,
                                     struct cas__registry *reg,
                                     struct cas__session_plan *out, char *err,
                                     size_t errlen);
void cas__session_plan_free(struct cas__session_plan *plan);

/* Create the game of a validated plan through cas__match_open (host/match.h).
 * The caller owns m afterwards (cas__match_close); plan stays the caller's. */
int cas__session_desc_open_match(const struct cas__session_plan *plan,
                                 struct cas__match *m, char *err, size_t errlen);

#endif
