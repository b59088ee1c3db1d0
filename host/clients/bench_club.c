/*
 * bench_club.c — the club pages' figures of `castellan bench --only
 * ratings`: on the history the ratings section stored, how long the club's
 * thread takes to make its snapshot (wall and CPU), and how long the loop
 * takes to render each kind of page from it, which is all a page costs the
 * loop.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "club.h"
#include "wsclient.h"

/* Renders timed per page, for a mean. */
#define RENDERS 20

static CAS_PRINTF(2, 3) void club_line(struct cas__bench *b, const char *fmt, ...)
{
    va_list args;
    va_start(args, fmt);
    cas__bench_vprint(b, (int)strlen("club: "), fmt, args);
    va_end(args);
}

/* Mean milliseconds to render path; its size into *bytes. */
static double render_ms(struct cas__club *c, const char *path, size_t *bytes)
{
    double t0 = cas__bench_now();
    *bytes = 0;
    for (int i = 0; i < RENDERS; i++) {
        struct cas__club_answer a;
        if (cas__club_page(c, path, &a) != CAS_OK)
            return -1;
        *bytes = a.len;
        free(a.body);
    }
    return (cas__bench_now() - t0) * 1000 / RENDERS;
}

int cas__bench_club(struct cas__bench *b, const char *database)
{
    static const char *const pages[] = {"", "/pool/carcassonne", "/player/Player 1",
                                        "/bot/mcts-hard"};
    struct cas__club *c;
    double wall = cas__bench_now(), cpu = (double)clock() / CLOCKS_PER_SEC;
    int rc = cas__club_new(database, NULL, &c);
    if (rc == CAS_OK)
        rc = cas__club_wait(c);
    wall = cas__bench_now() - wall;
    cpu = (double)clock() / CLOCKS_PER_SEC - cpu;
    if (rc) {
        club_line(b, "club: the snapshot failed (%s)\n", cas_strerror(rc));
        cas__club_free(c);
        return rc;
    }
    club_line(b, "club: the pages' snapshot of that history made in %.3f s (%.3f s of CPU) "
              "on the club's thread\n", wall, cpu);
    for (size_t i = 0; i < sizeof pages / sizeof *pages; i++) {
        size_t bytes;
        double ms = render_ms(c, pages[i], &bytes);
        club_line(b, "club: /club%s rendered on the loop in %.3f ms (%zu bytes)\n", pages[i],
                  ms, bytes);
    }
    cas__club_free(c);
    return CAS_OK;
}
