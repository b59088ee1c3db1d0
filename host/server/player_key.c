/*
 * player_key.c — registered players' keys: issued by the CLI, checked by
 * the server when a browser signs in (player_key.h).  Keys are 256 random
 * bits, not passwords a person chose, so one SHA-256 is as strong as a slow
 * password hash would be here and costs the event loop nothing.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "player_key.h"
#include "server.h"

int cas__player_secret_new(char secret[CAS__PLAYER_SECRET_LEN + 1], char hash[65])
{
    int rc = cas__random_hex(secret, CAS__PLAYER_SECRET_LEN / 2);
    return rc ? rc : cas__sha256_hex(secret, hash);
}

int cas__player_key_issue(struct cas__saves *s, const char *name, int rekey,
                          char key[CAS__PLAYER_KEY_MAX])
{
    char secret[CAS__PLAYER_SECRET_LEN + 1], hash[CAS__HASH_LEN + 1];
    int64_t id = 0;
    int rc = cas__player_secret_new(secret, hash);
    if (rc)
        return cas__saves_explain(s, rc, "the kernel gave no random bytes for the key; "
                                         "try again");
    rc = rekey ? cas__saves_registered_rekey(s, name, hash, &id)
               : cas__saves_registered_add(s, name, hash, &id);
    if (rc == CAS_OK)
        snprintf(key, CAS__PLAYER_KEY_MAX, "%" PRId64 ".%s", id, secret);
    OPENSSL_cleanse(secret, sizeof secret);
    return rc;
}

/* "ID.SECRET" with ID a positive number and SECRET 64 lowercase hex digits. */
static int parse(const char *key, int64_t *id, const char **secret)
{
    const char *dot = key ? strchr(key, '.') : NULL;
    if (!dot || dot == key || dot - key > 18)
        return 0;
    for (const char *p = key; p < dot; p++)
        if (*p < '0' || *p > '9')
            return 0;
    if (strlen(dot + 1) != CAS__PLAYER_SECRET_LEN)
        return 0;
    for (const char *p = dot + 1; *p; p++)
        if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f')))
            return 0;
    *id = strtoll(key, NULL, 10);
    *secret = dot + 1;
    return *id > 0;
}

int cas__player_key_check(struct cas__saves *s, const char *key,
                          struct cas__saves_registered *out, const char **why)
{
    int64_t id;
    const char *secret;
    memset(out, 0, sizeof *out);
    if (!parse(key, &id, &secret)) {
        *why = "this sign-in key is not one castellan makes (the link may be cut short): "
               "open the whole link again, or ask the server's owner for a new one";
        return CAS_EMISMATCH;
    }
    int rc = cas__saves_registered_get(s, id, out);
    /* The secret is hashed whether or not the number is a player's, so the
     * time of a refusal does not tell which numbers are. */
    static const char nobody[] =
        "0000000000000000000000000000000000000000000000000000000000000000";
    int matches = cas__token_matches(rc == CAS_OK ? out->key_hash : nobody, secret);
    if (rc == CAS_OK && matches)
        return CAS_OK;
    cas__saves_registered_free(out);
    if (rc != CAS_OK && rc != CAS_ENOTFOUND)
        return rc;
    *why = "this sign-in key no longer works: it was replaced by a new one, or the "
           "player was removed; ask the server's owner for a new link";
    return CAS_EMISMATCH;
}
