/*
 * castles_germany.h — the Castles in Germany descriptor, for entry.c and
 * for tests that link castles-germany-objects beside other plugins'
 * objects.
 */
#ifndef CASTLES_GERMANY_H
#define CASTLES_GERMANY_H

#include <castellan/plugin.h>

/* The static descriptor (kind expansion, extension = its
 * struct cas_carc_expansion); never freed. */
const struct cas_plugin *cas__cg_plugin(void);

#endif
