/*
 * rogue.c — test plugins that misbehave once loaded: the fixture game
 * (compiled beside this file under another entry name) with its apply
 * replaced by one that, at the ROGUE_AT-th apply of the process, does
 * what ROGUE_FAULT names: crash (a write through NULL), loop (forever),
 * hog (allocate address space until none is left, then abort) or escape
 * (open a file, then a socket: forbidden in a worker); or from then on
 * breaks a promise of the ABI in a value it returns: seat (current()
 * names seat -5), far_seat (seat 7 of 2) or newline (an action's text holds
 * a newline), which the host must refuse, in process or not; or goes
 * for the host in its game_new: grab (open the file the file ROGUE_VICTIM
 * in the working folder names, to write, and empty it: a worker's
 * environment is scrubbed), spawn (fork a process that would outlive castellan); or
 * crashes in its constructor (ctor), before castellan ever calls it; or
 * needs a library of its own (needs, rogue_dependency.c); or at that apply
 * tells 5000 events of 4000 bytes each (flood), a reply larger than the
 * worker protocol carries; or spies (spy: game_new fails, its error the
 * report of what the process it runs in holds of castellan's, spy.c); or
 * is slow (slow_render): armed by SIGUSR2, its next SVG render waits until
 * SIGUSR1 (200 s at most), and shows it is waiting by blocking SIGUSR2
 * meanwhile, which its /proc/PID/status tells the test (SigBlk) — a
 * worker may write no file, and a call may take seconds (the server test
 * of issue 42: a slow game stalls only itself); or starts slowly
 * (slow_start): its game_new waits so, unarmed, until SIGUSR1 (a worker
 * that takes long to start stalls only the game it opens).
 * $ROGUE_AT, when set, moves that apply (a long game saved, then replayed
 * by a plugin that breaks at ply 6).  Counting applies in a global breaks the ABI's rule on purpose; these
 * are played by random bots, whose moves apply nothing on the side.
 * Built for tests only (tests/worker/CMakeLists.txt), never installed.
 */
#include <castellan/plugin.h>

#include <fcntl.h>
#include <linux/futex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define CRASH 1
#define LOOP 2
#define HOG 3
#define ESCAPE 4
#define SEAT 5
#define FAR_SEAT 6
#define NEWLINE 7
#define GRAB 8
#define SPAWN 9
#define CTOR 10
#define NEEDS 11
#define FLOOD 12
#define SPY 13
#define SLOW_RENDER 14
#define SLOW_START 15

const struct cas_plugin *fixture_inner_entry(void);

#if ROGUE_FAULT == SPY
void rogue_spy(const char *control, char *report, size_t cap);
#endif

static const struct cas_game_vtable *inner;
static unsigned applies, rogue_at = ROGUE_AT;

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

/* 20 MB of events: more than one worker reply may carry. */
static void flood(const struct cas_event_sink *events)
{
#if ROGUE_FAULT == FLOOD
    static char text[4001];
    memset(text, 'x', sizeof text - 1);
    struct cas_event e = CAS_INIT(struct cas_event, .kind = CAS_EVENT_INFO, .player = -1,
                                  .visible_to = CAS_VIEWER_PUBLIC, .text = text);
    for (int i = 0; events && i < 5000; i++)
        events->emit(events->ctx, &e);
#else
    (void)events;
#endif
}

static int rogue_apply(cas_state *state, cas_action action,
                       const struct cas_event_sink *events)
{
    if (++applies == rogue_at) {
        misbehave();
        flood(events);
    }
    return inner->apply(state, action, events);
}

/* The broken promises, once rogue_at applies have been made. */
static int rogue_current(const cas_state *state)
{
#if ROGUE_FAULT == SEAT
    if (applies >= rogue_at)
        return -5;
#elif ROGUE_FAULT == FAR_SEAT
    if (applies >= rogue_at)
        return 7;
#endif
    return inner->current(state);
}

static int rogue_action_text(const cas_state *state, cas_action action, char *buf, size_t cap)
{
    int len = inner->action_text(state, action, buf, cap);
#if ROGUE_FAULT == NEWLINE
    if (applies + 1 >= rogue_at && len >= 0 && (size_t)len + 3 < cap) {
        memcpy(buf + len, "\nx", 3);
        len += 2;
    }
#endif
    return len;
}

#if ROGUE_FAULT == SLOW_RENDER || ROGUE_FAULT == SLOW_START
static volatile sig_atomic_t armed, released;
static int never; /* the futex word nobody wakes: the wait ends by signal or time */

static void on_arm(int sig)
{
    (void)sig;
    armed = 1;
}

static void on_release(int sig)
{
    (void)sig;
    released = 1;
}

/* Both signals caught, system calls restarted after them (the worker's
 * read of its socket). */
static void catch_signals(void)
{
    struct sigaction sa = {.sa_flags = SA_RESTART};
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = on_arm;
    sigaction(SIGUSR2, &sa, NULL);
    sa.sa_handler = on_release;
    sigaction(SIGUSR1, &sa, NULL);
}

/* Wait (asleep: a futex no one wakes) until released, 200 s at most. */
static void slow_down(void)
{
    sigset_t showing;
    struct timespec start, now, tick = {.tv_nsec = 100000000};
    sigemptyset(&showing);
    sigaddset(&showing, SIGUSR2);
    armed = 0;
    sigprocmask(SIG_BLOCK, &showing, NULL);
    clock_gettime(CLOCK_MONOTONIC, &start);
    do {
        syscall(SYS_futex, &never, FUTEX_WAIT_PRIVATE, 0, &tick, NULL, 0);
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while (!released && now.tv_sec - start.tv_sec < 200);
    released = 0;
    sigprocmask(SIG_UNBLOCK, &showing, NULL);
}
#endif

static int rogue_render(const cas_state *state, int viewer, enum cas_render_format format,
                        const struct cas_writer *out)
{
#if ROGUE_FAULT == SLOW_RENDER
    if (armed && format == CAS_RENDER_SVG)
        slow_down();
#endif
    return inner->render(state, viewer, format, out);
}

static int rogue_game_new(const struct cas_host *host, const struct cas_game_params *params,
                          cas_game **out, size_t *bad_option)
{
#if ROGUE_FAULT == GRAB
    char victim[512] = "";
    int named = open("ROGUE_VICTIM", O_RDONLY);
    ssize_t len = named >= 0 ? read(named, victim, sizeof victim - 1) : -1;
    if (named >= 0)
        close(named);
    victim[len > 0 ? strcspn(victim, "\n") : 0] = '\0';
    int fd = *victim ? open(victim, O_RDWR) : -1;
    if (fd >= 0 && ftruncate(fd, 0) == 0)
        close(fd);
#elif ROGUE_FAULT == SPAWN
    if (fork() == 0)
        for (;;)
            pause();
#elif ROGUE_FAULT == SPY
    char report[1024];
    rogue_spy(host->data_dir, report, sizeof report);
    host->set_error(host->ctx, report);
    return CAS_EINVAL;
#elif ROGUE_FAULT == SLOW_RENDER
    catch_signals();
#elif ROGUE_FAULT == SLOW_START
    catch_signals();
    slow_down();
#endif
    return inner->game_new(host, params, out, bad_option);
}

#if ROGUE_FAULT == CTOR
__attribute__((constructor)) static void rogue_constructor(void)
{
    abort();
}
#endif

#if ROGUE_FAULT == NEEDS
int rogue_dependency_answer(void);
#endif

static struct cas_game_vtable vtable;
static struct cas_plugin descriptor;

CAS_EXPORT const struct cas_plugin *cas_plugin_entry(void);
CAS_EXPORT const struct cas_plugin *cas_plugin_entry(void)
{
    const struct cas_plugin *fixture = fixture_inner_entry();
#if ROGUE_FAULT == NEEDS
    if (rogue_dependency_answer() != 42)
        return NULL;
#endif
    const char *at = getenv("ROGUE_AT");
    if (at)
        rogue_at = (unsigned)strtoul(at, NULL, 10);
    inner = fixture->game;
    vtable = *inner;
    vtable.apply = rogue_apply;
    vtable.current = rogue_current;
    vtable.game_new = rogue_game_new;
    vtable.action_text = rogue_action_text;
    vtable.render = rogue_render;
    descriptor = *fixture;
    descriptor.game = &vtable;
    return &descriptor;
}
