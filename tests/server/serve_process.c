/*
 * serve_process.c — run `castellan serve` as a child of a test (see
 * serve_process.h).
 */
#include "serve_process.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>
#include <dirent.h>

void serve_forget(const char *dir)
{
    static const char *const files[] = {"s.db", "s.db-wal", "s.db-shm"};
    for (size_t i = 0; i < 3; i++) {
        char path[600];
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        unlink(path);
    }
}

/* The server of a test that failed half way must not outlive it. */
static pid_t running;

static void kill_running(void)
{
    if (running > 0)
        kill(running, SIGKILL);
}

void serve_start(struct serve_process *p, const char *dir, const char *const *extra)
{
    static int registered;
    if (!registered++)
        atexit(kill_running);
    const char *build = getenv("CASTELLAN_BUILD_DIR");
    char exe[600], www[600], index[700], log[700];
    assert_non_null(build);
    snprintf(exe, sizeof exe, "%s/host/castellan", build);
    snprintf(p->dir, sizeof p->dir, "%s", dir);
    snprintf(p->db, sizeof p->db, "%s/s.db", dir);
    snprintf(www, sizeof www, "%s/www", dir);
    snprintf(index, sizeof index, "%s/index.html", www);
    mkdir(dir, 0700);
    mkdir(www, 0700);
    FILE *f = fopen(index, "w");
    assert_non_null(f);
    fputs("<!doctype html><title>castellan</title>\n", f);
    fclose(f);
    snprintf(log, sizeof log, "%s/serve.log", dir);
    const char *argv[32] = {exe, "serve", "--database", p->db, "--www", www};
    size_t n = 6;
    int listen_given = 0;
    for (size_t i = 0; extra && extra[i] && n < 29; i++) {
        listen_given |= strcmp(extra[i], "--listen") == 0;
        argv[n++] = extra[i];
    }
    if (!listen_given) {
        argv[n++] = "--listen";
        argv[n++] = "127.0.0.1:0";
    }
    argv[n] = NULL;
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    p->pid = fork();
    assert_true(p->pid >= 0);
    if (p->pid == 0) {
        /* A check that fails mid-test skips its serve_stop: the server must
         * not outlive the test and hold ctest's output pipe open. */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        dup2(fd, 2);
        close(fd);
        execv(exe, (char *const *)argv);
        _exit(127);
    }
    close(fd);
    running = p->pid;
    /* Wait for the line that says it listens, with the port (the server
     * writes it once; the bound only stops a test whose server died). */
    p->port = 0;
    for (int tries = 0; !p->port && tries < 6000; tries++) {
        char line[1024];
        FILE *f = fopen(log, "r");
        while (f && fgets(line, sizeof line, f)) {
            const char *at = strstr(line, "(port ");
            if (at)
                p->port = atoi(at + 6);
        }
        if (f)
            fclose(f);
        if (!p->port) {
            int status;
            if (waitpid(p->pid, &status, WNOHANG) == p->pid)
                break;
            usleep(10000);
        }
    }
    assert_true(p->port > 0);
}

int serve_stop(struct serve_process *p)
{
    int status;
    kill(p->pid, SIGTERM);
    assert_int_equal(waitpid(p->pid, &status, 0), p->pid);
    running = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int serve_kill(struct serve_process *p, int *status)
{
    if (kill(p->pid, SIGKILL) || waitpid(p->pid, status, 0) != p->pid)
        return -1;
    running = 0;
    return 0;
}

int serve_connect_tcp(const struct serve_process *p)
{
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)p->port)};
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    assert_int_equal(connect(fd, (struct sockaddr *)&addr, sizeof addr), 0);
    return fd;
}

void serve_read_exactly(int fd, void *out, size_t len)
{
    size_t got = 0;
    while (got < len) {
        ssize_t n = recv(fd, (char *)out + got, len - got, 0);
        assert_true(n > 0);
        got += (size_t)n;
    }
}

int serve_open_websocket(const struct serve_process *p)
{
    static const char upgrade[] =
        "GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\n"
        "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: castellan.v1\r\n"
        "Origin: http://127.0.0.1\r\n\r\n";
    struct timeval bound = {.tv_sec = 120};
    char answer[1024];
    size_t got = 0;
    int fd = serve_connect_tcp(p);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &bound, sizeof bound);
    assert_int_equal(send(fd, upgrade, sizeof upgrade - 1, MSG_NOSIGNAL),
                     (ssize_t)(sizeof upgrade - 1));
    /* Byte by byte: what follows the blank line is the caller's. */
    while (got + 1 < sizeof answer && (got < 4 || memcmp(answer + got - 4, "\r\n\r\n", 4)))
        serve_read_exactly(fd, answer + got++, 1);
    answer[got] = '\0';
    assert_int_equal(strncmp(answer, "HTTP/1.1 101 ", 13), 0);
    return fd;
}

int serve_http(const struct serve_process *p, const char *request, char *response, size_t cap)
{
    size_t got = 0;
    ssize_t n;
    assert_true(cap > 0);
    int fd = serve_connect_tcp(p);
    assert_int_equal(write(fd, request, strlen(request)), (ssize_t)strlen(request));
    while (got < cap - 1 && (n = read(fd, response + got, cap - 1 - got)) > 0)
        got += (size_t)n;
    close(fd);
    response[got] = '\0';
    int status = 0;
    sscanf(response, "HTTP/1.%*d %d", &status);
    return status;
}

int serve_http_get(const struct serve_process *p, const char *path, char *body, size_t cap)
{
    static char buf[1 << 16];
    char req[512];
    snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
             path);
    int status = serve_http(p, req, buf, sizeof buf);
    const char *start = strstr(buf, "\r\n\r\n");
    snprintf(body, cap, "%s", start ? start + 4 : "");
    return status;
}

/* The inodes of pid's sockets into ino[0..cap): how many. */
static size_t socket_inodes(pid_t pid, unsigned long *ino, size_t cap)
{
    char dir[64], path[384], target[128];
    size_t n = 0;
    snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(dir);
    for (struct dirent *e; d && (e = readdir(d));) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ssize_t len = readlink(path, target, sizeof target - 1);
        if (len <= 0)
            continue;
        target[len] = '\0';
        if (n < cap && sscanf(target, "socket:[%lu]", &ino[n]) == 1)
            n++;
    }
    if (d)
        closedir(d);
    return n;
}

size_t serve_sockets(pid_t pid)
{
    unsigned long ino[4096];
    return socket_inodes(pid, ino, sizeof ino / sizeof ino[0]);
}

size_t serve_listening(pid_t pid, struct serve_listener *out, size_t cap)
{
    unsigned long ino[4096];
    size_t n_ino = socket_inodes(pid, ino, sizeof ino / sizeof ino[0]), n = 0;
    for (int v6 = 0; v6 < 2; v6++) {
        char path[64], row[512], local[64];
        unsigned port, st;
        unsigned long inode;
        snprintf(path, sizeof path, "/proc/%d/net/tcp%s", (int)pid, v6 ? "6" : "");
        FILE *f = fopen(path, "r");
        if (f && !fgets(row, sizeof row, f)) /* the heading */
            row[0] = '\0';
        while (f && fgets(row, sizeof row, f)) {
            if (sscanf(row, " %*d: %63[0-9A-Fa-f]:%x %*s %x %*s %*s %*s %*s %*s %lu", local,
                       &port, &st, &inode) != 4 || st != 0x0A /* LISTEN */)
                continue;
            int mine = 0;
            for (size_t i = 0; i < n_ino; i++)
                mine |= ino[i] == inode;
            if (!mine || n >= cap)
                continue;
            /* The kernel prints each 32-bit word of the address as a
             * number in the machine's byte order. */
            unsigned char bytes[16];
            for (int w = 0; w < (v6 ? 4 : 1); w++) {
                unsigned word;
                sscanf(local + 8 * w, "%8x", &word);
                memcpy(bytes + 4 * w, &word, 4);
            }
            inet_ntop(v6 ? AF_INET6 : AF_INET, bytes, out[n].addr, sizeof out[n].addr);
            out[n++].port = (int)port;
        }
        if (f)
            fclose(f);
    }
    return n;
}

/* Append a masked client frame of opcode (0x1 text, 0xA pong) carrying
 * text to out: its length. */
size_t serve_client_frame(unsigned char *out, unsigned opcode, const char *text)
{
    static const unsigned char mask[4] = {0x12, 0x34, 0x56, 0x78};
    size_t len = strlen(text);
    assert_true(len < 126);
    out[0] = (unsigned char)(0x80 | opcode);
    out[1] = (unsigned char)(0x80 | len);
    memcpy(out + 2, mask, 4);
    for (size_t i = 0; i < len; i++)
        out[6 + i] = (unsigned char)text[i] ^ mask[i % 4];
    return 6 + len;
}

/* The next frame's text (a whole, unfragmented short text frame). */
void serve_next_text(int fd, char *text, size_t cap)
{
    unsigned char h[2];
    serve_read_exactly(fd, h, 2);
    assert_int_equal(h[0], 0x81);
    size_t len = h[1];
    assert_true(len < 126 && len < cap); /* unmasked, short */
    serve_read_exactly(fd, text, len);
    text[len] = '\0';
}
