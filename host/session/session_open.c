/*
 * session_open.c — turning a validated session plan into a running game:
 * the expansion references the game plugin receives, in resolved order,
 * each with its own options and data folder.
 */
#include <stdlib.h>

#include "match.h"
#include "registry.h"
#include "session_plan.h"
#include "text.h"

int cas__session_desc_open_match(const struct cas__session_plan *plan,
                                 struct cas__match *m, char *err, size_t errlen)
{
    size_t n = plan->n_expansions;
    struct cas_expansion_ref *refs = calloc(n ? n : 1, sizeof *refs);
    if (!refs)
        return cas__errorf(err, errlen, CAS_ENOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        const struct cas__plugin_info *e = plan->expansions[i];
        refs[i] = (struct cas_expansion_ref){
            .struct_size = sizeof refs[i],
            .id = e->desc->id,
            .version = e->desc->version,
            .data_dir = e->data_dir,
            .extension = e->desc->extension,
            .options = plan->expansion_options[i].values,
            .n_options = plan->expansion_options[i].count,
        };
    }
    int rc = cas__match_open_isolated(m, &plan->isolation, plan->game->desc,
                                      plan->game->data_dir, plan->game_options.values,
                                      plan->game_options.count, refs, n, plan->nplayers, err,
                                      errlen);
    free(refs);
    return rc;
}
