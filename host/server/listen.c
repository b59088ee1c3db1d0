/*
 * listen.c — the listening socket of castellan serve, made here rather than
 * by libwebsockets: lws 4.1 given an address as its "interface" binds
 * *:PORT, so a server asked for 127.0.0.1 was on every network.  The
 * socket is bound to exactly the numeric address asked (IPv6 only for an
 * IPv6 address) and handed to the event loop, which accepts on it and
 * gives each connection to lws (http.c).  Also the file-descriptor limit
 * the connections need, checked before anything listens.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "server.h"

/* "ADDR:PORT" or "[ADDR6]:PORT" into addr and *port. */
static int parse_listen(const char *listen, char *addr, size_t cap, int *port,
                        char *err, size_t errlen)
{
    const char *colon = strrchr(listen, ':');
    const char *host = listen, *host_end = colon;
    char *end;
    if (colon && listen[0] == '[') {
        host = listen + 1;
        host_end = colon > listen && colon[-1] == ']' ? colon - 1 : NULL;
    }
    long p = colon ? strtol(colon + 1, &end, 10) : -1;
    if (!colon || !host_end || host_end == host || (size_t)(host_end - host) >= cap ||
        !colon[1] || *end || p < 0 || p > 65535) {
        snprintf(err, errlen, "--listen %s: give ADDRESS:PORT, e.g. 127.0.0.1:8080, "
                 "0.0.0.0:8080 or [::1]:8080 (port 0: any free port)", listen);
        return CAS_EINVAL;
    }
    memcpy(addr, host, (size_t)(host_end - host));
    addr[host_end - host] = '\0';
    *port = (int)p;
    return CAS_OK;
}

int cas__listen_open(const char *where, int *fd_out, int *port_out, char *err, size_t errlen)
{
    char addr[128], service[8];
    int port, one = 1, rc = CAS_EIO;
    struct addrinfo hints = {.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE,
                             .ai_socktype = SOCK_STREAM}, *ai;
    struct sockaddr_storage bound;
    socklen_t bound_len = sizeof bound;
    *fd_out = -1;
    if (parse_listen(where, addr, sizeof addr, &port, err, errlen))
        return CAS_EINVAL;
    snprintf(service, sizeof service, "%d", port);
    if (getaddrinfo(addr, service, &hints, &ai) != 0) {
        snprintf(err, errlen, "--listen %s: %s is not a numeric IPv4 or IPv6 address (give "
                 "the address, e.g. 127.0.0.1 or [::1], not a host or interface name)",
                 where, addr);
        return CAS_EINVAL;
    }
    int fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        snprintf(err, errlen, "cannot listen on %s: socket: %s", where, strerror(errno));
        goto free_ai;
    }
    /* An IPv6 address means that address only, never the IPv4 ones too. */
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
        (ai->ai_family == AF_INET6 &&
         setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one)) ||
        bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 511) ||
        getsockname(fd, (struct sockaddr *)&bound, &bound_len)) {
        snprintf(err, errlen, "cannot listen on %s: %s (is the address this machine's and "
                 "the port free?)", where, strerror(errno));
        goto close_fd;
    }
    *port_out = ntohs(bound.ss_family == AF_INET6
                          ? ((struct sockaddr_in6 *)&bound)->sin6_port
                          : ((struct sockaddr_in *)&bound)->sin_port);
    *fd_out = fd;
    fd = -1;
    rc = CAS_OK;
close_fd:
    if (fd >= 0)
        close(fd);
free_ai:
    freeaddrinfo(ai);
    return rc;
}

int cas__fd_limit_check(unsigned max_connections, char *err, size_t errlen)
{
    struct rlimit lim;
    rlim_t need = (rlim_t)max_connections + CAS__FDS_BESIDES_CONNECTIONS;
    if (getrlimit(RLIMIT_NOFILE, &lim))
        return CAS_OK; /* nothing known to check against */
    if (lim.rlim_cur == RLIM_INFINITY || lim.rlim_cur >= need)
        return CAS_OK;
    if (lim.rlim_max != RLIM_INFINITY && lim.rlim_max < need) {
        snprintf(err, errlen, "max-connections %u needs %llu open files (%u for the "
                 "store, plugins, workers and the listening socket), but this process may "
                 "open at most %llu: raise the limit (ulimit -n %llu, or LimitNOFILE=%llu in "
                 "a systemd unit) or lower max-connections to %llu", max_connections,
                 (unsigned long long)need, CAS__FDS_BESIDES_CONNECTIONS,
                 (unsigned long long)lim.rlim_max, (unsigned long long)need,
                 (unsigned long long)need,
                 lim.rlim_max > CAS__FDS_BESIDES_CONNECTIONS
                     ? (unsigned long long)(lim.rlim_max - CAS__FDS_BESIDES_CONNECTIONS)
                     : 0ULL);
        return CAS_EINVAL;
    }
    lim.rlim_cur = need;
    if (setrlimit(RLIMIT_NOFILE, &lim)) {
        snprintf(err, errlen, "max-connections %u needs %llu open files; raising the limit "
                 "failed: %s", max_connections, (unsigned long long)need, strerror(errno));
        return CAS_EIO;
    }
    return CAS_OK;
}

unsigned cas__fd_limit_connections(unsigned wanted)
{
    struct rlimit lim;
    if (getrlimit(RLIMIT_NOFILE, &lim) || lim.rlim_max == RLIM_INFINITY)
        return wanted;
    rlim_t room = lim.rlim_max > CAS__FDS_BESIDES_CONNECTIONS
                      ? lim.rlim_max - CAS__FDS_BESIDES_CONNECTIONS : 1;
    return room < wanted ? (unsigned)room : wanted;
}
