/*
 * serialize.c — the state as bytes (little-endian, field by field, encoding
 * CASTLES_ENCODING), its validating reader, and the state hash (FNV-1a of
 * the bytes, so equal states hash equal across clone, save and process).
 * The reader checks every range, the card types in every slot and stack,
 * and that each copy of each card is in exactly one place.
 */
#include <string.h>

#include "castles.h"

/* Bytes go to buf[0..cap); len counts them all, so an overflow reports
 * the size needed. */
struct writer {
    uint8_t *buf;
    size_t cap, len;
};

static void put(struct writer *w, uint64_t v, int bytes)
{
    for (int i = 0; i < bytes; i++, w->len++)
        if (w->len < w->cap)
            w->buf[w->len] = (uint8_t)(v >> (8 * i));
}

static void put_bytes(struct writer *w, const uint8_t *bytes, size_t n)
{
    if (w->len + n <= w->cap)
        memcpy(w->buf + w->len, bytes, n);
    w->len += n;
}

static void put_kingdom(struct writer *w, const struct kingdom *k)
{
    put(w, k->castle, 1);
    put(w, k->wife, 1);
    put(w, k->nheirs, 1);
    for (int i = 0; i < MAX_HEIRS; i++)
        put(w, k->heir[i], 1);
    for (int c = 0; c < COLS; c++) {
        put(w, k->noble[c], 1);
        put(w, k->wizard[c], 1);
    }
    for (int st = 0; st < N_STACKS; st++) {
        put(w, k->st[st].n, 1);
        put_bytes(w, k->st[st].card, k->st[st].n);
    }
}

static void put_state(struct writer *w, const cas_state *s)
{
    const uint8_t small[] = {
        s->phase, s->turn, s->purpose, s->pending, s->pending_group, s->pending_by,
        s->nhand, s->nhand > 0 ? s->hand[0] : NO_CARD, s->nhand > 1 ? s->hand[1] : NO_CARD,
        s->holder, s->place_after, s->loss_player,
        s->loss_kind, s->loss_col, s->loss_army_next, s->loss_after, s->setup_player,
        s->setup_card[0], s->setup_card[1], s->reshuffles, s->end_reason, (uint8_t)s->winner,
    };
    put(w, CASTLES_ENCODING, 4);
    put(w, (uint64_t)s->game->deck.nkinds, 2);
    for (size_t i = 0; i < sizeof small; i++)
        put(w, small[i], 1);
    put(w, (uint32_t)s->loss_left, 4);
    put(w, s->turns, 4);
    put(w, s->npile, 2);
    put(w, s->ndiscard, 2);
    for (int k = 0; k < s->game->deck.nkinds; k++)
        put(w, s->pile[k], 2);
    put_bytes(w, s->discard, s->ndiscard);
    for (int p = 0; p < NPLAYERS; p++)
        put_kingdom(w, &s->k[p]);
}

int state_serialize(const cas_state *s, uint8_t *buf, size_t cap, size_t *len)
{
    struct writer w = {.buf = buf, .cap = cap};
    put_state(&w, s);
    *len = w.len;
    return w.len > cap ? CAS_ENOSPC : CAS_OK;
}

/* A multiply-xorshift hash of the serialized bytes (at most ~1 KiB:
 * MAX_CARDS cards, the pile counts and fixed fields), taken 8 bytes at a
 * time in little-endian order, so it is the same on every platform. */
uint64_t state_hash(const cas_state *s)
{
    uint8_t buf[4096];
    struct writer w = {.buf = buf, .cap = sizeof buf};
    put_state(&w, s);
    size_t len = w.len < sizeof buf ? w.len : sizeof buf;
    uint64_t h = 0xcbf29ce484222325ull ^ len;
    for (size_t at = 0; at < len; at += 8) {
        uint64_t word = 0;
        for (size_t i = 0; i < 8 && at + i < len; i++)
            word |= (uint64_t)buf[at + i] << (8 * i);
        h = (h ^ word) * 0x9e3779b97f4a7c15ull;
        h ^= h >> 29;
    }
    return h;
}

/* ------------------------------------------------------------ reading */

struct reader {
    const uint8_t *buf;
    size_t len, at;
    bool bad;
    size_t bad_at; /* where the first damage was found, for the message */
};

/* Mark the bytes damaged at offset `at`; the first damage is the one told. */
static void mark_bad(struct reader *r, size_t at)
{
    if (!r->bad)
        r->bad_at = at;
    r->bad = true;
}

static uint64_t get(struct reader *r, int bytes)
{
    uint64_t v = 0;
    if (r->at + (size_t)bytes > r->len) {
        mark_bad(r, r->at);
        return 0;
    }
    for (int i = 0; i < bytes; i++)
        v |= (uint64_t)r->buf[r->at++] << (8 * i);
    return v;
}

/* A byte within [0, max]; out of range marks the reader bad and gives 0,
 * so a bad count can never drive a loop past its array. */
static uint8_t get_u8(struct reader *r, unsigned max)
{
    uint64_t v = get(r, 1);
    if (v > max) {
        mark_bad(r, r->at - 1);
        return 0;
    }
    return (uint8_t)v;
}

static bool slot_ok(const cas_state *s, uint8_t card, bool (*fits)(int type))
{
    return card == NO_CARD || (card < s->game->deck.nkinds && fits(type_of(s, card)));
}

static bool is_castle(int t) { return t == T_CASTLE; }
static bool is_wife(int t) { return t == T_WIFE; }
static bool is_heir(int t) { return t == T_HEIR; }

static int stack_type(int stack)
{
    static const int matrix[3] = {T_LANDS, T_FRUITS, T_SERFS};
    if (stack < S_GENERAL)
        return matrix[stack / COLS];
    if (stack < S_WIZARD0)
        return T_GENERAL + stack - S_GENERAL;
    return (stack - S_WIZARD0) % 2 ? T_MAGICK : T_MINION;
}

static void get_kingdom(struct reader *r, const cas_state *s, struct kingdom *k)
{
    size_t start = r->at;
    unsigned card_max = NO_CARD;
    k->castle = get_u8(r, card_max);
    k->wife = get_u8(r, card_max);
    k->nheirs = get_u8(r, MAX_HEIRS);
    for (int i = 0; i < MAX_HEIRS; i++)
        k->heir[i] = get_u8(r, card_max);
    for (int c = 0; c < COLS; c++) {
        k->noble[c] = get_u8(r, card_max);
        k->wizard[c] = get_u8(r, card_max);
    }
    for (int st = 0; st < N_STACKS; st++) {
        k->st[st].n = get_u8(r, STACK_CAP);
        for (int i = 0; i < k->st[st].n; i++) {
            uint8_t card = get_u8(r, (unsigned)s->game->deck.nkinds - 1);
            k->st[st].card[i] = card;
            if (!r->bad && type_of(s, card) != stack_type(st))
                mark_bad(r, r->at - 1);
        }
    }
    if (r->bad)
        return;
    bool ok = slot_ok(s, k->castle, is_castle) && slot_ok(s, k->wife, is_wife);
    for (int i = 0; i < MAX_HEIRS; i++)
        ok = ok && slot_ok(s, k->heir[i], is_heir) && (i < k->nheirs) == (k->heir[i] != NO_CARD);
    for (int c = 0; c < COLS; c++)
        ok = ok && slot_ok(s, k->noble[c], type_is_noble) &&
             slot_ok(s, k->wizard[c], type_is_wizard);
    if (!ok) /* a card in the wrong slot: told as the Kingdom's start */
        mark_bad(r, start);
}

static void add_count(const cas_state *s, int *count, uint8_t card)
{
    if (card != NO_CARD && card < s->game->deck.nkinds)
        count[card]++;
}

bool cards_conserved(const cas_state *s)
{
    int count[MAX_KINDS] = {0}, total = 0;
    for (int i = 0; i < s->ndiscard; i++)
        add_count(s, count, s->discard[i]);
    for (int i = 0; i < s->nhand; i++)
        add_count(s, count, s->hand[i]);
    for (int p = 0; p < NPLAYERS; p++) {
        const struct kingdom *k = &s->k[p];
        add_count(s, count, k->castle);
        add_count(s, count, k->wife);
        for (int i = 0; i < k->nheirs; i++)
            add_count(s, count, k->heir[i]);
        for (int c = 0; c < COLS; c++) {
            add_count(s, count, k->noble[c]);
            add_count(s, count, k->wizard[c]);
        }
        for (int st = 0; st < N_STACKS; st++)
            for (int i = 0; i < k->st[st].n; i++)
                add_count(s, count, k->st[st].card[i]);
    }
    for (int k = 0; k < s->game->deck.nkinds; k++) {
        if (count[k] + s->pile[k] != s->game->deck.kind[k].copies)
            return false;
        total += s->pile[k];
    }
    return total == s->npile;
}

/* The cards in hand each phase expects. */
static int hand_expected(const cas_state *s)
{
    switch (s->phase) {
    case PH_KEEP: return 2;
    case PH_SNATCH:
    case PH_PLACE: return 1;
    case PH_LOSS: return s->loss_after == AFTER_ACQUIRE;
    case PH_DRAW: return s->purpose == DRAW_DOUBLE2;
    default: return 0;
    }
}

static void get_header(struct reader *r, cas_state *s)
{
    size_t start = r->at;
    unsigned card_max = NO_CARD;
    s->phase = get_u8(r, N_PHASES - 1);
    s->turn = get_u8(r, 1);
    s->purpose = get_u8(r, DRAW_DOUBLE2);
    s->pending = get_u8(r, PEND_ADEPT);
    s->pending_group = get_u8(r, N_GROUPS - 1);
    s->pending_by = get_u8(r, 1);
    s->nhand = get_u8(r, 2);
    s->hand[0] = get_u8(r, card_max);
    s->hand[1] = get_u8(r, card_max);
    s->holder = get_u8(r, 1);
    s->place_after = get_u8(r, AFTER_ACQUIRE);
    s->loss_player = get_u8(r, 1);
    s->loss_kind = get_u8(r, LOSS_WAR_WIZARDS);
    s->loss_col = get_u8(r, COLS - 1);
    s->loss_army_next = get_u8(r, 2);
    s->loss_after = get_u8(r, AFTER_ACQUIRE);
    s->setup_player = get_u8(r, 1);
    s->setup_card[0] = get_u8(r, card_max);
    s->setup_card[1] = get_u8(r, card_max);
    s->reshuffles = get_u8(r, s->game->max_reshuffles);
    s->end_reason = get_u8(r, END_DECK);
    s->winner = (int8_t)get(r, 1);
    s->loss_left = (int32_t)(uint32_t)get(r, 4);
    s->turns = (uint32_t)get(r, 4);
    s->npile = (uint16_t)get(r, 2);
    s->ndiscard = (uint16_t)get(r, 2);
    if (s->winner < -1 || s->winner > 1 || s->ndiscard > MAX_CARDS ||
        s->turns > s->game->max_turns + 1)
        mark_bad(r, start);
    for (int i = 0; i < 2; i++)
        if ((i < s->nhand) != (s->hand[i] < s->game->deck.nkinds))
            mark_bad(r, start);
    for (int p = 0; p < NPLAYERS; p++)
        if (s->setup_card[p] != NO_CARD && s->setup_card[p] >= s->game->deck.nkinds)
            mark_bad(r, start);
}

int state_deserialize(const cas_game *game, const uint8_t *buf, size_t len, cas_state *s)
{
    struct reader r = {.buf = buf, .len = len};
    const struct cas_host *host = game->host;
    if (get(&r, 4) != CASTLES_ENCODING || r.bad) {
        cas_host_errorf(host, "castles state: unknown encoding (this build reads %u)",
                        CASTLES_ENCODING);
        return CAS_EVERSION;
    }
    state_reset(s, game);
    if (get(&r, 2) != (uint64_t)game->deck.nkinds)
        mark_bad(&r, r.at - 2);
    get_header(&r, s);
    for (int k = 0; k < game->deck.nkinds && !r.bad; k++)
        s->pile[k] = (uint16_t)get(&r, 2);
    for (int i = 0; i < s->ndiscard && !r.bad; i++)
        s->discard[i] = get_u8(&r, (unsigned)game->deck.nkinds - 1);
    for (int p = 0; p < NPLAYERS && !r.bad; p++)
        get_kingdom(&r, s, &s->k[p]);
    if (r.bad || r.at != len || s->nhand != hand_expected(s) || !cards_conserved(s)) {
        cas_host_errorf(host, "castles state: damaged or inconsistent bytes (at offset %zu of %zu)",
                        r.bad ? r.bad_at : r.at, len);
        return CAS_ECORRUPT;
    }
    return CAS_OK;
}
