/*
 * cli.h — command-line parsing shared by the castellan commands
 * (host-internal): flags from a table, `--flag VALUE` or `--flag=VALUE`,
 * every unknown flag answered with the closest valid one.
 */
#ifndef CAS_HOST_CLI_H
#define CAS_HOST_CLI_H

#include <stddef.h>
#include <stdint.h>

#include "registry.h"

struct cas__flag {
    const char *name;   /* "--seed" */
    const char **value; /* a flag with a value stores it here (the last wins) */
    int *set;           /* a switch sets this to 1 */
    struct cas__strlist *values; /* a repeatable flag collects every value */
};

/* Parse argv[1..argc) of `command` against flags[0..n_flags).  Arguments
 * that are not flags go to positional[0..max_positional).  Returns 0 to go
 * on, or an exit status after printing what went wrong to stderr (2) or,
 * for --help/-h, printing usage to stdout (0 with *done set). */
int cas__cli_parse(const char *command, int argc, char **argv, const struct cas__flag *flags,
                   size_t n_flags, const char **positional, size_t max_positional,
                   size_t *n_positional, const char *usage, int *done);

/* Parse a decimal number in [min, max] given to `flag`; prints the error
 * (naming the command, flag and range) and returns 2 if it is not one. */
int cas__cli_number(const char *command, const char *flag, const char *text, uint64_t min,
                    uint64_t max, uint64_t *out);

struct cas__isolation;

/* The flags --isolated and --in-process (switches) and --plugin-deadline
 * MS of `command` into *out (mode auto and deadline 0 where not given).
 * Returns 0, or 2 after printing the problem (both switches, a bad
 * number). */
int cas__cli_isolation(const char *command, int isolated, int in_process,
                       const char *deadline, struct cas__isolation *out);

/* The usage text of those flags, for --help. */
#define CAS__CLI_ISOLATION_HELP                                                        \
    "--isolated runs the game's plugin in a worker process (crashes and hangs\n"        \
    "are reported, the save stays whole); --in-process loads it into castellan\n"       \
    "itself (fastest).  By default plugins from outside the build and install\n"       \
    "folders run isolated.  --plugin-deadline MS bounds one call into an\n"             \
    "isolated plugin (default 5000 ms).  See docs/isolation.md.\n"

#endif
