/*
 * strlist.c — growable lists of owned strings: plugin search paths and the
 * comma-separated id lists of manifests and session files.
 */
#include <stdlib.h>
#include <string.h>

#include "text.h"

int cas__strlist_push_n(struct cas__strlist *list, const char *text, size_t len)
{
    char *copy = malloc(len + 1);
    if (!copy)
        return CAS_ENOMEM;
    memcpy(copy, text, len);
    copy[len] = '\0';
    char **items = realloc(list->items, (list->count + 1) * sizeof *items);
    if (!items) {
        free(copy);
        return CAS_ENOMEM;
    }
    items[list->count++] = copy;
    list->items = items;
    return CAS_OK;
}

int cas__strlist_push(struct cas__strlist *list, const char *text)
{
    return cas__strlist_push_n(list, text, strlen(text));
}

int cas__strlist_index(const struct cas__strlist *list, const char *text)
{
    for (size_t i = 0; i < list->count; i++)
        if (strcmp(list->items[i], text) == 0)
            return (int)i;
    return -1;
}

static int is_blank(char c)
{
    return c == ' ' || c == '\t';
}

int cas__strlist_split(struct cas__strlist *list, const char *text, char sep)
{
    const char *p = text;
    while (is_blank(*p))
        p++;
    if (*p == '\0')
        return CAS_OK;
    for (;;) {
        const char *end = strchr(p, sep);
        const char *stop = end ? end : p + strlen(p);
        const char *first = p, *last = stop;
        while (first < last && is_blank(*first))
            first++;
        while (last > first && is_blank(last[-1]))
            last--;
        if (first == last)
            return CAS_EPARSE;
        int rc = cas__strlist_push_n(list, first, (size_t)(last - first));
        if (rc)
            return rc;
        if (!end)
            return CAS_OK;
        p = end + 1;
    }
}

void cas__strlist_free(struct cas__strlist *list)
{
    for (size_t i = 0; i < list->count; i++)
        free(list->items[i]);
    free(list->items);
    list->items = NULL;
    list->count = 0;
}
