/*
 * agent_human.c — a person at the terminal: shows the decision (the
 * plugin's decision view, with the choices numbered), the numbered legal
 * actions, and reads a number, an action's canonical text, or a command:
 * `list`, `help` (with the game's own notation), `hint` (what a bot would
 * play, and why when it can say), `score` (now and, where the game defines
 * it, projected), `undo` and `quit`.  End of input counts as `quit`.
 */
#include "agent.h"
#include "picture.h"
#include "term.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define HUMAN_LINE_MAX 1024
#define HUMAN_TEXT_MAX 512

struct human {
    struct cas__agent base; /* first */
    FILE *in, *out;
    enum cas_render_format format;
    char hint_kind[64]; /* fits every agent spec */
    struct cas__agent *hint; /* owned; created at the first `hint` */
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
    struct cas__term_capture c;
    FILE *out = cas__term_capture_begin(&c, h->out);
    fprintf(out,
            "Type the number of an action (1-%zu) or its text exactly as listed.\n"
            "  list   show the board and the legal actions again\n"
            "  svg FILE  write the board as you see it to FILE as an SVG picture\n"
            "  hint   ask the %s bot what it would play here, and why\n"
            "  score  the scores now and, where the game defines it, at the end\n"
            "  undo   take back your last decision, back to the last new information\n"
            "         (a draw, or another player's decision); %u can be taken back now\n"
            "  help   this text\n"
            "  quit   stop the game; it is saved and `castellan resume` continues it\n",
            d->legal->count, h->hint_kind, d->undoable);
    fputc('\n', out);
    if (cas__match_notation_help(d->match, out) != CAS_OK)
        fprintf(out, "Actions are written as listed; %s has no notation help.\n",
                d->match->plugin->id);
    cas__term_capture_end(&c);
}

/* One line of scores: "  now    Me (Red) 4, Player 2 (Blue) 0", or by
 * the game's seat names alone when the players have no names; wrapped to
 * the terminal under the first score. */
static void show_score_line(struct human *h, const struct cas__decision *d, const char *when,
                            const int64_t *scores)
{
    char line[HUMAN_LINE_MAX];
    size_t n = (size_t)snprintf(line, sizeof line, "  %-22s", when);
    for (int p = 0; p < d->match->nplayers && n < sizeof line; p++) {
        const char *label = cas__match_label(d->match, p);
        if (d->player_names && d->player_names[p])
            n += (size_t)snprintf(line + n, sizeof line - n, "%s%s (%s) %" PRId64,
                                  p ? ", " : " ", d->player_names[p], label, scores[p]);
        else
            n += (size_t)snprintf(line + n, sizeof line - n, "%s%s %" PRId64, p ? ", " : " ",
                                  label, scores[p]);
    }
    cas__term_wrap(h->out, cas__term_width(h->out), 25, line);
}

static void show_score(struct human *h, const struct cas__decision *d)
{
    struct cas__match *m = d->match;
    int64_t *scores = calloc((size_t)m->nplayers, sizeof *scores);
    if (!scores || m->vt->returns(d->state, scores, (size_t)m->nplayers) != CAS_OK) {
        fprintf(h->out, "The scores cannot be read: %s\n", scores ? m->error : "no memory");
        free(scores);
        return;
    }
    fprintf(h->out, "Scores:\n");
    show_score_line(h, d, "now", scores);
    int rc = cas__match_projected(m, d->state, scores);
    if (rc == CAS_OK)
        show_score_line(h, d, "if the game ended now", scores);
    else if (rc == CAS_ENOTFOUND || rc == CAS_EINVAL)
        fprintf(h->out, "  (%s defines no projected final score)\n", m->plugin->id);
    else
        fprintf(h->out, "  (no projected final score: %s)\n", m->error);
    free(scores);
}

/* The index of `action` in the legal list (it is one of them). */
static size_t index_of(const struct cas__decision *d, cas_action action)
{
    size_t i = 0;
    while (i + 1 < d->legal->count && d->legal->items[i] != action)
        i++;
    return i;
}

/* What the hint bot would play, and its reason when it gives one.  The
 * bot sees the same decision; nothing is applied. */
static void show_hint(struct human *h, const struct cas__decision *d)
{
    char text[HUMAN_TEXT_MAX], why[HUMAN_TEXT_MAX];
    cas_action action;
    if (!h->hint && cas__agent_new(h->hint_kind, &h->hint) != CAS_OK) {
        h->hint = NULL;
        fprintf(h->out, "No hint: there is no %s bot.\n", h->hint_kind);
        return;
    }
    int rc = cas__agent_choose(h->hint, d, &action);
    if (rc != CAS_OK) {
        fprintf(h->out, "No hint: the %s bot failed (%d): %s\n", h->hint_kind, rc,
                d->match->error);
        return;
    }
    cas__match_action_text(d->match, d->state, action, text, sizeof text);
    fprintf(h->out, "The %s bot would play %zu. %s\n", h->hint_kind, index_of(d, action) + 1,
            text);
    if (h->hint->ops->explain &&
        h->hint->ops->explain(h->hint, d, action, why, sizeof why) == CAS_OK)
        cas__term_wrapf(h->out, cas__term_width(h->out), 4, "  because %s", why);
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
    struct cas__term_capture c;
    fprintf(cas__term_capture_begin(&c, h->out), "\"%s\" is not a legal action%s%s.\n"
            "Type a number from 1 to %zu, an action as listed, help, hint, score, undo "
            "or quit.\n",
            word, d->match->error[0] ? ": " : "", d->match->error, d->legal->count);
    cas__term_capture_end(&c);
    return -1;
}

static void show_position(struct human *h, const struct cas__decision *d)
{
    fputc('\n', h->out);
    struct cas__term_capture c;
    if (cas__match_render_choices(d->match, d->state, d->player, h->format, d->legal,
                                  cas__term_capture_begin(&c, h->out)) != CAS_OK)
        fprintf(h->out, "(the board cannot be shown: %s)\n", d->match->error);
    cas__term_capture_end(&c);
    fprintf(h->out, "\n%s, your move:\n", d->player_name);
    show_actions(h, d);
}

/* A command word other than a choice; 1 when it was one. */
/* `svg FILE`: the board as this player sees it, as an SVG picture. */
static void write_picture(struct human *h, const struct cas__decision *d, const char *path)
{
    char err[512];
    if (cas__picture_write(d->match, d->state, d->player, path, err, sizeof err))
        fprintf(h->out, "No picture: %s\n", err);
    else
        fprintf(h->out, "Wrote the board to %s.\n", path);
}

static int command(struct human *h, const struct cas__decision *d, const char *word)
{
    if (strcmp(word, "help") == 0)
        show_help(h, d);
    else if (strcmp(word, "list") == 0)
        show_position(h, d);
    else if (strcmp(word, "hint") == 0)
        show_hint(h, d);
    else if (strcmp(word, "score") == 0)
        show_score(h, d);
    else if (strncmp(word, "svg ", 4) == 0)
        write_picture(h, d, word + 4 + strspn(word + 4, " \t"));
    else if (strcmp(word, "svg") == 0)
        fprintf(h->out, "Name the file: svg FILE.svg\n");
    else
        return 0;
    return 1;
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
        if (!*word || command(h, d, word))
            continue;
        if (strcmp(word, "quit") == 0)
            return CAS_ECONFLICT;
        if (strcmp(word, "undo") == 0) {
            if (d->undoable > 0)
                return CAS__AGENT_UNDO;
            fprintf(h->out, "Nothing to take back: a draw or another player's decision "
                            "came after yours.\n");
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

static void human_free(struct cas__agent *agent)
{
    struct human *h = (struct human *)agent;
    cas__agent_free(h->hint);
    free(h);
}

static const struct cas__agent_ops human_ops = {
    .kind = "human", .choose = human_choose, .free = human_free, .takes_back = 1,
};

int cas__agent_human_new(FILE *in, FILE *out, enum cas_render_format format,
                         struct cas__agent **out_agent)
{
    struct human *h = malloc(sizeof *h);
    if (!h)
        return CAS_ENOMEM;
    *h = (struct human){.base = {.ops = &human_ops}, .in = in, .out = out,
                        .format = format};
    snprintf(h->hint_kind, sizeof h->hint_kind, "%s", CAS__AGENT_DEFAULT_HINT);
    *out_agent = &h->base;
    return CAS_OK;
}

int cas__agent_human_set_hint(struct cas__agent *human, const char *kind)
{
    struct cas__agent *probe;
    if (human->ops != &human_ops)
        return CAS_EINVAL;
    if (strcmp(kind, "human") == 0 || strlen(kind) >= sizeof ((struct human *)0)->hint_kind)
        return CAS_ENOTFOUND;
    int rc = cas__agent_new(kind, &probe);
    if (rc != CAS_OK)
        return rc;
    struct human *h = (struct human *)human;
    cas__agent_free(h->hint);
    h->hint = probe;
    snprintf(h->hint_kind, sizeof h->hint_kind, "%s", kind);
    return CAS_OK;
}
