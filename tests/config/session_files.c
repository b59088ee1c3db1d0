/*
 * session_files.c — see session_files.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "session_files.h"

void session_file_load(struct session_file *f, const char *text)
{
    memset(f, 0, sizeof *f);
    snprintf(f->path, sizeof f->path, "%s/tests/session-XXXXXX",
             getenv("CASTELLAN_BUILD_DIR"));
    int fd = mkstemp(f->path);
    assert_true(fd >= 0);
    size_t len = strlen(text);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    close(fd);
    f->rc = cas__session_desc_load(f->path, &f->desc, f->err, sizeof f->err);
}

void session_file_done(struct session_file *f)
{
    cas__session_desc_free(&f->desc);
    unlink(f->path);
}

void expect_file_error(const char *text, const char *rest)
{
    struct session_file f;
    session_file_load(&f, text);
    char expected[4096];
    snprintf(expected, sizeof expected, "%s:%s", f.path, rest);
    assert_true(f.rc < 0);
    assert_string_equal(f.err, expected);
    assert_null(f.desc.game); /* nothing kept */
    assert_int_equal(f.desc.n_players, 0);
    session_file_done(&f);
}
