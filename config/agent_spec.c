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

#define SPEC_SYNTAX "human, " CAS__BOT_SYNTAX

static const char *const level_words[] = {NULL, "easy", "medium", "hard"};

/* The +OPTION words, two a group in group order; value is the enum value
 * the word stands for. */
enum option_group { GROUP_ROLLOUT, GROUP_PARALLEL, GROUP_REWARD };
static const struct option_word {
    const char *word;
    enum option_group group;
    int value;
} option_words[] = {
    {"random", GROUP_ROLLOUT, CAS__ROLLOUT_RANDOM},   {"greedy", GROUP_ROLLOUT, CAS__ROLLOUT_GREEDY},
    {"root", GROUP_PARALLEL, CAS__PARALLEL_ROOT},     {"tree", GROUP_PARALLEL, CAS__PARALLEL_TREE},
    {"win", GROUP_REWARD, CAS__REWARD_WIN},           {"margin", GROUP_REWARD, CAS__REWARD_MARGIN},
};
static const char *const group_names[] = {"playouts", "parallel search", "reward"};

/* An unknown name, with every form a place takes: all agents, or (bots
 * only) all but "human", which cas__agent_names lists first. */
static int refuse(const char *text, const char *where, int bots_only, char *err,
                  size_t errlen)
{
    size_t skip = bots_only ? 1 : 0;
    char note[96];
    return cas__errorf(err, errlen, CAS_EPARSE, "%s: agent \"%s\" is not valid; use %s%s",
                       where, text, bots_only ? CAS__BOT_SYNTAX : SPEC_SYNTAX,
                       cas__closest_note(note, sizeof note, text, cas__agent_names + skip,
                                         cas__n_agent_names - skip));
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
            ((*p)[1 + len] == '\0' || strchr("@/+", (*p)[1 + len]))) {
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
    const char *start = *p + 1, *end = start + strcspn(start, "/+");
    int in_ms = end - start > 2 && end[-2] == 'm' && end[-1] == 's';
    if (in_ms)
        out->millis = number_in(start, end - 2, CAS__MCTS_MAX_MILLIS);
    else
        out->iterations = number_in(start, end, CAS__MCTS_MAX_ITERATIONS);
    *p = end;
    return in_ms ? out->millis != 0 : out->iterations != 0;
}

/* The field of *spec that holds an option group's choice. */
static int *group_field(struct cas__agent_spec *spec, enum option_group group)
{
    switch (group) {
    case GROUP_ROLLOUT: return (int *)&spec->rollout;
    case GROUP_PARALLEL: return (int *)&spec->parallel;
    case GROUP_REWARD: break;
    }
    return (int *)&spec->reward;
}

/* "+WORD" at *p: one option, at most one of its group. */
static int parse_option(const char **p, const char *text, const char *where,
                        struct cas__agent_spec *out, char *err, size_t errlen)
{
    const char *word = *p + 1;
    size_t len = strcspn(word, "+");
    for (size_t i = 0; i < sizeof option_words / sizeof option_words[0]; i++) {
        const struct option_word *o = &option_words[i];
        if (strlen(o->word) != len || strncmp(word, o->word, len) != 0)
            continue;
        int *field = group_field(out, o->group);
        if (*field)
            return cas__errorf(err, errlen, CAS_EPARSE,
                               "%s: agent \"%s\" is not valid: it sets the %s twice; "
                               "give one of +%s and +%s",
                               where, text, group_names[o->group], option_words[2 * o->group].word,
                               option_words[2 * o->group + 1].word);
        *field = o->value;
        *p = word + len;
        return CAS_OK;
    }
    return cas__errorf(err, errlen, CAS_EPARSE,
                       "%s: agent \"%s\" is not valid: +%.*s is no option; the options are "
                       "+random or +greedy (playouts), +root or +tree (parallel search), "
                       "+win or +margin (reward), e.g. mcts-hard+greedy",
                       where, text, (int)len, word);
}

static int parse(const char *text, const char *where, int bots_only,
                 struct cas__agent_spec *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    static const char *const plain[] = {"human", "random", "greedy"};
    for (size_t i = 0; i < sizeof plain / sizeof plain[0]; i++)
        if (strcmp(text, plain[i]) == 0) {
            strcpy(out->kind, plain[i]);
            return CAS_OK;
        }
    if (strncmp(text, "mcts", 4) != 0)
        return refuse(text, where, bots_only, err, errlen);
    strcpy(out->kind, "mcts");
    const char *p = text + 4;
    if (!parse_level(&p, out))
        return refuse(text, where, bots_only, err, errlen);
    if (!parse_budget(&p, out))
        return cas__errorf(err, errlen, CAS_EPARSE,
                           "%s: agent \"%s\" is not valid: a budget is @N iterations "
                           "(1 to %llu) or @Nms milliseconds (1 to %llu), e.g. mcts@2000 "
                           "or mcts@500ms",
                           where, text, (unsigned long long)CAS__MCTS_MAX_ITERATIONS,
                           (unsigned long long)CAS__MCTS_MAX_MILLIS);
    if (*p == '/') {
        const char *end = p + 1 + strcspn(p + 1, "+");
        out->threads = (unsigned)number_in(p + 1, end, CAS__MCTS_MAX_THREADS);
        if (out->threads == 0)
            return cas__errorf(err, errlen, CAS_EPARSE,
                               "%s: agent \"%s\" is not valid: /THREADS is a thread count "
                               "from 1 to %u, e.g. mcts@2000/2",
                               where, text, CAS__MCTS_MAX_THREADS);
        p = end;
    }
    while (*p == '+') {
        int rc = parse_option(&p, text, where, out, err, errlen);
        if (rc != CAS_OK)
            return rc;
    }
    if (*p != '\0')
        return refuse(text, where, bots_only, err, errlen);
    return CAS_OK;
}

int cas__agent_spec_parse(const char *text, const char *where, struct cas__agent_spec *out,
                          char *err, size_t errlen)
{
    return parse(text, where, 0, out, err, errlen);
}

int cas__agent_spec_parse_bot(const char *text, const char *where,
                              struct cas__agent_spec *out, char *err, size_t errlen)
{
    return parse(text, where, 1, out, err, errlen);
}
