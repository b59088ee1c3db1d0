/*
 * playout.c — one random playout as random bots play it in a session:
 * what bench times, in process and, as one batch, inside a worker (the
 * worker runs this same host code next to the plugin, so both count the
 * same actions).
 */
#include "agent.h"

int cas__playout(struct cas__match *m, const cas_state *start, cas_state *work,
                 struct cas__actions *list, uint64_t seed, uint64_t *plies)
{
    int rc = m->vt->state_copy(work, start);
    for (uint32_t ply = 0; rc == CAS_OK && cas__match_current(m, work) != CAS_ACTOR_TERMINAL;
         ply++) {
        rc = ply < CAS__PLAYOUT_MAX_PLIES ? cas__random_step(m, work, list, seed, ply)
                                          : CAS_EINVAL;
        ++*plies;
    }
    return rc;
}

int cas__playouts(struct cas__match *m, uint64_t seed, int games, uint64_t *plies,
                  uint64_t *checksum)
{
    struct cas__actions list = {0};
    cas_state *start = NULL, *work = NULL;
    *plies = *checksum = 0;
    int rc = m->vt->state_new(m->game, &start);
    if (rc == CAS_OK)
        rc = m->vt->state_clone(start, &work);
    for (int i = 0; rc == CAS_OK && i < games; i++) {
        rc = cas__playout(m, start, work, &list, seed + (uint64_t)i, plies);
        *checksum = *checksum * 31 + m->vt->hash(work);
    }
    if (work)
        m->vt->state_free(work);
    if (start)
        m->vt->state_free(start);
    cas__actions_free(&list);
    return rc;
}
