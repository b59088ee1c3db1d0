/*
 * schema.c — the save database schema as a list of migrations.
 *
 * Migration N brings a database from user_version N-1 to N in one
 * transaction, so a killed process leaves either the old schema or the new
 * one.  Released migrations are never edited: a change is a new entry.
 */
#include <stdio.h>

#include <openssl/evp.h>

#include "saves_int.h"

static const struct cas__saves_migration migrations[] = {
    {1, "the first schema",
     "CREATE TABLE campaigns ("
     "  id INTEGER PRIMARY KEY,"
     "  name TEXT NOT NULL UNIQUE,"
     "  created_at TEXT NOT NULL"
     ") STRICT;"
     "CREATE TABLE games ("
     "  id INTEGER PRIMARY KEY,"
     "  campaign_id INTEGER REFERENCES campaigns(id),"
     "  castellan_version TEXT NOT NULL,"
     "  game_id TEXT NOT NULL,"
     "  game_version TEXT NOT NULL,"
     "  config_text TEXT,"
     "  seed INTEGER NOT NULL,"      /* uint64 stored bit for bit */
     "  status TEXT NOT NULL CHECK (status IN ('playing', 'finished')),"
     "  created_at TEXT NOT NULL,"
     "  updated_at TEXT NOT NULL"
     ") STRICT;"
     "CREATE INDEX games_by_campaign ON games(campaign_id, id);"
     "CREATE TABLE game_expansions ("
     "  game INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
     "  position INTEGER NOT NULL,"
     "  expansion_id TEXT NOT NULL,"
     "  version TEXT NOT NULL,"
     "  PRIMARY KEY (game, position)"
     ") STRICT, WITHOUT ROWID;"
     "CREATE TABLE game_options ("
     "  game INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
     "  position INTEGER NOT NULL,"
     "  key TEXT NOT NULL,"
     "  value TEXT NOT NULL,"
     "  PRIMARY KEY (game, position)"
     ") STRICT, WITHOUT ROWID;"
     "CREATE TABLE players ("
     "  game INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
     "  seat INTEGER NOT NULL,"
     "  name TEXT NOT NULL,"
     "  agent TEXT NOT NULL,"
     "  score INTEGER,"               /* NULL until the game is finished */
     "  PRIMARY KEY (game, seat)"
     ") STRICT, WITHOUT ROWID;"
     "CREATE TABLE actions ("
     "  game INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
     "  ply INTEGER NOT NULL,"
     "  actor INTEGER NOT NULL,"
     "  text TEXT NOT NULL,"
     "  hash INTEGER NOT NULL,"       /* uint64 stored bit for bit */
     "  PRIMARY KEY (game, ply)"
     ") STRICT, WITHOUT ROWID;"
     /* Serialized states that may shorten a resume; the journal stays the
      * truth and a snapshot is only used if its hash matches it. */
     "CREATE TABLE snapshots ("
     "  game INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
     "  ply INTEGER NOT NULL,"        /* actions applied before it */
     "  plugin_versions TEXT NOT NULL,"
     "  encoding INTEGER NOT NULL,"
     "  state BLOB NOT NULL,"
     "  hash INTEGER NOT NULL,"
     "  PRIMARY KEY (game, ply)"
     ") STRICT, WITHOUT ROWID;"},
    {2, "an index of players by name for campaign standings",
     "CREATE INDEX players_by_name ON players(name, game);"},
    {3, "clocks in the journal and the tables of castellan serve",
     /* The actor's remaining time after the action (its increment added),
      * NULL for a game without a clock. */
     "ALTER TABLE actions ADD COLUMN clock_ms INTEGER;"
     /* A game hosted by `castellan serve`: its time control (0 and 0: no
      * clock) and the seat whose flag fell, if one did. */
     "CREATE TABLE served_games ("
     "  game INTEGER PRIMARY KEY REFERENCES games(id) ON DELETE CASCADE,"
     "  base_ms INTEGER NOT NULL,"
     "  increment_ms INTEGER NOT NULL,"
     "  flagged INTEGER"
     ") STRICT;"
     /* Each seat's invite token (a secret: docs/server.md) and whether
      * anyone may still claim it. */
     "CREATE TABLE served_seats ("
     "  game INTEGER NOT NULL REFERENCES served_games(game) ON DELETE CASCADE,"
     "  seat INTEGER NOT NULL,"
     "  token TEXT NOT NULL,"
     "  open INTEGER NOT NULL,"
     "  PRIMARY KEY (game, seat)"
     ") STRICT, WITHOUT ROWID;"},
    {4, "seat tokens kept as their SHA-256; seed commitments and practice games",
     /* The server keeps only a token's hash (docs/server.md): the links
      * handed out before keep working, as the hash of what they carry is
      * what is compared. */
     "UPDATE served_seats SET token = sha256_hex(token);"
     /* A practice game: its creator chose the seed.  seed_nonce: the
      * secret of the commitment to a drawn seed, NULL without one. */
     "ALTER TABLE served_games ADD COLUMN practice INTEGER NOT NULL DEFAULT 0;"
     "ALTER TABLE served_games ADD COLUMN seed_nonce TEXT;"},
};

/* sha256_hex(TEXT): the lowercase hex SHA-256 of the text's bytes, what
 * castellan serve keeps of a token (host/server/token.c hashes the same). */
static void sha256_hex(sqlite3_context *ctx, int argc, sqlite3_value **argv)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char digest[32];
    char out[65];
    unsigned int len = 0;
    const unsigned char *text = sqlite3_value_text(argv[0]);
    (void)argc;
    if (!text || !EVP_Digest(text, (size_t)sqlite3_value_bytes(argv[0]), digest, &len,
                             EVP_sha256(), NULL)) {
        sqlite3_result_error(ctx, "sha256_hex: no text, or no SHA-256", -1);
        return;
    }
    for (unsigned int i = 0; i < len; i++) {
        out[2 * i] = hex[digest[i] >> 4];
        out[2 * i + 1] = hex[digest[i] & 15];
    }
    sqlite3_result_text(ctx, out, 2 * (int)len, SQLITE_TRANSIENT);
}

static int run_migration(struct cas__saves *s, const struct cas__saves_migration *m)
{
    char sql[128];
    int rc = cas__saves_begin(s);
    if (rc)
        return rc;
    /* Another castellan may have migrated while we waited for the lock. */
    if (cas__saves_schema_version(s) >= m->version)
        return cas__saves_commit(s);
    if (m->version == 1) {
        snprintf(sql, sizeof sql, "PRAGMA application_id = %d;",
                 (int)CAS__SAVES_APPLICATION_ID);
        rc = cas__saves_exec(s, sql, "setting the application id");
        if (rc)
            goto rollback;
    }
    rc = cas__saves_exec(s, m->sql, m->what);
    if (rc)
        goto rollback;
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d;", m->version);
    rc = cas__saves_exec(s, sql, "recording the schema version");
    if (rc)
        goto rollback;
    return cas__saves_commit(s);
rollback:
    cas__saves_rollback(s);
    return rc;
}

int cas__saves_migrate(struct cas__saves *s, int from, int target)
{
    if (sqlite3_create_function_v2(s->db, "sha256_hex", 1,
                                   SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, NULL,
                                   sha256_hex, NULL, NULL, NULL) != SQLITE_OK)
        return cas__saves_sql_fail(s, "preparing the migrations");
    for (size_t i = 0; i < sizeof migrations / sizeof migrations[0]; i++) {
        const struct cas__saves_migration *m = &migrations[i];
        if (m->version <= from || m->version > target)
            continue;
        int rc = run_migration(s, m);
        if (rc)
            return rc;
    }
    return CAS_OK;
}
