/*
 * castles_fixture.c — scenario helpers for the castles-cards tests.
 */
#include "castles_fixture.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

void cc_open(struct cas_test_game *g, const char *const *options)
{
    cas_test_game_open(g, cas_plugin_entry(), 2, options, NULL, 0);
}

void cc_start(struct cas_test_game *g, int player)
{
    cas_state *s = cc_state(g);
    s->phase = PH_TURN;
    s->turn = (uint8_t)player;
    s->turns = 1;
}

void cc_open_with(struct cas_test_game *g, const char *red, const char *blue, int first)
{
    cc_open(g, NULL);
    cc_layout(g, 0, red);
    cc_layout(g, 1, blue);
    cc_start(g, first);
}

void cc_draw(struct cas_test_game *g, const char *card)
{
    char text[64];
    snprintf(text, sizeof text, "draw %s", card);
    cas_test_play(g, "draw");
    cas_test_play(g, text);
}

const char *cc_write_file(const char *name, const char *text, char *path, size_t cap)
{
    const char *dir = getenv("CASTELLAN_BUILD_DIR");
    snprintf(path, cap, "%s/%s", dir ? dir : ".", name);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return path;
}

static int card_index(const cas_state *s, const char *card)
{
    for (int k = 0; k < s->game->deck.nkinds; k++)
        if (strcmp(s->game->deck.kind[k].name, card) == 0)
            return k;
    fail_msg("no card named %s in the deck", card);
    return -1;
}

static uint8_t take_from_pile(cas_state *s, const char *card)
{
    int k = card_index(s, card);
    if (s->pile[k] == 0)
        fail_msg("no copy of %s left in the draw pile", card);
    s->pile[k]--;
    s->npile--;
    return (uint8_t)k;
}

void cc_give(struct cas_test_game *g, int player, const char *where, const char *card)
{
    cas_state *s = cc_state(g);
    struct kingdom *k = &s->k[player];
    uint8_t c = take_from_pile(s, card);
    if (strcmp(where, "castle") == 0)
        k->castle = c;
    else if (strcmp(where, "wife") == 0)
        k->wife = c;
    else if (strcmp(where, "heir") == 0)
        k->heir[k->nheirs++] = c;
    else if (where[0] == 'n' && where[1] >= '1' && where[1] <= '3' && !where[2])
        k->noble[where[1] - '1'] = c;
    else if (where[0] == 'w' && where[1] >= '1' && where[1] <= '3' && !where[2])
        k->wizard[where[1] - '1'] = c;
    else {
        for (int st = 0; st < N_STACKS; st++)
            if (strcmp(stack_name(st), where) == 0) {
                stack_push(&k->st[st], c);
                return;
            }
        fail_msg("no place named %s", where);
    }
}

void cc_layout(struct cas_test_game *g, int player, const char *layout)
{
    char copy[1024], *save = NULL;
    snprintf(copy, sizeof copy, "%s", layout);
    for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
        char *eq = strchr(w, '=');
        assert_non_null(eq);
        *eq = '\0';
        char *inner = NULL;
        for (char *c = strtok_r(eq + 1, ",", &inner); c; c = strtok_r(NULL, ",", &inner))
            cc_give(g, player, w, c);
    }
}

void cc_discard(struct cas_test_game *g, const char *card)
{
    cas_state *s = cc_state(g);
    discard_card(s, take_from_pile(s, card));
}

struct line {
    char text[2048];
    size_t len;
};

static void add(struct line *l, const cas_state *s, const char *where, const uint8_t *cards, int n)
{
    int real = 0;
    for (int i = 0; i < n; i++)
        real += cards[i] != NO_CARD;
    if (!real)
        return;
    l->len += (size_t)snprintf(l->text + l->len, sizeof l->text - l->len, "%s%s=",
                               l->len ? " " : "", where);
    for (int i = 0, first = 1; i < n; i++)
        if (cards[i] != NO_CARD) {
            l->len += (size_t)snprintf(l->text + l->len, sizeof l->text - l->len, "%s%s",
                                       first ? "" : ",", s->game->deck.kind[cards[i]].name);
            first = 0;
        }
}

const char *cc_kingdom(struct cas_test_game *g, int player)
{
    static struct line l;
    const cas_state *s = cc_state(g);
    const struct kingdom *k = &s->k[player];
    static const char *const slots[] = {"n1", "n2", "n3", "w1", "w2", "w3"};
    l.len = 0;
    l.text[0] = '\0';
    add(&l, s, "castle", &k->castle, 1);
    add(&l, s, "wife", &k->wife, 1);
    add(&l, s, "heir", k->heir, k->nheirs);
    for (int c = 0; c < COLS; c++)
        add(&l, s, slots[c], &k->noble[c], 1);
    for (int c = 0; c < COLS; c++)
        add(&l, s, slots[3 + c], &k->wizard[c], 1);
    for (int st = 0; st < N_STACKS; st++)
        add(&l, s, stack_name(st), k->st[st].card, k->st[st].n);
    return l.text;
}

/* The state survives serialize/deserialize with the same hash. */
static void expect_round_trip(struct cas_test_game *g)
{
    uint8_t buf[8192];
    size_t len;
    cas_state *back = NULL;
    assert_int_equal(g->vt->serialize(g->state, CAS_SERIAL_FULL, buf, sizeof buf, &len), CAS_OK);
    if (g->vt->deserialize(g->game, buf, len, &back) != CAS_OK)
        fail_msg("the state does not deserialize: %s", g->error);
    assert_true(g->vt->hash(back) == g->vt->hash(g->state));
    g->vt->state_free(back);
}

void cc_expect_kingdom(struct cas_test_game *g, int player, const char *expected)
{
    const char *got = cc_kingdom(g, player);
    if (strcmp(got, expected) != 0)
        fail_msg("%s's Kingdom\n  is:       %s\n  expected: %s\nevents:\n%s",
                 player_name(player), got, expected, g->events ? g->events : "");
    assert_true(cards_conserved(cc_state(g)));
    expect_round_trip(g);
}

const char *cc_discards(struct cas_test_game *g)
{
    static struct line l;
    const cas_state *s = cc_state(g);
    l.len = 0;
    l.text[0] = '\0';
    for (int i = 0; i < s->ndiscard; i++)
        l.len += (size_t)snprintf(l.text + l.len, sizeof l.text - l.len, "%s%s", i ? " " : "",
                                  s->game->deck.kind[s->discard[i]].name);
    return l.text;
}

const char *cc_legal(struct cas_test_game *g)
{
    static char buf[65536];
    cas_test_legal_texts(g, buf, sizeof buf);
    return buf;
}

void cc_expect_legal(struct cas_test_game *g, const char *text, int legal)
{
    const char *all = cc_legal(g);
    size_t n = strlen(text);
    int found = 0;
    for (const char *p = all; *p; p = strchr(p, '\n') + 1)
        if (strncmp(p, text, n) == 0 && p[n] == '\n')
            found = 1;
    if (found != legal)
        fail_msg("\"%s\" should%s be legal; legal now:\n%s", text, legal ? "" : " not", all);
}
