/*
 * match_support.c — opening host matches of test-linked plugins.
 */
#include "match_support.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

int cas_test_match_try_open(struct cas__match *m, const struct cas_plugin *plugin, int nplayers,
                            const char *const *options, char *err, size_t errlen)
{
    size_t n = 0;
    struct cas_option_value *values = cas__option_defaults(plugin, &n);
    for (size_t i = 0; i < n; i++)
        for (const char *const *o = options; o && *o; o++) {
            size_t len = strlen(values[i].name);
            if (strncmp(*o, values[i].name, len) == 0 && (*o)[len] == '=')
                values[i].value = *o + len + 1;
        }
    int rc = cas__match_open(m, plugin, "", values, n, NULL, 0, nplayers, err, errlen);
    free(values);
    return rc;
}

void cas_test_match_open(struct cas__match *m, const struct cas_plugin *plugin, int nplayers,
                         const char *const *options)
{
    char err[1024];
    if (cas_test_match_try_open(m, plugin, nplayers, options, err, sizeof err) != CAS_OK)
        fail_msg("cannot open %s: %s", plugin->id, err);
}
