/*
 * plugin.c — the castles-cards descriptor and game vtable: options, game
 * and state lifetime, and the thin glue from the ABI to the rule files.
 */
#include <stdlib.h>
#include <string.h>

#include "castles.h"

static const struct cas_option_spec options[] = {
    {.struct_size = sizeof(struct cas_option_spec), .name = "deck", .type = CAS_OPTION_TEXT,
     .default_value = "deck.cards",
     .help = "deck file: a name in the plugin's data folder, or an absolute path"},
    {.struct_size = sizeof(struct cas_option_spec), .name = "max-turns", .type = CAS_OPTION_INT,
     .default_value = "400", .min = 10, .max = 100000,
     .help = "turns before the game stops and the fuller Kingdom wins"},
    {.struct_size = sizeof(struct cas_option_spec), .name = "max-reshuffles",
     .type = CAS_OPTION_INT, .default_value = "3", .min = 0, .max = 50,
     .help = "times the discard pile becomes the draw pile before the game stops"},
};
#define N_OPTIONS (sizeof options / sizeof options[0])

static const struct cas_option_value *option(const struct cas_game_params *params,
                                             const char *name, size_t *index)
{
    for (size_t i = 0; i < params->n_options; i++)
        if (strcmp(params->options[i].name, name) == 0) {
            *index = i;
            return &params->options[i];
        }
    return NULL;
}

static int int_option(const struct cas_host *host, const struct cas_game_params *params,
                      const struct cas_option_spec *spec, long *out, size_t *bad)
{
    size_t i = 0;
    const struct cas_option_value *v = option(params, spec->name, &i);
    const char *text = v ? v->value : spec->default_value;
    char *end;
    long n = strtol(text, &end, 10);
    if (!*text || *end || n < spec->min || n > spec->max) {
        cas_host_errorf(host, "option %s = '%s': use a whole number from %lld to %lld",
                        spec->name, text, (long long)spec->min, (long long)spec->max);
        *bad = i;
        return CAS_EOPTION;
    }
    *out = n;
    return CAS_OK;
}

static int game_new(const struct cas_host *host, const struct cas_game_params *params,
                    cas_game **out, size_t *bad_option)
{
    size_t bad = 0, deck_index = 0;
    long max_turns, max_reshuffles;
    *out = NULL;
    if (params->nplayers != NPLAYERS) {
        cas_host_errorf(host, "Castles is a game for exactly 2 players, not %d", params->nplayers);
        return CAS_EINVAL;
    }
    if (params->n_expansions) {
        cas_host_errorf(host, "Castles has no expansions");
        return CAS_EINVAL;
    }
    int rc = int_option(host, params, &options[1], &max_turns, &bad);
    if (rc == CAS_OK)
        rc = int_option(host, params, &options[2], &max_reshuffles, &bad);
    if (rc != CAS_OK) {
        if (bad_option)
            *bad_option = bad;
        return rc;
    }
    const struct cas_option_value *deck = option(params, "deck", &deck_index);
    const char *name = deck ? deck->value : options[0].default_value;
    char path[4096];
    if (!*name || snprintf(path, sizeof path, "%s%s%s", name[0] == '/' ? "" : host->data_dir,
                           name[0] == '/' ? "" : "/", name) >= (int)sizeof path) {
        cas_host_errorf(host, "option deck = '%s': give a file name or an absolute path", name);
        if (bad_option)
            *bad_option = deck_index;
        return CAS_EOPTION;
    }
    cas_game *game = host->alloc(host->ctx, sizeof *game);
    if (!game)
        return CAS_ENOMEM;
    memset(game, 0, sizeof *game);
    game->host = host;
    game->max_turns = (uint32_t)max_turns;
    game->max_reshuffles = (uint8_t)max_reshuffles;
    rc = deck_load(host, path, &game->deck);
    if (rc != CAS_OK) {
        host->release(host->ctx, game);
        return rc;
    }
    *out = game;
    return CAS_OK;
}

static void game_free(cas_game *game)
{
    if (game)
        game->host->release(game->host->ctx, game);
}

static cas_state *state_alloc(const cas_game *game)
{
    return game->host->alloc(game->host->ctx, sizeof(cas_state));
}

static int state_new(const cas_game *game, cas_state **out)
{
    cas_state *s = state_alloc(game);
    if (!s)
        return CAS_ENOMEM;
    state_reset(s, game);
    *out = s;
    return CAS_OK;
}

static void state_free(cas_state *s)
{
    if (s)
        s->game->host->release(s->game->host->ctx, s);
}

static int state_clone(const cas_state *src, cas_state **out)
{
    cas_state *s = state_alloc(src->game);
    if (!s)
        return CAS_ENOMEM;
    memcpy(s, src, sizeof *s);
    *out = s;
    return CAS_OK;
}

static int state_copy(cas_state *dst, const cas_state *src)
{
    if (dst->game != src->game)
        return CAS_EINVAL;
    memcpy(dst, src, sizeof *dst);
    return CAS_OK;
}

static int current(const cas_state *s)
{
    return turn_actor(s);
}

/* Insert the n listed actions, sorted ascending and unique, into out
 * (which may be `listed` itself: an insertion never writes past the one
 * being read); returns how many are unique.  Insertion sort: the rule
 * files list each kind in order, so a list is nearly sorted already. */
static size_t sort_unique(const cas_action *listed, size_t n, cas_action *out)
{
    size_t unique = 0;
    for (size_t i = 0; i < n; i++) {
        cas_action a = listed[i];
        size_t j = unique;
        while (j > 0 && out[j - 1] > a)
            j--;
        if (j > 0 && out[j - 1] == a)
            continue;
        for (size_t k = unique; k > j; k--)
            out[k] = out[k - 1];
        out[j] = a;
        unique++;
    }
    return unique;
}

static int legal_actions(const cas_state *s, cas_action *buf, size_t cap, size_t *count)
{
    struct action_list l;
    legal_list(s, &l);
    if (l.n <= cap) {
        *count = sort_unique(l.a, l.n, buf);
        return CAS_OK;
    }
    *count = sort_unique(l.a, l.n, l.a);
    if (*count > cap)
        return CAS_ENOSPC;
    memcpy(buf, l.a, *count * sizeof l.a[0]);
    return CAS_OK;
}

static int chance_outcomes(const cas_state *s, struct cas_outcome *buf, size_t cap, size_t *count)
{
    if (turn_actor(s) != CAS_ACTOR_CHANCE)
        return CAS_EINVAL;
    size_t n = 0;
    for (int k = 0; k < s->game->deck.nkinds; k++)
        if (s->pile[k]) {
            if (n < cap)
                buf[n] = (struct cas_outcome){.action = act(K_CHANCE, k, 0), .weight = s->pile[k]};
            n++;
        }
    *count = n;
    return n > cap ? CAS_ENOSPC : CAS_OK;
}

static bool is_legal(const cas_state *s, cas_action a)
{
    struct action_list l;
    if (s->phase == PH_SETUP_DRAW || s->phase == PH_DRAW) {
        int k = act_a(a); /* legal_list lists every kind left in the pile */
        return a == act(K_CHANCE, k, 0) && k < s->game->deck.nkinds && s->pile[k] > 0;
    }
    if (s->phase == PH_TURN) {
        l.n = 0;
        turn_options_like(s, a, &l);
    } else {
        legal_list(s, &l);
    }
    for (size_t i = 0; i < l.n; i++)
        if (l.a[i] == a)
            return true;
    return false;
}

static int apply(cas_state *s, cas_action a, const struct cas_event_sink *events)
{
    if (s->phase == PH_OVER)
        return CAS_ETERMINAL;
    if (!is_legal(s, a)) {
        cas_host_errorf(s->game->host, "action code %#llx is not legal now",
                        (unsigned long long)a);
        return CAS_EILLEGAL;
    }
    turn_apply(s, a, events);
    return CAS_OK;
}

/* Text of any well-formed code (legal or not: the text does not depend on
 * the state beyond the deck's card names). */
static int action_text(const cas_state *s, cas_action a, char *buf, size_t cap)
{
    return notation_text(s, a, buf, cap);
}

static int parse_action(const cas_state *s, const char *text, cas_action *out)
{
    return notation_parse(s, text, out);
}

/* Progress towards a complete Kingdom (0..18); a winner ends with 100. */
static int returns(const cas_state *s, int64_t *scores, size_t n)
{
    if (n < NPLAYERS)
        return CAS_EINVAL;
    for (int p = 0; p < NPLAYERS; p++)
        scores[p] = s->phase == PH_OVER && s->winner == p ? 100 : kingdom_progress(s, p);
    return CAS_OK;
}

static int serialize(const cas_state *s, enum cas_serial_purpose purpose, uint8_t *buf,
                     size_t cap, size_t *len)
{
    if (purpose != CAS_SERIAL_FULL)
        return CAS_EINVAL;
    return state_serialize(s, buf, cap, len);
}

static int deserialize(const cas_game *game, const uint8_t *buf, size_t len, cas_state **out)
{
    cas_state *s = state_alloc(game);
    if (!s)
        return CAS_ENOMEM;
    int rc = state_deserialize(game, buf, len, s);
    if (rc != CAS_OK) {
        game->host->release(game->host->ctx, s);
        return rc;
    }
    *out = s;
    return CAS_OK;
}

static uint64_t hash(const cas_state *s)
{
    return state_hash(s);
}

static int render(const cas_state *s, int viewer, enum cas_render_format format,
                  const struct cas_writer *out)
{
    return render_state(s, viewer, format, out);
}

static int choices_view(const cas_state *s, int viewer, enum cas_render_format format,
                        const cas_action *actions, size_t n, const struct cas_writer *out)
{
    return render_choices(s, viewer, format, actions, n, out);
}

static int notation(const cas_game *game, const struct cas_writer *out)
{
    (void)game;
    return notation_help(out);
}

static const char *player_label(const cas_game *game, int player)
{
    (void)game;
    return player_name(player);
}

/* The only secret is the draw pile, and the state holds no order for it:
 * a draw is a chance outcome over the cards left, and which cards are left
 * follows from the public ones (Kingdoms, discards, cards in flight).  So
 * every player's view is the whole state and a determinization is a copy;
 * providing it tells search bots the game was checked for hidden state. */
static int determinize(const cas_state *s, int viewer, const struct cas_rng *rng,
                       cas_state *out)
{
    (void)rng;
    if (viewer < 0 || viewer >= NPLAYERS)
        return CAS_EINVAL;
    return state_copy(out, s);
}

static const struct cas_game_vtable vtable = {
    .struct_size = sizeof(struct cas_game_vtable),
    .game_new = game_new,
    .game_free = game_free,
    .state_new = state_new,
    .state_free = state_free,
    .state_clone = state_clone,
    .state_copy = state_copy,
    .current = current,
    .legal_actions = legal_actions,
    .chance_outcomes = chance_outcomes,
    .apply = apply,
    .action_text = action_text,
    .parse_action = parse_action,
    .returns = returns,
    .serialize = serialize,
    .deserialize = deserialize,
    .state_encoding = CASTLES_ENCODING,
    .hash = hash,
    .render = render,
    .player_label = player_label,
    .determinize = determinize,
    .render_choices = choices_view,
    .notation_help = notation,
};

static const struct cas_plugin descriptor = {
    .struct_size = sizeof(struct cas_plugin),
    .abi_major = CAS_ABI_MAJOR,
    .abi_minor = CAS_ABI_MINOR,
    .fingerprint = CAS_BUILD_FINGERPRINT,
    .id = "castles-cards",
    .version = "1.0.0",
    .kind = CAS_KIND_GAME,
    .extends = NULL,
    .min_players = NPLAYERS,
    .max_players = NPLAYERS,
    .options = options,
    .n_options = N_OPTIONS,
    .game = &vtable,
    .extension = NULL,
};

CAS_EXPORT const struct cas_plugin *cas_plugin_entry(void)
{
    return &descriptor;
}
