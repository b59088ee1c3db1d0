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

/* ---- save commands (saves component: host/cmd_*.c of saves) ---- */

/* castellan saves list [--campaign NAME] | show ID | delete ID */
int cas__cmd_saves(int argc, char **argv);
/* castellan resume ID [--force] */
int cas__cmd_resume(int argc, char **argv);
/* castellan replay ID [--step] */
int cas__cmd_replay(int argc, char **argv);
/* castellan export ID [-o FILE] */
int cas__cmd_export(int argc, char **argv);
/* castellan import FILE */
int cas__cmd_import(int argc, char **argv);
/* castellan campaign list | show NAME */
int cas__cmd_campaign(int argc, char **argv);

#endif
