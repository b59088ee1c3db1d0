/*
 * worker_main.c — castellan-worker, the program castellan starts for code
 * it did not write (host/loader/worker_spawn.h): it reads what to do from its
 * socket and becomes a probe (loader), a game worker (worker) or a check
 * (tools), with the agents' batches at hand.  It lives in the top room
 * because it names all of them.  It never returns through exit (no atexit
 * handler, no leak check: the sandbox would refuse what they do).
 */
#include <stdlib.h>
#include <unistd.h>

#include "agent.h"
#include "check.h"
#include "loader.h"
#include "worker_spawn.h"
#include "worker.h"

/* The setup on fd sock, then the life it asks for; the exit status. */
static int serve(int sock)
{
    enum cas__spawn_mode mode;
    uint8_t *setup;
    size_t len, n_fds;
    int fds[CAS__SPAWN_MAX_FDS];
    if (cas__spawn_accept(sock, &mode, &setup, &len, fds, CAS__SPAWN_MAX_FDS, &n_fds) != 0)
        return 3;
    struct cas__setup_reader r = {.p = setup, .left = len};
    switch (mode) {
    case CAS__SPAWN_PROBE:
        return cas__probe_serve(sock, setup, len, fds, n_fds);
    case CAS__SPAWN_GAME:
        return cas__worker_game(sock, &r, fds, n_fds);
    case CAS__SPAWN_CHECK:
        return cas__check_serve(sock, &r, fds, n_fds);
    }
    return 3;
}

int main(void)
{
    cas__worker_use_batches(&cas__agent_batches);
    _exit(serve(CAS__SPAWN_FD));
}
