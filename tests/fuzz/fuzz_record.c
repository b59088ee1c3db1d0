/*
 * fuzz_record.c — libFuzzer target: a plain-text game record through what
 * castellan import FILE does with it: the record parser, then a revival
 * and replay of the game on the build tree's plugins with every hash
 * checked.  A record it accepts must also write back as a record that
 * parses to the same text again: the format round-trips exactly
 * (saves/record.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_plugins.h"
#include "fuzz_support.h"
#include "saves.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_plugins_load();
    return 0;
}

/* g written as a record with hashes, in a buffer the caller frees. */
static char *written(const struct cas__saves_game *g, size_t *len)
{
    char *text = NULL;
    FILE *out = open_memstream(&text, len);
    if (!out)
        abort();
    int rc = cas__record_write(g, out, 1);
    fclose(out);
    if (rc != CAS_OK) {
        free(text);
        return NULL;
    }
    return text;
}

/* The record written from g parses, and writes back byte for byte. */
static void check_round_trip(const struct cas__saves_game *g)
{
    size_t len, again_len;
    char *text = written(g, &len);
    if (!text)
        return; /* an action text with a line break: refused, not written */
    struct cas__saves_game reread;
    char err[1024];
    if (cas__record_parse(text, len, "written", &reread, err, sizeof err) != CAS_OK) {
        fprintf(stderr, "a written record does not parse: %s\n%s", err, text);
        abort();
    }
    char *again = written(&reread, &again_len);
    if (!again || again_len != len || memcmp(again, text, len) != 0) {
        fprintf(stderr, "a record does not round-trip:\n%s\n--- became ---\n%s", text,
                again ? again : "(nothing)");
        abort();
    }
    free(again);
    cas__saves_game_free(&reread);
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cas__saves_game g;
    char err[1024] = "";
    int rc = cas__record_parse((const char *)data, size, "fuzz.record", &g, err, sizeof err);
    if (rc != CAS_OK && err[0] == '\0')
        abort(); /* a refusal must explain itself */
    if (rc == CAS_OK) {
        check_round_trip(&g);
        fuzz_replay(&g);
    }
    cas__saves_game_free(&g);
    return 0;
}
