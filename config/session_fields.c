/*
 * session_fields.c — the checks every session field gets, wherever it came
 * from: ids, seeds, agents, player names, rule keys.  Bad values are named
 * with the closest valid choice.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent_spec.h"
#include "session_fields.h"
#include "text.h"

#define MAX_NAME 32

const char *const cas__agent_names[] = {"human",     "random",      "greedy",   "mcts",
                                        "mcts-easy", "mcts-medium", "mcts-hard"};
const size_t cas__n_agent_names = sizeof cas__agent_names / sizeof cas__agent_names[0];

static int out_of_memory(char *err, size_t errlen)
{
    return cas__errorf(err, errlen, CAS_ENOMEM, "out of memory");
}

static int store(char **field, const char *value, char *err, size_t errlen)
{
    char *copy = strdup(value);
    if (!copy)
        return out_of_memory(err, errlen);
    free(*field);
    *field = copy;
    return CAS_OK;
}

int cas__desc_set_game(struct cas__session_desc *d, const char *where, const char *value,
                       char *err, size_t errlen)
{
    if (!cas__is_plugin_id(value))
        return cas__errorf(err, errlen, CAS_EPARSE,
                           "%s: game \"%s\" is not a plugin id; use the id `castellan "
                           "plugins` lists, e.g. carcassonne",
                           where, value);
    return store(&d->game, value, err, errlen);
}

int cas__desc_set_expansions(struct cas__session_desc *d, const char *where,
                             const char *value, char *err, size_t errlen)
{
    struct cas__strlist ids = {0};
    int rc = cas__strlist_split(&ids, value, ',');
    if (rc == CAS_ENOMEM)
        goto fail_memory;
    if (rc) {
        rc = cas__errorf(err, errlen, CAS_EPARSE,
                         "%s: expansions \"%s\" has an empty item; separate ids with "
                         "single commas",
                         where, value);
        goto free_ids;
    }
    for (size_t i = 0; i < ids.count; i++) {
        if (!cas__is_plugin_id(ids.items[i])) {
            rc = cas__errorf(err, errlen, CAS_EPARSE,
                             "%s: expansion \"%s\" is not a plugin id; use the ids `castellan "
                             "plugins` lists",
                             where, ids.items[i]);
            goto free_ids;
        }
        if (cas__strlist_index(&ids, ids.items[i]) != (int)i) {
            rc = cas__errorf(err, errlen, CAS_EPARSE,
                             "%s: expansion \"%s\" is listed twice; list it once", where,
                             ids.items[i]);
            goto free_ids;
        }
    }
    for (size_t i = 0; i < d->n_expansions; i++)
        free(d->expansions[i]);
    free(d->expansions);
    d->expansions = ids.items;
    d->n_expansions = ids.count;
    return CAS_OK;

fail_memory:
    rc = out_of_memory(err, errlen);
free_ids:
    cas__strlist_free(&ids);
    return rc;
}

int cas__desc_set_seed(struct cas__session_desc *d, const char *where, const char *value,
                       char *err, size_t errlen)
{
    char *end;
    errno = 0;
    unsigned long long seed = strtoull(value, &end, 10);
    if (*value < '0' || *value > '9' || *end != '\0' || errno == ERANGE)
        return cas__errorf(err, errlen, CAS_EPARSE,
                           "%s: seed \"%s\" is not valid; use a decimal integer from 0 to "
                           "18446744073709551615, or leave seed out for a random one",
                           where, value);
    d->seed = (uint64_t)seed;
    d->seed_given = 1;
    return CAS_OK;
}

int cas__desc_set_campaign(struct cas__session_desc *d, const char *where, const char *value,
                           char *err, size_t errlen)
{
    if (*value == '\0' || strlen(value) > 64)
        return cas__errorf(err, errlen, CAS_EPARSE,
                           "%s: campaign \"%s\" is not valid; use 1 to 64 characters, or "
                           "leave it out", where, value);
    return store(&d->campaign, value, err, errlen);
}

/* name or plugin-id.name, each part an identifier as the loader requires
 * of plugin ids and option names. */
static int is_rule_key(const char *key)
{
    const char *dot = strchr(key, '.');
    if (dot) {
        char id[64];
        size_t id_len = (size_t)(dot - key);
        if (id_len >= sizeof id)
            return 0;
        memcpy(id, key, id_len);
        id[id_len] = '\0';
        if (!cas__is_plugin_id(id))
            return 0;
    }
    return cas__is_plugin_id(dot ? dot + 1 : key);
}

int cas__desc_add_rule(struct cas__session_desc *d, const char *where, const char *key,
                       const char *value, int line, char *err, size_t errlen)
{
    if (!is_rule_key(key))
        return cas__errorf(err, errlen, CAS_EPARSE,
                           "%s: rule \"%s\" is not an option name; write NAME or "
                           "EXPANSION-ID.NAME in lower case, e.g. farmers",
                           where, key);
    struct cas__setting *grown = realloc(d->rules, (d->n_rules + 1) * sizeof *grown);
    if (!grown)
        return out_of_memory(err, errlen);
    d->rules = grown;
    struct cas__setting *s = &d->rules[d->n_rules];
    s->key = strdup(key);
    s->value = strdup(value);
    s->line = line;
    if (!s->key || !s->value) {
        free(s->key);
        free(s->value);
        return out_of_memory(err, errlen);
    }
    d->n_rules++;
    return CAS_OK;
}

int cas__desc_add_player(struct cas__session_desc *d, int line, char *err, size_t errlen)
{
    struct cas__player_desc *grown =
        realloc(d->players, (d->n_players + 1) * sizeof *grown);
    if (!grown)
        return out_of_memory(err, errlen);
    d->players = grown;
    d->players[d->n_players++] = (struct cas__player_desc){.line = line};
    return CAS_OK;
}

int cas__desc_set_player_name(struct cas__player_desc *p, const char *where,
                              const char *value, char *err, size_t errlen)
{
    size_t len = strlen(value);
    int printable = len > 0 && len <= MAX_NAME;
    for (size_t i = 0; printable && i < len; i++)
        printable = (unsigned char)value[i] >= 0x20 && value[i] != 0x7f && value[i] != ',' &&
                    value[i] != ':';
    if (!printable)
        return cas__errorf(err, errlen, CAS_EPARSE,
                           "%s: player name \"%s\" is not valid; use 1 to %d printable "
                           "characters without ',' or ':'",
                           where, value, MAX_NAME);
    return store(&p->name, value, err, errlen);
}

int cas__desc_set_player_agent(struct cas__player_desc *p, const char *where,
                               const char *value, char *err, size_t errlen)
{
    struct cas__agent_spec spec;
    int rc = cas__agent_spec_parse(value, where, &spec, err, errlen);
    return rc ? rc : store(&p->agent, value, err, errlen);
}

int cas__desc_default_names(struct cas__session_desc *d, char *err, size_t errlen)
{
    for (size_t i = 0; i < d->n_players; i++) {
        if (d->players[i].name)
            continue;
        char name[32];
        snprintf(name, sizeof name, "Player %zu", i + 1);
        int rc = store(&d->players[i].name, name, err, errlen);
        if (rc)
            return rc;
    }
    return CAS_OK;
}
