/*
 * random_play.h — random play by the session's PRNG (host-internal): a
 * chance outcome drawn by weight, and a player's action drawn uniformly,
 * each on its own stream at (seed, ply), so that it replays exactly.  What
 * a session's chance, the random bot, playouts and the checker play.
 */
#ifndef CAS_HOST_RANDOM_PLAY_H
#define CAS_HOST_RANDOM_PLAY_H

#include <stdint.h>

#include "match.h"

/* The action random play takes in `state` at (seed, ply): a chance outcome
 * drawn by weight on the chance stream, or one of the player's legal
 * actions, uniformly, on that player's stream: by the plugin's
 * random_action (ABI 1.2) where it has one, else from list.  This is what a session's
 * chance and its random bot do, and what the checker plays.  At a chance
 * node a plugin with chance_total and chance_pick (ABI 1.1) is asked for
 * the outcome of the drawn ticket, unless m->generic_chance is set; else
 * list receives the outcomes and the ticket walks their weights (the same
 * outcome either way).  Elsewhere list must hold the legal actions of
 * state, unless cas__match_draws_actions(m).  Returns CAS_OK or the
 * plugin's negative code. */
int cas__random_action(struct cas__match *m, const cas_state *state,
                       struct cas__actions *list, uint64_t seed, uint32_t ply,
                       cas_action *out);

/* The random action of player `actor` (the one to decide in `state`), as
 * cas__random_action draws it: the random bot's choice. */
int cas__random_player_action(struct cas__match *m, const cas_state *state,
                              const struct cas__actions *list, uint64_t seed, uint32_t ply,
                              int actor, cas_action *out);

/* List the legal actions of `state` (not terminal; at a chance node its
 * outcomes only; nothing where the plugin draws actions itself) into list,
 * take the random action of (seed, ply) and apply it without events: one
 * step of a random playout. */
int cas__random_step(struct cas__match *m, cas_state *state, struct cas__actions *list,
                     uint64_t seed, uint32_t ply);

#endif
