/*
 * turn.c — the turn as a machine of stages: [before-draw phases] -> draw
 * (chance) -> place -> [after-place phases] -> deploy or pass ->
 * [after-deploy phases] -> scoring -> [after-scoring phases] -> turn-end
 * hooks -> [turn-end phases] -> next player (or the same one again for an
 * extra turn).  Bracketed slots run the expansion phases registered there;
 * a phase whose actor() is a player stops the machine for that decision.
 *
 * A drawn tile that fits nowhere is discarded at once (event) and the
 * chance node repeats; the game ends at a turn start with an empty bag
 * unless an expansion's bag_empty hook passes the turn on (a final round
 * of tiles from hand).
 */
#include "carc.h"

#include <stdio.h>

static void enter(struct cas_state *s, enum carc_stage stage)
{
    s->stage = (uint8_t)stage;
    s->xphase = 0;
}

/* The first of the phases in `pending` (bits from s->xphase on) whose
 * actor has a decision: the machine stops there, 1.  Else 0, with xphase
 * past them all.  Out of line, so the turn machine stays small in a game
 * without phases. */
static __attribute__((noinline)) int ask_phases(struct cas_state *s, unsigned pending)
{
    const struct cas_game *g = s->game;
    for (; pending; pending &= pending - 1) {
        s->xphase = (uint8_t)__builtin_ctz(pending);
        const struct carc_phase_ref *ph = &g->phases[s->xphase];
        int actor = ph->phase->actor(g->exp[ph->exp].xctx, CARC_COF(s));
        if (actor == CAS_CARC_PHASE_SKIP)
            continue;
        if (actor == CAS_CARC_PHASE_RETIRE) {
            s->retired = (uint16_t)(s->retired | 1u << s->xphase);
            continue;
        }
        s->resume = s->stage;
        s->stage = ST_XPHASE;
        s->xactor = (int8_t)actor;
        return 1;
    }
    s->xphase = (uint8_t)g->nphases;
    return 0;
}

/* Stop at the next phase of this slot that has a decision; 1 if stopped.
 * The slot's own phases are a mask: only its set bits are visited, less
 * the phases retired. */
static inline __attribute__((always_inline)) int slot_waits(struct cas_state *s,
                                                             enum cas_carc_slot slot)
{
    const struct cas_game *g = s->game;
    if (s->xphase >= g->nphases)
        return 0;
    unsigned pending =
        (unsigned)(g->slot_phases[slot] & ~s->retired) >> s->xphase << s->xphase;
    if (pending)
        return ask_phases(s, pending);
    s->xphase = (uint8_t)g->nphases;
    return 0;
}

static void next_player(struct cas_state *s)
{
    if (s->extra_turn && !s->in_extra_turn) {
        s->in_extra_turn = 1;
    } else {
        int next = s->player + 1; /* no division a turn */
        s->player = (uint8_t)(next == s->game->nplayers ? 0 : next);
        s->in_extra_turn = 0;
    }
    s->extra_turn = 0;
    enter(s, ST_TURN_START);
}

/* Final scoring, then the END event naming the winners. */
static void end_game(struct cas_state *s)
{
    cas__carc_final_scoring(s);
    enter(s, ST_END);
    if (!s->sink)
        return; /* nobody to tell: a bot's playout */
    char text[160];
    cas__carc_winners_text(s, text, sizeof text);
    cas__carc_event(s, CAS_EVENT_END, -1, 0, text);
}

/* Runs the machine from the stored stage to the next decision.  The
 * stages follow one another as labels, so each goes straight on to the
 * next without a dispatch; the switch only finds where to resume. */
void cas__carc_advance(struct cas_state *s)
{
    switch ((enum carc_stage)s->stage) {
    case ST_TURN_START: goto turn_start;
    case ST_SLOT_BEFORE_DRAW: goto before_draw;
    case ST_SLOT_AFTER_PLACE: goto after_place;
    case ST_SLOT_AFTER_DEPLOY: goto after_deploy;
    case ST_SCORE: goto score;
    case ST_SLOT_AFTER_SCORING: goto after_scoring;
    case ST_TURN_FINISH: goto turn_finish;
    case ST_SLOT_TURN_END: goto turn_end;
    default: return; /* a decision is pending */
    }
turn_start:
    s->placed = -1;
    enter(s, ST_SLOT_BEFORE_DRAW);
before_draw:
    if (slot_waits(s, CAS_CARC_BEFORE_DRAW))
        return;
    if (s->bag_left == 0) {
        if (s->game->nexp > 0 && cas__carc_hook_bag_empty(s)) {
            next_player(s);
            goto turn_start;
        }
        end_game(s);
        return;
    }
    enter(s, ST_DRAW);
    return;
after_place:
    if (slot_waits(s, CAS_CARC_AFTER_PLACE))
        return;
    enter(s, ST_DEPLOY);
    return;
after_deploy:
    if (slot_waits(s, CAS_CARC_AFTER_DEPLOY))
        return;
    enter(s, ST_SCORE);
score:
    cas__carc_score_turn(s);
    cas__carc_hook_turn_scoring(s);
    enter(s, ST_SLOT_AFTER_SCORING);
after_scoring:
    if (slot_waits(s, CAS_CARC_AFTER_SCORING))
        return;
    enter(s, ST_TURN_FINISH);
turn_finish:
    cas__carc_hook_turn_end(s);
    enter(s, ST_SLOT_TURN_END);
turn_end:
    if (slot_waits(s, CAS_CARC_TURN_END))
        return;
    next_player(s);
    goto turn_start;
}

int cas__carc_current(const struct cas_state *s)
{
    switch ((enum carc_stage)s->stage) {
    case ST_DRAW: return CAS_ACTOR_CHANCE;
    case ST_PLACE:
    case ST_DEPLOY: return s->player;
    case ST_XPHASE: return s->xactor;
    default: return CAS_ACTOR_TERMINAL;
    }
}

static int phase_legal(const struct cas_state *s, cas_action *buf, size_t cap,
                       size_t *count)
{
    const struct carc_phase_ref *ph = &s->game->phases[s->xphase];
    int rc = ph->phase->legal(s->game->exp[ph->exp].xctx, CARC_COF(s), buf, cap, count);
    if (rc != CAS_OK && rc != CAS_ENOSPC)
        return rc;
    /* a short buffer holds the first payloads: wrap those too */
    for (size_t i = 0; i < *count && i < cap; i++)
        buf[i] = ACT_PHASE_CODE(s->xphase, buf[i]);
    return rc;
}

int cas__carc_legal(const struct cas_state *s, cas_action *buf, size_t cap,
                    size_t *count)
{
    switch ((enum carc_stage)s->stage) {
    case ST_DRAW: {
        size_t n = s->bag_kinds;
        for (size_t i = 0; i < n && i < cap; i++)
            buf[i] = ACT_DRAW_CODE(C_BAG_KINDS(s)[i]);
        *count = n;
        return n > cap ? CAS_ENOSPC : CAS_OK;
    }
    case ST_PLACE: return cas__carc_placements(s, s->drawn, buf, cap, count);
    case ST_DEPLOY: return cas__carc_deploy_actions(s, buf, cap, count);
    case ST_XPHASE: return phase_legal(s, buf, cap, count);
    default:
        *count = 0;
        return CAS_OK;
    }
}

/* The legal actions listed (into the stack, or a host block for a long
 * list) and the one at an index drawn below their count: random_action
 * for the decisions it draws no other way. */
static int pick_listed(const struct cas_state *s, const struct cas_rng *rng, cas_action *out)
{
    enum { ON_STACK = 256 };
    const struct cas_host *h = s->game->host;
    cas_action local[ON_STACK], *buf = local;
    size_t n = 0;
    int rc = cas__carc_legal(s, buf, ON_STACK, &n);
    if (rc == CAS_ENOSPC) {
        buf = h->alloc(h->ctx, n * sizeof *buf);
        rc = buf ? cas__carc_legal(s, buf, n, &n) : CAS_ENOMEM;
    }
    if (rc == CAS_OK && n == 0)
        rc = CAS_EINVAL;
    if (rc == CAS_OK)
        *out = buf[rng->below(rng->ctx, n)];
    if (buf != local)
        h->release(h->ctx, buf);
    return rc;
}

int cas__carc_random_action(const struct cas_state *s, const struct cas_rng *rng,
                            cas_action *out)
{
    switch ((enum carc_stage)s->stage) {
    case ST_PLACE: {
        int rc = cas__carc_random_placement(s, s->drawn, rng, out);
        return rc == CAS_ENOTFOUND ? pick_listed(s, rng, out) : rc;
    }
    case ST_DEPLOY:
    case ST_XPHASE: return pick_listed(s, rng, out);
    default: return CAS_EINVAL;
    }
}

static int phase_action_legal(const struct cas_state *s, cas_action a)
{
    if (ACT_PHASE_INDEX(a) != s->xphase || a != ACT_PHASE_CODE(s->xphase, a))
        return 0;
    const struct carc_phase_ref *ph = &s->game->phases[s->xphase];
    if (CAS_HAS_FIELD(ph->phase, struct cas_carc_phase, is_legal) && ph->phase->is_legal)
        return ph->phase->is_legal(s->game->exp[ph->exp].xctx, CARC_COF(s),
                                   a & CAS_CARC_PAYLOAD_MASK);
    cas_action buf[1024];
    size_t n = 0;
    if (phase_legal(s, buf, 1024, &n) != CAS_OK)
        return 0;
    for (size_t i = 0; i < n; i++)
        if (buf[i] == a)
            return 1;
    return 0;
}

int cas__carc_is_legal(const struct cas_state *s, cas_action a)
{
    const struct cas_game *g = s->game;
    switch (ACT_KIND(a)) {
    case ACT_DRAW:
        return s->stage == ST_DRAW && (a & 0xFFFFFFFFu) < (cas_action)g->nkinds &&
               a == ACT_DRAW_CODE(a & 0xFFFFFFFFu) && C_BAG(s)[a & 0xFFFFFFFFu] > 0;
    case ACT_PLACE:
        return s->stage == ST_PLACE && cas__carc_placement_legal(s, a, s->drawn);
    case ACT_DEPLOY: {
        if (s->stage != ST_DEPLOY || a != ACT_DEPLOY_CODE(ACT_DEPLOY_FIG(a),
                                                          ACT_DEPLOY_LOCAL(a)))
            return 0;
        int node = cas__carc_deploy_node(s, ACT_DEPLOY_FIG(a), ACT_DEPLOY_LOCAL(a));
        return node >= 0 && cas__carc_deploy_legal(s, s->player, ACT_DEPLOY_FIG(a), node);
    }
    case ACT_PASS:
        return s->stage == ST_DEPLOY && a == ACT_MAKE(ACT_PASS);
    case ACT_PHASE:
        return s->stage == ST_XPHASE && phase_action_legal(s, a);
    default:
        return 0;
    }
}

static void apply_draw(struct cas_state *s, int kind)
{
    cas__carc_bag_take(s, kind);
    if (cas__carc_fits_anywhere(s, kind)) {
        s->drawn = (uint16_t)kind;
        enter(s, ST_PLACE);
        return;
    }
    s->discarded++;
    char text[80];
    snprintf(text, sizeof text, "tile %s fits nowhere: removed from the game",
             s->game->kinds[kind].id);
    cas__carc_event(s, CAS_EVENT_INFO, -1, 0, text);
    if (s->bag_left == 0)
        enter(s, ST_SLOT_BEFORE_DRAW);
}

static void apply_phase(struct cas_state *s, cas_action a)
{
    const struct carc_phase_ref *ph = &s->game->phases[s->xphase];
    s->placed_by_phase = 0;
    int rc = ph->phase->apply(s->game->exp[ph->exp].xctx, CARC_OF(s),
                              a & CAS_CARC_PAYLOAD_MASK);
    s->stage = s->resume;
    if (rc != CAS_CARC_PHASE_AGAIN)
        s->xphase++;
    if (s->placed_by_phase) {
        s->placed_by_phase = 0;
        enter(s, ST_SLOT_AFTER_PLACE);
    }
}

/* A placement is checked and placed from one look-up of where it goes
 * (a spot code's spot is found by a walk of its group). */
static int apply_place(struct cas_state *s, cas_action a)
{
    int x, y, rot;
    if (s->stage != ST_PLACE || !cas__carc_placement_legal_at(s, a, s->drawn, &x, &y, &rot))
        return CAS_EILLEGAL;
    s->placed = (int16_t)cas__carc_place(s, s->drawn, x, y, rot, s->player);
    cas__carc_hook_tile_placed(s, s->placed);
    enter(s, ST_SLOT_AFTER_PLACE);
    cas__carc_advance(s);
    return CAS_OK;
}

int cas__carc_apply(struct cas_state *s, cas_action a)
{
    if (s->stage == ST_END)
        return CAS_ETERMINAL;
    if (ACT_KIND(a) == ACT_PLACE)
        return apply_place(s, a);
    if (!cas__carc_is_legal(s, a))
        return CAS_EILLEGAL;
    switch (ACT_KIND(a)) {
    case ACT_DRAW:
        apply_draw(s, (int)(a & 0xFFFFFFFFu));
        break;
    case ACT_DEPLOY:
        cas__carc_deploy(s, s->player, ACT_DEPLOY_FIG(a),
                         cas__carc_deploy_node(s, ACT_DEPLOY_FIG(a), ACT_DEPLOY_LOCAL(a)));
        enter(s, ST_SLOT_AFTER_DEPLOY);
        break;
    case ACT_PASS:
        enter(s, ST_SLOT_AFTER_DEPLOY);
        break;
    default:
        apply_phase(s, a);
        break;
    }
    cas__carc_advance(s);
    return CAS_OK;
}
