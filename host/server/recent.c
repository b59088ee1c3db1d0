/*
 * recent.c — the lobby's recent finished games: the last few served games
 * that ended, read from the store (so they outlive a restart of the
 * server, and on a shared database include other servers' games), each
 * with its result and a link to its replay.  Read again, off the loop,
 * only after a table of this server finished (and before the first
 * list); the lobby's list is sent again once it is read.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

struct recent_job {
    struct cas__store_job base;
    struct cas__recent *r;
    struct cas__saves_result *results;
    size_t n;
};

static int run_read(struct cas__saves *s, struct cas__store_job *base)
{
    struct recent_job *job = (struct recent_job *)base;
    int rc = cas__saves_ready(s);
    return rc ? rc : cas__saves_served_recent(s, CAS__RECENT_GAMES, &job->results, &job->n);
}

static void refresh(struct cas__recent *r);

/* (loop) The list read: the lobby's list is sent again with it; on a
 * store error the list there is stays, read again at the next change. */
static void read_done(struct cas__lobby *l, struct cas__store_job *base)
{
    struct recent_job *job = (struct recent_job *)base;
    struct cas__recent *r = job->r;
    int read = base->rc == CAS_OK;
    r->reading = 0;
    if (read) {
        cas__saves_results_free(r->results, r->n);
        r->results = job->results;
        r->n = job->n;
        r->current = !r->changed_meanwhile;
        if (!r->writing) /* else it is in the list being written */
            cas__feed_finished_news(l);
    } else if (!l->store_stopping) {
        fprintf(stderr, "castellan serve: the recent games cannot be read: %s\n", base->err);
    }
    r->changed_meanwhile = 0;
    free(job);
    if (!r->current && read && !l->store_stopping)
        refresh(r);
}

/* Read the list again off the loop, once at a time. */
static void refresh(struct cas__recent *r)
{
    if (r->reading) {
        r->changed_meanwhile = 1;
        return;
    }
    struct recent_job *job = calloc(1, sizeof *job);
    if (!job)
        return; /* read at the next change */
    job->base.run = run_read;
    job->base.done = read_done;
    job->r = r;
    r->reading = 1;
    cas__store_submit(r->lobby, &job->base);
}

void cas__recent_changed(struct cas__recent *r)
{
    r->current = 0;
    refresh(r);
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

void cas__recent_write(struct cas__recent *r, struct cas__jw *w)
{
    if (!r->read_once) { /* the first list: read, and sent again when it is */
        r->read_once = r->writing = 1;
        refresh(r);
        r->writing = 0;
    }
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
