/*
 * random_play.c — random play by the session's PRNG: chance drawn by
 * weight, a player's action drawn uniformly (by the plugin itself when it
 * draws one without the listing, ABI 1.2 random_action), each from its own
 * stream at this ply so it replays exactly.
 */
#include "random_play.h"
#include "prng.h"

/* Drawn on the player's stream at (seed, ply): by the plugin's
 * random_action where it has one (which draws what a pick from the listing
 * draws: the same distribution), else from list. */
int cas__random_player_action(struct cas__match *m, const cas_state *state,
                              const struct cas__actions *list, uint64_t seed, uint32_t ply,
                              int actor, cas_action *out)
{
    struct cas__prng r;
    cas__prng_init(&r, seed, ply, CAS__STREAM_PLAYER(actor));
    if (cas__match_draws_actions(m)) {
        struct cas_rng rng = cas__prng_rng(&r);
        return m->vt->random_action(state, &rng, out);
    }
    if (list->count == 0)
        return CAS_EINVAL;
    *out = list->items[cas__prng_below(&r, list->count)];
    return CAS_OK;
}

/* cas__random_action for the actor current() named. */
static int action_of(struct cas__match *m, const cas_state *state, struct cas__actions *list,
                     uint64_t seed, uint32_t ply, int actor, cas_action *out)
{
    struct cas__prng r;
    if (actor == CAS_ACTOR_CHANCE && cas__match_picks_chance(m)) {
        uint64_t total = m->vt->chance_total(state);
        if (total == 0)
            return CAS_EINVAL;
        cas__prng_init(&r, seed, ply, CAS__STREAM_CHANCE);
        return m->vt->chance_pick(state, cas__prng_below(&r, total), out);
    }
    if (actor == CAS_ACTOR_CHANCE) {
        size_t index;
        int rc = cas__match_outcomes(m, state, list);
        if (rc == CAS_OK) {
            cas__prng_init(&r, seed, ply, CAS__STREAM_CHANCE);
            rc = cas__prng_pick_weighted(&r, list->outcomes, list->n_outcomes, &index);
        }
        if (rc == CAS_OK)
            *out = list->outcomes[index].action;
        return rc;
    }
    if (actor < 0)
        return CAS_EINVAL;
    return cas__random_player_action(m, state, list, seed, ply, actor, out);
}

int cas__random_action(struct cas__match *m, const cas_state *state,
                       struct cas__actions *list, uint64_t seed, uint32_t ply,
                       cas_action *out)
{
    return action_of(m, state, list, seed, ply, cas__match_current(m, state), out);
}

int cas__random_step(struct cas__match *m, cas_state *state, struct cas__actions *list,
                     uint64_t seed, uint32_t ply)
{
    cas_action action;
    int rc = CAS_OK, actor = cas__match_current(m, state);
    /* chance draws by weight; a plugin with random_action needs no list */
    if (actor != CAS_ACTOR_CHANCE && !cas__match_draws_actions(m))
        rc = cas__match_legal(m, state, list);
    if (rc == CAS_OK)
        rc = action_of(m, state, list, seed, ply, actor, &action);
    if (rc == CAS_OK)
        rc = m->vt->apply(state, action, NULL);
    return rc;
}
