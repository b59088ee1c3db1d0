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

/* castellan serve [--listen ADDR:PORT] [--config FILE] ... (cmd_serve.c) */
int cas__cmd_serve(int argc, char **argv);

/* castellan check PLUGIN [--expansions a,b] [--games N] ... (cmd_check.c) */
int cas__cmd_check(int argc, char **argv);

/* castellan bench [--game ID] [--players N] [--games N] ... (cmd_bench.c) */
int cas__cmd_bench(int argc, char **argv);

/* castellan rules GAME [--plugin-path DIR] (cmd_rules.c) */
int cas__cmd_rules(int argc, char **argv);

/* castellan new-plugin ID [--expansion-of GAME] [DIR] (cmd_new_plugin.c) */
int cas__cmd_new_plugin(int argc, char **argv);

/* castellan tournament --agents A,B [--game ID] [--games N] ... (cmd_tournament.c) */
int cas__cmd_tournament(int argc, char **argv);

/* ---- save commands (saves component) ---- */

/* castellan saves list [--campaign NAME] | show ID | delete ID (cmd_saves.c) */
int cas__cmd_saves(int argc, char **argv);
/* castellan saves migrate FROM TO (argv[0] is "migrate"): cmd_migrate.c. */
int cas__cmd_saves_migrate(int argc, char **argv);
/* castellan export ID [-o FILE] (cmd_saves.c) */
int cas__cmd_export(int argc, char **argv);
/* castellan export ID --html -o FILE [--viewer P] (cmd_render.c); usage is
 * export's own. */
int cas__cmd_export_html(int argc, char **argv, const char *usage);
/* castellan render ID [--ply N] [--viewer P] [-o FILE] (cmd_render.c) */
int cas__cmd_render(int argc, char **argv);
/* castellan campaign list | show NAME (cmd_saves.c) */
int cas__cmd_campaign(int argc, char **argv);
/* castellan ratings [--by game|mix] [--pool NAME] [--since DATE] (cmd_ratings.c) */
int cas__cmd_ratings(int argc, char **argv);
/* castellan players add|list|rename|remove|link ... (cmd_players.c) */
int cas__cmd_players(int argc, char **argv);
/* castellan resume ID [--force] (cmd_resume.c) */
int cas__cmd_resume(int argc, char **argv);
/* castellan replay ID [--step] (cmd_replay.c) */
int cas__cmd_replay(int argc, char **argv);
/* castellan import FILE (cmd_import.c) */
int cas__cmd_import(int argc, char **argv);

#endif
