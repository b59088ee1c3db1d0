/*
 * club.h — the club's pages of castellan serve (docs/club.md): players,
 * a leaderboard per rating pool, each player's finished games with their
 * replays, and the campaigns' standings.  Everything they show is read and
 * rated on a thread of its own (a club's history takes a good part of a
 * second to rate) into a snapshot; the loop renders pages from the latest
 * snapshot and never reads the store for them.
 */
#ifndef CAS_HOST_CLUB_H
#define CAS_HOST_CLUB_H

#include <stddef.h>

#include "server.h"

struct cas__club;

/* Start the club's thread on the store named database (a file or a
 * postgresql:// URL, opened read-only apart from the server's own
 * connection: cas__saves_open_read), which begins its first snapshot at
 * once.  The server's own connection must be open already.  host_saved
 * (borrowed, may be NULL, must outlive the club) says which games of the
 * terminal may be shown, as for the replay pages.  Caller frees with
 * cas__club_free.  CAS_ENOMEM, CAS_EIO (no thread). */
int cas__club_new(const char *database, const struct cas__host_saved *host_saved,
                  struct cas__club **out);
/* Stop the thread (after the snapshot in hand) and free everything. */
void cas__club_free(struct cas__club *c);

/* A game finished: the pages are out of date until the next snapshot,
 * which starts now.  NULL is fine (a server without club pages). */
void cas__club_stale(struct cas__club *c);

/* Block until a snapshot at least as new as the last cas__club_stale is
 * made (tests; the loop never waits).  CAS_OK, or the error of the last
 * attempt (the store could not be read). */
int cas__club_wait(struct cas__club *c);

/* An answer of the club's pages: body is the caller's (free). */
struct cas__club_answer {
    unsigned status;       /* 200, 404, 503 (no snapshot yet) */
    const char *mime;
    char *body;
    size_t len;
};

/* The page at path, the request's path after "/club" ("" or "/...", as the
 * HTTP server decoded it), rendered from the latest snapshot.  Every stored
 * text on it is escaped.  CAS_OK, or CAS_ENOMEM. */
int cas__club_page(struct cas__club *c, const char *path, struct cas__club_answer *a);

#endif
