/*
 * cli_run.h — run the castellan executable as a user would, for the tests
 * of the save commands: arguments, standard input, a file-size limit or a
 * fault to inject, with XDG_DATA_HOME in the test's folder and the build's
 * plugins; output, exit status and any signal collected.
 */
#ifndef CAS_TEST_CLI_RUN_H
#define CAS_TEST_CLI_RUN_H

#include <stdio.h>
#include <sys/types.h>

#include "saves_fixture.h"

struct cas_test_result {
    int status;            /* exit status, or -1 when a signal ended it */
    int signal;            /* that signal, or 0 */
    char out[16384], err[4096];
};

/* How to run it; a zeroed struct runs castellan with stdin at EOF. */
struct cas_test_how {
    int faults;            /* run castellan-faults instead of castellan */
    const char *fault;     /* its CASTELLAN_FAULT, or NULL */
    const char *input;     /* standard input, or NULL for none */
    long long file_limit;  /* RLIMIT_FSIZE in bytes, or 0 for none */
    int unprivileged;      /* as a user whom file permissions bind: nobody
                              when the test runs as root (see hand_over) */
};

/* Give the test folder d and all in it to the user an unprivileged run
 * runs as (nobody, when the test runs as root; else nothing to do). */
void cas_test_hand_over(const struct cas_test_dir *d);

/* Run castellan with args (NULL-terminated, without argv[0]) in the test
 * folder d and wait for it. */
void cas_test_run(const struct cas_test_dir *d, const struct cas_test_how *how,
                  char *const *args, struct cas_test_result *r);

/* cas_test_run with the NULL-terminated arguments, stdin at EOF; fails
 * the test if castellan dies of a signal. */
void cas_test_castellan(const struct cas_test_dir *d, struct cas_test_result *r, ...);

/* castellan running in the background, its standard input a pipe. */
struct cas_test_running {
    pid_t pid;
    FILE *in;              /* write its input here */
    FILE *out;             /* read its standard output here */
    char err[512];         /* where its standard error goes */
};

/* Start castellan with args; returns at once. */
void cas_test_start(const struct cas_test_dir *d, char *const *args,
                    struct cas_test_running *p);
/* Read its standard output until `text` has appeared (it is then waiting
 * for input, say); fails the test if the output ends first. */
void cas_test_wait_for(struct cas_test_running *p, const char *text);
/* Send input, close its standard input and wait for it to end. */
void cas_test_finish(struct cas_test_running *p, const char *input,
                     struct cas_test_result *r);

/* The file at path as text, cut to cap - 1 bytes; "" if it cannot be read. */
void cas_test_read_text(const char *path, char *buf, size_t cap);

/* Fail the test unless text contains words. */
void cas_test_expect_text(const char *text, const char *words);

#endif
