/*
 * cmd_plugins.c — `castellan plugins`: every plugin on the search path,
 * usable or refused, one line each, with the reason and the fix for each
 * refusal.  Each usable plugin is loaded so its descriptor is checked too.
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"
#include "registry.h"
#include "session_desc.h"
#include "text.h"

static const char usage[] =
    "usage: castellan plugins [--plugin-path DIR[:DIR...]] [--ids KIND] [--help]\n"
    "\n"
    "Lists every plugin found, usable or refused, one line each:\n"
    "  ID  KIND  VERSION  FOLDER  ok | refused: FILE: REASON; FIX\n"
    "\n"
    "--ids game|expansion|all prints only the ids of the usable plugins of\n"
    "that kind, one a line (for scripts and shell completion); --ids agent\n"
    "the agents a player may be (--players NAME:AGENT), bots' options aside.\n"
    "\n"
    "Plugins are searched, first match winning, in --plugin-path, then\n"
    "$CASTELLAN_PLUGIN_PATH (':'-separated), then the install location,\n"
    "then (for a castellan run from its build tree) the build tree.\n";

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

/* The ids of reg's usable plugins of kind (0: any), one a line. */
static void list_ids(struct cas__registry *reg, enum cas_plugin_kind kind, FILE *out)
{
    for (size_t i = 0; i < cas__registry_count(reg); i++) {
        struct cas__plugin_info *info = cas__registry_at(reg, i);
        cas__registry_load(reg, info);
        if (!info->refusal && (!kind || info->kind == kind))
            fprintf(out, "%s\n", info->id);
    }
}

/* FLAG VALUE or FLAG=VALUE at argv[*i]; 1 if it was one. */
static int take_value(int argc, char **argv, int *i, const char *flag, const char **value)
{
    const char *arg = argv[*i];
    size_t n = strlen(flag);
    if (strcmp(arg, flag) == 0 && *i + 1 < argc) {
        *value = argv[++*i];
        return 1;
    }
    if (strncmp(arg, flag, n) == 0 && arg[n] == '=') {
        *value = arg + n + 1;
        return 1;
    }
    return 0;
}

/* --ids KIND into *kind; 0, or 2 after explaining a bad KIND. */
static int parse_kind(const char *text, enum cas_plugin_kind *kind)
{
    if (strcmp(text, "game") == 0)
        *kind = CAS_KIND_GAME;
    else if (strcmp(text, "expansion") == 0)
        *kind = CAS_KIND_EXPANSION;
    else if (strcmp(text, "all") == 0)
        *kind = 0;
    else {
        fprintf(stderr, "castellan plugins: --ids takes game, expansion, agent or all, not "
                "\"%s\"\n", text);
        return 2;
    }
    return 0;
}

int cas__cmd_plugins(int argc, char **argv)
{
    const char *cli_path = NULL, *ids = NULL;
    enum cas_plugin_kind kind = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (take_value(argc, argv, &i, "--ids", &ids)) {
            if (strcmp(ids, "agent") == 0)
                continue;
            if (parse_kind(ids, &kind))
                return 2;
            continue;
        }
        if (!take_value(argc, argv, &i, "--plugin-path", &cli_path)) {
            fprintf(stderr, "castellan plugins: unknown argument \"%s\"\n%s", argv[i],
                    usage);
            return 2;
        }
    }
    if (ids && strcmp(ids, "agent") == 0) { /* no plugin needed */
        for (size_t i = 0; i < cas__n_agent_names; i++)
            printf("%s\n", cas__agent_names[i]);
        return 0;
    }
    struct cas__strlist path;
    struct cas__registry *reg = NULL;
    if (cas__plugin_search_path(cli_path, &path) != CAS_OK)
        goto out_of_memory;
    int rc = cas__registry_scan(&path, &reg);
    if (rc)
        goto free_path;
    if (ids) {
        list_ids(reg, kind, stdout);
    } else if (cas__registry_count(reg) == 0) {
        fprintf(stderr, "castellan plugins: no plugin found in:");
        for (size_t i = 0; i < path.count; i++)
            fprintf(stderr, " %s", path.items[i]);
        fprintf(stderr, "\n");
    } else {
        cas__plugins_list(reg, stdout);
    }
    cas__registry_free(reg);
    cas__strlist_free(&path);
    return 0;

free_path:
    cas__strlist_free(&path);
out_of_memory:
    fprintf(stderr, "castellan plugins: out of memory\n");
    return 1;
}
