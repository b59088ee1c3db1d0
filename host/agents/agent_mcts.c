/*
 * agent_mcts.c — the mcts agent: a search (host/mcts.c) kept from one
 * decision to the next, so its tree can be reused.
 */
#include "mcts.h"

#include <stdlib.h>

struct mcts_agent {
    struct cas__agent base;
    struct cas__mcts *search;
};

static int mcts_choose(struct cas__agent *agent, const struct cas__decision *d,
                       cas_action *out)
{
    return cas__mcts_choose(((struct mcts_agent *)agent)->search, d, out);
}

static void mcts_free(struct cas__agent *agent)
{
    if (!agent)
        return;
    cas__mcts_free(((struct mcts_agent *)agent)->search);
    free(agent);
}

static const struct cas__agent_ops mcts_ops = {
    .kind = "mcts", .choose = mcts_choose, .free = mcts_free,
};

int cas__agent_mcts_new(const struct cas__mcts_params *params, struct cas__agent **out)
{
    *out = NULL;
    struct mcts_agent *a = calloc(1, sizeof *a);
    if (!a)
        return CAS_ENOMEM;
    a->base.ops = &mcts_ops;
    int rc = cas__mcts_new(params, &a->search);
    if (rc != CAS_OK) {
        free(a);
        return rc;
    }
    *out = &a->base;
    return CAS_OK;
}

const struct cas__mcts_stats *cas__agent_mcts_stats(const struct cas__agent *agent)
{
    if (!agent || agent->ops != &mcts_ops)
        return NULL;
    return cas__mcts_last(((const struct mcts_agent *)agent)->search);
}
