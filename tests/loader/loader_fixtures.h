/*
 * loader_fixtures.h — finding the loader's fixture plugins from a cmocka
 * test: tests/plugins/loader/DIR in the build tree, one DIR per refusal.
 */
#ifndef CAS_TEST_LOADER_FIXTURES_H
#define CAS_TEST_LOADER_FIXTURES_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "registry.h"

/* $CASTELLAN_BUILD_DIR/tests/plugins/loader, without a trailing slash. */
const char *fixture_base(void);

/* Scan the fixture folders named in dirs, ':'-separated ("good:cycle"),
 * and nothing else.  Fails the test on error; free with cas__registry_free. */
struct cas__registry *scan_fixtures(const char *dirs);

/* The plugin `id` of reg; fails the test if it is missing. */
struct cas__plugin_info *fixture(struct cas__registry *reg, const char *id);

/* Assert info's refusal equals the text fmt formats (printf-style). */
void assert_refusal(const struct cas__plugin_info *info, const char *fmt, ...)
    CAS_PRINTF(2, 3);

#endif
