/*
 * results_json.c — a saved game's results as JSON, for programs: the game,
 * its players, the scores after any ply and every event up to it, with
 * the actions for `replay --json` (schema: docs/results.schema.json).
 * The journal is replayed with every hash checked, as replay does.
 */
#include "results_json.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

#define RESULTS_FORMAT 1

struct collector {
    FILE *out;
    int viewer;        /* whose events may be shown */
    size_t ply;        /* the action being replayed */
    int events;        /* events written so far */
};

static void json_string(FILE *out, const char *text)
{
    fputc('"', out);
    for (const unsigned char *p = (const unsigned char *)(text ? text : ""); *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(out, "\\%c", *p);
        else if (*p == '\n')
            fputs("\\n", out);
        else if (*p < 0x20 || *p == 0x7f)
            fprintf(out, "\\u%04x", *p);
        else
            fputc(*p, out);
    }
    fputc('"', out);
}

static const char *kind_name(enum cas_event_kind kind)
{
    switch (kind) {
    case CAS_EVENT_SCORE: return "score";
    case CAS_EVENT_END: return "end";
    default: return "info";
    }
}

static void collect_event(void *ctx, const struct cas_event *e)
{
    struct collector *c = ctx;
    if (e->visible_to != CAS_VIEWER_PUBLIC && c->viewer != CAS_VIEWER_OMNISCIENT &&
        e->visible_to != c->viewer)
        return;
    fprintf(c->out, "%s\n    {\"ply\": %zu, \"kind\": \"%s\", \"player\": %d, \"points\": %" PRId64
            ", \"text\": ", c->events++ ? "," : "", c->ply, kind_name(e->kind), e->player,
            e->points);
    json_string(c->out, e->text);
    if (CAS_HAS_FIELD(e, struct cas_event, final) && e->category) {
        fputs(", \"category\": ", c->out);
        json_string(c->out, e->category);
        if (e->subject) {
            fputs(", \"subject\": ", c->out);
            json_string(c->out, e->subject);
        }
        fprintf(c->out, ", \"final\": %s", e->final ? "true" : "false");
    }
    fputc('}', c->out);
}

static int next_ply(void *ctx, struct cas__revived *r, size_t i)
{
    struct collector *c = ctx;
    (void)r;
    c->ply = i + 1;
    return 0;
}

static void write_head(const struct cas__saves_game *g, size_t upto, FILE *out)
{
    fprintf(out, "{\n  \"castellan_results\": %d,\n  \"id\": %lld,\n  \"game\": {\"id\": ",
            RESULTS_FORMAT, (long long)g->id);
    json_string(out, g->game.id);
    fputs(", \"version\": ", out);
    json_string(out, g->game.version);
    fputs("},\n  \"expansions\": [", out);
    for (size_t i = 0; i < g->n_expansions; i++) {
        fputs(i ? ", {\"id\": " : "{\"id\": ", out);
        json_string(out, g->expansions[i].id);
        fputs(", \"version\": ", out);
        json_string(out, g->expansions[i].version);
        fputc('}', out);
    }
    fprintf(out, "],\n  \"seed\": \"%" PRIu64 "\",\n  \"status\": \"%s\",\n  \"plies\": %zu,"
            "\n  \"ply\": %zu,\n  \"players\": [", g->seed,
            g->status == CAS__SAVES_FINISHED ? "finished" : "playing", g->n_actions, upto);
    for (size_t i = 0; i < g->n_players; i++) {
        fprintf(out, "%s{\"seat\": %zu, \"name\": ", i ? ", " : "", i);
        json_string(out, g->players[i].name);
        fputs(", \"agent\": ", out);
        json_string(out, g->players[i].agent);
        fputc('}', out);
    }
    fputs("],\n  \"events\": [", out);
}

static int write_scores(struct cas__revived *r, FILE *out)
{
    struct cas__session *s = &r->session;
    size_t n = r->saved->n_players;
    int64_t *scores = calloc(n ? n : 1, sizeof *scores);
    if (!scores || s->match->vt->returns(s->state, scores, n) != CAS_OK) {
        free(scores);
        return CAS_EINVAL;
    }
    int over = cas__match_current(s->match, s->state) == CAS_ACTOR_TERMINAL;
    fprintf(out, "\n  ],\n  \"over\": %s,\n  \"scores\": [", over ? "true" : "false");
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s%" PRId64, i ? ", " : "", scores[i]);
    fputc(']', out);
    free(scores);
    return CAS_OK;
}

static void write_actions(const struct cas__saves_game *g, size_t upto, FILE *out)
{
    fputs(",\n  \"actions\": [", out);
    for (size_t i = 0; i < upto; i++) {
        const struct cas__saves_action *a = &g->actions[i];
        fprintf(out, "%s\n    {\"ply\": %zu, \"actor\": %d, \"text\": ", i ? "," : "", i,
                a->actor);
        json_string(out, a->text);
        fprintf(out, ", \"hash\": \"%016" PRIx64 "\"}", a->hash);
    }
    fputs(upto ? "\n  ]" : "]", out);
}

int cas__results_json(struct cas__revived *r, size_t upto, int with_actions, FILE *out)
{
    const struct cas__saves_game *g = r->saved;
    struct cas__session *s = &r->session;
    struct collector c = {.out = out, .ply = 0};
    if (upto > g->n_actions)
        upto = g->n_actions;
    /* As replay shows it: a finished game hides nothing any more. */
    c.viewer = g->status == CAS__SAVES_FINISHED ? CAS_VIEWER_OMNISCIENT : CAS_VIEWER_PUBLIC;
    s->out = NULL;
    s->hooks.ctx = &c;
    s->hooks.on_event = collect_event;
    write_head(g, upto, out);
    int rc = cas__revive_replay(r, upto, 0, next_ply, &c);
    if (rc != CAS_OK)
        return rc;
    if ((rc = write_scores(r, out)) != CAS_OK) {
        snprintf(r->error, sizeof r->error, "%s cannot tell the scores", g->game.id);
        return rc;
    }
    if (with_actions)
        write_actions(g, upto, out);
    fputs("\n}\n", out);
    return ferror(out) ? CAS_EIO : CAS_OK;
}

int cas__results_json_command(const struct cas__saves_args *a, const struct cas__saves_game *g,
                              int with_actions)
{
    uint64_t upto = SIZE_MAX;
    int status = a->ply ? cas__cli_number(a->cmd + strlen("castellan "), "--ply", a->ply, 0,
                                          g->n_actions, &upto)
                        : 0;
    if (status)
        return status;
    struct cas__revived r;
    char origin[64], *text = NULL;
    size_t len = 0;
    snprintf(origin, sizeof origin, "game %lld", (long long)g->id);
    if (cas__revive_open(&r, g, origin, a->plugin_path, 0, NULL)) {
        fprintf(stderr, "%s: %s\n", a->cmd, r.error);
        return 1;
    }
    FILE *json = open_memstream(&text, &len);
    status = !json || cas__results_json(&r, (size_t)upto, with_actions, json) != CAS_OK;
    if (json)
        fclose(json);
    if (status)
        fprintf(stderr, "%s: %s\n", a->cmd, r.error[0] ? r.error : "out of memory");
    else
        fwrite(text, 1, len, stdout);
    free(text);
    cas__revive_close(&r);
    return status;
}
