/*
 * token.c — the seats' invite tokens: 128 bits from the kernel's random
 * source, written in hex, and compared in time that does not depend on the
 * first difference, so a guesser learns nothing from how fast a wrong
 * token is refused.
 */
#include <errno.h>
#include <string.h>
#include <sys/random.h>

#include "server.h"

int cas__token_new(char buf[33])
{
    unsigned char bytes[16];
    size_t got = 0;
    while (got < sizeof bytes) {
        ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return CAS_EIO;
        got += (size_t)n;
    }
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof bytes; i++) {
        buf[2 * i] = hex[bytes[i] >> 4];
        buf[2 * i + 1] = hex[bytes[i] & 15];
    }
    buf[32] = '\0';
    return CAS_OK;
}

int cas__token_equal(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    unsigned char diff = la != lb;
    /* Walk the stored token's length whatever the guess's. */
    for (size_t i = 0; i < la; i++)
        diff |= (unsigned char)(a[i] ^ (i < lb ? b[i] : 0));
    return diff == 0;
}
