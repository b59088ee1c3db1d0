/*
 * agent_random.c — the random bot: uniform over the legal actions, drawn
 * from the player's PRNG stream at this ply, so it replays exactly.
 */
#include "agent.h"
#include "prng.h"

#include <stdlib.h>

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
