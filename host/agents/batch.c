/*
 * batch.c — the worker's batches: host code (the random playouts of bench,
 * a bot's whole decision) run inside the worker next to the plugin, so
 * that one message stands for thousands of vtable calls.  The worker runs
 * them through the table this file fills (host/worker/worker.h); the
 * agents drive the plugin through a match of the worker's own, checked as
 * the host's is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"
#include "worker.h"

/* The agents asked for so far, kept by spec: a search bot keeps its tree
 * from one decision to the next, as it does in process. */
#define MAX_AGENTS 16

struct cas__worker_batch {
    struct cas__match match;
    struct cas__actions legal;
    struct {
        char spec[128];
        struct cas__agent *agent;
    } agents[MAX_AGENTS];
    size_t n_agents;
};

/* A broken promise of the plugin, met by host code in the worker: the
 * batch fails with its text (the match layer returns a safe value). */
static void batch_violation(void *ctx, const struct cas__worker_fault *fault)
{
    struct cas__worker_side *ws = ctx;
    snprintf(ws->error, sizeof ws->error, "%s", fault->text);
}

static int batch_begin(struct cas__worker_side *ws, const struct cas_plugin *plugin)
{
    struct cas__worker_batch *b = calloc(1, sizeof *b);
    if (!b)
        return CAS_ENOMEM;
    b->match.plugin = plugin;
    b->match.vt = ws->vt;
    b->match.game = ws->game;
    b->match.nplayers = ws->nplayers;
    b->match.on_fault = (struct cas__fault_handler){.fault = batch_violation, .ctx = ws};
    snprintf(b->match.title, sizeof b->match.title, "%s", plugin->id);
    ws->batch = b;
    return CAS_OK;
}

static void batch_free(struct cas__worker_side *ws)
{
    struct cas__worker_batch *b = ws->batch;
    if (!b)
        return;
    for (size_t i = 0; i < b->n_agents; i++)
        cas__agent_free(b->agents[i].agent);
    cas__actions_free(&b->legal);
    free(b);
    ws->batch = NULL;
}

static int batch_playouts(struct cas__worker_side *ws, const struct cas__wire_field *f,
                          struct cas__wire_out *out)
{
    uint64_t plies = 0, checksum = 0;
    int games = (int)(int32_t)f[1].n;
    int rc = !ws->batch || games < 0 ? CAS_EINVAL
                                     : cas__playouts(&ws->batch->match, f[0].n, games, &plies,
                                                     &checksum);
    cas__wire_u64(out, plies);
    cas__wire_u64(out, checksum);
    return rc;
}

/* The agent of spec, created the first time it is asked for; NULL when
 * spec names none (ws->error says so) or there is no room. */
static struct cas__agent *agent_of(struct cas__worker_side *ws, const char *spec)
{
    struct cas__worker_batch *b = ws->batch;
    for (size_t i = 0; i < b->n_agents; i++)
        if (strcmp(b->agents[i].spec, spec) == 0)
            return b->agents[i].agent;
    struct cas__agent *agent = NULL;
    if (strlen(spec) >= sizeof b->agents[0].spec || b->n_agents == MAX_AGENTS ||
        strcmp(spec, "human") == 0 || cas__agent_new(spec, &agent) != CAS_OK) {
        snprintf(ws->error, sizeof ws->error, "worker: no bot \"%.100s\" to decide", spec);
        return NULL;
    }
    snprintf(b->agents[b->n_agents].spec, sizeof b->agents[0].spec, "%s", spec);
    b->agents[b->n_agents++].agent = agent;
    return agent;
}

static int batch_decide(struct cas__worker_side *ws, const struct cas__wire_field *f,
                        struct cas__wire_out *out)
{
    cas_action action = 0;
    int rc = CAS_EINVAL;
    cas_state *s = ws->batch ? cas__worker_state(ws, f[0].n) : NULL;
    struct cas__agent *agent = s ? agent_of(ws, (const char *)f[1].data) : NULL;
    int player = (int)(int32_t)f[2].n;
    if (agent && player >= 0 && player < ws->nplayers) {
        struct cas__match *m = &ws->batch->match;
        rc = cas__match_legal(m, s, &ws->batch->legal);
        if (rc == CAS_OK && ws->batch->legal.count == 0)
            rc = CAS_EINVAL;
        struct cas__decision d = {
            .match = m, .state = s, .player = player,
            .player_name = cas__match_label(m, player), .seed = f[3].n,
            .ply = (uint32_t)f[4].n, .legal = &ws->batch->legal,
        };
        if (rc == CAS_OK)
            rc = cas__agent_choose(agent, &d, &action);
    }
    cas__wire_u64(out, rc == CAS_OK ? action : 0);
    return rc;
}

const struct cas__worker_batches cas__agent_batches = {
    .begin = batch_begin, .free = batch_free, .playouts = batch_playouts, .decide = batch_decide,
};
