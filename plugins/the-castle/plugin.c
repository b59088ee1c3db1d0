/*
 * plugin.c — the the-castle descriptor and game vtable: the data-file
 * options, game and state lifetime, and the glue from the ABI to the rule
 * files.  A state's nodes are copied only as far as they are used.
 */
#include <stdlib.h>
#include <string.h>

#include "castle.h"

static const struct cas_option_spec options[] = {
    {.struct_size = sizeof(struct cas_option_spec), .name = "tiles", .type = CAS_OPTION_TEXT,
     .default_value = "castle.tiles",
     .help = "tile file: a name in the plugin's data folder, or an absolute path"},
    {.struct_size = sizeof(struct cas_option_spec), .name = "board", .type = CAS_OPTION_TEXT,
     .default_value = "castle.board",
     .help = "board file (interior, start spaces, track, wall tiles): name or absolute path"},
};
#define N_OPTIONS (sizeof options / sizeof options[0])

/* The path option `index` names, into buf; false when it cannot be one. */
static bool option_path(const struct cas_host *host, const struct cas_game_params *params,
                        size_t index, char *buf, size_t cap)
{
    const char *name = options[index].default_value;
    for (size_t i = 0; i < params->n_options; i++)
        if (strcmp(params->options[i].name, options[index].name) == 0)
            name = params->options[i].value;
    bool absolute = name[0] == '/';
    if (!*name || (size_t)snprintf(buf, cap, "%s%s%s", absolute ? "" : host->data_dir,
                                   absolute ? "" : "/", name) >= cap) {
        cas_host_errorf(host, "option %s = '%s': give a file name or an absolute path",
                        options[index].name, name);
        return false;
    }
    return true;
}

static size_t option_index(const struct cas_game_params *params, size_t spec)
{
    for (size_t i = 0; i < params->n_options; i++)
        if (strcmp(params->options[i].name, options[spec].name) == 0)
            return i;
    return spec;
}

static int game_new(const struct cas_host *host, const struct cas_game_params *params,
                    cas_game **out, size_t *bad_option)
{
    *out = NULL;
    if (params->nplayers != NPLAYERS) {
        cas_host_errorf(host, "The Castle is a game for exactly 2 players, not %d",
                        params->nplayers);
        return CAS_EINVAL;
    }
    if (params->n_expansions) {
        cas_host_errorf(host, "The Castle takes no expansions");
        return CAS_EINVAL;
    }
    char tiles_path[4096], board_path[4096];
    for (size_t i = 0; i < N_OPTIONS; i++)
        if (!option_path(host, params, i, i ? board_path : tiles_path, sizeof tiles_path)) {
            if (bad_option)
                *bad_option = option_index(params, i);
            return CAS_EOPTION;
        }
    cas_game *game = host->alloc(host->ctx, sizeof *game);
    if (!game)
        return CAS_ENOMEM;
    memset(game, 0, sizeof *game);
    game->host = host;
    int rc = tiles_load(host, tiles_path, &game->tiles);
    if (rc == CAS_OK)
        rc = board_load(host, board_path, &game->tiles, &game->board);
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

static void copy_used(cas_state *dst, const cas_state *src)
{
    memcpy(dst, src, offsetof(cas_state, nodes) + src->nnodes * sizeof src->nodes[0]);
}

static int state_clone(const cas_state *src, cas_state **out)
{
    cas_state *s = state_alloc(src->game);
    if (!s)
        return CAS_ENOMEM;
    copy_used(s, src);
    *out = s;
    return CAS_OK;
}

static int state_copy(cas_state *dst, const cas_state *src)
{
    if (dst->game != src->game)
        return CAS_EINVAL;
    copy_used(dst, src);
    return CAS_OK;
}

static int current(const cas_state *s)
{
    return turn_actor(s);
}

static int cmp_action(const void *a, const void *b)
{
    cas_action x = *(const cas_action *)a, y = *(const cas_action *)b;
    return x < y ? -1 : x > y;
}

static int legal_actions(const cas_state *s, cas_action *buf, size_t cap, size_t *count)
{
    struct action_list l;
    legal_list(s, &l);
    size_t sorted = 1;
    while (sorted < l.n && l.a[sorted - 1] < l.a[sorted])
        sorted++;
    if (sorted < l.n) /* only the scoring choices come unsorted */
        qsort(l.a, l.n, sizeof l.a[0], cmp_action);
    *count = l.n;
    if (l.n > cap)
        return CAS_ENOSPC;
    memcpy(buf, l.a, l.n * sizeof l.a[0]);
    return CAS_OK;
}

static int chance_outcomes(const cas_state *s, struct cas_outcome *buf, size_t cap, size_t *count)
{
    if (turn_actor(s) != CAS_ACTOR_CHANCE)
        return CAS_EINVAL;
    struct action_list l;
    legal_list(s, &l);
    *count = l.n;
    if (l.n > cap)
        return CAS_ENOSPC;
    for (size_t i = 0; i < l.n; i++) {
        unsigned x = act_a(l.a[i]);
        buf[i] = (struct cas_outcome){.action = l.a[i],
                                      .weight = s->phase == PH_DRAW ? s->bag[x] : s->pool[x]};
    }
    return CAS_OK;
}

static bool is_legal(const cas_state *s, cas_action a)
{
    if (act_kind(a) == A_PLACE) /* the long list: check the one placement */
        return s->phase == PH_PLACE && act_a(a) < (unsigned)(s->game->board.w * s->game->board.h) &&
               act_b(a) < 4 && a == act(A_PLACE, act_a(a), act_b(a)) &&
               placement_fits(s, (int)act_a(a), s->drawn, (int)act_b(a));
    struct action_list l;
    legal_list(s, &l);
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

static int action_text(const cas_state *s, cas_action a, char *buf, size_t cap)
{
    return notation_text(s, a, buf, cap);
}

static int parse_action(const cas_state *s, const char *text, cas_action *out)
{
    return notation_parse(s, text, out);
}

static int returns(const cas_state *s, int64_t *scores, size_t n)
{
    if (n < NPLAYERS)
        return CAS_EINVAL;
    for (int p = 0; p < NPLAYERS; p++)
        scores[p] = s->p[p].score;
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

/* The decision view: the picture with the choices marked (SVG formats),
 * else the render. */
static int render_choices(const cas_state *s, int viewer, enum cas_render_format format,
                          const cas_action *actions, size_t n, const struct cas_writer *out)
{
    if (format == CAS_RENDER_SVG || format == CAS_RENDER_SVG_ACTIONS)
        return render_svg_choices(s, format == CAS_RENDER_SVG_ACTIONS, actions, n, out);
    return render_state(s, viewer, format, out);
}

static const char *player_label(const cas_game *game, int player)
{
    (void)game;
    return player_name(player);
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
    .state_encoding = CASTLE_ENCODING,
    .hash = hash,
    .render = render,
    .player_label = player_label,
    .render_choices = render_choices,
};

static const struct cas_plugin descriptor = {
    .struct_size = sizeof(struct cas_plugin),
    .abi_major = CAS_ABI_MAJOR,
    .abi_minor = CAS_ABI_MINOR,
    .fingerprint = CAS_BUILD_FINGERPRINT,
    .id = "the-castle",
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
