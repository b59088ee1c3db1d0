/*
 * agent_random.c — random play: the random bot, uniform over the legal
 * actions, drawn from the player's PRNG stream at this ply so it replays
 * exactly; and chance drawn by weight the same way.
 */
#include "agent.h"
#include "prng.h"

#include <stdlib.h>

int cas__random_action(struct cas__match *m, const cas_state *state,
                       struct cas__actions *list, uint64_t seed, uint32_t ply,
                       cas_action *out)
{
    struct cas__prng r;
    int actor = cas__match_current(m, state);
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
    if (actor < 0 || list->count == 0)
        return CAS_EINVAL;
    cas__prng_init(&r, seed, ply, CAS__STREAM_PLAYER(actor));
    *out = list->items[cas__prng_below(&r, list->count)];
    return CAS_OK;
}

int cas__random_step(struct cas__match *m, cas_state *state, struct cas__actions *list,
                     uint64_t seed, uint32_t ply)
{
    cas_action action;
    int rc = CAS_OK;
    if (cas__match_current(m, state) != CAS_ACTOR_CHANCE) /* chance draws by weight */
        rc = cas__match_legal(m, state, list);
    if (rc == CAS_OK)
        rc = cas__random_action(m, state, list, seed, ply, &action);
    if (rc == CAS_OK)
        rc = m->vt->apply(state, action, NULL);
    return rc;
}

static int random_choose(struct cas__agent *agent, const struct cas__decision *d,
                         cas_action *out)
{
    (void)agent;
    struct cas__prng r;
    if (d->legal->count == 0)
        return CAS_EINVAL;
    cas__prng_init(&r, d->seed, d->ply, CAS__STREAM_PLAYER(d->player));
    *out = d->legal->items[cas__prng_below(&r, d->legal->count)];
    return CAS_OK;
}

static const struct cas__agent_ops random_ops = {
    .kind = "random", .choose = random_choose, .free = cas__agent_plain_free,
};

int cas__agent_random_new(struct cas__agent **out)
{
    return cas__agent_plain_new(&random_ops, out);
}
