/*
 * pty_run.h — drive a program through a pseudo-terminal as a person at a
 * terminal would: start it on a pty of a given width with a chosen
 * environment, wait for text to appear, type a line, read to the end.
 * Waiting is for output, never for time: nothing here depends on load.
 */
#ifndef CAS_TEST_PTY_RUN_H
#define CAS_TEST_PTY_RUN_H

#include <stddef.h>
#include <sys/types.h>

struct pty_run {
    pid_t pid;
    int fd;          /* the pty's master side */
    int slave;       /* its slave side, held so the master never hangs up */
    int exited;      /* read end of a pipe only the program holds open */
    int ended;       /* all of the program's output is in out */
    char *out;       /* everything the program wrote, '\r' removed */
    size_t len, cap;
    size_t seen;     /* where the next pty_expect starts looking */
};

/* Start argv[0] (a path) with exactly the environment envp on a new pty
 * of `columns` x 40, with echo off.  Fails the test on error. */
void pty_start(struct pty_run *r, char *const argv[], char *const envp[], int columns);

/* Read until `text` appears after the last match; the match's end is the
 * new start.  Fails the test, with the output so far, if the program ends
 * first. */
void pty_expect(struct pty_run *r, const char *text);

/* Type `line` and Enter. */
void pty_type(struct pty_run *r, const char *line);

/* Read to the end and wait for the program: its exit status (-1 if it did
 * not exit normally).  r->out keeps the whole output; pty_close frees it. */
int pty_finish(struct pty_run *r);
void pty_close(struct pty_run *r);

#endif
