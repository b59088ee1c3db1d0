/*
 * fuzz_saves.c — libFuzzer target: a save database (a mutated SQLite file)
 * through what castellan does with a store it did not write: open it to
 * read (saves list, show, export, replay), list its games and campaigns,
 * load each game with its journal, export it as a record, and replay the
 * first through the build tree's plugins.  The input is written as
 * saves.db in a folder of its own, removed after it.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fuzz_plugins.h"
#include "fuzz_support.h"
#include "saves.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Games loaded, exported and (the first) replayed, at most. */
#define MAX_GAMES 8

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_plugins_load();
    return 0;
}

/* `saves show` and `export` of game id: load it whole, write its record. */
static void export_game(struct cas__saves *s, int64_t id, int replay)
{
    struct cas__saves_game g;
    if (cas__saves_game_load(s, id, 1, &g) != CAS_OK)
        return;
    char *text = NULL;
    size_t len;
    FILE *out = open_memstream(&text, &len);
    if (!out)
        abort();
    cas__record_write(&g, out, 1);
    fclose(out);
    free(text);
    if (replay)
        fuzz_replay(&g);
    cas__saves_game_free(&g);
}

/* `campaign list` and `campaign show NAME` of every campaign. */
static void read_campaigns(struct cas__saves *s)
{
    struct cas__saves_campaign *campaigns;
    size_t n;
    if (cas__saves_campaigns(s, &campaigns, &n) != CAS_OK)
        return;
    for (size_t i = 0; i < n && i < MAX_GAMES; i++) {
        struct cas__saves_campaign summary;
        struct cas__saves_standing *standings;
        size_t n_standings;
        if (cas__saves_campaign_standings(s, campaigns[i].name, &summary, &standings,
                                          &n_standings) != CAS_OK)
            continue;
        cas__saves_standings_free(standings, n_standings);
        free(summary.name);
        free(summary.last_played);
    }
    cas__saves_campaigns_free(campaigns, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_folder folder;
    fuzz_folder_write(&folder, "saves.db", data, size);
    struct cas__saves *s = NULL;
    char err[1024] = "";
    int rc = cas__saves_open_read(folder.path, &s, err, sizeof err);
    if (rc != CAS_OK && err[0] == '\0')
        abort(); /* a refusal must explain itself */
    if (rc == CAS_OK) {
        int64_t *ids;
        size_t n;
        if (cas__saves_game_ids(s, NULL, &ids, &n) == CAS_OK) {
            for (size_t i = 0; i < n && i < MAX_GAMES; i++)
                export_game(s, ids[i], i == 0);
            free(ids);
        }
        read_campaigns(s);
        cas__saves_close(s);
    }
    fuzz_folder_remove(&folder);
    return 0;
}
