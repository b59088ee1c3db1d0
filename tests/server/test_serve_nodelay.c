/*
 * test_serve_nodelay.c — the sockets `castellan serve` accepts send at
 * once (TCP_NODELAY): read off the server's own socket, taken from the
 * running server with pidfd_getfd, not inferred from any timing.
 */
#define _GNU_SOURCE /* syscall */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "serve_process.h"

/* The server's end of the connection whose client port is port, as a
 * descriptor of ours; -1 when none was found, -2 when the kernel lets
 * nobody take it. */
static int servers_end(pid_t pid, int port)
{
    char dir[64];
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), found = -1;
    if (pidfd < 0)
        return -2;
    snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && found == -1 && (e = readdir(d));) {
        int fd = (int)syscall(SYS_pidfd_getfd, pidfd, atoi(e->d_name), 0);
        struct sockaddr_in peer;
        socklen_t len = sizeof peer;
        if (fd < 0) {
            if (errno == EPERM || errno == ENOSYS)
                found = -2;
            continue;
        }
        if (getpeername(fd, (struct sockaddr *)&peer, &len) == 0 && peer.sin_family == AF_INET &&
            ntohs(peer.sin_port) == port)
            found = fd;
        else
            close(fd);
    }
    if (d)
        closedir(d);
    close(pidfd);
    return found;
}

static void test_accepted_sockets_send_at_once(void **state)
{
    (void)state;
    struct serve_process p;
    char answer[512];
    static const char ask[] = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    serve_forget("nodelay");
    serve_start(&p, "nodelay", NULL);
    int fd = serve_connect_tcp(&p);
    /* Answered: accepted and handed to libwebsockets, kept alive. */
    assert_int_equal(send(fd, ask, sizeof ask - 1, MSG_NOSIGNAL), (ssize_t)(sizeof ask - 1));
    assert_true(recv(fd, answer, sizeof answer, 0) > 0);
    struct sockaddr_in mine;
    socklen_t len = sizeof mine;
    assert_int_equal(getsockname(fd, (struct sockaddr *)&mine, &len), 0);
    int theirs = servers_end(p.pid, ntohs(mine.sin_port));
    if (theirs == -2) {
        close(fd);
        serve_stop(&p);
        skip(); /* no pidfd_getfd here (kernel < 5.6, or not allowed) */
    }
    assert_true(theirs >= 0);
    int on = 0;
    len = sizeof on;
    assert_int_equal(getsockopt(theirs, IPPROTO_TCP, TCP_NODELAY, &on, &len), 0);
    assert_int_equal(on, 1);
    close(theirs);
    close(fd);
    assert_int_equal(serve_stop(&p), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_accepted_sockets_send_at_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
