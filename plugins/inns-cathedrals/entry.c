/*
 * entry.c — the exported entry of the inns-cathedrals plugin; kept out of
 * the object library so tests can link it with other plugins' objects.
 */
#include "inns_cathedrals.h"

CAS_EXPORT const struct cas_plugin *cas_plugin_entry(void)
{
    return cas__ic_plugin();
}
