/*
 * fuzz_support.c — the input as text or as a file in a private folder, and
 * a malloc-backed plugin host, for the harnesses in tests/fuzz.
 */
#include "fuzz_support.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void fail(const char *what, const char *path)
{
    perror(path);
    fprintf(stderr, "fuzz support: %s failed; the harness cannot go on\n", what);
    abort();
}

/* A folder in memory when there is one: on a disk, making and removing a
 * folder per input costs more than most parsers. */
static const char *scratch_root(void)
{
    const char *tmp = getenv("TMPDIR");
    if (access("/dev/shm", W_OK | X_OK) == 0)
        return "/dev/shm";
    return tmp && *tmp ? tmp : "/tmp";
}

void fuzz_folder_write(struct fuzz_folder *f, const char *name, const uint8_t *data,
                       size_t size)
{
    snprintf(f->dir, sizeof f->dir, "%s/cas-fuzz-XXXXXX", scratch_root());
    if (!mkdtemp(f->dir))
        fail("mkdtemp", f->dir);
    snprintf(f->path, sizeof f->path, "%s/%s", f->dir, name);
    char *slash = strrchr(f->path, '/');
    if (slash > f->path + strlen(f->dir)) {
        *slash = '\0';
        if (mkdir(f->path, 0700) != 0)
            fail("mkdir", f->path);
        *slash = '/';
    }
    FILE *out = fopen(f->path, "wb");
    if (!out)
        fail("fopen", f->path);
    if (size && fwrite(data, 1, size, out) != size)
        fail("fwrite", f->path);
    if (fclose(out) != 0)
        fail("fclose", f->path);
    /* Whatever the umask: the loader refuses files others may write. */
    if (chmod(f->path, 0600) != 0)
        fail("chmod", f->path);
}

/* Remove every entry of folder `dir`, descending `depth` more levels. */
static void remove_tree(const char *dir, int depth)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        char path[768];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (depth > 0 && lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            remove_tree(path, depth - 1);
        else
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

void fuzz_folder_remove(struct fuzz_folder *f)
{
    remove_tree(f->dir, 1);
}

char *fuzz_text(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        abort();
    if (size)
        memcpy(text, data, size);
    text[size] = '\0';
    return text;
}

static void host_log(void *ctx, enum cas_log_level level, const char *message)
{
    (void)ctx;
    (void)level;
    (void)message;
}

static void host_set_error(void *ctx, const char *message)
{
    struct fuzz_host *h = ctx;
    snprintf(h->error, sizeof h->error, "%s", message);
}

static void *host_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return malloc(size);
}

static void *host_realloc(void *ctx, void *block, size_t size)
{
    (void)ctx;
    return realloc(block, size);
}

static void host_release(void *ctx, void *block)
{
    (void)ctx;
    free(block);
}

void fuzz_host_init(struct fuzz_host *h, const char *data_dir)
{
    memset(h, 0, sizeof *h);
    h->host = (struct cas_host){
        .struct_size = sizeof h->host, .abi_major = CAS_ABI_MAJOR,
        .abi_minor = CAS_ABI_MINOR, .ctx = h, .log = host_log,
        .set_error = host_set_error, .alloc = host_alloc, .realloc = host_realloc,
        .release = host_release, .data_dir = data_dir,
    };
}
