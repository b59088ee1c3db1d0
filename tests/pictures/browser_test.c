/*
 * browser_test.c — the HTML replay viewer and an SVG picture in a real
 * browser: a headless Chromium loads the page exported from a seeded game,
 * a harness page drives it (arrow keys, Home/End, the buttons, the slider)
 * and reports what the page showed; screenshots are compared with a
 * reviewed reference PNG within a small tolerance; and the page must log
 * nothing to the console.  Nothing here waits for a time: Chromium dumps
 * the DOM once the harness has run on the page's load event, and
 * --screenshot waits for the load itself.
 *
 * usage: browser_test CASTELLAN PLUGIN_DIR REFERENCE_DIR
 * Exits 77 (CTest's skip) when no chromium is installed.  With
 * CASTELLAN_UPDATE_REFERENCE=1 it writes the reference PNG instead of
 * comparing (review it before committing).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <png.h>

#define SKIP 77
#define REPLAY_PLY 40

static const char *castellan, *plugin_dir, *reference_dir;
static char chromium[512];

static const char browser_flags[] =
    "--headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
    "--disable-background-networking --disable-component-update --disable-sync "
    "--hide-scrollbars --enable-logging=stderr --v=0";

static int find_chromium(void)
{
    const char *path = getenv("PATH");
    char dirs[4096];
    snprintf(dirs, sizeof dirs, "%s", path ? path : "/usr/bin");
    for (char *save, *d = strtok_r(dirs, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
        snprintf(chromium, sizeof chromium, "%s/chromium", d);
        if (access(chromium, X_OK) == 0)
            return 1;
    }
    return 0;
}

static void run(const char *command)
{
    int status = system(command);
    if (status != 0)
        fail_msg("`%s` failed (%d)", command, status);
}

/* Run chromium with a fresh profile on `url` and `what` ("--dump-dom",
 * "--screenshot=F --window-size=W,H"); its stderr goes to log. */
static void browse(const char *what, const char *url, const char *out, const char *log)
{
    char command[16384];
    snprintf(command, sizeof command,
             "profile=$(mktemp -d) && %s %s --user-data-dir=\"$profile\" "
             "--allow-file-access-from-files %s 'file://%s' > %s 2> %s; rc=$?; "
             "rm -rf \"$profile\"; exit $rc",
             chromium, browser_flags, what, url, out, log);
    run(command);
}

/* The page must have logged nothing: an error, an uncaught exception or
 * a stray console call all show up as CONSOLE lines naming it. */
static void expect_quiet_console(const char *log, const char *page)
{
    FILE *f = fopen(log, "r");
    assert_non_null(f);
    char line[4096];
    while (fgets(line, sizeof line, f))
        if (strstr(line, ":CONSOLE") && strstr(line, page))
            fail_msg("the page logged to the console: %s", line);
    fclose(f);
}

static char cwd[2048];

static void path_in_cwd(char *buf, size_t cap, const char *name)
{
    snprintf(buf, cap, "%s/%s", cwd, name);
}

static int setup(void **state)
{
    (void)state;
    char command[16384];
    assert_non_null(getcwd(cwd, sizeof cwd));
    const char *data = getenv("XDG_DATA_HOME");
    assert_non_null(data);
    snprintf(command, sizeof command,
             "rm -rf '%s' && %s play --game carcassonne --players greedy,greedy --seed 7 "
             "--plugin-path %s > play.log && %s export 1 --html -o replay.html "
             "--plugin-path %s && %s render 1 --ply %d -o board.svg --plugin-path %s",
             data, castellan, plugin_dir, castellan, plugin_dir, castellan, REPLAY_PLY,
             plugin_dir);
    run(command);
    return 0;
}

static const char harness[] =
    "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body><pre id=\"out\">"
    "not run</pre><iframe id=\"f\" src=\"replay.html\" width=\"1280\" height=\"900\">"
    "</iframe><script>\n"
    "var f=document.getElementById('f');\n"
    "f.onload=function(){var d=f.contentDocument,w=f.contentWindow,out=[];\n"
    "function board(){return d.getElementById('board').innerHTML;}\n"
    "function ply(){return d.body.getAttribute('data-ply');}\n"
    "function key(k){d.dispatchEvent(new w.KeyboardEvent('keydown',{key:k,bubbles:true}));}\n"
    "function note(what){out.push(what+' '+ply()+' '+(board().indexOf('<svg')>=0?'svg':'none')"
    "+' '+d.getElementById('action').textContent.length);}\n"
    "var first=board();note('load');\n"
    "key('ArrowRight');note('right');var second=board();\n"
    "out.push('changed '+(first!==second));\n"
    "key('End');note('end');key('ArrowLeft');note('left');key('Home');note('home');\n"
    "d.getElementById('next').click();note('next');d.getElementById('last').click();"
    "note('last');\n"
    "d.getElementById('prev').click();note('prev');d.getElementById('first').click();"
    "note('first');\n"
    "var s=d.getElementById('slider');s.value='5';s.dispatchEvent(new w.Event('input'));"
    "note('slider');\n"
    "out.push('max '+s.max);\n"
    "out.push('events '+d.getElementById('events').children.length);\n"
    "out.push('chart '+d.getElementById('chart').getElementsByTagName('polyline').length);\n"
    "document.getElementById('out').textContent=out.join('\\n');};\n"
    "</script></body></html>\n";

/* The value after `key ` in the harness report, e.g. "right 1 svg 20". */
static const char *report_line(const char *report, const char *key)
{
    char prefix[64];
    snprintf(prefix, sizeof prefix, "\n%s ", key);
    const char *at = strstr(report, prefix);
    if (!at && strncmp(report, prefix + 1, strlen(prefix) - 1) == 0)
        return report + strlen(prefix) - 1;
    if (!at)
        fail_msg("the harness did not report \"%s\":\n%s", key, report);
    return at + strlen(prefix);
}

static void expect_ply(const char *report, const char *key, int ply)
{
    const char *at = report_line(report, key);
    if (atoi(at) != ply || strncmp(strchr(at, ' '), " svg ", 5) != 0)
        fail_msg("after \"%s\" the page should show ply %d with its board:\n%s", key, ply,
                 report);
}

/* Write harness_text as NAME.html in the working folder, open it in
 * Chromium and return what its <pre id="out"> held once the page ran
 * (static storage, overwritten by the next call). */
static char *run_harness(const char *name, const char *harness_text)
{
    static char dom[1 << 16];
    char page[2300], dump[64], log[64], file[64];
    snprintf(dump, sizeof dump, "%s-dom.txt", name);
    snprintf(log, sizeof log, "%s.log", name);
    snprintf(file, sizeof file, "%s.html", name);
    path_in_cwd(page, sizeof page, file);
    FILE *f = fopen(page, "w");
    assert_non_null(f);
    fputs(harness_text, f);
    fclose(f);
    browse("--virtual-time-budget=20000 --dump-dom", page, dump, log);
    f = fopen(dump, "r");
    assert_non_null(f);
    size_t n = fread(dom, 1, sizeof dom - 1, f);
    fclose(f);
    dom[n] = '\0';
    char *report = strstr(dom, "<pre id=\"out\">");
    assert_non_null(report);
    report += strlen("<pre id=\"out\">");
    char *end = strstr(report, "</pre>");
    assert_non_null(end);
    *end = '\0';
    return report;
}

static void test_stepping(void **state)
{
    (void)state;
    char log[2300];
    char *report = run_harness("harness", harness);
    int last = atoi(report_line(report, "max"));
    assert_true(last > 100); /* a whole game of two greedy players */
    expect_ply(report, "load", 0);
    expect_ply(report, "right", 1);
    assert_string_equal(strtok(strdup(report_line(report, "changed")), "\n"), "true");
    expect_ply(report, "end", last);
    expect_ply(report, "left", last - 1);
    expect_ply(report, "home", 0);
    expect_ply(report, "next", 1);
    expect_ply(report, "last", last);
    expect_ply(report, "prev", last - 1);
    expect_ply(report, "first", 0);
    expect_ply(report, "slider", 5);
    assert_int_equal(atoi(report_line(report, "chart")), 2);
    path_in_cwd(log, sizeof log, "harness.log");
    expect_quiet_console(log, "replay.html");
}

struct picture {
    png_image image;
    png_bytep pixels;
};

static void read_png(const char *path, struct picture *p)
{
    memset(p, 0, sizeof *p);
    p->image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&p->image, path))
        fail_msg("%s: %s", path, p->image.message);
    p->image.format = PNG_FORMAT_RGBA;
    p->pixels = malloc(PNG_IMAGE_SIZE(p->image));
    assert_non_null(p->pixels);
    if (!png_image_finish_read(&p->image, NULL, p->pixels, 0, NULL))
        fail_msg("%s: %s", path, p->image.message);
}

/* Pixels whose colour differs by more than a rendering nuance (anti-
 * aliasing, a font hinting step) in any channel. */
static size_t differing_pixels(const struct picture *a, const struct picture *b)
{
    assert_int_equal(a->image.width, b->image.width);
    assert_int_equal(a->image.height, b->image.height);
    size_t n = (size_t)a->image.width * a->image.height, differ = 0;
    for (size_t i = 0; i < n; i++)
        for (int c = 0; c < 3; c++)
            if (abs(a->pixels[4 * i + c] - b->pixels[4 * i + c]) > 48) {
                differ++;
                break;
            }
    return differ;
}

static void screenshot(const char *url, const char *png)
{
    char what[2600];
    snprintf(what, sizeof what, "--window-size=1280,900 --screenshot=%s/%s", cwd, png);
    browse(what, url, "shot.txt", "shot.log");
    expect_quiet_console("shot.log", "replay.html");
}

static void test_reference_picture(void **state)
{
    (void)state;
    char url[2300], reference[2300];
    snprintf(url, sizeof url, "%s/replay.html#ply=%d", cwd, REPLAY_PLY);
    screenshot(url, "replay-known.png");
    snprintf(url, sizeof url, "%s/replay.html#ply=%d", cwd, REPLAY_PLY + 1);
    screenshot(url, "replay-next.png");
    snprintf(reference, sizeof reference, "%s/replay-carcassonne-ply%d.png", reference_dir,
             REPLAY_PLY);
    const char *update = getenv("CASTELLAN_UPDATE_REFERENCE");
    if (update && strcmp(update, "1") == 0) {
        char command[4096];
        snprintf(command, sizeof command, "cp replay-known.png '%s'", reference);
        run(command);
    }
    struct picture known, next, ref;
    read_png("replay-known.png", &known);
    read_png("replay-next.png", &next);
    read_png(reference, &ref);
    size_t pixels = (size_t)known.image.width * known.image.height;
    size_t off = differing_pixels(&known, &ref);
    /* at most 0.5% of the picture may differ from the reviewed one */
    if (off * 200 > pixels)
        fail_msg("ply %d differs from %s in %zu of %zu pixels (see replay-known.png in %s)",
                 REPLAY_PLY, reference, off, pixels, cwd);
    /* a step changes the picture: the board, the action, the slider */
    assert_true(differing_pixels(&known, &next) * 1000 > pixels);
    free(known.pixels);
    free(next.pixels);
    free(ref.pixels);
}

/* The plain SVG file on its own: drawn, with the board's grass in it. */
static void test_svg_file(void **state)
{
    (void)state;
    char url[2300];
    snprintf(url, sizeof url, "%s/board.svg", cwd);
    char what[2600];
    snprintf(what, sizeof what, "--window-size=1200,1000 --screenshot=%s/board.png", cwd);
    browse(what, url, "shot.txt", "svg.log");
    expect_quiet_console("svg.log", "board.svg");
    struct picture p;
    read_png("board.png", &p);
    size_t n = (size_t)p.image.width * p.image.height, grass = 0;
    for (size_t i = 0; i < n; i++)
        grass += p.pixels[4 * i] == 0x8f && p.pixels[4 * i + 1] == 0xbf &&
                 p.pixels[4 * i + 2] == 0x5a;
    assert_true(grass * 50 > n); /* fields cover more than 2% of the window */
    free(p.pixels);
}


/* A plugin's picture that tries to run code, navigate or fetch: the replay
 * page sanitizes it as the table does (and its CSP would refuse what got
 * through).  The exported page is edited to carry the hostile markup in
 * its first ply's picture, which the page installs whole at load and
 * patches in again when stepped back to. */
static const char hostile[] =
    "<script>parent.pwned=1</script>"
    "<image href=\"data:image/svg+xml,x\" onerror=\"parent.pwned=2\" width=\"1\" height=\"1\"/>"
    "<a href=\"javascript:parent.pwned=3\"><rect id=\"kept\" width=\"5\" height=\"5\"/></a>"
    "<foreignObject><div xmlns=\"http://www.w3.org/1999/xhtml\">x</div></foreignObject>"
    "<rect id=\"styled\" style=\"fill:url(http://127.0.0.1:9/x)\" width=\"1\" height=\"1\"/>"
    "<set attributeName=\"onmouseover\" to=\"parent.pwned=5\"/>"
    "<rect id=\"handler\" onload=\"parent.pwned=6\" width=\"1\" height=\"1\"/>";

static const char hostile_harness[] =
    "<!DOCTYPE html><html><head><meta charset=\"utf-8\"></head><body><pre id=\"out\">"
    "not run</pre><iframe id=\"f\" src=\"replay-hostile.html\" width=\"800\" height=\"600\">"
    "</iframe><script>\n"
    "var f=document.getElementById('f');\n"
    "f.onload=function(){var d=f.contentDocument,w=f.contentWindow,b=d.getElementById('board'),out=[];\n"
    "function key(k){d.dispatchEvent(new w.KeyboardEvent('keydown',{key:k,bubbles:true}));}\n"
    "function inspect(when){var on=0;[].forEach.call(b.querySelectorAll('*'),function(e){"
    "[].forEach.call(e.attributes,function(a){if(/^on/i.test(a.name))on++;});});\n"
    "out.push(when+' pwned '+(window.pwned||0));\n"
    "out.push(when+' svg '+b.getElementsByTagName('svg').length);\n"
    "out.push(when+' script '+b.getElementsByTagName('script').length);\n"
    "out.push(when+' foreign '+b.getElementsByTagName('foreignObject').length);\n"
    "out.push(when+' set '+b.getElementsByTagName('set').length);\n"
    "out.push(when+' handlers '+on);\n"
    "out.push(when+' javascript '+(b.innerHTML.indexOf('javascript:')>=0?1:0));\n"
    "out.push(when+' image-href '+(b.querySelector('image')&&b.querySelector('image')"
    ".hasAttribute('href')?1:0));\n"
    "out.push(when+' styled '+(b.querySelector('#styled').hasAttribute('style')?1:0));\n"
    "out.push(when+' kept '+(b.querySelector('#kept')?1:0));}\n"
    /* at load the picture is installed whole; back from the end it is patched */
    "inspect('whole');key('End');key('Home');inspect('patched');\n"
    "document.getElementById('out').textContent=out.join('\\n')+'\\n';};\n"
    "</script></body></html>\n";

/* hostile as it stands inside the page's JSON: <, > and & as \u00XX,
 * quotes escaped. */
static void json_escaped(FILE *out, const char *text)
{
    for (; *text; text++) {
        if (*text == '<' || *text == '>' || *text == '&')
            fprintf(out, "\\u%04x", (unsigned char)*text);
        else if (*text == '"')
            fputs("\\\"", out);
        else
            fputc(*text, out);
    }
}

static void test_hostile_picture(void **state)
{
    (void)state;
    static char page[1 << 24];
    FILE *f = fopen("replay.html", "r");
    assert_non_null(f);
    size_t n = fread(page, 1, sizeof page - 1, f);
    fclose(f);
    page[n] = '\0';
    /* into the first group the first ply puts (the heading, which every
     * ply changes: the way back to ply 0 patches it in again) */
    char *put = strstr(page, "\"put\":[[");
    assert_non_null(put);
    char *group = strstr(put, ",\"<g ");
    assert_non_null(group);
    char *open_end = strchr(group, '>');
    assert_non_null(open_end);
    open_end++;
    f = fopen("replay-hostile.html", "w");
    assert_non_null(f);
    fwrite(page, 1, (size_t)(open_end - page), f);
    json_escaped(f, hostile);
    fputs(open_end, f);
    fclose(f);
    char *report = run_harness("hostile", hostile_harness);
    static const char *const expected[] = {"pwned 0\n", "svg 1\n", "script 0\n", "foreign 0\n",
                                           "set 0\n", "handlers 0\n", "javascript 0\n",
                                           "image-href 0\n", "styled 0\n", "kept 1\n"};
    static const char *const when[] = {"whole", "patched"};
    for (size_t w = 0; w < 2; w++)
        for (size_t i = 0; i < sizeof expected / sizeof expected[0]; i++) {
            char line[64];
            snprintf(line, sizeof line, "%s %s", when[w], expected[i]);
            if (!strstr(report, line))
                fail_msg("the hostile picture: expected \"%.*s\" in\n%s", (int)strlen(line) - 1,
                         line, report);
        }
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: browser_test CASTELLAN PLUGIN_DIR REFERENCE_DIR\n");
        return 2;
    }
    castellan = argv[1];
    plugin_dir = argv[2];
    reference_dir = argv[3];
    if (!find_chromium()) {
        printf("no chromium on PATH: the browser tests are skipped (.ci/run installs it)\n");
        return SKIP;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stepping),
        cmocka_unit_test(test_reference_picture),
        cmocka_unit_test(test_svg_file),
        cmocka_unit_test(test_hostile_picture),
    };
    return cmocka_run_group_tests(tests, setup, NULL);
}
