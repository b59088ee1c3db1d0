/*
 * king_robber.h — the King & Robber Baron descriptor, for entry.c and for
 * tests that link king-robber-objects beside other plugins' objects.
 */
#ifndef KING_ROBBER_H
#define KING_ROBBER_H

#include <castellan/plugin.h>

/* The static descriptor (kind expansion, extension = its
 * struct cas_carc_expansion); never freed. */
const struct cas_plugin *cas__kr_plugin(void);

#endif
