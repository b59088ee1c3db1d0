/*
 * picture_patch.c — the browser's handling of picture changes, for the
 * tests (see picture_patch.h).  The picture is held as its keyed
 * elements' texts in order, as the page holds them as DOM elements.
 */
#include "picture_patch.h"

#include <stdlib.h>
#include <string.h>

#include "json.h"
#include "server.h"

struct held {
    char *root;
    char **keys, **texts;
    size_t n;
};

static int hold(char *svg, struct held *h)
{
    struct cas__picture pic;
    memset(h, 0, sizeof *h);
    if (!svg) /* no picture yet: changes from nothing put every element */
        return (h->root = strdup("")) ? 0 : -1;
    cas__picture_take(&pic, svg, svg ? strlen(svg) : 0);
    if (!pic.keyed) {
        cas__picture_free(&pic);
        return -1;
    }
    const char *bytes = cas__picture_bytes(&pic);
    h->root = strndup(bytes + pic.root_at, pic.root_len);
    h->keys = calloc(pic.n + 1, sizeof *h->keys);
    h->texts = calloc(pic.n + 1, sizeof *h->texts);
    for (size_t i = 0; i < pic.n; i++) {
        h->keys[i] = strndup(bytes + pic.parts[i].key, pic.parts[i].key_len);
        h->texts[i] = strndup(bytes + pic.parts[i].at, pic.parts[i].len);
    }
    h->n = pic.n;
    cas__picture_free(&pic);
    return 0;
}

static void let_go(struct held *h)
{
    for (size_t i = 0; i < h->n; i++) {
        free(h->keys[i]);
        free(h->texts[i]);
    }
    free(h->keys);
    free(h->texts);
    free(h->root);
}

static long find(const struct held *h, const char *key)
{
    for (size_t i = 0; i < h->n; i++)
        if (strcmp(h->keys[i], key) == 0)
            return (long)i;
    return -1;
}

static void cut_out(struct held *h, size_t i)
{
    free(h->keys[i]);
    free(h->texts[i]);
    memmove(h->keys + i, h->keys + i + 1, (h->n - i - 1) * sizeof *h->keys);
    memmove(h->texts + i, h->texts + i + 1, (h->n - i - 1) * sizeof *h->texts);
    h->n--;
}

static const struct cas_json *member(const struct cas_json *obj, const char *key)
{
    for (size_t i = 0; obj && obj->type == CAS_JSON_OBJECT && i < obj->n; i++)
        if (strcmp(obj->items[i].key, key) == 0)
            return &obj->items[i];
    return NULL;
}

/* Put key's text after `after` (NULL: first), replacing it if held. */
static int put(struct held *h, const char *key, const char *after, const char *text)
{
    long at = find(h, key);
    if (at >= 0)
        cut_out(h, (size_t)at);
    size_t to = 0;
    if (after) {
        long prev = find(h, after);
        if (prev < 0)
            return -1;
        to = (size_t)prev + 1;
    }
    char **keys = realloc(h->keys, (h->n + 1) * sizeof *keys);
    char **texts = realloc(h->texts, (h->n + 1) * sizeof *texts);
    if (keys)
        h->keys = keys;
    if (texts)
        h->texts = texts;
    if (!keys || !texts)
        return -1;
    memmove(h->keys + to + 1, h->keys + to, (h->n - to) * sizeof *h->keys);
    memmove(h->texts + to + 1, h->texts + to, (h->n - to) * sizeof *h->texts);
    h->keys[to] = strdup(key);
    h->texts[to] = strdup(text);
    h->n++;
    return 0;
}

static int apply(struct held *h, const struct cas_json *changes)
{
    const struct cas_json *root = member(changes, "root"), *puts = member(changes, "put"),
                          *removes = member(changes, "remove");
    if (!puts || !removes || puts->type != CAS_JSON_ARRAY || removes->type != CAS_JSON_ARRAY)
        return -1;
    if (root) {
        free(h->root);
        h->root = strdup(root->text);
    }
    for (size_t i = 0; i < removes->n; i++) {
        long at = find(h, removes->items[i].text);
        if (at < 0)
            return -1;
        cut_out(h, (size_t)at);
    }
    for (size_t i = 0; i < puts->n; i++) {
        const struct cas_json *p = &puts->items[i];
        if (p->type != CAS_JSON_ARRAY || p->n != 3 ||
            put(h, p->items[0].text, p->items[1].type == CAS_JSON_NULL ? NULL : p->items[1].text,
                p->items[2].text))
            return -1;
    }
    return 0;
}

static char *write_out(const struct held *h)
{
    size_t len = strlen(h->root) + 8;
    for (size_t i = 0; i < h->n; i++)
        len += strlen(h->texts[i]) + 1;
    char *svg = malloc(len), *p = svg;
    if (!svg)
        return NULL;
    p = stpcpy(p, h->root);
    for (size_t i = 0; i < h->n; i++) {
        p = stpcpy(p, "\n");
        p = stpcpy(p, h->texts[i]);
    }
    stpcpy(p, "</svg>");
    return svg;
}

char *picture_patch(char *svg, const struct cas_json *changes)
{
    struct held h;
    char *out = NULL;
    if (hold(svg, &h))
        return NULL;
    if (apply(&h, changes) == 0)
        out = write_out(&h);
    let_go(&h);
    return out;
}

char *picture_patch_text(char *svg, const char *changes, size_t len)
{
    struct cas_json *doc = NULL;
    size_t line, offset;
    if (cas__json_parse(changes, len, &doc, &line, &offset) != CAS_OK) {
        free(svg);
        return NULL;
    }
    char *out = picture_patch(svg, doc);
    cas__json_free(doc);
    return out;
}

int picture_same(const char *a, const char *b)
{
    struct held x, y;
    int same = hold(strdup(a), &x) == 0;
    if (!same)
        return 0;
    if (hold(strdup(b), &y)) {
        let_go(&x);
        return 0;
    }
    same = strcmp(x.root, y.root) == 0 && x.n == y.n;
    for (size_t i = 0; same && i < x.n; i++)
        same = strcmp(x.keys[i], y.keys[i]) == 0 && strcmp(x.texts[i], y.texts[i]) == 0;
    let_go(&x);
    let_go(&y);
    return same;
}
