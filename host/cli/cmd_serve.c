/*
 * cmd_serve.c — `castellan serve`: host games for browsers.  Reads the
 * flags and the [server] settings, then runs the server's loop
 * (host/server/serve_run.c; docs/server.md).
 */
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "commands.h"
#include "server_config.h"
#include "server.h"

static const char usage[] =
    "usage: castellan serve [--listen ADDR:PORT] [--database FILE] [--www DIR]\n"
    "                       [--cert FILE --key FILE] [--config FILE]\n"
    "                       [--plugin-path DIR[:DIR...]] [--isolated | --in-process]\n"
    "                       [--plugin-deadline MS] [--host-saved all|ID[,ID...]]\n"
    "                       [--allow-host NAMES] [--quiet]\n"
    "\n"
    "Hosts games for web browsers: open http://ADDR:PORT/ to create a game\n"
    "(from a preset or a game, expansions, rules and seats), hand out the\n"
    "seats' invite links, play by clicking and watch.  Every game is\n"
    "journaled action by action to the save store like `castellan play`'s\n"
    "(`castellan resume ID` continues one at the terminal); unfinished games\n"
    "come back when the server starts again.\n"
    "\n"
    "--listen ADDR:PORT  where to listen (default 127.0.0.1:8080; port 0: any\n"
    "                    free port; 0.0.0.0:8080 to be reached from other machines)\n"
    "--database FILE     the save store (default: the user's, as play)\n"
    "--www DIR           the browser client's files (default: the installed ones)\n"
    "--cert FILE --key FILE  serve HTTPS and WSS with this certificate (PEM)\n"
    "--allow-host NAMES  host names (comma-separated) the server answers to besides\n"
    "                    IP addresses and localhost: the name a reverse proxy or\n"
    "                    the players use (DNS rebinding and other sites' pages are\n"
    "                    refused)\n"
    "--config FILE       settings from the [server] section of FILE: listen, cert,\n"
    "                    key, database, www, plugin-path, allowed-hosts,\n"
    "                    max-message-bytes, max-queue-bytes, max-send-bytes,\n"
    "                    max-games, max-connections, rate, burst, bot-threads,\n"
    "                    notify-command (run with a JSON notice on stdin when a\n"
    "                    correspondence game's turn begins or the game ends)\n"
    "                    (flags win over the file)\n"
    "--host-saved all|ID[,ID...]  also host games started at the terminal (all of\n"
    "                    them, or those listed): a `create` with `resume` may take an\n"
    "                    unfinished one over, and a finished one's replay is shown.\n"
    "                    Without it the server hosts, lists and replays only the\n"
    "                    games it created\n"
    "--quiet             no line on stderr but errors\n"
    "\n" CAS__CLI_ISOLATION_HELP
    "\nSee docs/server.md (protocol, limits, TLS, reverse proxy).\n";

/* Settings of --config FILE where no flag gave them; 0 or an exit status. */
static int apply_config(struct cas__serve_setup *s, struct cas__server_config *c)
{
    char err[1024];
    struct cas__srv_limits *l = &s->opts.limits;
    if (!s->config)
        return 0;
    if (cas__server_config_load(s->config, c, err, sizeof err) != CAS_OK) {
        fprintf(stderr, "castellan serve: %s\n", err);
        return 2;
    }
    const char **flags[] = {&s->opts.listen, &s->opts.cert, &s->opts.key, &s->database,
                            &s->opts.www, &s->plugin_path, &s->opts.allowed_hosts};
    char *values[] = {c->listen, c->cert,        c->key,          c->database,
                      c->www,    c->plugin_path, c->allowed_hosts};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (!*flags[i])
            *flags[i] = values[i];
    if (c->max_message_bytes)
        l->max_message = c->max_message_bytes;
    if (c->max_queue_bytes)
        l->max_queue = c->max_queue_bytes;
    if (c->max_games)
        l->max_games = (unsigned)c->max_games;
    if (c->max_connections)
        l->max_connections = (unsigned)c->max_connections;
    if (c->bot_threads)
        l->bot_threads = (unsigned)c->bot_threads;
    if (c->max_send_bytes)
        l->max_send = c->max_send_bytes;
    if (c->rate > 0)
        l->rate = c->rate;
    if (c->burst > 0)
        l->burst = c->burst;
    s->notify_command = c->notify_command;
    return 0;
}

int cas__cmd_serve(int argc, char **argv)
{
    struct cas__serve_setup setup = {0};
    struct cas__server_config config = {0};
    const char *deadline = NULL, *host_saved = NULL;
    char err[1024];
    int isolated = 0, in_process = 0, done;
    size_t n_positional;
    cas__srv_limits_default(&setup.opts.limits);
    const struct cas__flag flags[] = {
        {"--listen", &setup.opts.listen, NULL, NULL}, {"--database", &setup.database, NULL, NULL},
        {"--allow-host", &setup.opts.allowed_hosts, NULL, NULL},
        {"--www", &setup.opts.www, NULL, NULL}, {"--cert", &setup.opts.cert, NULL, NULL},
        {"--key", &setup.opts.key, NULL, NULL}, {"--config", &setup.config, NULL, NULL},
        {"--plugin-path", &setup.plugin_path, NULL, NULL},
        {"--isolated", NULL, &isolated, NULL}, {"--in-process", NULL, &in_process, NULL},
        {"--plugin-deadline", &deadline, NULL, NULL}, {"--quiet", NULL, &setup.opts.quiet, NULL},
        {"--host-saved", &host_saved, NULL, NULL},
    };
    int status = cas__cli_parse("serve", argc, argv, flags, sizeof flags / sizeof flags[0],
                                NULL, 0, &n_positional, usage, &done);
    if (status || done)
        return status;
    status = cas__cli_isolation("serve", isolated, in_process, deadline, &setup.isolation);
    if (status || (status = apply_config(&setup, &config)))
        return status;
    if (host_saved &&
        cas__host_saved_parse(host_saved, &setup.host_saved, err, sizeof err) != CAS_OK) {
        fprintf(stderr, "castellan serve: %s\n", err);
        cas__server_config_free(&config);
        return 2;
    }
    if (!setup.opts.listen)
        setup.opts.listen = "127.0.0.1:8080";
    status = cas__serve_run(&setup);
    free(setup.host_saved.ids);
    cas__server_config_free(&config);
    return status;
}
