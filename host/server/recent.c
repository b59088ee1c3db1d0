/*
 * recent.c — the lobby's recent finished games: the last few served games
 * that ended, read from the store (so they outlive a restart of the
 * server, and on a shared database include other servers' games), each
 * with its result and a link to its replay.  Read again only after a
 * table of this server finished, when the lobby is next sent.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "server.h"

void cas__recent_changed(struct cas__recent *r)
{
    r->current = 0;
}

/* Read the list again if a game finished since; on a store error keep
 * the list there is and try again next time. */
static void refresh(struct cas__recent *r, struct cas__saves *store)
{
    struct cas__saves_result *results;
    size_t n;
    if (r->current || cas__saves_ready(store) != CAS_OK)
        return;
    if (cas__saves_served_recent(store, CAS__RECENT_GAMES, &results, &n) != CAS_OK) {
        fprintf(stderr, "castellan serve: the recent games cannot be read: %s\n",
                cas__saves_errmsg(store));
        return;
    }
    cas__saves_results_free(r->results, r->n);
    r->results = results;
    r->n = n;
    r->current = 1;
}

/* "carcassonne + inns-cathedrals", as a table's title reads. */
static void write_title(struct cas__jw *w, const struct cas__saves_result *g)
{
    struct cas__jw title;
    cas__jw_init(&title);
    cas__jw_raw(&title, g->game_id);
    for (const char *p = g->expansions, *end; *p; p = *end ? end + 1 : end) {
        end = strchr(p, '+');
        if (!end)
            end = p + strlen(p);
        cas__jw_raw(&title, " + ");
        cas__jw_rawn(&title, p, (size_t)(end - p));
    }
    cas__jw_str(w, cas__jw_text(&title));
    cas__jw_free(&title);
}

static void write_result(struct cas__jw *w, const struct cas__saves_result *g)
{
    cas__jw_printf(w, "{\"game\":\"%" PRId64 "\",\"title\":", g->id);
    write_title(w, g);
    cas__jw_raw(w, ",\"finished\":");
    cas__jw_str(w, g->finished);
    if (g->flagged >= 0)
        cas__jw_printf(w, ",\"reason\":\"%s\",\"flagged\":%d", g->forfeit ? "left" : "flag",
                       g->flagged);
    else
        cas__jw_raw(w, ",\"reason\":null,\"flagged\":null");
    cas__jw_raw(w, ",\"seats\":[");
    for (size_t i = 0; i < g->n_players; i++) {
        const struct cas__saves_player *p = &g->players[i];
        cas__jw_printf(w, "%s{\"seat\":%zu,\"name\":", i ? "," : "", i);
        cas__jw_str(w, p->name);
        cas__jw_raw(w, ",\"agent\":");
        cas__jw_str(w, p->agent);
        if (p->has_score)
            cas__jw_printf(w, ",\"score\":%" PRId64 "}", p->score);
        else
            cas__jw_raw(w, ",\"score\":null}");
    }
    cas__jw_printf(w, "],\"replay\":\"/game/%" PRId64 "/replay.html\"}", g->id);
}

void cas__recent_write(struct cas__recent *r, struct cas__saves *store, struct cas__jw *w)
{
    refresh(r, store);
    cas__jw_raw(w, ",\"finished\":[");
    for (size_t i = r->n; i-- > 0;) { /* newest first */
        write_result(w, &r->results[i]);
        if (i)
            cas__jw_raw(w, ",");
    }
    cas__jw_raw(w, "]");
}

void cas__recent_free(struct cas__recent *r)
{
    cas__saves_results_free(r->results, r->n);
    memset(r, 0, sizeof *r);
}
