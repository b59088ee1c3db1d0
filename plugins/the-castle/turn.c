/*
 * turn.c — the flow of a game: a fresh state with the start spaces laid,
 * the draw (an unplaceable tile is set aside and another drawn), the
 * placement, the follower, the scoring of every completed feature in the
 * order the placer picks (the placer's own first), the face-down wall
 * tile revealed by chance when a score lands on its tower, the extra-turn
 * wall tile at the end of a turn, and the game end.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "castle.h"

static void emit(const struct cas_event_sink *ev, enum cas_event_kind kind, int player,
                 int points, const char *fmt, va_list args)
{
    char text[256];
    vsnprintf(text, sizeof text, fmt, args);
    struct cas_event e = {.struct_size = sizeof e, .kind = kind, .player = player,
                          .visible_to = CAS_VIEWER_PUBLIC, .points = points, .text = text};
    ev->emit(ev->ctx, &e);
}

void note(const struct cas_event_sink *ev, int player, const char *fmt, ...)
{
    if (!ev)
        return;
    va_list args;
    va_start(args, fmt);
    emit(ev, CAS_EVENT_INFO, player, 0, fmt, args);
    va_end(args);
}

void note_score(const struct cas_event_sink *ev, int player, int points, const char *fmt, ...)
{
    if (!ev)
        return;
    va_list args;
    va_start(args, fmt);
    emit(ev, CAS_EVENT_SCORE, player, points, fmt, args);
    va_end(args);
}

void state_reset(cas_state *s, const cas_game *game)
{
    const struct board *b = &game->board;
    memset(s, 0, offsetof(cas_state, nodes));
    s->game = game;
    s->phase = PH_DRAW;
    s->drawn = NONE8;
    s->last = NONE8;
    s->reveal_player = -1;
    memset(s->at, NONE8, sizeof s->at);
    for (int p = 0; p < NPLAYERS; p++) {
        s->p[p].supply = FOLLOWERS;
        s->p[p].keep_at = NONE8;
    }
    for (int w = 1; w <= WALL_KINDS; w++)
        s->pool[w] = b->wall_copies[w];
    for (int t = 0; t < b->ntowers; t++)
        s->tower_holds[t] = b->tower[t].holds;
    for (int k = 0; k < game->tiles.nkinds; k++) {
        s->bag[k] = game->tiles.kind[k].count;
        s->nbag = (uint8_t)(s->nbag + s->bag[k]);
    }
    for (int i = 0; i < b->nstarts; i++)
        place_tile(s, b->start[i].cell, b->start[i].kind, b->start[i].rot, NULL, NULL);
    s->turns = 1;
}

int turn_actor(const cas_state *s)
{
    switch (s->phase) {
    case PH_DRAW:
    case PH_REVEAL: return CAS_ACTOR_CHANCE;
    case PH_OVER: return CAS_ACTOR_TERMINAL;
    default: return s->turn;
    }
}

static void add(struct action_list *l, cas_action a)
{
    if (l->n < sizeof l->a / sizeof l->a[0])
        l->a[l->n++] = a;
}

/* The placements of `kind` (A_PLACE codes in ascending order) into l, or
 * with l NULL just whether there is one. */
static bool placements(const cas_state *s, int kind, struct action_list *l)
{
    const struct board *b = &s->game->board;
    const struct rotation *rot = s->game->tiles.kind[kind].rot;
    for (int i = 0; i < b->ninterior; i++) {
        uint8_t need, care;
        if (!cell_requirement(s, b->interior[i], &need, &care))
            continue;
        for (int r = 0; r < 4; r++)
            if ((rot[r].path_sides & care) == need) {
                if (!l)
                    return true;
                add(l, act(A_PLACE, b->interior[i], (unsigned)r));
            }
    }
    return l && l->n;
}

int score_candidates(const cas_state *s, uint16_t *out)
{
    int n = 0;
    for (int own = 1; own >= 0 && n == 0; own--)
        for (int i = 0; i < s->npending; i++) {
            int p = majority(s, s->pending[i]);
            if (p >= 0 && (p == s->turn) == own)
                out[n++] = s->pending[i];
        }
    return n;
}

void legal_list(const cas_state *s, struct action_list *l)
{
    l->n = 0;
    switch (s->phase) {
    case PH_DRAW:
        for (int k = 0; k < s->game->tiles.nkinds; k++)
            if (s->bag[k])
                add(l, act(A_DRAW, (unsigned)k, 0));
        break;
    case PH_REVEAL:
        for (int w = 1; w <= WALL_KINDS; w++)
            if (s->pool[w])
                add(l, act(A_REVEAL, (unsigned)w, 0));
        break;
    case PH_PLACE:
        placements(s, s->drawn, l);
        break;
    case PH_FOLLOW: {
        const struct placement *pl = &s->placed[s->last];
        for (int f = 0; s->p[s->turn].supply && f < s->game->tiles.kind[pl->kind].nf; f++) {
            const struct node *root = &s->nodes[root_of(s, pl->node_base + f)];
            if (!root->figs[0] && !root->figs[1])
                add(l, act(A_FOLLOW, (unsigned)f, 0));
        }
        add(l, act(A_PASS, 0, 0));
        break;
    }
    case PH_SCORE: {
        uint16_t cand[MAX_PENDING];
        int n = score_candidates(s, cand);
        for (int i = 0; i < n; i++) {
            add(l, act(A_SCORE, cand[i], 0));
            if (can_double(s, cand[i]))
                add(l, act(A_SCORE, cand[i], 1));
        }
        break;
    }
    case PH_EXTRA:
        add(l, act(A_EXTRA, 0, 0));
        add(l, act(A_END_TURN, 0, 0));
        break;
    default:
        break;
    }
}

static void start_turn(cas_state *s, int player, const struct cas_event_sink *ev)
{
    s->turn = (uint8_t)player;
    memset(s->p[player].fresh, 0, sizeof s->p[player].fresh);
    s->drawn = NONE8;
    s->last = NONE8;
    if (s->nbag == 0) {
        note(ev, -1, "every tile is placed or set aside: final scoring");
        final_scoring(s, ev);
        return;
    }
    s->phase = PH_DRAW;
}

static void end_turn(cas_state *s, const struct cas_event_sink *ev)
{
    if (s->nbag && usable(s, s->turn, W_EXTRA_TURN) > 0) {
        s->phase = PH_EXTRA;
        return;
    }
    s->turns++;
    start_turn(s, 1 - s->turn, ev);
}

/* Drop completed features nobody scores (no follower, or a tie). */
static void drop_unscored(cas_state *s, const struct cas_event_sink *ev)
{
    int kept = 0;
    for (int i = 0; i < s->npending; i++) {
        uint16_t r = s->pending[i];
        if (majority(s, r) < 0)
            score_completed(s, r, false, ev);
        else
            s->pending[kept++] = r;
    }
    s->npending = (uint8_t)kept;
}

static void unpend(cas_state *s, unsigned root)
{
    int kept = 0;
    for (int i = 0; i < s->npending; i++)
        if (s->pending[i] != root)
            s->pending[kept++] = s->pending[i];
    s->npending = (uint8_t)kept;
}

/* Score on until a decision: a reveal, the placer's choice, the turn's end. */
static void score_on(cas_state *s, const struct cas_event_sink *ev)
{
    for (;;) {
        if (s->reveal_player >= 0) {
            s->phase = PH_REVEAL;
            return;
        }
        drop_unscored(s, ev);
        uint16_t cand[MAX_PENDING];
        int n = score_candidates(s, cand);
        if (n == 0) {
            end_turn(s, ev);
            return;
        }
        if (n > 1 || can_double(s, cand[0])) {
            s->phase = PH_SCORE;
            return;
        }
        unpend(s, cand[0]);
        score_completed(s, cand[0], false, ev);
    }
}

static void apply_draw(cas_state *s, int kind, const struct cas_event_sink *ev)
{
    const struct tile_kind *k = &s->game->tiles.kind[kind];
    s->bag[kind]--;
    s->nbag--;
    if (placements(s, kind, NULL)) {
        s->drawn = (uint8_t)kind;
        s->phase = PH_PLACE;
        return;
    }
    s->set_aside++;
    note(ev, s->turn, "%s cannot be placed anywhere: set aside for the rest of the game", k->id);
    if (s->nbag == 0)
        end_turn(s, ev);
}

static void apply_follow(cas_state *s, int local, const struct cas_event_sink *ev)
{
    const struct placement *pl = &s->placed[s->last];
    unsigned node = pl->node_base + (unsigned)local;
    struct node *root = &s->nodes[root_of(s, node)];
    s->figs[s->nfigs++] = (struct figure){.node = (uint16_t)node, .player = s->turn};
    s->p[s->turn].supply--;
    root->figs[s->turn]++;
    char name[64];
    feature_text(s, root_of(s, node), name, sizeof name);
    note(ev, s->turn, "%s puts a %s on %s", player_name(s->turn), role_names[root->cls], name);
}

void turn_apply(cas_state *s, cas_action a, const struct cas_event_sink *ev)
{
    switch (act_kind(a)) {
    case A_DRAW:
        apply_draw(s, (int)act_a(a), ev);
        return;
    case A_PLACE: {
        uint16_t done[MAX_PENDING];
        int ndone = 0;
        s->last = (uint8_t)place_tile(s, (int)act_a(a), s->drawn, (int)act_b(a), done, &ndone);
        memcpy(s->pending, done, sizeof done[0] * (size_t)ndone);
        s->npending = (uint8_t)ndone;
        s->drawn = NONE8;
        s->phase = PH_FOLLOW;
        return;
    }
    case A_FOLLOW:
        apply_follow(s, (int)act_a(a), ev);
        score_on(s, ev);
        return;
    case A_PASS:
        score_on(s, ev);
        return;
    case A_SCORE:
        unpend(s, act_a(a));
        score_completed(s, act_a(a), act_b(a) != 0, ev);
        score_on(s, ev);
        return;
    case A_REVEAL: {
        int w = (int)act_a(a), p = s->reveal_player;
        s->pool[w]--;
        s->p[p].held[w]++;
        s->p[p].fresh[w]++;
        s->reveal_player = -1;
        note(ev, p, "%s takes wall tile %d (%s) from its tower", player_name(p), w,
             effect_names[s->game->board.wall_effect[w]]);
        score_on(s, ev);
        return;
    }
    case A_EXTRA:
        use_wall_tile(s, s->turn, W_EXTRA_TURN);
        note(ev, s->turn, "%s uses an extra-turn wall tile", player_name(s->turn));
        s->turns++;
        start_turn(s, s->turn, ev);
        return;
    case A_END_TURN:
        s->turns++;
        start_turn(s, 1 - s->turn, ev);
        return;
    default:
        return;
    }
}
