/*
 * agent.c — creating agents by the kind a config names.
 */
#include "agent.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int cas__agent_new(const char *kind, struct cas__agent **out)
{
    *out = NULL;
    if (strcmp(kind, "random") == 0)
        return cas__agent_random_new(out);
    if (strcmp(kind, "greedy") == 0)
        return cas__agent_greedy_new(out);
    if (strcmp(kind, "human") == 0)
        return cas__agent_human_new(stdin, stdout,
                                    isatty(fileno(stdout)) ? CAS_RENDER_ANSI
                                                           : CAS_RENDER_TEXT,
                                    out);
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
    return CAS_OK;
}

void cas__agent_plain_free(struct cas__agent *agent)
{
    free(agent);
}
