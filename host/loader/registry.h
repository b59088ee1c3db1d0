/*
 * registry.h — finding, validating and loading plugins (host-internal).
 *
 * Scanning reads manifests only (inih), never runs plugin code, so
 * `castellan plugins` can explain every refusal.  Loading dlopen()s one
 * plugin and checks its descriptor against the manifest and the host ABI.
 */
#ifndef CAS_HOST_REGISTRY_H
#define CAS_HOST_REGISTRY_H

#include <castellan/plugin.h>

#include "text.h"

/* One manifest found on the search path.  All strings are owned by the
 * registry and freed with it. */
struct cas__plugin_info {
    char *id, *version, *description;
    enum cas_plugin_kind kind;
    char *extends;                       /* expansions: the game id       */
    struct cas__strlist requires, conflicts, after, before;
    int min_players, max_players;
    unsigned abi_major, abi_minor;
    char *dir;            /* folder holding the manifest                 */
    char *manifest_path;  /* DIR/ID.ini                                   */
    char *library_path;   /* DIR/ID.so                                    */
    char *data_dir;       /* DIR/data                                     */
    /* NULL while usable; otherwise one line: file, reason, versions, fix. */
    char *refusal;
    /* Set by cas__registry_load: the library loaded in castellan (dl), or
     * probed in a confined child (probed, dl NULL: desc is the host's
     * copy of the descriptor and its game runs only in a worker). */
    void *dl;
    const struct cas_plugin *desc;
    struct cas__probed *probed;
};

struct cas__registry;
struct cas__probed;

/* The search path, first match wins: cli_path (':'-separated, may be NULL),
 * $CASTELLAN_PLUGIN_PATH, the install location, the build tree.  Caller owns
 * the list (cas__strlist_free). */
int cas__plugin_search_path(const char *cli_path, struct cas__strlist *out);

/* True when info's folder lies in the install location (beside the
 * executable or the compiled-in one) or, for the build tree's castellan,
 * in the build tree's plugin folder: the plugins that ship with this
 * castellan, which run in process unless asked otherwise. */
int cas__plugin_is_bundled(const struct cas__plugin_info *info);

/* Read every manifest under the folders of `path`.  Never fails for a bad
 * plugin (that becomes a refusal); fails only for CAS_ENOMEM.  Caller owns
 * *out (cas__registry_free). */
int cas__registry_scan(const struct cas__strlist *path, struct cas__registry **out);
void cas__registry_free(struct cas__registry *reg); /* unloads; NULL is fine */

size_t cas__registry_count(const struct cas__registry *reg);
struct cas__plugin_info *cas__registry_at(struct cas__registry *reg, size_t i);
/* NULL if no plugin has this id. */
struct cas__plugin_info *cas__registry_find(struct cas__registry *reg, const char *id);
/* Whether any plugin of kind `kind` was found (refused ones too). */
int cas__registry_has_kind(const struct cas__registry *reg, enum cas_plugin_kind kind);
/* Whether an expansion of game_id was found (refused ones too). */
int cas__registry_has_expansion_of(const struct cas__registry *reg, const char *game_id);
/* The id of kind `kind` (0: any) closest to `id` by edit distance, or NULL
 * when none is near enough to suggest (cas__is_near). */
const char *cas__registry_closest(const struct cas__registry *reg, const char *id,
                                  enum cas_plugin_kind kind);

/* The expansion of game_id closest to id, or NULL if game_id has none
 * near enough to suggest. */
const char *cas__registry_closest_expansion(const struct cas__registry *reg, const char *id,
                                            const char *game_id);

/* Whether plugins from outside castellan's own folders are loaded into
 * castellan itself (yes: --in-process, isolation = in-process) or, as by
 * default, only in a confined child (docs/isolation.md): the registry's
 * own choice, told once by a command's flags. */
void cas__registry_foreign_in_process(struct cas__registry *reg, int yes);
/* Where one load puts such a plugin: as the registry was told (confined
 * if never), or as this load's caller chose (a session's isolation).  A
 * choice is the load's own, never kept in the shared registry: the server
 * opens games of different isolations on several threads at once. */
enum cas__foreign { CAS__FOREIGN_AS_TOLD, CAS__FOREIGN_CONFINED, CAS__FOREIGN_IN_PROCESS };
/* Whether cas__registry_foreign_in_process was called (a flag said so). */
int cas__registry_foreign_said(const struct cas__registry *reg);

/* The probe of a descriptor (the host's copy of a plugin loaded in a
 * confined child), or of an expansion's `extension` that stands for one;
 * NULL for anything else. */
const struct cas__probed *cas__probed_of(const void *desc_or_extension);
/* The probed library's descriptor, open for the life of the process. */
int cas__probed_fd(const struct cas__probed *p);
/* dlopen and check one plugin.  On failure sets info->refusal and returns a
 * negative code; loading an already loaded plugin is a no-op.  A foreign
 * plugin goes as the registry was told (cas__registry_load_as: where). */
int cas__registry_load(struct cas__registry *reg, struct cas__plugin_info *info);
int cas__registry_load_as(struct cas__registry *reg, struct cas__plugin_info *info,
                          enum cas__foreign where);

/* Load game_id and the named expansions, check extends/requires/conflicts,
 * and order the expansions (after/before, then id; cycles refused).
 * ordered receives n pointers owned by the registry.  On failure writes a
 * one-line explanation into err. */
int cas__registry_resolve(struct cas__registry *reg, const char *game_id,
                          const char *const *expansion_ids, size_t n,
                          struct cas__plugin_info **game_out,
                          struct cas__plugin_info **ordered, char *err,
                          size_t errlen);
/* The same, foreign plugins loaded as `where` says (cas__registry_load_as). */
int cas__registry_resolve_as(struct cas__registry *reg, const char *game_id,
                             const char *const *expansion_ids, size_t n,
                             enum cas__foreign where, struct cas__plugin_info **game_out,
                             struct cas__plugin_info **ordered, char *err, size_t errlen);

/* Player counts a session of `game` with these expansions allows: the
 * game's min_players..max_players, the maximum raised by any expansion's
 * max_players. */
void cas__registry_player_limits(const struct cas__plugin_info *game,
                                 struct cas__plugin_info *const *expansions, size_t n,
                                 int *min, int *max);

#endif
