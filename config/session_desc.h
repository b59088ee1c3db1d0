/*
 * session_desc.h — a session as the user described it: from an INI file
 * (castellan play --config FILE) or from command-line flags.  Parsing checks
 * syntax and shape; cas__session_desc_validate checks it against the
 * installed plugins.  Every error names file:line, the bad value and the
 * closest valid choice.
 */
#ifndef CAS_CONFIG_SESSION_DESC_H
#define CAS_CONFIG_SESSION_DESC_H

#include <stddef.h>
#include <stdint.h>

struct cas__registry;
struct cas__plugin_info;

struct cas__setting {      /* one key = value of [rules], with its origin */
    char *key, *value;
    int line;              /* 0 when it came from the command line */
};

struct cas__player_desc {
    char *name;
    char *agent;           /* "human", "random", "greedy" */
    int line;
};

/* All strings owned by the desc; cas__session_desc_free releases them. */
struct cas__session_desc {
    char *path;            /* config file, or NULL */
    char *text;            /* the config text as read (journaled with the game) */
    char *game;
    char **expansions;
    size_t n_expansions;
    uint64_t seed;
    int seed_given;        /* 0: the caller draws one and records it */
    struct cas__setting *rules;
    size_t n_rules;
    struct cas__player_desc *players;
    size_t n_players;
    char *database;        /* [saves] database, ~ expanded; NULL: default */
    char *campaign;        /* [saves] campaign or NULL */
    int journal;           /* [saves] journal = on|off, default on */
};

int cas__session_desc_load(const char *path, struct cas__session_desc *out,
                           char *err, size_t errlen);
void cas__session_desc_free(struct cas__session_desc *desc);

#endif
