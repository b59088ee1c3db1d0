/*
 * agent_human.c — a person at the terminal: shows what the player may see,
 * the numbered legal actions, and reads a number, an action's canonical
 * text, `list`, `help` or `quit`.  End of input counts as `quit`.
 */
#include "agent.h"
#include "picture.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define HUMAN_LINE_MAX 1024
#define HUMAN_TEXT_MAX 512

struct human {
    struct cas__agent base; /* first: freed as a plain agent */
    FILE *in, *out;
    enum cas_render_format format;
};

static void show_actions(struct human *h, const struct cas__decision *d)
{
    char text[HUMAN_TEXT_MAX];
    for (size_t i = 0; i < d->legal->count; i++) {
        cas__match_action_text(d->match, d->state, d->legal->items[i], text, sizeof text);
        fprintf(h->out, "  %3zu. %s\n", i + 1, text);
    }
}

static void show_help(struct human *h, const struct cas__decision *d)
{
    fprintf(h->out,
            "Type the number of an action (1-%zu) or its text exactly as listed.\n"
            "  list   show the board and the legal actions again\n"
            "  svg FILE  write the board as you see it to FILE as an SVG picture\n"
            "  help   this text\n"
            "  quit   stop the game (end of input does the same)\n",
            d->legal->count);
}

/* Strip leading and trailing white space in place; returns the start. */
static char *trim(char *line)
{
    while (isspace((unsigned char)*line))
        line++;
    size_t len = strlen(line);
    while (len > 0 && isspace((unsigned char)line[len - 1]))
        line[--len] = '\0';
    return line;
}

static int is_number(const char *word)
{
    return *word && strspn(word, "0123456789") == strlen(word);
}

/* The 1-based action number `word` names, or 0 if it names none. */
static size_t number_of(const char *word, size_t count)
{
    if (strlen(word) > 9)
        return 0;
    size_t n = (size_t)strtoul(word, NULL, 10);
    return n <= count ? n : 0;
}

/* The index in the legal list of the action whose canonical text is
 * `word`, or -1 after explaining why it is not one. */
static long find_action(struct human *h, const struct cas__decision *d, const char *word)
{
    char text[HUMAN_TEXT_MAX];
    for (size_t i = 0; i < d->legal->count; i++) {
        cas__match_action_text(d->match, d->state, d->legal->items[i], text, sizeof text);
        if (strcmp(text, word) == 0)
            return (long)i;
    }
    cas_action ignored;
    d->match->error[0] = '\0';
    d->match->vt->parse_action(d->state, word, &ignored);
    fprintf(h->out, "\"%s\" is not a legal action%s%s.\n"
            "Type a number from 1 to %zu, an action as listed, help or quit.\n",
            word, d->match->error[0] ? ": " : "", d->match->error, d->legal->count);
    return -1;
}

static void show_position(struct human *h, const struct cas__decision *d)
{
    fputc('\n', h->out);
    if (cas__match_render(d->match, d->state, d->player, h->format, h->out) != CAS_OK)
        fprintf(h->out, "(the board cannot be shown: %s)\n", d->match->error);
    fprintf(h->out, "\n%s, your move:\n", d->player_name);
    show_actions(h, d);
}

static int human_choose(struct cas__agent *agent, const struct cas__decision *d,
                        cas_action *out)
{
    struct human *h = (struct human *)agent;
    char line[HUMAN_LINE_MAX];
    show_position(h, d);
    for (;;) {
        fprintf(h->out, "%s> ", d->player_name);
        fflush(h->out);
        if (!fgets(line, sizeof line, h->in)) {
            fputc('\n', h->out);
            return CAS_ECONFLICT;
        }
        char *word = trim(line);
        if (!*word)
            continue;
        if (strcmp(word, "quit") == 0)
            return CAS_ECONFLICT;
        if (strcmp(word, "help") == 0) {
            show_help(h, d);
        } else if (strcmp(word, "list") == 0) {
            show_position(h, d);
        } else if (strncmp(word, "svg ", 4) == 0) {
            char err[512];
            const char *path = trim(word + 4);
            if (cas__picture_write(d->match, d->state, d->player, path, err, sizeof err))
                fprintf(h->out, "No picture: %s\n", err);
            else
                fprintf(h->out, "Wrote the board to %s.\n", path);
        } else if (is_number(word)) {
            size_t number = number_of(word, d->legal->count);
            if (number > 0) {
                *out = d->legal->items[number - 1];
                return CAS_OK;
            }
            fprintf(h->out, "There is no action %s: type a number from 1 to %zu.\n",
                    word, d->legal->count);
        } else {
            long index = find_action(h, d, word);
            if (index >= 0) {
                *out = d->legal->items[index];
                return CAS_OK;
            }
        }
    }
}

static const struct cas__agent_ops human_ops = {
    .kind = "human", .choose = human_choose, .free = cas__agent_plain_free,
};

int cas__agent_human_new(FILE *in, FILE *out, enum cas_render_format format,
                         struct cas__agent **out_agent)
{
    struct human *h = malloc(sizeof *h);
    if (!h)
        return CAS_ENOMEM;
    *h = (struct human){.base = {.ops = &human_ops}, .in = in, .out = out,
                        .format = format};
    *out_agent = &h->base;
    return CAS_OK;
}
