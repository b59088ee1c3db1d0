/*
 * plugin_harness.c — the host stand-in that plugin unit tests drive.
 */
#include "plugin_harness.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

static void harness_log(void *ctx, enum cas_log_level level, const char *message)
{
    (void)ctx;
    if (level <= CAS_LOG_WARN)
        print_message("plugin log: %s\n", message);
}

static void harness_set_error(void *ctx, const char *message)
{
    struct cas_test_game *g = ctx;
    snprintf(g->error, sizeof g->error, "%s", message);
}

static void *harness_alloc(void *ctx, size_t size)
{
    (void)ctx;
    return malloc(size);
}

static void *harness_realloc(void *ctx, void *block, size_t size)
{
    (void)ctx;
    return realloc(block, size);
}

static void harness_release(void *ctx, void *block)
{
    (void)ctx;
    free(block);
}

/* Append text and a newline to the log *buf (length *len, capacity *cap). */
static void log_line(char **buf, size_t *len, size_t *cap, const char *text)
{
    size_t n = strlen(text);
    if (*len + n + 2 > *cap) {
        size_t grown_cap = (*cap + n + 2) * 2;
        char *grown = realloc(*buf, grown_cap);
        assert_non_null(grown);
        *buf = grown;
        *cap = grown_cap;
    }
    memcpy(*buf + *len, text, n);
    *len += n;
    (*buf)[(*len)++] = '\n';
    (*buf)[*len] = '\0';
}

static void harness_emit(void *ctx, const struct cas_event *event)
{
    struct cas_test_game *g = ctx;
    log_line(&g->events, &g->events_len, &g->events_cap, event->text);
    if (event->kind != CAS_EVENT_SCORE || !CAS_HAS_FIELD(event, struct cas_event, final) ||
        !event->category)
        return;
    char line[256];
    snprintf(line, sizeof line, "%d %+lld %s %s %s", event->player, (long long)event->points,
             event->category, event->final ? "final" : "play",
             event->subject ? event->subject : "-");
    log_line(&g->scorings, &g->scorings_len, &g->scorings_cap, line);
}

const char *cas_test_data_dir(const char *plugin_id, char *buf, size_t cap)
{
    const char *src = getenv("CASTELLAN_SOURCE_DIR");
    snprintf(buf, cap, "%s/plugins/%s/data", src ? src : ".", plugin_id);
    return buf;
}

struct cas_expansion_ref cas_test_expansion_ref(const struct cas_plugin *expansion,
                                                char *dir_buf, size_t cap)
{
    return (struct cas_expansion_ref){
        .struct_size = sizeof(struct cas_expansion_ref),
        .id = expansion->id,
        .version = expansion->version,
        .data_dir = cas_test_data_dir(expansion->id, dir_buf, cap),
        .extension = expansion->extension,
    };
}

static const char *option_override(const char *const *options, const char *name)
{
    size_t name_len = strlen(name);
    for (; options && *options; options++)
        if (strncmp(*options, name, name_len) == 0 && (*options)[name_len] == '=')
            return *options + name_len + 1;
    return NULL;
}

static void fill_options(struct cas_test_game *g, const char *const *options)
{
    g->n_options = 0;
    for (size_t i = 0; i < g->plugin->n_options; i++) {
        const struct cas_option_spec *spec = &g->plugin->options[i];
        const char *value = option_override(options, spec->name);
        assert_true(g->n_options < sizeof g->options / sizeof g->options[0]);
        g->options[g->n_options++] = (struct cas_option_value){
            .struct_size = sizeof(struct cas_option_value),
            .name = spec->name,
            .value = value ? value : spec->default_value,
        };
    }
}

int cas_test_game_try_open(struct cas_test_game *g, const struct cas_plugin *plugin,
                           int nplayers, const char *const *options,
                           const struct cas_expansion_ref *expansions,
                           size_t n_expansions)
{
    memset(g, 0, sizeof *g);
    g->plugin = plugin;
    g->vt = plugin->game;
    g->nplayers = nplayers;
    cas_test_data_dir(plugin->id, g->data_dir, sizeof g->data_dir);
    g->host = (struct cas_host){
        .struct_size = sizeof(struct cas_host),
        .abi_major = CAS_ABI_MAJOR,
        .abi_minor = CAS_ABI_MINOR,
        .ctx = g,
        .log = harness_log,
        .set_error = harness_set_error,
        .alloc = harness_alloc,
        .realloc = harness_realloc,
        .release = harness_release,
        .data_dir = g->data_dir,
    };
    fill_options(g, options);
    struct cas_game_params params = {
        .struct_size = sizeof params,
        .nplayers = nplayers,
        .options = g->options,
        .n_options = g->n_options,
        .expansions = expansions,
        .n_expansions = n_expansions,
    };
    size_t bad_option = 0;
    int rc = g->vt->game_new(&g->host, &params, &g->game, &bad_option);
    if (rc != CAS_OK)
        return rc;
    rc = g->vt->state_new(g->game, &g->state);
    if (rc != CAS_OK) {
        g->vt->game_free(g->game);
        g->game = NULL;
    }
    return rc;
}

void cas_test_game_open(struct cas_test_game *g, const struct cas_plugin *plugin,
                        int nplayers, const char *const *options,
                        const struct cas_expansion_ref *expansions,
                        size_t n_expansions)
{
    int rc = cas_test_game_try_open(g, plugin, nplayers, options, expansions,
                                    n_expansions);
    if (rc != CAS_OK)
        fail_msg("game_new/state_new failed (%d): %s", rc, g->error);
}

int cas_test_try_play(struct cas_test_game *g, const char *action_text)
{
    cas_action action;
    g->error[0] = '\0';
    int rc = g->vt->parse_action(g->state, action_text, &action);
    if (rc != CAS_OK)
        return rc;
    struct cas_event_sink sink = {
        .struct_size = sizeof sink, .ctx = g, .emit = harness_emit,
    };
    return g->vt->apply(g->state, action, &sink);
}

void cas_test_play(struct cas_test_game *g, const char *action_text)
{
    int rc = cas_test_try_play(g, action_text);
    if (rc != CAS_OK)
        fail_msg("action \"%s\" failed (%d): %s", action_text, rc, g->error);
}

void cas_test_play_record(struct cas_test_game *g, const char *record)
{
    char line[256];
    while (*record) {
        size_t len = strcspn(record, "\n");
        assert_true(len < sizeof line);
        memcpy(line, record, len);
        line[len] = '\0';
        record += len + (record[len] == '\n');
        char *text = line + strspn(line, " \t");
        size_t end = strlen(text);
        while (end > 0 && (text[end - 1] == ' ' || text[end - 1] == '\t' ||
                           text[end - 1] == '\r'))
            text[--end] = '\0';
        if (*text && *text != '#')
            cas_test_play(g, text);
    }
}

void cas_test_expect_scores(struct cas_test_game *g, const int64_t *expected)
{
    int64_t scores[16];
    assert_true(g->nplayers <= 16);
    assert_int_equal(g->vt->returns(g->state, scores, (size_t)g->nplayers), CAS_OK);
    for (int p = 0; p < g->nplayers; p++)
        if (scores[p] != expected[p])
            fail_msg("player %d (%s): score %lld, expected %lld\nevents:\n%s", p,
                     g->vt->player_label(g->game, p), (long long)scores[p],
                     (long long)expected[p], g->events ? g->events : "");
}

void cas_test_legal_texts(struct cas_test_game *g, char *buf, size_t cap)
{
    size_t count = 0, used = 0;
    cas_action actions[4096];
    assert_int_equal(g->vt->legal_actions(g->state, actions, 4096, &count), CAS_OK);
    buf[0] = '\0';
    for (size_t i = 0; i < count; i++) {
        int len = g->vt->action_text(g->state, actions[i], buf + used, cap - used);
        assert_true(len >= 0 && used + (size_t)len + 1 < cap);
        used += (size_t)len;
        buf[used++] = '\n';
        buf[used] = '\0';
    }
}

cas_state *cas_test_restored_twin(struct cas_test_game *g)
{
    size_t len = 0;
    assert_int_equal(g->vt->serialize(g->state, CAS_SERIAL_FULL, NULL, 0, &len), CAS_ENOSPC);
    uint8_t *bytes = malloc(len);
    assert_non_null(bytes);
    assert_int_equal(g->vt->serialize(g->state, CAS_SERIAL_FULL, bytes, len, &len), CAS_OK);
    cas_state *twin = NULL;
    int rc = g->vt->deserialize(g->game, bytes, len, &twin);
    free(bytes);
    if (rc != CAS_OK)
        fail_msg("deserialize failed (%d): %s", rc, g->error);
    return twin;
}

static void expect_tickets_follow_listing(struct cas_test_game *g, const cas_state *s)
{
    struct cas_outcome outcomes[256];
    size_t n = 0;
    assert_int_equal(g->vt->chance_outcomes(s, outcomes, 256, &n), CAS_OK);
    uint64_t ticket = 0;
    for (size_t i = 0; i < n; i++)
        for (uint64_t w = 0; w < outcomes[i].weight; w++, ticket++) {
            cas_action got = 0;
            assert_int_equal(g->vt->chance_pick(s, ticket, &got), CAS_OK);
            assert_int_equal(got, outcomes[i].action);
        }
    assert_int_equal(g->vt->chance_total(s), ticket);
    cas_action none;
    assert_int_equal(g->vt->chance_pick(s, ticket, &none), CAS_EINVAL);
}

void cas_test_draw_by_ticket(struct cas_test_game *g, uint64_t pick)
{
    expect_tickets_follow_listing(g, g->state);
    cas_state *twin = cas_test_restored_twin(g);
    expect_tickets_follow_listing(g, twin);
    g->vt->state_free(twin);
    cas_action draw;
    uint64_t total = g->vt->chance_total(g->state);
    assert_int_equal(g->vt->chance_pick(g->state, pick % total, &draw), CAS_OK);
    assert_int_equal(g->vt->apply(g->state, draw, NULL), CAS_OK);
}

#define CHOICES_MAX 4096
#define GUARD 0xA5A5A5A5A5A5A5A5ull

static void expect_short_legal(struct cas_test_game *g, const cas_action *all, size_t n,
                               size_t cap)
{
    static cas_action got[CHOICES_MAX + 1];
    for (size_t i = 0; i <= cap; i++)
        got[i] = GUARD;
    size_t count = 0;
    assert_int_equal(g->vt->legal_actions(g->state, got, cap, &count), CAS_ENOSPC);
    assert_int_equal(count, n);
    assert_memory_equal(got, all, cap * sizeof *got);
    assert_true(got[cap] == GUARD);
}

static void expect_short_outcomes(struct cas_test_game *g, const struct cas_outcome *all,
                                  size_t n, size_t cap)
{
    static struct cas_outcome got[CHOICES_MAX + 1];
    for (size_t i = 0; i <= cap; i++)
        got[i] = (struct cas_outcome){GUARD, GUARD};
    size_t count = 0;
    assert_int_equal(g->vt->chance_outcomes(g->state, got, cap, &count), CAS_ENOSPC);
    assert_int_equal(count, n);
    assert_memory_equal(got, all, cap * sizeof *got);
    assert_true(got[cap].action == GUARD && got[cap].weight == GUARD);
}

struct scripted_rng {
    uint64_t answer, asked_below;
    int calls;
};

static uint64_t scripted_below(void *ctx, uint64_t n)
{
    struct scripted_rng *r = ctx;
    r->calls++;
    r->asked_below = n;
    return r->answer;
}

void cas_test_expect_random_action_as_listed(struct cas_test_game *g)
{
    static cas_action all[CHOICES_MAX];
    size_t n = 0;
    struct scripted_rng script = {0};
    struct cas_rng rng = {.struct_size = sizeof rng, .ctx = &script, .below = scripted_below};
    cas_action got = 0;
    assert_non_null(g->vt->random_action);
    if (g->vt->current(g->state) < 0) {
        assert_int_equal(g->vt->random_action(g->state, &rng, &got), CAS_EINVAL);
        return;
    }
    assert_int_equal(g->vt->legal_actions(g->state, all, CHOICES_MAX, &n), CAS_OK);
    for (size_t i = 0; i < n; i++) {
        script = (struct scripted_rng){.answer = i};
        assert_int_equal(g->vt->random_action(g->state, &rng, &got), CAS_OK);
        assert_int_equal(script.calls, 1);
        assert_int_equal(script.asked_below, n);
        assert_true(got == all[i]);
    }
}

void cas_test_expect_buffer_protocol(struct cas_test_game *g)
{
    static cas_action all[CHOICES_MAX];
    static struct cas_outcome odds[CHOICES_MAX];
    size_t n = 0;
    assert_int_equal(g->vt->legal_actions(g->state, all, CHOICES_MAX, &n), CAS_OK);
    for (size_t cap = 0; cap < n; cap++)
        expect_short_legal(g, all, n, cap);
    if (g->vt->current(g->state) != CAS_ACTOR_CHANCE)
        return;
    assert_int_equal(g->vt->chance_outcomes(g->state, odds, CHOICES_MAX, &n), CAS_OK);
    for (size_t cap = 0; cap < n; cap++)
        expect_short_outcomes(g, odds, n, cap);
}

void cas_test_expect_same_choices(struct cas_test_game *g, const cas_state *twin)
{
    static cas_action mine[CHOICES_MAX], theirs[CHOICES_MAX];
    static struct cas_outcome my_odds[CHOICES_MAX], their_odds[CHOICES_MAX];
    size_t n = 0, m = 0;
    assert_int_equal(g->vt->current(twin), g->vt->current(g->state));
    assert_int_equal(g->vt->legal_actions(g->state, mine, CHOICES_MAX, &n), CAS_OK);
    assert_int_equal(g->vt->legal_actions(twin, theirs, CHOICES_MAX, &m), CAS_OK);
    assert_int_equal(m, n);
    assert_memory_equal(theirs, mine, n * sizeof *mine);
    if (g->vt->current(g->state) != CAS_ACTOR_CHANCE)
        return;
    assert_int_equal(g->vt->chance_outcomes(g->state, my_odds, CHOICES_MAX, &n), CAS_OK);
    assert_int_equal(g->vt->chance_outcomes(twin, their_odds, CHOICES_MAX, &m), CAS_OK);
    assert_int_equal(m, n);
    assert_memory_equal(their_odds, my_odds, n * sizeof *my_odds);
}

struct string_sink {
    char *data;
    size_t len, cap;
};

static int string_write(void *ctx, const char *data, size_t len)
{
    struct string_sink *s = ctx;
    if (s->len + len + 1 > s->cap) {
        size_t cap = (s->cap + len + 1) * 2;
        char *grown = realloc(s->data, cap);
        if (!grown)
            return CAS_ENOMEM;
        s->data = grown;
        s->cap = cap;
    }
    memcpy(s->data + s->len, data, len);
    s->len += len;
    s->data[s->len] = '\0';
    return CAS_OK;
}

char *cas_test_render(struct cas_test_game *g, int viewer, enum cas_render_format format)
{
    struct string_sink sink = {0};
    struct cas_writer out = {.struct_size = sizeof out, .ctx = &sink, .write = string_write};
    int rc = g->vt->render(g->state, viewer, format, &out);
    if (rc != CAS_OK) {
        free(sink.data);
        fail_msg("render failed (%d): %s", rc, g->error);
    }
    return sink.data ? sink.data : calloc(1, 1);
}

char *cas_test_try_render_choices(struct cas_test_game *g, int viewer,
                                  enum cas_render_format format, int *rc)
{
    cas_action legal[512];
    size_t n;
    assert_int_equal(g->vt->legal_actions(g->state, legal, 512, &n), CAS_OK);
    assert_true(CAS_HAS_FIELD(g->vt, struct cas_game_vtable, render_choices));
    assert_non_null(g->vt->render_choices);
    struct string_sink sink = {0};
    struct cas_writer out = {.struct_size = sizeof out, .ctx = &sink, .write = string_write};
    *rc = g->vt->render_choices(g->state, viewer, format, legal, n, &out);
    if (*rc != CAS_OK) {
        free(sink.data);
        return NULL;
    }
    return sink.data ? sink.data : calloc(1, 1);
}

char *cas_test_try_render_since(struct cas_test_game *g, struct cas_render_since *req, int *rc)
{
    cas_action legal[512];
    size_t n = 0;
    if (req->format == CAS_RENDER_SVG_ACTIONS)
        assert_int_equal(g->vt->legal_actions(g->state, legal, 512, &n), CAS_OK);
    assert_true(CAS_HAS_FIELD(g->vt, struct cas_game_vtable, render_since));
    assert_non_null(g->vt->render_since);
    struct string_sink sink = {0};
    struct cas_writer out = {.struct_size = sizeof out, .ctx = &sink, .write = string_write};
    req->actions = n ? legal : NULL;
    req->n = n;
    req->out = &out;
    *rc = g->vt->render_since(g->state, req);
    req->actions = NULL;
    req->out = NULL;
    if (*rc != CAS_OK) {
        free(sink.data);
        return NULL;
    }
    return sink.data ? sink.data : calloc(1, 1);
}

char *cas_test_render_choices(struct cas_test_game *g, int viewer,
                              enum cas_render_format format)
{
    int rc;
    char *text = cas_test_try_render_choices(g, viewer, format, &rc);
    if (!text)
        fail_msg("render_choices failed (%d): %s", rc, g->error);
    return text;
}

char *cas_test_notation_help(struct cas_test_game *g)
{
    assert_true(CAS_HAS_FIELD(g->vt, struct cas_game_vtable, notation_help));
    assert_non_null(g->vt->notation_help);
    struct string_sink sink = {0};
    struct cas_writer out = {.struct_size = sizeof out, .ctx = &sink, .write = string_write};
    int rc = g->vt->notation_help(g->game, &out);
    if (rc != CAS_OK) {
        free(sink.data);
        fail_msg("notation_help failed (%d): %s", rc, g->error);
    }
    return sink.data ? sink.data : calloc(1, 1);
}

char *cas_test_strip_ansi(const char *text)
{
    char *plain = malloc(strlen(text) + 1), *at = plain;
    assert_non_null(plain);
    while (*text) {
        if (text[0] == '\x1b' && text[1] == '[') {
            text += 2;
            while (*text && *text != 'm')
                text++;
            text += *text == 'm';
            continue;
        }
        *at++ = *text++;
    }
    *at = '\0';
    return plain;
}

void cas_test_expect_width(const char *text, size_t columns)
{
    for (const char *line = text; *line;) {
        size_t len = strcspn(line, "\n");
        if (len > columns)
            fail_msg("line of %zu columns (at most %zu):\n%.*s", len, columns, (int)len, line);
        line += len + (line[len] == '\n');
    }
}

void cas_test_expect_scorings(struct cas_test_game *g, const char *expected)
{
    const char *got = g->scorings ? g->scorings : "";
    if (strcmp(got, expected) != 0)
        fail_msg("score events:\n%s\nexpected:\n%s\nevents:\n%s", got, expected,
                 g->events ? g->events : "");
}

void cas_test_game_close(struct cas_test_game *g)
{
    if (g->vt) {
        g->vt->state_free(g->state);
        g->vt->game_free(g->game);
    }
    free(g->events);
    free(g->scorings);
    memset(g, 0, sizeof *g);
}
