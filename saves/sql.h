/*
 * sql.h — the SQL both backends speak, written once.
 *
 * Parameters are numbered as PostgreSQL numbers them, $1, $2, ...; the
 * SQLite backend prepares each statement with ?1, ?2, ... in their place
 * (cas__sqlite_prepare), which SQLite binds by the same numbers.  No
 * statement holds a $ anywhere else.  Where the dialects differ in a
 * piece of a statement (the current time, a byte-wise collation), the
 * statement is a macro taking that piece and each backend passes its own
 * (CAS__SQLITE_* and CAS__PG_* below).  What only one backend has (its
 * PRAGMAs, PostgreSQL's advisory locks and one-statement append) stays in
 * its own files.
 */
#ifndef CAS_SAVES_SQL_H
#define CAS_SAVES_SQL_H

#include "saves.h"

/* ------------------------------------------------ the dialects' pieces */

/* The current time as CAS__SAVES_TIME_FORMAT's text (saves.h). */
#define CAS__SQLITE_NOW "strftime('" CAS__SAVES_TIME_FORMAT "', 'now')"
#define CAS__PG_NOW "to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')"
/* A collation that sorts text byte by byte, whatever the locale. */
#define CAS__SQLITE_BYTEWISE "BINARY"
#define CAS__PG_BYTEWISE "\"C\""
/* A new game's id when none is given: SQLite's rowid comes by itself. */
#define CAS__SQLITE_NEW_GAME_ID "NULL"
#define CAS__PG_NEW_GAME_ID "nextval(pg_get_serial_sequence('games', 'id'))"
/* After registered players were copied with their ids, PostgreSQL's
 * sequence must pass them (SQLite's rowid does by itself). */
#define CAS__PG_REGISTERED_IDS_CAUGHT_UP                                            \
    "SELECT setval(pg_get_serial_sequence('registered_players', 'id'),"            \
    " (SELECT max(id) FROM registered_players))"

/* ------------------------------------------------------------- writing */

#define CAS__SQL_CAMPAIGN_CREATE(now)                                               \
    "INSERT INTO campaigns (name, created_at) VALUES ($1, " now ")"                 \
    " ON CONFLICT (name) DO NOTHING"
#define CAS__SQL_CAMPAIGN_ID "SELECT id FROM campaigns WHERE name = $1"

/* A game's row; $10 its id, or NULL for a new one. */
#define CAS__SQL_GAME_INSERT(now, new_id)                                           \
    "INSERT INTO games (campaign_id, castellan_version, game_id, game_version,"      \
    " config_text, seed, status, created_at, updated_at, id)"                       \
    " VALUES ($1, $2, $3, $4, $5, $6, $7, coalesce($8, " now "),"                   \
    " coalesce($9, " now "), coalesce(CAST($10 AS BIGINT), " new_id "))"            \
    " RETURNING id"

/* Rows (game, position, a, b) of a game's expansions, options, players. */
#define CAS__SQL_EXPANSION_INSERT                                                   \
    "INSERT INTO game_expansions (game, position, expansion_id, version)"           \
    " VALUES ($1, $2, $3, $4)"
#define CAS__SQL_OPTION_INSERT                                                      \
    "INSERT INTO game_options (game, position, key, value) VALUES ($1, $2, $3, $4)"
#define CAS__SQL_PLAYER_INSERT                                                      \
    "INSERT INTO players (game, seat, name, agent) VALUES ($1, $2, $3, $4)"
/* Scores are set apart: they exist only for finished games. */
#define CAS__SQL_SCORE_SET "UPDATE players SET score = $3 WHERE game = $1 AND seat = $2"

/* An action; with a clock column only when there is a clock, so a
 * clockless action is written the same way in every schema. */
#define CAS__SQL_ACTION_INSERT                                                      \
    "INSERT INTO actions (game, ply, actor, text, hash) VALUES ($1, $2, $3, $4, $5)"
#define CAS__SQL_ACTION_INSERT_TIMED                                                \
    "INSERT INTO actions (game, ply, actor, text, hash, clock_ms)"                  \
    " VALUES ($1, $2, $3, $4, $5, $6)"

/* The game's last-played time, and its status unless $2 is NULL. */
#define CAS__SQL_GAME_TOUCH(now)                                                    \
    "UPDATE games SET status = coalesce($2, status), updated_at = " now             \
    " WHERE id = $1"

/* Taking back plies $2.. of game $1 (snapshots taken after more plies). */
#define CAS__SQL_ACTIONS_TAKE_BACK "DELETE FROM actions WHERE game = $1 AND ply >= $2"
#define CAS__SQL_SNAPSHOTS_TAKE_BACK "DELETE FROM snapshots WHERE game = $1 AND ply > $2"

/* A forced resume's new versions and hashes. */
#define CAS__SQL_GAME_VERSION_SET "UPDATE games SET game_version = $2 WHERE id = $1"
#define CAS__SQL_EXPANSION_VERSION_SET                                              \
    "UPDATE game_expansions SET version = $3 WHERE game = $1 AND position = $2"
#define CAS__SQL_ACTION_HASH_SET "UPDATE actions SET hash = $3 WHERE game = $1 AND ply = $2"

/* ------------------------------------------------------------- reading */

/* Columns: campaign, castellan_version, game_id, game_version,
 * config_text, seed, status, created_at, updated_at, actions. */
#define CAS__SQL_GAME_HEADER                                                        \
    "SELECT c.name, g.castellan_version, g.game_id, g.game_version,"                \
    " g.config_text, g.seed, g.status, g.created_at, g.updated_at,"                 \
    " (SELECT count(*) FROM actions a WHERE a.game = g.id)"                         \
    " FROM games g LEFT JOIN campaigns c ON c.id = g.campaign_id"                   \
    " WHERE g.id = $1"
#define CAS__SQL_EXPANSIONS_OF                                                      \
    "SELECT expansion_id, version FROM game_expansions WHERE game = $1 ORDER BY position"
#define CAS__SQL_OPTIONS_OF                                                         \
    "SELECT key, value FROM game_options WHERE game = $1 ORDER BY position"
/* Columns: name, agent, score, the registered player's name (NULL: none). */
#define CAS__SQL_PLAYERS_OF                                                         \
    "SELECT p.name, p.agent, p.score, r.name FROM players p"                        \
    " LEFT JOIN registered_players r ON r.id = p.registered"                        \
    " WHERE p.game = $1 ORDER BY p.seat"
#define CAS__SQL_ACTIONS_OF                                                         \
    "SELECT ply, actor, text, hash, clock_ms FROM actions WHERE game = $1 ORDER BY ply"

/* The games of campaign $1, or all when $1 is NULL, newest first. */
#define CAS__SQL_GAME_IDS                                                           \
    "SELECT g.id FROM games g LEFT JOIN campaigns c ON c.id = g.campaign_id"        \
    " WHERE CAST($1 AS TEXT) IS NULL OR c.name = $1 ORDER BY g.id DESC"
#define CAS__SQL_GAME_DELETE "DELETE FROM games WHERE id = $1"

/* Columns: name, games, finished, newest unfinished id, last played. */
#define CAS__SQL_CAMPAIGN_SUMMARY                                                   \
    "SELECT c.name, count(g.id),"                                                   \
    " count(CASE WHEN g.status = 'finished' THEN 1 END),"                           \
    " coalesce(max(CASE WHEN g.status = 'playing' THEN g.id END), 0),"              \
    " coalesce(max(g.updated_at), c.created_at)"                                    \
    " FROM campaigns c LEFT JOIN games g ON g.campaign_id = c.id"
/* Names sort byte by byte in both backends, whatever the locale. */
#define CAS__SQL_CAMPAIGNS(bytewise)                                                \
    CAS__SQL_CAMPAIGN_SUMMARY " GROUP BY c.id ORDER BY c.name COLLATE " bytewise
#define CAS__SQL_CAMPAIGN CAS__SQL_CAMPAIGN_SUMMARY " WHERE c.name = $1 GROUP BY c.id"

/* Columns: player, finished games, wins, points.  Standings count
 * finished games only: a player wins a game when nobody scored more (a
 * shared first place is a win for each). */
#define CAS__SQL_STANDINGS(bytewise)                                                \
    "SELECT p.name, count(*),"                                                      \
    " count(CASE WHEN p.score >= (SELECT max(q.score) FROM players q"               \
    "                             WHERE q.game = p.game) THEN 1 END),"              \
    " coalesce(sum(p.score), 0)"                                                    \
    " FROM players p JOIN games g ON g.id = p.game"                                 \
    " JOIN campaigns c ON c.id = g.campaign_id"                                     \
    " WHERE c.name = $1 AND g.status = 'finished'"                                  \
    " GROUP BY p.name ORDER BY 3 DESC, 4 DESC, p.name COLLATE " bytewise

/* --------------------------------------------- games of castellan serve */

#define CAS__SQL_SERVED_INSERT                                                      \
    "INSERT INTO served_games (game, base_ms, increment_ms, flagged, practice,"     \
    " seed_nonce, forfeit, days_per_move, first_deadline) VALUES ($1, $2, $3, NULL,"  \
    " $4, $5, $6, $7, $8)"
#define CAS__SQL_SEAT_INSERT                                                        \
    "INSERT INTO served_seats (game, seat, token, open, bot)"                       \
    " VALUES ($1, $2, $3, $4, $5)"
/* The claimer's new token's hash ($3) replaces the old one's. */
#define CAS__SQL_SEAT_CLAIM                                                         \
    "UPDATE served_seats SET open = 0, token = $3 WHERE game = $1 AND seat = $2"
#define CAS__SQL_PLAYER_RENAME "UPDATE players SET name = $3 WHERE game = $1 AND seat = $2"
#define CAS__SQL_SERVED_FLAG                                                        \
    "UPDATE served_games SET flagged = $2, forfeit = $3 WHERE game = $1"
#define CAS__SQL_SERVED_START                                                       \
    "UPDATE served_games SET first_deadline = $2 WHERE game = $1"
#define CAS__SQL_SEAT_BOT "UPDATE served_seats SET bot = $3 WHERE game = $1 AND seat = $2"
#define CAS__SQL_SERVED_GAME                                                        \
    "SELECT base_ms, increment_ms, flagged, practice, seed_nonce, forfeit,"         \
    " days_per_move, first_deadline FROM served_games WHERE game = $1"
#define CAS__SQL_SEATS_OF                                                           \
    "SELECT seat, token, open, bot FROM served_seats WHERE game = $1 ORDER BY seat"
/* The served games still being played, oldest first. */
#define CAS__SQL_SERVED_PLAYING                                                     \
    "SELECT g.id FROM games g JOIN served_games v ON v.game = g.id"                 \
    " WHERE g.status = 'playing' AND v.flagged IS NULL"
#define CAS__SQL_SERVED_UNFINISHED CAS__SQL_SERVED_PLAYING " ORDER BY g.id"

/* ------------------------------------------------------------ results */

/* Every seat of the finished games `which` selects (a condition on g, a
 * game, with at most the parameter $1, that admits finished games only),
 * by game id and seat (results.c). */
#define CAS__SQL_RESULT_SEATS_WHERE(which)                                          \
    "SELECT g.id, g.game_id, g.updated_at, coalesce(sg.flagged, -1),"                \
    " coalesce(sg.forfeit, 0), p.seat, p.name, p.agent, p.score, rp.name,"          \
    " CASE WHEN sg.game IS NULL THEN 0 ELSE 1 END"                                   \
    " FROM games g JOIN players p ON p.game = g.id"                                  \
    " LEFT JOIN registered_players rp ON rp.id = p.registered"                       \
    " LEFT JOIN served_games sg ON sg.game = g.id"                                   \
    " WHERE " which " ORDER BY g.id, p.seat"
/* Their expansions, by game id and resolved order. */
#define CAS__SQL_RESULT_EXPANSIONS_WHERE(which)                                     \
    "SELECT e.game, e.expansion_id FROM game_expansions e"                           \
    " JOIN games g ON g.id = e.game"                                                 \
    " WHERE " which " ORDER BY e.game, e.position"
/* Finished, last played at or after $1 (NULL: all): what ratings need. */
#define CAS__SQL_RESULT_SINCE                                                       \
    "g.status = 'finished'"                                                         \
    " AND (CAST($1 AS TEXT) IS NULL OR g.updated_at >= CAST($1 AS TEXT))"
/* The $1 served games finished last: what the server's lobby shows.  The
 * index games_finished (schema 5) finds them without reading every game,
 * and the games are then looked up by id. */
#define CAS__SQL_RESULT_RECENT_SERVED                                               \
    "g.id IN (SELECT r.id FROM games r JOIN served_games v ON v.game = r.id"          \
    " WHERE r.status = 'finished'"                                                   \
    " ORDER BY r.updated_at DESC, r.id DESC LIMIT CAST($1 AS INTEGER))"

/* ------------------------------------------------- registered players */

/* Parameters are text; ids are cast where they meet a number. */
#define CAS__SQL_REGISTERED_ADD(now)                                                \
    "INSERT INTO registered_players (name, name_key, key_hash, created_at)"         \
    " VALUES ($1, $2, $3, " now ") RETURNING id"
/* Columns: id, name, created_at, last_seen, games, key_hash. */
#define CAS__SQL_REGISTERED_COLUMNS                                                 \
    "SELECT r.id, r.name, r.created_at, r.last_seen,"                               \
    " (SELECT count(*) FROM players p WHERE p.registered = r.id), r.key_hash"       \
    " FROM registered_players r"
#define CAS__SQL_REGISTERED_BY_NAME CAS__SQL_REGISTERED_COLUMNS " WHERE r.name_key = $1"
#define CAS__SQL_REGISTERED_BY_ID                                                   \
    CAS__SQL_REGISTERED_COLUMNS " WHERE r.id = CAST($1 AS BIGINT)"
#define CAS__SQL_REGISTERED_ALL(bytewise)                                           \
    CAS__SQL_REGISTERED_COLUMNS " ORDER BY r.name_key COLLATE " bytewise
/* A registered player copied from another store (saves migrate), id and all. */
#define CAS__SQL_REGISTERED_COPY                                                    \
    "INSERT INTO registered_players (id, name, name_key, key_hash, created_at,"     \
    " last_seen) VALUES (CAST($1 AS BIGINT), $2, $3, $4, $5, $6)"
#define CAS__SQL_REGISTERED_RENAME                                                  \
    "UPDATE registered_players SET name = $2, name_key = $3 WHERE name_key = $1"
#define CAS__SQL_REGISTERED_REKEY                                                   \
    "UPDATE registered_players SET key_hash = $2 WHERE name_key = $1 RETURNING id"
#define CAS__SQL_REGISTERED_REMOVE "DELETE FROM registered_players WHERE name_key = $1"
#define CAS__SQL_REGISTERED_SEEN(now)                                               \
    "UPDATE registered_players SET last_seen = " now " WHERE id = CAST($1 AS BIGINT)"
/* Seat $2 of game $1 is registered player $3's. */
#define CAS__SQL_SEAT_REGISTER                                                      \
    "UPDATE players SET registered = CAST($3 AS BIGINT)"                            \
    " WHERE game = CAST($1 AS BIGINT) AND seat = CAST($2 AS INTEGER)"
#endif
