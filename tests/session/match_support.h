/*
 * match_support.h — open a host match (host/session/match.h) of a plugin linked
 * into a test, with option overrides, failing the test on error.
 */
#ifndef CAS_TEST_MATCH_SUPPORT_H
#define CAS_TEST_MATCH_SUPPORT_H

#include "match.h"

/* Open `plugin` for nplayers with its default options, overridden by the
 * NULL-terminated "name=value" list `options` (may be NULL).  Returns
 * cas__match_open's code; err receives its explanation. */
int cas_test_match_try_open(struct cas__match *m, const struct cas_plugin *plugin, int nplayers,
                            const char *const *options, char *err, size_t errlen);

/* The same, failing the test unless it succeeds. */
void cas_test_match_open(struct cas__match *m, const struct cas_plugin *plugin, int nplayers,
                         const char *const *options);

#endif
