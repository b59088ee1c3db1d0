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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include <cmocka.h>

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
    const char *argv[32] = {exe, "serve", "--listen", "127.0.0.1:0", "--database", p->db,
                            "--www", www};
    size_t n = 8;
    for (size_t i = 0; extra && extra[i] && n < 31; i++)
        argv[n++] = extra[i];
    argv[n] = NULL;
    int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    p->pid = fork();
    assert_true(p->pid >= 0);
    if (p->pid == 0) {
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

int serve_http_get(const struct serve_process *p, const char *path, char *body, size_t cap)
{
    struct sockaddr_in addr = {.sin_family = AF_INET, .sin_port = htons((uint16_t)p->port)};
    char req[512], buf[1 << 16];
    size_t got = 0;
    ssize_t n;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(fd >= 0);
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    assert_int_equal(connect(fd, (struct sockaddr *)&addr, sizeof addr), 0);
    snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
             path);
    assert_int_equal(write(fd, req, strlen(req)), (ssize_t)strlen(req));
    while (got < sizeof buf - 1 && (n = read(fd, buf + got, sizeof buf - 1 - got)) > 0)
        got += (size_t)n;
    close(fd);
    buf[got] = '\0';
    int status = 0;
    sscanf(buf, "HTTP/1.1 %d", &status);
    const char *start = strstr(buf, "\r\n\r\n");
    snprintf(body, cap, "%s", start ? start + 4 : "");
    return status;
}
