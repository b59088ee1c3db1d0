/*
 * commands.h — the subcommands of the castellan executable (host-internal).
 * Each command is `int cas__cmd_NAME(int argc, char **argv)`: argv[0] is the
 * command's own name, the rest its arguments; it returns the process exit
 * status (0 success, 1 failure, 2 bad usage).
 */
#ifndef CAS_HOST_COMMANDS_H
#define CAS_HOST_COMMANDS_H

#include <stdio.h>

struct cas__registry;

/* castellan plugins [--plugin-path DIR[:DIR...]] [--help] */
int cas__cmd_plugins(int argc, char **argv);

/* What `castellan plugins` prints: one line per plugin of reg, loading each
 * usable one first so that descriptor checks are included.  Returns how
 * many plugins are refused. */
size_t cas__plugins_list(struct cas__registry *reg, FILE *out);

/* castellan play [--config FILE | --game ID ...] [--seed N] ... (cmd_play.c) */
int cas__cmd_play(int argc, char **argv);

/* castellan check PLUGIN [--expansions a,b] [--games N] ... (cmd_check.c) */
int cas__cmd_check(int argc, char **argv);

/* castellan bench [--game ID] [--players N] [--games N] ... (cmd_bench.c) */
int cas__cmd_bench(int argc, char **argv);

#endif
