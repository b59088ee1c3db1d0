/*
 * fuzz_jcz.c — libFuzzer target: a JCloisterZone .jcz saved game (castellan
 * import FILE.jcz) through the host's JSON reader, the installed game
 * plugins' import_foreign and the record parser behind it
 * (host/cli/import_foreign.c), then, as import does, the converted game
 * replayed on the plugins.  The plugins are the build tree's, loaded
 * once before the first input (fuzz_plugins.h); each input converts on its
 * own.
 */
#include <stdlib.h>

#include "fuzz_plugins.h"
#include "fuzz_support.h"
#include "import_foreign.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static struct cas__registry *plugins;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    plugins = fuzz_plugins_load();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cas__saves_game g;
    struct cas__strlist notes = {0};
    char err[1024] = "";
    int rc = cas__foreign_convert(plugins, "fuzz.jcz", "jcz", (const char *)data, size, &g,
                                  &notes, err, sizeof err);
    cas__strlist_free(&notes);
    if (rc != CAS_OK && err[0] == '\0')
        abort(); /* a refusal must explain itself */
    if (rc == CAS_OK)
        fuzz_replay(&g);
    cas__saves_game_free(&g);
    return 0;
}
