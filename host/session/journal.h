/*
 * journal.h — a session journaled into the save store (host-internal):
 * the game's row built from its description, a hook that commits every
 * action before the next decision, and the final scores.
 */
#ifndef CAS_HOST_JOURNAL_H
#define CAS_HOST_JOURNAL_H

#include <stdint.h>

#include "saves.h"
#include "session.h"

struct cas__session_desc;
struct cas__session_plan;
struct cas__plugin_info;

struct cas__journal {
    struct cas__saves *store;   /* borrowed */
    int64_t game;               /* the game's row id */
    uint32_t saved;             /* actions the store holds for it */
};

/* The saves row for a session about to start: desc's config text, rules,
 * players and campaign, the resolved game and expansions (in order) with
 * their installed versions, and the seed in use.  Caller frees *out with
 * cas__saves_game_free. */
int cas__journal_describe(const struct cas__session_desc *desc,
                          const struct cas__plugin_info *game,
                          struct cas__plugin_info *const *expansions, size_t n,
                          uint64_t seed, struct cas__saves_game *out);

/* Insert `header` (no actions yet) and point j at it.  On failure the
 * store's message explains why. */
int cas__journal_start(struct cas__journal *j, struct cas__saves *store,
                       struct cas__saves_game *header);

/* Hooks for s: each action is appended to j's game in its own transaction
 * before the session goes on; a failure stops the session with the store's
 * explanation, j->saved telling how far the game is saved.  j must outlive
 * the session. */
void cas__journal_attach(struct cas__journal *j, struct cas__session *s);

/* Record the end of s: when the game is over, its final scores and the
 * finished status; otherwise only when it was last played (it stays
 * resumable).  Nothing when an action of s could not be saved: the store
 * then holds less than s, or another castellan's game. */
int cas__journal_end(struct cas__journal *j, struct cas__session *s);

/* The plugin's worker failed (what: "plugin ID crashed (signal 11) in
 * apply") during s, journaled in j (NULL: not saved): print it with the
 * ply and how far the game is saved and how to resume, on stderr after
 * what stdout holds, and exit 1.  The store holds only the actions the
 * worker accepted and the journal committed. */
_Noreturn void cas__journal_fault_exit(const char *command, const char *what,
                                       const struct cas__session *s,
                                       const struct cas__journal *j);

/* ---- the journal of `castellan play` ---- */

struct cas__play_journal {
    struct cas__saves *store;   /* owned; NULL when the game is not saved */
    struct cas__journal j;
};

/* Unless desc has journal = off or no_save is set: open desc's database
 * (or the default one), store the game desc and plan describe with s's
 * seed and attach the journal to s (quietly: the transcript of a seed
 * stays the same; a stopped game says how to resume it).  On failure
 * prints why (and that --no-save plays without saving) on stderr and
 * returns a negative code: the game must not start unsaved by surprise. */
int cas__play_journal_begin(struct cas__play_journal *pj,
                            const struct cas__session_desc *desc,
                            const struct cas__session_plan *plan,
                            struct cas__session *s, int no_save);

/* After cas__session_run returned rc: record a finished game's result or
 * tell how to resume a stopped one, and close the store.  Returns CAS_OK or
 * the code of a failure it printed. */
int cas__play_journal_end(struct cas__play_journal *pj, struct cas__session *s, int rc);

#endif
