/*
 * fixture_plugin.c — one source for every loader test plugin.  The build
 * compiles it once per fixture with FIX_* definitions that make its
 * descriptor right or wrong in exactly one way.  Games get a complete
 * vtable whose functions refuse to run: loader tests never play.
 */
#include <castellan/plugin.h>

#ifndef FIX_ID
#error "FIX_ID names the fixture"
#endif
#ifndef FIX_DESC_ID
#define FIX_DESC_ID FIX_ID
#endif
#ifndef FIX_VERSION
#define FIX_VERSION "1.0.0"
#endif
#ifndef FIX_ABI_MAJOR
#define FIX_ABI_MAJOR CAS_ABI_MAJOR
#endif
#ifndef FIX_ABI_MINOR
#define FIX_ABI_MINOR CAS_ABI_MINOR
#endif
#ifndef FIX_FINGERPRINT
#define FIX_FINGERPRINT CAS_BUILD_FINGERPRINT
#endif
#ifndef FIX_ENTRY
#define FIX_ENTRY cas_plugin_entry
#endif
#ifndef FIX_FARMERS_DEFAULT
#define FIX_FARMERS_DEFAULT "on"
#endif
#ifdef FIX_NO_PLAYER_LABEL
#define FIX_PLAYER_LABEL NULL
#else
#define FIX_PLAYER_LABEL player_label
#endif
#ifndef FIX_FARMERS_NAME
#define FIX_FARMERS_NAME "farmers"
#endif
#ifndef FIX_FARMERS_SIZE
#define FIX_FARMERS_SIZE sizeof(struct cas_option_spec)
#endif
#ifndef FIX_FARMERS_TYPE
#define FIX_FARMERS_TYPE CAS_OPTION_BOOL
#endif
#ifndef FIX_BONUS_DEFAULT
#define FIX_BONUS_DEFAULT "3"
#endif
#ifndef FIX_MODE_DEFAULT
#define FIX_MODE_DEFAULT "classic"
#endif


#define OPTION(name, type, def, min, max, choices, help) \
    {sizeof(struct cas_option_spec), name, type, def, min, max, choices, help}

/* A game's options cover every type; an expansion declares one of its own
 * and one whose name the game uses too.  Expansions have no vtable. */
#ifndef FIX_EXTENDS
static const struct cas_option_spec options[] __attribute__((unused)) = {
    {FIX_FARMERS_SIZE, FIX_FARMERS_NAME, FIX_FARMERS_TYPE, FIX_FARMERS_DEFAULT, 0, 0, NULL,
     "score fields"},
    OPTION("bonus", CAS_OPTION_INT, FIX_BONUS_DEFAULT, 0, 10, NULL, "extra points"),
    OPTION("mode", CAS_OPTION_CHOICE, FIX_MODE_DEFAULT, 0, 0, "classic|fast|long", "pace"),
    OPTION("motto", CAS_OPTION_TEXT, "", 0, 0, NULL, "free text"),
};

static int game_new(const struct cas_host *host, const struct cas_game_params *params,
                    cas_game **out, size_t *bad_option)
{
    (void)params;
    (void)bad_option;
    *out = NULL;
    host->set_error(host->ctx, "loader fixtures cannot be played");
    return CAS_EINVAL;
}
static void game_free(cas_game *game) { (void)game; }
static int state_new(const cas_game *game, cas_state **out)
{
    (void)game;
    *out = NULL;
    return CAS_EINVAL;
}
static void state_free(cas_state *state) { (void)state; }
static int state_clone(const cas_state *state, cas_state **out)
{
    (void)state;
    *out = NULL;
    return CAS_EINVAL;
}
static int state_copy(cas_state *dst, const cas_state *src)
{
    (void)dst;
    (void)src;
    return CAS_EINVAL;
}
static int current(const cas_state *state)
{
    (void)state;
    return CAS_ACTOR_TERMINAL;
}
static int legal_actions(const cas_state *state, cas_action *buf, size_t cap, size_t *count)
{
    (void)state, (void)buf, (void)cap;
    *count = 0;
    return CAS_EINVAL;
}
static int chance_outcomes(const cas_state *state, struct cas_outcome *buf, size_t cap,
                           size_t *count)
{
    (void)state, (void)buf, (void)cap;
    *count = 0;
    return CAS_EINVAL;
}
static int apply(cas_state *state, cas_action action, const struct cas_event_sink *events)
{
    (void)state, (void)action, (void)events;
    return CAS_EINVAL;
}
static int action_text(const cas_state *state, cas_action action, char *buf, size_t cap)
{
    (void)state, (void)action, (void)buf, (void)cap;
    return CAS_EINVAL;
}
static int parse_action(const cas_state *state, const char *text, cas_action *out)
{
    (void)state, (void)text, (void)out;
    return CAS_EINVAL;
}
static int returns(const cas_state *state, int64_t *scores, size_t n)
{
    (void)state, (void)scores, (void)n;
    return CAS_EINVAL;
}
static int serialize(const cas_state *state, enum cas_serial_purpose purpose, uint8_t *buf,
                     size_t cap, size_t *len)
{
    (void)state, (void)purpose, (void)buf, (void)cap;
    *len = 0;
    return CAS_EINVAL;
}
static int deserialize(const cas_game *game, const uint8_t *buf, size_t len,
                       cas_state **out)
{
    (void)game, (void)buf, (void)len;
    *out = NULL;
    return CAS_EINVAL;
}
static uint64_t hash(const cas_state *state)
{
    (void)state;
    return 0;
}
static int render(const cas_state *state, int viewer, enum cas_render_format format,
                  const struct cas_writer *out)
{
    (void)state, (void)viewer, (void)format, (void)out;
    return CAS_EINVAL;
}
static __attribute__((unused)) const char *player_label(const cas_game *game, int player)
{
    (void)game, (void)player;
    return "?";
}

#ifndef FIX_VTABLE_SIZE
#define FIX_VTABLE_SIZE sizeof(struct cas_game_vtable)
#endif
static const struct cas_game_vtable vtable __attribute__((unused)) = {
    .struct_size = FIX_VTABLE_SIZE,
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
    .state_encoding = 1,
    .hash = hash,
    .render = render,
    .player_label = FIX_PLAYER_LABEL,
};

#define FIX_KIND CAS_KIND_GAME
#define FIX_EXTENDS NULL
#ifndef FIX_MIN_PLAYERS
#define FIX_MIN_PLAYERS 2
#endif
#ifndef FIX_MAX_PLAYERS
#define FIX_MAX_PLAYERS 4
#endif
#define FIX_VTABLE &vtable
#else
static const struct cas_option_spec options[] = {
    OPTION("tokens", CAS_OPTION_INT, "5", 1, 9, NULL, "tokens per player"),
    OPTION("farmers", CAS_OPTION_BOOL, "off", 0, 0, NULL, "a name the game uses too"),
};
#define FIX_KIND CAS_KIND_EXPANSION
#define FIX_VTABLE NULL
#define FIX_MIN_PLAYERS 0
#ifndef FIX_MAX_PLAYERS
#define FIX_MAX_PLAYERS 0
#endif
#endif

/* Faults of the descriptor itself. */
#ifdef FIX_AS_EXPANSION /* a game's build described as an expansion of it */
#undef FIX_KIND
#define FIX_KIND CAS_KIND_EXPANSION
#undef FIX_EXTENDS
#define FIX_EXTENDS FIX_AS_EXPANSION
#undef FIX_MIN_PLAYERS
#define FIX_MIN_PLAYERS 0
#undef FIX_MAX_PLAYERS
#define FIX_MAX_PLAYERS 0
#endif
#ifdef FIX_NO_VTABLE
#undef FIX_VTABLE
#define FIX_VTABLE NULL
#endif
#ifndef FIX_STRUCT_SIZE
#define FIX_STRUCT_SIZE sizeof(struct cas_plugin)
#endif
#ifdef FIX_OPTIONS_NULL
#define FIX_OPTIONS NULL
#else
#define FIX_OPTIONS options
#endif
#ifdef FIX_NO_OPTIONS /* a plugin that declares none */
#undef FIX_OPTIONS
#define FIX_OPTIONS NULL
#define FIX_N_OPTIONS 0
#else
#define FIX_N_OPTIONS (sizeof options / sizeof options[0])
#endif

static const struct cas_plugin descriptor __attribute__((unused)) = {
    .struct_size = FIX_STRUCT_SIZE,
    .abi_major = FIX_ABI_MAJOR,
    .abi_minor = FIX_ABI_MINOR,
    .fingerprint = FIX_FINGERPRINT,
    .id = FIX_DESC_ID,
    .version = FIX_VERSION,
    .kind = FIX_KIND,
    .extends = FIX_EXTENDS,
    .min_players = FIX_MIN_PLAYERS,
    .max_players = FIX_MAX_PLAYERS,
    .options = FIX_OPTIONS,
    .n_options = FIX_N_OPTIONS,
    .game = FIX_VTABLE,
};

CAS_EXPORT const struct cas_plugin *FIX_ENTRY(void)
{
#ifdef FIX_ENTRY_NULL
    return NULL;
#else
    return &descriptor;
#endif
}
