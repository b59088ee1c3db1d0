/*
 * results_json.h — a saved game's results as JSON for programs: `saves
 * show --json` and `replay --json` (host-internal).
 */
#ifndef CAS_HOST_RESULTS_JSON_H
#define CAS_HOST_RESULTS_JSON_H

#include <stddef.h>
#include <stdio.h>

#include "revive.h"
#include "saves_cli.h"

/* Replay r's game to ply `upto` (past its end: all of it), every hash
 * checked, and write one JSON object to out: the game and players, every
 * event up to there (only public ones for an unfinished game), the scores
 * after it and whether the game is over, and with_actions the actions.
 * r must be freshly opened (cas__revive_open).  On failure r->error says
 * why; what was written is then incomplete. */
int cas__results_json(struct cas__revived *r, size_t upto, int with_actions, FILE *out);

/* The --json form of `saves show` and `replay` on loaded game g: bring it
 * back with a's plugin path, replay to --ply (default: the end), and print
 * the JSON only when all of it could be made.  Returns the exit status,
 * having said on stderr what went wrong. */
int cas__results_json_command(const struct cas__saves_args *a, const struct cas__saves_game *g,
                              int with_actions);

#endif
