/*
 * notation.c — canonical action text: a verb and its arguments, named by
 * one table per argument kind, so that text() and parse() are inverses by
 * construction.  Examples: "draw", "draw duke70", "topoff n1.lands 3",
 * "move w1.minion w2", "swap n1 n2", "witch w2 n1.serfs", "block
 * champion+arms", "no block", "warlock w1", "snatch w3", "let go",
 * "keep count60", "place minion20 w2", "discard duke50", "lose army".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "castles.h"

enum arg_kind { ARG_NONE, ARG_CARD, ARG_STACK, ARG_DEPTH, ARG_PLACE, ARG_SOURCE, ARG_GROUP };

struct verb {
    const char *text;
    uint8_t args[2];
};

static const struct verb verbs[N_ACTION_KINDS] = {
    [K_CHANCE] = {"draw", {ARG_CARD, ARG_NONE}},
    [K_DRAW] = {"draw", {ARG_NONE, ARG_NONE}},
    [K_TOPOFF] = {"topoff", {ARG_STACK, ARG_DEPTH}},
    [K_WAR] = {"war", {ARG_SOURCE, ARG_NONE}},
    [K_MOVE] = {"move", {ARG_STACK, ARG_PLACE}},
    [K_SWAP] = {"swap", {ARG_PLACE, ARG_PLACE}},
    [K_WITCH] = {"witch", {ARG_PLACE, ARG_STACK}},
    [K_MAGE] = {"mage", {ARG_PLACE, ARG_NONE}},
    [K_SACRIFICE] = {"sacrifice", {ARG_PLACE, ARG_NONE}},
    [K_PASS] = {"pass", {ARG_NONE, ARG_NONE}},
    [K_KEEP] = {"keep", {ARG_CARD, ARG_NONE}},
    [K_SNATCH] = {"snatch", {ARG_PLACE, ARG_NONE}},
    [K_LETGO] = {"let go", {ARG_NONE, ARG_NONE}},
    [K_PLACE] = {"place", {ARG_CARD, ARG_PLACE}},
    [K_DISCARD] = {"discard", {ARG_CARD, ARG_NONE}},
    [K_LOSE] = {"lose", {ARG_SOURCE, ARG_NONE}},
    [K_BLOCK] = {"block", {ARG_GROUP, ARG_NONE}},
    [K_NOBLOCK] = {"no block", {ARG_NONE, ARG_NONE}},
    [K_MAGICIAN] = {"magician", {ARG_PLACE, ARG_NONE}},
    [K_ADEPT] = {"adept", {ARG_PLACE, ARG_NONE}},
    [K_WARLOCK] = {"warlock", {ARG_PLACE, ARG_NONE}},
    [K_ACCEPT] = {"accept", {ARG_NONE, ARG_NONE}},
};

static const char *const stack_names[N_STACKS] = {
    "n1.lands", "n2.lands", "n3.lands", "n1.fruits", "n2.fruits", "n3.fruits",
    "n1.serfs", "n2.serfs", "n3.serfs", "general", "champion", "arms",
    "w1.minion", "w1.magick", "w2.minion", "w2.magick", "w3.minion", "w3.magick",
};
static const char *const extra_sources[N_SOURCES - N_STACKS] = {
    "wife", "heir", "army", "nobles", "wizards", "w1.wizard", "w2.wizard", "w3.wizard",
};
static const char *const place_names[N_PLACES] = {
    "n1", "n2", "n3", "w1", "w2", "w3", "wife", "home",
};
static const char *const group_names[N_GROUPS] = {
    "champion", "champion+arms",
    "w1.minion", "w1.minion+magick", "w1.magick",
    "w2.minion", "w2.minion+magick", "w2.magick",
    "w3.minion", "w3.minion+magick", "w3.magick",
};

const char *stack_name(int stack) { return stack_names[stack]; }
const char *place_name(int place) { return place_names[place]; }
const char *group_name(int group) { return group_names[group]; }

const char *source_name(int source)
{
    return source < N_STACKS ? stack_names[source] : extra_sources[source - N_STACKS];
}

static bool arg_valid(const cas_state *s, int arg, int v)
{
    switch (arg) {
    case ARG_NONE: return v == 0;
    case ARG_CARD: return v < s->game->deck.nkinds;
    case ARG_STACK: return v < N_STACKS;
    case ARG_PLACE: return v < N_PLACES;
    case ARG_SOURCE: return v < N_SOURCES;
    case ARG_GROUP: return v < N_GROUPS;
    default: return v >= 2 && v <= STACK_CAP;
    }
}

/* Name of argument value v of kind `arg`, into buf. */
static const char *arg_text(const cas_state *s, int arg, int v, char *buf, size_t cap)
{
    switch (arg) {
    case ARG_CARD: return s->game->deck.kind[v].name;
    case ARG_STACK: return stack_name(v);
    case ARG_PLACE: return place_name(v);
    case ARG_SOURCE: return source_name(v);
    case ARG_GROUP: return group_name(v);
    default:
        snprintf(buf, cap, "%d", v);
        return buf;
    }
}

int notation_text(const cas_state *s, cas_action a, char *buf, size_t cap)
{
    int kind = act_kind(a);
    if (kind <= 0 || kind >= N_ACTION_KINDS)
        return CAS_EINVAL;
    const struct verb *v = &verbs[kind];
    int values[2] = {act_a(a), act_b(a)};
    if ((a & ~(cas_action)0xFFFFFF00u) != 0 || !arg_valid(s, v->args[0], values[0]) ||
        !arg_valid(s, v->args[1], values[1]))
        return CAS_EINVAL;
    char num[2][8];
    const char *parts[3] = {v->text, "", ""};
    for (int i = 0; i < 2 && v->args[i] != ARG_NONE; i++)
        parts[i + 1] = arg_text(s, v->args[i], values[i], num[i], sizeof num[i]);
    size_t len = 0;
    for (int i = 0; i < 3 && *parts[i]; i++) {
        size_t n = strlen(parts[i]);
        if (len + (i > 0) + n + 1 > cap)
            return CAS_ENOSPC;
        if (i > 0)
            buf[len++] = ' ';
        memcpy(buf + len, parts[i], n);
        len += n;
    }
    buf[len] = '\0';
    return (int)len;
}

static int find_name(const char *const *names, int n, const char *word)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], word) == 0)
            return i;
    return -1;
}

static int parse_arg(const cas_state *s, int arg, const char *word)
{
    switch (arg) {
    case ARG_CARD:
        for (int k = 0; k < s->game->deck.nkinds; k++)
            if (strcmp(s->game->deck.kind[k].name, word) == 0)
                return k;
        return -1;
    case ARG_STACK: return find_name(stack_names, N_STACKS, word);
    case ARG_PLACE: return find_name(place_names, N_PLACES, word);
    case ARG_GROUP: return find_name(group_names, N_GROUPS, word);
    case ARG_SOURCE: {
        int i = find_name(stack_names, N_STACKS, word);
        if (i >= 0)
            return i;
        i = find_name(extra_sources, N_SOURCES - N_STACKS, word);
        return i < 0 ? -1 : N_STACKS + i;
    }
    default: {
        char *end;
        long v = strtol(word, &end, 10);
        return *word && !*end && v >= 2 && v <= STACK_CAP ? (int)v : -1;
    }
    }
}

/* Match "verb arg arg" against one verb; the verb may be two words. */
static int match_verb(const cas_state *s, int kind, char **words, int nwords, cas_action *out)
{
    const struct verb *v = &verbs[kind];
    const char *space = strchr(v->text, ' ');
    int verb_words = space ? 2 : 1;
    int nargs = (v->args[0] != ARG_NONE) + (v->args[1] != ARG_NONE);
    if (nwords != verb_words + nargs)
        return -1;
    if (space ? strncmp(words[0], v->text, (size_t)(space - v->text)) != 0 ||
                    words[0][space - v->text] != '\0' || strcmp(words[1], space + 1) != 0
              : strcmp(words[0], v->text) != 0)
        return -1;
    int values[2] = {0, 0};
    for (int i = 0; i < nargs; i++)
        if ((values[i] = parse_arg(s, v->args[i], words[verb_words + i])) < 0)
            return -1;
    *out = act(kind, values[0], values[1]);
    return 0;
}

int notation_parse(const cas_state *s, const char *text, cas_action *out)
{
    const struct cas_host *host = s->game->host;
    char copy[128], *words[5], *save = NULL;
    int n = 0;
    if (strlen(text) >= sizeof copy) {
        cas_host_errorf(host, "action text too long: \"%.40s...\"", text);
        return CAS_EPARSE;
    }
    strcpy(copy, text);
    for (char *w = strtok_r(copy, " \t", &save); w && n < 5; w = strtok_r(NULL, " \t", &save))
        words[n++] = w;
    for (int kind = 1; kind < N_ACTION_KINDS; kind++) {
        cas_action a;
        if (n == 0 || match_verb(s, kind, words, n, &a) != 0)
            continue;
        struct action_list legal;
        legal_list(s, &legal);
        for (size_t i = 0; i < legal.n; i++)
            if (legal.a[i] == a) {
                *out = a;
                return CAS_OK;
            }
        cas_host_errorf(host, "\"%s\" is not legal now", text);
        return CAS_EILLEGAL;
    }
    cas_host_errorf(host, "\"%s\" is not a Castles action; examples: draw, move n1.lands n2, "
                    "block champion, no block, lose army", text);
    return CAS_EPARSE;
}

int notation_help(const struct cas_writer *out)
{
    static const char help[] =
        "Castles actions (plugins/castles-cards/README.md):\n"
        "  draw                     draw a card (the opponent may block it)\n"
        "  topoff STACK DEPTH       bring the card DEPTH deep (1 = top) to the top\n"
        "  move STACK wN|nN         move a stack's top card one column over\n"
        "  swap n1 n2               swap two neighbouring NOBLEs\n"
        "  war nobles|wizards       wage war on that side of the opponent\n"
        "  witch|mage|sacrifice wN  use the WIZARD of column wN\n"
        "  keep CARD  place CARD PLACE  discard CARD  lose SOURCE\n"
        "  block GROUP  no block  magician wN  adept wN  warlock wN  accept\n"
        "  snatch wN  let go        the SORCERER's answer to a draw\n"
        "Places: n1-n3 (noble columns), w1-w3 (wizard columns), wife, home.\n"
        "Stacks: n1.lands .. n3.serfs, general, champion, arms, w1.minion .. w3.magick.\n"
        "Cards are named by type and value: duke70, minion20, castle.\n"
        "In the board, \"<- 3\" marks the row of your Kingdom that choice 3 concerns.\n";
    return out->write(out->ctx, help, sizeof help - 1);
}
