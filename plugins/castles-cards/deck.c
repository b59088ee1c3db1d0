/*
 * deck.c — the deck as data: parse a .cards file into card kinds with
 * values and copy counts.  Format (one statement a line, '#' comments):
 *
 *   provisional yes|no
 *   card TYPE VALUE COPIES      e.g.  card DUKE 70 2   /  card CASTLE - 4
 *
 * Every error names file:line, the bad value and how to fix it, and leaves
 * the caller's deck untouched.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "castles.h"

static const char *const type_names[N_TYPES] = {
    "CASTLE", "WIFE", "HEIR", "DUKE", "COUNT", "BARON", "LANDS", "FRUITS",
    "SERFS", "GENERAL", "CHAMPION", "ARMS", "WARLOCK", "WITCH", "MAGICIAN",
    "MAGE", "SORCERER", "ADEPT", "MINION", "MAGICK",
};

const char *type_name(int type)
{
    return type >= 0 && type < N_TYPES ? type_names[type] : "?";
}

bool type_is_wizard(int type)
{
    return type >= T_WARLOCK && type <= T_ADEPT;
}

bool type_is_noble(int type)
{
    return type == T_DUKE || type == T_COUNT || type == T_BARON;
}

/* Stackable types share one stack per position, so their copies are bounded. */
static bool type_is_stacked(int type)
{
    return (type >= T_LANDS && type <= T_ARMS) || type == T_MINION || type == T_MAGICK;
}

struct deck_reader {
    const struct cas_host *host;
    const char *path;
    int line;
    struct deck *deck;
    int type_copies[N_TYPES];
    bool saw_provisional;
};

static int type_from_word(const char *word)
{
    for (int t = 0; t < N_TYPES; t++)
        if (strcmp(word, type_names[t]) == 0)
            return t;
    return -1;
}

static int parse_uint(const char *word, long min, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(word, &end, 10);
    if (errno || end == word || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

static int read_card(struct deck_reader *r, char **words, int nwords)
{
    const struct cas_host *host = r->host;
    if (nwords != 4) {
        cas_host_errorf(host, "%s:%d: 'card' takes TYPE VALUE COPIES, got %d word(s); "
                        "write e.g. 'card DUKE 70 2'", r->path, r->line, nwords - 1);
        return CAS_EDATA;
    }
    int type = type_from_word(words[1]);
    if (type < 0) {
        cas_host_errorf(host, "%s:%d: unknown card type '%s'; use one of CASTLE WIFE HEIR "
                        "DUKE COUNT BARON LANDS FRUITS SERFS GENERAL CHAMPION ARMS WARLOCK "
                        "WITCH MAGICIAN MAGE SORCERER ADEPT MINION MAGICK",
                        r->path, r->line, words[1]);
        return CAS_EDATA;
    }
    long value = 0, copies;
    if (type == T_CASTLE ? strcmp(words[2], "-") != 0
                         : parse_uint(words[2], 1, 999, &value) != 0) {
        cas_host_errorf(host, "%s:%d: bad value '%s' for %s; %s", r->path, r->line,
                        words[2], words[1],
                        type == T_CASTLE ? "a CASTLE has no value: write '-'"
                                         : "write a whole number from 1 to 999");
        return CAS_EDATA;
    }
    if (parse_uint(words[3], 1, STACK_CAP, &copies) != 0) {
        cas_host_errorf(host, "%s:%d: bad copy count '%s'; write a whole number from 1 to %d",
                        r->path, r->line, words[3], STACK_CAP);
        return CAS_EDATA;
    }
    struct deck *d = r->deck;
    for (int k = 0; k < d->nkinds; k++)
        if (d->kind[k].type == type && d->kind[k].value == value) {
            cas_host_errorf(host, "%s:%d: %s %s is listed twice; add its copies into one line",
                            r->path, r->line, words[1], words[2]);
            return CAS_EDATA;
        }
    if (d->nkinds == MAX_KINDS || d->total + copies > MAX_CARDS) {
        cas_host_errorf(host, "%s:%d: deck too large (at most %d distinct cards and %d copies); "
                        "remove cards", r->path, r->line, MAX_KINDS, MAX_CARDS);
        return CAS_EDATA;
    }
    r->type_copies[type] += (int)copies;
    if (type_is_stacked(type) && r->type_copies[type] > STACK_CAP) {
        cas_host_errorf(host, "%s:%d: more than %d %s cards in all; lower the copy counts",
                        r->path, r->line, STACK_CAP, words[1]);
        return CAS_EDATA;
    }
    struct card_kind *ck = &d->kind[d->nkinds++];
    ck->type = (uint8_t)type;
    ck->value = (uint16_t)value;
    ck->copies = (uint16_t)copies;
    int n = 0;
    for (const char *c = type_names[type]; *c; c++)
        ck->name[n++] = (char)tolower((unsigned char)*c);
    ck->name[n] = '\0';
    if (type != T_CASTLE)
        snprintf(ck->name + n, sizeof ck->name - (size_t)n, "%ld", value);
    ck->name_len = (uint8_t)strlen(ck->name);
    d->total += (int)copies;
    return CAS_OK;
}

static int read_provisional(struct deck_reader *r, char **words, int nwords)
{
    if (nwords != 2 || (strcmp(words[1], "yes") != 0 && strcmp(words[1], "no") != 0)) {
        cas_host_errorf(r->host, "%s:%d: write 'provisional yes' or 'provisional no'",
                        r->path, r->line);
        return CAS_EDATA;
    }
    if (r->saw_provisional) {
        cas_host_errorf(r->host, "%s:%d: a second 'provisional' line; keep only one",
                        r->path, r->line);
        return CAS_EDATA;
    }
    r->deck->provisional = strcmp(words[1], "yes") == 0;
    r->saw_provisional = true;
    return CAS_OK;
}

/* Keeps the first `max` words and returns how many there are in all, so
 * an error can say how many a line really has. */
static int split_words(char *text, char **words, int max)
{
    int n = 0;
    char *save = NULL;
    for (char *w = strtok_r(text, " \t\r\n", &save); w; w = strtok_r(NULL, " \t\r\n", &save)) {
        if (n < max)
            words[n] = w;
        n++;
    }
    return n;
}

static int read_line(struct deck_reader *r, char *text)
{
    char *hash = strchr(text, '#');
    if (hash)
        *hash = '\0';
    char *words[5];
    int n = split_words(text, words, 5);
    if (n == 0)
        return CAS_OK;
    if (strcmp(words[0], "card") == 0)
        return read_card(r, words, n);
    if (strcmp(words[0], "provisional") == 0)
        return read_provisional(r, words, n);
    cas_host_errorf(r->host, "%s:%d: unknown statement '%s'; use 'card' or 'provisional'",
                    r->path, r->line, words[0]);
    return CAS_EDATA;
}

static int check_complete(struct deck_reader *r)
{
    if (r->deck->total < 2) {
        cas_host_errorf(r->host, "%s: the deck has %d card(s); list at least 2 with 'card' lines",
                        r->path, r->deck->total);
        return CAS_EDATA;
    }
    if (!r->saw_provisional) {
        cas_host_errorf(r->host, "%s: missing 'provisional yes|no' line; say whether the "
                        "counts and values are verified", r->path);
        return CAS_EDATA;
    }
    return CAS_OK;
}

int deck_load(const struct cas_host *host, const char *path, struct deck *out)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        cas_host_errorf(host, "%s: cannot open deck file (%s); check the 'deck' option",
                        path, strerror(errno));
        return CAS_EIO;
    }
    struct deck *deck = host->alloc(host->ctx, sizeof *deck);
    if (!deck) {
        fclose(f);
        return CAS_ENOMEM;
    }
    memset(deck, 0, sizeof *deck);
    struct deck_reader r = {.host = host, .path = path, .deck = deck};
    char text[512];
    int rc = CAS_OK;
    while (rc == CAS_OK && fgets(text, sizeof text, f)) {
        r.line++;
        if (!strchr(text, '\n') && !feof(f)) {
            cas_host_errorf(host, "%s:%d: line longer than %zu bytes; shorten it",
                            path, r.line, sizeof text - 2);
            rc = CAS_EDATA;
            break;
        }
        rc = read_line(&r, text);
    }
    if (rc == CAS_OK && ferror(f)) {
        cas_host_errorf(host, "%s: read error (%s); check the 'deck' option", path,
                        strerror(errno));
        rc = CAS_EIO;
    }
    if (rc == CAS_OK)
        rc = check_complete(&r);
    if (rc == CAS_OK)
        *out = *deck;
    host->release(host->ctx, deck);
    fclose(f);
    return rc;
}
