/*
 * fuzz_session_ini.c — libFuzzer target: a session file (castellan play
 * --config FILE) through what play does before the first move: the config
 * parser, then the description checked against the build tree's plugins
 * (game, expansions, every [rules] value through the plugins' option
 * checks) and the game opened, as text; what it accepts must free cleanly,
 * what it refuses must say why.
 */
#include <stdlib.h>

#include "fuzz_plugins.h"
#include "fuzz_support.h"
#include "match.h"
#include "session_desc.h"
#include "session_plan.h"

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

/* The plan for desc and its game, opened and closed again. */
static void open_game(const struct cas__session_desc *desc)
{
    struct cas__session_plan plan;
    struct cas__match match;
    char err[1024] = "";
    int rc = cas__session_desc_validate(desc, plugins, &plan, err, sizeof err);
    if (rc == CAS_OK) {
        rc = cas__session_desc_open_match(&plan, &match, err, sizeof err);
        if (rc == CAS_OK)
            cas__match_close(&match);
        cas__session_plan_free(&plan);
    }
    if (rc != CAS_OK && err[0] == '\0')
        abort(); /* a refusal must explain itself */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    struct cas__session_desc desc;
    char err[1024] = "";
    int rc = cas__session_desc_parse("fuzz.ini", text, &desc, err, sizeof err);
    if (rc != CAS_OK && err[0] == '\0')
        abort(); /* a refusal must explain itself */
    if (rc == CAS_OK) {
        open_game(&desc);
        cas__session_desc_free(&desc);
    }
    free(text);
    return 0;
}
