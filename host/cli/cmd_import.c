/*
 * cmd_import.c — `castellan import FILE...`: store plain-text game records.
 * Each record is validated completely before the store is written: its
 * plugins must be installed, every action legal and every hash equal, its
 * result the replay's.  Then, if the store passed PRAGMA integrity_check
 * when it was opened, the record is written in one transaction, so a bad
 * record changes nothing.  Many records show a progress line on a
 * terminal.  A .jcz file (JCloisterZone) is converted first (import_foreign.c).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "import_foreign.h"
#include "revive.h"
#include "saves_cli.h"
#include "term.h"

static const char usage[] =
    "usage: castellan import FILE... [--database FILE] [--plugin-path DIR[:DIR...]]\n"
    "\n"
    "Replays each game record FILE (\"-\" for standard input; the format is in\n"
    "docs/saves.md) with the installed plugins, checking that every action\n"
    "is legal and every state hash the record gives equal (a record may give\n"
    "none, as one written by hand or by another program), then saves it as a\n"
    "new game with every hash.  Nothing of a record is saved if anything in it\n"
    "is wrong; the other records are still imported, and the exit status is 1.\n"
    "Import never plays on: an unfinished game is saved where the record\n"
    "stops, and can be continued with `castellan resume ID`.  On a terminal,\n"
    "many records show a progress line.\n"
    "\n"
    "A FILE ending in .jcz is a JCloisterZone 5.x saved game: the game plugin\n"
    "converts it (sets, players, and every PLACE_TILE, DEPLOY_MEEPLE, PASS and\n"
    "COMMIT, each tile drawn as its PLACE_TILE says) and it is imported as a\n"
    "record without hashes (docs/saves.md lists what is read).  A set, rule,\n"
    "element or message castellan does not implement is refused, naming it and\n"
    "its line in the file; so is a JCloisterZone 4.x save (XML or JSON).  A\n"
    "file may start with a UTF-8 byte order mark.\n";

/* The replayed outcome must agree with what the record claims; adopt the
 * replay's status and scores.  0, or 1 with why explaining. */
static int settle_result(struct cas__revived *r, struct cas__saves_game *g,
                         const char *file, char *why, size_t cap)
{
    struct cas__session *s = &r->session;
    int over = cas__match_current(s->match, s->state) == CAS_ACTOR_TERMINAL;
    if (!over && g->status == CAS__SAVES_FINISHED) {
        snprintf(why, cap, "%s: says 'Status: finished', but the game is not over after "
                 "its last action (ply %zu); remove the Status and Result lines to import "
                 "it unfinished", file, g->n_actions);
        return 1;
    }
    if (!over)
        return 0;
    int64_t *scores = calloc(g->n_players, sizeof *scores);
    if (!scores || s->match->vt->returns(s->state, scores, g->n_players)) {
        free(scores);
        snprintf(why, cap, "%s: cannot read the final scores", file);
        return 1;
    }
    int status = 0;
    for (size_t i = 0; i < g->n_players && !status; i++) {
        if (g->players[i].has_score && g->players[i].score != scores[i]) {
            snprintf(why, cap, "%s: 'Result' gives %s %" PRId64 " points, the replay %" PRId64,
                     file, g->players[i].name, g->players[i].score, scores[i]);
            status = 1;
        }
        g->players[i].has_score = 1;
        g->players[i].score = scores[i];
    }
    g->status = CAS__SAVES_FINISHED;
    free(scores);
    return status;
}

/* What take_hash needs: the record and the state before the action. */
struct taking {
    struct cas__saves_game *g;
    cas_state *before;
    int restore;     /* put back the draws a foreign format leaves out */
    size_t restored; /* how many it put back */
};

/* A hash-free line may use lenient notation (a field by one half-edge, a
 * road by its edges alone); the journal stores the canonical text, as if
 * castellan had played it. */
static int take_canonical_text(struct taking *t, struct cas__revived *r, size_t i)
{
    const struct cas_game_vtable *vt = r->session.match->vt;
    char text[512];
    cas_action action;
    if (vt->parse_action(t->before, t->g->actions[i].text, &action) ||
        vt->action_text(t->before, action, text, sizeof text) < 0)
        return CAS_OK; /* it replayed, so the given text stays good */
    if (strcmp(text, t->g->actions[i].text) == 0)
        return CAS_OK;
    char *canonical = strdup(text);
    if (!canonical)
        return CAS_ENOMEM;
    free(t->g->actions[i].text);
    t->g->actions[i].text = canonical;
    return CAS_OK;
}

/* After action i is replayed: its hash, where the record gave none, is the
 * one the game computed, so the stored journal checks every action. */
static int take_hash(void *ctx, struct cas__revived *r, size_t i)
{
    struct taking *t = ctx;
    struct cas__saves_game *g = t->g;
    if (g->actions[i].actor_unknown) {
        g->actions[i].actor = cas__match_current(r->session.match, t->before);
        g->actions[i].actor_unknown = 0;
    }
    if (g->actions[i].hashless) {
        int rc = take_canonical_text(t, r, i);
        if (rc)
            return rc;
        g->actions[i].hash = r->session.hash;
        g->actions[i].hashless = 0;
    }
    const struct cas_game_vtable *vt = r->session.match->vt;
    int rc = t->restore ? cas__foreign_restore_draws(vt, r->session.state, g, i) : CAS_OK;
    if (rc < 0)
        return rc;
    t->restored += (size_t)rc;
    return vt->state_copy(t->before, r->session.state);
}

/* Parse and replay the record `file` into *g (which the caller frees),
 * putting back the draws a foreign format leaves out when `restore`
 * (*restored counts them); 0 when it may be stored, else 1 with why
 * explaining. */
static int replay_record(const struct cas__saves_args *a, const char *file,
                         struct cas__saves_game *g, int restore, size_t *restored,
                         struct cas__strlist *notes, char *why, size_t cap)
{
    struct cas__revived r;
    const char *format = cas__foreign_format(file);
    if (format ? cas__foreign_read(file, format, a->plugin_path, g, notes, why, cap)
               : cas__record_read_file(file, g, why, cap))
        return 1;
    cas__saves_game_printable(g); /* kept so: every later print is safe */
    if (cas__revive_open(&r, g, file, a->plugin_path, 0, NULL)) {
        snprintf(why, cap, "%s", r.error);
        return 1;
    }
    int status = 0;
    struct taking taking = {g, NULL, restore && format, 0};
    const struct cas_game_vtable *vt = r.session.match->vt;
    if (vt->state_clone(r.session.state, &taking.before)) {
        snprintf(why, cap, "%s: out of memory", file);
        status = 1;
    } else if (cas__revive_replay(&r, SIZE_MAX, 0, take_hash, &taking)) {
        /* SIZE_MAX: the draws take_hash puts back are replayed too */
        snprintf(why, cap, "%s", r.error);
        status = 1;
    } else {
        status = settle_result(&r, g, file, why, cap);
    }
    *restored = taking.restored;
    if (taking.before)
        vt->state_free(taking.before);
    cas__revive_close(&r);
    return status;
}

/* Each of a foreign file's warnings ("LINE TEXT", cas__foreign_read), with
 * the ply of the last action from that line (a tile's placement, not its
 * draw): where castellan keeps a reading that plays or scores otherwise
 * than the program that wrote it. */
static void print_notes(const char *file, const struct cas__saves_game *g,
                        const struct cas__strlist *notes)
{
    for (size_t i = 0; i < notes->count; i++) {
        char *text;
        long line = strtol(notes->items[i], &text, 10);
        size_t ply = g->n_actions;
        while (ply > 0 && g->actions[ply - 1].line != line)
            ply--;
        ply = ply ? ply - 1 : 0;
        fprintf(stderr, "castellan import: %s:%ld (ply %zu): warning: %s\n", file, line, ply,
                text + (*text == ' '));
    }
}

/* Parse and replay the record `file`; 0 when it may be stored.  A foreign
 * record's left-out draws are put back where they fit nowhere (JCloisterZone
 * writes no tile it discarded); that is kept only if the game then ends, as
 * the foreign game did: of an unfinished game the file does not say which
 * tiles were drawn, so it is replayed again as written. */
static int validate(const struct cas__saves_args *a, const char *file,
                    struct cas__saves_game *g)
{
    char why[1100];
    size_t restored = 0;
    struct cas__strlist notes = {0};
    int status = replay_record(a, file, g, 1, &restored, &notes, why, sizeof why);
    if (restored && (status || g->status != CAS__SAVES_FINISHED)) {
        cas__saves_game_free(g);
        cas__strlist_free(&notes);
        status = replay_record(a, file, g, 0, &restored, &notes, why, sizeof why);
    }
    print_notes(file, g, &notes);
    cas__strlist_free(&notes);
    if (status)
        fprintf(stderr, "castellan import: %s\n", why);
    return status;
}

/* Validate and store one record; *store is opened (and checked) at the
 * first record that is good.  0, or 1 after explaining why not. */
static int import_one(const struct cas__saves_args *a, const char *file,
                      struct cas__saves **store)
{
    struct cas__saves_game g;
    int status = validate(a, file, &g);
    if (status)
        goto free_game;
    if (!*store) {
        *store = cas__saves_args_open(a, CAS__STORE_CREATE);
        /* A store that is already damaged gets nothing more written into it. */
        if (*store && cas__saves_integrity_check(*store)) {
            status = cas__saves_args_fail(a, *store);
            cas__saves_close(*store);
            *store = NULL;
            goto free_game;
        }
        if (!*store) {
            status = 1;
            goto free_game;
        }
    }
    if (cas__saves_game_insert(*store, &g))
        status = cas__saves_args_fail(a, *store);
    else
        printf("Imported %s as game %lld (%zu plies, %s).\n", file, (long long)g.id,
               g.n_actions, g.status == CAS__SAVES_FINISHED ? "finished" : "unfinished");
free_game:
    cas__saves_game_free(&g);
    return status;
}

int cas__cmd_import(int argc, char **argv)
{
    struct cas__saves_args a;
    struct cas__saves *store = NULL;
    struct cas__progress progress;
    int status = cas__saves_args_parse(&a, "import", argc, argv, CAS__ARG_PLUGIN_PATH, 1,
                                       CAS__SAVES_MAX_POSITIONAL, usage);
    if (status >= 0)
        return status;
    status = 0;
    cas__progress_begin(&progress, a.n_positional > 1 ? stderr : NULL, "import", "records",
                        (uint64_t)a.n_positional);
    for (int i = 0; i < a.n_positional; i++) {
        status |= import_one(&a, a.positional[i], &store);
        cas__progress_update(&progress, (uint64_t)i + 1);
    }
    cas__progress_end(&progress);
    cas__saves_close(store);
    return status;
}
