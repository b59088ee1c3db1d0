/*
 * watch.h — `--watch FILE.svg` of play and resume (host-internal): the
 * board picture rewritten whole after every action and every undo,
 * chained after the session's hooks (the save journal), which run first.
 */
#ifndef CAS_HOST_WATCH_H
#define CAS_HOST_WATCH_H

#include "session.h"

struct cas__watch {
    struct cas__session_hooks inner; /* the hooks it chains after */
    struct cas__session *session;    /* borrowed */
    const char *cmd;                 /* "play", for messages */
    const char *path;                /* borrowed */
    int warned;                      /* a failure was told once */
};

/* Chain w after s's hooks (every one of them, the journal's undo too) and
 * write the first picture to `path`.  w, s and path are borrowed and must
 * outlive the session's run.  A picture that cannot be written is told
 * once on stderr as "castellan CMD: --watch: ..." and the game goes on. */
void cas__watch_attach(struct cas__watch *w, struct cas__session *s, const char *cmd,
                       const char *path);

#endif
