/*
 * target.c — resolving a game and its expansions for check and bench: the
 * session validation of `castellan play` (session_validate.c) finds, orders and loads
 * them and checks every --rule; the player count is the command's.
 */
#include "target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

static int fill_refs(struct cas__target *t)
{
    size_t n = t->plan.n_expansions;
    t->refs = calloc(n ? n : 1, sizeof *t->refs);
    if (!t->refs)
        return CAS_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const struct cas__plugin_info *e = t->plan.expansions[i];
        t->refs[i] = (struct cas_expansion_ref){
            .struct_size = sizeof t->refs[i],
            .id = e->desc->id,
            .version = e->desc->version,
            .data_dir = e->data_dir,
            .extension = e->desc->extension,
            .options = t->plan.expansion_options[i].values,
            .n_options = t->plan.expansion_options[i].count,
        };
    }
    return CAS_OK;
}

/* The options of `plugin` (values in `o`) not at their default onto
 * t->rules, named with `prefix` ("" for the game, "ID." for an expansion). */
static int list_changed(struct cas__target *t, const struct cas_plugin *plugin,
                        const struct cas__plugin_options *o, const char *prefix)
{
    for (size_t i = 0; i < o->count; i++) {
        if (strcmp(o->values[i].value, plugin->options[i].default_value) == 0)
            continue;
        char rule[1024];
        snprintf(rule, sizeof rule, "%s%s=%s", prefix, o->values[i].name, o->values[i].value);
        if (cas__strlist_push(&t->rules, rule) != CAS_OK)
            return CAS_ENOMEM;
    }
    return CAS_OK;
}

static int list_rules(struct cas__target *t)
{
    int rc = list_changed(t, t->plan.game->desc, &t->plan.game_options, "");
    for (size_t i = 0; rc == CAS_OK && i < t->plan.n_expansions; i++) {
        char prefix[80];
        snprintf(prefix, sizeof prefix, "%s.", t->plan.expansions[i]->id);
        rc = list_changed(t, t->plan.expansions[i]->desc, &t->plan.expansion_options[i],
                          prefix);
    }
    return rc;
}

/* The session play would validate for these flags, without seats, into
 * t->plan; err explains as play does. */
static int validate(struct cas__target *t, const struct cas__target_request *req, char *err,
                    size_t errlen)
{
    struct cas__session_flags flags = {
        .game = req->game, .game_flag = req->game_flag, .expansions = req->expansions,
        .rules = req->rules, .n_rules = req->n_rules,
    };
    struct cas__session_desc desc;
    int rc = cas__session_desc_from_flags(&flags, &desc, err, errlen);
    if (rc != CAS_OK)
        return rc;
    rc = cas__session_desc_validate_rules(&desc, t->reg, &t->plan, err, errlen);
    cas__session_desc_free(&desc);
    /* Only malformed flags are bad usage; from here on a plugin refused. */
    return rc == CAS_EPARSE ? CAS_EINVAL : rc;
}

/* Let the plugin judge the values it alone understands (a tile list). */
static int try_open(const struct cas__target *t, char *err, size_t errlen)
{
    struct cas__match m;
    int rc = cas__target_match(t, &m, t->min_players, err, errlen);
    if (rc == CAS_OK)
        cas__match_close(&m);
    return rc;
}

int cas__target_open(struct cas__target *t, const struct cas__target_request *req,
                     char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    int rc = cas__plugin_search_path(req->plugin_path, &t->path);
    if (rc == CAS_OK)
        rc = cas__registry_scan(&t->path, &t->reg);
    if (rc != CAS_OK) {
        snprintf(err, errlen, "out of memory");
        goto close_target;
    }
    if (req->isolation.mode != CAS__ISOLATE_AUTO)
        cas__registry_foreign_in_process(t->reg,
                                         req->isolation.mode == CAS__ISOLATE_IN_PROCESS);
    rc = validate(t, req, err, errlen);
    if (rc != CAS_OK)
        goto close_target;
    cas__session_plan_isolate(&t->plan, &req->isolation);
    if (fill_refs(t) != CAS_OK || list_rules(t) != CAS_OK) {
        rc = cas__errorf(err, errlen, CAS_ENOMEM, "out of memory");
        goto close_target;
    }
    cas__registry_player_limits(t->plan.game, t->plan.expansions, t->plan.n_expansions,
                                &t->min_players, &t->max_players);
    if (req->n_rules > 0 && (rc = try_open(t, err, errlen)) != CAS_OK)
        goto close_target;
    return CAS_OK;

close_target:
    cas__target_close(t);
    return rc;
}

/* A match of the game with the n expansions of refs. */
static int open_match(const struct cas__target *t, const struct cas_expansion_ref *refs,
                      size_t n, struct cas__match *m, int nplayers, char *err, size_t errlen)
{
    const struct cas__plugin_info *game = t->plan.game;
    return cas__match_open_isolated(m, &t->plan.isolation, game->desc, game->data_dir,
                                    t->plan.game_options.values, t->plan.game_options.count,
                                    refs, n, nplayers, err, errlen);
}

int cas__target_match(const struct cas__target *t, struct cas__match *m, int nplayers,
                      char *err, size_t errlen)
{
    return open_match(t, t->refs, t->plan.n_expansions, m, nplayers, err, errlen);
}

int cas__target_match_alone(const struct cas__target *t, struct cas__match *m, int nplayers,
                            char *err, size_t errlen)
{
    return open_match(t, NULL, 0, m, nplayers, err, errlen);
}

int cas__target_match_without(const struct cas__target *t, size_t left_out,
                              struct cas_expansion_ref *refs, struct cas__match *m,
                              int nplayers, char *err, size_t errlen)
{
    size_t n = 0;
    for (size_t i = 0; i < t->plan.n_expansions; i++)
        if (i != left_out)
            refs[n++] = t->refs[i];
    return open_match(t, refs, n, m, nplayers, err, errlen);
}

int cas__target_check_players(const struct cas__target *t, int nplayers, char *err,
                              size_t errlen)
{
    if (nplayers >= t->min_players && nplayers <= t->max_players)
        return CAS_OK;
    return cas__errorf(err, errlen, CAS_EINVAL, "%s is for %d to %d players, not %d",
                       t->plan.game->desc->id, t->min_players, t->max_players, nplayers);
}

struct cas__check_target cas__target_check(const struct cas__target *t)
{
    return (struct cas__check_target){
        .plugin = t->plan.game->desc, .data_dir = t->plan.game->data_dir,
        .options = t->plan.game_options.values, .n_options = t->plan.game_options.count,
        .expansions = t->refs, .n_expansions = t->plan.n_expansions,
        .rules = (const char *const *)t->rules.items, .n_rules = t->rules.count,
        .min_players = t->min_players, .max_players = t->max_players,
        .isolation = &t->plan.isolation,
    };
}

void cas__target_close(struct cas__target *t)
{
    cas__strlist_free(&t->rules);
    free(t->refs);
    cas__session_plan_free(&t->plan);
    cas__registry_free(t->reg);
    cas__strlist_free(&t->path);
    memset(t, 0, sizeof *t);
}
