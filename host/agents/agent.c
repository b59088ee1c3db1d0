/*
 * agent.c — creating agents by the kind a config names.
 */
#include "agent.h"
#include "term.h"

#include "agent_spec.h"
#include "mcts.h"

#include <stdlib.h>
#include <string.h>

static int agent_new(const char *kind, struct cas__agent **out);

int cas__agent_new(const char *kind, struct cas__agent **out)
{
    int rc = agent_new(kind, out);
    if (rc == CAS_OK)
        snprintf((*out)->spec, sizeof (*out)->spec, "%s",
                 strlen(kind) < sizeof (*out)->spec ? kind : "");
    return rc;
}

static int agent_new(const char *kind, struct cas__agent **out)
{
    struct cas__agent_spec spec;
    char err[256];
    *out = NULL;
    if (cas__agent_spec_parse(kind, "agent", &spec, err, sizeof err) != CAS_OK)
        return CAS_ENOTFOUND;
    if (strcmp(spec.kind, "mcts") == 0) {
        struct cas__mcts_params params;
        cas__mcts_from_spec(&spec, &params);
        return cas__agent_mcts_new(&params, out);
    }
    if (strcmp(kind, "random") == 0)
        return cas__agent_random_new(out);
    if (strcmp(kind, "greedy") == 0)
        return cas__agent_greedy_new(out);
    if (strcmp(kind, "human") == 0)
        return cas__agent_human_new(stdin, stdout, cas__term_format(stdout), out);
    return CAS_ENOTFOUND;
}

void cas__agent_free(struct cas__agent *agent)
{
    if (agent)
        agent->ops->free(agent);
}

int cas__agent_plain_new(const struct cas__agent_ops *ops, struct cas__agent **out)
{
    *out = malloc(sizeof **out);
    if (!*out)
        return CAS_ENOMEM;
    (*out)->ops = ops;
    (*out)->spec[0] = '\0';
    return CAS_OK;
}

void cas__agent_plain_free(struct cas__agent *agent)
{
    free(agent);
}
