/*
 * json.c — a recursive-descent JSON reader, strict per RFC 8259:
 * no trailing commas, no comments, no control characters in strings,
 * numbers without leading zeros.  Nesting is bounded so hostile input
 * cannot exhaust the stack.
 */
#include "json.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 256

struct cursor {
    const char *at, *end;
    int depth;
};

static int value(struct cursor *c);

/* A switch, not strchr: the checker skips space before every token of
 * every render it validates, and strchr's call was a fifth of its time. */
static int is_space(char ch)
{
    switch (ch) {
    case ' ': case '\t': case '\r': case '\n':
        return 1;
    default:
        return 0;
    }
}

static void skip_space(struct cursor *c)
{
    while (c->at < c->end && is_space(*c->at))
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

/* ---- The tree.  It is built only from text the check above accepted, so
 * the builder meets no syntax errors, only allocation failures. */

struct builder {
    const char *at, *end;
    size_t line;
};

static void build_skip_space(struct builder *b)
{
    while (b->at < b->end && is_space(*b->at)) {
        if (*b->at == '\n')
            b->line++;
        b->at++;
    }
}

static void put_utf8(char **out, unsigned long cp)
{
    unsigned char *o = (unsigned char *)*out;
    if (cp < 0x80) {
        *o++ = (unsigned char)cp;
    } else if (cp < 0x800) {
        *o++ = (unsigned char)(0xC0 | cp >> 6);
        *o++ = (unsigned char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *o++ = (unsigned char)(0xE0 | cp >> 12);
        *o++ = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        *o++ = (unsigned char)(0x80 | (cp & 0x3F));
    } else {
        *o++ = (unsigned char)(0xF0 | cp >> 18);
        *o++ = (unsigned char)(0x80 | (cp >> 12 & 0x3F));
        *o++ = (unsigned char)(0x80 | (cp >> 6 & 0x3F));
        *o++ = (unsigned char)(0x80 | (cp & 0x3F));
    }
    *out = (char *)o;
}

static unsigned long read_hex4(const char *p)
{
    char digits4[5] = {p[0], p[1], p[2], p[3], '\0'};
    return strtoul(digits4, NULL, 16);
}

/* Decode the string at b->at (its opening quote) into a new buffer; an
 * escape never grows the text, so its raw length bounds the result. */
static char *build_string(struct builder *b, size_t *len)
{
    const char *start = ++b->at;
    while (*b->at != '"')
        b->at += *b->at == '\\' ? 2 : 1;
    char *text = malloc((size_t)(b->at - start) + 1), *o = text;
    if (!text)
        return NULL;
    for (const char *p = start; p < b->at; p++) {
        if (*p != '\\') {
            *o++ = *p;
            continue;
        }
        char e = *++p;
        if (e != 'u') {
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            *o++ = to[strchr(from, e) - from];
            continue;
        }
        unsigned long cp = read_hex4(p + 1);
        p += 4;
        if (cp >= 0xD800 && cp < 0xDC00 && p + 6 < b->at && p[1] == '\\' && p[2] == 'u') {
            unsigned long low = read_hex4(p + 3);
            if (low >= 0xDC00 && low < 0xE000) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                p += 6;
            }
        }
        put_utf8(&o, cp);
    }
    *o = '\0';
    *len = (size_t)(o - text);
    b->at++;
    return text;
}

static int build_value(struct builder *b, const char *text, struct cas_json *v);

static int build_members(struct builder *b, const char *text, struct cas_json *v,
                         char close)
{
    size_t cap = 0;
    struct cas_json *items = NULL;
    b->at++;
    build_skip_space(b);
    while (*b->at != close) {
        if (v->n == cap) {
            size_t grown = cap ? cap * 2 : 4;
            struct cas_json *bigger = realloc(items, grown * sizeof *bigger);
            if (!bigger)
                goto free_items;
            items = bigger;
            cap = grown;
        }
        struct cas_json *item = &items[v->n];
        memset(item, 0, sizeof *item);
        v->n++;
        if (close == '}') {
            size_t key_len;
            if (!(item->key = build_string(b, &key_len)))
                goto free_items;
            build_skip_space(b);
            b->at++; /* ':' */
        }
        build_skip_space(b);
        if (build_value(b, text, item))
            goto free_items;
        build_skip_space(b);
        if (*b->at == ',') {
            b->at++;
            build_skip_space(b);
        }
    }
    b->at++;
    v->items = items;
    return CAS_OK;
free_items:
    v->items = items;
    return CAS_ENOMEM;
}

static int build_value(struct builder *b, const char *text, struct cas_json *v)
{
    v->line = b->line;
    v->offset = (size_t)(b->at - text) + 1;
    switch (*b->at) {
    case '{': v->type = CAS_JSON_OBJECT; return build_members(b, text, v, '}');
    case '[': v->type = CAS_JSON_ARRAY; return build_members(b, text, v, ']');
    case '"':
        v->type = CAS_JSON_STRING;
        return (v->text = build_string(b, &v->len)) ? CAS_OK : CAS_ENOMEM;
    case 't': v->type = CAS_JSON_TRUE; b->at += 4; return CAS_OK;
    case 'f': v->type = CAS_JSON_FALSE; b->at += 5; return CAS_OK;
    case 'n': v->type = CAS_JSON_NULL; b->at += 4; return CAS_OK;
    default: {
        const char *start = b->at;
        while (b->at < b->end && strchr("+-.0123456789eE", *b->at) && *b->at)
            b->at++;
        v->type = CAS_JSON_NUMBER;
        v->len = (size_t)(b->at - start);
        char *literal = malloc(v->len + 1);
        if (!literal)
            return CAS_ENOMEM;
        memcpy(literal, start, v->len);
        literal[v->len] = '\0';
        v->text = literal;
        return CAS_OK;
    }
    }
}

static void free_value(struct cas_json *v)
{
    for (size_t i = 0; i < v->n; i++)
        free_value((struct cas_json *)&v->items[i]);
    free((void *)v->items);
    free((void *)v->text);
    free((void *)v->key);
}

void cas__json_free(struct cas_json *root)
{
    if (!root)
        return;
    free_value(root);
    free(root);
}

int cas__json_parse(const char *text, size_t len, struct cas_json **root,
                    size_t *line, size_t *offset)
{
    *root = NULL;
    size_t bad = cas__json_object_error(text, len);
    if (bad) {
        *offset = bad;
        *line = 1;
        for (size_t i = 0; i + 1 < bad && i < len; i++)
            *line += text[i] == '\n';
        return CAS_EPARSE;
    }
    struct builder b = {text, text + len, 1};
    struct cas_json *v = calloc(1, sizeof *v);
    if (!v)
        return CAS_ENOMEM;
    build_skip_space(&b);
    if (build_value(&b, text, v)) {
        cas__json_free(v);
        return CAS_ENOMEM;
    }
    *root = v;
    return CAS_OK;
}
