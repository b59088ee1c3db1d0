/*
 * access.c — which Host and Origin headers castellan serve answers: the
 * defence against DNS rebinding (a stranger's name resolved to this
 * machine: its Host is that name) and cross-site WebSocket hijacking (a
 * page elsewhere opening the server's WebSocket from the visitor's
 * browser: its Origin is that page's).  A Host is answered when it is an
 * IP address (a rebinding needs a name), localhost, or a name the server
 * was given (allowed-hosts); an Origin when it is the page's own server
 * (its host and port are the Host's) or one of those names.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "server.h"

/* The name part of a Host value ("[::1]:80" -> "[::1]", "a.org:80" ->
 * "a.org") into name[0..cap): 0, or -1 when it does not fit or is empty. */
static int host_name(const char *host, size_t len, char *name, size_t cap)
{
    size_t n = len;
    if (len && host[0] == '[') {
        const char *close = memchr(host, ']', len);
        if (!close)
            return -1;
        n = (size_t)(close - host) + 1;
    } else {
        const char *colon = memchr(host, ':', len);
        if (colon)
            n = (size_t)(colon - host);
    }
    if (!n || n >= cap)
        return -1;
    for (size_t i = 0; i < n; i++)
        name[i] = (char)tolower((unsigned char)host[i]);
    name[n] = '\0';
    return 0;
}

static int is_ip_literal(const char *name)
{
    unsigned char buf[16];
    char v6[64];
    size_t len = strlen(name);
    if (inet_pton(AF_INET, name, buf) == 1)
        return 1;
    if (len < 3 || name[0] != '[' || name[len - 1] != ']' || len - 2 >= sizeof v6)
        return 0;
    memcpy(v6, name + 1, len - 2);
    v6[len - 2] = '\0';
    return inet_pton(AF_INET6, v6, buf) == 1;
}

static int is_named(const struct cas__allowed_hosts *a, const char *name)
{
    size_t len = strlen(name);
    if (strcmp(name, "localhost") == 0 ||
        (len > 10 && strcmp(name + len - 10, ".localhost") == 0))
        return 1;
    for (size_t i = 0; i < a->n; i++)
        if (strcasecmp(a->names[i], name) == 0)
            return 1;
    return 0;
}

int cas__host_allowed(const struct cas__allowed_hosts *a, const char *host)
{
    char name[256];
    if (!host || host_name(host, strlen(host), name, sizeof name))
        return 0;
    return is_ip_literal(name) || is_named(a, name);
}

int cas__origin_allowed(const struct cas__allowed_hosts *a, const char *origin,
                        const char *host)
{
    char name[256];
    if (!origin || !origin[0])
        return 1; /* not a browser: no visitor's browser to hijack */
    const char *sep = strstr(origin, "://");
    if (!sep || (strncasecmp(origin, "http://", 7) && strncasecmp(origin, "https://", 8)))
        return 0; /* "null" (a file or sandboxed page) or another scheme */
    const char *hostport = sep + 3;
    size_t len = strcspn(hostport, "/");
    if (host && strlen(host) == len && strncasecmp(hostport, host, len) == 0)
        return 1;
    return host_name(hostport, len, name, sizeof name) == 0 && is_named(a, name) &&
           strcmp(name, "localhost") != 0 && !strstr(name, ".localhost");
}

int cas__allowed_hosts_parse(const char *list, struct cas__allowed_hosts *out, char *err,
                             size_t errlen)
{
    memset(out, 0, sizeof *out);
    for (const char *at = list ? list : ""; *at;) {
        size_t n = strcspn(at, ", \t");
        if (n) {
            char **more = realloc(out->names, (out->n + 1) * sizeof *more);
            char *name = more ? strndup(at, n) : NULL;
            if (more)
                out->names = more;
            if (!name) {
                snprintf(err, errlen, "out of memory");
                cas__allowed_hosts_free(out);
                return CAS_ENOMEM;
            }
            for (char *p = name; *p; p++) {
                if (!isalnum((unsigned char)*p) && *p != '.' && *p != '-' && *p != '[' &&
                    *p != ']' && *p != ':') {
                    snprintf(err, errlen, "allowed host \"%s\": give host names (a.example.org) "
                             "separated by commas, without scheme, port or path", name);
                    free(name);
                    cas__allowed_hosts_free(out);
                    return CAS_EINVAL;
                }
                *p = (char)tolower((unsigned char)*p);
            }
            out->names[out->n++] = name;
        }
        at += n;
        at += strspn(at, ", \t");
    }
    return CAS_OK;
}

void cas__allowed_hosts_free(struct cas__allowed_hosts *a)
{
    for (size_t i = 0; i < a->n; i++)
        free(a->names[i]);
    free(a->names);
    memset(a, 0, sizeof *a);
}
