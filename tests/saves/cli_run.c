/*
 * cli_run.c — running the castellan executable for tests (see the header).
 */
#define _XOPEN_SOURCE 700 /* nftw */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli_run.h"

#ifndef CASTELLAN_EXE
#error "CASTELLAN_EXE must name the castellan executable"
#endif
#ifndef CASTELLAN_FAULTS_EXE
#error "CASTELLAN_FAULTS_EXE must name the castellan-faults executable"
#endif

#define MAX_ARGS 24
#define NOBODY 65534

static int give_to_nobody(const char *path, const struct stat *st, int flag,
                          struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return lchown(path, NOBODY, NOBODY);
}

void cas_test_hand_over(const struct cas_test_dir *d)
{
    if (geteuid() == 0)
        assert_int_equal(nftw(d->path, give_to_nobody, 16, FTW_PHYS), 0);
}

void cas_test_read_text(const char *path, char *buf, size_t cap)
{
    FILE *f = fopen(path, "r");
    size_t got = f ? fread(buf, 1, cap - 1, f) : 0;
    buf[got] = '\0';
    if (f)
        fclose(f);
}

/* In the child: the environment every run gets, then exec. */
static void exec_castellan(const struct cas_test_dir *d, const struct cas_test_how *how,
                           char *const *args)
{
    char *argv[MAX_ARGS + 2];
    const char *exe = how && how->faults ? CASTELLAN_FAULTS_EXE : CASTELLAN_EXE;
    size_t n = 0;
    argv[n++] = (char *)exe;
    while (n <= MAX_ARGS && args[n - 1])
        argv[n] = args[n - 1], n++;
    argv[n] = NULL;
    if (how && how->unprivileged && geteuid() == 0 &&
        (setgroups(0, NULL) != 0 || setgid(NOBODY) != 0 || setuid(NOBODY) != 0))
        _exit(125);
    setenv("XDG_DATA_HOME", d->path, 1);
    setenv("TMPDIR", d->path, 1);
    setenv("CASTELLAN_PLUGIN_PATH", CASTELLAN_PLUGIN_DIR, 1);
    if (how && how->fault)
        setenv("CASTELLAN_FAULT", how->fault, 1);
    if (how && how->file_limit) {
        struct rlimit limit = {(rlim_t)how->file_limit, (rlim_t)how->file_limit};
        if (setrlimit(RLIMIT_FSIZE, &limit) != 0)
            _exit(126);
    }
    execv(exe, argv);
    _exit(127);
}

static void collect(pid_t pid, const char *out, const char *err, struct cas_test_result *r)
{
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    r->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r->signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    if (out)
        cas_test_read_text(out, r->out, sizeof r->out);
    cas_test_read_text(err, r->err, sizeof r->err);
}

void cas_test_run(const struct cas_test_dir *d, const struct cas_test_how *how,
                  char *const *args, struct cas_test_result *r)
{
    char in[512], out[512], err[512];
    cas_test_dir_file(d, "stdin.txt", in, sizeof in);
    cas_test_dir_file(d, "stdout.txt", out, sizeof out);
    cas_test_dir_file(d, "stderr.txt", err, sizeof err);
    const char *input = how && how->input ? how->input : "";
    cas_test_write_file(in, input, strlen(input));
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int i = open(in, O_RDONLY);
        int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(i, STDIN_FILENO);
        dup2(o, STDOUT_FILENO);
        dup2(e, STDERR_FILENO);
        exec_castellan(d, how, args);
    }
    collect(pid, out, err, r);
}

void cas_test_start(const struct cas_test_dir *d, char *const *args,
                    struct cas_test_running *p)
{
    int in[2], out[2];
    assert_int_equal(pipe(in), 0);
    assert_int_equal(pipe(out), 0);
    cas_test_dir_file(d, "background-stderr.txt", p->err, sizeof p->err);
    p->pid = fork();
    assert_true(p->pid >= 0);
    if (p->pid == 0) {
        int e = open(p->err, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        dup2(in[0], STDIN_FILENO);
        dup2(out[1], STDOUT_FILENO);
        dup2(e, STDERR_FILENO);
        close(in[1]);
        close(out[0]);
        exec_castellan(d, NULL, args);
    }
    close(in[0]);
    close(out[1]);
    p->in = fdopen(in[1], "w");
    p->out = fdopen(out[0], "r");
    assert_non_null(p->in);
    assert_non_null(p->out);
}

void cas_test_wait_for(struct cas_test_running *p, const char *text)
{
    char tail[256] = "";
    size_t len = strlen(text), have = 0;
    int c;
    assert_true(len < sizeof tail);
    while (have < len || memcmp(tail + have - len, text, len) != 0) {
        if ((c = fgetc(p->out)) == EOF)
            fail_msg("castellan ended without printing \"%s\"", text);
        if (have == sizeof tail - 1) { /* keep the last len - 1 characters */
            memmove(tail, tail + have - (len - 1), len - 1);
            have = len - 1;
        }
        tail[have++] = (char)c;
    }
}

void cas_test_finish(struct cas_test_running *p, const char *input,
                     struct cas_test_result *r)
{
    fputs(input, p->in);
    fclose(p->in);
    size_t got = fread(r->out, 1, sizeof r->out - 1, p->out);
    r->out[got] = '\0';
    fclose(p->out);
    collect(p->pid, NULL, p->err, r);
}

void cas_test_expect_text(const char *text, const char *words)
{
    if (!strstr(text, words))
        fail_msg("expected \"%s\" in:\n%s", words, text);
}

void cas_test_castellan(const struct cas_test_dir *d, struct cas_test_result *r, ...)
{
    char *args[16];
    va_list list;
    va_start(list, r);
    for (int n = 0; n < 15 && (args[n] = va_arg(list, char *)); n++)
        ;
    args[15] = NULL;
    va_end(list);
    cas_test_run(d, NULL, args, r);
    if (r->signal)
        fail_msg("castellan %s died of signal %d:\n%s", args[0], r->signal, r->err);
}
