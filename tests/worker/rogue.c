/*
 * rogue.c — test plugins that misbehave once loaded: the fixture game
 * (compiled beside this file under another entry name) with its apply
 * replaced by one that, at the ROGUE_AT-th apply of the process, does
 * what ROGUE_FAULT names: crash (a write through NULL), loop (forever),
 * hog (allocate address space until none is left, then abort) or escape (open a file, then a socket: forbidden in a worker).
 * Counting applies in a global breaks the ABI's rule on purpose; these
 * are played by random bots, whose moves apply nothing on the side.
 * Built for tests only (tests/worker/CMakeLists.txt), never installed.
 */
#include <castellan/plugin.h>

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define CRASH 1
#define LOOP 2
#define HOG 3
#define ESCAPE 4

const struct cas_plugin *fixture_inner_entry(void);

static const struct cas_game_vtable *inner;
static unsigned applies;

static void misbehave(void)
{
#if ROGUE_FAULT == CRASH
    *(volatile int *)(uintptr_t)0 = 1;
#elif ROGUE_FAULT == LOOP
    for (volatile unsigned spin = 0;; spin++)
        ;
#elif ROGUE_FAULT == HOG
    for (;;) {
        char *block = malloc(64u << 20);
        if (!block)
            abort(); /* what an unchecked allocation comes to, or worse */
    }
#elif ROGUE_FAULT == ESCAPE
    int fd = open("/etc/hostname", O_RDONLY);
    if (fd < 0)
        fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd >= 0)
        close(fd);
#endif
}

static int rogue_apply(cas_state *state, cas_action action,
                       const struct cas_event_sink *events)
{
    if (++applies == ROGUE_AT)
        misbehave();
    return inner->apply(state, action, events);
}

static struct cas_game_vtable vtable;
static struct cas_plugin descriptor;

CAS_EXPORT const struct cas_plugin *cas_plugin_entry(void);
CAS_EXPORT const struct cas_plugin *cas_plugin_entry(void)
{
    const struct cas_plugin *fixture = fixture_inner_entry();
    inner = fixture->game;
    vtable = *inner;
    vtable.apply = rogue_apply;
    descriptor = *fixture;
    descriptor.game = &vtable;
    return &descriptor;
}
