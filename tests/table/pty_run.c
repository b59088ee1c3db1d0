/*
 * pty_run.c — a program on a pseudo-terminal (forkpty), its output
 * collected as it comes, lines typed when the test has seen what it
 * waits for.
 */
#include "pty_run.h"

#include <errno.h>
#include <pty.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>
#include <cmocka.h>

void pty_start(struct pty_run *r, char *const argv[], char *const envp[], int columns)
{
    struct winsize size = {.ws_row = 40, .ws_col = (unsigned short)columns};
    memset(r, 0, sizeof *r);
    r->pid = forkpty(&r->fd, NULL, NULL, &size);
    assert_true(r->pid >= 0);
    if (r->pid == 0) {
        struct termios t;
        if (tcgetattr(STDIN_FILENO, &t) == 0) {
            t.c_lflag &= ~(tcflag_t)ECHO;
            tcsetattr(STDIN_FILENO, TCSANOW, &t);
        }
        execve(argv[0], argv, envp);
        _exit(127);
    }
}

/* Read once (blocking); 0 at the end of the output. */
static int read_some(struct pty_run *r)
{
    char buf[4096];
    ssize_t got;
    do
        got = read(r->fd, buf, sizeof buf);
    while (got < 0 && errno == EINTR);
    if (got <= 0) /* EIO: the program closed its terminal */
        return 0;
    if (r->len + (size_t)got + 1 > r->cap) {
        r->cap = (r->len + (size_t)got + 1) * 2;
        r->out = realloc(r->out, r->cap);
        assert_non_null(r->out);
    }
    for (ssize_t i = 0; i < got; i++)
        if (buf[i] != '\r')
            r->out[r->len++] = buf[i];
    r->out[r->len] = '\0';
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
    r->fd = -1;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void pty_close(struct pty_run *r)
{
    if (r->fd >= 0)
        close(r->fd);
    free(r->out);
    r->out = NULL;
}
