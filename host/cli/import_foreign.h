/*
 * import_foreign.h — turn another program's saved game (a JCloisterZone
 * .jcz) into a castellan record through a game plugin's import_foreign.
 */
#ifndef CAS_HOST_IMPORT_FOREIGN_H
#define CAS_HOST_IMPORT_FOREIGN_H

#include <stddef.h>

#include "registry.h"
#include "saves.h"

/* The foreign format of `file` by its name ("jcz" for *.jcz), or NULL. */
const char *cas__foreign_format(const char *file);

/* Read `file` (JSON), find the installed game plugin that reads `format`
 * and parse the record it writes into *g, with the installed plugins'
 * versions.  On failure *g is empty and err explains (file, line, fix).
 * The caller frees *g (cas__saves_game_free) either way.  notes (may be
 * NULL) receives the plugin's warnings, each "LINE TEXT" with LINE the
 * file's line of the action it concerns (`# warning: TEXT` in the record,
 * after that action's `# line N`); the caller frees it. */
int cas__foreign_read(const char *file, const char *format, const char *plugin_path,
                      struct cas__saves_game *g, struct cas__strlist *notes, char *err,
                      size_t errlen);

/* The same for the foreign file's text[0..len), named `file` in messages,
 * with the plugins of reg (which it may load).  Same contract otherwise. */
int cas__foreign_convert(struct cas__registry *reg, const char *file, const char *format,
                         const char *text, size_t len, struct cas__saves_game *g,
                         struct cas__strlist *notes, char *err, size_t errlen);

/* A foreign format may leave out chance outcomes that change nothing the
 * record goes on from: JCloisterZone writes no tile it discarded because it
 * fit nowhere.  Called while g replays, after its action i, with `state`
 * the state after it: at a chance node, an outcome g draws fewer times from
 * here on than the state holds, and after which g's next action is legal,
 * is inserted as action i + 1 (one per call: the call after it finds the
 * next); after g's last action, the outcomes left are all inserted if
 * drawing them one by one ends the game, else none.  Returns how many were
 * inserted (plies renumbered, hash-free) or CAS_ENOMEM. */
int cas__foreign_restore_draws(const struct cas_game_vtable *vt, const cas_state *state,
                               struct cas__saves_game *g, size_t i);

#endif
