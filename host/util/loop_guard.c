/*
 * loop_guard.c — the loop's mark and the counts of slow calls (plugin
 * calls, store calls) made under it (loop_guard.h).  The first is said on stderr with what it was; the
 * server goes on (the check costs a thread-local read per call).
 */
#include <stdatomic.h>
#include <stdio.h>

#include "loop_guard.h"

static _Thread_local int depth;
static atomic_ulong slow_calls, store_calls;

void cas__loop_enter(void)
{
    depth++;
}

void cas__loop_leave(void)
{
    depth--;
}

int cas__loop_suspend(void)
{
    int was = depth;
    depth = 0;
    return was;
}

void cas__loop_resume(int was)
{
    depth = was;
}

void cas__loop_check(const char *what)
{
    if (depth && atomic_fetch_add(&slow_calls, 1) == 0)
        fprintf(stderr, "castellan serve: internal: %s on the event loop\n", what);
}

unsigned long cas__loop_slow_calls(void)
{
    return atomic_load(&slow_calls);
}

void cas__loop_check_store(const char *method)
{
    if (depth && atomic_fetch_add(&store_calls, 1) == 0)
        fprintf(stderr, "castellan serve: internal: the store's %s on the event loop\n",
                method);
}

unsigned long cas__loop_store_calls(void)
{
    return atomic_load(&store_calls);
}
