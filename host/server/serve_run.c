/*
 * serve_run.c — one run of castellan serve: opens the save store, brings
 * back every unfinished served game, listens and runs the event loop
 * until SIGINT or SIGTERM or its caller says done (docs/server.md).  The
 * serve command, play --web and bench --only serve run it.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "club.h"
#include "install_dirs.h"
#include "server.h"

static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
    (void)sig;
    stopping = 1;
}

int cas__serve_run(const struct cas__serve_setup *setup)
{
    struct cas__saves *store = NULL;
    struct cas__lobby lobby;
    struct cas__httpd *h = NULL;
    struct cas__club *club = NULL;
    struct cas__notify *notify = NULL;
    char err[1024];
    int port, status = 1;
    char *fallback = NULL, *www = NULL;
    const char *db = setup->database;
    if (!db && !(db = fallback = cas__saves_default_path())) {
        fprintf(stderr, "castellan serve: neither XDG_DATA_HOME nor HOME is set; give "
                "--database FILE\n");
        return 1;
    }
    if (cas__saves_open(db, &store, err, sizeof err) != CAS_OK) {
        fprintf(stderr, "castellan serve: %s\n", err);
        goto free_path;
    }
    if (cas__lobby_open(&lobby, store, setup->plugin_path, &setup->isolation, setup->clock,
                        &setup->opts.limits, err, sizeof err) != CAS_OK) {
        fprintf(stderr, "castellan serve: %s\n", err);
        goto close_store;
    }
    struct cas__serve_options opts = setup->opts;
    if (!opts.www)
        opts.www = www = cas__find_installed(CASTELLAN_WWW_DIR_FROM_BIN,
                                             CASTELLAN_WWW_INSTALL_DIR,
                                             CASTELLAN_WWW_SOURCE_DIR);
    if (!opts.www && !opts.quiet)
        fprintf(stderr, "castellan serve: warning: the browser client's files are not "
                "installed (looked in %s); pages answer 404 until --www DIR names them\n",
                CASTELLAN_WWW_INSTALL_DIR);
    lobby.host_saved = &setup->host_saved;
    if (cas__club_new(db, &setup->host_saved, &club) != CAS_OK) {
        fprintf(stderr, "castellan serve: the club's pages cannot start: out of memory or "
                "threads\n");
        goto close_lobby;
    }
    lobby.club = club;
    if (setup->notify_command &&
        cas__notify_new(setup->notify_command, 0, &notify, err, sizeof err) != CAS_OK) {
        fprintf(stderr, "castellan serve: notify-command: %s\n", err);
        goto close_lobby;
    }
    lobby.notify = notify;
    if (cas__httpd_start(&lobby, &opts, &h, &port, err, sizeof err) != CAS_OK) {
        fprintf(stderr, "castellan serve: %s\n", err);
        goto close_lobby;
    }
    /* The journal's own connection and thread: no commit waits on the loop. */
    if (cas__saves_writer_open(db, cas__httpd_wake, h, &lobby.writer, err, sizeof err) !=
        CAS_OK) {
        fprintf(stderr, "castellan serve: %s\n", err);
        goto stop;
    }
    if (cas__saves_writer_start(lobby.writer) != CAS_OK) {
        fprintf(stderr, "castellan serve: cannot start the journal's writer thread\n");
        goto stop;
    }
    /* The store's thread, with a connection of its own: every other call
     * of the store while serving (store_job.c). */
    if (cas__saves_writer_open(db, cas__httpd_wake, h, &lobby.store_thread, err,
                               sizeof err) != CAS_OK) {
        fprintf(stderr, "castellan serve: %s\n", err);
        goto stop;
    }
    /* A game's claim on the connection that journals it: a killed
     * server's last append is in before another may claim the game. */
    cas__saves_writer_hold_claims(lobby.writer, store);
    cas__saves_writer_hold_claims_of(lobby.writer, lobby.store_thread);
    if (cas__saves_writer_start(lobby.store_thread) != CAS_OK) {
        fprintf(stderr, "castellan serve: cannot start the store's thread\n");
        goto stop;
    }
    if (!setup->no_restore && cas__lobby_restore_all(&lobby, err, sizeof err) != CAS_OK) {
        fprintf(stderr, "castellan serve: %s\n", err);
        goto stop;
    }
    if (setup->ready && setup->ready(setup->ready_ctx, &lobby, port) != CAS_OK)
        goto stop;
    if (!opts.quiet)
        fprintf(stderr, "castellan serve: %zu game(s) resumed; listening on %s://%s "
                "(port %d); the store is %s; the event loop is %s\n", lobby.n_tables,
                opts.cert ? "https" : "http", opts.listen, port, db, cas__httpd_event_loop(h));
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    stopping = 0;
    for (;;) {
        /* Once a turn, before the loop sleeps: every table that changed in
         * it sends what it owes (as redis writes its clients' pending
         * replies before it sleeps). */
        cas__lobby_flush(&lobby);
        if (stopping || (setup->done && setup->done(setup->ready_ctx, &lobby, h)) ||
            cas__httpd_service(h, 1000) < 0)
            break;
    }
    status = 0;
stop:
    /* No job hands the writer an action any more; what is queued is
     * written; answers not taken concern no client now. */
    cas__httpd_stop_jobs(h);
    cas__store_stop(&lobby);
    cas__saves_writer_stop(lobby.writer);
    lobby.writer = NULL;
    cas__httpd_free(h);
close_lobby:
    cas__lobby_close(&lobby);
    cas__club_free(club);
    cas__notify_free(notify); /* after the runs queued, each bounded */
close_store:
    cas__saves_close(store);
free_path:
    free(fallback);
    free(www);
    return status;
}
