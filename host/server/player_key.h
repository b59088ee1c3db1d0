/*
 * player_key.h — the secret keys of registered players (docs/players.md):
 * made for `castellan players add` and `players link`, checked when a
 * browser signs in.  A key is "ID.SECRET": the player's number in the
 * store, a dot and 256 random bits in hex; the store keeps only the
 * SHA-256 of SECRET.  The number lets the server find the one row to
 * compare with, so the comparison is one constant-time compare of hashes.
 */
#ifndef CAS_HOST_PLAYER_KEY_H
#define CAS_HOST_PLAYER_KEY_H

#include <stddef.h>
#include <stdint.h>

#include "saves.h"

#define CAS__PLAYER_SECRET_LEN 64            /* hex digits */
#define CAS__PLAYER_KEY_MAX (20 + 1 + CAS__PLAYER_SECRET_LEN + 1)

/* A new secret and its SHA-256 (64 hex digits each, NUL-terminated).
 * CAS_EIO when the kernel gives no randomness. */
int cas__player_secret_new(char secret[CAS__PLAYER_SECRET_LEN + 1], char hash[65]);

/* Register `name` with a new key, or (rekey) give registered player `name`
 * a new one, the old one revoked; the key into key[CAS__PLAYER_KEY_MAX].
 * Store errors as cas__saves_registered_add / _rekey, explained in the
 * store's errmsg.  The secret is wiped from memory but for key. */
int cas__player_key_issue(struct cas__saves *s, const char *name, int rekey,
                          char key[CAS__PLAYER_KEY_MAX]);

/* The registered player whose key `key` is into *out (caller frees with
 * cas__saves_registered_free): CAS_OK; CAS_EMISMATCH for a key that is no
 * player's (malformed, replaced by `players link`, the player removed),
 * with a sentence for the browser in *why (static; it never holds the
 * key); a store failure otherwise (its errmsg, never holding the key).
 * The secret's hash is compared in constant time. */
int cas__player_key_check(struct cas__saves *s, const char *key,
                          struct cas__saves_registered *out, const char **why);

#endif
