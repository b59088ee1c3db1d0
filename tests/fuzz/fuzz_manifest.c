/*
 * fuzz_manifest.c — libFuzzer target: a plugin manifest (DIR/ID/ID.ini)
 * through the loader's registry scan, which reads it, checks its folder and
 * files, and refuses what is wrong with one line naming the file.  The
 * folder is named after the input's first "id = ..." line when that is a
 * plugin id, so manifests that name themselves get past the name check.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_support.h"
#include "registry.h"
#include "text.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The value of text's first line "id = VALUE" if it is a plugin id, else
 * "fuzzed", into name. */
static void folder_name(const char *text, char *name, size_t cap)
{
    snprintf(name, cap, "fuzzed");
    for (const char *line = text; line; line = strchr(line, '\n')) {
        line += *line == '\n';
        char id[64];
        if (sscanf(line, "id = %63[a-z0-9-]", id) == 1) {
            if (cas__is_plugin_id(id))
                snprintf(name, cap, "%s", id);
            return;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = fuzz_text(data, size);
    char name[64], file[160];
    folder_name(text, name, sizeof name);
    free(text);
    snprintf(file, sizeof file, "%s/%s.ini", name, name);
    struct fuzz_folder folder;
    fuzz_folder_write(&folder, file, data, size);
    /* An empty library beside it: the scan wants one, only loading reads it. */
    char library[600];
    snprintf(library, sizeof library, "%s/%s/%s.so", folder.dir, name, name);
    FILE *so = fopen(library, "w");
    if (!so || fclose(so) != 0 || chmod(library, 0600) != 0)
        abort();
    struct cas__strlist path = {0};
    struct cas__registry *reg = NULL;
    if (cas__strlist_push(&path, folder.dir) || cas__registry_scan(&path, &reg))
        abort(); /* only out of memory fails a scan */
    for (size_t i = 0; i < cas__registry_count(reg); i++) {
        const struct cas__plugin_info *info = cas__registry_at(reg, i);
        if (!info->refusal && (!info->id || !info->version || !info->description))
            abort(); /* an accepted manifest has what the host reads */
    }
    cas__registry_free(reg);
    cas__strlist_free(&path);
    fuzz_folder_remove(&folder);
    return 0;
}
