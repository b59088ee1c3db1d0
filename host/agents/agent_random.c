/*
 * agent_random.c — the random bot: uniform over the legal actions, drawn
 * from the player's PRNG stream at this ply so it replays exactly
 * (host/session/random_play.c).
 */
#include "agent.h"

static int random_choose(struct cas__agent *agent, const struct cas__decision *d,
                         cas_action *out)
{
    (void)agent;
    return cas__random_player_action(d->match, d->state, d->legal, d->seed, d->ply, d->player,
                                     out);
}

static const struct cas__agent_ops random_ops = {
    .kind = "random", .choose = random_choose, .free = cas__agent_plain_free,
    .draws_unlisted = 1,
};

int cas__agent_random_new(struct cas__agent **out)
{
    return cas__agent_plain_new(&random_ops, out);
}
