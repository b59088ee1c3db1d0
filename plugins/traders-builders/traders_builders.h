/*
 * traders_builders.h — the Traders & Builders descriptor, for entry.c and
 * for tests that link traders-builders-objects beside other plugins'
 * objects.
 */
#ifndef TRADERS_BUILDERS_H
#define TRADERS_BUILDERS_H

#include <castellan/plugin.h>

/* The static descriptor (kind expansion, extension = its
 * struct cas_carc_expansion); never freed. */
const struct cas_plugin *cas__tb_plugin(void);

#endif
