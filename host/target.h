/*
 * target.h — a game plugin and its expansions found, resolved, loaded and
 * given their default options: what `castellan check` and `castellan bench`
 * run (host-internal).
 */
#ifndef CAS_HOST_TARGET_H
#define CAS_HOST_TARGET_H

#include "match.h"
#include "registry.h"

#define CAS__MAX_EXPANSIONS 32

struct cas__target {
    struct cas__strlist path;
    struct cas__registry *reg;                /* owns the plugin infos */
    struct cas__plugin_info *game;
    struct cas__plugin_info *expansions[CAS__MAX_EXPANSIONS]; /* resolved order */
    size_t n_expansions;
    struct cas_option_value *game_options;    /* owned; defaults */
    size_t n_game_options;
    struct cas_option_value *expansion_options[CAS__MAX_EXPANSIONS]; /* owned */
    struct cas_expansion_ref refs[CAS__MAX_EXPANSIONS];
    int min_players, max_players;             /* what the combination allows */
};

/* Find game_id and the comma-separated expansion ids (NULL or "" for none)
 * on the plugin search path (cli_path first, may be NULL), load and order
 * them, and fill default options.  On failure err explains (unknown ids
 * come with the closest valid one) and t needs no close. */
int cas__target_open(struct cas__target *t, const char *cli_path, const char *game_id,
                     const char *expansions, char *err, size_t errlen);

/* Open a match of the target for nplayers; same contract as
 * cas__match_open. */
int cas__target_match(const struct cas__target *t, struct cas__match *m, int nplayers,
                      char *err, size_t errlen);

void cas__target_close(struct cas__target *t);

#endif
