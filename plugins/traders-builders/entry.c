/*
 * entry.c — the exported entry of the traders-builders plugin; kept out of
 * the object library so tests can link it with other plugins' objects.
 */
#include "traders_builders.h"

CAS_EXPORT const struct cas_plugin *cas_plugin_entry(void)
{
    return cas__tb_plugin();
}
