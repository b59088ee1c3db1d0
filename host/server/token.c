/*
 * token.c — the seats' invite tokens: 128 bits from the kernel's random
 * source, written in hex.  The server keeps only a token's SHA-256
 * (docs/server.md, "What is stored"): a token is checked by hashing what
 * the client presents and comparing the hashes in time that does not
 * depend on the first difference, so neither the store nor the timing of a
 * refusal tells anyone a token.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "server.h"

static const char hex[] = "0123456789abcdef";

static void to_hex(const unsigned char *bytes, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hex[bytes[i] >> 4];
        out[2 * i + 1] = hex[bytes[i] & 15];
    }
    out[2 * n] = '\0';
}

int cas__random_hex(char *buf, size_t n_bytes)
{
    unsigned char bytes[64];
    size_t got = 0;
    if (n_bytes > sizeof bytes)
        return CAS_EINVAL;
    while (got < n_bytes) {
        ssize_t n = getrandom(bytes + got, n_bytes - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return CAS_EIO;
        got += (size_t)n;
    }
    to_hex(bytes, n_bytes, buf);
    OPENSSL_cleanse(bytes, sizeof bytes);
    return CAS_OK;
}

int cas__token_new(char buf[CAS__TOKEN_LEN + 1])
{
    return cas__random_hex(buf, CAS__TOKEN_LEN / 2);
}

int cas__sha256_hex(const char *text, char out[CAS__HASH_LEN + 1])
{
    unsigned char digest[32];
    unsigned int len = 0;
    if (!EVP_Digest(text, strlen(text), digest, &len, EVP_sha256(), NULL) ||
        len != sizeof digest)
        return CAS_ENOMEM;
    to_hex(digest, sizeof digest, out);
    return CAS_OK;
}

int cas__token_matches(const char *hash, const char *presented)
{
    char got[CAS__HASH_LEN + 1];
    if (!presented || strlen(hash) != CAS__HASH_LEN ||
        cas__sha256_hex(presented, got) != CAS_OK)
        return 0;
    return CRYPTO_memcmp(hash, got, CAS__HASH_LEN) == 0;
}

void cas__invites_free(struct cas__invites *inv)
{
    if (inv->token)
        OPENSSL_cleanse(inv->token, inv->n * sizeof *inv->token);
    free(inv->token);
    inv->token = NULL;
    inv->n = 0;
}

int cas__invites_mint(struct cas__invites *inv, size_t n, struct cas__saves_served *served)
{
    char hash[CAS__HASH_LEN + 1];
    memset(inv, 0, sizeof *inv);
    inv->token = calloc(n ? n : 1, sizeof *inv->token);
    served->seats = calloc(n ? n : 1, sizeof *served->seats);
    int rc = inv->token && served->seats ? CAS_OK : CAS_ENOMEM;
    inv->n = inv->token ? n : 0;
    served->n_seats = served->seats ? n : 0;
    for (size_t i = 0; rc == CAS_OK && i < n; i++)
        if ((rc = cas__token_new(inv->token[i])) == CAS_OK &&
            (rc = cas__sha256_hex(inv->token[i], hash)) == CAS_OK &&
            !(served->seats[i].token = strdup(hash)))
            rc = CAS_ENOMEM;
    if (rc) {
        cas__invites_free(inv);
        cas__saves_served_free(served);
    }
    return rc;
}
