/*
 * fuzz_plugins.c — the build tree's plugins loaded once, and one game
 * revived and replayed on them, for the harnesses whose input is a game.
 */
#include "fuzz_plugins.h"

#include <stdio.h>
#include <stdlib.h>

#include "revive.h"

static struct cas__registry *loaded;

struct cas__registry *fuzz_plugins_load(void)
{
    if (loaded)
        return loaded;
    struct cas__strlist path = {0};
    if (cas__strlist_push(&path, CASTELLAN_BUILD_PLUGIN_DIR) ||
        cas__registry_scan(&path, &loaded))
        abort();
    cas__strlist_free(&path);
    size_t usable = 0;
    for (size_t i = 0; i < cas__registry_count(loaded); i++) {
        struct cas__plugin_info *info = cas__registry_at(loaded, i);
        usable += cas__registry_load(loaded, info) == CAS_OK;
    }
    if (!usable) {
        fprintf(stderr, "fuzz: no plugin loads from %s; build them first\n",
                CASTELLAN_BUILD_PLUGIN_DIR);
        abort();
    }
    return loaded;
}

int fuzz_replay(const struct cas__saves_game *g)
{
    struct cas__revived r;
    int rc = cas__revive_open(&r, g, "fuzz", CASTELLAN_BUILD_PLUGIN_DIR, 0, NULL);
    if (rc == CAS_OK) {
        rc = cas__revive_replay(&r, g->n_actions, 0, NULL, NULL);
        cas__revive_close(&r);
    }
    if (rc != CAS_OK && r.error[0] == '\0')
        abort(); /* a refusal must explain itself */
    return rc;
}
