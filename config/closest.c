/*
 * closest.c — "did you mean" suggestions: every unknown name in a manifest,
 * a session file or on the command line is answered with the closest valid
 * one.
 */
#include <stdio.h>
#include <string.h>

#include "text.h"

#define MAX_NAME 128 /* longer names are compared on their first 128 bytes */

/* Optimal string alignment distance, three rolling rows. */
size_t cas__edit_distance(const char *a, const char *b)
{
    size_t n = strnlen(a, MAX_NAME), m = strnlen(b, MAX_NAME);
    size_t rows[3][MAX_NAME + 1];
    size_t *two_back = rows[0], *prev = rows[1], *cur = rows[2];
    for (size_t j = 0; j <= m; j++)
        prev[j] = j;
    for (size_t i = 1; i <= n; i++) {
        cur[0] = i;
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t best = prev[j - 1] + cost;
            if (prev[j] + 1 < best)
                best = prev[j] + 1;
            if (cur[j - 1] + 1 < best)
                best = cur[j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
                two_back[j - 2] + 1 < best)
                best = two_back[j - 2] + 1;
            cur[j] = best;
        }
        size_t *spare = two_back;
        two_back = prev;
        prev = cur;
        cur = spare;
    }
    return prev[m];
}

int cas__is_near(const char *name, const char *candidate, size_t distance)
{
    size_t a = strnlen(name, MAX_NAME), b = strnlen(candidate, MAX_NAME);
    size_t shorter = a < b ? a : b, longer = a < b ? b : a;
    if (shorter >= 3 && strncmp(name, candidate, shorter) == 0)
        return 1; /* one begins the other: "greedy+tree", "greedy" */
    return distance * 3 <= longer + 3; /* about a third of the letters differ */
}

const char *cas__closest(const char *name, const char *const *candidates, size_t n)
{
    const char *best = NULL;
    size_t best_distance = (size_t)-1;
    for (size_t i = 0; i < n; i++) {
        size_t d = cas__edit_distance(name, candidates[i]);
        if (d < best_distance) {
            best = candidates[i];
            best_distance = d;
        }
    }
    return best && cas__is_near(name, best, best_distance) ? best : NULL;
}

const char *cas__closest_note(char *buf, size_t cap, const char *name,
                              const char *const *candidates, size_t n)
{
    const char *closest = cas__closest(name, candidates, n);
    snprintf(buf, cap, "%s%s%s", closest ? " (closest: " : "", closest ? closest : "",
             closest ? ")" : "");
    return buf;
}

int cas__is_plugin_id(const char *text)
{
    size_t len = strlen(text);
    if (len == 0 || len > 63 || text[0] < 'a' || text[0] > 'z')
        return 0;
    return strspn(text, "abcdefghijklmnopqrstuvwxyz0123456789-") == len;
}
