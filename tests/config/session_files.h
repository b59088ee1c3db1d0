/*
 * session_files.h — session files for config tests: write text to a
 * temporary file in the build tree and load it.
 */
#ifndef CAS_TEST_SESSION_FILES_H
#define CAS_TEST_SESSION_FILES_H

#include "loader_fixtures.h"
#include "session_desc.h"

struct session_file {
    char path[1024];
    char err[2048];
    struct cas__session_desc desc;
    int rc;
};

/* Write text to a new temporary file and cas__session_desc_load it. */
void session_file_load(struct session_file *f, const char *text);
/* Free the desc and remove the file. */
void session_file_done(struct session_file *f);

/* Loading text fails with "<the file's path>:<rest>". */
void expect_file_error(const char *text, const char *rest);

#endif
