/*
 * saves_cli.h — what the save commands (saves, resume, replay, export,
 * import, campaign) share: their options, opening the store named by
 * --database or the default, and game ids (host-internal).
 */
#ifndef CAS_HOST_SAVES_CLI_H
#define CAS_HOST_SAVES_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "saves.h"
#include "worker.h"

/* Options a command accepts besides --database and --help. */
enum {
    CAS__ARG_OUTPUT = 1,      /* -o FILE, --output FILE ("-": standard output) */
    CAS__ARG_FORCE = 2,       /* --force */
    CAS__ARG_STEP = 4,        /* --step */
    CAS__ARG_PLUGIN_PATH = 8, /* --plugin-path DIR[:DIR...] */
    CAS__ARG_CAMPAIGN = 16,   /* --campaign NAME */
    CAS__ARG_NO_HASHES = 32,  /* --no-hashes */
    CAS__ARG_JSON = 64,       /* --json */
    CAS__ARG_PLY = 128,       /* --ply N */
    CAS__ARG_PICTURE = 256,   /* --viewer P */
    CAS__ARG_HTML = 512,      /* --html */
    CAS__ARG_ISOLATION = 1024, /* --isolated, --in-process, --plugin-deadline MS */
    CAS__ARG_WATCH = 2048,     /* --watch FILE.svg */
    CAS__ARG_PLAYER = 4096     /* --player NAME */
};

/* The most positional arguments a save command takes (import's files). */
#define CAS__SAVES_MAX_POSITIONAL 1024

struct cas__saves_args {
    char cmd[64];             /* "castellan resume", for messages */
    const char *database;     /* --database FILE, or NULL for the default */
    const char *output;
    const char *plugin_path;
    const char *campaign;
    const char *player;       /* --player NAME, or NULL */
    int force, step, no_hashes, json, html;
    const char *ply, *viewer; /* --ply N, --viewer P as given */
    const char *watch;        /* --watch FILE.svg, or NULL */
    struct cas__isolation isolation; /* CAS__ARG_ISOLATION's flags */
    const char *positional[CAS__SAVES_MAX_POSITIONAL];
    int n_positional;
};

/* Parse argv[1..argc) of command `cmd` ("resume") into a (argv strings
 * are borrowed).  Accepts the options in `allowed` and min..max (at most 4)
 * positional arguments.  Returns -1 when
 * the command should go on, else the exit status to return: 0 after
 * printing usage for --help, 2 after explaining a bad argument on stderr. */
int cas__saves_args_parse(struct cas__saves_args *a, const char *cmd, int argc,
                          char **argv, unsigned allowed, int min, int max,
                          const char *usage);

/* What a command does with the store. */
enum cas__store_use {
    CAS__STORE_READ,   /* only reads: works on a store castellan may not write */
    CAS__STORE_WRITE,  /* changes an existing store */
    CAS__STORE_CREATE  /* changes it, creating it if there is none */
};

/* Open the store a names (or the default) for `use`: commands that only
 * read or delete never leave a new file behind a mistyped name.  On
 * failure prints "CMD: reason" on stderr and returns NULL. */
struct cas__saves *cas__saves_args_open(const struct cas__saves_args *a,
                                        enum cas__store_use use);

/* Parse a game id ("12").  On failure prints why on stderr and returns -1. */
int cas__saves_args_game_id(const struct cas__saves_args *a, const char *text,
                            int64_t *id);

/* The opening of a command on one saved game: parse argv (one positional
 * argument, the game id), open the existing store for `use` and load the game with
 * its actions.  Returns -1 when the command should go on: the caller then
 * owns *store (cas__saves_close) and *g (cas__saves_game_free).  Otherwise
 * returns the exit status, having explained a failure on stderr and left
 * nothing open. */
int cas__saves_args_load_game(struct cas__saves_args *a, const char *cmd, int argc,
                              char **argv, unsigned allowed, enum cas__store_use use,
                              const char *usage,
                              struct cas__saves **store, int64_t *id,
                              struct cas__saves_game *g);

/* Open -o FILE for a command's result: standard output when there is
 * none or it is "-".  On failure prints why on stderr and returns NULL. */
FILE *cas__saves_args_output_open(const struct cas__saves_args *a);

/* Finish the output opened above of a command whose work ended with
 * `status`: flushes it, closes a file, and removes a file that could not
 * be written whole.  Returns the command's exit status. */
int cas__saves_args_output_close(const struct cas__saves_args *a, FILE *out, int status);

/* Print the store's last failure as "CMD: reason" on stderr; returns 1, the
 * exit status for a failed command. */
int cas__saves_args_fail(const struct cas__saves_args *a, struct cas__saves *s);

/* Make g's text from outside (player names, campaign: a record, a foreign
 * file or an older save may hold terminal control characters) printable,
 * in place (cas__text_printable), before anything prints or keeps it. */
void cas__saves_game_printable(struct cas__saves_game *g);

#endif
