/*
 * test_replay_html.c — the replay page of a long game (host/tools/
 * replay_html.c, docs/pictures.md "The replay page"): a seeded Carcassonne
 * game with all five expansions and five greedy players, exported as a
 * page for the public view as the server serves it.  Its size stays under
 * a bound (each ply's picture goes as the changes from the ply before),
 * and the pictures rebuilt from the page's changes equal, element by
 * element, the full renders of the same plies by `castellan render`.
 * Everything is counted in bytes and plies: no timing.
 *
 * usage (CTest): test_replay_html CASTELLAN PLUGIN_DIR
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>

#include "json.h"
#include "picture_patch.h"

#define EXPANSIONS "inns-cathedrals,traders-builders,abbey-mayor,king-robber,castles-germany"
/* The page of this game was 32.3 MB with a whole picture per ply. */
#define PAGE_BOUND (1536u * 1024u)

static const char *castellan, *plugin_dir;
static char *page;
static size_t page_len;
static struct cas_json *plies_doc;
static const struct cas_json *plies;

static void run(const char *command)
{
    int status = system(command);
    if (status != 0)
        fail_msg("`%s` failed (%d)", command, status);
}

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    struct stat st;
    assert_int_equal(fstat(fileno(f), &st), 0);
    char *text = malloc((size_t)st.st_size + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)st.st_size, f), (size_t)st.st_size);
    fclose(f);
    text[st.st_size] = '\0';
    if (len)
        *len = (size_t)st.st_size;
    return text;
}

static const struct cas_json *member(const struct cas_json *obj, const char *key)
{
    for (size_t i = 0; obj && obj->type == CAS_JSON_OBJECT && i < obj->n; i++)
        if (strcmp(obj->items[i].key, key) == 0)
            return &obj->items[i];
    return NULL;
}

static int setup(void **state)
{
    (void)state;
    char command[8192];
    const char *data = getenv("XDG_DATA_HOME");
    assert_non_null(data);
    snprintf(command, sizeof command,
             "rm -rf '%s' && %s play --game carcassonne --expansions " EXPANSIONS
             " --players greedy,greedy,greedy,greedy,greedy --seed 5 --plugin-path %s"
             " > play.log && %s export 1 --html --viewer public -o replay-long.html"
             " --plugin-path %s",
             data, castellan, plugin_dir, castellan, plugin_dir);
    run(command);
    page = read_all("replay-long.html", &page_len);
    /* the plies' JSON, wrapped as an object for the strict reader */
    static const char open_tag[] = "<script type=\"application/json\" id=\"plies\">";
    char *from = strstr(page, open_tag);
    assert_non_null(from);
    from += strlen(open_tag);
    char *to = strstr(from, "</script>");
    assert_non_null(to);
    size_t n = (size_t)(to - from), line, offset;
    char *wrapped = malloc(n + 8);
    assert_non_null(wrapped);
    memcpy(wrapped, "{\"p\":", 5);
    memcpy(wrapped + 5, from, n);
    memcpy(wrapped + 5 + n, "}", 2);
    if (cas__json_parse(wrapped, n + 6, &plies_doc, &line, &offset) != CAS_OK)
        fail_msg("the page's plies are no JSON (line %zu, byte %zu)", line, offset);
    free(wrapped);
    plies = member(plies_doc, "p");
    assert_non_null(plies);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    cas__json_free(plies_doc);
    free(page);
    return 0;
}

/* A long game's page stays small: its pictures go as changes. */
static void test_page_size(void **state)
{
    (void)state;
    printf("the page of %zu plies: %zu bytes (bound %u)\n", plies->n - 1, page_len, PAGE_BOUND);
    assert_true(plies->n > 400);
    assert_true(page_len <= PAGE_BOUND);
    /* every ply after the first is changes, none a whole picture */
    for (size_t i = 0; i < plies->n; i++)
        assert_non_null(member(&plies->items[i], "changes"));
}

static int wanted(size_t ply, size_t last)
{
    static const size_t some[] = {0, 1, 2, 3, 40, 41, 100, 217, 333};
    for (size_t i = 0; i < sizeof some / sizeof some[0]; i++)
        if (some[i] == ply)
            return 1;
    return ply == last;
}

/* Every ply's picture rebuilt from the changes, as the page's viewer
 * holds it; at several plies it equals the full render of that ply. */
static void test_rebuilt_equals_render(void **state)
{
    (void)state;
    char *svg = NULL, command[8192];
    size_t last = plies->n - 1, compared = 0;
    for (size_t i = 0; i <= last; i++) {
        const struct cas_json *changes = member(&plies->items[i], "changes");
        const struct cas_json *whole = member(&plies->items[i], "svg");
        if (whole) {
            free(svg);
            svg = strdup(whole->text);
        } else {
            assert_non_null(changes);
            svg = picture_patch(svg, changes);
            if (!svg)
                fail_msg("ply %zu's changes do not fit the picture before", i);
        }
        if (!wanted(i, last))
            continue;
        snprintf(command, sizeof command,
                 "%s render 1 --ply %zu --viewer public -o ply.svg --plugin-path %s", castellan,
                 i, plugin_dir);
        run(command);
        char *full = read_all("ply.svg", NULL);
        if (whole ? strcmp(svg, full) != 0 : !picture_same(svg, full))
            fail_msg("ply %zu: the picture rebuilt from the page differs from its render", i);
        free(full);
        compared++;
    }
    free(svg);
    assert_int_equal(compared, 10);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_replay_html CASTELLAN PLUGIN_DIR\n");
        return 2;
    }
    castellan = argv[1];
    plugin_dir = argv[2];
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_page_size),
        cmocka_unit_test(test_rebuilt_equals_render),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
