/*
 * session_validate.c — a parsed session description against the installed
 * plugins: resolve the game and its expansions, give every declared option
 * its value (the session's, checked by type, or the default), and check the
 * player count.  Errors point at the file line or flag, name the bad value
 * and the closest valid choice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session_plan.h"
#include "registry.h"
#include "text.h"

/* Where a line of the description came from: "FILE:LINE" or a flag. */
static const char *where(const struct cas__session_desc *d, int line, const char *flag,
                         char *buf, size_t cap)
{
    if (d->path && line > 0)
        snprintf(buf, cap, "%s:%d", d->path, line);
    else if (d->path)
        snprintf(buf, cap, "%s", d->path);
    else
        snprintf(buf, cap, "%s", flag);
    return buf;
}

/* Plugin k of the plan: 0 the game, then the expansions in order. */
static const struct cas_plugin *plugin_at(const struct cas__session_plan *p, size_t k)
{
    return k == 0 ? p->game->desc : p->expansions[k - 1]->desc;
}

static struct cas__plugin_options *options_at(struct cas__session_plan *p, size_t k)
{
    return k == 0 ? &p->game_options : &p->expansion_options[k - 1];
}

static int option_index(const struct cas_plugin *plugin, const char *name)
{
    for (size_t i = 0; i < plugin->n_options; i++)
        if (strcmp(plugin->options[i].name, name) == 0)
            return (int)i;
    return -1;
}

/* Every declared option at its default. */
static int fill_defaults(const struct cas_plugin *plugin, struct cas__plugin_options *out)
{
    out->values = calloc(plugin->n_options ? plugin->n_options : 1, sizeof *out->values);
    if (!out->values)
        return CAS_ENOMEM;
    for (size_t i = 0; i < plugin->n_options; i++) {
        struct cas_option_value *v = &out->values[out->count];
        v->struct_size = sizeof *v;
        v->name = strdup(plugin->options[i].name);
        v->value = strdup(plugin->options[i].default_value);
        out->count++;
        if (!v->name || !v->value)
            return CAS_ENOMEM;
    }
    return CAS_OK;
}

static void free_options(struct cas__plugin_options *o)
{
    for (size_t i = 0; i < o->count; i++) {
        free((char *)o->values[i].name);
        free((char *)o->values[i].value);
    }
    free(o->values);
    o->values = NULL;
    o->count = 0;
}

void cas__session_plan_free(struct cas__session_plan *plan)
{
    free_options(&plan->game_options);
    for (size_t i = 0; plan->expansion_options && i < plan->n_expansions; i++)
        free_options(&plan->expansion_options[i]);
    free(plan->expansion_options);
    free(plan->expansions);
    memset(plan, 0, sizeof *plan);
}

/* Every name a [rules] key may use in this session. */
static int rule_names(const struct cas__session_plan *p, struct cas__strlist *names)
{
    int rc = CAS_OK;
    for (size_t k = 0; !rc && k <= p->n_expansions; k++) {
        const struct cas_plugin *plugin = plugin_at(p, k);
        for (size_t i = 0; !rc && i < plugin->n_options; i++) {
            char qualified[256];
            snprintf(qualified, sizeof qualified, "%s.%s", plugin->id,
                     plugin->options[i].name);
            rc = cas__strlist_push(names, qualified);
            if (!rc && cas__strlist_index(names, plugin->options[i].name) < 0)
                rc = cas__strlist_push(names, plugin->options[i].name);
        }
    }
    return rc;
}

static int unknown_option(const struct cas__session_plan *p, const char *at, const char *key,
                          char *err, size_t errlen)
{
    struct cas__strlist names = {0};
    if (rule_names(p, &names)) {
        cas__strlist_free(&names);
        return cas__errorf(err, errlen, CAS_ENOMEM, "out of memory");
    }
    const char *closest = cas__closest(key, (const char *const *)names.items, names.count);
    int rc = closest ? cas__errorf(err, errlen, CAS_EOPTION,
                                   "%s: unknown rule option \"%s\"; closest: %s", at, key,
                                   closest)
             : names.count
                 ? cas__errorf(err, errlen, CAS_EOPTION,
                               "%s: unknown rule option \"%s\"; `castellan rules %s` lists "
                               "them", at, key, p->game->id)
                 : cas__errorf(err, errlen, CAS_EOPTION,
                               "%s: unknown rule option \"%s\"; this session's plugins "
                               "declare no options", at, key);
    cas__strlist_free(&names);
    return rc;
}

/* Which plugin (*k) and option (*o) a [rules] key sets: ID.NAME names the
 * plugin; a bare NAME is the game's option if it has one, else the one
 * expansion's that declares it. */
static int find_target(const struct cas__session_plan *p, const char *at, const char *key,
                       size_t *k, int *o, char *err, size_t errlen)
{
    const char *dot = strchr(key, '.');
    size_t found = 0;
    for (size_t i = 0; i <= p->n_expansions; i++) {
        const struct cas_plugin *plugin = plugin_at(p, i);
        size_t id_len = dot ? (size_t)(dot - key) : 0;
        if (dot && (strlen(plugin->id) != id_len || strncmp(plugin->id, key, id_len) != 0))
            continue;
        int index = option_index(plugin, dot ? dot + 1 : key);
        if (index < 0)
            continue;
        if (found++ == 0) {
            *k = i;
            *o = index;
            if (i == 0)
                return CAS_OK;
        } else {
            const char *first = plugin_at(p, *k)->id;
            return cas__errorf(err, errlen, CAS_EOPTION,
                               "%s: rule option \"%s\" is declared by %s and %s; write "
                               "%s.%s or %s.%s",
                               at, key, first, plugin->id, first, key, plugin->id, key);
        }
    }
    return found ? CAS_OK : unknown_option(p, at, key, err, errlen);
}

/* Was the option rule r sets already set by an earlier rule? */
static int check_not_set_before(const struct cas__session_desc *d,
                                const struct cas__session_plan *p, size_t r, size_t k,
                                int o, const char *at, char *err, size_t errlen)
{
    for (size_t before = 0; before < r; before++) {
        const struct cas__setting *s = &d->rules[before];
        size_t k2;
        int o2;
        if (find_target(p, at, s->key, &k2, &o2, NULL, 0) || k2 != k || o2 != o)
            continue;
        const char *name = plugin_at(p, k)->options[o].name, *id = plugin_at(p, k)->id;
        if (s->line)
            return cas__errorf(err, errlen, CAS_EOPTION,
                               "%s: option %s of %s is already set at line %d; keep one", at,
                               name, id, s->line);
        return cas__errorf(err, errlen, CAS_EOPTION,
                           "%s: option %s of %s is already set by --rule %s; keep one", at,
                           name, id, s->key);
    }
    return CAS_OK;
}

/* The spec's choices "a|b|c" as "a, b, c" and the one closest to value. */
static int check_choice(const struct cas_option_spec *spec, const char *value, const char *at,
                        char *err, size_t errlen)
{
    struct cas__strlist words = {0};
    if (cas__strlist_split(&words, spec->choices, '|') == CAS_ENOMEM)
        return cas__errorf(err, errlen, CAS_ENOMEM, "out of memory");
    int rc = CAS_OK;
    if (cas__strlist_index(&words, value) < 0) {
        char list[512] = "";
        for (size_t i = 0; i < words.count; i++)
            snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
                     words.items[i]);
        char note[160];
        rc = cas__errorf(err, errlen, CAS_EOPTION, "%s: %s = \"%s\" is not valid; use one of %s%s",
                         at, spec->name, value, list,
                         cas__closest_note(note, sizeof note, value,
                                           (const char *const *)words.items, words.count));
    }
    cas__strlist_free(&words);
    return rc;
}

static int check_value(const struct cas_option_spec *spec, const char *value, const char *at,
                       char *err, size_t errlen)
{
    static const char *const on_off[] = {"on", "off"};
    char note[64];
    char *end;
    long long n;
    switch (spec->type) {
    case CAS_OPTION_BOOL:
        if (strcmp(value, "on") == 0 || strcmp(value, "off") == 0)
            return CAS_OK;
        return cas__errorf(err, errlen, CAS_EOPTION, "%s: %s = \"%s\" is not valid; use on or off%s",
                           at, spec->name, value,
                           cas__closest_note(note, sizeof note, value, on_off, 2));
    case CAS_OPTION_INT:
        n = strtoll(value, &end, 10);
        if (*value && *end == '\0' && n >= spec->min && n <= spec->max)
            return CAS_OK;
        return cas__errorf(err, errlen, CAS_EOPTION,
                           "%s: %s = \"%s\" is not valid; use an integer from %lld to %lld",
                           at, spec->name, value, (long long)spec->min,
                           (long long)spec->max);
    case CAS_OPTION_CHOICE:
        return check_choice(spec, value, at, err, errlen);
    case CAS_OPTION_TEXT:
        return CAS_OK;
    }
    return cas__errorf(err, errlen, CAS_EOPTION, "%s: option %s has an unknown type", at,
                       spec->name);
}

/* The installed expansion of p's game, not in the session, that declares
 * option `name` (loading them to ask); NULL when none does. */
static const char *expansion_declaring(struct cas__registry *reg,
                                       const struct cas__session_plan *p, const char *name)
{
    for (size_t i = 0; i < cas__registry_count(reg); i++) {
        struct cas__plugin_info *info = cas__registry_at(reg, i);
        if (info->kind != CAS_KIND_EXPANSION || !info->extends ||
            strcmp(info->extends, p->game->id) != 0 ||
            cas__registry_load_as(reg, info, p->foreign) != CAS_OK ||
            !info->desc)
            continue;
        if (option_index(info->desc, name) >= 0)
            return info->id;
    }
    return NULL;
}

/* A rule for an installed expansion of the game that the session leaves
 * out, ID.NAME or a NAME only such an expansion declares, is told so,
 * rather than answered with another option. */
static int check_in_session(struct cas__registry *reg, const struct cas__session_plan *p,
                            const char *at, const char *key, char *err, size_t errlen)
{
    const char *dot = strchr(key, '.');
    char id[64];
    if (dot && (size_t)(dot - key) >= sizeof id)
        return CAS_OK;
    if (dot)
        snprintf(id, sizeof id, "%.*s", (int)(dot - key), key);
    for (size_t i = 0; i <= p->n_expansions; i++)
        if (dot ? strcmp(plugin_at(p, i)->id, id) == 0 : option_index(plugin_at(p, i), key) >= 0)
            return CAS_OK; /* find_target takes it from here */
    if (!dot) {
        const char *owner = expansion_declaring(reg, p, key);
        return owner ? cas__errorf(err, errlen, CAS_EOPTION,
                                   "%s: %s is an option of %s, which is not in this session; "
                                   "add %s to the expansions (--expansions, or expansions in "
                                   "[session]) or drop this rule",
                                   at, key, owner, owner)
                     : CAS_OK;
    }
    const struct cas__plugin_info *info = cas__registry_find(reg, id);
    if (!info || info->kind != CAS_KIND_EXPANSION || !info->extends ||
        strcmp(info->extends, p->game->id) != 0)
        return CAS_OK;
    return cas__errorf(err, errlen, CAS_EOPTION,
                       "%s: %s is not in this session; add it to the expansions "
                       "(--expansions, or expansions in [session]) or drop this rule",
                       at, id);
}

static int apply_rules(const struct cas__session_desc *d, struct cas__registry *reg,
                       struct cas__session_plan *p, char *err, size_t errlen)
{
    for (size_t r = 0; r < d->n_rules; r++) {
        const struct cas__setting *s = &d->rules[r];
        char at[4200], flag[300];
        snprintf(flag, sizeof flag, "--rule %s", s->key);
        where(d, s->line, flag, at, sizeof at);
        size_t k;
        int o;
        int rc = check_in_session(reg, p, at, s->key, err, errlen);
        if (!rc)
            rc = find_target(p, at, s->key, &k, &o, err, errlen);
        if (!rc)
            rc = check_not_set_before(d, p, r, k, o, at, err, errlen);
        if (!rc)
            rc = check_value(&plugin_at(p, k)->options[o], s->value, at, err, errlen);
        if (rc)
            return rc;
        struct cas_option_value *v = &options_at(p, k)->values[o];
        char *value = strdup(s->value);
        if (!value)
            return cas__errorf(err, errlen, CAS_ENOMEM, "out of memory");
        free((char *)v->value);
        v->value = value;
    }
    return CAS_OK;
}

/* An installed expansion of p's game, not in the session, that allows n
 * players; NULL when there is none. */
static const char *expansion_for(struct cas__registry *reg, const struct cas__session_plan *p,
                                 int n)
{
    for (size_t i = 0; i < cas__registry_count(reg); i++) {
        const struct cas__plugin_info *info = cas__registry_at(reg, i);
        int in_session = 0;
        for (size_t k = 0; k < p->n_expansions; k++)
            in_session |= p->expansions[k] == info;
        if (!info->refusal && info->kind == CAS_KIND_EXPANSION && info->extends &&
            strcmp(info->extends, p->game->id) == 0 && !in_session && info->max_players >= n)
            return info->id;
    }
    return NULL;
}

static int check_players(const struct cas__session_desc *d, struct cas__registry *reg,
                         const struct cas__session_plan *p, char *err, size_t errlen)
{
    int min, max, n = (int)d->n_players;
    cas__registry_player_limits(p->game, p->expansions, p->n_expansions, &min, &max);
    if (n >= min && n <= max)
        return CAS_OK;
    char at[4200], combo[512];
    snprintf(combo, sizeof combo, "%s", p->game->id);
    for (size_t i = 0; i < p->n_expansions; i++)
        snprintf(combo + strlen(combo), sizeof combo - strlen(combo), "%s%s",
                 i ? ", " : " with ", p->expansions[i]->id);
    int line = n == 0 ? 0 : d->players[n > max ? max : n - 1].line;
    where(d, line, "--players", at, sizeof at);
    const char *more = n > max ? expansion_for(reg, p, n) : NULL;
    return cas__errorf(err, errlen, CAS_EINVAL,
                       "%s: %d player%s, but %s allows %d to %d; %s%s%s", at, n,
                       n == 1 ? "" : "s", combo, min, max,
                       n <= max ? "add players" : more ? "remove players, or add the expansion "
                                                       : "remove players",
                       more ? more : "", more ? ", which allows more" : "");
}

static int resolve(const struct cas__session_desc *d, struct cas__registry *reg,
                   struct cas__session_plan *p, char *err, size_t errlen)
{
    char why[2048], at[4200];
    p->expansions = calloc(d->n_expansions ? d->n_expansions : 1, sizeof *p->expansions);
    if (!p->expansions)
        return cas__errorf(err, errlen, CAS_ENOMEM, "out of memory");
    /* The session's isolation, unless a flag told the registry otherwise,
     * decides where a plugin from elsewhere is loaded: for this load only,
     * never kept in the registry other sessions resolve in meanwhile. */
    p->foreign = cas__registry_foreign_said(reg) || d->isolation == CAS__ISOLATE_AUTO
                     ? CAS__FOREIGN_AS_TOLD
                 : d->isolation == CAS__ISOLATE_IN_PROCESS ? CAS__FOREIGN_IN_PROCESS
                                                           : CAS__FOREIGN_CONFINED;
    int rc = cas__registry_resolve_as(reg, d->game, (const char *const *)d->expansions,
                                      d->n_expansions, p->foreign, &p->game, p->expansions,
                                      why, sizeof why);
    if (!rc) {
        p->n_expansions = d->n_expansions;
        return CAS_OK;
    }
    const struct cas__plugin_info *game = cas__registry_find(reg, d->game);
    if (game && game->desc && game->kind == CAS_KIND_GAME)
        where(d, d->expansions_line, "--expansions", at, sizeof at);
    else
        where(d, d->game_line, d->game_flag[0] ? d->game_flag : "--game", at, sizeof at);
    p->game = NULL;
    return cas__errorf(err, errlen, rc, "%s: %s", at, why);
}

int cas__session_desc_validate_rules(const struct cas__session_desc *desc,
                                     struct cas__registry *reg,
                                     struct cas__session_plan *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    int rc = resolve(desc, reg, out, err, errlen);
    if (rc)
        goto free_plan;
    out->expansion_options = calloc(out->n_expansions ? out->n_expansions : 1,
                                    sizeof *out->expansion_options);
    if (!out->expansion_options)
        goto out_of_memory;
    for (size_t k = 0; k <= out->n_expansions; k++)
        if (fill_defaults(plugin_at(out, k), options_at(out, k)))
            goto out_of_memory;
    rc = apply_rules(desc, reg, out, err, errlen);
    if (rc)
        goto free_plan;
    out->isolation.deadline_ms = desc->deadline_ms;
    out->isolation.mode = (enum cas__isolation_mode)desc->isolation;
    cas__session_plan_isolate(out, NULL);
    return CAS_OK;

out_of_memory:
    rc = cas__errorf(err, errlen, CAS_ENOMEM, "out of memory");
free_plan:
    cas__session_plan_free(out);
    return rc;
}

/* Whether every plugin of the plan ships with this castellan. */
static int all_bundled(const struct cas__session_plan *plan)
{
    if (!cas__plugin_is_bundled(plan->game))
        return 0;
    for (size_t i = 0; i < plan->n_expansions; i++)
        if (!cas__plugin_is_bundled(plan->expansions[i]))
            return 0;
    return 1;
}

void cas__session_plan_isolate(struct cas__session_plan *plan,
                               const struct cas__isolation *asked)
{
    if (asked && asked->mode != CAS__ISOLATE_AUTO)
        plan->isolation.mode = asked->mode;
    if (asked && asked->deadline_ms)
        plan->isolation.deadline_ms = asked->deadline_ms;
    if (plan->isolation.mode == CAS__ISOLATE_AUTO)
        plan->isolation.mode = all_bundled(plan) ? CAS__ISOLATE_IN_PROCESS
                                                 : CAS__ISOLATE_WORKER;
}

int cas__session_desc_validate(const struct cas__session_desc *desc,
                               struct cas__registry *reg, struct cas__session_plan *out,
                               char *err, size_t errlen)
{
    int rc = cas__session_desc_validate_rules(desc, reg, out, err, errlen);
    if (!rc)
        rc = check_players(desc, reg, out, err, errlen);
    if (rc) {
        cas__session_plan_free(out);
        return rc;
    }
    out->nplayers = (int)desc->n_players;
    return CAS_OK;
}
