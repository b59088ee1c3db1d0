/*
 * take_away.c — a complete castellan game plugin built out of tree, as a
 * plugin author would: only <castellan/plugin.h>, found through pkg-config
 * or find_package(castellan).
 *
 * The game: a pile of stones; players in turn take 1 to max-take stones;
 * whoever takes the last stone wins (return 1, everyone else 0).
 * Options: stones (1..100, default 10), max-take (1..9, default 2).
 */
#include <castellan/plugin.h>
#include <stdlib.h>
#include <string.h>

#ifndef SAMPLE_ID
#define SAMPLE_ID "take-away"
#endif

#define ENCODING 1u
#define STATE_BYTES 16

struct cas_game {
    const struct cas_host *host;
    int nplayers, stones, max_take;
};

struct cas_state {
    const cas_game *game;
    int pile, turn, winner; /* winner: -1 until the pile is empty */
};

static const struct cas_option_spec options[] = {
    {CAS_SIZED(struct cas_option_spec), .name = "stones", .type = CAS_OPTION_INT,
     .default_value = "10", .min = 1, .max = 100, .help = "stones on the pile at the start"},
    {CAS_SIZED(struct cas_option_spec), .name = "max-take", .type = CAS_OPTION_INT,
     .default_value = "2", .min = 1, .max = 9, .help = "most stones one turn may take"},
};

/* The host validated every value against the specs; a plugin still checks
 * what it relies on. */
static int read_option(const struct cas_host *host, const struct cas_game_params *params,
                       size_t i, int *out, size_t *bad_option)
{
    const struct cas_option_value *v = &params->options[i];
    char *end;
    long n = strtol(v->value, &end, 10);
    const struct cas_option_spec *spec = &options[strcmp(v->name, "stones") ? 1 : 0];
    if (*v->value == '\0' || *end != '\0' || n < spec->min || n > spec->max) {
        cas_host_errorf(host, "%s = \"%s\" is not an integer from %lld to %lld", v->name,
                        v->value, (long long)spec->min, (long long)spec->max);
        if (bad_option)
            *bad_option = i;
        return CAS_EOPTION;
    }
    *out = (int)n;
    return CAS_OK;
}

static int game_new(const struct cas_host *host, const struct cas_game_params *params,
                    cas_game **out, size_t *bad_option)
{
    *out = NULL;
    cas_game g = {host, params->nplayers, 10, 2};
    for (size_t i = 0; i < params->n_options; i++) {
        int *field = strcmp(params->options[i].name, "stones") == 0 ? &g.stones : &g.max_take;
        int rc = read_option(host, params, i, field, bad_option);
        if (rc)
            return rc;
    }
    if (params->n_expansions) {
        cas_host_errorf(host, "take-away has no expansions");
        return CAS_EINVAL;
    }
    cas_game *game = host->alloc(host->ctx, sizeof *game);
    if (!game)
        return CAS_ENOMEM;
    *game = g;
    *out = game;
    return CAS_OK;
}

static void game_free(cas_game *game)
{
    if (game)
        game->host->release(game->host->ctx, game);
}

static int state_new(const cas_game *game, cas_state **out)
{
    cas_state *s = game->host->alloc(game->host->ctx, sizeof *s);
    if (!s)
        return CAS_ENOMEM;
    *s = (cas_state){game, game->stones, 0, -1};
    *out = s;
    return CAS_OK;
}

static void state_free(cas_state *state)
{
    if (state)
        state->game->host->release(state->game->host->ctx, state);
}

static int state_clone(const cas_state *state, cas_state **out)
{
    int rc = state_new(state->game, out);
    if (!rc)
        **out = *state;
    return rc;
}

static int state_copy(cas_state *dst, const cas_state *src)
{
    *dst = *src;
    return CAS_OK;
}

static int current(const cas_state *state)
{
    return state->winner >= 0 ? CAS_ACTOR_TERMINAL : state->turn;
}

static int most(const cas_state *state)
{
    return state->pile < state->game->max_take ? state->pile : state->game->max_take;
}

static int legal_actions(const cas_state *state, cas_action *buf, size_t cap, size_t *count)
{
    *count = state->winner >= 0 ? 0 : (size_t)most(state);
    if (*count > cap)
        return CAS_ENOSPC;
    for (size_t i = 0; i < *count; i++)
        buf[i] = i + 1;
    return CAS_OK;
}

static int chance_outcomes(const cas_state *state, struct cas_outcome *buf, size_t cap,
                           size_t *count)
{
    (void)state, (void)buf, (void)cap;
    *count = 0;
    return CAS_EINVAL; /* this game has no chance nodes */
}

static int apply(cas_state *state, cas_action action, const struct cas_event_sink *events)
{
    if (state->winner >= 0)
        return CAS_ETERMINAL;
    if (action < 1 || action > (cas_action)most(state))
        return CAS_EILLEGAL;
    int player = state->turn;
    state->pile -= (int)action;
    if (state->pile == 0)
        state->winner = player;
    else
        state->turn = (state->turn + 1) % state->game->nplayers;
    if (events && state->winner >= 0) {
        struct cas_event end = CAS_INIT(struct cas_event, .kind = CAS_EVENT_END,
                                        .player = player, .visible_to = CAS_VIEWER_PUBLIC,
                                        .points = 1, .text = "the last stone is taken");
        events->emit(events->ctx, &end);
    }
    return CAS_OK;
}

static int action_text(const cas_state *state, cas_action action, char *buf, size_t cap)
{
    (void)state;
    if (action < 1 || action > 9)
        return CAS_EINVAL;
    if (cap < 7)
        return CAS_ENOSPC;
    memcpy(buf, "take ", 5);
    buf[5] = (char)('0' + action);
    buf[6] = '\0';
    return 6;
}

static int parse_action(const cas_state *state, const char *text, cas_action *out)
{
    const struct cas_host *host = state->game->host;
    if (strncmp(text, "take ", 5) != 0 || text[5] < '1' || text[5] > '9' || text[6]) {
        cas_host_errorf(host, "\"%s\" is not an action; write take N", text);
        return CAS_EPARSE;
    }
    cas_action action = (cas_action)(text[5] - '0');
    if (state->winner >= 0 || action > (cas_action)most(state)) {
        cas_host_errorf(host, "cannot %s now; take 1 to %d", text, most(state));
        return CAS_EILLEGAL;
    }
    *out = action;
    return CAS_OK;
}

static int returns(const cas_state *state, int64_t *scores, size_t n)
{
    for (size_t i = 0; i < n; i++)
        scores[i] = (int)i == state->winner;
    return CAS_OK;
}

static void put_u32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get_u32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int serialize(const cas_state *state, enum cas_serial_purpose purpose, uint8_t *buf,
                     size_t cap, size_t *len)
{
    (void)purpose;
    *len = STATE_BYTES;
    if (cap < STATE_BYTES)
        return CAS_ENOSPC;
    put_u32(buf, ENCODING);
    put_u32(buf + 4, (uint32_t)state->pile);
    put_u32(buf + 8, (uint32_t)state->turn);
    put_u32(buf + 12, (uint32_t)state->winner);
    return CAS_OK;
}

static int deserialize(const cas_game *game, const uint8_t *buf, size_t len, cas_state **out)
{
    if (len < 4 || get_u32(buf) != ENCODING)
        return CAS_EVERSION;
    if (len != STATE_BYTES)
        return CAS_ECORRUPT;
    cas_state s = {game, (int)get_u32(buf + 4), (int)get_u32(buf + 8), (int)get_u32(buf + 12)};
    if (s.pile < 0 || s.pile > game->stones || s.turn < 0 || s.turn >= game->nplayers ||
        s.winner < -1 || s.winner >= game->nplayers || (s.pile == 0) != (s.winner >= 0))
        return CAS_ECORRUPT;
    int rc = state_new(game, out);
    if (!rc)
        **out = s;
    return rc;
}

static uint64_t hash(const cas_state *state)
{
    uint64_t h = 1469598103934665603u; /* FNV-1a over the three fields */
    int fields[3] = {state->pile, state->turn, state->winner};
    for (int i = 0; i < 3; i++) {
        h ^= (uint32_t)fields[i];
        h *= 1099511628211u;
    }
    return h;
}

static const char *player_label(const cas_game *game, int player)
{
    static const char *const labels[] = {"North", "East", "South", "West"};
    (void)game;
    return player >= 0 && player < 4 ? labels[player] : "?";
}

static int render(const cas_state *state, int viewer, enum cas_render_format format,
                  const struct cas_writer *out)
{
    (void)viewer; /* nothing is hidden */
    if (format == CAS_RENDER_JSON)
        return cas_writef(out, "{\"pile\":%d,\"turn\":%d,\"winner\":%d}\n", state->pile,
                          state->turn, state->winner);
    if (format != CAS_RENDER_TEXT && format != CAS_RENDER_ANSI)
        return CAS_EINVAL;
    if (state->winner >= 0)
        return cas_writef(out, "The pile is empty; %s wins.\n",
                          player_label(state->game, state->winner));
    return cas_writef(out, "%d stones; %s takes 1 to %d.\n", state->pile,
                      player_label(state->game, state->turn), most(state));
}

static const struct cas_game_vtable vtable = {
    CAS_SIZED(struct cas_game_vtable),
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
    .state_encoding = ENCODING,
    .hash = hash,
    .render = render,
    .player_label = player_label,
};

static const struct cas_plugin descriptor = {
    CAS_SIZED(struct cas_plugin),
    .abi_major = CAS_ABI_MAJOR,
    .abi_minor = CAS_ABI_MINOR,
    .fingerprint = CAS_BUILD_FINGERPRINT,
    .id = SAMPLE_ID,
    .version = "1.0.0",
    .kind = CAS_KIND_GAME,
    .min_players = 2,
    .max_players = 4,
    .options = options,
    .n_options = sizeof options / sizeof options[0],
    .game = &vtable,
};

CAS_EXPORT const struct cas_plugin *cas_plugin_entry(void)
{
    return &descriptor;
}
