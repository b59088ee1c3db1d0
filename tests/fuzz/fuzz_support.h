/*
 * fuzz_support.h — what every libFuzzer harness in tests/fuzz shares: the
 * input as a NUL-terminated string or as a file in a folder of its own,
 * and a stand-in host for calling a plugin's parser directly.  Nothing
 * here outlives one input: each harness makes and removes its own.
 */
#ifndef CAS_FUZZ_SUPPORT_H
#define CAS_FUZZ_SUPPORT_H

#include <stddef.h>
#include <stdint.h>

#include <castellan/plugin.h>

/* A fresh private folder holding the input: mkdtemp under /dev/shm when
 * castellan may write there, else under $TMPDIR or /tmp. */
struct fuzz_folder {
    char dir[256];   /* the folder */
    char path[512];  /* the input's file inside it */
};

/* Make a new folder and write data[0..size) into it as the file `name`
 * (which may be "SUB/FILE": SUB is made too).  Aborts when the disk
 * refuses, which is the machine's fault, not the input's.  Remove with
 * fuzz_folder_remove. */
void fuzz_folder_write(struct fuzz_folder *f, const char *name, const uint8_t *data,
                       size_t size);
/* Remove the folder with everything in it (two levels deep at most). */
void fuzz_folder_remove(struct fuzz_folder *f);

/* data[0..size) as a NUL-terminated string the caller frees (an embedded
 * NUL ends it early, as it would a file read as text).  Aborts on OOM. */
char *fuzz_text(const uint8_t *data, size_t size);

/* A host whose services are malloc, realloc, free and a set_error that
 * keeps the last message in error; data_dir as given (may be NULL). */
struct fuzz_host {
    struct cas_host host;
    char error[512];
};
void fuzz_host_init(struct fuzz_host *h, const char *data_dir);

#endif
