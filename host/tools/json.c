/*
 * json.c — a recursive-descent JSON syntax check, strict per RFC 8259:
 * no trailing commas, no comments, no control characters in strings,
 * numbers without leading zeros.  Nesting is bounded so hostile input
 * cannot exhaust the stack.
 */
#include "json.h"

#include <string.h>

#define MAX_DEPTH 256

struct cursor {
    const char *at, *end;
    int depth;
};

static int value(struct cursor *c);

static void skip_space(struct cursor *c)
{
    while (c->at < c->end && strchr(" \t\r\n", *c->at) && *c->at)
        c->at++;
}

static int eat(struct cursor *c, char ch)
{
    skip_space(c);
    if (c->at < c->end && *c->at == ch) {
        c->at++;
        return 1;
    }
    return 0;
}

static int is_digit(struct cursor *c)
{
    return c->at < c->end && *c->at >= '0' && *c->at <= '9';
}

static int hex4(struct cursor *c)
{
    for (int i = 0; i < 4; i++, c->at++)
        if (c->at >= c->end || !strchr("0123456789abcdefABCDEF", *c->at) || !*c->at)
            return 0;
    return 1;
}

static int string(struct cursor *c)
{
    if (!eat(c, '"'))
        return 0;
    while (c->at < c->end && *c->at != '"') {
        unsigned char ch = (unsigned char)*c->at;
        if (ch < 0x20)
            return 0;
        c->at++;
        if (ch != '\\')
            continue;
        if (c->at >= c->end)
            return 0;
        char escape = *c->at++;
        if (escape == 'u' ? !hex4(c) : !strchr("\"\\/bfnrt", escape) || !escape)
            return 0;
    }
    return eat(c, '"');
}

static void digits(struct cursor *c)
{
    while (is_digit(c))
        c->at++;
}

static int number(struct cursor *c)
{
    if (c->at < c->end && *c->at == '-')
        c->at++;
    if (!is_digit(c))
        return 0;
    if (*c->at++ != '0')
        digits(c);
    if (c->at < c->end && *c->at == '.') {
        c->at++;
        if (!is_digit(c))
            return 0;
        digits(c);
    }
    if (c->at < c->end && (*c->at == 'e' || *c->at == 'E')) {
        c->at++;
        if (c->at < c->end && (*c->at == '+' || *c->at == '-'))
            c->at++;
        if (!is_digit(c))
            return 0;
        digits(c);
    }
    return 1;
}

static int word(struct cursor *c, const char *w)
{
    size_t len = strlen(w);
    if ((size_t)(c->end - c->at) < len || memcmp(c->at, w, len) != 0)
        return 0;
    c->at += len;
    return 1;
}

/* The members of an object or the elements of an array, after its opening
 * bracket, up to and including `close`. */
static int members(struct cursor *c, char close, int keyed)
{
    if (++c->depth > MAX_DEPTH)
        return 0;
    if (eat(c, close)) {
        c->depth--;
        return 1;
    }
    do {
        if (keyed && (!string(c) || !eat(c, ':')))
            return 0;
        if (!value(c))
            return 0;
    } while (eat(c, ','));
    c->depth--;
    return eat(c, close);
}

static int value(struct cursor *c)
{
    skip_space(c);
    if (c->at >= c->end)
        return 0;
    switch (*c->at) {
    case '{': c->at++; return members(c, '}', 1);
    case '[': c->at++; return members(c, ']', 0);
    case '"': return string(c);
    case 't': return word(c, "true");
    case 'f': return word(c, "false");
    case 'n': return word(c, "null");
    default: return number(c);
    }
}

size_t cas__json_object_error(const char *text, size_t len)
{
    struct cursor c = {text, text + len, 0};
    skip_space(&c);
    int ok = c.at < c.end && *c.at == '{' && value(&c);
    if (ok) {
        skip_space(&c);
        ok = c.at == c.end;
    }
    return ok ? 0 : (size_t)(c.at - text) + 1;
}
