/*
 * session_desc.h — a session as the user described it: from an INI file
 * (castellan play --config FILE) or from command-line flags.  Parsing checks
 * syntax and shape.  Every error names file:line, the bad value and the
 * closest valid choice.  Checking a description against the installed
 * plugins is the host's (host/session/session_plan.h): config stands below host.
 */
#ifndef CAS_CONFIG_SESSION_DESC_H
#define CAS_CONFIG_SESSION_DESC_H

#include <stddef.h>
#include <stdint.h>

struct cas__setting {      /* one key = value of [rules], with its origin */
    char *key, *value;
    int line;              /* 0 when it came from the command line */
};

struct cas__player_desc {
    char *name;            /* "Player N" when the file names none */
    char *agent;           /* "human", "random", "greedy" */
    int line;              /* of its [player.N] header; 0 from the command line */
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
    /* [session] isolation = auto|worker|in-process: 0, 1, 2 (auto by
     * default: a worker for plugins outside the build and install
     * folders; docs/isolation.md), and plugin-deadline-ms (0: default). */
    int isolation;
    unsigned deadline_ms;
    /* [session] days-per-move: a correspondence time control for castellan
     * serve (1..14; 0: none).  The terminal has no clock and ignores it. */
    int days_per_move;
    /* Lines of game = and expansions = (0: absent or command line), and of
     * the file's last line, for errors found after parsing. */
    int game_line, expansions_line, last_line;
    char game_flag[16];    /* a flag session's name for the game ("--game") */
};

/* The agents a [player.N] may name, in the order suggestions prefer. */
extern const char *const cas__agent_names[];
extern const size_t cas__n_agent_names;

/* Read and parse the session file at path.  On failure err holds one line
 * "FILE:LINE: problem; fix" and *out is left empty (nothing to free). */
int cas__session_desc_load(const char *path, struct cas__session_desc *out,
                           char *err, size_t errlen);
/* Parse session text as if read from path (path names it in errors).
 * Same contract as cas__session_desc_load. */
int cas__session_desc_parse(const char *path, const char *text,
                            struct cas__session_desc *out, char *err, size_t errlen);
/* Free every string of desc and empty it; an empty desc is fine. */
void cas__session_desc_free(struct cas__session_desc *desc);

/* A session from command-line flags.  SPEC of --players is a
 * comma-separated list of players, each AGENT or NAME:AGENT, e.g.
 * "human,greedy" or "Ada:human,Bot:greedy"; unnamed players are
 * "Player N".  rules are "name=value" or "expansion-id.name=value". */
struct cas__session_flags {
    const char *game;           /* --game ID, required */
    const char *game_flag;      /* how errors name the game: "--game" when
                                 * NULL; check takes it as PLUGIN */
    const char *expansions;     /* --expansions a,b or NULL */
    const char *players;        /* --players SPEC; NULL: no seats (check and
                                 * bench choose the player count) */
    const char *seed;           /* --seed N or NULL */
    const char *const *rules;   /* --rule NAME=VALUE, n_rules of them */
    size_t n_rules;
    const char *campaign;       /* --campaign NAME or NULL */
};
/* Same contract as cas__session_desc_load; errors name the flag.  desc->text
 * gets the equivalent session file, so flags journal like a file. */
int cas__session_desc_from_flags(const struct cas__session_flags *flags,
                                 struct cas__session_desc *out, char *err,
                                 size_t errlen);

#endif
