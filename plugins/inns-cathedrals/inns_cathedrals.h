/*
 * inns_cathedrals.h — the Inns & Cathedrals descriptor, for entry.c and for
 * tests that link inns-cathedrals-objects beside other plugins' objects.
 */
#ifndef INNS_CATHEDRALS_H
#define INNS_CATHEDRALS_H

#include <castellan/plugin.h>

/* The static descriptor (kind expansion, extension = its
 * struct cas_carc_expansion); never freed. */
const struct cas_plugin *cas__ic_plugin(void);

#endif
