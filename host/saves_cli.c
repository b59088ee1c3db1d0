/*
 * saves_cli.c — option parsing and store opening shared by the save
 * commands, so every one of them spells --database, --help and game ids the
 * same way and explains mistakes the same way.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "saves_cli.h"

/* "--name VALUE" or "--name=VALUE" (or the short form "-x VALUE") at
 * argv[*i]; 1 if it matched, -1 if the value is missing, else 0. */
static int take_value(int argc, char **argv, int *i, const char *name,
                      const char *short_name, const char **value)
{
    const char *arg = argv[*i];
    size_t len = strlen(name);
    if (strncmp(arg, name, len) == 0 && arg[len] == '=') {
        *value = arg + len + 1;
        return 1;
    }
    if (strcmp(arg, name) != 0 && !(short_name && strcmp(arg, short_name) == 0))
        return 0;
    if (*i + 1 >= argc)
        return -1;
    *value = argv[++*i];
    return 1;
}

static int bad_usage(const char *cmd, const char *usage, const char *fmt,
                     const char *arg)
{
    fprintf(stderr, "%s: ", cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", usage);
    return 2;
}

/* One option at argv[*i]: 1 taken, 0 not an option of ours, or -1 when
 * its value is missing. */
static int take_option(struct cas__saves_args *a, int argc, char **argv, int *i,
                       unsigned allowed)
{
    const char *arg = argv[*i];
    int got;
    if ((got = take_value(argc, argv, i, "--database", NULL, &a->database)))
        return got;
    if ((allowed & CAS__ARG_OUTPUT) &&
        (got = take_value(argc, argv, i, "--output", "-o", &a->output)))
        return got;
    if ((allowed & CAS__ARG_PLUGIN_PATH) &&
        (got = take_value(argc, argv, i, "--plugin-path", NULL, &a->plugin_path)))
        return got;
    int *flag = (allowed & CAS__ARG_FORCE) && strcmp(arg, "--force") == 0 ? &a->force
              : (allowed & CAS__ARG_STEP) && strcmp(arg, "--step") == 0   ? &a->step
              : (allowed & CAS__ARG_QUIET) &&
                        (strcmp(arg, "--quiet") == 0 || strcmp(arg, "-q") == 0)
                  ? &a->quiet
                  : NULL;
    if (!flag)
        return 0;
    *flag = 1;
    return 1;
}

int cas__saves_args_parse(struct cas__saves_args *a, const char *cmd, int argc,
                          char **argv, unsigned allowed, int min, int max,
                          const char *usage)
{
    memset(a, 0, sizeof *a);
    a->cmd = cmd;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(usage, stdout);
            return 0;
        }
        int got = take_option(a, argc, argv, &i, allowed);
        if (got < 0)
            return bad_usage(cmd, usage, "%s needs a value", arg);
        if (got)
            continue;
        if (arg[0] == '-' && arg[1] != '\0')
            return bad_usage(cmd, usage, "unknown option \"%s\"", arg);
        if (a->n_positional == max || a->n_positional == 4)
            return bad_usage(cmd, usage, "unexpected argument \"%s\"", arg);
        a->positional[a->n_positional++] = arg;
    }
    if (a->n_positional < min)
        return bad_usage(cmd, usage, "%s", "missing argument");
    return -1;
}

struct cas__saves *cas__saves_args_open(const struct cas__saves_args *a)
{
    char err[1024];
    char *fallback = NULL;
    const char *path = a->database;
    struct cas__saves *s = NULL;
    if (!path && !(path = fallback = cas__saves_default_path())) {
        fprintf(stderr, "%s: neither XDG_DATA_HOME nor HOME is set; name the "
                "save database with --database FILE\n", a->cmd);
        return NULL;
    }
    if (cas__saves_open(path, &s, err, sizeof err) != CAS_OK)
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
