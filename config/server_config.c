/*
 * server_config.c — reading [server] of a castellan serve settings file:
 * strings for the places, whole numbers and rates checked against their
 * bounds, a key that is not one named with the closest that is.
 */
#include "server_config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <castellan/plugin.h>

#include "text.h"

#define MAX_BYTES (1024 * 1024) /* of the settings file */

static const char *const keys[] = {
    "listen", "cert", "key", "database", "www", "plugin-path", "allowed-hosts",
    "notify-command", "public-url", "max-message-bytes", "max-queue-bytes", "max-games",
    "max-connections", "bot-threads", "max-send-bytes", "rate", "burst",
};
#define N_STRINGS 9 /* the keys up to public-url */
#define N_WHOLE 6   /* then whole numbers, up to max-send-bytes */
#define N_KEYS (sizeof keys / sizeof keys[0])

/* Bounds of the numbers: the limits stay sane whatever the file says. */
static const struct {
    const char *key;
    double min, max;
} bounds[] = {
    {"max-message-bytes", 256, 16 << 20}, {"max-queue-bytes", 4096, 1ul << 30},
    {"max-games", 1, 1000000}, {"max-connections", 1, 1000000}, {"bot-threads", 1, 64},
    {"max-send-bytes", 65536, 64.0 * (1ul << 30)}, {"rate", 0.1, 1e6}, {"burst", 1, 1e6},
};

struct reading {
    struct cas__server_config *c;
    const char *path;
    struct cas__ini_cursor cur;
    char *err;
    size_t errlen;
    int rc;
    unsigned seen; /* bit per key */
};

static int number(struct reading *r, const char *key, const char *value, double *out)
{
    char *end;
    size_t i = 0;
    while (strcmp(bounds[i].key, key) != 0)
        i++;
    errno = 0;
    double v = strtod(value, &end);
    if (!*value || *end || errno || v < bounds[i].min || v > bounds[i].max) {
        r->rc = cas__errorf(r->err, r->errlen, CAS_EPARSE, "%s:%d: %s = %s: give a number "
                            "from %g to %g", r->path, r->cur.line, key, value, bounds[i].min,
                            bounds[i].max);
        return r->rc;
    }
    *out = v;
    return CAS_OK;
}

static int set_string(struct reading *r, char **field, const char *value)
{
    free(*field);
    if (!(*field = strdup(value)))
        r->rc = cas__errorf(r->err, r->errlen, CAS_ENOMEM, "out of memory");
    return r->rc;
}

int cas__public_url_check(const char *url, char *why, size_t whylen)
{
    const char *rest = strncmp(url, "https://", 8) == 0  ? url + 8
                       : strncmp(url, "http://", 7) == 0 ? url + 7
                                                         : NULL;
    const char *problem = NULL;
    if (!rest)
        problem = "write the address browsers use, starting with https:// or http://";
    else if (!*rest || *rest == '/')
        problem = "name the host after the scheme (https://games.example.org)";
    for (const unsigned char *p = (const unsigned char *)url; !problem && *p; p++)
        if (*p <= ' ' || *p == 0x7F || *p == '#' || *p == '?' || *p == '"' || *p >= 0x80)
            problem = "leave out spaces, '#', '?', quotes and non-ASCII characters "
                      "(write a name in its xn-- form)";
    if (problem && why)
        snprintf(why, whylen, "%s", problem);
    return problem ? CAS_EINVAL : CAS_OK;
}

static int on_key(void *user, const char *section, const char *key, const char *value)
{
    struct reading *r = user;
    struct cas__server_config *c = r->c;
    size_t k = 0;
    double v = 0;
    if (r->rc || strcmp(section, "server") != 0)
        return 1;
    while (k < N_KEYS && strcmp(keys[k], key) != 0)
        k++;
    if (k == N_KEYS) {
        char note[96];
        r->rc = cas__errorf(r->err, r->errlen, CAS_EPARSE, "%s:%d: unknown key \"%s\" in "
                            "[server]%s; docs/server.md lists the keys", r->path, r->cur.line,
                            key, cas__closest_note(note, sizeof note, key, keys, N_KEYS));
        return 1;
    }
    if (r->seen & (1u << k)) {
        r->rc = cas__errorf(r->err, r->errlen, CAS_EPARSE, "%s:%d: \"%s\" is set twice in "
                            "[server]; keep one", r->path, r->cur.line, key);
        return 1;
    }
    r->seen |= 1u << k;
    if (!*value) {
        r->rc = cas__errorf(r->err, r->errlen, CAS_EPARSE, "%s:%d: \"%s\" has no value; give "
                            "one or drop the line", r->path, r->cur.line, key);
        return 1;
    }
    char **strings[] = {&c->listen,        &c->cert,        &c->key,
                        &c->database,      &c->www,         &c->plugin_path,
                        &c->allowed_hosts, &c->notify_command, &c->public_url};
    if (strcmp(key, "public-url") == 0 && cas__public_url_check(value, NULL, 0)) {
        char why[256];
        cas__public_url_check(value, why, sizeof why);
        r->rc = cas__errorf(r->err, r->errlen, CAS_EPARSE, "%s:%d: public-url = %s: %s",
                            r->path, r->cur.line, value, why);
        return 1;
    }
    if (k < N_STRINGS) {
        char why[600], **argv;
        if (strings[k] == &c->notify_command) {
            if (cas__notify_argv(value, &argv, why, sizeof why) != CAS_OK) {
                r->rc = cas__errorf(r->err, r->errlen, CAS_EPARSE, "%s:%d: notify-command: %s",
                                    r->path, r->cur.line, why);
                return 1;
            }
            free(argv);
        }
        set_string(r, strings[k], value);
        return 1;
    }
    if (number(r, key, value, &v))
        return 1;
    unsigned long *whole[] = {&c->max_message_bytes, &c->max_queue_bytes, &c->max_games,
                              &c->max_connections, &c->bot_threads, &c->max_send_bytes};
    if (k < N_STRINGS + N_WHOLE) {
        if (v != (double)(unsigned long)v)
            r->rc = cas__errorf(r->err, r->errlen, CAS_EPARSE, "%s:%d: %s = %s: give a whole "
                                "number", r->path, r->cur.line, key, value);
        *whole[k - N_STRINGS] = (unsigned long)v;
    } else if (k == N_STRINGS + N_WHOLE) {
        c->rate = v;
    } else {
        c->burst = v;
    }
    return 1;
}

int cas__server_config_load(const char *path, struct cas__server_config *out, char *err,
                            size_t errlen)
{
    char *text;
    struct reading r = {.c = out, .path = path, .err = err, .errlen = errlen};
    memset(out, 0, sizeof *out);
    int rc = cas__read_file(path, MAX_BYTES, &text);
    if (rc == CAS_EIO)
        return cas__errorf(err, errlen, rc, "%s: cannot be read: %s; check the path", path,
                           strerror(errno));
    if (rc)
        return cas__errorf(err, errlen, rc, "%s: not a settings file (binary, or larger than "
                           "1 MiB); give an INI file with a [server] section", path);
    int bad_line = cas__ini_parse(text, &r.cur, on_key, &r);
    free(text);
    if (!r.rc && bad_line > 0)
        r.rc = cas__errorf(err, errlen, CAS_EPARSE, "%s:%d: neither [section] nor key = value; "
                           "fix the line's syntax", path, bad_line);
    if (!r.rc && out->cert && !out->key)
        r.rc = cas__errorf(err, errlen, CAS_EPARSE, "%s: [server] names a cert but no key; "
                           "TLS needs both", path);
    if (!r.rc && out->key && !out->cert)
        r.rc = cas__errorf(err, errlen, CAS_EPARSE, "%s: [server] names a key but no cert; "
                           "TLS needs both", path);
    if (r.rc)
        cas__server_config_free(out);
    return r.rc;
}

void cas__server_config_free(struct cas__server_config *c)
{
    free(c->listen);
    free(c->cert);
    free(c->key);
    free(c->database);
    free(c->www);
    free(c->plugin_path);
    free(c->allowed_hosts);
    free(c->notify_command);
    free(c->public_url);
    memset(c, 0, sizeof *c);
}

int cas__notify_argv(const char *command, char ***argv, char *err, size_t errlen)
{
    size_t n = 0, len = strlen(command);
    struct stat st;
    *argv = NULL;
    for (const char *p = command; *p; p++)
        if ((unsigned char)*p < 0x20 && *p != '\t')
            return cas__errorf(err, errlen, CAS_EINVAL, "a control character in \"%.200s\"; "
                               "give the command's words separated by spaces", command);
    char **words = malloc((CAS__NOTIFY_MAX_WORDS + 1) * sizeof *words + len + 1);
    if (!words)
        return cas__errorf(err, errlen, CAS_ENOMEM, "out of memory");
    char *text = (char *)(words + CAS__NOTIFY_MAX_WORDS + 1), *save = NULL;
    memcpy(text, command, len + 1);
    for (char *w = strtok_r(text, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) {
        if (n == CAS__NOTIFY_MAX_WORDS) {
            free(words);
            return cas__errorf(err, errlen, CAS_EINVAL, "more than %d words; put them in a "
                               "script and name the script", CAS__NOTIFY_MAX_WORDS);
        }
        words[n++] = w;
    }
    words[n] = NULL;
    int rc = CAS_OK;
    if (n == 0 || words[0][0] != '/')
        rc = cas__errorf(err, errlen, CAS_EINVAL, "\"%.200s\" does not start with an absolute "
                         "path; name the program as /path/to/program (it runs without a shell: "
                         "no $VARIABLES, quotes or pipes)", command);
    else if (stat(words[0], &st) != 0 || !S_ISREG(st.st_mode) || access(words[0], X_OK) != 0)
        rc = cas__errorf(err, errlen, CAS_EINVAL, "%.300s is not an executable file; check "
                         "the path and its mode (chmod +x)", words[0]);
    if (rc)
        free(words);
    else
        *argv = words;
    return rc;
}
