/*
 * server_config.h — the [server] section of a castellan serve settings file
 * (castellan serve --config FILE), in the session INI format: where to
 * listen, TLS, the store, the client's files and the limits.  Every value
 * is checked here; an error names FILE:LINE, the value and the fix.
 */
#ifndef CAS_CONFIG_SERVER_CONFIG_H
#define CAS_CONFIG_SERVER_CONFIG_H

#include <stddef.h>

/* Strings owned; NULL or 0 when the file does not set them. */
struct cas__server_config {
    char *listen, *cert, *key, *database, *www, *plugin_path, *allowed_hosts;
    char *notify_command;  /* checked with cas__notify_argv */
    /* public-url: the address browsers reach the server at
     * (https://games.example.org), for the links castellan prints. */
    char *public_url;
    unsigned long max_message_bytes, max_queue_bytes, max_games, max_connections,
                  bot_threads, max_send_bytes;
    double rate, burst;
};

/* Read the [server] section of the file at path (other sections are left
 * to their readers).  On failure err holds "FILE:LINE: problem; fix" and
 * *out is empty. */
int cas__server_config_load(const char *path, struct cas__server_config *out, char *err,
                            size_t errlen);
void cas__server_config_free(struct cas__server_config *c);

#define CAS__NOTIFY_MAX_WORDS 32

/* The words of a notify-command (docs/server.md, "Notifications"):
 * separated by blanks, no quoting and no shell; the first is the absolute
 * path of an executable file.  On success *argv (NULL-terminated, words
 * and array one allocation: free(*argv)) holds them.  CAS_EINVAL with err
 * naming the problem and the fix; CAS_ENOMEM. */
int cas__notify_argv(const char *command, char ***argv, char *err, size_t errlen);

/* Whether url can be a public-url: http:// or https://, a host, no space,
 * control or non-ASCII character, no '#' or '?'.  CAS_OK, or CAS_EINVAL
 * with the fix in why (NULL: not wanted). */
int cas__public_url_check(const char *url, char *why, size_t whylen);

#endif
