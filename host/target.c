/*
 * target.c — resolving a game and its expansions for check and bench: the
 * loader finds and orders them, every option takes its default.
 */
#include "target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text.h"

static void fill_ref(struct cas__target *t, size_t i)
{
    const struct cas__plugin_info *e = t->expansions[i];
    size_t n = 0;
    t->expansion_options[i] = cas__option_defaults(e->desc, &n);
    t->refs[i] = (struct cas_expansion_ref){
        .struct_size = sizeof t->refs[i],
        .id = e->desc->id,
        .version = e->desc->version,
        .data_dir = e->data_dir,
        .extension = e->desc->extension,
        .options = t->expansion_options[i],
        .n_options = n,
    };
}

/* Resolve and load; the loader explains failures in err. */
static int resolve(struct cas__target *t, const char *game_id, const char *expansions,
                   char *err, size_t errlen)
{
    struct cas__strlist ids = {0};
    int rc = cas__strlist_split(&ids, expansions ? expansions : "", ',');
    if (rc == CAS_OK && ids.count > CAS__MAX_EXPANSIONS)
        rc = CAS_EINVAL;
    if (rc != CAS_OK) {
        snprintf(err, errlen, "--expansions \"%s\": give at most %d ids separated by single "
                 "commas", expansions, CAS__MAX_EXPANSIONS);
        cas__strlist_free(&ids);
        return rc;
    }
    rc = cas__registry_resolve(t->reg, game_id, (const char *const *)ids.items, ids.count,
                               &t->game, t->expansions, err, errlen);
    if (rc == CAS_OK)
        t->n_expansions = ids.count;
    cas__strlist_free(&ids);
    return rc;
}

int cas__target_open(struct cas__target *t, const char *cli_path, const char *game_id,
                     const char *expansions, char *err, size_t errlen)
{
    memset(t, 0, sizeof *t);
    int rc = cas__plugin_search_path(cli_path, &t->path);
    if (rc == CAS_OK)
        rc = cas__registry_scan(&t->path, &t->reg);
    if (rc != CAS_OK) {
        snprintf(err, errlen, "out of memory");
        goto fail_scan;
    }
    rc = resolve(t, game_id, expansions, err, errlen);
    if (rc != CAS_OK)
        goto fail_resolve;
    t->game_options = cas__option_defaults(t->game->desc, &t->n_game_options);
    for (size_t i = 0; i < t->n_expansions; i++)
        fill_ref(t, i);
    cas__registry_player_limits(t->game, t->expansions, t->n_expansions, &t->min_players,
                                &t->max_players);
    return CAS_OK;

fail_resolve:
    cas__registry_free(t->reg);
fail_scan:
    cas__strlist_free(&t->path);
    memset(t, 0, sizeof *t);
    return rc;
}

int cas__target_match(const struct cas__target *t, struct cas__match *m, int nplayers,
                      char *err, size_t errlen)
{
    return cas__match_open(m, t->game->desc, t->game->data_dir, t->game_options,
                           t->n_game_options, t->refs, t->n_expansions, nplayers, err, errlen);
}

void cas__target_close(struct cas__target *t)
{
    free(t->game_options);
    for (size_t i = 0; i < t->n_expansions; i++)
        free(t->expansion_options[i]);
    cas__registry_free(t->reg);
    cas__strlist_free(&t->path);
    memset(t, 0, sizeof *t);
}
