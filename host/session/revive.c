/*
 * revive.c — bringing a saved game back: the same plugin resolution and
 * option validation as a new session, a comparison of the installed
 * versions with the saved ones, and a replay of the journal in which every
 * actor and hash is checked.  A difference is reported, never ignored.
 */
#include "revive.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "agent_ops.h"
#include "agent_spec.h"

static CAS_PRINTF(3, 4) int fail(struct cas__revived *r, int rc, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    vsnprintf(r->error, sizeof r->error, fmt, args);
    va_end(args);
    return rc;
}

/* A session description with exactly the saved game's settings, as if it
 * had been read from a file named r->origin. */
static int desc_from_saved(struct cas__revived *r)
{
    const struct cas__saves_game *g = r->saved;
    struct cas__session_desc *d = &r->desc;
    memset(d, 0, sizeof *d);
    d->seed = g->seed;
    d->seed_given = 1;
    d->journal = 1;
    d->game_line = g->game.line;
    if (!(d->path = strdup(r->origin)) || !(d->game = strdup(g->game.id)) ||
        (g->config_text && !(d->text = strdup(g->config_text))) ||
        (g->campaign && !(d->campaign = strdup(g->campaign))) ||
        !(d->expansions = calloc(g->n_expansions + 1, sizeof *d->expansions)) ||
        !(d->rules = calloc(g->n_options + 1, sizeof *d->rules)) ||
        !(d->players = calloc(g->n_players + 1, sizeof *d->players)))
        return CAS_ENOMEM;
    for (size_t i = 0; i < g->n_expansions; i++, d->n_expansions++)
        if (!(d->expansions[i] = strdup(g->expansions[i].id)))
            return CAS_ENOMEM;
    for (size_t i = 0; i < g->n_options; i++, d->n_rules++)
        if (!(d->rules[i].key = strdup(g->options[i].key)) ||
            !(d->rules[i].value = strdup(g->options[i].value)))
            return CAS_ENOMEM;
    for (size_t i = 0; i < g->n_players; i++, d->n_players++)
        if (!(d->players[i].name = strdup(g->players[i].name)) ||
            !(d->players[i].agent = strdup(g->players[i].agent)))
            return CAS_ENOMEM;
    return CAS_OK;
}

static void append(char *buf, size_t cap, const char *id, const char *version)
{
    size_t len = strlen(buf);
    snprintf(buf + len, cap - len, "%s%s %s", len ? " + " : "", id, version);
}

void cas__revive_versions(const struct cas__revived *r, int saved, char *buf, size_t cap)
{
    const struct cas__saves_game *g = r->saved;
    const struct cas__session_plan *p = &r->plan;
    buf[0] = '\0';
    if (saved) {
        append(buf, cap, g->game.id, g->game.version);
        for (size_t i = 0; i < g->n_expansions; i++)
            append(buf, cap, g->expansions[i].id, g->expansions[i].version);
    } else {
        append(buf, cap, p->game->id, p->game->version);
        for (size_t i = 0; i < p->n_expansions; i++)
            append(buf, cap, p->expansions[i]->id, p->expansions[i]->version);
    }
}

/* Note whether any version changed, including the resolved order of the
 * expansions. */
static void compare_versions(struct cas__revived *r)
{
    const struct cas__saves_game *g = r->saved;
    const struct cas__session_plan *p = &r->plan;
    r->version_changed = strcmp(g->game.version, p->game->version) != 0 ||
                         g->n_expansions != p->n_expansions;
    for (size_t i = 0; i < p->n_expansions && i < g->n_expansions; i++)
        if (strcmp(p->expansions[i]->id, g->expansions[i].id) != 0 ||
            strcmp(p->expansions[i]->version, g->expansions[i].version) != 0)
            r->version_changed = 1;
}

/* Every player's agent must be one this castellan has, even when only
 * replaying: an import must not store a game nobody can resume. */
static int check_agents(struct cas__revived *r)
{
    for (size_t i = 0; i < r->desc.n_players; i++) {
        const char *agent = r->desc.players[i].agent;
        struct cas__agent_spec spec;
        char err[512];
        if (cas__agent_spec_parse(agent, "agent", &spec, err, sizeof err) != CAS_OK)
            return fail(r, CAS_ENOTFOUND, "%s: player %zu (%s) has agent \"%s\", "
                        "which this castellan does not know; use human, " CAS__BOT_SYNTAX,
                        r->origin, i + 1, r->desc.players[i].name, agent);
    }
    return CAS_OK;
}

static int make_agents(struct cas__revived *r, cas__agent_maker make_agent)
{
    size_t n = r->desc.n_players;
    r->agents = calloc(n, sizeof *r->agents);
    if (!r->agents)
        return fail(r, CAS_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        int rc = make_agent(r->desc.players[i].agent, &r->agents[i]);
        if (rc)
            return fail(r, rc, "%s: cannot create the %s agent of %s", r->origin,
                        r->desc.players[i].agent, r->desc.players[i].name);
    }
    return CAS_OK;
}

static int load_plugins(struct cas__revived *r, const char *cli_path,
                        const struct cas__isolation *asked)
{
    char err[768];
    int rc = CAS_OK;
    if (!r->reg_borrowed && (rc = cas__plugin_search_path(cli_path, &r->path)) == CAS_OK)
        rc = cas__registry_scan(&r->path, &r->reg);
    if (rc)
        return fail(r, rc, "out of memory");
    /* What the command asked wins over the saved session's isolation; it
     * is this session's choice, not the registry's (borrowed: the server's
     * games open on several threads, each with its own). */
    if (asked && asked->mode != CAS__ISOLATE_AUTO)
        r->desc.isolation = asked->mode;
    rc = cas__session_desc_validate(&r->desc, r->reg, &r->plan, err, sizeof err);
    if (rc)
        return fail(r, rc, "%s", err);
    compare_versions(r);
    cas__session_plan_isolate(&r->plan, asked);
    rc = cas__session_desc_open_match(&r->plan, &r->match, err, sizeof err);
    if (rc)
        return fail(r, rc, "%s: %s", r->origin, err);
    return CAS_OK;
}

static int revive(struct cas__revived *r, const struct cas__saves_game *g,
                  const char *origin, const char *cli_path,
                  cas__agent_maker make_agent, const struct cas__isolation *asked);

int cas__revive_open(struct cas__revived *r, const struct cas__saves_game *g,
                     const char *origin, const char *cli_path,
                     cas__agent_maker make_agent, const struct cas__isolation *asked)
{
    memset(r, 0, sizeof *r);
    return revive(r, g, origin, cli_path, make_agent, asked);
}

int cas__revive_open_in(struct cas__revived *r, const struct cas__saves_game *g,
                        const char *origin, struct cas__registry *reg,
                        cas__agent_maker make_agent, const struct cas__isolation *asked)
{
    memset(r, 0, sizeof *r);
    r->reg = reg;
    r->reg_borrowed = 1;
    return revive(r, g, origin, NULL, make_agent, asked);
}

/* Open g on r, which holds nothing but maybe a borrowed registry. */
static int revive(struct cas__revived *r, const struct cas__saves_game *g,
                  const char *origin, const char *cli_path,
                  cas__agent_maker make_agent, const struct cas__isolation *asked)
{
    r->saved = g;
    r->origin = origin;
    int rc = desc_from_saved(r);
    if (rc) {
        fail(r, rc, "out of memory");
        goto close;
    }
    if ((rc = check_agents(r)) || (rc = load_plugins(r, cli_path, asked)) ||
        (make_agent && (rc = make_agents(r, make_agent))))
        goto close;
    r->names = calloc(r->desc.n_players + 1, sizeof *r->names);
    if (!r->names) {
        rc = fail(r, CAS_ENOMEM, "out of memory");
        goto close;
    }
    for (size_t i = 0; i < r->desc.n_players; i++)
        r->names[i] = r->desc.players[i].name;
    rc = cas__session_init(&r->session, &r->match, g->seed, r->agents, r->names);
    if (rc) {
        fail(r, rc, "%s: %s", origin, r->session.error);
        goto close;
    }
    return CAS_OK;
close:
    cas__revive_close(r);
    return rc;
}

void cas__revive_close(struct cas__revived *r)
{
    char error[sizeof r->error];
    memcpy(error, r->error, sizeof error); /* the reason outlives the cleanup */
    if (r->session.state)
        cas__session_free(&r->session);
    for (size_t i = 0; r->agents && i < r->desc.n_players; i++)
        if (r->agents[i])
            r->agents[i]->ops->free(r->agents[i]);
    free(r->agents);
    free(r->names);
    if (r->match.game)
        cas__match_close(&r->match);
    cas__session_plan_free(&r->plan);
    cas__session_desc_free(&r->desc);
    if (!r->reg_borrowed)
        cas__registry_free(r->reg);
    cas__strlist_free(&r->path);
    free(r->new_hashes);
    const struct cas__saves_game *saved = r->saved;
    const char *origin = r->origin;
    memset(r, 0, sizeof *r);
    r->saved = saved;
    r->origin = origin;
    memcpy(r->error, error, sizeof error);
}

/* "bug.txt:12" for a record line, "game 3, ply 7" for a stored action. */
static void where(const struct cas__revived *r, const struct cas__saves_action *a,
                  char *buf, size_t cap)
{
    if (a->line)
        snprintf(buf, cap, "%s:%d (ply %" PRIu32 ")", r->origin, a->line, a->ply);
    else
        snprintf(buf, cap, "%s, ply %" PRIu32, r->origin, a->ply);
}

static int diverged(struct cas__revived *r, const struct cas__saves_action *a,
                    const char *what)
{
    char at[300], was[256], now[256];
    where(r, a, at, sizeof at);
    cas__revive_versions(r, 1, was, sizeof was);
    cas__revive_versions(r, 0, now, sizeof now);
    if (r->version_changed)
        return fail(r, CAS_EMISMATCH, "%s: %s. It was saved with %s; installed "
                    "is %s", at, what, was, now);
    return fail(r, CAS_EMISMATCH, "%s: %s, although the installed plugins are the "
                "versions it was %s with (%s)", at, what,
                a->line ? "recorded" : "saved", was);
}

/* Check one action against the journal; CAS_EMISMATCH explains a
 * divergence, other codes an action the game refuses. */
static int replay_one(struct cas__revived *r, const struct cas__saves_action *a,
                      int check)
{
    struct cas__session *s = &r->session;
    char what[512], at[300];
    int actor = cas__match_current(s->match, s->state);
    int rc = cas__session_replay(s, a->text, a->hash, check && !a->hashless);
    if (rc == CAS_OK && check && !a->actor_unknown && actor != a->actor) {
        snprintf(what, sizeof what, "%s has actor %d play \"%.200s\", but the "
                 "game asked actor %d", a->line ? "the record" : "the journal",
                 a->actor, a->text, actor);
        return diverged(r, a, what);
    }
    if (rc == CAS_EMISMATCH) {
        snprintf(what, sizeof what, "after \"%.200s\" the state hash is %016" PRIx64
                 ", %s says %016" PRIx64, a->text, s->hash,
                 a->line ? "the record" : "the journal", a->hash);
        return diverged(r, a, what);
    }
    if (rc) {
        /* The session prefixes its own "ply N: "; ours says where already. */
        const char *why = strncmp(s->error, "ply ", 4) == 0 && strstr(s->error, ": ")
                              ? strstr(s->error, ": ") + 2
                              : s->error;
        where(r, a, at, sizeof at);
        return fail(r, rc, "%s: the action \"%.200s\" cannot be replayed: %s", at,
                    a->text, why);
    }
    return CAS_OK;
}

int cas__revive_replay(struct cas__revived *r, size_t upto, int force,
                       int (*each)(void *ctx, struct cas__revived *r, size_t i),
                       void *ctx)
{
    const struct cas__saves_game *g = r->saved;
    int checking = 1;
    for (size_t i = 0; i < upto && i < g->n_actions; i++) {
        int rc = replay_one(r, &g->actions[i], checking);
        if (rc == CAS_EMISMATCH && force && checking) {
            checking = 0;
            r->first_mismatch = (uint32_t)i;
            r->new_hashes = calloc(g->n_actions - i, sizeof *r->new_hashes);
            if (!r->new_hashes)
                return fail(r, CAS_ENOMEM, "out of memory");
            rc = CAS_OK;
        }
        if (rc)
            return rc;
        if (!checking)
            r->new_hashes[r->mismatches++] = r->session.hash;
        if (each && (rc = each(ctx, r, i)))
            return rc;
    }
    return CAS_OK;
}
