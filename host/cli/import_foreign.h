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
 * The caller frees *g (cas__saves_game_free) either way. */
int cas__foreign_read(const char *file, const char *format, const char *plugin_path,
                      struct cas__saves_game *g, char *err, size_t errlen);

/* The same for the foreign file's text[0..len), named `file` in messages,
 * with the plugins of reg (which it may load).  Same contract otherwise. */
int cas__foreign_convert(struct cas__registry *reg, const char *file, const char *format,
                         const char *text, size_t len, struct cas__saves_game *g,
                         char *err, size_t errlen);

#endif
