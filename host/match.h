/*
 * match.h — one running game instance: a game plugin, its expansions, the
 * host services lent to them and the options they were created with
 * (host-internal).  Everything a session, a bot or the checker needs to
 * drive a game goes through here, never through a particular plugin.
 */
#ifndef CAS_HOST_MATCH_H
#define CAS_HOST_MATCH_H

#include <castellan/plugin.h>

struct cas__match {
    const struct cas_plugin *plugin;
    const struct cas_game_vtable *vt;
    struct cas_host host;       /* services lent to the game plugin */
    char *data_dir;             /* owned */
    char error[512];            /* last text the plugin passed to set_error */
    cas_game *game;
    int nplayers;
};

/* Create the game through plugin->game->game_new.  options are the game's
 * validated options (every declared one, defaults filled in); expansions are
 * in resolved order.  On failure fills err (the plugin's own explanation,
 * and for CAS_EOPTION the option's name) and leaves m closed.  The caller
 * keeps ownership of its arguments; m copies what it keeps. */
int cas__match_open(struct cas__match *m, const struct cas_plugin *plugin,
                    const char *data_dir, const struct cas_option_value *options,
                    size_t n_options, const struct cas_expansion_ref *expansions,
                    size_t n_expansions, int nplayers, char *err, size_t errlen);
void cas__match_close(struct cas__match *m);

#endif
