/*
 * errtext.c — writing a one-line explanation into a caller's buffer, the
 * way every loader and config function reports what went wrong.
 */
#include <stdarg.h>
#include <stdio.h>

#include "text.h"

int cas__errorf(char *err, size_t errlen, int code, const char *fmt, ...)
{
    if (err && errlen) {
        va_list args;
        va_start(args, fmt);
        vsnprintf(err, errlen, fmt, args);
        va_end(args);
    }
    return code;
}
