/*
 * loader_fixtures.c — see loader_fixtures.h.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader_fixtures.h"
#include "text.h"

const char *fixture_base(void)
{
    static char base[1024];
    const char *build = getenv("CASTELLAN_BUILD_DIR");
    assert_non_null(build);
    snprintf(base, sizeof base, "%s/tests/plugins/loader", build);
    return base;
}

struct cas__registry *scan_fixtures(const char *dirs)
{
    struct cas__strlist names = {0}, path = {0};
    assert_int_equal(cas__strlist_split(&names, dirs, ':'), CAS_OK);
    for (size_t i = 0; i < names.count; i++) {
        char folder[4096];
        snprintf(folder, sizeof folder, "%s/%s", fixture_base(), names.items[i]);
        assert_int_equal(cas__strlist_push(&path, folder), CAS_OK);
    }
    struct cas__registry *reg = NULL;
    assert_int_equal(cas__registry_scan(&path, &reg), CAS_OK);
    cas__registry_foreign_in_process(reg, 1); /* loaded here, to be looked at */
    cas__strlist_free(&names);
    cas__strlist_free(&path);
    return reg;
}

struct cas__plugin_info *fixture(struct cas__registry *reg, const char *id)
{
    struct cas__plugin_info *info = cas__registry_find(reg, id);
    if (!info)
        fail_msg("fixture plugin %s not found under %s", id, fixture_base());
    return info;
}

void assert_refusal(const struct cas__plugin_info *info, const char *fmt, ...)
{
    char expected[2048];
    va_list args;
    va_start(args, fmt);
    vsnprintf(expected, sizeof expected, fmt, args);
    va_end(args);
    if (!info->refusal)
        fail_msg("%s was accepted; expected refusal:\n%s", info->manifest_path, expected);
    assert_string_equal(info->refusal, expected);
}
