/*
 * match.h — one running game instance: a game plugin, its expansions, the
 * host services lent to them and the options they were created with
 * (host-internal).  Everything a session, a bot or the checker needs to
 * drive a game goes through here, never through a particular plugin.
 */
#ifndef CAS_HOST_MATCH_H
#define CAS_HOST_MATCH_H

#include <castellan/plugin.h>

#include "worker.h"

struct cas__match {
    const struct cas_plugin *plugin;
    const struct cas_game_vtable *vt;
    struct cas_host host;       /* services lent to the game plugin */
    char *data_dir;             /* owned */
    char error[512];            /* last text the plugin passed to set_error */
    cas_game *game;
    int nplayers;
    /* "carcassonne + inns-cathedrals, traders-builders": what is played. */
    char title[256];
    /* Bytes the plugin holds through host->alloc right now, and the most it
     * ever held: bench reports heap bytes per state from these. */
    size_t heap_bytes, heap_peak;
    /* Draw chance by listing the outcomes even when the plugin can pick
     * one from a ticket (ABI 1.1): the checker replays games both ways. */
    int generic_chance;
    /* Set when the game runs in a worker process (host/worker/worker.h):
     * who hears of the worker's crash or hang.  Commands that journal set
     * it to say how far the game is saved; unset, the fault is printed and
     * the process exits 1. */
    int isolated;
    struct cas__fault_handler on_fault;
    /* Where work the game may do elsewhere goes (a bot's decision in the
     * game's worker): set with isolated, NULL in process. */
    const struct cas__elsewhere *elsewhere;
};

/* A value m's plugin returned breaks what the ABI promises (a seat out of
 * range, a count past the buffer, text with a control character): the
 * text "plugin ID broke the ABI (WHAT) in CALL" goes to m->error and, as a
 * worker's crash does, to m->on_fault (unset: printed, and the process
 * exits 1).  When the handler returns, the caller goes on with the safe
 * value its own contract names.  Every value a plugin returns is checked
 * here, in the match layer, before any caller uses it. */
void cas__match_violation(struct cas__match *m, const char *call, const char *fmt, ...)
    CAS_PRINTF(3, 4);

/* Whether event, emitted by m's plugin, may be shown and kept: its seats
 * in range, its text (if any) one printable line shorter than
 * CAS__EVENT_TEXT_MAX.  Else a violation (above) and 0. */
#define CAS__EVENT_TEXT_MAX 4096
int cas__match_event_ok(struct cas__match *m, const struct cas_event *event);

/* current() of m's plugin for state, checked: a seat of the match,
 * CAS_ACTOR_CHANCE or CAS_ACTOR_TERMINAL.  Any other value is a violation
 * (above) and reads as CAS_ACTOR_TERMINAL. */
int cas__match_bad_actor(struct cas__match *m, int actor);
static inline int cas__match_current(struct cas__match *m, const cas_state *state)
{
    int actor = m->vt->current(state);
    if (actor < CAS_ACTOR_TERMINAL || actor >= m->nplayers)
        return cas__match_bad_actor(m, actor);
    return actor;
}

/* Whether m's plugin picks chance outcomes from a ticket (chance_total and
 * chance_pick, ABI 1.1) and m may use that.  Inline: playouts ask at every
 * draw. */
static inline int cas__match_picks_chance(const struct cas__match *m)
{
    const struct cas_game_vtable *vt = m->vt;
    return !m->generic_chance && CAS_HAS_FIELD(vt, struct cas_game_vtable, chance_pick) &&
           vt->chance_total && vt->chance_pick;
}

/* Whether m's plugin draws a random action without the listing
 * (random_action, ABI 1.2): random bots, playouts and the checker then
 * ask it instead of listing.  Inline, as above. */
static inline int cas__match_draws_actions(const struct cas__match *m)
{
    const struct cas_game_vtable *vt = m->vt;
    return CAS_HAS_FIELD(vt, struct cas_game_vtable, random_action) && vt->random_action;
}

/* A growable list of action codes or chance outcomes, owned by its user
 * and reused from decision to decision; free with cas__actions_free. */
struct cas__actions {
    cas_action *items;
    size_t count, cap;
    struct cas_outcome *outcomes; /* filled by cas__match_outcomes */
    size_t n_outcomes, outcomes_cap;
};

/* m must not move while open: its host services point back to it.
 * Create the game through plugin->game->game_new.  options are the game's
 * validated options (every declared one, defaults filled in); expansions are
 * in resolved order.  On failure fills err (the plugin's own explanation,
 * and for CAS_EOPTION the option's name) and leaves m closed.  The caller
 * keeps ownership of its arguments; m copies what it keeps. */
int cas__match_open(struct cas__match *m, const struct cas_plugin *plugin,
                    const char *data_dir, const struct cas_option_value *options,
                    size_t n_options, const struct cas_expansion_ref *expansions,
                    size_t n_expansions, int nplayers, char *err, size_t errlen);
/* cas__match_open with the game in a worker process when iso asks for one
 * (mode CAS__ISOLATE_WORKER; iso NULL or any other mode: in process). */
int cas__match_open_isolated(struct cas__match *m, const struct cas__isolation *iso,
                             const struct cas_plugin *plugin, const char *data_dir,
                             const struct cas_option_value *options, size_t n_options,
                             const struct cas_expansion_ref *expansions, size_t n_expansions,
                             int nplayers, char *err, size_t errlen);
void cas__match_close(struct cas__match *m);

/* Every option `plugin` declares, at its default value, into a new array
 * of *n values (NULL and *n = 0 when it declares none, or when memory runs
 * out: check plugin->n_options).  The strings point into the plugin's
 * descriptor; the caller frees the array. */
struct cas_option_value *cas__option_defaults(const struct cas_plugin *plugin, size_t *n);

/* The legal actions of `state` into list->items (growing it as needed).
 * Returns CAS_OK or the plugin's negative code (m->error explains). */
int cas__match_legal(struct cas__match *m, const cas_state *state,
                     struct cas__actions *list);

/* The chance outcomes of `state` into list->outcomes, same protocol. */
int cas__match_outcomes(struct cas__match *m, const cas_state *state,
                        struct cas__actions *list);

void cas__actions_free(struct cas__actions *list);

/* Canonical text of `action` in `state` into buf[0..cap), NUL-terminated.
 * On failure writes "<action 0x...>" instead and returns the negative code,
 * so callers can always print something. */
int cas__match_action_text(struct cas__match *m, const cas_state *state,
                           cas_action action, char *buf, size_t cap);

/* Render `state` for `viewer` onto a stdio stream.  Returns the plugin's
 * code. */
int cas__match_render(struct cas__match *m, const cas_state *state, int viewer,
                      enum cas_render_format format, FILE *out);

/* The decision view of `state` for a person choosing among `legal` (ABI
 * 1.1 render_choices): the board with the choices numbered where the game
 * can show them.  A plugin without it renders as cas__match_render. */
int cas__match_render_choices(struct cas__match *m, const cas_state *state, int viewer,
                              enum cas_render_format format,
                              const struct cas__actions *legal, FILE *out);

/* Either render, onto a writer of the caller's (a buffer: no stdio on the
 * way): the decision view among `legal` as cas__match_render_choices, or
 * with legal NULL the plain one as cas__match_render. */
int cas__match_render_to(struct cas__match *m, const cas_state *state, int viewer,
                         enum cas_render_format format, const struct cas__actions *legal,
                         const struct cas_writer *out);

/* Whether m's plugin draws pictures relative to the last (ABI 1.4
 * render_since). */
int cas__match_has_render_since(const struct cas__match *m);

/* The picture of cas__match_render_to (format CAS_RENDER_SVG, or
 * CAS_RENDER_SVG_ACTIONS among `legal`) through ABI 1.4 render_since: with
 * since[0..since_len) the stamp the viewer's last picture came with (NULL:
 * none), elements that picture holds may be placeholders (docs/abi.md
 * "ABI 1.4: pictures relative to the last"); the new picture's stamp goes
 * to stamp[0..cap), its length to *stamp_len (0: none; a plugin that
 * claims more than cap broke the ABI and gets none).  CAS_ENOTFOUND when
 * the plugin has no render_since; else the plugin's code. */
int cas__match_render_since(struct cas__match *m, const cas_state *state, int viewer,
                            enum cas_render_format format, const struct cas__actions *legal,
                            const unsigned char *since, size_t since_len, unsigned char *stamp,
                            size_t cap, size_t *stamp_len, const struct cas_writer *out);

/* The game's own help on how its actions are written (ABI 1.1
 * notation_help) onto out; CAS_ENOTFOUND when the plugin has none. */
int cas__match_notation_help(struct cas__match *m, FILE *out);

/* The scores the game would end with now (ABI 1.1 projected_returns) into
 * scores[0..nplayers); CAS_ENOTFOUND when the plugin defines none, else
 * the plugin's code. */
int cas__match_projected(struct cas__match *m, const cas_state *state, int64_t *scores);

/* The display name the plugin gives player p (never NULL): "?" when it
 * gives none, one of CAS__LABEL_MAX bytes or more, or one holding a
 * control character. */
#define CAS__LABEL_MAX 64
const char *cas__match_label(const struct cas__match *m, int p);

/* Why a call of m's plugin returned rc: the plugin's own text, or for a
 * plugin that gave none "out of memory" (CAS_ENOMEM) or "no reason given". */
const char *cas__match_reason(const struct cas__match *m, int rc);

#endif
