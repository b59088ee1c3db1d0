/*
 * worker.h — a game plugin run in a child process (host-internal): the
 * host starts castellan-worker, a fresh program (worker_spawn.h), and tells it
 * which libraries to load; the worker confines itself (rlimits, a
 * seccomp filter), loads them, creates the game and
 * answers vtable calls over a socket (wire.h); the host drives it through
 * a proxy vtable, so sessions, bots, check and bench run unchanged.  A
 * crash, a hang past the per-call deadline or a killed worker becomes a
 * fault the host explains instead of dying with it (docs/isolation.md).
 */
#ifndef CAS_HOST_WORKER_H
#define CAS_HOST_WORKER_H

#include <stddef.h>

#include <castellan/plugin.h>

#include "registry.h"
#include "worker_spawn.h"
#include "wire.h"

enum cas__isolation_mode {
    CAS__ISOLATE_AUTO = 0,   /* a worker for plugins outside the build and install folders */
    CAS__ISOLATE_WORKER = 1, /* always a worker */
    CAS__ISOLATE_IN_PROCESS = 2
};

/* Defaults (docs/isolation.md, "Limits"). */
#define CAS__DEFAULT_DEADLINE_MS 5000u
#define CAS__DEFAULT_MEMORY_MIB 2048u
#define CAS__DEFAULT_CPU_SECONDS 3600u

/* How a game's plugin runs; zero limits mean the defaults. */
struct cas__isolation {
    enum cas__isolation_mode mode;
    unsigned deadline_ms;   /* the longest one call may take */
    unsigned memory_mib;    /* the worker's address space (RLIMIT_AS) */
    unsigned cpu_seconds;   /* the worker's CPU time (RLIMIT_CPU) */
};

/* How a worker failed. */
struct cas__worker_fault {
    const char *text;   /* "plugin ID crashed (signal 11) in apply" */
    const char *call;   /* the vtable function it was in: "apply" */
    int signal;         /* the signal that ended it, or 0 */
    unsigned hung_ms;   /* killed at its deadline of this many ms, or 0 */
};

/* Who is told when the worker fails.  The handler is expected not to
 * return (play and resume add the ply and how to resume, check its
 * report, then exit 1); when it returns, the call that failed returns
 * CAS_EIO (current: CAS_ACTOR_TERMINAL, hash and chance_total: 0) and
 * every later call fails at once. */
struct cas__fault_handler {
    void (*fault)(void *ctx, const struct cas__worker_fault *fault);
    void *ctx;
};

struct cas__worker;

/* Start a worker that creates plugin's game from params (everything in
 * it is the host's and only read before this returns), limited by iso.
 * host is the match's service table: the plugin's error texts and log
 * lines arrive through it; faults through *handler, which may change
 * until the worker is freed (NULL fault: print it and exit 1).  On
 * success *vt is the proxy vtable and *game the proxy game, which the
 * caller frees with vt->game_free.  On failure the plugin's explanation
 * went to host->set_error, *bad_option is game_new's, and a failure of the
 * worker itself is written to err.  nplayers labels are fetched once. */
int cas__worker_start(const struct cas_plugin *plugin, const char *data_dir,
                      const struct cas_game_params *params, const struct cas__isolation *iso,
                      const struct cas_host *host, const struct cas__fault_handler *handler,
                      const struct cas_game_vtable **vt, cas_game **game,
                      size_t *bad_option, char *err, size_t errlen);

/* Batches (agents/batch.c runs them in the worker): one message for many calls.
 * `games` random playouts of the worker's game (cas__playouts), within
 * the deadline of one call per game; the action bot (an agent spec other
 * than human) chooses for player in proxy state s at (seed, ply), within
 * CAS__DECIDE_DEADLINES call deadlines.  CAS_OK or the failure (a fault
 * goes to the handler, as for any call). */
#define CAS__DECIDE_DEADLINES 60u
int cas__worker_playouts(const cas_game *game, uint64_t seed, int games, uint64_t *plies,
                         uint64_t *checksum);
int cas__worker_decide(const cas_state *s, const char *bot, int player, uint64_t seed,
                       uint32_t ply, cas_action *out);

/* Work a game hands to where it runs, as a method table its match carries
 * (host/session/match.h, elsewhere): a game in a worker carries
 * cas__worker_elsewhere, so an agent asks the worker to decide without
 * naming it. */
struct cas__elsewhere {
    /* cas__worker_decide's contract. */
    int (*decide)(const cas_state *s, const char *bot, int player, uint64_t seed,
                  uint32_t ply, cas_action *out);
};
extern const struct cas__elsewhere cas__worker_elsewhere;

/* Whether vt is the proxy vtable of a worker. */
int cas__worker_is_proxy(const struct cas_game_vtable *vt);

/* The CPU time the worker behind the proxy game `game` has used so far,
 * in seconds (its own clock, read from the host); -1 when it cannot be
 * read.  For bench: what a worker costs without the machine's load. */
double cas__worker_cpu_seconds(const cas_game *game);

/* ---- the worker's side (serve.c), shared with the fuzz target ---- */

/* What the child holds: its states by handle and the texts the plugin
 * gave during the current call. */
struct cas__worker_side {
    const struct cas_game_vtable *vt;
    cas_game *game;
    int nplayers;
    int fd;                     /* the socket; -1: no host (rng answers 0) */
    cas_state **states;         /* handle h is states[h - 1]; NULL: free */
    size_t n_states, cap_states;
    char error[512];
    char log[2048];
    struct cas__wire_out ask;   /* the frame of a random-number question */
    uint8_t answer[64];
    const struct cas__worker_batches *batches; /* or NULL: none run here */
    struct cas__worker_batch *batch; /* theirs, once the game exists; or NULL */
};

/* The state of handle h, or NULL (ws->error then says so). */
cas_state *cas__worker_state(struct cas__worker_side *ws, uint64_t h);

/* ---- batches: host code run in the worker, one message for many calls */

/* The host code a worker runs next to its plugin (bench's playouts, a
 * bot's whole decision), as a method table: the worker names no room above
 * it.  host/agents/batch.c fills one (cas__agent_batches). */
struct cas__worker_batches {
    /* After game_new: the worker's own match of ws's game (plugin is the
     * descriptor the worker loaded) in ws->batch.  CAS_OK or CAS_ENOMEM. */
    int (*begin)(struct cas__worker_side *ws, const struct cas_plugin *plugin);
    void (*free)(struct cas__worker_side *ws);
    /* PLAYOUTS (seed, games): cas__playouts; DECIDE (handle, bot spec,
     * player, seed, ply): the bot's choice, its tree kept between calls.
     * Each writes its reply's fields into out, and returns the call's rc. */
    int (*playouts)(struct cas__worker_side *ws, const struct cas__wire_field *f,
                    struct cas__wire_out *out);
    int (*decide)(struct cas__worker_side *ws, const struct cas__wire_field *f,
                  struct cas__wire_out *out);
};

/* The batches the workers this process starts will run (the program's
 * main hands them over, as SQLite's VFS is registered; borrowed for the
 * life of the process).  Without them PLAYOUTS and DECIDE fail with
 * CAS_EINVAL. */
void cas__worker_use_batches(const struct cas__worker_batches *batches);

/* One decoded call msg run against ws's game, its reply built in reply.
 * Handles and arguments are checked first: a bad one is an error reply,
 * never a crash of the worker.  The host services ws lends the plugin
 * (set_error, log) write into ws->error and ws->log. */
void cas__worker_dispatch(struct cas__worker_side *ws, const struct cas__wire_msg *msg,
                          struct cas__wire_out *reply);

/* The host services the worker lends its plugin, pointing at ws. */
struct cas_host cas__worker_services(struct cas__worker_side *ws, const char *data_dir);

/* Free every state still held and the handle table (not the game). */
void cas__worker_side_free(struct cas__worker_side *ws);

/* The game worker's life once confined and its libraries loaded
 * (fresh.c): create the game, seal the sandbox, say hello, then answer
 * calls until QUIT or the end of input.  load_error, when not NULL, is
 * why the libraries could not be loaded: the hello says it.  Never
 * returns (_exit). */
_Noreturn void cas__worker_serve(int fd, const struct cas_plugin *plugin, const char *data_dir,
                                 const struct cas_game_params *params,
                                 const char *load_error);

/* ---- fresh.c: what a worker is told, and castellan-worker's main ---- */

/* A game as a setup tells it (worker_spawn.h): plugin and params' expansions by
 * their libraries (whose descriptors go to fds[0..*n_fds), at most cap),
 * the data folder, the options.  CAS_OK, or a reason in err (a plugin no
 * library gave: one compiled into the program). */
int cas__fresh_params_setup(struct cas__setup *s, int *fds, size_t cap, size_t *n_fds,
                            const struct cas_plugin *plugin, const char *data_dir,
                            const struct cas_game_params *params, char *err, size_t errlen);

/* The same read back in the worker: the libraries' facts, then params
 * whose strings point into the setup (which must outlive it); the
 * arrays are the worker's, never freed (it ends with _exit). */
struct cas__fresh_params {
    struct cas__plugin_info libs[CAS__SPAWN_MAX_FDS];
    size_t n_libs;
    uint32_t game_lib, *exp_lib;
    const char *data_dir;
    struct cas_game_params params;
    struct cas_expansion_ref *refs;
    const struct cas_plugin *plugin; /* once loaded */
};
int cas__fresh_params_read(struct cas__setup_reader *r, struct cas__fresh_params *p);
/* Confined: load each library by its descriptor fds[i], checked against
 * its facts; plugin and the expansions' `extension` then are theirs.
 * CAS_OK, or the refusal in err. */
int cas__fresh_params_load(struct cas__fresh_params *p, const int *fds, char *err,
                           size_t errlen);

/* The setup of a game worker: the limits of iso, then the game. */
int cas__fresh_game_setup(struct cas__setup *s, int *fds, size_t cap, size_t *n_fds,
                          const struct cas_plugin *plugin, const char *data_dir,
                          const struct cas_game_params *params, const struct cas__isolation *iso,
                          char *err, size_t errlen);

/* In castellan-worker started for a game: the limits and the game from
 * the rest of the setup r, confined before the libraries (fds) load, then
 * the game served until the host goes; the exit status if it never starts.
 * castellan-worker's main (host/cli/worker_main.c) reads the setup and
 * calls this, the probe's or the check's side by its mode. */
int cas__worker_game(int sock, struct cas__setup_reader *r, const int *fds, size_t n_fds);

#endif
