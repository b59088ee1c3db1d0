/*
 * test_render_since.c — pictures drawn relative to the last (ABI 1.4
 * render_since, docs/abi.md "ABI 1.4: pictures relative to the last"), as
 * the server takes them (host/tools/picture_changes.c
 * cas__picture_draw): over whole seeded Carcassonne games, alone and
 * with five expansions, for every seat's view and the public one, the
 * picture rebuilt from each relative render is byte for byte the whole
 * render, and so are the changes sent from the last picture; also when a
 * move is taken back and the stamp is of a later state.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "jsonw.h"
#include "carcassonne_five.h"
#include "picture_changes.h"
#include "plugin_harness.h"

const struct cas_plugin *cas_plugin_entry(void);


/* What a view of the server holds: its last picture, with its stamp; and
 * whether the host it plays takes runs of placeholders (ABI 1.5). */
struct view {
    int viewer;
    struct cas__picture pic;
    int runs;
    size_t relative, placeholders; /* pictures drawn relative, elements kept */
    size_t run_placeholders;       /* placeholders that stood for a run */
    size_t pictures;
};

/* The whole picture the server takes for viewer now without
 * render_since: the decision view when it decides and the plugin marks
 * something (*format SVG_ACTIONS), else the plain one (*format SVG). */
static char *whole(struct cas_test_game *g, int viewer, enum cas_render_format *format)
{
    int rc;
    char *svg = g->vt->current(g->state) == viewer
                    ? cas_test_try_render_choices(g, viewer, CAS_RENDER_SVG_ACTIONS, &rc)
                    : NULL;
    *format = svg ? CAS_RENDER_SVG_ACTIONS : CAS_RENDER_SVG;
    return svg ? svg : cas_test_render(g, viewer, CAS_RENDER_SVG);
}

/* render_since of v's picture in format, relative to its last one when
 * `relative` (else whole); the new stamp into stamp. */
static char *since(struct cas_test_game *g, const struct view *v, enum cas_render_format format,
                   int relative, unsigned char *stamp, size_t *stamp_len)
{
    struct cas_render_since req = {
        .struct_size = sizeof req, .viewer = v->viewer, .format = format,
        .since = relative ? v->pic.stamp : NULL, .since_len = relative ? v->pic.stamp_len : 0,
        .stamp = stamp, .stamp_cap = CAS_RENDER_STAMP_MIN, .stamp_len = 0};
    int rc;
    char *svg = cas_test_try_render_since(g, &req, &rc);
    assert_int_equal(rc, CAS_OK);
    *stamp_len = req.stamp_len;
    return svg;
}

/* The elements text's placeholders stand for (a run's N each), and into
 * *runs how many of them are runs. */
static size_t kept_elements(const char *text, size_t *runs)
{
    static const char attr[] = "data-cas-same=\"";
    size_t k = 0;
    for (const char *at = text; (at = strstr(at, attr)); at++) {
        unsigned long n = strtoul(at + sizeof attr - 1, NULL, 10);
        k += n ? n : 1;
        *runs += n > 1;
    }
    return k;
}

/* The changes from old to pic as the server writes them (JSON text). */
static char *changes(const struct cas__picture *old, const struct cas__picture *pic)
{
    struct cas__jw w;
    cas__jw_init(&w);
    assert_int_equal(cas__picture_diff(old, pic, &w), 0);
    char *text = strdup(cas__jw_text(&w));
    cas__jw_free(&w);
    assert_non_null(text);
    return text;
}

/* What a view draws with: render_since of the game, in format. */
struct drawing {
    struct cas_test_game *g;
    struct view *v;
    enum cas_render_format format;
    size_t draws;
};

/* A cas__picture_drawer through the harness's render_since, counting the
 * relative pictures and their placeholders. */
static int draw(void *ctx, const unsigned char *stamp_since, size_t since_len,
                unsigned char *stamp, size_t *stamp_len, const struct cas_writer *out)
{
    struct drawing *d = ctx;
    struct cas_render_since req = {
        .struct_size = sizeof req, .viewer = d->v->viewer, .format = d->format,
        .since = stamp_since, .since_len = since_len,
        .stamp = stamp, .stamp_cap = CAS_RENDER_STAMP_MIN, .stamp_len = 0, .runs = d->v->runs};
    int rc;
    char *svg = cas_test_try_render_since(d->g, &req, &rc);
    assert_int_equal(rc, CAS_OK);
    if (stamp_since) {
        d->v->relative++;
        d->v->placeholders += kept_elements(svg, &d->v->run_placeholders);
    } else {
        assert_null(strstr(svg, "data-cas-same")); /* no stamp: whole */
    }
    *stamp_len = req.stamp_len;
    rc = out->write(out->ctx, svg, strlen(svg));
    free(svg);
    d->draws++;
    return rc;
}

/* pic's whole text put together from its pieces (head, each part's gap
 * and element, tail) where they lie, without moving it; caller frees. */
static char *pieces(const struct cas__picture *pic)
{
    const char *b = cas__picture_bytes(pic);
    char *text = malloc(pic->len + 1), *at = text;
    assert_non_null(text);
    memcpy(at, b + pic->head_at, cas__picture_head_len(pic));
    at += cas__picture_head_len(pic);
    for (size_t i = 0; i < pic->n; i++) {
        const struct cas__pic_part *p = &pic->parts[i];
        memcpy(at, b + p->at - p->gap, p->gap + p->len);
        at += p->gap + p->len;
    }
    memcpy(at, b + pic->tail_at, pic->tail_len);
    at += pic->tail_len;
    assert_int_equal((size_t)(at - text), pic->len);
    *at = '\0';
    return text;
}

/* v's next picture: drawn relative to its last as the server draws it
 * (cas__picture_draw), and checked against the whole render, bytes and
 * changes. */
static void next_picture(struct cas_test_game *g, struct view *v)
{
    struct drawing d = {.g = g, .v = v};
    char *full = whole(g, v->viewer, &d.format);
    struct cas__picture now;
    const char *unfit;
    assert_int_equal(cas__picture_draw(&now, v->pic.store ? &v->pic : NULL, draw, &d, &unfit),
                     CAS_OK);
    if (unfit)
        fail_msg("viewer %d: the relative picture does not fit: %s", v->viewer, unfit);
    assert_int_equal(d.draws, 1);
    assert_true(now.keyed);
    assert_true(now.stamp_len > 0);
    if (v->pic.store) { /* what goes on the wire: the same changes */
        struct cas__picture plain;
        cas__picture_take_after(&plain, strdup(full), strlen(full), &v->pic);
        char *a = changes(&v->pic, &now), *b = changes(&v->pic, &plain);
        assert_string_equal(a, b);
        free(a);
        free(b);
        cas__picture_free(&plain);
    }
    /* the old picture let go of first, as the server does, so the new
     * one's bytes are read after its store went on without it */
    cas__picture_free(&v->pic);
    char *svg = pieces(&now);
    if (now.len != strlen(full) || memcmp(svg, full, now.len) != 0)
        fail_msg("viewer %d: the rebuilt picture\n%s\nis not the whole one\n%s", v->viewer,
                 svg, full);
    /* now and then put together in one piece, as a full state takes it
     * (and the next picture is drawn after that) */
    if (++v->pictures % 9 == 0)
        assert_string_equal(cas__picture_svg(&now), full);
    free(svg);
    free(full);
    v->pic = now;
}

static uint64_t next_random(uint64_t *r)
{
    *r = *r * 6364136223846793005u + 1442695040888963407u;
    return *r >> 33;
}

/* A whole seeded game of two seats with nexp of the five expansions,
 * every view's picture checked at every ply; every `undo_every` plies a
 * decision is taken back (its state restored) and the views draw on from
 * their stamps of the state after it (a host drops them then: the plugin
 * must not be fooled either way). */
static void whole_game(size_t nexp, uint64_t seed, int undo_every, int runs)
{
    struct cas_test_game g;
    cas_test_carcassonne_five_open(&g, nexp);
    struct view views[3] = {{.viewer = 0, .runs = runs},
                            {.viewer = 1, .runs = runs},
                            {.viewer = CAS_VIEWER_PUBLIC, .runs = runs}};
    cas_state *before = NULL;
    assert_int_equal(g.vt->state_clone(g.state, &before), CAS_OK);
    uint64_t r = seed;
    int ply, undone = 0;
    for (ply = 0; g.vt->current(g.state) != CAS_ACTOR_TERMINAL && ply < 5000; ply++) {
        cas_action legal[512];
        size_t n;
        assert_int_equal(g.vt->legal_actions(g.state, legal, 512, &n), CAS_OK);
        assert_int_equal(g.vt->state_copy(before, g.state), CAS_OK);
        size_t pick = next_random(&r) % n;
        assert_int_equal(g.vt->apply(g.state, legal[pick], NULL), CAS_OK);
        for (int k = 0; k < 3; k++)
            next_picture(&g, &views[k]);
        if (undo_every && ply % undo_every == undo_every - 1) {
            /* taken back: the views' stamps are of the state undone; every
             * other time another action is played before they draw, so
             * the stamps are of another line of play */
            assert_int_equal(g.vt->state_copy(g.state, before), CAS_OK);
            if (undone % 2 && n > 1)
                assert_int_equal(g.vt->apply(g.state, legal[(pick + 1) % n], NULL), CAS_OK);
            for (int k = 0; k < 3; k++)
                next_picture(&g, &views[k]);
            undone++;
        }
    }
    assert_int_equal(g.vt->current(g.state), CAS_ACTOR_TERMINAL);
    assert_true(ply > 100);
    assert_true(!undo_every || undone > 5);
    for (int k = 0; k < 3; k++) {
        /* drawn relative at every ply but the first, most of it kept */
        assert_int_equal(views[k].relative, (size_t)(ply + undone - 1));
        assert_true(views[k].placeholders > views[k].relative * 20);
        /* runs (the tiles, the rulers, the fixed head) where the host
         * takes them, else none */
        if (runs)
            assert_true(views[k].run_placeholders > views[k].relative);
        else
            assert_int_equal(views[k].run_placeholders, 0);
        cas__picture_free(&views[k].pic);
    }
    g.vt->state_free(before);
    cas_test_game_close(&g);
}

static void test_relative_pictures_are_the_whole_ones(void **state)
{
    (void)state;
    whole_game(0, 7, 0, 1);
    whole_game(0, 8, 0, 1);
}

/* A host of ABI 1.4 (no runs field, or runs 0) is written one
 * placeholder per element, and the pictures are the same. */
static void test_relative_pictures_without_runs(void **state)
{
    (void)state;
    whole_game(0, 7, 0, 0);
    whole_game(5, 9, 0, 0);
}

static void test_relative_pictures_with_five_expansions(void **state)
{
    (void)state;
    whole_game(5, 7, 0, 1);
    whole_game(5, 9, 0, 1);
}

static void test_relative_pictures_across_undo(void **state)
{
    (void)state;
    whole_game(0, 11, 7, 1);
    whole_game(5, 12, 5, 1);
}

/* A stamp that is not the plugin's (another layout, another viewer's, cut
 * short) is no stamp: the picture is drawn whole, without placeholders. */
static void test_a_foreign_stamp_draws_whole(void **state)
{
    (void)state;
    struct cas_test_game g;
    cas_test_game_open(&g, cas_plugin_entry(), 2, NULL, NULL, 0);
    struct view v = {.viewer = 0};
    next_picture(&g, &v);
    unsigned char good[CAS_RENDER_STAMP_MIN], stamp[CAS_RENDER_STAMP_MIN];
    size_t len = v.pic.stamp_len, stamp_len;
    memcpy(good, v.pic.stamp, len);
    for (int bad = 0; bad < 3; bad++) {
        unsigned char odd[CAS_RENDER_STAMP_MIN];
        memcpy(odd, good, len);
        if (bad == 0)
            odd[0] ^= 1; /* its layout's mark */
        assert_int_equal(cas__picture_stamp(&v.pic, odd, bad == 2 ? len - 1 : len), 0);
        v.viewer = bad == 1 ? 1 : 0;
        char *svg = since(&g, &v, CAS_RENDER_SVG, 1, stamp, &stamp_len);
        assert_null(strstr(svg, "data-cas-same"));
        free(svg);
    }
    cas__picture_free(&v.pic);
    cas_test_game_close(&g);
}

/* A plugin scripted to draw fixed texts: `relative` (with its code) when
 * asked relative to a stamp, else `whole`; every picture stamped "s". */
struct scripted {
    const char *relative, *whole;
    int relative_rc;
    int relative_draws, whole_draws;
};

static int draw_scripted(void *ctx, const unsigned char *stamp_since, size_t since_len,
                         unsigned char *stamp, size_t *stamp_len, const struct cas_writer *out)
{
    struct scripted *sc = ctx;
    (void)since_len;
    stamp[0] = 's';
    *stamp_len = 1;
    if (stamp_since) {
        sc->relative_draws++;
        int rc = sc->relative ? out->write(out->ctx, sc->relative, strlen(sc->relative)) : CAS_OK;
        return rc == CAS_OK ? sc->relative_rc : rc;
    }
    sc->whole_draws++;
    return out->write(out->ctx, sc->whole, strlen(sc->whole));
}

/* What the server makes of `text` drawn relative to last (stamped first
 * when it has no stamp): 0 when it was taken; -1 when it did not fit, the
 * whole picture then drawn instead and let go here. */
static const char whole_instead[] = "<svg viewBox=\"0 0 1 1\">\n<g data-cas-key=\"w\">W</g>\n"
                                    "</svg>\n";

static int take_since(struct cas__picture *now, const char *text, struct cas__picture *last)
{
    struct scripted sc = {.relative = text, .whole = whole_instead};
    const char *unfit = NULL;
    if (last && !last->stamp_len)
        assert_int_equal(cas__picture_stamp(last, (const unsigned char *)"s", 1), CAS_OK);
    assert_int_equal(cas__picture_draw(now, last, draw_scripted, &sc, &unfit), CAS_OK);
    if (sc.whole_draws == 0 && !unfit)
        return 0;
    assert_string_equal(cas__picture_svg(now), whole_instead);
    cas__picture_free(now);
    return -1;
}

/* A placeholder naming no element of the last picture, or one element
 * twice, makes the host draw the whole picture: the relative one is
 * refused. */
static void test_a_placeholder_for_nothing_is_refused(void **state)
{
    (void)state;
    static const char last_svg[] = "<svg viewBox=\"0 0 1 1\">\n<g data-cas-key=\"a\">A</g>\n"
                                   "<g data-cas-key=\"b\">B</g>\n</svg>\n";
    static const char good[] = "<svg viewBox=\"0 0 1 1\">\n"
                               "<g data-cas-key=\"a\" data-cas-same=\"\"/>\n"
                               "<g data-cas-key=\"c\">C</g>\n"
                               "<g data-cas-key=\"b\" data-cas-same=\"\"/>\n</svg>\n";
    static const char bad[] = "<svg viewBox=\"0 0 1 1\">\n"
                              "<g data-cas-key=\"z\" data-cas-same=\"\"/>\n</svg>\n";
    struct cas__picture last, now;
    cas__picture_take(&last, strdup(last_svg), strlen(last_svg));
    assert_int_equal(take_since(&now, good, &last), 0);
    assert_string_equal(cas__picture_svg(&now), "<svg viewBox=\"0 0 1 1\">\n<g data-cas-key=\"a\">A</g>\n"
                                 "<g data-cas-key=\"c\">C</g>\n<g data-cas-key=\"b\">B</g>\n"
                                 "</svg>\n");
    assert_int_equal(now.n, 3);
    assert_true(now.parts[0].same && !now.parts[1].same && now.parts[2].same);
    char *a = changes(&last, &now);
    assert_string_equal(a, "{\"put\":[[\"c\",\"a\",\"<g data-cas-key=\\\"c\\\">C<\\/g>\"]],"
                           "\"remove\":[]}");
    free(a);
    cas__picture_free(&now);
    assert_int_equal(take_since(&now, bad, &last), -1);
    /* one element stood for twice: refused, whatever it would weigh */
    static const char twice[] = "<svg viewBox=\"0 0 1 1\">\n"
                                "<g data-cas-key=\"a\" data-cas-same=\"\"/>\n"
                                "<g data-cas-key=\"a\" data-cas-same=\"\"/>\n</svg>\n";
    assert_int_equal(take_since(&now, twice, &last), -1);
    /* without a last picture, nothing can be kept */
    assert_int_equal(take_since(&now, good, NULL), -1);
    cas__picture_free(&last);
}

/* The text before a kept element may change (other spaces, a comment):
 * the picture is still the whole one, that text as written now, and the
 * elements kept are still taken as the same.  So with an element drawn
 * again byte for byte after other text. */
static void test_kept_elements_after_other_text(void **state)
{
    (void)state;
    static const char last_svg[] = "<svg viewBox=\"0 0 1 1\">\n<g data-cas-key=\"a\">A</g>\n"
                                   "<g data-cas-key=\"b\">B</g>\n<g data-cas-key=\"c\">C</g>\n"
                                   "</svg>\n";
    static const char since[] = "<svg viewBox=\"0 0 1 1\">\n"
                                "<g data-cas-key=\"a\" data-cas-same=\"\"/>  <!-- x -->"
                                "<g data-cas-key=\"b\" data-cas-same=\"\"/>\n\t"
                                "<g data-cas-key=\"c\">C</g>\n</svg>\n";
    static const char whole_svg[] = "<svg viewBox=\"0 0 1 1\">\n<g data-cas-key=\"a\">A</g>  "
                                    "<!-- x --><g data-cas-key=\"b\">B</g>\n\t"
                                    "<g data-cas-key=\"c\">C</g>\n</svg>\n";
    struct cas__picture last, now;
    cas__picture_take(&last, strdup(last_svg), strlen(last_svg));
    assert_int_equal(take_since(&now, since, &last), 0);
    assert_int_equal(now.n, 3);
    assert_true(now.parts[0].same && now.parts[1].same);
    assert_false(now.parts[2].same); /* drawn again, after other text */
    char *a = changes(&last, &now);
    assert_string_equal(a, "{\"put\":[],\"remove\":[]}");
    free(a);
    assert_string_equal(cas__picture_svg(&now), whole_svg);
    cas__picture_free(&now);
    cas__picture_free(&last);
}

/* A run placeholder (ABI 1.5) stands for the elements of the last picture
 * from its key on, with the text between them as it was there; the text
 * before it is its own (so a run after other text is placed in a store of
 * its own, its inner gaps still the last picture's).  One that passes the
 * last picture's end, or is written with a zero or a leading zero, is
 * refused or no placeholder. */
static void test_runs_of_kept_elements(void **state)
{
    (void)state;
    static const char last_svg[] = "<svg viewBox=\"0 0 1 1\">\n<g data-cas-key=\"a\">A</g>\n"
                                   "<g data-cas-key=\"b\">B</g> <g data-cas-key=\"c\">C</g>\t"
                                   "<g data-cas-key=\"d\">D</g>\n</svg>\n";
    static const struct {
        const char *since, *whole;
    } cases[] = {
        /* b..d kept, a changed */
        {"<svg viewBox=\"0 0 1 1\">\n<g data-cas-key=\"a\">A2</g>\n"
         "<g data-cas-key=\"b\" data-cas-same=\"3\"/>\n</svg>\n",
         "<svg viewBox=\"0 0 1 1\">\n<g data-cas-key=\"a\">A2</g>\n<g data-cas-key=\"b\">B</g> "
         "<g data-cas-key=\"c\">C</g>\t<g data-cas-key=\"d\">D</g>\n</svg>\n"},
        /* all four, after other text than the last picture had there */
        {"<svg viewBox=\"0 0 1 1\"> <!-- x -->\n<g data-cas-key=\"a\" data-cas-same=\"4\"/>"
         "\n</svg>\n",
         "<svg viewBox=\"0 0 1 1\"> <!-- x -->\n<g data-cas-key=\"a\">A</g>\n"
         "<g data-cas-key=\"b\">B</g> <g data-cas-key=\"c\">C</g>\t<g data-cas-key=\"d\">D</g>"
         "\n</svg>\n"},
        /* a run of one, a new element, then c and d, one written "1" */
        {"<svg viewBox=\"0 0 1 1\">\n<g data-cas-key=\"a\" data-cas-same=\"1\"/>\n"
         "<g data-cas-key=\"e\">E</g>\n<g data-cas-key=\"c\" data-cas-same=\"2\"/>\n</svg>\n",
         "<svg viewBox=\"0 0 1 1\">\n<g data-cas-key=\"a\">A</g>\n<g data-cas-key=\"e\">E</g>\n"
         "<g data-cas-key=\"c\">C</g>\t<g data-cas-key=\"d\">D</g>\n</svg>\n"},
    };
    struct cas__picture last, now, plain;
    cas__picture_take(&last, strdup(last_svg), strlen(last_svg));
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        assert_int_equal(take_since(&now, cases[i].since, &last), 0);
        cas__picture_take_after(&plain, strdup(cases[i].whole), strlen(cases[i].whole), &last);
        assert_int_equal(now.n, plain.n);
        char *a = changes(&last, &now), *b = changes(&last, &plain);
        assert_string_equal(a, b);
        free(a);
        free(b);
        char *svg = pieces(&now);
        assert_string_equal(svg, cases[i].whole);
        free(svg);
        assert_string_equal(cas__picture_svg(&now), cases[i].whole);
        cas__picture_free(&plain);
        cas__picture_free(&now);
    }
    /* past the end; a run from the last element of two */
    static const char past[] = "<svg viewBox=\"0 0 1 1\">\n"
                               "<g data-cas-key=\"c\" data-cas-same=\"3\"/>\n</svg>\n";
    assert_int_equal(take_since(&now, past, &last), -1);
    /* "0" and "03" are no placeholders: elements of that key drawn again,
     * as the picture says (a key then twice: refused) */
    static const char zero[] = "<svg viewBox=\"0 0 1 1\">\n"
                               "<g data-cas-key=\"a\" data-cas-same=\"0\"/>\n</svg>\n";
    assert_int_equal(take_since(&now, zero, &last), 0);
    assert_int_equal(now.n, 1);
    assert_false(now.parts[0].same);
    cas__picture_free(&now);
    static const char lead[] = "<svg viewBox=\"0 0 1 1\">\n"
                               "<g data-cas-key=\"a\" data-cas-same=\"03\"/>\n"
                               "<g data-cas-key=\"b\" data-cas-same=\"\"/>\n</svg>\n";
    assert_int_equal(take_since(&now, lead, &last), 0);
    assert_int_equal(now.n, 2);
    assert_true(!now.parts[0].same && now.parts[1].same);
    cas__picture_free(&now);
    static const char twice[] = "<svg viewBox=\"0 0 1 1\">\n"
                                "<g data-cas-key=\"a\" data-cas-same=\"2\"/>\n"
                                "<g data-cas-key=\"b\" data-cas-same=\"\"/>\n</svg>\n";
    assert_int_equal(take_since(&now, twice, &last), -1);
    /* the whole last picture twice over: refused before its parts are made */
    static const char again[] = "<svg viewBox=\"0 0 1 1\">\n"
                                "<g data-cas-key=\"a\" data-cas-same=\"4\"/>\n"
                                "<g data-cas-key=\"a\" data-cas-same=\"4\"/>\n</svg>\n";
    struct scripted sc = {.relative = again, .whole = whole_instead};
    const char *unfit = NULL;
    assert_int_equal(cas__picture_draw(&now, &last, draw_scripted, &sc, &unfit), CAS_OK);
    assert_string_equal(unfit, "placeholders stand for more elements than the last picture has");
    cas__picture_free(&now);
    cas__picture_free(&last);
}

/* Relative pictures that break the keyed convention or write a placeholder
 * badly are refused (the host then draws the whole picture), their text
 * freed: an unterminated placeholder, one with an empty key, an unkeyed
 * element beside placeholders, a key both kept and drawn again, and a last
 * picture that was not keyed. */
static void test_a_malformed_relative_picture_is_refused(void **state)
{
    (void)state;
    static const char last_svg[] = "<svg viewBox=\"0 0 1 1\">\n<g data-cas-key=\"a\">A</g>\n"
                                   "<g data-cas-key=\"b\">B</g>\n</svg>\n";
    static const char *const bad[] = {
        "<svg viewBox=\"0 0 1 1\">\n<g data-cas-key=\"a\" data-cas-same=\"\"\n</svg>\n",
        "<svg viewBox=\"0 0 1 1\">\n<g data-cas-key=\"\" data-cas-same=\"\"/>\n</svg>\n",
        "<svg viewBox=\"0 0 1 1\">\n<g data-cas-key=\"a\" data-cas-same=\"\"/>\n"
        "<g>unkeyed</g>\n</svg>\n",
        "<svg viewBox=\"0 0 1 1\">\n<g data-cas-key=\"a\" data-cas-same=\"\"/>\n"
        "<g data-cas-key=\"a\">A again</g>\n</svg>\n",
    };
    struct cas__picture last, now;
    cas__picture_take(&last, strdup(last_svg), strlen(last_svg));
    assert_true(last.keyed);
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++)
        assert_int_equal(take_since(&now, bad[i], &last), -1);
    cas__picture_free(&last);
    /* a last picture not keyed has no element a placeholder could stand for */
    static const char unkeyed[] = "<svg viewBox=\"0 0 1 1\">\n<g>A</g>\n</svg>\n";
    static const char one[] = "<svg viewBox=\"0 0 1 1\">\n"
                              "<g data-cas-key=\"a\" data-cas-same=\"\"/>\n</svg>\n";
    cas__picture_take(&last, strdup(unkeyed), strlen(unkeyed));
    assert_false(last.keyed);
    assert_int_equal(take_since(&now, one, &last), -1);
    cas__picture_free(&last);
}

/* What cas__picture_draw does with a plugin's bad pictures: one drawn
 * relative that does not fit (a key twice, found only after its drawn
 * elements were added to the last picture's store) is drawn again whole,
 * the reason given and the last picture's store as it was; a relative
 * draw that fails gives its code; a whole one that draws nothing
 * CAS_EINVAL.  The picture is empty after a failure. */
static void test_draw_falls_back_on_a_bad_plugin(void **state)
{
    (void)state;
    static const char first[] = "<svg>\n<g data-cas-key=\"a\">A</g>\n<g data-cas-key=\"b\">B</g>\n"
                                "</svg>\n";
    static const char second[] = "<svg>\n<g data-cas-key=\"a\">A2</g>\n</svg>\n";
    struct scripted sc = {
        .relative = "<svg>\n<g data-cas-key=\"a\" data-cas-same=\"\"/>\n"
                    "<g data-cas-key=\"a\">twice</g>\n</svg>\n",
        .whole = first};
    struct cas__picture last, now;
    const char *unfit = "unset";
    assert_int_equal(cas__picture_draw(&last, NULL, draw_scripted, &sc, &unfit), CAS_OK);
    assert_null(unfit);
    assert_true(last.keyed);
    assert_int_equal(last.stamp_len, 1);
    sc.whole = second;
    assert_int_equal(cas__picture_draw(&now, &last, draw_scripted, &sc, &unfit), CAS_OK);
    assert_non_null(unfit);
    assert_int_equal(sc.relative_draws, 1);
    assert_int_equal(sc.whole_draws, 2);
    assert_string_equal(cas__picture_svg(&now), second);
    assert_true(now.keyed);
    assert_int_equal(now.stamp_len, 1);
    /* what the refused picture added to the last one's store is let go */
    assert_int_equal(strlen(cas__picture_bytes(&last)), last.len);
    assert_string_equal(cas__picture_svg(&last), first);
    cas__picture_free(&now);

    sc.relative = second;
    sc.relative_rc = CAS_EIO;
    assert_int_equal(cas__picture_draw(&now, &last, draw_scripted, &sc, &unfit), CAS_EIO);
    assert_null(now.store);
    assert_int_equal(sc.whole_draws, 2); /* not drawn again */

    sc.whole = "";
    assert_int_equal(cas__picture_draw(&now, NULL, draw_scripted, &sc, NULL), CAS_EINVAL);
    assert_null(now.store);
    cas__picture_free(&last);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_relative_pictures_are_the_whole_ones),
        cmocka_unit_test(test_relative_pictures_without_runs),
        cmocka_unit_test(test_runs_of_kept_elements),
        cmocka_unit_test(test_relative_pictures_with_five_expansions),
        cmocka_unit_test(test_relative_pictures_across_undo),
        cmocka_unit_test(test_a_foreign_stamp_draws_whole),
        cmocka_unit_test(test_a_placeholder_for_nothing_is_refused),
        cmocka_unit_test(test_a_malformed_relative_picture_is_refused),
        cmocka_unit_test(test_kept_elements_after_other_text),
        cmocka_unit_test(test_draw_falls_back_on_a_bad_plugin),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
