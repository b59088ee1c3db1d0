/*
 * fuzz_plugins.h — the build tree's plugins for the harnesses whose input
 * is a game: loaded once before the first input, then a game brought back
 * and replayed on them as import, replay and resume do
 * (host/session/revive.h).
 */
#ifndef CAS_FUZZ_PLUGINS_H
#define CAS_FUZZ_PLUGINS_H

#include "registry.h"
#include "saves.h"

/* Scan and load every plugin of the build tree, once; the registry stays
 * the process's (never free it), so later loads of the same libraries,
 * a revival's own among them, find them loaded and every input meets the
 * same process.  Call from LLVMFuzzerInitialize.  Aborts when none loads. */
struct cas__registry *fuzz_plugins_load(void);

/* Revive g on the build tree's plugins and replay its whole journal with
 * every hash checked.  Returns the CAS_E* code; a failure that does not
 * explain itself aborts. */
int fuzz_replay(const struct cas__saves_game *g);

#endif
