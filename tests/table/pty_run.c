/*
 * pty_run.c — a program on a pseudo-terminal (openpty), its output
 * collected as it comes, lines typed when the test has seen what it
 * waits for.
 */
#include "pty_run.h"

#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <utmp.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <cmocka.h>

/* Written to the slave side once the program has exited: the kernel
 * delivers a pty's output in order, so when the master has read this
 * marker it has read everything the program wrote before it. */
static const char end_marker[] = "\x01pty_run: end of output\x01";

void pty_start(struct pty_run *r, char *const argv[], char *const envp[], int columns)
{
    struct winsize size = {.ws_row = 40, .ws_col = (unsigned short)columns};
    int exit_pipe[2];
    memset(r, 0, sizeof *r);
    assert_int_equal(openpty(&r->fd, &r->slave, NULL, NULL, &size), 0);
    assert_int_equal(pipe(exit_pipe), 0);
    r->pid = fork();
    assert_true(r->pid >= 0);
    if (r->pid == 0) {
        struct termios t;
        close(r->fd);
        close(exit_pipe[0]);
        if (login_tty(r->slave) != 0)
            _exit(126);
        if (tcgetattr(STDIN_FILENO, &t) == 0) {
            t.c_lflag &= ~(tcflag_t)ECHO;
            tcsetattr(STDIN_FILENO, TCSANOW, &t);
        }
        execve(argv[0], argv, envp);
        _exit(127);
    }
    close(exit_pipe[1]);
    r->exited = exit_pipe[0];
}

static void append(struct pty_run *r, const char *buf, size_t got)
{
    if (r->len + got + 1 > r->cap) {
        r->cap = (r->len + got + 1) * 2;
        r->out = realloc(r->out, r->cap);
        assert_non_null(r->out);
    }
    for (size_t i = 0; i < got; i++)
        if (buf[i] != '\r')
            r->out[r->len++] = buf[i];
    r->out[r->len] = '\0';
}

static size_t read_master(struct pty_run *r)
{
    char buf[4096];
    ssize_t got;
    do
        got = read(r->fd, buf, sizeof buf);
    while (got < 0 && errno == EINTR);
    assert_true(got > 0); /* the slave is held open: no hangup, no end */
    append(r, buf, (size_t)got);
    return (size_t)got;
}

/* The program has exited: read what it wrote up to the marker. */
static void drain(struct pty_run *r)
{
    size_t marker = sizeof end_marker - 1;
    assert_true(write(r->slave, end_marker, marker) == (ssize_t)marker);
    while (r->len < marker || strcmp(r->out + r->len - marker, end_marker) != 0)
        read_master(r);
    r->len -= marker;
    r->out[r->len] = '\0';
    r->ended = 1;
}

/* Wait for output or the program's end; 0 once everything is read.  The
 * pipe's write end closes only when the program (and whatever inherited
 * it) has exited. */
static int read_some(struct pty_run *r)
{
    if (r->ended)
        return 0;
    struct pollfd wait[2] = {{.fd = r->fd, .events = POLLIN},
                             {.fd = r->exited, .events = POLLIN}};
    int rc;
    do
        rc = poll(wait, 2, -1);
    while (rc < 0 && errno == EINTR);
    assert_true(rc > 0);
    if (wait[0].revents & POLLIN)
        read_master(r);
    else
        drain(r);
    return 1;
}

void pty_expect(struct pty_run *r, const char *text)
{
    for (;;) {
        const char *at = r->out ? strstr(r->out + r->seen, text) : NULL;
        if (at) {
            r->seen = (size_t)(at - r->out) + strlen(text);
            return;
        }
        /* A prompt ends the output: the program waits for a line, so what has
         * not appeared yet never will (fail now, not at CTest's timeout). */
        size_t len = r->out ? strlen(r->out) : 0;
        if (len > r->seen + 1 && strcmp(r->out + len - 2, "> ") == 0)
            fail_msg("the program waits for input and \"%s\" did not appear; its "
                     "output:\n%s", text, r->out);
        if (!read_some(r))
            fail_msg("the program ended before \"%s\" appeared; its output:\n%s", text,
                     r->out ? r->out : "");
    }
}

void pty_type(struct pty_run *r, const char *line)
{
    size_t len = strlen(line);
    assert_true(write(r->fd, line, len) == (ssize_t)len);
    assert_true(write(r->fd, "\n", 1) == 1);
}

int pty_finish(struct pty_run *r)
{
    int status;
    while (read_some(r))
        ;
    assert_true(waitpid(r->pid, &status, 0) == r->pid);
    close(r->fd);
    close(r->slave);
    close(r->exited);
    r->fd = r->slave = r->exited = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void pty_close(struct pty_run *r)
{
    if (r->fd >= 0) {
        close(r->fd);
        close(r->slave);
        close(r->exited);
    }
    free(r->out);
    r->out = NULL;
}
