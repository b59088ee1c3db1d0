/*
 * main.c — the castellan executable: dispatches to one command per
 * subcommand (commands.h), with help, version and "did you mean".
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include <castellan/plugin.h>

#include "agent.h"
#include "commands.h"
#include "text.h"
#include "worker.h"

static int cmd_help(int argc, char **argv);

struct command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

static const struct command commands[] = {
    {"play", cas__cmd_play, "play a game at the terminal (default: the default preset)"},
    {"serve", cas__cmd_serve, "host games for browsers, on this machine or a network"},
    {"plugins", cas__cmd_plugins, "list the plugins found, usable or refused, and why"},
    {"rules", cas__cmd_rules, "list a game's rule options and its expansions', with defaults"},
    {"check", cas__cmd_check, "run the conformance checks on a game plugin"},
    {"bench", cas__cmd_bench, "measure a game's speed: playouts, legal actions, copies"},
    {"tournament", cas__cmd_tournament, "play two agents against each other: win rate, scores"},
    {"saves", cas__cmd_saves, "list, show or delete saved games"},
    {"resume", cas__cmd_resume, "continue an unfinished saved game where it stopped"},
    {"replay", cas__cmd_replay, "show a saved game action by action"},
    {"export", cas__cmd_export, "write a saved game as a game record, or --html as a web page"},
    {"render", cas__cmd_render, "draw a saved game's board at one ply as an SVG picture"},
    {"import", cas__cmd_import, "replay a game record and save it"},
    {"campaign", cas__cmd_campaign, "list campaigns or show one's standings"},
    {"ratings", cas__cmd_ratings, "every player's rating per game, from the finished games"},
    {"players", cas__cmd_players, "add, list, rename or remove the players of a server"},
    {"new-plugin", cas__cmd_new_plugin, "write a new game or expansion plugin that builds"},
    {"help", cmd_help, "help on a command: castellan help COMMAND"},
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

static void print_usage(FILE *out)
{
    fprintf(out, "usage: castellan COMMAND [ARGS...]\n\n"
                 "castellan hosts turn-based tabletop games loaded as plugins.\n\n"
                 "Commands:\n");
    for (size_t i = 0; i < N_COMMANDS; i++)
        fprintf(out, "  %-9s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\nEvery command takes --help.  castellan --version prints the version.\n");
}

static const struct command *find_command(const char *name)
{
    for (size_t i = 0; i < N_COMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

static int unknown_command(const char *name)
{
    const char *names[N_COMMANDS];
    for (size_t i = 0; i < N_COMMANDS; i++)
        names[i] = commands[i].name;
    const char *closest = cas__closest(name, names, N_COMMANDS);
    fprintf(stderr, "castellan: unknown command \"%s\"%s%s%s (castellan --help lists them)\n",
            name, closest ? "; did you mean \"" : "", closest ? closest : "",
            closest ? "\"?" : "");
    return 2;
}

/* castellan help [COMMAND]: the command's own --help. */
static int cmd_help(int argc, char **argv)
{
    if (argc < 2) {
        print_usage(stdout);
        return 0;
    }
    const struct command *c = find_command(argv[1]);
    if (!c)
        return unknown_command(argv[1]);
    if (c->run == cmd_help)
        return cmd_help(1, argv);
    char help_flag[] = "--help";
    char *help_argv[] = {argv[1], help_flag, NULL};
    return c->run(2, help_argv);
}

/* A command that succeeded but whose output did not all reach standard
 * output (a full disk, a closed pipe reader's file) failed: say so, exit 1.
 * A command that failed has said why already. */
static int output_written(const char *command, int status)
{
    int err = fflush(stdout) == 0 ? 0 : errno;
    if (status != 0 || (!err && !ferror(stdout)))
        return status;
    fprintf(stderr, "castellan%s%s: cannot write to standard output (%s): what it printed is "
            "incomplete; run it again where the output fits\n", *command ? " " : "", command,
            err ? strerror(err) : "a write failed");
    return 1;
}

/* Run the command line's command; its exit status.  *name_out is set to the
 * command's name once one is found. */
static int run_command(int argc, char **argv, const char **name_out)
{
    if (argc < 2) {
        print_usage(stderr);
        return 2;
    }
    const char *name = argv[1];
    if (strcmp(name, "--help") == 0 || strcmp(name, "-h") == 0)
        return cmd_help(1, argv);
    if (strcmp(name, "--version") == 0) {
        printf("castellan %s (plugin ABI %d.%d)\n", CASTELLAN_VERSION, CAS_ABI_MAJOR,
               CAS_ABI_MINOR);
        return 0;
    }
    const struct command *c = find_command(name);
    if (!c)
        return name[0] == '-' ? (fprintf(stderr, "castellan: unknown option \"%s\"; did you "
                                         "mean \"--help\"?\n", name), 2)
                              : unknown_command(name);
    *name_out = c->name;
    return c->run(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
    /* Past `ulimit -f` a write then fails with EFBIG, which the save store
     * explains, instead of killing castellan without a word. */
    signal(SIGXFSZ, SIG_IGN);
    /* A game's worker runs the bots and playouts of the agents' room. */
    cas__worker_use_batches(&cas__agent_batches);
    const char *name = "";
    int status = run_command(argc, argv, &name);
    return output_written(name, status);
}
