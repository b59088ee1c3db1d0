/*
 * tcp_read.c — what a TCP socket has read, from the kernel's counts: the
 * load client's measure of the bytes each message took on the wire
 * (loadgen.c), taken as they came rather than compressed again.  Apart
 * from wsclient.c because linux/tcp.h, whose struct tcp_info has
 * tcpi_bytes_received, cannot be included beside glibc's netinet/tcp.h.
 */
#include <linux/sockios.h>
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/socket.h>

#include "wsclient.h"

int64_t cas__tcp_bytes_read(int fd)
{
    struct tcp_info info;
    socklen_t len = sizeof info;
    int unread;
    if (fd < 0 || getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &len) != 0 ||
        len < offsetof(struct tcp_info, tcpi_bytes_received) + sizeof info.tcpi_bytes_received ||
        ioctl(fd, SIOCINQ, &unread) != 0)
        return -1;
    return (int64_t)info.tcpi_bytes_received - unread;
}
