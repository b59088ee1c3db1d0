/*
 * resolve.c — which expansions a session combines, and in what order: each
 * must extend the session's game, bring what it requires and nothing it
 * conflicts with; the order follows the manifests' after/before and then
 * the ids, so every host orders the same set the same way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "registry.h"
#include "text.h"

/* Find and load id as `kind`, or explain why not; an unknown expansion is
 * answered with the closest expansion of game_id, if it has any. */
static int load_named(struct cas__registry *reg, const char *id, enum cas_plugin_kind kind,
                      const char *game_id, enum cas__foreign where,
                      struct cas__plugin_info **out, char *err, size_t errlen)
{
    const char *what = kind == CAS_KIND_GAME ? "game" : "expansion";
    struct cas__plugin_info *info = cas__registry_find(reg, id);
    if (!info) {
        const char *closest = game_id ? cas__registry_closest_expansion(reg, id, game_id)
                                      : NULL;
        if (!closest)
            closest = cas__registry_closest(reg, id, kind);
        int none = !closest && !cas__registry_has_kind(reg, kind);
        return cas__errorf(err, errlen, CAS_ENOTFOUND,
                           "unknown %s \"%s\"%s%s (castellan plugins lists them all)",
                           what, id, closest ? "; closest: " : none ? "; none is installed" : "",
                           closest ? closest : "");
    }
    if (info->kind != kind)
        return cas__errorf(err, errlen, CAS_EINVAL, "\"%s\" is %s, not %s; %s", id,
                           kind == CAS_KIND_GAME ? "an expansion" : "a game",
                           kind == CAS_KIND_GAME ? "a game" : "an expansion",
                           kind == CAS_KIND_GAME ? "name the game it extends as the game"
                                                 : "name it as the game instead");
    int rc = cas__registry_load_as(reg, info, where);
    if (rc)
        return cas__errorf(err, errlen, rc, "%s \"%s\" is refused: %s", what, id,
                           info->refusal ? info->refusal : "out of memory");
    *out = info;
    return CAS_OK;
}

/* extends, requires and conflicts of every expansion against the set. */
static int check_compatible(struct cas__plugin_info *game, struct cas__plugin_info **exps,
                            size_t n, char *err, size_t errlen)
{
    struct cas__strlist ids = {0};
    int rc = CAS_OK;
    for (size_t i = 0; !rc && i < n; i++)
        if (cas__strlist_index(&ids, exps[i]->id) >= 0)
            rc = cas__errorf(err, errlen, CAS_EINVAL,
                             "expansion \"%s\" is listed twice; list it once", exps[i]->id);
        else
            rc = cas__strlist_push(&ids, exps[i]->id);
    for (size_t i = 0; !rc && i < n; i++) {
        const struct cas__plugin_info *e = exps[i];
        if (strcmp(e->extends, game->id) != 0) {
            rc = cas__errorf(err, errlen, CAS_ECONFLICT,
                             "expansion \"%s\" extends \"%s\", not the session's game "
                             "\"%s\"; drop it, or play %s",
                             e->id, e->extends, game->id, e->extends);
            break;
        }
        for (size_t r = 0; !rc && r < e->requires.count; r++)
            if (cas__strlist_index(&ids, e->requires.items[r]) < 0)
                rc = cas__errorf(err, errlen, CAS_ECONFLICT,
                                 "expansion \"%s\" requires \"%s\" (requires in %s), "
                                 "which the session does not include; add %s to the "
                                 "expansions",
                                 e->id, e->requires.items[r], e->manifest_path,
                                 e->requires.items[r]);
        for (size_t c = 0; !rc && c < e->conflicts.count; c++)
            if (cas__strlist_index(&ids, e->conflicts.items[c]) >= 0)
                rc = cas__errorf(err, errlen, CAS_ECONFLICT,
                                 "expansions \"%s\" and \"%s\" conflict (conflicts in "
                                 "%s); drop one of them",
                                 e->id, e->conflicts.items[c], e->manifest_path);
    }
    cas__strlist_free(&ids);
    return rc;
}

/* Must a come before b by either manifest? */
static int must_precede(const struct cas__plugin_info *a, const struct cas__plugin_info *b)
{
    return cas__strlist_index(&a->before, b->id) >= 0 ||
           cas__strlist_index(&b->after, a->id) >= 0;
}

static int has_unplaced_predecessor(struct cas__plugin_info **exps, size_t n,
                                    const char *placed, size_t i)
{
    for (size_t j = 0; j < n; j++)
        if (!placed[j] && j != i && must_precede(exps[j], exps[i]))
            return 1;
    return 0;
}

/* The unplaced expansion with the smallest id that is ready (no unplaced
 * predecessor), or when succ is given, that must precede exps[succ]; n if
 * there is none. */
static size_t pick(struct cas__plugin_info **exps, size_t n, const char *placed,
                   size_t succ)
{
    size_t best = n;
    for (size_t i = 0; i < n; i++) {
        if (placed[i] || (best < n && strcmp(exps[i]->id, exps[best]->id) >= 0))
            continue;
        if (succ < n ? i != succ && must_precede(exps[i], exps[succ])
                     : !has_unplaced_predecessor(exps, n, placed, i))
            best = i;
    }
    return best;
}

/* No unplaced expansion is ready, so each has an unplaced predecessor:
 * walk predecessors from the smallest id until one repeats, and name
 * that loop. */
static int explain_cycle(struct cas__plugin_info **exps, size_t n, const char *placed,
                         char *err, size_t errlen)
{
    size_t *walk = malloc((n + 1) * sizeof *walk), len = 0;
    if (!walk)
        return cas__errorf(err, errlen, CAS_ENOMEM, "out of memory");
    size_t start = n;
    for (size_t i = 0; i < n; i++)
        if (!placed[i] && (start == n || strcmp(exps[i]->id, exps[start]->id) < 0))
            start = i;
    walk[len++] = start;
    for (;;) {
        size_t prev = pick(exps, n, placed, walk[len - 1]);
        size_t seen = 0;
        while (seen < len && walk[seen] != prev)
            seen++;
        walk[len++] = prev;
        if (seen == len - 1)
            continue;
        char chain[1024] = "";
        size_t used = 0;
        for (size_t k = len; k-- > seen && used < sizeof chain;)
            used += (size_t)snprintf(chain + used, sizeof chain - used, "%s%s",
                                     exps[walk[k]]->id, k > seen ? " -> " : "");
        free(walk);
        return cas__errorf(err, errlen, CAS_ECONFLICT,
                           "after/before form a cycle: %s (each must come before the next); "
                           "remove one of these constraints from their manifests",
                           chain);
    }
}

/* Kahn's algorithm, smallest ready id first. */
static int order(struct cas__plugin_info **exps, size_t n, struct cas__plugin_info **ordered,
                 char *err, size_t errlen)
{
    char *placed = calloc(n ? n : 1, 1);
    if (!placed)
        return cas__errorf(err, errlen, CAS_ENOMEM, "out of memory");
    int rc = CAS_OK;
    for (size_t k = 0; k < n; k++) {
        size_t next = pick(exps, n, placed, n);
        if (next == n) {
            rc = explain_cycle(exps, n, placed, err, errlen);
            break;
        }
        placed[next] = 1;
        ordered[k] = exps[next];
    }
    free(placed);
    return rc;
}

int cas__registry_resolve(struct cas__registry *reg, const char *game_id,
                          const char *const *expansion_ids, size_t n,
                          struct cas__plugin_info **game_out,
                          struct cas__plugin_info **ordered, char *err, size_t errlen)
{
    return cas__registry_resolve_as(reg, game_id, expansion_ids, n, CAS__FOREIGN_AS_TOLD,
                                    game_out, ordered, err, errlen);
}

int cas__registry_resolve_as(struct cas__registry *reg, const char *game_id,
                             const char *const *expansion_ids, size_t n,
                             enum cas__foreign where, struct cas__plugin_info **game_out,
                             struct cas__plugin_info **ordered, char *err, size_t errlen)
{
    struct cas__plugin_info *game = NULL;
    struct cas__plugin_info **exps = calloc(n ? n : 1, sizeof *exps);
    if (!exps)
        return cas__errorf(err, errlen, CAS_ENOMEM, "out of memory");
    int rc = load_named(reg, game_id, CAS_KIND_GAME, NULL, where, &game, err, errlen);
    for (size_t i = 0; !rc && i < n; i++)
        rc = load_named(reg, expansion_ids[i], CAS_KIND_EXPANSION, game_id, where, &exps[i],
                        err, errlen);
    if (!rc)
        rc = check_compatible(game, exps, n, err, errlen);
    if (!rc)
        rc = order(exps, n, ordered, err, errlen);
    free(exps);
    if (!rc)
        *game_out = game;
    return rc;
}

void cas__registry_player_limits(const struct cas__plugin_info *game,
                                 struct cas__plugin_info *const *expansions, size_t n,
                                 int *min, int *max)
{
    *min = game->min_players;
    *max = game->max_players;
    for (size_t i = 0; i < n; i++)
        if (expansions[i]->max_players > *max)
            *max = expansions[i]->max_players;
}
