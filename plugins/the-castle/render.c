/*
 * render.c — the board inside its wall (3x3 characters a space), the
 * scores on the track, the towers and their wall tiles, followers, keeps,
 * the bag and whose decision it is; as TEXT, ANSI or JSON.  Nothing is
 * hidden: the face-down wall tiles are not chosen until they are taken
 * (a chance decision then), so no state holds a secret to leak.
 */
#include <stdio.h>
#include <string.h>

#include <castellan/outbuf.h>

#include "castle.h"

static const char *const players[NPLAYERS] = {"Red", "Blue"};
static const char *const phase_names[N_PHASES] = {"draw", "place", "follower", "score",
                                                  "reveal", "extra-turn", "over"};

const char *player_name(int p)
{
    return p >= 0 && p < NPLAYERS ? players[p] : "nobody";
}

/* Renders run at every step of a conformance check: the loops over cells,
 * tiles and towers write through a buffer rather than printf. */
struct view {
    const cas_state *s;
    bool ansi;
    struct cas_outbuf ob;
};

/* ------------------------------------------------------------ board */

static char class_glyph(int cls)
{
    return cls == C_HOUSE ? 'h' : cls == C_TOWER ? 't' : ' ';
}

/* The figure standing on placement `placed`, or -1. */
static int figure_on(const cas_state *s, int placed)
{
    for (int i = 0; i < s->nfigs; i++)
        if (s->nodes[s->figs[i].node].placed == placed)
            return i;
    return -1;
}

static char slot_glyph(const struct tile_kind *k, const struct rotation *r, int a, int b)
{
    int ca = k->f[r->slot[a]].cls, cb = k->f[r->slot[b]].cls;
    return class_glyph(ca != C_COURT ? ca : cb);
}

static char centre_glyph(const cas_state *s, int placed, const struct tile_kind *k)
{
    int fig = figure_on(s, placed);
    if (fig >= 0)
        return s->figs[fig].player ? 'B' : 'R';
    for (int p = 0; p < NPLAYERS; p++)
        if (s->p[p].keep_size && s->p[p].keep_at == placed)
            return p ? 'b' : 'r';
    if (placed < s->game->board.nstarts)
        return s->game->board.start[placed].letter;
    int paths = 0, squares = 0, fountain = 0, markets = 0;
    for (int f = 0; f < k->nf; f++) {
        int sides = __builtin_popcount(k->rot[0].sides[f]);
        paths += k->f[f].cls == C_PATH;
        squares += k->f[f].cls == C_PATH && sides == 1;
        fountain |= k->f[f].fountain;
        markets += k->f[f].markets;
    }
    return squares ? 'o' : fountain ? 'f' : markets ? (char)('0' + markets) : paths > 1 ? '+' : ' ';
}

/* A wall cell next to (or diagonally next to) a space or start space is
 * drawn; the wall's far side stays blank. */
static bool touches_board(const struct board *b, int cell)
{
    int x = cell % b->w, y = cell / b->w;
    for (int dy = -1; dy <= 1; dy++)
        for (int dx = -1; dx <= 1; dx++) {
            int nx = x + dx, ny = y + dy;
            if (nx >= 0 && ny >= 0 && nx < b->w && ny < b->h && b->cell[ny * b->w + nx] != CELL_WALL)
                return true;
        }
    return false;
}

/* Row `row` (0..2) of a cell's 3x3 picture into out[0..3). */
static void cell_row(const cas_state *s, int cell, int row, char *out)
{
    const struct board *b = &s->game->board;
    memcpy(out, "   ", 3);
    if (b->cell[cell] == CELL_WALL) {
        if (touches_board(b, cell))
            memcpy(out, "###", 3);
        return;
    }
    if (s->at[cell] == NONE8) {
        if (row == 1)
            out[1] = '.';
        return;
    }
    const struct placement *pl = &s->placed[s->at[cell]];
    const struct tile_kind *k = &s->game->tiles.kind[pl->kind];
    const struct rotation *r = &k->rot[pl->rot];
    char mid[4];
    for (int side = 0; side < 4; side++) {
        if (r->path_sides & (1u << side))
            mid[side] = (side % 2) ? '-' : '|';
        else
            mid[side] = k->f[r->slot[SLOT(side, 0)]].cls == k->f[r->slot[SLOT(side, 2)]].cls
                            ? class_glyph(k->f[r->slot[SLOT(side, 0)]].cls)
                            : ' ';
    }
    if (row == 0) {
        out[0] = slot_glyph(k, r, SLOT(SIDE_N, 0), SLOT(SIDE_W, 2));
        out[1] = mid[SIDE_N];
        out[2] = slot_glyph(k, r, SLOT(SIDE_N, 2), SLOT(SIDE_E, 0));
    } else if (row == 1) {
        out[0] = mid[SIDE_W];
        out[1] = centre_glyph(s, s->at[cell], k);
        out[2] = mid[SIDE_E];
    } else {
        out[0] = slot_glyph(k, r, SLOT(SIDE_S, 2), SLOT(SIDE_W, 0));
        out[1] = mid[SIDE_S];
        out[2] = slot_glyph(k, r, SLOT(SIDE_S, 0), SLOT(SIDE_E, 2));
    }
}

static void text_board(struct view *v)
{
    const struct board *b = &v->s->game->board;
    char line[4 + 3 * MAX_GRID_W + 2];
    memcpy(line, "    ", 4);
    for (int x = 0; x < b->w; x++)
        memcpy(line + 4 + 3 * x, (char[3]){' ', (char)('a' + x), ' '}, 3);
    line[4 + 3 * b->w] = '\n';
    cas_outn(&v->ob, line, (size_t)(5 + 3 * b->w));
    for (int y = 0; y < b->h; y++)
        for (int row = 0; row < 3; row++) {
            memcpy(line, "    ", 4);
            if (row == 1) {
                int n = y + 1;
                line[0] = n >= 100 ? (char)('0' + n / 100) : ' ';
                line[1] = n >= 10 ? (char)('0' + n / 10 % 10) : ' ';
                line[2] = (char)('0' + n % 10);
            }
            for (int x = 0; x < b->w; x++)
                cell_row(v->s, y * b->w + x, row, line + 4 + 3 * x);
            line[4 + 3 * b->w] = '\n';
            cas_outn(&v->ob, line, (size_t)(5 + 3 * b->w));
        }
}

/* ------------------------------------------------------------ text */

static void text_player(struct view *v, int p)
{
    const cas_state *s = v->s;
    const struct player_state *ps = &s->p[p];
    const char *on = v->ansi ? (p ? "\033[1;34m" : "\033[1;31m") : "", *off = v->ansi ? "\033[0m" : "";
    cas_outf(&v->ob, "%s%-4s%s score %3d (track %2d)  followers %d  keep %d  wall tiles:", on,
             player_name(p), off, ps->score, ps->score % s->game->board.track, ps->supply,
             ps->keep_size);
    int any = 0;
    for (int w = 1; w <= WALL_KINDS; w++)
        for (int i = 0; i < ps->held[w]; i++, any++)
            cas_outf(&v->ob, " %d%s", w, i < ps->fresh[w] ? "*" : "");
    cas_outf(&v->ob, "%s\n", any ? "" : " none");
}

static void text_status(struct view *v)
{
    const cas_state *s = v->s;
    const struct board *b = &s->game->board;
    text_player(v, 0);
    text_player(v, 1);
    cas_outs(&v->ob, "towers:");
    for (int t = 0; t < b->ntowers; t++) {
        cas_outs(&v->ob, " ");
        cas_outi(&v->ob, b->tower[t].pos);
        cas_outs(&v->ob, "/");
        cas_outi(&v->ob, (b->tower[t].pos + 1) % b->track);
        cas_outs(&v->ob, s->tower_holds[t] ? "[?]" : "");
    }
    cas_outs(&v->ob, "\n");
    cas_outf(&v->ob, "bag %d tiles, %d set aside; %d empty spaces%s\n", s->nbag, s->set_aside,
             b->ninterior - (s->nplaced - b->nstarts),
             s->game->tiles.provisional || b->provisional ? "; provisional data" : "");
    for (int i = 0; i < s->nfigs; i++) {
        char name[64];
        unsigned node = s->figs[i].node;
        feature_text(s, root_of(s, node), name, sizeof name);
        cas_outf(&v->ob, "  %s %s on %s\n", player_name(s->figs[i].player),
                 role_names[s->nodes[node].cls], name);
    }
    for (int i = 0; i < s->npending; i++) {
        char name[64];
        feature_text(s, s->pending[i], name, sizeof name);
        cas_outf(&v->ob, "  completed, to score: %s\n", name);
    }
    switch (s->phase) {
    case PH_OVER:
        cas_outf(&v->ob, "game over: %s\n",
                 s->p[0].score == s->p[1].score  ? "a draw"
                 : s->p[0].score > s->p[1].score ? "Red wins"
                                                 : "Blue wins");
        break;
    case PH_DRAW:
        cas_outf(&v->ob, "%s draws a tile\n", player_name(s->turn));
        break;
    case PH_REVEAL:
        cas_outf(&v->ob, "%s turns up a wall tile\n", player_name(s->reveal_player));
        break;
    case PH_PLACE: {
        const struct tile_kind *k = &s->game->tiles.kind[s->drawn];
        cas_outf(&v->ob, "%s to place %s:", player_name(s->turn), k->id);
        for (int f = 0; f < k->nf; f++)
            cas_outf(&v->ob, " %s%s%s", cls_names[k->f[f].cls],
                     k->f[f].fountain ? "(fountain)" : "", k->f[f].markets ? "(market)" : "");
        cas_outf(&v->ob, "\n");
        break;
    }
    default:
        cas_outf(&v->ob, "%s to choose: %s\n", player_name(s->turn), phase_names[s->phase]);
        break;
    }
    cas_outs(&v->ob, "key: | - path, h house, t tower, blank court; centre: R/B follower, "
                     "r/b keep, o square, f fountain, digit markets, letter start space; "
                     "* wall tile not usable yet\n");
}

/* ------------------------------------------------------------ JSON */

static void json_state(struct view *v)
{
    const cas_state *s = v->s;
    const struct board *b = &s->game->board;
    char name[64];
    cas_outf(&v->ob, "{\"game\":\"the-castle\",\"phase\":\"%s\",\"turn\":%d,\"actor\":%d,",
             phase_names[s->phase], s->turn, turn_actor(s));
    cas_outf(&v->ob, "\"players\":[");
    for (int p = 0; p < NPLAYERS; p++) {
        const struct player_state *ps = &s->p[p];
        cas_outf(&v->ob,
                 "%s{\"name\":\"%s\",\"score\":%d,\"followers\":%d,\"keep\":%d,\"wall_tiles\":[",
                 p ? "," : "", player_name(p), ps->score, ps->supply, ps->keep_size);
        int first = 1;
        for (int w = 1; w <= WALL_KINDS; w++)
            for (int i = 0; i < ps->held[w]; i++, first = 0)
                cas_outf(&v->ob, "%s{\"number\":%d,\"effect\":\"%s\",\"usable\":%s}",
                         first ? "" : ",", w, effect_names[b->wall_effect[w]],
                         i < ps->fresh[w] ? "false" : "true");
        cas_outf(&v->ob, "]}");
    }
    cas_outf(&v->ob, "],\"bag\":%d,\"set_aside\":%d,\"drawn\":", s->nbag, s->set_aside);
    if (s->drawn != NONE8)
        cas_outf(&v->ob, "\"%s\"", s->game->tiles.kind[s->drawn].id);
    else
        cas_outf(&v->ob, "null");
    cas_outs(&v->ob, ",\"towers\":[");
    for (int t = 0; t < b->ntowers; t++) {
        cas_outs(&v->ob, t ? ",{\"position\":" : "{\"position\":");
        cas_outi(&v->ob, b->tower[t].pos);
        cas_outs(&v->ob, s->tower_holds[t] ? ",\"wall_tile\":true}" : ",\"wall_tile\":false}");
    }
    cas_outs(&v->ob, "],\"tiles\":[");
    for (int i = 0; i < s->nplaced; i++) {
        cell_name(b, s->placed[i].cell, name, sizeof name);
        cas_outs(&v->ob, i ? ",{\"cell\":\"" : "{\"cell\":\"");
        cas_outs(&v->ob, name);
        cas_outs(&v->ob, "\",\"tile\":\"");
        cas_outs(&v->ob, s->game->tiles.kind[s->placed[i].kind].id);
        cas_outs(&v->ob, "\",\"rotation\":");
        cas_outi(&v->ob, s->placed[i].rot * 90);
        cas_outs(&v->ob, i < b->nstarts ? ",\"start\":true}" : ",\"start\":false}");
    }
    cas_outf(&v->ob, "],\"followers\":[");
    for (int i = 0; i < s->nfigs; i++) {
        unsigned node = s->figs[i].node;
        feature_text(s, root_of(s, node), name, sizeof name);
        cas_outf(&v->ob, "%s{\"player\":%d,\"role\":\"%s\",\"feature\":\"%s\"}", i ? "," : "",
                 s->figs[i].player, role_names[s->nodes[node].cls], name);
    }
    cas_outf(&v->ob, "],\"pending\":[");
    for (int i = 0; i < s->npending; i++) {
        feature_text(s, s->pending[i], name, sizeof name);
        cas_outf(&v->ob, "%s\"%s\"", i ? "," : "", name);
    }
    cas_outf(&v->ob, "],\"largest_empty_group\":%d}", largest_empty_group(s));
}

int render_state(const cas_state *s, int viewer, enum cas_render_format format,
                 const struct cas_writer *out)
{
    (void)viewer; /* everything is public */
    if (format == CAS_RENDER_SVG)
        return render_svg(s, out);
    if (format != CAS_RENDER_TEXT && format != CAS_RENDER_ANSI && format != CAS_RENDER_JSON)
        return CAS_EINVAL;
    struct view *v = &(struct view){.s = s, .ob = CAS_OUTBUF_INIT(out),
                                    .ansi = format == CAS_RENDER_ANSI};
    if (format == CAS_RENDER_JSON) {
        json_state(v);
    } else {
        text_board(v);
        text_status(v);
    }
    return cas_out_finish(&v->ob);
}
