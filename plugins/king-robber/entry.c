/*
 * entry.c — the exported entry of the king-robber plugin; kept out of the
 * object library so tests can link it with other plugins' objects.
 */
#include "king_robber.h"

CAS_EXPORT const struct cas_plugin *cas_plugin_entry(void)
{
    return cas__kr_plugin();
}
