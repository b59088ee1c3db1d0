/*
 * cmd_plugins.c — `castellan plugins`: every plugin on the search path,
 * usable or refused, one line each, with the reason and the fix for each
 * refusal.  Each usable plugin is loaded so its descriptor is checked too.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "registry.h"
#include "text.h"

static const char usage[] =
    "usage: castellan plugins [--plugin-path DIR[:DIR...]] [--help]\n"
    "\n"
    "Lists every plugin found, usable or refused, one line each:\n"
    "  ID  KIND  VERSION  FOLDER  ok | refused: FILE: REASON; FIX\n"
    "\n"
    "Plugins are searched, first match winning, in --plugin-path, then\n"
    "$CASTELLAN_PLUGIN_PATH (':'-separated), then the install location,\n"
    "then the build tree.\n";

size_t cas__plugins_list(struct cas__registry *reg, FILE *out)
{
    size_t refused = 0;
    for (size_t i = 0; i < cas__registry_count(reg); i++) {
        struct cas__plugin_info *info = cas__registry_at(reg, i);
        cas__registry_load(reg, info);
        fprintf(out, "%-22s %-9s %-8s %s  ", info->id,
                info->kind == CAS_KIND_GAME        ? "game"
                : info->kind == CAS_KIND_EXPANSION ? "expansion"
                                                   : "?",
                info->version ? info->version : "?", info->dir);
        if (info->refusal) {
            refused++;
            fprintf(out, "refused: %s\n", info->refusal);
        } else {
            fprintf(out, "ok\n");
        }
    }
    return refused;
}

/* --plugin-path DIR or --plugin-path=DIR at argv[*i]; 1 if it was one. */
static int take_plugin_path(int argc, char **argv, int *i, const char **path)
{
    const char *arg = argv[*i];
    if (strcmp(arg, "--plugin-path") == 0 && *i + 1 < argc) {
        *path = argv[++*i];
        return 1;
    }
    if (strncmp(arg, "--plugin-path=", 14) == 0) {
        *path = arg + 14;
        return 1;
    }
    return 0;
}

int cas__cmd_plugins(int argc, char **argv)
{
    const char *cli_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (!take_plugin_path(argc, argv, &i, &cli_path)) {
            fprintf(stderr, "castellan plugins: unknown argument \"%s\"\n%s", argv[i],
                    usage);
            return 2;
        }
    }
    struct cas__strlist path;
    struct cas__registry *reg = NULL;
    if (cas__plugin_search_path(cli_path, &path) != CAS_OK)
        goto out_of_memory;
    int rc = cas__registry_scan(&path, &reg);
    if (rc)
        goto free_path;
    if (cas__registry_count(reg) == 0) {
        fprintf(stderr, "castellan plugins: no plugin found in:");
        for (size_t i = 0; i < path.count; i++)
            fprintf(stderr, " %s", path.items[i]);
        fprintf(stderr, "\n");
    }
    cas__plugins_list(reg, stdout);
    cas__registry_free(reg);
    cas__strlist_free(&path);
    return 0;

free_path:
    cas__strlist_free(&path);
out_of_memory:
    fprintf(stderr, "castellan plugins: out of memory\n");
    return 1;
}
