/*
 * cmd_rules.c — `castellan rules GAME`: every rule option of a game and of
 * each expansion that extends it, with its type, default and meaning, as
 * the plugins declare them, and how to set each one.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "commands.h"
#include "registry.h"
#include "term.h"
#include "text.h"

static const char usage[] =
    "usage: castellan rules GAME [--plugin-path DIR[:DIR...]]\n"
    "\n"
    "Lists every rule option of the game GAME and of each expansion found for\n"
    "it: name, allowed values, default and meaning.  Set a game's option with\n"
    "--rule NAME=VALUE or `NAME = VALUE` under [rules] in a session file, an\n"
    "expansion's with EXPANSION.NAME (the expansion must be played).\n";

/* "on|off", "1..72", "a|b|c" or "text": what an option accepts. */
static void accepted(const struct cas_option_spec *o, char *buf, size_t cap)
{
    switch (o->type) {
    case CAS_OPTION_BOOL: snprintf(buf, cap, "on|off"); break;
    case CAS_OPTION_INT:
        snprintf(buf, cap, "%" PRId64 "..%" PRId64, o->min, o->max);
        break;
    case CAS_OPTION_CHOICE: snprintf(buf, cap, "%s", o->choices ? o->choices : "?"); break;
    default: snprintf(buf, cap, "text"); break;
    }
}

/* One option: "  NAME = DEFAULT  (ACCEPTED)" and its meaning under it. */
static void print_option(const struct cas_option_spec *o, const char *prefix, int width)
{
    char values[256];
    accepted(o, values, sizeof values);
    const char *value = o->default_value && *o->default_value ? o->default_value : "\"\"";
    cas__term_wrapf(stdout, width, 6, "  %s%s = %s  (%s)", prefix, o->name, value, values);
    cas__term_wrapf(stdout, width, 6, "      %s", o->help ? o->help : "");
}

static void print_options(const struct cas_plugin *p, const char *prefix, int width)
{
    if (p->n_options == 0)
        printf("  (no rule options)\n");
    for (size_t i = 0; i < p->n_options; i++)
        print_option(&p->options[i], prefix, width);
}

/* The game's options, then each usable expansion's; 0, or 1 if the game
 * cannot be loaded. */
static int list_rules(struct cas__registry *reg, const char *game_id)
{
    int width = cas__term_width(stdout);
    struct cas__plugin_info *game = cas__registry_find(reg, game_id);
    if (!game || game->kind != CAS_KIND_GAME) {
        const char *closest = cas__registry_closest(reg, game_id, CAS_KIND_GAME);
        fprintf(stderr, "castellan rules: no game \"%s\"%s%s%s; `castellan plugins` lists "
                "them\n", game_id, closest ? " (closest: " : "", closest ? closest : "",
                closest ? ")" : "");
        return 1;
    }
    if (cas__registry_load(reg, game) != CAS_OK || game->refusal) {
        fprintf(stderr, "castellan rules: %s is refused: %s\n", game_id,
                game->refusal ? game->refusal : "it cannot be loaded");
        return 1;
    }
    cas__term_wrapf(stdout, width, 2, "%s %s: rule options (--rule NAME=VALUE, or [rules] in "
                    "a session file)", game->id, game->version);
    print_options(game->desc, "", width);
    for (size_t i = 0; i < cas__registry_count(reg); i++) {
        struct cas__plugin_info *x = cas__registry_at(reg, i);
        if (x->kind != CAS_KIND_EXPANSION || !x->extends || strcmp(x->extends, game_id) != 0)
            continue;
        char prefix[128];
        snprintf(prefix, sizeof prefix, "%s.", x->id);
        if (cas__registry_load(reg, x) != CAS_OK || x->refusal) {
            printf("\nexpansion %s: refused (%s)\n", x->id, x->refusal ? x->refusal : "?");
            continue;
        }
        printf("\n");
        cas__term_wrapf(stdout, width, 2, "expansion %s %s (--expansions %s; --rule %sNAME=VALUE)",
                        x->id, x->version, x->id, prefix);
        print_options(x->desc, prefix, width);
    }
    return 0;
}

int cas__cmd_rules(int argc, char **argv)
{
    const char *plugin_path = NULL, *positional[1] = {NULL};
    const struct cas__flag flags[] = {{"--plugin-path", &plugin_path, NULL, NULL}};
    size_t n_positional;
    int done;
    int status = cas__cli_parse("rules", argc, argv, flags, 1, positional, 1, &n_positional,
                                usage, &done);
    if (status || done)
        return status;
    if (n_positional != 1) {
        fprintf(stderr, "castellan rules: name one game, e.g. castellan rules carcassonne\n%s",
                usage);
        return 2;
    }
    struct cas__strlist path = {0};
    struct cas__registry *reg = NULL;
    status = 1;
    if (cas__plugin_search_path(plugin_path, &path) != CAS_OK ||
        cas__registry_scan(&path, &reg) != CAS_OK)
        fprintf(stderr, "castellan rules: out of memory\n");
    else
        status = list_rules(reg, positional[0]);
    cas__registry_free(reg);
    cas__strlist_free(&path);
    return status;
}
