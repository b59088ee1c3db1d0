/*
 * cmd_players.c — `castellan players`: the players registered on a server
 * (docs/players.md).  A player is a name and a secret key; the owner adds
 * them here and gives each their sign-in link, which sets the key in their
 * browser.  No passwords, no e-mail: a lost link is replaced by `players
 * link`, which revokes the old key.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "cli.h"
#include "commands.h"
#include "player_key.h"
#include "saves_cli.h"
#include "server_config.h"
#include "text.h"

static const char usage[] =
    "usage: castellan players add NAME [--url URL | --config FILE] [--database FILE]\n"
    "       castellan players list [--database FILE]\n"
    "       castellan players rename OLD NEW [--database FILE]\n"
    "       castellan players remove NAME [--database FILE]\n"
    "       castellan players link NAME [--url URL | --config FILE] [--database FILE]\n"
    "\n"
    "The players registered on a castellan serve: each a name (unique whatever\n"
    "its case, 1 to 32 characters, no comma or colon) and a secret key the\n"
    "player's browser keeps.  add and link print the player's sign-in link;\n"
    "whoever opens it plays as that player, so give it to them alone.\n"
    "\n"
    "  add NAME        register NAME and print their sign-in link\n"
    "  list            name, when added, when last seen, games played\n"
    "  rename OLD NEW  a new name; past games follow the player in ratings\n"
    "  remove NAME     forget the player; their games are kept, their seats keep\n"
    "                  the name in results, and their key stops working\n"
    "  link NAME       a new key and link; the old key stops working\n"
    "\n"
    "  --url URL       the server's address as browsers reach it\n"
    "                  (https://games.example.org)\n"
    "  --config FILE   a castellan serve settings file: its [server] public-url\n"
    "                  for the link, its database unless --database is given\n"
    "  --database FILE the store (default: the user's, as castellan serve)\n"
    "\n"
    "Without --url or public-url the link is for http://127.0.0.1:8080, where\n"
    "castellan serve listens by default.\n";

#define DEFAULT_URL "http://127.0.0.1:8080"

struct options {
    struct cas__saves_args a;
    const char *url, *config;
    struct cas__server_config server;
    const char *url_from; /* what the link's address came from, for the user */
};

static int parse(struct options *o, int argc, char **argv)
{
    const char *positional[4];
    size_t n = 0;
    int done = 0;
    struct cas__flag flags[] = {
        {"--database", &o->a.database, NULL, NULL},
        {"--url", &o->url, NULL, NULL},
        {"--config", &o->config, NULL, NULL},
    };
    snprintf(o->a.cmd, sizeof o->a.cmd, "castellan players");
    int status = cas__cli_parse("players", argc, argv, flags, 3, positional, 4, &n, usage,
                                &done);
    if (status || done)
        return status;
    if (n == 0) {
        fprintf(stderr, "castellan players: say what to do: add, list, rename, remove or "
                "link\n%s", usage);
        return 2;
    }
    static const struct {
        const char *name;
        size_t args;
    } subs[] = {{"add", 1}, {"list", 0}, {"rename", 2}, {"remove", 1}, {"link", 1}};
    size_t k = 0;
    while (k < 5 && strcmp(subs[k].name, positional[0]) != 0)
        k++;
    if (k == 5) {
        fprintf(stderr, "castellan players: unknown subcommand \"%s\" (add, list, rename, "
                "remove, link)\n", positional[0]);
        return 2;
    }
    if (n - 1 != subs[k].args) {
        fprintf(stderr, "castellan players %s: takes %s; see castellan players --help\n",
                subs[k].name, subs[k].args == 0 ? "no name"
                              : subs[k].args == 1 ? "one NAME (quote a name with spaces)"
                                                  : "OLD and NEW");
        return 2;
    }
    if (o->url && o->config) {
        fprintf(stderr, "castellan players: give --url or --config, not both\n");
        return 2;
    }
    for (size_t i = 0; i < n; i++)
        o->a.positional[i] = positional[i];
    o->a.n_positional = (int)n;
    return -1;
}

/* The link's address and the store from --url, --config or the defaults. */
static int settle(struct options *o)
{
    char why[1024];
    if (o->url && cas__public_url_check(o->url, why, sizeof why)) {
        fprintf(stderr, "castellan players: --url %s: %s\n", o->url, why);
        return 2;
    }
    if (o->config) {
        if (cas__server_config_load(o->config, &o->server, why, sizeof why)) {
            fprintf(stderr, "castellan players: %s\n", why);
            return 1;
        }
        if (!o->a.database)
            o->a.database = o->server.database;
        o->url = o->server.public_url;
        o->url_from = "public-url of --config";
    } else if (o->url) {
        o->url_from = "--url";
    }
    if (!o->url) {
        o->url = DEFAULT_URL;
        o->url_from = "castellan serve's default address; give --url URL or set "
                      "[server] public-url for another";
    }
    return -1;
}

static void print_link(const struct options *o, const char *name, const char *key)
{
    size_t len = strlen(o->url);
    while (len && o->url[len - 1] == '/')
        len--;
    printf("Sign-in link for %s (address from %s):\n  %.*s/#signin=%s\n"
           "Give it to %s alone: whoever opens it plays as %s.  It goes in the link's\n"
           "fragment, which browsers never send to a proxy.  A lost or leaked link:\n"
           "castellan players link \"%s\" makes a new one and revokes this one.\n",
           name, o->url_from, (int)len, o->url, key, name, name, name);
}

static int issue(struct options *o, struct cas__saves *s, int rekey)
{
    char key[CAS__PLAYER_KEY_MAX];
    const char *name = o->a.positional[1];
    if (cas__player_key_issue(s, name, rekey, key))
        return cas__saves_args_fail(&o->a, s);
    struct cas__saves_registered r;
    if (cas__saves_registered_find(s, name, &r) == CAS_OK) { /* the name as stored */
        if (rekey)
            printf("%s has a new key; the old one no longer works.\n", r.name);
        else
            printf("Added player %s to %s.\n", r.name, cas__saves_path(s));
        print_link(o, r.name, key);
        cas__saves_registered_free(&r);
    }
    OPENSSL_cleanse(key, sizeof key);
    return 0;
}

static int list(struct options *o, struct cas__saves *s)
{
    struct cas__saves_registered *r;
    size_t n;
    if (cas__saves_registered_list(s, &r, &n))
        return cas__saves_args_fail(&o->a, s);
    if (n == 0)
        printf("no players in %s; add one with castellan players add NAME\n",
               cas__saves_path(s));
    else
        printf("%-32s  %-20s  %-20s  %5s\n", "NAME", "ADDED", "LAST SEEN", "GAMES");
    for (size_t i = 0; i < n; i++) {
        cas__text_printable(r[i].name); /* a store made by hand may hold anything */
        printf("%-32s  %-20s  %-20s  %5zu\n", r[i].name, r[i].created_at,
               r[i].last_seen ? r[i].last_seen : "never", r[i].games);
    }
    cas__saves_registered_list_free(r, n);
    return 0;
}

static int rename_player(struct options *o, struct cas__saves *s)
{
    const char *old_name = o->a.positional[1], *new_name = o->a.positional[2];
    if (cas__saves_registered_rename(s, old_name, new_name))
        return cas__saves_args_fail(&o->a, s);
    printf("Renamed %s to %s.  Their seats in past games keep the name they had;\n"
           "ratings and their history follow the player.  Their key is unchanged.\n",
           old_name, new_name);
    return 0;
}

static int remove_player(struct options *o, struct cas__saves *s)
{
    struct cas__saves_registered r;
    if (cas__saves_registered_find(s, o->a.positional[1], &r) ||
        cas__saves_registered_remove(s, r.name)) {
        cas__saves_registered_free(&r);
        return cas__saves_args_fail(&o->a, s);
    }
    cas__text_printable(r.name);
    printf("Removed player %s; their key no longer works.  Their %zu game%s %s kept:\n"
           "the seats keep the name %s in results, records and ratings, as a guest's.\n",
           r.name, r.games, r.games == 1 ? "" : "s", r.games == 1 ? "is" : "are", r.name);
    cas__saves_registered_free(&r);
    return 0;
}

int cas__cmd_players(int argc, char **argv)
{
    struct options o = {0};
    int status = parse(&o, argc, argv);
    if (status < 0)
        status = settle(&o);
    if (status >= 0) {
        cas__server_config_free(&o.server);
        return status;
    }
    const char *sub = o.a.positional[0];
    enum cas__store_use use = strcmp(sub, "list") == 0  ? CAS__STORE_READ
                              : strcmp(sub, "add") == 0 ? CAS__STORE_CREATE
                                                        : CAS__STORE_WRITE;
    struct cas__saves *s = cas__saves_args_open(&o.a, use);
    if (!s) {
        cas__server_config_free(&o.server);
        return 1;
    }
    if (strcmp(sub, "add") == 0 || strcmp(sub, "link") == 0)
        status = issue(&o, s, sub[1] == 'i');
    else if (strcmp(sub, "list") == 0)
        status = list(&o, s);
    else if (strcmp(sub, "rename") == 0)
        status = rename_player(&o, s);
    else
        status = remove_player(&o, s);
    cas__saves_close(s);
    cas__server_config_free(&o.server);
    return status;
}
