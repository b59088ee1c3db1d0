/*
 * spy.c — what the rogue-spy plugin (rogue.c) reports of the process its
 * game_new runs in, one line: the program ("exe="), whether castellan's
 * secret is in its memory ("marker=", searched for in every readable
 * mapping through /proc/self/mem), whether it searched right ("control=":
 * a text it knows it holds), whether a store's WAL index is mapped
 * ("shm="), its descriptors ("fds=", each socket, lib or the file's
 * name) and its environment ("env=", the variables besides the
 * sanitizer's).  The secret is given XOR 0x5a in the file ROGUE_KEY of
 * the working folder, as hex, so the spy never holds it in plain.
 * Built for tests only (tests/worker/CMakeLists.txt).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK (1u << 20)
#define MAX_REGION (1ull << 30)

extern char **environ;

void rogue_spy(const char *control, char *report, size_t cap);

/* The key of ROGUE_KEY (hex) into key; its length, 0 without one. */
static size_t read_key(unsigned char *key, size_t cap)
{
    char hex[512] = "";
    int fd = open("ROGUE_KEY", O_RDONLY);
    ssize_t n = fd >= 0 ? read(fd, hex, sizeof hex - 1) : -1;
    if (fd >= 0)
        close(fd);
    size_t len = 0;
    for (ssize_t i = 0; i + 1 < n && len < cap; i += 2) {
        unsigned v;
        if (sscanf(hex + i, "%2x", &v) != 1)
            break;
        key[len++] = (unsigned char)v;
    }
    return len;
}

/* Whether buf[0..n) holds the text whose bytes XOR mask are key[0..len). */
static int holds(const unsigned char *buf, size_t n, const unsigned char *key, size_t len,
                 unsigned char mask)
{
    for (size_t i = 0; len && i + len <= n; i++) {
        size_t j = 0;
        while (j < len && (unsigned char)(buf[i + j] ^ mask) == key[j])
            j++;
        if (j == len)
            return 1;
    }
    return 0;
}

/* Whether any readable mapping of this process holds that text. */
static int in_memory(const unsigned char *key, size_t len, unsigned char mask)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    int mem = open("/proc/self/mem", O_RDONLY);
    unsigned char *buf = malloc(CHUNK);
    char line[4096];
    int found = 0;
    while (maps && mem >= 0 && buf && !found && fgets(line, sizeof line, maps)) {
        unsigned long long lo, hi;
        char perms[8];
        if (sscanf(line, "%llx-%llx %7s", &lo, &hi, perms) != 3 || perms[0] != 'r' ||
            hi - lo > MAX_REGION || strstr(line, "[vvar") || strstr(line, "[vsyscall]"))
            continue;
        for (unsigned long long at = lo; at < hi && !found; at += CHUNK - len) {
            size_t want = hi - at < CHUNK ? (size_t)(hi - at) : CHUNK;
            ssize_t got = pread(mem, buf, want, (off_t)at);
            if (got <= 0)
                break;
            found = holds(buf, (size_t)got, key, len, mask);
            if ((size_t)got < CHUNK)
                break;
        }
    }
    free(buf);
    if (mem >= 0)
        close(mem);
    if (maps)
        fclose(maps);
    return found;
}

/* Whether a mapping of a file named "...-shm" (SQLite's WAL index) is here. */
static int maps_shm(void)
{
    FILE *maps = fopen("/proc/self/maps", "r");
    char line[4096];
    int found = 0;
    while (maps && fgets(line, sizeof line, maps))
        if (strstr(line, "-shm\n") || strstr(line, "-shm (deleted)"))
            found = 1;
    if (maps)
        fclose(maps);
    return found;
}

/* The descriptors, each "socket", "lib" or its target, comma-separated. */
static void descriptors(char *out, size_t cap)
{
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    size_t len = 0;
    out[0] = '\0';
    while (d && (e = readdir(d)) && len < cap) {
        char path[64], target[512];
        int fd = atoi(e->d_name);
        if (e->d_name[0] == '.' || fd == dirfd(d))
            continue;
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        ssize_t n = readlink(path, target, sizeof target - 1);
        target[n > 0 ? n : 0] = '\0';
        size_t tl = strlen(target);
        const char *what = strncmp(target, "socket:", 7) == 0 ? "socket"
                           : tl > 3 && strcmp(target + tl - 3, ".so") == 0 ? "lib"
                                                                           : target;
        len += (size_t)snprintf(out + len, cap - len, "%s%s", len ? "," : "", what);
    }
    if (d)
        closedir(d);
}

static int environment(void)
{
    int n = 0;
    for (char **e = environ; e && *e; e++)
        if (strncmp(*e, "ASAN_OPTIONS=", 13) && strncmp(*e, "UBSAN_OPTIONS=", 14) &&
            strncmp(*e, "LSAN_OPTIONS=", 13))
            n++;
    return n;
}

void rogue_spy(const char *control, char *report, size_t cap)
{
    unsigned char key[256];
    size_t len = read_key(key, sizeof key);
    char exe[512] = "", fds[1024];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    const char *name = strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe;
    descriptors(fds, sizeof fds);
    int marker = len && in_memory(key, len, 0x5a);
    int controlled = control && in_memory((const unsigned char *)control, strlen(control), 0);
    snprintf(report, cap, "exe=%s marker=%s control=%s shm=%s fds=%s env=%d", name,
             marker ? "found" : "absent", controlled ? "found" : "absent",
             maps_shm() ? "found" : "absent", fds, environment());
}
