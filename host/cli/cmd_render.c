/*
 * cmd_render.c — pictures of a saved game: `castellan render ID` writes
 * the game's SVG picture of one ply, `castellan export ID --html` one
 * self-contained HTML page that steps through the whole game.  Both replay
 * the journal with every hash checked, like `castellan replay`.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"
#include "commands.h"
#include "picture.h"
#include "replay_html.h"
#include "revive.h"
#include "saves_cli.h"

static const char render_usage[] =
    "usage: castellan render ID [--ply N] [--viewer P] [-o FILE.svg] [--database FILE]\n"
    "                        [--plugin-path DIR[:DIR...]]\n"
    "\n"
    "Writes the game's own picture (SVG) of saved game ID after N plies (0 is\n"
    "the start; default: the last) to FILE or standard output.  P is who looks:\n"
    "a seat number (1, 2, ...), a player's name or seat label, `public` or\n"
    "`all`; by default a finished game shows everything and an unfinished one\n"
    "what every player may see.  No hidden card is drawn for a viewer who may\n"
    "not see it.\n";

/* The viewer text names, or -3 after explaining why it names none. */
static int parse_viewer(const char *cmd, const char *text, const struct cas__revived *r)
{
    const struct cas__saves_game *g = r->saved;
    if (strcasecmp(text, "public") == 0)
        return CAS_VIEWER_PUBLIC;
    if (strcasecmp(text, "all") == 0 || strcasecmp(text, "omniscient") == 0)
        return CAS_VIEWER_OMNISCIENT;
    char *end;
    long seat = strtol(text, &end, 10);
    if (text[0] >= '1' && text[0] <= '9' && !*end && seat >= 1 && (size_t)seat <= g->n_players)
        return (int)seat - 1;
    for (size_t i = 0; i < g->n_players; i++)
        if (strcasecmp(text, g->players[i].name) == 0 ||
            strcasecmp(text, cas__match_label(r->session.match, (int)i)) == 0)
            return (int)i;
    fprintf(stderr, "%s: --viewer \"%s\" names nobody; give a seat 1..%zu, a player's "
            "name or label, public or all\n", cmd, text, g->n_players);
    return -3;
}

static int default_viewer(const struct cas__saves_game *g)
{
    /* a finished game hides nothing any more; an unfinished one may still
     * be resumed, so its hands stay hidden */
    return g->status == CAS__SAVES_FINISHED ? CAS_VIEWER_OMNISCIENT : CAS_VIEWER_PUBLIC;
}

static int render_ply(const struct cas__saves_args *a, struct cas__revived *r)
{
    const struct cas__saves_game *g = r->saved;
    uint64_t ply = g->n_actions;
    if (a->ply && cas__cli_number("render", "--ply", a->ply, 0, g->n_actions, &ply))
        return 2;
    int viewer = a->viewer ? parse_viewer(a->cmd, a->viewer, r) : default_viewer(g);
    if (viewer == -3)
        return 2;
    if (cas__revive_replay(r, (size_t)ply, 0, NULL, NULL)) {
        fprintf(stderr, "%s: %s\n", a->cmd, r->error);
        return 1;
    }
    char err[1024], *svg;
    size_t len;
    if (cas__picture_render(r->session.match, r->session.state, viewer, &svg, &len, err,
                            sizeof err)) {
        fprintf(stderr, "%s: %s\n", a->cmd, err);
        return 1;
    }
    FILE *out = cas__saves_args_output_open(a);
    int status = 1;
    if (out) {
        status = fwrite(svg, 1, len, out) == len ? 0 : 1;
        status = cas__saves_args_output_close(a, out, status);
    }
    free(svg);
    return status;
}

/* Load game ID from argv, revive it and run `body` on it. */
static int with_revived_game(const char *cmd, int argc, char **argv, unsigned allowed,
                             const char *usage,
                             int (*body)(const struct cas__saves_args *a, struct cas__revived *r))
{
    struct cas__saves_args a;
    struct cas__saves *s;
    struct cas__saves_game g;
    int64_t id;
    int status = cas__saves_args_load_game(&a, cmd, argc, argv, allowed, CAS__STORE_READ, usage,
                                           &s, &id, &g);
    if (status >= 0)
        return status;
    cas__saves_close(s); /* only what is loaded is read */
    struct cas__revived r;
    char origin[64];
    snprintf(origin, sizeof origin, "game %lld", (long long)id);
    status = 1;
    if (cas__revive_open(&r, &g, origin, a.plugin_path, 0, NULL)) {
        fprintf(stderr, "%s: %s\n", a.cmd, r.error);
        goto free_game;
    }
    status = body(&a, &r);
    cas__revive_close(&r);
free_game:
    cas__saves_game_free(&g);
    return status;
}

int cas__cmd_render(int argc, char **argv)
{
    return with_revived_game("render", argc, argv,
                             CAS__ARG_OUTPUT | CAS__ARG_PICTURE | CAS__ARG_PLY | CAS__ARG_PLUGIN_PATH,
                             render_usage, render_ply);
}

static int export_page(const struct cas__saves_args *a, struct cas__revived *r)
{
    const struct cas__saves_game *g = r->saved;
    if (a->ply) {
        fprintf(stderr, "%s: --ply is for `castellan render`; the page holds every ply\n",
                a->cmd);
        return 2;
    }
    if (!a->output) {
        fprintf(stderr, "%s: --html needs -o FILE.html\n", a->cmd);
        return 2;
    }
    int viewer = a->viewer ? parse_viewer(a->cmd, a->viewer, r) : default_viewer(g);
    if (viewer == -3)
        return 2;
    char title[400], err[1024];
    snprintf(title, sizeof title, "Game %lld: %s", (long long)g->id, r->session.match->title);
    FILE *out = cas__saves_args_output_open(a);
    if (!out)
        return 1;
    int status = 0;
    if (cas__replay_html_write(r, viewer, title, out, err, sizeof err)) {
        fprintf(stderr, "%s: %s\n", a->cmd, err);
        status = 1;
    }
    return cas__saves_args_output_close(a, out, status);
}

int cas__cmd_export_html(int argc, char **argv, const char *usage)
{
    return with_revived_game("export", argc, argv,
                             CAS__ARG_OUTPUT | CAS__ARG_HTML | CAS__ARG_PICTURE |
                                 CAS__ARG_PLUGIN_PATH,
                             usage, export_page);
}
