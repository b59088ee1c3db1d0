/*
 * session.h — the decision loop of one game (host-internal): ask the
 * actor's agent, draw chance, apply, report events, tell the hooks (the
 * save journal) after every action.
 *
 * Chance and bot randomness come from a counter-based PRNG keyed by
 * (seed, ply, stream), so the random numbers at ply N do not depend on how
 * the process got there: a resumed game continues exactly as an
 * uninterrupted one with the same seed would.
 */
#ifndef CAS_HOST_SESSION_H
#define CAS_HOST_SESSION_H

#include <stdint.h>
#include <stdio.h>

#include "match.h"

struct cas__agent;

struct cas__session_hooks {
    void *ctx;
    /* After action number `ply` (0-based) was applied by `actor`, with its
     * canonical text and the state hash after it.  Called before the next
     * decision is asked for.  A negative return stops the session with
     * that code (e.g. the journal could not commit), explained in err:
     * nothing saved before is lost. */
    int (*on_action)(void *ctx, uint32_t ply, int actor, const char *text,
                     uint64_t hash_after, char *err, size_t errlen);
    /* A player took back actions `from_ply` onwards: they leave the game's
     * line of play (all of them in one transaction) before the state goes
     * back.  NULL: nothing to remove.  A negative return refuses the undo
     * and stops the session with that code; the state is unchanged. */
    int (*on_undo)(void *ctx, uint32_t from_ply);
    /* Every event of the action being applied (replayed ones too), whoever
     * may see it, while the plugin emits it; may be NULL. */
    void (*on_event)(void *ctx, const struct cas_event *event);
};

/* One decision that may still be taken back: the state before it. */
struct cas__undo_step {
    cas_state *before;  /* owned */
    uint32_t ply;       /* the decision's ply */
    uint64_t hash;      /* the state hash before it */
    char text[128];     /* its canonical text, to say what was taken back */
};

/* The decisions of one player since the last new information (a chance
 * outcome or another player's decision), oldest first: what `undo` may
 * take back.  Only kept for agents that take back (humans). */
struct cas__undo {
    int actor;          /* whose decisions; -1 when none are kept */
    size_t count, cap;
    struct cas__undo_step *steps; /* owned */
};

struct cas__session {
    struct cas__match *match;           /* borrowed */
    cas_state *state;                   /* owned */
    uint64_t seed;
    uint32_t ply;                       /* actions applied so far */
    struct cas__agent **agents;         /* borrowed, one per player */
    char **player_names;                /* borrowed, one per player */
    struct cas__session_hooks hooks;
    FILE *out;                          /* events and moves; NULL: silent */
    /* Fields below were added after the first draft; init fills them. */
    /* Whose private events `out` may show: CAS_VIEWER_PUBLIC (default, the
     * output is a shared screen or log), one player (the only human at the
     * terminal) or CAS_VIEWER_OMNISCIENT (tests, finished games). */
    int viewer;
    enum cas_render_format format;      /* final board: TEXT (default) or ANSI */
    uint64_t hash;                      /* state hash after the last action */
    char error[512];                    /* why the last call failed */
    struct cas__actions scratch;        /* owned: legal actions, reused */
    int quit;                           /* a player chose to stop the game
                                           (the agent returned CAS_ECONFLICT) */
    struct cas__undo undo;              /* owned: init empties it */
};

/* Start a session at the game's first state.  The session owns the state it
 * creates; agents, names and the match are borrowed and must outlive it.
 * player_names may be NULL (the plugin's seat labels are used); an agent
 * may be NULL for a session that is only replayed. */
int cas__session_init(struct cas__session *s, struct cas__match *match,
                      uint64_t seed, struct cas__agent **agents,
                      char **player_names);
void cas__session_free(struct cas__session *s);

/* Apply one action given by canonical text, as the journal or a game record
 * has it, and compare the state hash with expected_hash unless
 * check_hash is 0.  Hooks are not called (the action is already saved).
 * Moves and events are printed as in play when `out` is set (set it to
 * NULL to replay quietly).  s->error explains any failure.
 * CAS_EPARSE/CAS_EILLEGAL for a bad action, CAS_EMISMATCH for a hash that
 * differs (the state then already holds the action). */
int cas__session_replay(struct cas__session *s, const char *text,
                        uint64_t expected_hash, int check_hash);

/* One decision: asks the agent (or draws chance), applies, reports, calls
 * hooks.  Returns CAS_OK, CAS_ETERMINAL when the game is already over, or
 * the negative code that stopped it (a human's `quit` is CAS_ECONFLICT and
 * sets s->quit; any other CAS_ECONFLICT, say from the journal, is not a
 * player stopping).
 * A human's `undo` takes their last decision back (hooks.on_undo first)
 * and also returns CAS_OK: the same player decides again. */
int cas__session_step(struct cas__session *s);

/* Step until the game is over or something stops it.  Prints the seed
 * first (and the ply when resuming).  Returns CAS_OK when the game ended. */
int cas__session_run(struct cas__session *s);

/* Print the final board, every player's score and the winner(s) to out. */
void cas__session_report_end(struct cas__session *s);

#endif
