/*
 * entry.c — the exported entry of the abbey-mayor plugin; kept out of the
 * object library so tests can link it with other plugins' objects.
 */
#include "abbey_mayor.h"

CAS_EXPORT const struct cas_plugin *cas_plugin_entry(void)
{
    return cas__am_plugin();
}
