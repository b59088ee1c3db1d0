/*
 * cli.c — table-driven flag parsing for the castellan commands, with a
 * "did you mean" for every unknown flag.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "term.h"
#include "text.h"
#include "worker.h"

#define MAX_FLAGS 32

static const struct cas__flag *find_flag(const struct cas__flag *flags, size_t n,
                                         const char *name, size_t len)
{
    for (size_t i = 0; i < n; i++)
        if (strlen(flags[i].name) == len && strncmp(flags[i].name, name, len) == 0)
            return &flags[i];
    return NULL;
}

static int unknown_flag(const char *command, const char *arg, const struct cas__flag *flags,
                        size_t n)
{
    const char *names[MAX_FLAGS + 1];
    size_t count = 0;
    for (size_t i = 0; i < n && count < MAX_FLAGS; i++)
        names[count++] = flags[i].name;
    names[count++] = "--help";
    char name[64];
    snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
    const char *closest = cas__closest(name, names, count);
    cas__term_message(stderr, "castellan %s: unknown option \"%s\"%s%s%s (castellan %s --help "
                      "lists them)", command, name, closest ? "; did you mean \"" : "",
            closest ? closest : "", closest ? "\"?" : "", command);
    return 2;
}

/* Store the value of flag f; 0, or 1 (said on stderr) when memory ran out. */
static int store(const char *command, const struct cas__flag *f, const char *value)
{
    if (f->values && cas__strlist_push(f->values, value) != CAS_OK) {
        fprintf(stderr, "castellan %s: out of memory\n", command);
        return 1;
    }
    if (!f->values)
        *f->value = value;
    return 0;
}

/* The flag at argv[*i], with its value (consuming argv[*i + 1] if needed). */
static int take_flag(const char *command, int argc, char **argv, int *i,
                     const struct cas__flag *flags, size_t n)
{
    const char *arg = argv[*i];
    size_t len = strcspn(arg, "=");
    const struct cas__flag *f = find_flag(flags, n, arg, len);
    if (!f)
        return unknown_flag(command, arg, flags, n);
    if (f->set) {
        if (arg[len] == '=') {
            fprintf(stderr, "castellan %s: %s takes no value\n", command, f->name);
            return 2;
        }
        *f->set = 1;
        return 0;
    }
    if (arg[len] == '=')
        return store(command, f, arg + len + 1);
    if (*i + 1 >= argc) {
        fprintf(stderr, "castellan %s: %s needs a value\n", command, f->name);
        return 2;
    }
    return store(command, f, argv[++*i]);
}

int cas__cli_parse(const char *command, int argc, char **argv, const struct cas__flag *flags,
                   size_t n_flags, const char **positional, size_t max_positional,
                   size_t *n_positional, const char *usage, int *done)
{
    *done = 0;
    *n_positional = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            fputs(usage, stdout);
            *done = 1;
            return 0;
        }
        if (arg[0] == '-' && arg[1] != '\0') {
            int status = take_flag(command, argc, argv, &i, flags, n_flags);
            if (status)
                return status;
        } else if (*n_positional < max_positional) {
            positional[(*n_positional)++] = arg;
        } else {
            fprintf(stderr, "castellan %s: unexpected argument \"%s\"\n%s", command, arg,
                    usage);
            return 2;
        }
    }
    return 0;
}

int cas__cli_number(const char *command, const char *flag, const char *text, uint64_t min,
                    uint64_t max, uint64_t *out)
{
    char *end;
    if (*text && strspn(text, "0123456789") == strlen(text) && strlen(text) <= 19) {
        unsigned long long v = strtoull(text, &end, 10);
        if (v >= min && v <= max) {
            *out = v;
            return 0;
        }
    }
    fprintf(stderr, "castellan %s: %s must be a whole number from %llu to %llu, not \"%s\"\n",
            command, flag, (unsigned long long)min, (unsigned long long)max, text);
    return 2;
}

int cas__cli_isolation(const char *command, int isolated, int in_process,
                       const char *deadline, struct cas__isolation *out)
{
    *out = (struct cas__isolation){.mode = CAS__ISOLATE_AUTO};
    if (isolated && in_process) {
        fprintf(stderr, "castellan %s: --isolated and --in-process contradict each other; "
                "give one\n", command);
        return 2;
    }
    out->mode = isolated ? CAS__ISOLATE_WORKER
                         : in_process ? CAS__ISOLATE_IN_PROCESS : CAS__ISOLATE_AUTO;
    if (deadline) {
        uint64_t ms;
        int status = cas__cli_number(command, "--plugin-deadline", deadline, 1, 3600000, &ms);
        if (status)
            return status;
        out->deadline_ms = (unsigned)ms;
    }
    return 0;
}
