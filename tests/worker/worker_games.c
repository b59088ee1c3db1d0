/*
 * worker_games.c — one game played in process and in a worker, and the
 * two journals compared (worker_games.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "agent.h"
#include "registry.h"
#include "session.h"
#include "worker_games.h"

static struct cas__registry *registry;

static void free_registry(void)
{
    cas__registry_free(registry);
}

const struct cas_plugin *worker_games_plugin(const char *id, const char **data)
{
    struct cas__strlist path = {0};
    if (!registry) {
        assert_int_equal(cas__plugin_search_path(NULL, &path), CAS_OK);
        assert_int_equal(cas__registry_scan(&path, &registry), CAS_OK);
        cas__strlist_free(&path);
        atexit(free_registry);
    }
    struct cas__plugin_info *info = cas__registry_find(registry, id);
    assert_non_null(info);
    if (cas__registry_load(registry, info) != CAS_OK)
        fail_msg("cannot load %s: %s", id, info->refusal);
    *data = info->data_dir;
    return info->desc;
}

static int record_action(void *ctx, uint32_t ply, int actor, const char *text,
                         uint64_t hash_after, char *err, size_t errlen)
{
    struct worker_games_record *r = ctx;
    (void)actor, (void)err, (void)errlen;
    assert_true(ply < WORKER_GAMES_MAX_PLIES);
    assert_int_equal(ply, r->n);
    snprintf(r->text[ply], sizeof r->text[ply], "%s", text);
    r->hash[ply] = hash_after;
    r->n++;
    return CAS_OK;
}

void worker_games_play(const struct cas_plugin *plugin, const char *data, const char *a,
                       const char *b, uint64_t seed, int isolated,
                       struct worker_games_record *out)
{
    struct cas__isolation iso = {.mode = isolated ? CAS__ISOLATE_WORKER
                                                  : CAS__ISOLATE_IN_PROCESS};
    struct cas__match m;
    struct cas__session s;
    struct cas__agent *agents[2];
    char err[512];
    size_t n;
    memset(out, 0, sizeof *out);
    struct cas_option_value *options = cas__option_defaults(plugin, &n);
    cas__worker_use_batches(&cas__agent_batches); /* as main() does */
    if (cas__match_open_isolated(&m, &iso, plugin, data, options, n, NULL, 0, 2, err,
                                 sizeof err))
        fail_msg("cannot open %s: %s", plugin->id, err);
    free(options);
    assert_int_equal(m.isolated, isolated);
    assert_int_equal(cas__agent_new(a, &agents[0]), CAS_OK);
    assert_int_equal(cas__agent_new(b, &agents[1]), CAS_OK);
    assert_int_equal(cas__session_init(&s, &m, seed, agents, NULL), CAS_OK);
    s.hooks = (struct cas__session_hooks){.ctx = out, .on_action = record_action};
    FILE *transcript = fmemopen(out->transcript, sizeof out->transcript - 1, "w");
    assert_non_null(transcript);
    s.out = transcript;
    s.viewer = CAS_VIEWER_OMNISCIENT;
    int rc = cas__session_run(&s);
    if (rc != CAS_OK)
        fail_msg("%s did not finish (%d): %s", plugin->id, rc, s.error);
    assert_int_equal(m.vt->returns(s.state, out->scores, 2), CAS_OK);
    fclose(transcript);
    cas__session_free(&s);
    cas__agent_free(agents[0]);
    cas__agent_free(agents[1]);
    cas__match_close(&m);
}

void worker_games_compare(const struct cas_plugin *plugin, const char *data, const char *a,
                          const char *b, uint64_t seed)
{
    struct worker_games_record *in = malloc(sizeof *in), *out = malloc(sizeof *out);
    assert_non_null(in);
    assert_non_null(out);
    worker_games_play(plugin, data, a, b, seed, 0, in);
    worker_games_play(plugin, data, a, b, seed, 1, out);
    assert_true(in->n > 0);
    assert_int_equal(in->n, out->n);
    for (size_t i = 0; i < in->n; i++) {
        assert_string_equal(in->text[i], out->text[i]);
        assert_int_equal(in->hash[i], out->hash[i]);
    }
    assert_memory_equal(in->scores, out->scores, sizeof in->scores);
    assert_string_equal(in->transcript, out->transcript);
    free(in);
    free(out);
}
