/*
 * test_permissions.c — a plugin whose folder, manifest, library or data
 * others may write or own, whose plugin-path folder others may write (or
 * anyone may replace), or with a symbolic link out of its folder, is
 * refused before it is ever opened.  Works on a copy of the good fixture
 * game so the build tree keeps its modes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "loader_fixtures.h"

struct copy {
    char root[1024];   /* holds the plugin-path folder */
    char path[1536];   /* the plugin-path folder, root/path */
    char plugin[2048]; /* path/fixgame */
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
    snprintf(c->path, sizeof c->path, "%s/path", c->root);
    snprintf(c->plugin, sizeof c->plugin, "%s/fixgame", c->path);
    snprintf(c->ini, sizeof c->ini, "%s/fixgame.ini", c->plugin);
    snprintf(c->so, sizeof c->so, "%s/fixgame.so", c->plugin);
    snprintf(c->data, sizeof c->data, "%s/data", c->plugin);
    if (chmod(c->root, 0755) || mkdir(c->path, 0755) || mkdir(c->plugin, 0755) ||
        mkdir(c->data, 0755))
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
    rmdir(c->path);
    rmdir(c->root);
    free(c);
    return 0;
}

static struct cas__registry *scan_copy(const struct copy *c)
{
    struct cas__strlist path = {.items = (char *[]){(char *)c->path}, .count = 1};
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

/* The copy is accepted and loads. */
static void expect_loads(const struct copy *c)
{
    struct cas__registry *reg = scan_copy(c);
    struct cas__plugin_info *info = fixture(reg, "fixgame");
    assert_null(info->refusal);
    assert_int_equal(cas__registry_load(reg, info), CAS_OK);
    cas__registry_free(reg);
}

static void test_private_copy_loads(void **state)
{
    expect_loads(*state);
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

/* The copy is refused with exactly this refusal, and never loaded. */
static void expect_refusal(const struct copy *c, const char *refusal)
{
    struct cas__registry *reg = scan_copy(c);
    struct cas__plugin_info *info = fixture(reg, "fixgame");
    assert_refusal(info, "%s", refusal);
    assert_int_equal(cas__registry_load(reg, info), CAS_EMISMATCH);
    assert_null(info->dl);
    cas__registry_free(reg);
}

/* The plugin-path folder others may write: anyone could add a plugin;
 * above it, a folder everyone may write: anyone could swap the folder. */
static void test_writable_plugin_path(void **state)
{
    struct copy *c = *state;
    char refusal[8192];
    assert_int_equal(chmod(c->path, 0777), 0);
    snprintf(refusal, sizeof refusal, "%s: the plugin path folder is writable by group or "
             "others (mode 0777), so anyone could replace plugin code; run chmod go-w %s",
             c->path, c->path);
    expect_refusal(c, refusal);
    assert_int_equal(chmod(c->path, 0755), 0);
    assert_int_equal(chmod(c->root, 0777), 0);
    snprintf(refusal, sizeof refusal, "%s: writable by everyone (mode 0777) above the "
             "plugin path folder %s, so anyone could put another folder in its place; run "
             "chmod go-w %s", c->root, c->path, c->root);
    expect_refusal(c, refusal);
    /* D8: a group may swap it as well as everyone */
    assert_int_equal(chmod(c->root, 0775), 0);
    snprintf(refusal, sizeof refusal, "%s: writable by its group (mode 0775) above the "
             "plugin path folder %s, so its group could put another folder in its place; "
             "run chmod go-w %s", c->root, c->path, c->root);
    expect_refusal(c, refusal);
    assert_int_equal(chmod(c->root, 01777), 0); /* sticky, as /tmp: nobody may swap it */
    expect_loads(c);
    assert_int_equal(chmod(c->root, 0755), 0);
}

/* Owned by another user (only root can make such a file to test with). */
static void test_owned_by_another_user(void **state)
{
    struct copy *c = *state;
    char refusal[8192];
    if (geteuid() != 0)
        skip();
    const char *const paths[] = {c->so, c->ini, c->plugin, c->data};
    for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++) {
        assert_int_equal(chown(paths[i], 65534, 65534), 0);
        snprintf(refusal, sizeof refusal, "%s: owned by user 65534, neither root nor the "
                 "user castellan runs as (0), so that user could replace plugin code; "
                 "remove it, or chown it once you trust it", paths[i]);
        expect_refusal(c, refusal);
        assert_int_equal(chown(paths[i], 0, 0), 0);
    }
    assert_int_equal(chown(c->path, 65534, 65534), 0);
    snprintf(refusal, sizeof refusal, "%s: the plugin path folder is owned by user 65534, "
             "neither root nor the user castellan runs as (0), so that user could replace "
             "plugin code; remove it, or chown it once you trust it", c->path);
    expect_refusal(c, refusal);
    assert_int_equal(chown(c->path, 0, 0), 0);
    /* D8: a folder above, owned by another user, could be swapped by them */
    assert_int_equal(chown(c->root, 65534, 65534), 0);
    snprintf(refusal, sizeof refusal, "%s: owned by user 65534, neither root nor the user "
             "castellan runs as (0), above the plugin path folder %s, so that user could "
             "put another folder in its place; move the plugins elsewhere", c->root,
             c->path);
    expect_refusal(c, refusal);
    assert_int_equal(chown(c->root, 0, 0), 0);
}

/* D6: a FIFO named ID.so is refused at once, not opened and waited on. */
static void test_fifo_library(void **state)
{
    struct copy *c = *state;
    char refusal[8192];
    assert_int_equal(unlink(c->so), 0);
    assert_int_equal(mkfifo(c->so, 0644), 0);
    snprintf(refusal, sizeof refusal, "%s: not a regular file; build or install the "
             "plugin's library there", c->so);
    struct cas__registry *reg = scan_copy(c);
    struct cas__plugin_info *info = fixture(reg, "fixgame");
    assert_int_equal(cas__registry_load(reg, info), CAS_EMISMATCH);
    assert_refusal(info, "%s", refusal);
    cas__registry_free(reg);
}

/* A symbolic link inside the folder is followed; one that leaves it is
 * refused, in the data too. */
static void test_links_stay_in_the_plugin_folder(void **state)
{
    struct copy *c = *state;
    char moved[4200], outside[4200], link_in_data[4200], refusal[16384];
    snprintf(moved, sizeof moved, "%s/real.so", c->plugin);
    assert_int_equal(rename(c->so, moved), 0);
    assert_int_equal(symlink("real.so", c->so), 0);
    expect_loads(c);

    snprintf(outside, sizeof outside, "%s/elsewhere.ini", c->root);
    assert_int_equal(rename(c->ini, outside), 0);
    assert_int_equal(symlink(outside, c->ini), 0);
    snprintf(refusal, sizeof refusal, "%s: a symbolic link to %s, outside the plugin "
             "folder %s; put the file itself in the folder", c->ini, outside, c->plugin);
    expect_refusal(c, refusal);
    assert_int_equal(unlink(c->ini), 0);
    assert_int_equal(rename(outside, c->ini), 0);

    snprintf(link_in_data, sizeof link_in_data, "%s/tiles.txt", c->data);
    assert_int_equal(symlink("/etc/passwd", link_in_data), 0);
    snprintf(refusal, sizeof refusal, "%s: a symbolic link to /etc/passwd, outside the "
             "plugin folder %s; put the file itself in the folder", link_in_data, c->plugin);
    expect_refusal(c, refusal);
    assert_int_equal(unlink(link_in_data), 0);
    assert_int_equal(unlink(c->so), 0);
    assert_int_equal(rename(moved, c->so), 0);
}

/* Issue 41, item 8: a data folder nests at most 8 folders deep, every
 * file in it checked; one 10 deep is refused (before, its deepest files
 * went unchecked), one 8 deep loads. */
static void test_data_tree_depth_is_bounded(void **state)
{
    struct copy *c = *state;
    char dirs[10][4200];
    for (int i = 0; i < 10; i++) {
        snprintf(dirs[i], sizeof dirs[i], "%s/%d", i ? dirs[i - 1] : c->data, i + 1);
        assert_int_equal(mkdir(dirs[i], 0755), 0);
    }
    struct cas__registry *reg = scan_copy(c);
    assert_refusal(fixture(reg, "fixgame"),
                   "%s: a folder 9 levels below the data folder, deeper than the 8 "
                   "castellan checks; keep the plugin's data at most 8 folders deep",
                   dirs[8]);
    cas__registry_free(reg);
    for (int i = 9; i >= 8; i--)
        assert_int_equal(rmdir(dirs[i]), 0);
    expect_loads(c);
    for (int i = 7; i >= 0; i--)
        assert_int_equal(rmdir(dirs[i]), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_private_copy_loads, make_copy, remove_copy),
        cmocka_unit_test_setup_teardown(test_data_tree_depth_is_bounded, make_copy,
                                        remove_copy),
        cmocka_unit_test_setup_teardown(test_writable_library, make_copy, remove_copy),
        cmocka_unit_test_setup_teardown(test_writable_manifest, make_copy, remove_copy),
        cmocka_unit_test_setup_teardown(test_writable_folders, make_copy, remove_copy),
        cmocka_unit_test_setup_teardown(test_writable_plugin_path, make_copy, remove_copy),
        cmocka_unit_test_setup_teardown(test_owned_by_another_user, make_copy, remove_copy),
        cmocka_unit_test_setup_teardown(test_fifo_library, make_copy, remove_copy),
        cmocka_unit_test_setup_teardown(test_links_stay_in_the_plugin_folder, make_copy,
                                        remove_copy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
