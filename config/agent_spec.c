/*
 * agent_spec.c — parsing agent names: the plain bots, and the search bot
 * with its level, budget and thread count.
 */
#include "agent_spec.h"

#include <castellan/plugin.h>
#include <stdlib.h>
#include <string.h>

#include "session_desc.h"
#include "text.h"

#define SPEC_SYNTAX "human, random, greedy or mcts[-easy|-medium|-hard][@N|@Nms][/THREADS]"

static const char *const level_words[] = {NULL, "easy", "medium", "hard"};

static int refuse(const char *text, const char *where, char *err, size_t errlen)
{
    return cas__errorf(err, errlen, CAS_EPARSE,
                       "%s: agent \"%s\" is not valid; use " SPEC_SYNTAX " (closest: %s)",
                       where, text, cas__closest(text, cas__agent_names, cas__n_agent_names));
}

/* A decimal number in [1, max] spanning [p, end); 0 when it is not one. */
static uint64_t number_in(const char *p, const char *end, uint64_t max)
{
    uint64_t n = 0;
    if (p == end)
        return 0;
    for (; p < end; p++) {
        if (*p < '0' || *p > '9' || n > max / 10)
            return 0;
        n = n * 10 + (uint64_t)(*p - '0');
    }
    return n <= max ? n : 0;
}

/* "-LEVEL" at *p, if any. */
static int parse_level(const char **p, struct cas__agent_spec *out)
{
    out->level = CAS__LEVEL_MEDIUM;
    if (**p != '-')
        return 1;
    for (int l = CAS__LEVEL_EASY; l <= CAS__LEVEL_HARD; l++) {
        size_t len = strlen(level_words[l]);
        if (strncmp(*p + 1, level_words[l], len) == 0 &&
            ((*p)[1 + len] == '\0' || (*p)[1 + len] == '@' || (*p)[1 + len] == '/')) {
            out->level = (enum cas__agent_level)l;
            *p += 1 + len;
            return 1;
        }
    }
    return 0;
}

/* "@N" or "@Nms" at *p, if any. */
static int parse_budget(const char **p, struct cas__agent_spec *out)
{
    if (**p != '@')
        return 1;
    const char *start = *p + 1, *end = start + strcspn(start, "/");
    int in_ms = end - start > 2 && end[-2] == 'm' && end[-1] == 's';
    if (in_ms)
        out->millis = number_in(start, end - 2, CAS__MCTS_MAX_MILLIS);
    else
        out->iterations = number_in(start, end, CAS__MCTS_MAX_ITERATIONS);
    *p = end;
    return in_ms ? out->millis != 0 : out->iterations != 0;
}

int cas__agent_spec_parse(const char *text, const char *where, struct cas__agent_spec *out,
                          char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    static const char *const plain[] = {"human", "random", "greedy"};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        if (strcmp(text, plain[i]) == 0) {
            strcpy(out->kind, plain[i]);
            return CAS_OK;
        }
    if (strncmp(text, "mcts", 4) != 0)
        return refuse(text, where, err, errlen);
    strcpy(out->kind, "mcts");
    const char *p = text + 4;
    if (!parse_level(&p, out))
        return refuse(text, where, err, errlen);
    if (!parse_budget(&p, out))
        return cas__errorf(err, errlen, CAS_EPARSE,
                           "%s: agent \"%s\" is not valid: a budget is @N iterations "
                           "(1 to %llu) or @Nms milliseconds (1 to %llu), e.g. mcts@2000 "
                           "or mcts@500ms",
                           where, text, (unsigned long long)CAS__MCTS_MAX_ITERATIONS,
                           (unsigned long long)CAS__MCTS_MAX_MILLIS);
    if (*p == '/') {
        out->threads = (unsigned)number_in(p + 1, p + strlen(p), CAS__MCTS_MAX_THREADS);
        if (out->threads == 0)
            return cas__errorf(err, errlen, CAS_EPARSE,
                               "%s: agent \"%s\" is not valid: /THREADS is a thread count "
                               "from 1 to %u, e.g. mcts@2000/2",
                               where, text, CAS__MCTS_MAX_THREADS);
        p += strlen(p);
    }
    if (*p != '\0')
        return refuse(text, where, err, errlen);
    return CAS_OK;
}
