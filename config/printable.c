/*
 * printable.c — text that came from outside (a record's or a foreign
 * file's player names, a save's campaign) made safe to print: a terminal
 * control character in it could recolour, move or clear the user's
 * screen.  The one helper every such text goes through.
 */
#include "text.h"

#include <string.h>

char *cas__text_printable(char *text)
{
    if (!text)
        return NULL;
    unsigned char *to = (unsigned char *)text;
    for (const unsigned char *p = to; *p; p++) {
        if (*p == 0xC2 && p[1] >= 0x80 && p[1] <= 0x9F) { /* U+0080..U+009F, C1 */
            *to++ = '?';
            p++;
        } else {
            *to++ = *p < 0x20 || *p == 0x7F ? '?' : *p;
        }
    }
    *to = '\0';
    return text;
}
