/*
 * saves_cli.c — option parsing and store opening shared by the save
 * commands, so every one of them spells --database, --help and game ids the
 * same way and explains mistakes the same way.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "saves_cli.h"
#include "text.h"

#include "cli.h"

int cas__saves_args_parse(struct cas__saves_args *a, const char *cmd, int argc,
                          char **argv, unsigned allowed, int min, int max,
                          const char *usage)
{
    struct cas__flag flags[20];
    size_t n = 0, n_positional;
    int done, isolated = 0, in_process = 0;
    const char *deadline = NULL;
    memset(a, 0, sizeof *a);
    snprintf(a->cmd, sizeof a->cmd, "castellan %s", cmd);
    flags[n++] = (struct cas__flag){"--database", &a->database, NULL, NULL};
    if (allowed & CAS__ARG_OUTPUT) {
        flags[n++] = (struct cas__flag){"--output", &a->output, NULL, NULL};
        flags[n++] = (struct cas__flag){"-o", &a->output, NULL, NULL};
    }
    if (allowed & CAS__ARG_PLUGIN_PATH)
        flags[n++] = (struct cas__flag){"--plugin-path", &a->plugin_path, NULL, NULL};
    if (allowed & CAS__ARG_CAMPAIGN)
        flags[n++] = (struct cas__flag){"--campaign", &a->campaign, NULL, NULL};
    if (allowed & CAS__ARG_PLAYER)
        flags[n++] = (struct cas__flag){"--player", &a->player, NULL, NULL};
    if (allowed & CAS__ARG_FORCE)
        flags[n++] = (struct cas__flag){"--force", NULL, &a->force, NULL};
    if (allowed & CAS__ARG_STEP)
        flags[n++] = (struct cas__flag){"--step", NULL, &a->step, NULL};
    if (allowed & CAS__ARG_NO_HASHES)
        flags[n++] = (struct cas__flag){"--no-hashes", NULL, &a->no_hashes, NULL};
    if (allowed & CAS__ARG_JSON)
        flags[n++] = (struct cas__flag){"--json", NULL, &a->json, NULL};
    if (allowed & CAS__ARG_PLY)
        flags[n++] = (struct cas__flag){"--ply", &a->ply, NULL, NULL};
    if (allowed & CAS__ARG_PICTURE)
        flags[n++] = (struct cas__flag){"--viewer", &a->viewer, NULL, NULL};
    if (allowed & CAS__ARG_HTML)
        flags[n++] = (struct cas__flag){"--html", NULL, &a->html, NULL};
    if (allowed & CAS__ARG_WATCH)
        flags[n++] = (struct cas__flag){"--watch", &a->watch, NULL, NULL};
    if (allowed & CAS__ARG_ISOLATION) {
        flags[n++] = (struct cas__flag){"--isolated", NULL, &isolated, NULL};
        flags[n++] = (struct cas__flag){"--in-process", NULL, &in_process, NULL};
        flags[n++] = (struct cas__flag){"--plugin-deadline", &deadline, NULL, NULL};
    }
    int status = cas__cli_parse(cmd, argc, argv, flags, n, a->positional,
                                (size_t)max, &n_positional, usage, &done);
    if (status || done)
        return status;
    if ((status = cas__cli_isolation(cmd, isolated, in_process, deadline, &a->isolation)))
        return status;
    a->n_positional = (int)n_positional;
    if (a->n_positional < min) {
        fprintf(stderr, "%s: missing argument\n%s", a->cmd, usage);
        return 2;
    }
    return -1;
}

struct cas__saves *cas__saves_args_open(const struct cas__saves_args *a,
                                        enum cas__store_use use)
{
    char err[1024];
    char *fallback = NULL;
    const char *path = a->database;
    struct cas__saves *s = NULL;
    struct stat st;
    if (!path && !(path = fallback = cas__saves_default_path())) {
        fprintf(stderr, "%s: neither XDG_DATA_HOME nor HOME is set; name the "
                "save database with --database FILE\n", a->cmd);
        return NULL;
    }
    int rc;
    if (use == CAS__STORE_READ ||
        (use == CAS__STORE_WRITE && !cas__saves_is_url(path) && stat(path, &st) != 0 &&
         errno == ENOENT)) /* reading says there is none */
        rc = cas__saves_open_read(path, &s, err, sizeof err);
    else
        rc = cas__saves_open(path, &s, err, sizeof err);
    if (rc != CAS_OK)
        fprintf(stderr, "%s: %s\n", a->cmd, err);
    free(fallback);
    return s;
}

int cas__saves_args_game_id(const struct cas__saves_args *a, const char *text,
                            int64_t *id)
{
    char *end;
    long long v = strtoll(text, &end, 10);
    if (text[0] < '0' || text[0] > '9' || *end != '\0' || v <= 0) {
        fprintf(stderr, "%s: \"%s\" is not a game id; `castellan saves list` "
                "shows the ids\n", a->cmd, text);
        return -1;
    }
    *id = v;
    return 0;
}

int cas__saves_args_fail(const struct cas__saves_args *a, struct cas__saves *s)
{
    fprintf(stderr, "%s: %s\n", a->cmd, cas__saves_errmsg(s));
    return 1;
}

/* Whether a names a file to write, not standard output ("-" or none). */
static int output_is_file(const struct cas__saves_args *a)
{
    return a->output && strcmp(a->output, "-") != 0;
}

/* A new output file is private (0600), as the store is: a record holds
 * the game's seed, a secret of a served game until it ends. */
static FILE *open_private(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    FILE *out = fd < 0 ? NULL : fdopen(fd, "w");
    if (fd >= 0 && !out)
        close(fd);
    return out;
}

FILE *cas__saves_args_output_open(const struct cas__saves_args *a)
{
    FILE *out = output_is_file(a) ? open_private(a->output) : stdout;
    if (!out)
        fprintf(stderr, "%s: %s: %s\n", a->cmd, a->output, strerror(errno));
    return out;
}

int cas__saves_args_output_close(const struct cas__saves_args *a, FILE *out, int status)
{
    int file = output_is_file(a);
    if (status == 0 && (fflush(out) != 0 || ferror(out))) {
        fprintf(stderr, "%s: cannot write %s\n", a->cmd,
                file ? a->output : "to standard output");
        status = 1;
    }
    if (file && fclose(out) != 0 && status == 0) {
        fprintf(stderr, "%s: cannot write %s\n", a->cmd, a->output);
        status = 1;
    }
    if (status && file)
        remove(a->output); /* no half a record, page or picture left behind */
    return status;
}

int cas__saves_args_load_game(struct cas__saves_args *a, const char *cmd, int argc,
                              char **argv, unsigned allowed, enum cas__store_use use,
                              const char *usage,
                              struct cas__saves **store, int64_t *id,
                              struct cas__saves_game *g)
{
    int status = cas__saves_args_parse(a, cmd, argc, argv, allowed, 1, 1, usage);
    if (status >= 0)
        return status;
    if (cas__saves_args_game_id(a, a->positional[0], id))
        return 2;
    struct cas__saves *s = cas__saves_args_open(a, use);
    if (!s)
        return 1;
    if (cas__saves_game_load(s, *id, 1, g)) {
        status = cas__saves_args_fail(a, s);
        cas__saves_close(s);
        return status;
    }
    cas__saves_game_printable(g);
    *store = s;
    return -1;
}

void cas__saves_game_printable(struct cas__saves_game *g)
{
    for (size_t i = 0; i < g->n_players; i++)
        cas__text_printable(g->players[i].name);
    cas__text_printable(g->campaign);
}
