/*
 * test_undo.c — taking back decisions in a session, driven with
 * Carcassonne (a turn is two decisions of one player: place, then deploy
 * or pass) and a human agent fed through a stream against a greedy bot:
 * undo goes back one own decision at a time, never past a chance outcome
 * or another player's decision; the journal hook removes the undone plies
 * before the state goes back; the game then goes on exactly as if the
 * undone choice had never been made (same texts, same hashes); bots never
 * keep anything to take back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "agent.h"
#include "session.h"

const struct cas_plugin *cas_plugin_entry(void);

#define MAX_PLIES 512

/* The journal as the hooks leave it: undone plies removed. */
struct journal {
    uint32_t n;
    char text[MAX_PLIES][48];
    uint64_t hash[MAX_PLIES];
    uint32_t undone_from[8]; /* every on_undo call's from_ply */
    int n_undos;
};

static int record_action(void *ctx, uint32_t ply, int actor, const char *text,
                         uint64_t hash_after, char *err, size_t errlen)
{
    struct journal *j = ctx;
    (void)actor, (void)err, (void)errlen;
    assert_int_equal(ply, j->n);
    assert_true(j->n < MAX_PLIES);
    snprintf(j->text[j->n], sizeof j->text[j->n], "%s", text);
    j->hash[j->n++] = hash_after;
    return CAS_OK;
}

static int take_back(void *ctx, uint32_t from_ply)
{
    struct journal *j = ctx;
    assert_true(from_ply < j->n);
    assert_true(j->n_undos < 8);
    j->undone_from[j->n_undos++] = from_ply;
    j->n = from_ply;
    return CAS_OK;
}

struct run {
    struct cas__match match;
    struct cas__agent *agents[2];
    struct cas__session session;
    struct journal journal;
    FILE *in, *out;
    char *output;
    size_t output_len;
};

/* Seat 0 a human typing `input`, seat 1 greedy (or both greedy when
 * input is NULL), seed 5, played until the human quits or the game ends. */
static int play(struct run *r, const char *input)
{
    char data[1024], err[512];
    const char *source = getenv("CASTELLAN_SOURCE_DIR");
    assert_non_null(source);
    snprintf(data, sizeof data, "%s/plugins/carcassonne/data", source);
    memset(r, 0, sizeof *r);
    const struct cas_plugin *plugin = cas_plugin_entry();
    size_t n;
    struct cas_option_value *options = cas__option_defaults(plugin, &n);
    if (cas__match_open(&r->match, plugin, data, options, n, NULL, 0, 2, err, sizeof err))
        fail_msg("cannot open carcassonne: %s", err);
    free(options);
    r->out = open_memstream(&r->output, &r->output_len);
    if (input) {
        r->in = fmemopen((void *)input, strlen(input), "r");
        assert_int_equal(cas__agent_human_new(r->in, r->out, CAS_RENDER_TEXT, &r->agents[0]),
                         CAS_OK);
    } else {
        assert_int_equal(cas__agent_new("greedy", &r->agents[0]), CAS_OK);
    }
    assert_int_equal(cas__agent_new("greedy", &r->agents[1]), CAS_OK);
    assert_int_equal(cas__session_init(&r->session, &r->match, 5, r->agents, NULL), CAS_OK);
    r->session.hooks = (struct cas__session_hooks){
        .ctx = &r->journal, .on_action = record_action, .on_undo = take_back};
    r->session.out = r->out;
    int rc = cas__session_run(&r->session);
    fflush(r->out);
    return rc;
}

static void close_run(struct run *r)
{
    cas__session_free(&r->session);
    cas__agent_free(r->agents[0]);
    cas__agent_free(r->agents[1]);
    cas__match_close(&r->match);
    if (r->in)
        fclose(r->in);
    fclose(r->out);
    free(r->output);
}

/* Placing, taking it back and placing elsewhere is the game where the
 * first placement was never made. */
static void undo_then_choose_again_is_the_other_game(void **unused)
{
    (void)unused;
    struct run with_undo, direct;
    /* ply 0 draws E; 4. place E 0,-1 180 at ply 1, taken back; then
     * 1. place E 0,1 90, deploy choice 1, and quit at the next turn */
    assert_int_equal(play(&with_undo, "4\nundo\n1\n1\nquit\n"), CAS_ECONFLICT);
    assert_int_equal(play(&direct, "1\n1\nquit\n"), CAS_ECONFLICT);
    assert_int_equal(with_undo.journal.n_undos, 1);
    assert_int_equal(with_undo.journal.undone_from[0], 1);
    assert_int_equal(with_undo.journal.n, direct.journal.n);
    assert_int_equal(with_undo.session.ply, direct.session.ply);
    for (uint32_t i = 0; i < direct.journal.n; i++) {
        assert_string_equal(with_undo.journal.text[i], direct.journal.text[i]);
        assert_true(with_undo.journal.hash[i] == direct.journal.hash[i]);
    }
    assert_true(with_undo.session.hash == direct.session.hash);
    assert_string_equal(with_undo.journal.text[1], "place E 0,1 90");
    assert_non_null(strstr(with_undo.output, "Red takes back: place E 0,-1 180\n"));
    close_run(&with_undo);
    close_run(&direct);
}

/* Two decisions of one turn go back one at a time, then no further: the
 * draw before them is new information. */
static void undo_stops_at_the_draw(void **unused)
{
    (void)unused;
    struct run r;
    assert_int_equal(play(&r, "1\nundo\nundo\nquit\n"), CAS_ECONFLICT);
    assert_int_equal(r.journal.n_undos, 1);
    assert_int_equal(r.journal.n, 1); /* the draw stays */
    assert_int_equal(r.session.ply, 1);
    assert_non_null(strstr(r.output, "Nothing to take back: a draw or another player's decision came after"));
    close_run(&r);
}

/* Red's deploy ends the turn, so Red's next decision comes after Blue's
 * and after a draw: nothing from the first turn can be taken back then. */
static void undo_never_crosses_another_players_decision(void **unused)
{
    (void)unused;
    struct run r;
    assert_int_equal(play(&r, "1\nundo\n1\n1\nundo\nquit\n"), CAS_ECONFLICT);
    assert_int_equal(r.journal.n_undos, 1);
    assert_int_equal(r.journal.undone_from[0], 1);
    /* draw, place, deploy, then Blue's turn (draw, place, deploy or pass)
     * and Red's draw: all kept */
    assert_true(r.journal.n >= 6);
    assert_int_equal(r.session.ply, r.journal.n);
    assert_non_null(strstr(r.output, "Nothing to take back"));
    close_run(&r);
}

/* Bots keep nothing to take back. */
static void bots_keep_nothing_to_undo(void **unused)
{
    (void)unused;
    struct run r;
    assert_int_equal(play(&r, NULL), CAS_OK);
    assert_int_equal(r.journal.n_undos, 0);
    assert_int_equal(r.session.undo.count, 0);
    assert_int_equal(r.session.undo.actor, -1);
    close_run(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(undo_then_choose_again_is_the_other_game),
        cmocka_unit_test(undo_stops_at_the_draw),
        cmocka_unit_test(undo_never_crosses_another_players_decision),
        cmocka_unit_test(bots_keep_nothing_to_undo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
