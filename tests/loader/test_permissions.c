/*
 * test_permissions.c — a plugin whose folder, manifest, library or data
 * folder others may write is refused before it is ever opened.  Works on a
 * copy of the good fixture game so the build tree keeps its modes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loader_fixtures.h"

struct copy {
    char root[1024];   /* the plugin-path folder */
    char plugin[2048]; /* root/fixgame */
    char ini[4096], so[4096], data[4096];
};

static void copy_file(const char *from, const char *to)
{
    FILE *in = fopen(from, "rb"), *out = fopen(to, "wb");
    assert_non_null(in);
    assert_non_null(out);
    char buf[8192];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        assert_int_equal(fwrite(buf, 1, n, out), n);
    fclose(in);
    assert_int_equal(fclose(out), 0);
    assert_int_equal(chmod(to, 0644), 0);
}

static int make_copy(void **state)
{
    struct copy *c = calloc(1, sizeof *c);
    snprintf(c->root, sizeof c->root, "%s/tests/loader-perm-XXXXXX",
             getenv("CASTELLAN_BUILD_DIR"));
    if (!mkdtemp(c->root))
        return -1;
    snprintf(c->plugin, sizeof c->plugin, "%s/fixgame", c->root);
    snprintf(c->ini, sizeof c->ini, "%s/fixgame.ini", c->plugin);
    snprintf(c->so, sizeof c->so, "%s/fixgame.so", c->plugin);
    snprintf(c->data, sizeof c->data, "%s/data", c->plugin);
    if (mkdir(c->plugin, 0755) || mkdir(c->data, 0755))
        return -1;
    char from[4096];
    snprintf(from, sizeof from, "%s/good/fixgame/fixgame.ini", fixture_base());
    copy_file(from, c->ini);
    snprintf(from, sizeof from, "%s/good/fixgame/fixgame.so", fixture_base());
    copy_file(from, c->so);
    *state = c;
    return 0;
}

static int remove_copy(void **state)
{
    struct copy *c = *state;
    unlink(c->ini);
    unlink(c->so);
    rmdir(c->data);
    rmdir(c->plugin);
    rmdir(c->root);
    free(c);
    return 0;
}

static struct cas__registry *scan_copy(const struct copy *c)
{
    struct cas__strlist path = {.items = (char *[]){(char *)c->root}, .count = 1};
    struct cas__registry *reg = NULL;
    assert_int_equal(cas__registry_scan(&path, &reg), CAS_OK);
    assert_int_equal(cas__registry_count(reg), 1);
    return reg;
}

/* With `path` at `mode` the copy is refused naming that path and mode;
 * then path goes back to `restore`. */
static void expect_refused_at(const struct copy *c, const char *path, mode_t mode,
                              const char *mode_text, mode_t restore)
{
    assert_int_equal(chmod(path, mode), 0);
    struct cas__registry *reg = scan_copy(c);
    struct cas__plugin_info *info = fixture(reg, "fixgame");
    assert_refusal(info,
                   "%s: writable by group or others (mode %s), so anyone could replace "
                   "plugin code; run chmod go-w %s",
                   path, mode_text, path);
    assert_int_equal(cas__registry_load(reg, info), CAS_EMISMATCH);
    assert_null(info->dl);
    cas__registry_free(reg);
    assert_int_equal(chmod(path, restore), 0);
}

static void test_private_copy_loads(void **state)
{
    struct copy *c = *state;
    struct cas__registry *reg = scan_copy(c);
    struct cas__plugin_info *info = fixture(reg, "fixgame");
    assert_null(info->refusal);
    assert_int_equal(cas__registry_load(reg, info), CAS_OK);
    cas__registry_free(reg);
}

static void test_writable_library(void **state)
{
    struct copy *c = *state;
    expect_refused_at(c, c->so, 0664, "0664", 0644);
    expect_refused_at(c, c->so, 0646, "0646", 0644);
}

static void test_writable_manifest(void **state)
{
    struct copy *c = *state;
    expect_refused_at(c, c->ini, 0666, "0666", 0644);
}

static void test_writable_folders(void **state)
{
    struct copy *c = *state;
    expect_refused_at(c, c->plugin, 0777, "0777", 0755);
    expect_refused_at(c, c->data, 0775, "0775", 0755);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_private_copy_loads, make_copy, remove_copy),
        cmocka_unit_test_setup_teardown(test_writable_library, make_copy, remove_copy),
        cmocka_unit_test_setup_teardown(test_writable_manifest, make_copy, remove_copy),
        cmocka_unit_test_setup_teardown(test_writable_folders, make_copy, remove_copy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
