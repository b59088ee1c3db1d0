/*
 * sqlite_campaign.c — campaigns in a SQLite store: games grouped under a
 * name, with standings (finished games, wins and points per player) and
 * the game to resume.
 */
#include <stdlib.h>
#include <string.h>

#include "sqlite_int.h"

static int fill_summary(sqlite3_stmt *st, struct cas__saves_campaign *c)
{
    memset(c, 0, sizeof *c);
    c->name = cas__sqlite_text(st, 0);
    c->games = (size_t)sqlite3_column_int64(st, 1);
    c->finished = (size_t)sqlite3_column_int64(st, 2);
    c->unfinished = sqlite3_column_int64(st, 3);
    c->last_played = cas__sqlite_text(st, 4);
    return c->name && c->last_played ? CAS_OK : CAS_ENOMEM;
}

int cas__sqlite_campaigns(struct cas__saves *s, struct cas__saves_campaign **out, size_t *n)
{
    sqlite3_stmt *st;
    size_t cap = 0;
    int rc = cas__sqlite_prepare(s, CAS__SQL_CAMPAIGNS(CAS__SQLITE_BYTEWISE), &st), step;
    *out = NULL;
    *n = 0;
    if (rc)
        return rc;
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (cas__saves_grow((void **)out, *n, &cap, sizeof **out)) {
            rc = CAS_ENOMEM;
            goto finalize;
        }
        if ((rc = fill_summary(st, &(*out)[(*n)++])))
            goto finalize;
    }
    if (step != SQLITE_DONE)
        rc = cas__sqlite_fail(s, "listing the campaigns");
finalize:
    sqlite3_finalize(st);
    if (rc == CAS_ENOMEM)
        cas__saves_fail(s, rc, "out of memory");
    if (rc) {
        cas__saves_campaigns_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    return rc;
}

static int load_summary(struct cas__saves *s, const char *name,
                        struct cas__saves_campaign *summary)
{
    sqlite3_stmt *st;
    int rc = cas__sqlite_prepare(s, CAS__SQL_CAMPAIGN, &st);
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    int step = sqlite3_step(st);
    if (step == SQLITE_ROW) {
        if ((rc = fill_summary(st, summary)))
            cas__saves_fail(s, rc, "out of memory");
    } else if (step == SQLITE_DONE) {
        rc = cas__saves_fail(s, CAS_ENOTFOUND, "there is no campaign '%s'; "
                             "`castellan campaign list` shows them", name);
    } else {
        rc = cas__sqlite_fail(s, "reading the campaign");
    }
    sqlite3_finalize(st);
    return rc;
}

/* Standings count finished games only (sql.h). */
static int load_standings(struct cas__saves *s, const char *name,
                          struct cas__saves_standing **out, size_t *n)
{
    sqlite3_stmt *st;
    size_t cap = 0;
    int rc = cas__sqlite_prepare(s, CAS__SQL_STANDINGS(CAS__SQLITE_BYTEWISE), &st), step;
    if (rc)
        return rc;
    sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
    while ((step = sqlite3_step(st)) == SQLITE_ROW) {
        if (cas__saves_grow((void **)out, *n, &cap, sizeof **out))
            goto oom;
        struct cas__saves_standing *row = &(*out)[(*n)++];
        row->games = (size_t)sqlite3_column_int64(st, 1);
        row->wins = (size_t)sqlite3_column_int64(st, 2);
        row->points = sqlite3_column_int64(st, 3);
        if (!(row->player = cas__sqlite_text(st, 0)))
            goto oom;
    }
    if (step != SQLITE_DONE)
        rc = cas__sqlite_fail(s, "reading the standings");
    goto finalize;
oom:
    rc = cas__saves_fail(s, CAS_ENOMEM, "out of memory");
finalize:
    sqlite3_finalize(st);
    return rc;
}

int cas__sqlite_campaign_standings(struct cas__saves *s, const char *name,
                                   struct cas__saves_campaign *summary,
                                   struct cas__saves_standing **out, size_t *n)
{
    *out = NULL;
    *n = 0;
    memset(summary, 0, sizeof *summary);
    int rc = cas__sqlite_exec(s, "BEGIN;", "starting to read");
    if (rc)
        return rc;
    if ((rc = load_summary(s, name, summary)) ||
        (rc = load_standings(s, name, out, n))) {
        free(summary->name);
        free(summary->last_played);
        memset(summary, 0, sizeof *summary);
        cas__saves_standings_free(*out, *n);
        *out = NULL;
        *n = 0;
    }
    cas__sqlite_rollback(s);
    return rc;
}
