/*
 * entry.c — the exported entry of the castles-germany plugin; kept out of
 * the object library so tests can link it with other plugins' objects.
 */
#include "castles_germany.h"

CAS_EXPORT const struct cas_plugin *cas_plugin_entry(void)
{
    return cas__cg_plugin();
}
