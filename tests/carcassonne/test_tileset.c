/*
 * test_tileset.c — the tile-set format and parser: the base set's totals
 * against the tile reference, the shapes every expansion needs, feature
 * names in every rotation, and errors that name file:line and the fix.
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "carc.h"
#include "plugin_harness.h"

static char last_error[512];

static void keep_error(void *ctx, const char *m)
{
    (void)ctx;
    snprintf(last_error, sizeof last_error, "%s", m);
}
static void *t_alloc(void *ctx, size_t n) { (void)ctx; return malloc(n); }
static void *t_realloc(void *ctx, void *p, size_t n) { (void)ctx; return realloc(p, n); }
static void t_release(void *ctx, void *p) { (void)ctx; free(p); }

static const struct cas_host host = {
    .struct_size = sizeof(struct cas_host), .set_error = keep_error,
    .alloc = t_alloc, .realloc = t_realloc, .release = t_release};

static char attrs[6][16] = {"coat", "inn", "cathedral", "wine", "grain", "cloth"};

static int parse(const char *path, struct carc_kind **kinds, int *n, int *start)
{
    *kinds = NULL;
    *n = 0;
    *start = -1;
    last_error[0] = '\0';
    int rc = cas__carc_parse_tileset(&host, path, kinds, n, attrs, 6, start);
    if (rc == CAS_OK)
        cas__carc_prepare_rotations(*kinds, *n);
    return rc;
}

/* Parse the tile set at `rel` under the source tree, failing the test on
 * any error; the caller frees the returned kinds. */
static struct carc_kind *parse_source(const char *rel, int *n, int *start)
{
    char path[1024];
    const char *src = getenv("CASTELLAN_SOURCE_DIR");
    snprintf(path, sizeof path, "%s/%s", src ? src : ".", rel);
    struct carc_kind *k;
    if (parse(path, &k, n, start) != CAS_OK)
        fail_msg("%s: %s", path, last_error);
    return k;
}

static const struct carc_kind *kind(const struct carc_kind *k, int n, const char *id)
{
    for (int i = 0; i < n; i++)
        if (strcmp(k[i].id, id) == 0)
            return &k[i];
    fail_msg("no tile %s", id);
    return NULL;
}

/* reference §1.2: 72 tiles, 24 kinds, 6 monasteries, 10 coats; features
 * city 49, road 62, field 126; edges city 79, road 94, field 115 */
static void test_base_totals(void **unused)
{
    (void)unused;
    int n, start;
    struct carc_kind *k = parse_source("plugins/carcassonne/data/base.tiles", &n, &start);
    int tiles = 0, cls[5] = {0}, coats = 0, edges[6] = {0};
    for (int i = 0; i < n; i++) {
        tiles += k[i].count;
        for (int f = 0; f < k[i].nf; f++) {
            cls[k[i].f[f].cls] += k[i].count;
            coats += k[i].count * k[i].f[f].attr[0];
        }
        for (int b = 0; b < 4; b++)
            edges[k[i].rot[0].edge[0][b]] += k[i].count;
    }
    assert_int_equal(n, 24);
    assert_string_equal(k[start].id, "D");
    assert_int_equal(tiles, 72);
    assert_int_equal(cls[CAS_CARC_CITY], 49);
    assert_int_equal(cls[CAS_CARC_ROAD], 62);
    assert_int_equal(cls[CAS_CARC_FIELD], 126);
    assert_int_equal(cls[CAS_CARC_CLOISTER], 6);
    assert_int_equal(coats, 10);
    assert_int_equal(edges[EDGE_CITY], 79);
    assert_int_equal(edges[EDGE_ROAD], 94);
    assert_int_equal(edges[EDGE_FIELD], 115);
    /* names in board orientation: D turned 90 degrees clockwise */
    const struct carc_kind *d = kind(k, n, "D");
    assert_string_equal(d->rot[1].ftext[0], "city E");
    assert_string_equal(d->rot[1].ftext[1], "road N+S");
    assert_string_equal(d->rot[1].ftext[2], "field Ne+Se");
    assert_string_equal(d->rot[1].ftext[3], "field Nw+Sw+Ws+Wn");
    free(k);
}

static void test_expansion_shapes(void **unused)
{
    (void)unused;
    int n, start;
    struct carc_kind *k = parse_source("tests/carcassonne/data/shapes.tiles", &n, &start);
    assert_string_equal(k[start].id, "IC-14");
    assert_int_equal(kind(k, n, "IC-1")->f[0].attr[2], 1);        /* cathedral */
    const struct carc_kind *inn = kind(k, n, "IC-14");
    assert_int_equal(inn->f[0].attr[1] + inn->f[1].attr[1] + inn->f[2].attr[1], 2);
    const struct carc_kind *bridge = kind(k, n, "TB-24");
    assert_string_equal(bridge->rot[0].ftext[0], "road N+S");
    assert_string_equal(bridge->rot[0].ftext[1], "road E+W");
    const struct carc_kind *tunnel = kind(k, n, "AM-12");
    assert_string_equal(tunnel->rot[0].ftext[1], "road N+S");
    assert_int_equal(tunnel->f[0].attr[0], 1);
    const struct carc_kind *cross = kind(k, n, "KR-5");
    assert_string_equal(cross->rot[0].ftext[2], "field inner1");
    assert_string_equal(cross->rot[0].ftext[3], "field inner2");
    assert_int_equal(cross->f[2].ntouch, 2);
    const struct carc_kind *garden = kind(k, n, "IC-3G");
    assert_string_equal(garden->rot[0].ftext[5], "garden");
    assert_int_equal(garden->f[4].ntouch, 4);
    assert_int_equal(kind(k, n, "TB-14")->nf, 7);                /* spike: 4 fields */
    assert_int_equal(kind(k, n, "AM-10")->f[0].nedges, 1);       /* dead end */
    const struct carc_kind *castle = kind(k, n, "CASTLE");
    assert_int_equal(castle->ncells, 2);
    assert_string_equal(castle->rot[0].ftext[0], "castle");
    assert_string_equal(castle->rot[1].ftext[1], "road S1");
    assert_string_equal(castle->rot[1].ftext[2], "city N0");
    assert_int_equal(castle->rot[1].dx[1], 0);
    assert_int_equal(castle->rot[1].dy[1], 1);
    free(k);
}

/* Write `text` to a new file, its name into path (a mkstemp template),
 * and expect parsing it to fail with CAS_EDATA; *n kinds were kept in *k,
 * which the caller frees. */
static void expect_refused(const char *text, char *path, struct carc_kind **k, int *n)
{
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    int start;
    assert_int_equal(parse(path, k, n, &start), CAS_EDATA);
}

/* Write `text` to a file and expect parsing to fail naming `line` with
 * `message` in the error. */
static void expect_error(const char *text, int line, const char *message)
{
    char path[] = "/tmp/cas-tiles-XXXXXX";
    struct carc_kind *k;
    int n;
    expect_refused(text, path, &k, &n);
    char where[64];
    snprintf(where, sizeof where, "%s:%d: ", path, line);
    if (strncmp(last_error, where, strlen(where)) != 0 || !strstr(last_error, message))
        fail_msg("error \"%s\" lacks \"%s\" / \"%s\"", last_error, where, message);
    free(k);
    remove(path);
}

static void test_errors_name_file_and_line(void **unused)
{
    (void)unused;
    expect_error("tile A 1 CQFR\n", 1, "edge letter 'Q' unknown");
    expect_error("# c\ntile A 1 CRFR\n  city N\n  road E+W\n", 2,
                 "tile A: half-edge En belongs to no field");
    expect_error("tile A 1 CFFF\n  city N pennant\n", 2, "unknown attribute 'pennant'");
    expect_error("tile A 1 CFFF\n  city E\n", 2, "edge 'E' is not a city (C) edge");
    expect_error("tile A 1 CFFF\n  city N\n  field Nw+En+Es+Se+Sw+Ws+Wn\n", 3,
                 "half-edge 'Nw' lies on a city edge");
    expect_error("tile A 1 FFFF\n  field Nw+Ne+En+Es+Se+Sw+Ws+Wn\n  field Nw\n", 3,
                 "'Nw' is already part of another feature");
    expect_error("tile A 1 FFFF\n  field Nw+Ne+En+Es+Se+Sw+Ws+Wn\ntile A 2 FFFF\n", 3,
                 "tile id 'A' is used twice");
    expect_error("start Z\ntile A 1 FFFF\n  field Nw+Ne+En+Es+Se+Sw+Ws+Wn\n", 1,
                 "start tile 'Z' is not defined");
    expect_error("monastery\n", 1, "'monastery' before any 'tile' line");
    expect_error("tile A x FFFF\n", 1, "count 'x' must be a number 0..999");
    expect_error("tile A 1 FFRFFR size=2x1\n  road E1+W\n", 2,
                 "'W' is not an edge of this tile");
}

/* Parses `text` as a tile file; expects CAS_EDATA, an error at `line`
 * naming the file, the id as `shown` and the fix, with no control byte of
 * its own, and no kind kept past the `loaded` good ones before the bad
 * line (the plugin then fails the game: nothing of the file is used). */
static void expect_unsafe_id(const char *text, int line, const char *shown, int loaded)
{
    char path[] = "/tmp/cas-tiles-XXXXXX";
    struct carc_kind *k;
    int n;
    expect_refused(text, path, &k, &n);
    assert_int_equal(n, loaded);
    char want[256];
    snprintf(want, sizeof want, "%s:%d: tile id '%s' contains ", path, line, shown);
    if (strncmp(last_error, want, strlen(want)) != 0 ||
        !strstr(last_error, "an id may not contain control characters, '\"' or '\\'; "
                            "use letters, digits or '-'"))
        fail_msg("error \"%s\" lacks \"%s\" and the fix", last_error, want);
    for (const char *c = last_error; *c; c++)
        assert_false(iscntrl((unsigned char)*c));
    free(k);
    remove(path);
}

/* Ids reach JSON renders and terminals: a control character, '"' or '\\'
 * in one is refused with the file, the line, the id (control bytes as
 * \xNN) and the fix, and its kind is never made. */
static void test_unsafe_ids_refused(void **unused)
{
    (void)unused;
    expect_unsafe_id("tile A\x1b[2J 1 FFFF\n  field Nw+Ne+En+Es+Se+Sw+Ws+Wn\n", 1,
                     "A\\x1b[2J", 0);
    expect_unsafe_id("tile A\"B 1 FFFF\n", 1, "A\"B", 0);
    expect_unsafe_id("tile A\\n 1 FFFF\n", 1, "A\\n", 0);
    expect_unsafe_id("tile A 1 FFFF\n  field Nw+Ne+En+Es+Se+Sw+Ws+Wn\n"
                     "tile B\x7f 1 FFFF\n", 3, "B\\x7f", 1);
}

/* wagon-links: the features each part of tile `id` is linked to, as a
 * mask of feature indices, in `reading`, as the api answers it (a tile
 * without a line of that reading has the default's). */
static unsigned links_of(const struct carc_kind *k, int reading, int feature)
{
    return k->links[k->links_read >> reading & 1 ? reading : CAS_CARC_LINKS_DEFAULT][feature];
}

/* The 82 land tiles that ship (base, Inns & Cathedrals, Traders &
 * Builders, Abbey & Mayor, King & Robber Baron) carry Abbey & Mayor's C1
 * links: 34 connect something, IC-5 in two readings; what L, A and IC-5
 * link, feature by feature (indices in the file's order). */
static void test_shipped_wagon_links(void **unused)
{
    (void)unused;
    static const char *const sets[] = {
        "plugins/carcassonne/data/base.tiles",
        "plugins/inns-cathedrals/data/inns-cathedrals.tiles",
        "plugins/traders-builders/data/traders-builders.tiles",
        "plugins/abbey-mayor/data/abbey-mayor.tiles",
        "plugins/king-robber/data/king-robber.tiles"};
    int land = 0, linked = 0, jcz = 0;
    for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++) {
        int n, start;
        struct carc_kind *k = parse_source(sets[i], &n, &start);
        for (int t = 0; t < n; t++) {
            land += !k[t].hand;
            linked += (k[t].links_read & 1) != 0;
            jcz += (k[t].links_read & 2) != 0;
            if (strcmp(k[t].id, "L") == 0) { /* city N, roads E S W meet at a crossing */
                assert_int_equal(links_of(&k[t], 0, 0), 0);
                assert_int_equal(links_of(&k[t], 0, 1), 1u << 2 | 1u << 3);
                assert_int_equal(links_of(&k[t], 1, 3), 1u << 1 | 1u << 2);
            } else if (strcmp(k[t].id, "A") == 0) { /* monastery, road S into it */
                assert_int_equal(links_of(&k[t], 0, 0), 1u << 1);
                assert_int_equal(links_of(&k[t], 0, 1), 1u << 0);
            } else if (strcmp(k[t].id, "IC-5") == 0) { /* city N, city S, road E, road W */
                assert_int_equal(links_of(&k[t], 0, 0), 0);
                assert_int_equal(links_of(&k[t], 0, 2), 1u << 3);
                assert_int_equal(links_of(&k[t], 1, 0), 1u << 1 | 1u << 2 | 1u << 3);
                assert_int_equal(links_of(&k[t], 1, 2), 1u << 0 | 1u << 1 | 1u << 3);
            }
        }
        free(k);
    }
    assert_int_equal(land, 82);
    assert_int_equal(linked, 34);
    assert_int_equal(jcz, 1);
}

/* A community tile set declares its own links; both readings. */
static void test_own_wagon_links(void **unused)
{
    (void)unused;
    int n, start;
    struct carc_kind *k = parse_source("tests/carcassonne/data/shapes.tiles", &n, &start);
    const struct carc_kind *castle = kind(k, n, "CASTLE"); /* castle, road S1, city N0 */
    assert_int_equal(links_of(castle, 0, 0), 1u << 1);
    assert_int_equal(links_of(castle, 0, 1), 1u << 0 | 1u << 2);
    assert_int_equal(links_of(castle, 0, 2), 1u << 1);
    assert_int_equal(links_of(castle, 1, 2), 1u << 0 | 1u << 1);
    assert_int_equal(links_of(kind(k, n, "IC-1"), 0, 0), 0);
    free(k);
}

/* expect_error for `lines` after tile A (monastery, road S, one field),
 * whose first is line 5. */
static void expect_links_error(const char *lines, int line, const char *message)
{
    char text[512];
    snprintf(text, sizeof text, "tile A 1 FFRF\n  monastery\n  road S\n"
                                "  field Nw+Ne+En+Es+Se+Sw+Ws+Wn\n%s", lines);
    expect_error(text, line, message);
}

static void test_wagon_links_errors(void **unused)
{
    (void)unused;
    expect_error("wagon-links N+S\n", 1, "'wagon-links' before any 'tile' line");
    expect_links_error("  wagon-links S\n", 5,
                       "a group links two parts or more joined by +, e.g. W+E; 'S' is one");
    expect_links_error("  wagon-links monastery+N\n", 5,
                       "'N' is no road, city or cloister of this tile");
    expect_links_error("  wagon-links garden+S\n", 5,
                       "'garden' is no road, city or cloister of this tile");
    expect_links_error("  wagon-links S+monastery+S\n", 5, "'S' is named twice in one group");
    expect_links_error("  wagon-links jcz\n", 5, "'wagon-links' needs groups of parts joined by +");
    expect_links_error("  wagon-links S+monastery\n  wagon-links monastery+S\n", 6,
                       "tile A has a wagon-links line of this reading already");
    expect_error("tile A 1 FFRF\n  monastery\n  wagon-links monastery+S\n  road S\n", 3,
                 "'S' is no road, city or cloister of this tile");
}

/* The tiles option: overrides by id, '*' for all, errors name the entry. */
static void test_count_overrides(void **unused)
{
    (void)unused;
    int n, start;
    struct carc_kind *k = parse_source("plugins/carcassonne/data/base.tiles", &n, &start);
    if (cas__carc_apply_counts(&host, "*:0, D:2,E:3", k, n) != CAS_OK)
        fail_msg("%s", last_error);
    assert_int_equal(kind(k, n, "D")->count, 2);
    assert_int_equal(kind(k, n, "E")->count, 3);
    assert_int_equal(kind(k, n, "A")->count, 0);
    assert_int_equal(cas__carc_apply_counts(&host, "Z:1", k, n), CAS_EOPTION);
    assert_non_null(strstr(last_error, "tiles: unknown tile id 'Z'"));
    assert_int_equal(cas__carc_apply_counts(&host, "D=1", k, n), CAS_EOPTION);
    assert_non_null(strstr(last_error, "tiles: bad entry 'D=1'"));
    assert_int_equal(kind(k, n, "D")->count, 2); /* a bad spec changes nothing */
    free(k);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_base_totals),
        cmocka_unit_test(test_expansion_shapes),
        cmocka_unit_test(test_errors_name_file_and_line),
        cmocka_unit_test(test_unsafe_ids_refused),
        cmocka_unit_test(test_shipped_wagon_links),
        cmocka_unit_test(test_own_wagon_links),
        cmocka_unit_test(test_wagon_links_errors),
        cmocka_unit_test(test_count_overrides),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
