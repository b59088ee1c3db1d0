/*
 * notation.c — the notation help of hosted games (GET /game/N/help.txt):
 * what each kind of action means.  It depends on the plugin, its version,
 * expansions and options and the number of players, never on the state,
 * so it is built once per such set by the first job of the first table
 * that has it (on the pool: it is a plugin call, which never runs on the
 * loop), kept in the lobby and shared by every table of the set until the
 * last of them goes.  The loop only looks it up and copies it out, held
 * table or not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

struct cas__help {
    char *key;
    char *text;                    /* NULL: the plugin has none */
    size_t len;
    unsigned refs;                 /* tables that use it */
    struct cas__help *next;        /* in the lobby's */
};

static void put(FILE *f, const char *s)
{
    s = s ? s : "";
    fprintf(f, "%zu:%s", strlen(s), s); /* length first: no two sets read alike */
}

/* What the help of t depends on, as one string; NULL on OOM. */
static char *key_of(const struct cas__table *t)
{
    char *key = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&key, &len);
    if (!f)
        return NULL;
    const struct cas__saves_game *g = &t->saved;
    put(f, g->game.id);
    put(f, g->game.version);
    for (size_t i = 0; i < g->n_expansions; i++) {
        put(f, g->expansions[i].id);
        put(f, g->expansions[i].version);
    }
    fprintf(f, "|%zu", g->n_options);
    for (size_t i = 0; i < g->n_options; i++) {
        put(f, g->options[i].key);
        put(f, g->options[i].value);
    }
    fprintf(f, "|%d", t->nplayers);
    if (fclose(f) != 0) {
        free(key);
        return NULL;
    }
    return key;
}

static struct cas__help *find(struct cas__lobby *l, const char *key)
{
    for (struct cas__help *h = l->helps; h; h = h->next)
        if (strcmp(h->key, key) == 0)
            return h;
    return NULL;
}

char *cas__help_wanted(struct cas__table *t)
{
    if (t->help)
        return NULL;
    char *key = key_of(t);
    struct cas__help *h = key ? find(t->lobby, key) : NULL;
    if (!h)
        return key;
    h->refs++;
    t->help = h;
    free(key);
    return NULL;
}

void cas__help_build(struct cas__table *t, char **text, size_t *len)
{
    *text = NULL;
    *len = 0;
    FILE *out = open_memstream(text, len);
    if (!out)
        return;
    int rc = cas__match_notation_help(&t->r.match, out);
    if (fclose(out) != 0 || rc != CAS_OK || *len == 0) {
        free(*text);
        *text = NULL;
        *len = 0;
    }
}

void cas__help_keep(struct cas__table *t, char *key, char *text, size_t len)
{
    struct cas__help *h = t->help ? NULL : find(t->lobby, key);
    if (t->help || (!h && !(h = calloc(1, sizeof *h)))) {
        free(key);
        free(text);
        return;
    }
    if (!h->key) {
        h->key = key;
        h->text = text;
        h->len = len;
        h->next = t->lobby->helps;
        t->lobby->helps = h;
    } else { /* another table of the set built it meanwhile */
        free(key);
        free(text);
    }
    h->refs++;
    t->help = h;
}

int cas__help_ready(const struct cas__table *t)
{
    return t->help != NULL;
}

char *cas__help_copy(const struct cas__table *t, size_t *len)
{
    if (!t->help || !t->help->text)
        return NULL;
    char *copy = malloc(t->help->len);
    if (copy) {
        memcpy(copy, t->help->text, t->help->len);
        *len = t->help->len;
    }
    return copy;
}

void cas__help_release(struct cas__table *t)
{
    struct cas__help *h = t->help;
    t->help = NULL;
    if (!h || --h->refs > 0)
        return;
    for (struct cas__help **p = &t->lobby->helps; *p; p = &(*p)->next)
        if (*p == h) {
            *p = h->next;
            break;
        }
    free(h->key);
    free(h->text);
    free(h);
}
