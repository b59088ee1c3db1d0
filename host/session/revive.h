/*
 * revive.h — a saved game brought back (host-internal): its plugins found,
 * loaded and validated like a new session's, their versions compared with
 * the saved ones, and its journal replayed with every hash checked.  Used
 * by resume, replay and import.
 */
#ifndef CAS_HOST_REVIVE_H
#define CAS_HOST_REVIVE_H

#include <stdint.h>
#include <stdio.h>

#include "agent_ops.h"
#include "match.h"
#include "registry.h"
#include "saves.h"
#include "session.h"
#include "session_plan.h"

struct cas__revived {
    const struct cas__saves_game *saved;  /* borrowed */
    const char *origin;       /* "game 3" or the record's file name */
    struct cas__strlist path;
    struct cas__registry *reg;
    struct cas__session_desc desc;
    struct cas__session_plan plan;
    struct cas__match match;
    struct cas__agent **agents;           /* NULL when only replayed */
    struct cas__session session;
    char **names;                         /* player names, borrowed from desc */
    int version_changed;                  /* an installed version differs */
    /* After cas__revive_replay with force: the hashes the installed
     * plugins give from first_mismatch on (mismatches counts them). */
    uint32_t first_mismatch;
    size_t mismatches;
    uint64_t *new_hashes;
    char error[1024];
    int reg_borrowed;                     /* reg is the caller's */
};

/* The plugins' versions the game was saved with (saved) or those
 * installed: "fixture 1.0.0 + extra 0.9.0", into buf[0..cap) (cut).
 * Written when a message needs them, not kept: every hosted game holds
 * an r. */
void cas__revive_versions(const struct cas__revived *r, int saved, char *buf, size_t cap);

/* Bring g back at its first state: resolve and load its game and
 * expansions on the plugin search path (cli_path may be NULL), validate its
 * options, open the match (in a worker as its session or `asked`, which
 * may be NULL, says: cas__session_plan_isolate) and, with make_agent (the
 * agents' cas__agent_new; NULL: the game is only replayed), create each
 * player's agent.  origin names g in messages.  g must outlive r.  On failure
 * r->error explains and r is closed. */
int cas__revive_open(struct cas__revived *r, const struct cas__saves_game *g,
                     const char *origin, const char *cli_path,
                     cas__agent_maker make_agent, const struct cas__isolation *asked);
/* cas__revive_open with plugins from reg, the caller's (it must outlive
 * r), instead of a search path scanned for r alone: a server hosting many
 * games loads each plugin once. */
int cas__revive_open_in(struct cas__revived *r, const struct cas__saves_game *g,
                        const char *origin, struct cas__registry *reg,
                        cas__agent_maker make_agent, const struct cas__isolation *asked);
void cas__revive_close(struct cas__revived *r);

/* Replay g's actions [0, upto) through r's session, checking the actor and
 * hash of each.  A hash that differs stops with CAS_EMISMATCH and a message
 * naming the ply (and record line), both hashes and both versions, unless
 * force: then the rest is replayed unchecked and the new hashes collected.
 * An illegal action always stops (CAS_EILLEGAL / CAS_EPARSE).  `each` (may
 * be NULL) is called after every action; a nonzero return stops there with
 * that code.  Actions `each` inserts after i into the game r was opened with
 * are replayed too (the loop reads g->n_actions anew; pass upto SIZE_MAX). */
int cas__revive_replay(struct cas__revived *r, size_t upto, int force,
                       int (*each)(void *ctx, struct cas__revived *r, size_t i),
                       void *ctx);

#endif
