/*
 * pg_store.c — the save store in a PostgreSQL database: connecting through
 * libpq, turning the server's failures into messages that name the
 * database, and the schema with its versions.
 *
 * The schema is SQLite's (schema.c lists the migrations of both) table for
 * table and version for version, so both backends hold the same games and
 * `castellan saves migrate` copies them either way.  SQLite keeps its version in PRAGMA
 * user_version; here a one-row table, schema_version, holds it with the
 * application's name, so a database that holds tables but no
 * schema_version, or another application's, is refused and left alone.
 * Migrations run under a transaction-scoped advisory lock: castellans
 * starting at once on a new database create the schema once.
 */
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pg_int.h"

#define APPLICATION "castellan"

/* ------------------------------------------------------------ messages */

/* The URL as messages show it: a password (user:PASSWORD@ or password=)
 * is replaced by ***.  Caller frees; NULL on OOM. */
static char *shown_url(const char *url)
{
    char *shown = malloc(strlen(url) + 4);
    if (!shown)
        return NULL;
    const char *auth = strstr(url, "://") + 3;
    const char *at = strchr(auth, '@');
    const char *colon = strchr(auth, ':');
    const char *slash = strchr(auth, '/');
    if (at && (!slash || at < slash) && colon && colon < at)
        sprintf(shown, "%.*s:***%s", (int)(colon - url), url, at);
    else
        strcpy(shown, url);
    char *pw = strstr(shown, "password=");
    if (pw) {
        char *end = pw + 9 + strcspn(pw + 9, "&");
        memmove(pw + 12, end, strlen(end) + 1);
        memcpy(pw + 9, "***", 3);
    }
    return shown;
}

static int code_of_state(const char *state)
{
    if (!state)
        return CAS_EIO;
    /* The server is going or gone (08: connection, 57P0x: shutting down,
     * starting up), or a statement ran past statement_timeout (57014):
     * nothing of it was committed, and it may be tried again. */
    if (strncmp(state, "08", 2) == 0 || strncmp(state, "57P0", 4) == 0 ||
        strcmp(state, "57014") == 0)
        return CAS_EUNAVAILABLE;
    if (strncmp(state, "23", 2) == 0 || strcmp(state, "40001") == 0 ||
        strcmp(state, "40P01") == 0 || strcmp(state, "55P03") == 0)
        return CAS_ECONFLICT;
    if (strcmp(state, "XX001") == 0 || strcmp(state, "XX002") == 0)
        return CAS_ECORRUPT;
    if (strcmp(state, "53200") == 0)
        return CAS_ENOMEM;
    return CAS_EIO;
}

/* What to do about a failure with SQLSTATE state; the words of a
 * duplicate key are SQLite's, so both backends tell a second writer alike. */
static const char *hint_for(const char *state, PGconn *conn)
{
    if (PQstatus(conn) == CONNECTION_BAD || code_of_state(state) == CAS_EUNAVAILABLE)
        return "; the database server is unavailable: check that it runs (castellan "
               "serve connects again by itself)";
    if (!state)
        return "";
    if (strcmp(state, "23505") == 0)
        return "; another castellan saved it first: it is playing the same game";
    if (strcmp(state, "53100") == 0)
        return "; the database server's disk is full: free some space there";
    if (strncmp(state, "XX", 2) == 0)
        return "; the database is damaged: restore a backup";
    if (strcmp(state, "42501") == 0)
        return "; the database user may not change these tables: grant it the "
               "rights, or name another database";
    return "";
}

/* Explain res's failure (or the connection's, without a result). */
int cas__pg_explain(struct cas__saves *s, PGresult *res, const char *what)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
    const char *text = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
    char line[512];
    snprintf(line, sizeof line, "%s", text ? text : PQerrorMessage(cas__pg_conn(s)));
    line[strcspn(line, "\n")] = '\0';
    if (!res && !*line)
        return cas__saves_fail(s, CAS_ENOMEM, "out of memory");
    int code = PQstatus(cas__pg_conn(s)) == CONNECTION_BAD ? CAS_EUNAVAILABLE
                                                           : code_of_state(state);
    if (code == CAS_EUNAVAILABLE) {
        struct cas__pg *pg = s->backend;
        snprintf(pg->away, sizeof pg->away, "%.255s", line);
    }
    return cas__saves_fail(s, code, "%s failed: %s%s", what, line,
                           hint_for(state, cas__pg_conn(s)));
}

/* ------------------------------------------------------------ helpers */

int cas__pg_run(struct cas__saves *s, const char *sql, int n, const char *const *params,
                PGresult **out, const char *what)
{
    int rc = cas__pg_ready(s);
    if (rc)
        return rc;
    /* without parameters, sql may hold several statements (the schema) */
    PGresult *res = n ? PQexecParams(cas__pg_conn(s), sql, n, NULL, params, NULL, NULL, 0)
                      : PQexec(cas__pg_conn(s), sql);
    ExecStatusType status = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;
    if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
        int rc = cas__pg_explain(s, res, what);
        PQclear(res);
        return rc;
    }
    if (out)
        *out = res;
    else
        PQclear(res);
    return CAS_OK;
}

int cas__pg_begin(struct cas__saves *s, int read_only)
{
    int rc = cas__pg_run(s, read_only ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
                                      : "BEGIN", 0, NULL, NULL, "starting a transaction");
    ((struct cas__pg *)s->backend)->in_tx = rc == CAS_OK;
    return rc;
}

int cas__pg_commit(struct cas__saves *s, int phase)
{
    /* A kill before COMMIT is sent loses the transaction; after, the
     * server finishes it alone (cas__pg_append shows that moment too). */
    if (phase >= 0)
        cas__saves_announce((enum cas__saves_phase)phase, CAS__SAVES_STEP);
    ((struct cas__pg *)s->backend)->in_tx = 0;
    if (!PQsendQuery(cas__pg_conn(s), "COMMIT"))
        return cas__pg_explain(s, NULL, "committing");
    PGresult *res = NULL, *failed = NULL;
    int rolled_back = 0;
    while ((res = PQgetResult(cas__pg_conn(s)))) {
        if (PQresultStatus(res) != PGRES_COMMAND_OK && !failed) {
            failed = res;
            continue;
        }
        /* A transaction that failed inside answers COMMIT with ROLLBACK. */
        rolled_back |= strcmp(PQcmdStatus(res), "ROLLBACK") == 0;
        PQclear(res);
    }
    if (failed) {
        int rc = cas__pg_explain(s, failed, "committing");
        PQclear(failed);
        cas__pg_rollback(s);
        return rc;
    }
    if (rolled_back)
        return cas__saves_fail(s, CAS_EIO, "committing failed: the server rolled the "
                               "transaction back");
    return CAS_OK;
}

void cas__pg_rollback(struct cas__saves *s)
{
    ((struct cas__pg *)s->backend)->in_tx = 0;
    if (PQstatus(cas__pg_conn(s)) == CONNECTION_OK &&
        PQtransactionStatus(cas__pg_conn(s)) != PQTRANS_IDLE)
        PQclear(PQexec(cas__pg_conn(s), "ROLLBACK"));
}

const char *cas__pg_dec(cas__pg_num buf, int64_t v)
{
    snprintf(buf, sizeof(cas__pg_num), "%" PRId64, v);
    return buf;
}

int64_t cas__pg_int(const PGresult *res, int row, int col)
{
    return PQgetisnull(res, row, col) ? 0 : strtoll(PQgetvalue(res, row, col), NULL, 10);
}

char *cas__pg_text(const PGresult *res, int row, int col)
{
    return strdup(PQgetisnull(res, row, col) ? "" : PQgetvalue(res, row, col));
}

/* ------------------------------------------------------------- schema */

/* The version recorded in schema_version: 0 when the database is empty;
 * CAS_EMISMATCH when it holds other tables or another application's. */
static int read_version(struct cas__saves *s, int *version)
{
    PGresult *res = NULL;
    *version = 0;
    int rc = cas__pg_run(s,
        "SELECT (SELECT count(*) FROM pg_catalog.pg_tables"
        "        WHERE schemaname = current_schema()),"
        " to_regclass('schema_version') IS NOT NULL", 0, NULL, &res,
        "reading the schema version");
    if (rc)
        return rc;
    int64_t tables = cas__pg_int(res, 0, 0);
    int versioned = strcmp(PQgetvalue(res, 0, 1), "t") == 0;
    PQclear(res);
    if (tables == 0)
        return CAS_OK;
    if (!versioned)
        return cas__saves_fail(s, CAS_EMISMATCH, "holds tables but no castellan "
                               "schema_version: it belongs to another application; "
                               "name an empty database (createdb castellan)");
    if ((rc = cas__pg_run(s, "SELECT application, version FROM schema_version", 0, NULL,
                          &res, "reading the schema version")))
        return rc;
    if (PQntuples(res) != 1 || strcmp(PQgetvalue(res, 0, 0), APPLICATION) != 0)
        rc = cas__saves_fail(s, CAS_EMISMATCH, "its schema_version does not say "
                             "castellan: it belongs to another application; name "
                             "another database");
    else
        *version = (int)cas__pg_int(res, 0, 1);
    PQclear(res);
    if (rc == CAS_OK && *version > CAS__SAVES_SCHEMA_VERSION)
        rc = cas__saves_fail(s, CAS_EVERSION, "was written by a newer castellan (save "
                             "schema %d; this castellan knows up to %d); upgrade "
                             "castellan to open it", *version, CAS__SAVES_SCHEMA_VERSION);
    return rc;
}

static int schema_version(struct cas__saves *s)
{
    int version = -1;
    return read_version(s, &version) ? -1 : version;
}

/* Migration m under the schema's lock: the table schema_version with the
 * first, its version with each.  A new database's schema is made by the
 * phase CAS__SAVES_CREATE, each migration's commit a change of it, as
 * SQLite's new file is. */
static int migration(struct cas__saves *s, const struct cas__saves_migration *m,
                     const char *sql)
{
    char version[16];
    const char *params[] = {version};
    int current, rc = cas__pg_begin(s, 0);
    if (rc)
        return rc;
    /* Another castellan may be migrating: wait for it, then look again. */
    if ((rc = cas__pg_run(s, "SELECT pg_advisory_xact_lock(" CAS__PG_LOCK_SPACE ", 0)", 0,
                          NULL, NULL, "waiting for the schema lock")) ||
        (rc = read_version(s, &current)))
        goto rollback;
    if (current >= m->version)
        return cas__pg_commit(s, -1);
    if (current == 0)
        cas__saves_announce(CAS__SAVES_CREATE, CAS__SAVES_BEGIN);
    snprintf(version, sizeof version, "%d", m->version);
    if ((m->version == 1 &&
         (rc = cas__pg_run(s, "CREATE TABLE schema_version (application TEXT NOT NULL,"
                           " version INTEGER NOT NULL);"
                           "INSERT INTO schema_version VALUES ('" APPLICATION "', 0)",
                           0, NULL, NULL, "creating the schema version"))) ||
        (rc = cas__pg_run(s, sql, 0, NULL, NULL, m->what)) ||
        (rc = cas__pg_run(s, "UPDATE schema_version SET version = $1::integer", 1, params,
                          NULL, "recording the schema version")))
        goto rollback;
    return cas__pg_commit(s, CAS__SAVES_CREATE);
rollback:
    cas__pg_rollback(s);
    return rc;
}

/* ------------------------------------------------------------ opening */

/* Close the connection and free s (the close method). */
static void release(struct cas__saves *s)
{
    if (!s)
        return;
    struct cas__pg *pg = s->backend;
    PQfinish(pg->conn);
    free(pg->url);
    free(pg->claims);
    free(pg->lost);
    free(pg->doubts);
    cas__saves_touched_forget(&pg->touched);
    cas__saves_free(s);
}

/* The server's notices (a table that exists already) are not castellan's
 * output: drop them. */
static void quiet(void *arg, const char *message)
{
    (void)arg;
    (void)message;
}

/* Keepalives both ways, a TCP user timeout and a connect timeout, unless
 * the URL says otherwise (its values come later and win): a server whose
 * machine vanished is noticed in about 25 s, and the server drops the
 * connection (and the claims on games it held) of a castellan whose
 * machine vanished as soon (cas__saves_game_claim).  Keepalives only
 * probe an idle connection: tcp_user_timeout (ms) bounds as well a
 * statement already sent that the network lost (no FIN, no RST), which
 * would otherwise wait for TCP's retries (many minutes) with the journal
 * writer's turn held.  It does not limit a slow server, whose machine
 * still acknowledges what it receives. */
static const char *const connect_keys[] = {"keepalives", "keepalives_idle",
                                           "keepalives_interval", "keepalives_count",
                                           "tcp_user_timeout", "connect_timeout", "dbname",
                                           NULL};
#define CONNECT_VALUES(url) {"1", "10", "5", "3", "25000", "10", url, NULL}

/* What a connection is set up with, each time it is made: the server's
 * keepalives, and a statement_timeout of 30 s unless the URL's options,
 * the database or the role set one (a statement that hangs must not hang
 * castellan serve's players with it). */
#define SESSION_SQL                                                                     \
    "SET tcp_keepalives_idle = 10; SET tcp_keepalives_interval = 5;"                    \
    " SET tcp_keepalives_count = 3;"                                                    \
    " SELECT set_config('statement_timeout', '30s', false)"                             \
    " WHERE current_setting('statement_timeout') = '0'"

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Run sql, a query of one boolean about game id's advisory lock (taking or
 * letting go of it once, `doing` in an error); *held says what it said. */
static int advisory(struct cas__saves *s, const char *sql, const char *doing, int64_t id,
                    int *held)
{
    cas__pg_num gid;
    PGresult *res = NULL;
    const char *p[] = {cas__pg_dec(gid, id)};
    int rc = cas__pg_run(s, sql, 1, p, &res, doing);
    if (rc == CAS_OK) {
        *held = strcmp(PQgetvalue(res, 0, 0), "t") == 0;
        PQclear(res);
    }
    return rc;
}

/* Take game id's advisory lock once more; *held says whether it was. */
static int try_lock(struct cas__saves *s, int64_t id, int *held)
{
    return advisory(s, "SELECT pg_try_advisory_lock(" CAS__PG_LOCK_SPACE ", $1::integer)",
                    "claiming the game", id, held);
}

static int push_id(int64_t **ids, size_t *n, size_t *cap, int64_t id)
{
    if (cas__saves_grow((void **)ids, *n, cap, sizeof **ids))
        return CAS_ENOMEM;
    (*ids)[(*n)++] = id;
    return CAS_OK;
}

/* Whether ids holds id. */
static int has_id(const int64_t *ids, size_t n, int64_t id)
{
    for (size_t i = 0; i < n; i++)
        if (ids[i] == id)
            return 1;
    return 0;
}

/* Remove one id from ids; 1 when there was one. */
static int drop_id(int64_t *ids, size_t *n, int64_t id)
{
    for (size_t i = 0; i < *n; i++)
        if (ids[i] == id) {
            ids[i] = ids[--*n];
            return 1;
        }
    return 0;
}

/* On a new connection the server holds none of the old one's claims:
 * take each game again once (its copies are counted here), or learn that
 * another castellan holds it now and lose every copy. */
static int claim_again(struct cas__saves *s)
{
    struct cas__pg *pg = s->backend;
    for (size_t i = 0; i < pg->n_claims;) {
        int64_t id = pg->claims[i];
        int held = 1, rc = has_id(pg->claims, i, id) ? CAS_OK : try_lock(s, id, &held);
        if (rc)
            return rc;
        if (held) {
            i++;
            continue;
        }
        while (drop_id(pg->claims, &pg->n_claims, id)) /* the slot i takes another id */
            if (push_id(&pg->lost, &pg->n_lost, &pg->cap_lost, id))
                return cas__saves_fail(s, CAS_ENOMEM, "out of memory");
    }
    return CAS_OK;
}

static int set_up_session(struct cas__saves *s)
{
    struct cas__pg *pg = s->backend;
    PQsetNoticeProcessor(pg->conn, quiet, NULL);
    pg->append_prepared = 0;
    pg->in_tx = 0;
    int rc = cas__pg_run(s, SESSION_SQL, 0, NULL, NULL, "setting up the connection");
    return rc ? rc : claim_again(s);
}

static int unavailable(struct cas__saves *s)
{
    struct cas__pg *pg = s->backend;
    return cas__saves_fail(s, CAS_EUNAVAILABLE, "the database server is unavailable (%s); "
                           "castellan connects again as soon as it answers",
                           pg->away[0] ? pg->away : "the connection is lost");
}

#define BACKOFF_FIRST_MS 100
#define BACKOFF_MAX_MS 5000
/* How long a call may wait for a connection being made (a server on this
 * machine or the next answers within it) and how often, and how long a
 * connection may take in all before it is given up and tried again. */
#define CONNECT_SLICE_MS 20
#define CONNECT_PERIOD_MS 100
#define CONNECT_LIMIT_MS 10000

/* A connection attempt failed: wait before the next, twice as long as
 * before, up to BACKOFF_MAX_MS. */
static int attempt_failed(struct cas__saves *s, const char *why)
{
    struct cas__pg *pg = s->backend;
    if (why != pg->away)
        snprintf(pg->away, sizeof pg->away, "%s", why);
    pg->away[strcspn(pg->away, "\n")] = '\0';
    PQfinish(pg->conn);
    pg->conn = NULL;
    pg->connecting = 0;
    pg->backoff_ms = pg->backoff_ms ? pg->backoff_ms * 2 : BACKOFF_FIRST_MS;
    if (pg->backoff_ms > BACKOFF_MAX_MS)
        pg->backoff_ms = BACKOFF_MAX_MS;
    pg->retry_at_ms = now_ms() + pg->backoff_ms;
    return unavailable(s);
}

/* Start a new connection without blocking (PQconnectStartParams). */
static int start_connecting(struct cas__saves *s)
{
    struct cas__pg *pg = s->backend;
    const char *const values[] = CONNECT_VALUES(pg->url);
    PQfinish(pg->conn);
    pg->conn = PQconnectStartParams(connect_keys, values, 1);
    if (!pg->conn)
        return cas__saves_fail(s, CAS_ENOMEM, "out of memory");
    if (PQstatus(pg->conn) == CONNECTION_BAD)
        return attempt_failed(s, PQerrorMessage(pg->conn));
    pg->connecting = 1;
    pg->polling = PGRES_POLLING_WRITING;
    pg->connect_started_ms = now_ms();
    return CAS_OK;
}

/* Advance the connection being made: waiting for the server for
 * CONNECT_SLICE_MS at most, and once per CONNECT_PERIOD_MS (a server
 * hosting many games asks for each in one tick), else only taking what
 * has come. */
static int advance_connecting(struct cas__saves *s)
{
    struct cas__pg *pg = s->backend;
    int64_t now = now_ms(), deadline = now;
    if (now - pg->slice_at_ms >= CONNECT_PERIOD_MS) {
        pg->slice_at_ms = now;
        deadline = now + CONNECT_SLICE_MS;
    }
    while (pg->polling != PGRES_POLLING_OK) {
        if (pg->polling == PGRES_POLLING_FAILED)
            return attempt_failed(s, PQerrorMessage(pg->conn));
        int64_t left = deadline - now_ms();
        struct pollfd fd = {.fd = PQsocket(pg->conn),
                            .events = pg->polling == PGRES_POLLING_READING ? POLLIN : POLLOUT};
        if (poll(&fd, 1, left > 0 ? (int)left : 0) <= 0)
            break;
        pg->polling = PQconnectPoll(pg->conn);
    }
    if (pg->polling != PGRES_POLLING_OK) {
        if (now_ms() - pg->connect_started_ms > CONNECT_LIMIT_MS)
            return attempt_failed(s, "connecting took longer than 10 s");
        return unavailable(s);
    }
    pg->connecting = 0;
    int rc = set_up_session(s);
    if (rc == CAS_EUNAVAILABLE)
        return attempt_failed(s, pg->away);
    if (rc == CAS_OK) {
        pg->backoff_ms = 0;
        pg->away[0] = '\0';
    }
    return rc;
}

/* What the server sent while the connection was idle, read without
 * waiting: a server that ended the session (a restart, an administrator's
 * pg_terminate_backend) has said so and closed the socket, and libpq
 * learns of it only by reading.  Until then a connection looks up, and
 * without this its first statement afterwards would be what fails. */
static void take_what_came(PGconn *conn)
{
    struct pollfd fd = {.fd = PQsocket(conn), .events = POLLIN};
    /* a few reads: the words, then the end */
    for (int reads = 0; reads < 4 && PQstatus(conn) == CONNECTION_OK && poll(&fd, 1, 0) > 0;
         reads++)
        PQconsumeInput(conn);
}

int cas__pg_ready(struct cas__saves *s)
{
    struct cas__pg *pg = s->backend;
    if (!pg->connecting && pg->conn && !pg->in_tx)
        take_what_came(pg->conn);
    if (!pg->connecting && pg->conn && PQstatus(pg->conn) == CONNECTION_OK)
        return CAS_OK;
    if (pg->in_tx)
        return unavailable(s);
    if (!pg->connecting) {
        if (pg->conn && !pg->away[0])
            snprintf(pg->away, sizeof pg->away, "%s", PQerrorMessage(pg->conn));
        pg->away[strcspn(pg->away, "\n")] = '\0';
        if (now_ms() < pg->retry_at_ms)
            return unavailable(s);
        int rc = start_connecting(s);
        if (rc)
            return rc;
    }
    return advance_connecting(s);
}

int cas__pg_check_lost(struct cas__saves *s, int64_t id)
{
    struct cas__pg *pg = s->backend;
    if (has_id(pg->lost, pg->n_lost, id))
        return cas__saves_fail(s, CAS_ECONFLICT, "another castellan took game %lld over "
                               "while the database server was unavailable; it goes on "
                               "there", (long long)id);
    return CAS_OK;
}

/* Let go of game id's advisory lock once; *held says whether it was. */
static int unlock(struct cas__saves *s, int64_t id, int *held)
{
    return advisory(s, "SELECT pg_advisory_unlock(" CAS__PG_LOCK_SPACE ", $1::integer)",
                    "releasing the game", id, held);
}

/* The advisory lock (CASL, game id) of the connection's session: the
 * server drops it with the connection, however the process ends, once it
 * has run every statement the connection sent; a new connection takes it
 * again (claim_again).  So the claim covers the appends made on the same
 * connection, even those still in the server's hands when the process
 * died (castellan serve claims on its journal's connection,
 * cas__saves_writer_hold_claims).  Game ids fit its int4 key up to
 * 2^31 - 1.  The server holds a game once however often it is claimed
 * here: a claim of a game held already, and a release that leaves a copy,
 * are counted in pg->claims without a round trip (a create claims its new
 * game, the table's load claims it again, the create lets its claim go). */
static int claim(struct cas__saves *s, int64_t id, int claim)
{
    struct cas__pg *pg = s->backend;
    if (id <= 0 || id > INT32_MAX)
        return cas__saves_fail(s, CAS_EINVAL, "game id %lld cannot be claimed (1 to %d)",
                               (long long)id, INT32_MAX);
    if (!claim && drop_id(pg->lost, &pg->n_lost, id))
        return CAS_OK; /* the server let it go with the old connection */
    if (claim && has_id(pg->claims, pg->n_claims, id))
        return push_id(&pg->claims, &pg->n_claims, &pg->cap_claims, id)
                   ? cas__saves_fail(s, CAS_ENOMEM, "out of memory")
                   : CAS_OK;
    if (!claim && drop_id(pg->claims, &pg->n_claims, id) &&
        has_id(pg->claims, pg->n_claims, id))
        return CAS_OK; /* a copy is left */
    int held = 0;
    int rc = claim ? try_lock(s, id, &held) : unlock(s, id, &held);
    if (rc)
        return rc;
    if (claim && !held)
        return cas__saves_fail(s, CAS_ECONFLICT, "another castellan is playing game %lld "
                               "(it holds the game's lock in this database); it goes on "
                               "there", (long long)id);
    if (!claim && !held)
        return cas__saves_fail(s, CAS_ENOTFOUND, "game %lld was not claimed here",
                               (long long)id);
    if (claim && push_id(&pg->claims, &pg->n_claims, &pg->cap_claims, id))
        return cas__saves_fail(s, CAS_ENOMEM, "out of memory");
    return CAS_OK;
}

static int open_store(const char *url, int target, int read_only, struct cas__saves **out,
                      char *err, size_t errlen)
{
    int version = 0, rc;
    char *shown = shown_url(url);
    struct cas__saves *s = shown ? cas__saves_new(&cas__pg_methods, shown,
                                                  sizeof(struct cas__pg)) : NULL;
    free(shown);
    *out = NULL;
    if (!s || !(((struct cas__pg *)s->backend)->url = strdup(url))) {
        snprintf(err, errlen, "%s: out of memory", url);
        release(s);
        return CAS_ENOMEM;
    }
    struct cas__pg *pg = s->backend;
    const char *const values[] = CONNECT_VALUES(url);
    pg->conn = PQconnectdbParams(connect_keys, values, 1);
    if (!pg->conn || PQstatus(pg->conn) != CONNECTION_OK) {
        char why[512];
        snprintf(why, sizeof why, "%s", pg->conn ? PQerrorMessage(pg->conn) : "out of memory");
        why[strcspn(why, "\n")] = '\0';
        snprintf(err, errlen, "%s: cannot connect: %s; check the URL, that the server "
                 "runs and that the database exists (createdb)", s->path, why);
        rc = CAS_EIO;
        goto close;
    }
    if ((rc = set_up_session(s)) || (rc = read_version(s, &version)))
        goto explain;
    if (read_only && version != CAS__SAVES_SCHEMA_VERSION) {
        rc = version == 0
            ? cas__saves_fail(s, CAS_ENOTFOUND, "holds no castellan games yet; "
                              "`castellan play` creates them")
            : cas__saves_fail(s, CAS_EVERSION, "has save schema %d and castellan %d: "
                              "open it once for writing to bring it up to date",
                              version, CAS__SAVES_SCHEMA_VERSION);
        goto explain;
    }
    if (!read_only && (rc = cas__saves_migrate(s, version, target)))
        goto explain;
    if (!read_only && version == 0)
        cas__saves_announce(CAS__SAVES_CREATE, CAS__SAVES_END);
    *out = s;
    return CAS_OK;
explain:
    snprintf(err, errlen, "%s", s->err);
close:
    release(s);
    return rc;
}

/* PostgreSQL keeps its own pages whole; what castellan can check is what
 * its schema cannot say: every game's plies count from 0 without gaps. */
static int integrity_check(struct cas__saves *s)
{
    PGresult *res = NULL;
    int rc = cas__pg_run(s,
        "SELECT game FROM actions GROUP BY game HAVING count(*) <> max(ply) + 1"
        " OR min(ply) <> 0 ORDER BY game LIMIT 1", 0, NULL, &res, "checking integrity");
    if (rc)
        return rc;
    if (PQntuples(res) > 0)
        rc = cas__saves_fail(s, CAS_ECORRUPT, "integrity check failed: game %s has gaps "
                             "in its plies", PQgetvalue(res, 0, 0));
    PQclear(res);
    return rc;
}

const struct cas__saves_methods cas__pg_methods = {
    .name = "PostgreSQL",
    .dialect = CAS__SAVES_PG,
    .shared = 1,
    .open = open_store,
    .close = release,
    .schema_version = schema_version,
    .integrity_check = integrity_check,
    .migration = migration,
    .game_put = cas__pg_game_put,
    .append = cas__pg_append,
    .append_batch = cas__pg_append_batch,
    .take_back = cas__pg_take_back,
    .finish = cas__pg_finish,
    .touch = cas__pg_touch,
    .rebase = cas__pg_rebase,
    .claim = claim,
    .ready = cas__pg_ready,
    .game_load = cas__pg_game_load,
    .ids = cas__pg_ids,
    .rows = cas__pg_rows,
    .statement = cas__pg_statement,
    .game_delete = cas__pg_game_delete,
    .campaigns = cas__pg_campaigns,
    .campaign_standings = cas__pg_campaign_standings,
    .served_insert = cas__pg_served_insert,
    .served_claim = cas__pg_served_claim,
    .served_flag = cas__pg_served_flag,
    .served_bot = cas__pg_served_bot,
    .served_start = cas__pg_served_start,
    .served_load = cas__pg_served_load,
    .served_orphans = cas__pg_served_orphans,
};
