/*
 * club_snapshot.h — what the club's pages show, read and rated at once
 * (club.c) and never changed after: the pages (club_html.c) read it on the
 * loop while the thread builds the next one.
 */
#ifndef CAS_HOST_CLUB_SNAPSHOT_H
#define CAS_HOST_CLUB_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

#include "ratings.h"
#include "saves.h"
#include "server.h"

/* A player of the club: a registered player, or an identity a finished
 * game's seat had (a guest by name, a bot by its agent). */
struct cas__club_player {
    const char *name;                        /* borrowed from the snapshot */
    int bot;
    const struct cas__saves_registered *reg; /* NULL: not registered */
    size_t games;                            /* finished games with a seat */
    size_t first_game;                       /* into game_of: newest first */
    const char *last_seen;                   /* NULL: never */
    long *rank;                              /* by game pool: index in its
                                              * players, -1: not rated */
};

struct cas__club_campaign {
    struct cas__saves_campaign summary;
    struct cas__saves_standing *standings;
    size_t n_standings;
};

struct cas__club_snapshot {
    struct cas__saves_result *results;       /* by finish, oldest first */
    size_t n_results;
    struct cas__rating_pool *pools, *mix;    /* by game; by game and mix */
    size_t n_pools, n_mix;
    struct cas__saves_registered *registered;
    size_t n_registered;
    struct cas__club_player *players;        /* by (bot, name) */
    size_t n_players;
    size_t *game_of;                         /* players' games: result indices */
    long *ranks;                             /* every player's rank arrays */
    struct cas__club_campaign *campaigns;
    size_t n_campaigns;
};

void cas__club_snapshot_free(struct cas__club_snapshot *s);

/* The player (bot or not) called name, or NULL. */
const struct cas__club_player *cas__club_find(const struct cas__club_snapshot *s,
                                              const char *name, int bot);

/* Whether result r's replay may be shown (a served game, or one of the
 * terminal the server was told to host). */
int cas__club_showable(const struct cas__saves_result *r, const struct cas__host_saved *h);

/* Write the page at path (after "/club") into w: 200, or 404 when there is
 * no such player, pool or campaign.  stale: a game finished since s was
 * made (the page says so and reloads). */
unsigned cas__club_render(const struct cas__club_snapshot *s,
                          const struct cas__host_saved *h, const char *path, int stale,
                          struct cas__jw *w);

#endif
