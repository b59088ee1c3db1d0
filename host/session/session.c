/*
 * session.c — the decision loop of one game: ask the actor's agent or draw
 * chance, apply, print the move and the events its viewer may see, tell the
 * hooks (the save journal), and report the end.
 */
#include "session.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "agent_ops.h"
#include "random_play.h"
#include "term.h"

#define SESSION_TEXT_MAX 512

/* Explain a failure in s->error, prefixed with the ply; returns rc. */
static CAS_PRINTF(3, 4) int fail(struct cas__session *s, int rc, const char *fmt, ...)
{
    va_list args;
    int len = snprintf(s->error, sizeof s->error, "ply %" PRIu32 ": ", s->ply);
    va_start(args, fmt);
    vsnprintf(s->error + len, sizeof s->error - (size_t)len, fmt, args);
    va_end(args);
    return rc;
}

int cas__session_init(struct cas__session *s, struct cas__match *match,
                      uint64_t seed, struct cas__agent **agents,
                      char **player_names)
{
    memset(s, 0, sizeof *s);
    s->match = match;
    s->seed = seed;
    s->agents = agents;
    s->player_names = player_names;
    s->viewer = CAS_VIEWER_PUBLIC;
    s->format = CAS_RENDER_TEXT;
    s->undo.actor = -1;
    int rc = match->vt->state_new(match->game, &s->state);
    if (rc != CAS_OK) {
        s->state = NULL;
        return fail(s, rc, "%s: cannot create the first state (%d): %s",
                    match->plugin->id, rc, cas__match_reason(match, rc));
    }
    s->hash = match->vt->hash(s->state);
    return CAS_OK;
}

static const char *player_name(const struct cas__session *s, int p);

/* New information: nothing before it may be taken back any more. */
static void forget_undo(struct cas__session *s)
{
    for (size_t i = 0; i < s->undo.count; i++)
        s->match->vt->state_free(s->undo.steps[i].before);
    s->undo.count = 0;
    s->undo.actor = -1;
}

void cas__session_free(struct cas__session *s)
{
    forget_undo(s);
    free(s->undo.steps);
    s->undo.steps = NULL;
    s->undo.cap = 0;
    if (s->state)
        s->match->vt->state_free(s->state);
    s->state = NULL;
    cas__actions_free(&s->scratch);
}

/* Whether `actor`'s decisions are kept to be taken back. */
static int takes_back(const struct cas__session *s, int actor)
{
    return actor >= 0 && actor < s->match->nplayers && s->agents && s->agents[actor] &&
           s->agents[actor]->ops->takes_back;
}

/* Before `actor` applies `text` to the current state: keep the state if
 * the actor may take it back, and forget what came before if the action
 * is new information for everyone else. */
static int remember_before(struct cas__session *s, int actor, const char *text)
{
    if (actor != s->undo.actor)
        forget_undo(s);
    if (!takes_back(s, actor))
        return CAS_OK;
    struct cas__undo *u = &s->undo;
    if (u->count == u->cap) {
        size_t cap = u->cap ? u->cap * 2 : 4;
        struct cas__undo_step *steps = realloc(u->steps, cap * sizeof *steps);
        if (!steps)
            return fail(s, CAS_ENOMEM, "no memory to keep a decision for undo");
        u->steps = steps;
        u->cap = cap;
    }
    struct cas__undo_step *step = &u->steps[u->count];
    int rc = s->match->vt->state_clone(s->state, &step->before);
    if (rc != CAS_OK)
        return fail(s, rc, "%s: cannot copy the state for undo (%d): %s",
                    s->match->plugin->id, rc, s->match->error);
    step->ply = s->ply;
    step->hash = s->hash;
    /* what snprintf "%s" would keep, without its cost at every move */
    size_t len = strnlen(text, sizeof step->text - 1);
    memcpy(step->text, text, len);
    step->text[len] = '\0';
    u->count++;
    u->actor = actor;
    return CAS_OK;
}

/* Take back the last kept decision: out of the journal first (on_undo),
 * then the state goes back to before it. */
static int take_back(struct cas__session *s)
{
    struct cas__undo *u = &s->undo;
    struct cas__undo_step *step = &u->steps[u->count - 1];
    if (s->hooks.on_undo) {
        int rc = s->hooks.on_undo(s->hooks.ctx, step->ply);
        if (rc < 0)
            return fail(s, rc, "taking back \"%s\" failed (%d)", step->text, rc);
    }
    int rc = s->match->vt->state_copy(s->state, step->before);
    if (rc != CAS_OK)
        return fail(s, rc, "%s: cannot restore the state (%d): %s", s->match->plugin->id, rc,
                    s->match->error);
    if (s->out)
        fprintf(s->out, "%s takes back: %s\n", player_name(s, u->actor), step->text);
    s->ply = step->ply;
    s->hash = step->hash;
    s->match->vt->state_free(step->before);
    if (--u->count == 0)
        u->actor = -1;
    return CAS_OK;
}

static const char *player_name(const struct cas__session *s, int p)
{
    if (s->player_names && s->player_names[p])
        return s->player_names[p];
    return cas__match_label(s->match, p);
}

/* Whether the session's output may show what `visible_to` may see. */
static int may_show(const struct cas__session *s, int visible_to)
{
    return visible_to == CAS_VIEWER_PUBLIC || s->viewer == CAS_VIEWER_OMNISCIENT ||
           visible_to == s->viewer;
}

static void print_event(void *ctx, const struct cas_event *event)
{
    struct cas__session *s = ctx;
    if (!cas__match_event_ok(s->match, event))
        return;
    if (s->hooks.on_event)
        s->hooks.on_event(s->hooks.ctx, event);
    if (s->out && event->text && may_show(s, event->visible_to))
        cas__term_wrapf(s->out, cas__term_width(s->out), 4, "  %s", event->text);
}

/* Apply `action` for `actor`, whose canonical text is `text`: print the
 * move (never a chance outcome: the plugin tells what is public through
 * its events) and the events, then the end if the game is over. */
static int apply_and_report(struct cas__session *s, int actor, cas_action action,
                            const char *text)
{
    struct cas__match *m = s->match;
    struct cas_event_sink sink = {.struct_size = sizeof sink, .ctx = s, .emit = print_event};
    if (s->out && actor >= 0)
        fprintf(s->out, "%s: %s\n", player_name(s, actor), text);
    m->error[0] = '\0';
    int rc = m->vt->apply(s->state, action, &sink);
    if (rc != CAS_OK)
        return fail(s, rc, "%s: \"%s\" (%d): %s", m->plugin->id, text, rc, cas__match_reason(m, rc));
    s->ply++;
    s->hash = m->vt->hash(s->state);
    if (s->out && cas__match_current(m, s->state) == CAS_ACTOR_TERMINAL)
        cas__session_report_end(s);
    return CAS_OK;
}

int cas__session_replay(struct cas__session *s, const char *text,
                        uint64_t expected_hash, int check_hash)
{
    struct cas__match *m = s->match;
    cas_action action;
    int actor = cas__match_current(m, s->state);
    m->error[0] = '\0';
    int rc = m->vt->parse_action(s->state, text, &action);
    if (rc != CAS_OK)
        return fail(s, rc, "%s refuses \"%s\" (%d): %s", m->plugin->id, text, rc,
                    m->error);
    rc = remember_before(s, actor, text);
    if (rc == CAS_OK)
        rc = apply_and_report(s, actor, action, text);
    if (rc != CAS_OK)
        return rc;
    if (check_hash && s->hash != expected_hash)
        return fail(s, CAS_EMISMATCH,
                    "after action %" PRIu32 " \"%s\" the state hash is %016" PRIx64
                    ", the record says %016" PRIx64 ": the game diverged",
                    s->ply - 1, text, s->hash, expected_hash);
    return CAS_OK;
}

/* Draw a chance outcome with the session's PRNG at this ply. */
static int draw_chance(struct cas__session *s, cas_action *out)
{
    struct cas__match *m = s->match;
    int rc = cas__random_action(m, s->state, &s->scratch, s->seed, s->ply, out);
    if (rc != CAS_OK)
        return fail(s, rc, "%s: no chance outcome could be drawn (%d; are the weights > 0?): %s",
                    m->plugin->id, rc, cas__match_reason(m, rc));
    return CAS_OK;
}

/* Ask the agent of `actor` for a decision. */
static int ask_agent(struct cas__session *s, int actor, cas_action *out)
{
    struct cas__match *m = s->match;
    if (actor >= m->nplayers || !s->agents || !s->agents[actor])
        return fail(s, CAS_EINVAL, "nobody plays seat %d", actor);
    int unlisted = s->agents[actor]->ops->draws_unlisted && cas__match_draws_actions(m);
    int rc = unlisted ? CAS_OK : cas__match_legal(m, s->state, &s->scratch);
    if (unlisted)
        s->scratch.count = 0; /* the random bot draws without a listing */
    else if (rc == CAS_OK && s->scratch.count == 0)
        rc = CAS_EINVAL;
    if (rc != CAS_OK)
        return fail(s, rc, "%s: no legal actions (%d): %s", m->plugin->id, rc, cas__match_reason(m, rc));
    struct cas__decision d = {
        .match = m, .state = s->state, .player = actor,
        .player_name = player_name(s, actor), .seed = s->seed, .ply = s->ply,
        .legal = &s->scratch,
        .undoable = s->undo.actor == actor ? (unsigned)s->undo.count : 0,
        .player_names = s->player_names,
    };
    rc = cas__agent_choose(s->agents[actor], &d, out);
    if (rc == CAS__AGENT_UNDO && d.undoable == 0)
        return fail(s, CAS_EINVAL, "the %s agent of %s took back with nothing to take back",
                    s->agents[actor]->ops->kind, d.player_name);
    if (rc == CAS_ECONFLICT) {
        s->quit = 1;
        return fail(s, rc, "%s quit", d.player_name);
    }
    if (rc != CAS_OK)
        return fail(s, rc, "the %s agent of %s failed (%d): %s",
                    s->agents[actor]->ops->kind, d.player_name, rc, cas__match_reason(m, rc));
    return CAS_OK;
}

int cas__session_step(struct cas__session *s)
{
    struct cas__match *m = s->match;
    char text[SESSION_TEXT_MAX];
    cas_action action;
    int actor = cas__match_current(m, s->state);
    if (actor == CAS_ACTOR_TERMINAL)
        return CAS_ETERMINAL;
    int rc = actor == CAS_ACTOR_CHANCE ? draw_chance(s, &action) : ask_agent(s, actor, &action);
    if (rc == CAS__AGENT_UNDO)
        return take_back(s);
    if (rc != CAS_OK)
        return rc;
    rc = cas__match_action_text(m, s->state, action, text, sizeof text);
    if (rc != CAS_OK)
        return fail(s, rc, "%s has no text for %s (%d): %s", m->plugin->id, text, rc,
                    cas__match_reason(m, rc));
    rc = remember_before(s, actor, text);
    if (rc == CAS_OK)
        rc = apply_and_report(s, actor, action, text);
    if (rc == CAS_OK && s->hooks.on_action) {
        char why[400] = "";
        rc = s->hooks.on_action(s->hooks.ctx, s->ply - 1, actor, text, s->hash, why,
                                sizeof why);
        if (rc < 0) /* not fail(): its ply would be the next one */
            snprintf(s->error, sizeof s->error, "action %" PRIu32 " \"%.120s\" could not "
                     "be saved: %.340s", s->ply - 1, text, why[0] ? why : "the journal failed");
    }
    return rc < 0 ? rc : CAS_OK;
}

/* The game, the seed (so the game can be replayed) and who sits where. */
static void announce(struct cas__session *s)
{
    int width = cas__term_width(s->out);
    if (s->ply == 0)
        cas__term_wrapf(s->out, width, 2, "%s, %d players, seed %" PRIu64, s->match->title,
                        s->match->nplayers, s->seed);
    else
        cas__term_wrapf(s->out, width, 2, "%s, resuming at ply %" PRIu32 ", seed %" PRIu64,
                        s->match->title, s->ply, s->seed);
    char seats[1024];
    size_t n = 0;
    for (int p = 0; p < s->match->nplayers && n < sizeof seats; p++)
        n += (size_t)snprintf(seats + n, sizeof seats - n, "%s%s as %s", p ? ", " : "",
                              player_name(s, p), cas__match_label(s->match, p));
    cas__term_wrap(s->out, width, 2, seats);
    fputc('\n', s->out);
}

int cas__session_run(struct cas__session *s)
{
    if (s->out)
        announce(s);
    int rc;
    s->error[0] = '\0';
    while ((rc = cas__session_step(s)) == CAS_OK)
        ;
    return rc == CAS_ETERMINAL ? CAS_OK : rc;
}

/* Print each player's return and mark the winners (the highest return). */
static void report_scores(struct cas__session *s, const int64_t *scores)
{
    int n = s->match->nplayers;
    int64_t best = scores[0];
    for (int p = 1; p < n; p++)
        if (scores[p] > best)
            best = scores[p];
    fprintf(s->out, "Scores:\n");
    for (int p = 0; p < n; p++)
        fprintf(s->out, "  %-16s %-8s %6" PRId64 "%s\n", player_name(s, p),
                cas__match_label(s->match, p), scores[p],
                scores[p] == best ? "  winner" : "");
}

void cas__session_report_end(struct cas__session *s)
{
    struct cas__match *m = s->match;
    int n = m->nplayers;
    if (!s->out)
        return;
    fprintf(s->out, "\nGame over after %" PRIu32 " actions.\n", s->ply);
    struct cas__term_capture board;
    if (cas__match_render(m, s->state, s->viewer, s->format,
                          cas__term_capture_begin(&board, s->out)) != CAS_OK)
        fprintf(s->out, "(the final board cannot be shown: %s)\n", m->error);
    cas__term_capture_end(&board);
    fputc('\n', s->out);
    int64_t *scores = calloc((size_t)n, sizeof *scores);
    if (!scores || m->vt->returns(s->state, scores, (size_t)n) != CAS_OK)
        fprintf(s->out, "(the scores cannot be read: %s)\n", m->error);
    else
        report_scores(s, scores);
    free(scores);
}
