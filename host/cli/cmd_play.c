/*
 * cmd_play.c — `castellan play`: a session from a config file (the default
 * preset when nothing is given) or from flags, validated against the
 * plugins, played to the end between humans and bots at the terminal.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "agent.h"
#include "agent_spec.h"
#include "cli.h"
#include "commands.h"
#include "install_dirs.h"
#include "journal.h"
#include "prng.h"
#include "registry.h"
#include "server.h"
#include "session.h"
#include "session_fields.h"
#include "session_plan.h"
#include "term.h"
#include "watch.h"

static const char usage[] =
    "usage: castellan play [--config FILE] [--seed N] [--plugin-path DIR[:DIR...]]\n"
    "                      [--no-save] [--watch FILE.svg]\n"
    "       castellan play [--game ID] [--expansions a,b] [--players SPEC]\n"
    "                      [--rule NAME=VALUE ...] [--seed N] [--plugin-path DIR] [--no-save]\n"
    "                      [--watch FILE.svg]\n"
    "       (either form also takes [--campaign NAME] [--hint AGENT] [--web]\n"
    "        [--isolated | --in-process] [--plugin-deadline MS])\n"
    "\n"
    "Plays one game at the terminal.  Without --config or --game it plays the\n"
    "default preset (presets/default.ini); --players and the other flags\n"
    "without --game play that preset's game (and its expansions, unless\n"
    "--expansions names others).  SPEC lists the players in seat\n"
    "order, each AGENT or NAME:AGENT, with AGENT one of human, random, greedy\n"
    "or mcts (default: human,greedy).  mcts searches: mcts-easy, mcts-medium\n"
    "(= mcts) or mcts-hard, a budget per move of @N iterations or @Nms,\n"
    "/THREADS (default: every core), and options +greedy (greedy playouts),\n"
    "+tree (tree parallelization), +win (a win-only reward), e.g. Bot:mcts-hard,\n"
    "mcts@2000/1, mcts@500ms, mcts-hard+greedy.  Without --seed a seed is\n"
    "drawn and printed; the same seed and the same choices give the same game\n"
    "(not with an @Nms budget).\n"
    "--campaign NAME saves the game in that campaign (as [saves] campaign in\n"
    "a session file).\n"
    "\n"
    "At your turn type the number of an action, or its text as listed;\n"
    "`hint` asks a bot (--hint AGENT, any AGENT but human, default greedy)\n"
    "what it would play, `score` shows the scores, `undo` takes back your last\n"
    "decision (back to the last draw or other player's decision), `help`\n"
    "explains the game's notation, `quit` (or end of input) stops the game.\n"
    "\n"
    "--watch FILE.svg keeps FILE a picture of the board, rewritten whole after\n"
    "every action: leave it open in a browser or image viewer beside the\n"
    "terminal.  It shows what the terminal may show (the one human's view).\n"
    "\n"
    "--web plays in the browser instead of the terminal: castellan serve\n"
    "starts on 127.0.0.1 (any free port), hosts this one game, prints a link\n"
    "for each human seat (and opens the first when a display is there) and\n"
    "stops when the game is over.  Click to play; the game is journaled as\n"
    "always (`castellan resume ID` continues it at the terminal).\n"
    "\n" CAS__CLI_ISOLATION_HELP;

/* Flags as given; NULL when absent. */
struct play_args {
    const char *config, *seed, *game, *expansions, *players, *plugin_path, *hint, *campaign,
               *watch, *deadline;
    struct cas__strlist rules;
    int no_save, isolated, in_process, web;
    struct cas__isolation isolation;
};

/* The preset file played when nothing is given: installed beside this
 * executable, else where the build installs, else (for the build tree's
 * castellan only) the source tree's.  NULL when none exists; the caller
 * frees the path. */
static char *default_preset(void)
{
    return cas__find_installed(CASTELLAN_PRESET_DIR_FROM_BIN "/default.ini",
                               CASTELLAN_PRESET_INSTALL_DIR "/default.ini",
                               CASTELLAN_PRESET_SOURCE_DIR "/default.ini");
}

/* The session the user asked for, into desc; 0 or an exit status. */
/* desc's expansions as --expansions writes them ("a,b"), cut at the
 * last whole id that fits in buf[0..cap). */
static void join_expansions(const struct cas__session_desc *desc, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < desc->n_expansions; i++) {
        int n = snprintf(buf + len, cap - len, "%s%s", i ? "," : "", desc->expansions[i]);
        if (n < 0 || (size_t)n >= cap - len) {
            buf[len] = '\0';
            return;
        }
        len += (size_t)n;
    }
}

static int describe(const struct play_args *a, struct cas__session_desc *desc)
{
    char err[1024];
    int by_flags = a->game || a->expansions || a->players || a->rules.count;
    if (by_flags && a->config) {
        fprintf(stderr, "castellan play: --config cannot be combined with --game, "
                "--expansions, --players or --rule; put them in the file, or drop --config\n");
        return 2;
    }
    if (by_flags) {
        /* Without --game: the default preset's game, and its expansions
         * unless --expansions names others. */
        struct cas__session_desc preset_desc = {0};
        char joined[512] = "";
        char *preset = a->game ? NULL : default_preset();
        if (preset && cas__session_desc_load(preset, &preset_desc, err, sizeof err) == CAS_OK &&
            !a->expansions)
            join_expansions(&preset_desc, joined, sizeof joined);
        free(preset);
        struct cas__session_flags flags = {
            .game = a->game ? a->game : preset_desc.game,
            .expansions = a->expansions ? a->expansions : joined[0] ? joined : NULL,
            .players = a->players ? a->players : "human,greedy", .seed = a->seed,
            .rules = (const char *const *)a->rules.items, .n_rules = a->rules.count,
            .campaign = a->campaign,
        };
        int rc = cas__session_desc_from_flags(&flags, desc, err, sizeof err);
        cas__session_desc_free(&preset_desc);
        if (rc == CAS_OK)
            return 0;
        cas__term_message(stderr, "castellan play: %s", err);
        return rc == CAS_ENOMEM ? 1 : 2; /* out of memory is no usage error */
    }
    char *preset = a->config ? NULL : default_preset();
    const char *path = a->config ? a->config : preset;
    if (!path) {
        fprintf(stderr, "castellan play: no default preset in %s or %s; give --config FILE "
                "or --game ID\n", CASTELLAN_PRESET_INSTALL_DIR, CASTELLAN_PRESET_SOURCE_DIR);
        return 1;
    }
    int loaded = cas__session_desc_load(path, desc, err, sizeof err);
    free(preset);
    if (loaded != CAS_OK) {
        cas__term_message(stderr, "castellan play: %s", err);
        return 1;
    }
    if (a->campaign &&
        cas__desc_set_campaign(desc, "--campaign", a->campaign, err, sizeof err) != CAS_OK) {
        cas__term_message(stderr, "castellan play: %s", err);
        cas__session_desc_free(desc);
        return 2;
    }
    uint64_t seed;
    if (a->seed) {
        int status = cas__cli_number("play", "--seed", a->seed, 0, UINT64_MAX, &seed);
        if (status) {
            cas__session_desc_free(desc);
            return status;
        }
        desc->seed = seed;
        desc->seed_given = 1;
    }
    return 0;
}

/* The seat whose private events the terminal may show: the only human,
 * if there is exactly one; otherwise only public events are shown. */
static int terminal_viewer(const struct cas__session_desc *desc)
{
    int viewer = CAS_VIEWER_PUBLIC, humans = 0;
    for (size_t i = 0; i < desc->n_players; i++)
        if (strcmp(desc->players[i].agent, "human") == 0) {
            humans++;
            viewer = (int)i;
        }
    return humans == 1 ? viewer : CAS_VIEWER_PUBLIC;
}

/* Where a fault of the plugin's worker is told: how far the game is saved. */
struct play_fault {
    const struct cas__session *session;
    const struct cas__play_journal *journal;
};

static void play_fault(void *ctx, const struct cas__worker_fault *what)
{
    const struct play_fault *f = ctx;
    cas__journal_fault_exit("play", what->text, f->session,
                            f->journal->store ? &f->journal->j : NULL);
}

/* Play the validated session; the exit status. */
static int play(const struct play_args *a, const struct cas__session_desc *desc,
                const struct cas__session_plan *plan, struct cas__match *m)
{
    size_t n = desc->n_players;
    struct cas__agent **agents = calloc(n, sizeof *agents);
    char **names = calloc(n, sizeof *names);
    struct cas__session s;
    int status = 1;
    if (!agents || !names) {
        fprintf(stderr, "castellan play: out of memory\n");
        goto free_agents;
    }
    for (size_t i = 0; i < n; i++) {
        names[i] = desc->players[i].name;
        if (cas__agent_new(desc->players[i].agent, &agents[i]) != CAS_OK) {
            fprintf(stderr, "castellan play: cannot create the %s agent of %s: out of "
                    "memory\n",
                    desc->players[i].agent, names[i]);
            goto free_agents;
        }
        if (a->hint && strcmp(desc->players[i].agent, "human") == 0 &&
            cas__agent_human_set_hint(agents[i], a->hint) != CAS_OK) {
            fprintf(stderr, "castellan play: --hint %s: cannot create that bot: out of "
                    "memory\n", a->hint);
            goto free_agents;
        }
    }
    uint64_t seed = desc->seed_given ? desc->seed : cas__prng_fresh_seed();
    if (cas__session_init(&s, m, seed, agents, names) != CAS_OK) {
        cas__term_message(stderr, "castellan play: %s", s.error);
        goto free_agents;
    }
    s.out = stdout;
    s.viewer = terminal_viewer(desc);
    s.format = cas__term_format(stdout);
    /* The save journal (saves/): every action committed before the next. */
    struct cas__play_journal journal;
    if (cas__play_journal_begin(&journal, desc, plan, &s, a->no_save) != CAS_OK) {
        cas__session_free(&s);
        goto free_agents;
    }
    struct play_fault fault = {.session = &s, .journal = &journal};
    m->on_fault = (struct cas__fault_handler){.fault = play_fault, .ctx = &fault};
    struct cas__watch watch;
    if (a->watch)
        cas__watch_attach(&watch, &s, "play", a->watch);
    int rc = cas__session_run(&s);
    if (rc != CAS_OK && !s.quit)
        cas__term_message(stderr, "castellan play: %s", s.error);
    if (cas__play_journal_end(&journal, &s, rc) != CAS_OK) {
        status = 1;
    } else if (rc == CAS_OK) {
        status = 0;
    } else if (s.quit) {
        printf("Game stopped (%s).  Replay it with --seed %" PRIu64 ".\n", s.error, seed);
        status = 0;
    }
    cas__session_free(&s);
    m->on_fault = (struct cas__fault_handler){0};
free_agents:
    for (size_t i = 0; agents && i < n; i++)
        cas__agent_free(agents[i]);
    free(agents);
    free(names);
    return status;
}

/* --hint names a bot (checked before any game starts, seats or not); an
 * exit status. */
static int check_hint(const char *hint)
{
    struct cas__agent_spec spec;
    char err[512];
    if (!hint)
        return 0;
    if (cas__agent_spec_parse_bot(hint, "--hint", &spec, err, sizeof err) != CAS_OK) {
        cas__term_message(stderr, "castellan play: %s", err);
        return 2;
    }
    if (strcmp(spec.kind, "human") == 0) {
        fprintf(stderr, "castellan play: --hint human: a hint comes from a bot; use "
                        CAS__BOT_SYNTAX "\n");
        return 2;
    }
    return 0;
}

/* ---- play --web ---- */

struct web_play {
    const struct cas__session_desc *desc;
    struct cas__table *table;   /* the lobby's; gone after the server */
    int64_t id;
    int over;
    struct timespec over_at;    /* when the game's end was first seen sent */
};

/* How long play --web keeps serving a finished game to pages still open,
 * so the last state and the result reach them before the server goes. */
#define WEB_GRACE_SECONDS 30

/* Open url in the desktop's browser, if there is a desktop; quietly. */
static void open_browser(const char *url)
{
    if (!getenv("DISPLAY") && !getenv("WAYLAND_DISPLAY"))
        return;
    pid_t pid = fork();
    if (pid == 0) {
        int null = open("/dev/null", O_RDWR);
        if (null >= 0) {
            dup2(null, 0);
            dup2(null, 1);
            dup2(null, 2);
        }
        /* the browser gets none of the server's sockets or store */
        syscall(SYS_close_range, 3u, ~0u, 0u);
        execlp("xdg-open", "xdg-open", url, (char *)NULL);
        _exit(127);
    }
}

/* The server listens: create the game and tell where to play it. */
static int web_ready(void *ctx, struct cas__lobby *l, int port)
{
    struct web_play *wp = ctx;
    /* A seed given to play --web is the player's own choice: a practice
     * game (docs/server.md, "Fair draws"). */
    struct cas__table_params params = {.practice = wp->desc->seed_given};
    struct cas__invites invites;
    const char *code;
    char msg[1024], url[256];
    if (cas__table_create_desc(l, wp->desc, &params, &wp->table, &invites, &code, msg,
                               sizeof msg)) {
        fprintf(stderr, "castellan play: %s\n", msg);
        return CAS_EINVAL;
    }
    cas__lobby_add(l, wp->table);
    struct cas__table *t = wp->table;
    wp->id = cas__table_id(t);
    printf("%s: game %lld, journaled; open in a browser:\n", cas__table_title(t),
           (long long)wp->id);
    int opened = 0;
    for (int i = 0; i < cas__table_players(t) && (size_t)i < invites.n; i++) {
        if (cas__table_seat_is_bot(t, i))
            continue;
        snprintf(url, sizeof url, "http://127.0.0.1:%d/game/%lld#seat=%d&token=%s", port,
                 (long long)wp->id, i, invites.token[i]);
        printf("  %-16s %s\n", cas__table_seat_name(t, i), url);
        if (!opened++)
            open_browser(url);
    }
    cas__invites_free(&invites);
    printf("  %-16s http://127.0.0.1:%d/game/%lld\n", "watch", port, (long long)wp->id);
    printf("The server stops when the game is over (Ctrl-C stops it sooner; "
           "castellan resume %lld continues it).\n", (long long)wp->id);
    fflush(stdout);
    return CAS_OK;
}

/* Stop once the game is over, its last state sent, and every page has
 * closed or had WEB_GRACE_SECONDS to read it: a server that exits while a
 * page is still reading resets the connection, and the page never shows
 * the result. */
static int web_done(void *ctx, struct cas__lobby *l, struct cas__httpd *h)
{
    struct web_play *wp = ctx;
    struct timespec now;
    (void)l;
    if (!wp->table || cas__table_held(wp->table)) /* a job of the pool has it */
        return 0;
    wp->over = cas__table_over(wp->table);
    if (!(wp->over || cas__table_failure(wp->table)) || cas__httpd_queued(h))
        return 0;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (!wp->over_at.tv_sec) {
        wp->over_at = now;
        if (cas__httpd_sockets(h))
            printf("The game is over: the server stops when its pages close, or in %d s.\n",
                   WEB_GRACE_SECONDS);
        fflush(stdout);
    }
    return cas__httpd_sockets(h) == 0 || now.tv_sec - wp->over_at.tv_sec >= WEB_GRACE_SECONDS;
}

static int play_web(const struct play_args *a, const struct cas__session_desc *desc)
{
    struct web_play wp = {.desc = desc};
    struct cas__serve_setup setup = {
        .database = desc->database, .plugin_path = a->plugin_path, .isolation = a->isolation,
        .ready = web_ready, .done = web_done, .ready_ctx = &wp, .no_restore = 1,
    };
    if (a->no_save || !desc->journal) {
        fprintf(stderr, "castellan play: --web journals the game as castellan serve does; "
                "drop --no-save (or [saves] journal = off)\n");
        return 2;
    }
    cas__srv_limits_default(&setup.opts.limits);
    setup.opts.listen = "127.0.0.1:0";
    setup.opts.quiet = 1;
    int status = cas__serve_run(&setup);
    if (status == 0 && wp.over)
        printf("Game %lld is over and saved.\n", (long long)wp.id);
    return status;
}

/* Find the plugins, validate the session against them and play it. */
static int validate_and_play(const struct play_args *a, const struct cas__session_desc *desc)
{
    struct cas__strlist path = {0};
    struct cas__registry *reg = NULL;
    struct cas__session_plan plan;
    struct cas__match m;
    char err[1024];
    int status = 1;
    if (cas__plugin_search_path(a->plugin_path, &path) != CAS_OK ||
        cas__registry_scan(&path, &reg) != CAS_OK) {
        fprintf(stderr, "castellan play: out of memory\n");
        goto free_path;
    }
    if (a->isolation.mode != CAS__ISOLATE_AUTO)
        cas__registry_foreign_in_process(reg, a->isolation.mode == CAS__ISOLATE_IN_PROCESS);
    if (cas__session_desc_validate(desc, reg, &plan, err, sizeof err) != CAS_OK) {
        cas__term_message(stderr, "castellan play: %s", err);
        goto free_registry;
    }
    cas__session_plan_isolate(&plan, &a->isolation);
    if (cas__session_desc_open_match(&plan, &m, err, sizeof err) != CAS_OK) {
        cas__term_message(stderr, "castellan play: %s", err);
        goto free_plan;
    }
    status = play(a, desc, &plan, &m);
    cas__match_close(&m);
free_plan:
    cas__session_plan_free(&plan);
free_registry:
    cas__registry_free(reg);
free_path:
    cas__strlist_free(&path);
    return status;
}

int cas__cmd_play(int argc, char **argv)
{
    struct play_args a = {0};
    const struct cas__flag flags[] = {
        {"--config", &a.config, NULL, NULL}, {"--seed", &a.seed, NULL, NULL},
        {"--game", &a.game, NULL, NULL}, {"--expansions", &a.expansions, NULL, NULL},
        {"--players", &a.players, NULL, NULL}, {"--rule", NULL, NULL, &a.rules},
        {"--plugin-path", &a.plugin_path, NULL, NULL}, {"--no-save", NULL, &a.no_save, NULL},
        {"--watch", &a.watch, NULL, NULL},
        {"--hint", &a.hint, NULL, NULL}, {"--campaign", &a.campaign, NULL, NULL},
        {"--isolated", NULL, &a.isolated, NULL}, {"--in-process", NULL, &a.in_process, NULL},
        {"--plugin-deadline", &a.deadline, NULL, NULL}, {"--web", NULL, &a.web, NULL},
    };
    struct cas__session_desc desc;
    size_t n_positional;
    int done;
    int status = cas__cli_parse("play", argc, argv, flags, sizeof flags / sizeof flags[0],
                                NULL, 0, &n_positional, usage, &done);
    if (status == 0 && !done)
        status = check_hint(a.hint);
    if (status == 0 && !done)
        status = cas__cli_isolation("play", a.isolated, a.in_process, a.deadline,
                                    &a.isolation);
    if (status == 0 && !done) {
        status = describe(&a, &desc);
        if (status == 0) {
            status = a.web ? play_web(&a, &desc) : validate_and_play(&a, &desc);
            cas__session_desc_free(&desc);
        }
    }
    cas__strlist_free(&a.rules);
    return status;
}
