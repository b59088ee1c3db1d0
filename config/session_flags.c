/*
 * session_flags.c — a session description from command-line flags
 * (--game, --expansions, --players SPEC, --seed, --rule), checked like a
 * session file, and written back out as the equivalent session file so a
 * game started from flags journals the same way as one started from a file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session_fields.h"
#include "text.h"

/* text[0..stop) into buf, cut to fit. */
static void copy_prefix(char *buf, size_t cap, const char *text, const char *stop)
{
    size_t len = (size_t)(stop - text);
    if (len >= cap)
        len = cap - 1;
    memcpy(buf, text, len);
    buf[len] = '\0';
}

/* One SPEC item: AGENT or NAME:AGENT. */
static int add_spec_player(struct cas__session_desc *d, const char *item, char *err,
                           size_t errlen)
{
    int rc = cas__desc_add_player(d, 0, err, errlen);
    if (rc)
        return rc;
    struct cas__player_desc *p = &d->players[d->n_players - 1];
    const char *colon = strchr(item, ':');
    if (!colon)
        return cas__desc_set_player_agent(p, "--players", item, err, errlen);
    char name[64];
    copy_prefix(name, sizeof name, item, colon);
    rc = cas__desc_set_player_name(p, "--players", name, err, errlen);
    return rc ? rc : cas__desc_set_player_agent(p, "--players", colon + 1, err, errlen);
}

static int add_spec(struct cas__session_desc *d, const char *spec, char *err, size_t errlen)
{
    struct cas__strlist items = {0};
    int rc = cas__strlist_split(&items, spec, ',');
    if (rc == CAS_EPARSE)
        rc = cas__errorf(err, errlen, rc,
                         "--players: empty player in \"%s\"; separate players with single "
                         "commas, e.g. human,greedy",
                         spec);
    else if (rc)
        rc = cas__errorf(err, errlen, rc, "out of memory");
    else if (items.count == 0)
        rc = cas__errorf(err, errlen, CAS_EPARSE,
                         "--players: no players; give AGENT or NAME:AGENT for each, e.g. "
                         "Ada:human,greedy");
    for (size_t i = 0; !rc && i < items.count; i++)
        rc = add_spec_player(d, items.items[i], err, errlen);
    cas__strlist_free(&items);
    return rc;
}

static int add_rule_flag(struct cas__session_desc *d, const char *flag, char *err,
                         size_t errlen)
{
    const char *eq = strchr(flag, '=');
    char where[300];
    snprintf(where, sizeof where, "--rule %s", flag);
    if (!eq)
        return cas__errorf(err, errlen, CAS_EPARSE,
                           "%s: no value; write --rule NAME=VALUE, e.g. --rule farmers=on",
                           where);
    char key[128];
    copy_prefix(key, sizeof key, flag, eq);
    return cas__desc_add_rule(d, where, key, eq + 1, 0, err, errlen);
}

/* The session file these flags stand for. */
static int write_text(struct cas__session_desc *d, char *err, size_t errlen)
{
    size_t len;
    FILE *out = open_memstream(&d->text, &len);
    if (!out)
        return cas__errorf(err, errlen, CAS_ENOMEM, "out of memory");
    fprintf(out, "[session]\ngame = %s\n", d->game);
    if (d->n_expansions) {
        fprintf(out, "expansions =");
        for (size_t i = 0; i < d->n_expansions; i++)
            fprintf(out, "%s %s", i ? "," : "", d->expansions[i]);
        fprintf(out, "\n");
    }
    if (d->seed_given)
        fprintf(out, "seed = %llu\n", (unsigned long long)d->seed);
    if (d->n_rules)
        fprintf(out, "[rules]\n");
    for (size_t i = 0; i < d->n_rules; i++)
        fprintf(out, "%s = %s\n", d->rules[i].key, d->rules[i].value);
    for (size_t i = 0; i < d->n_players; i++)
        fprintf(out, "[player.%zu]\nname = %s\nagent = %s\n", i + 1, d->players[i].name,
                d->players[i].agent);
    if (d->campaign)
        fprintf(out, "[saves]\ncampaign = %s\n", d->campaign);
    if (fclose(out) != 0 || !d->text)
        return cas__errorf(err, errlen, CAS_ENOMEM, "out of memory");
    return CAS_OK;
}

int cas__session_desc_from_flags(const struct cas__session_flags *flags,
                                 struct cas__session_desc *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    out->journal = 1;
    snprintf(out->game_flag, sizeof out->game_flag, "%s",
             flags->game_flag ? flags->game_flag : "--game");
    int rc = CAS_OK;
    if (!flags->game)
        rc = cas__errorf(err, errlen, CAS_EPARSE,
                         "%s: missing; give --game ID (`castellan plugins` lists the "
                         "games)", out->game_flag);
    if (!rc)
        rc = cas__desc_set_game(out, out->game_flag, flags->game, err, errlen);
    if (!rc && flags->expansions)
        rc = cas__desc_set_expansions(out, "--expansions", flags->expansions, err, errlen);
    if (!rc && flags->seed)
        rc = cas__desc_set_seed(out, "--seed", flags->seed, err, errlen);
    if (!rc && flags->campaign)
        rc = cas__desc_set_campaign(out, "--campaign", flags->campaign, err, errlen);
    for (size_t i = 0; !rc && i < flags->n_rules; i++)
        rc = add_rule_flag(out, flags->rules[i], err, errlen);
    if (!rc && flags->players)
        rc = add_spec(out, flags->players, err, errlen);
    if (!rc)
        rc = cas__desc_default_names(out, err, errlen);
    if (!rc)
        rc = write_text(out, err, errlen);
    if (rc)
        cas__session_desc_free(out);
    return rc;
}
