/*
 * plugin.c — the carcassonne plugin: descriptor, rule options, game
 * creation (tile sets, count overrides, expansions, state layout), state
 * lifetime, and the vtable that forwards to the subsystems.
 */
#include "carc.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

static const struct cas_option_spec carc_options[] = {
    {.struct_size = sizeof(struct cas_option_spec), .name = "farmers",
     .type = CAS_OPTION_BOOL, .default_value = "on",
     .help = "farmers may be deployed on fields and score 3 per completed city"},
    {.struct_size = sizeof(struct cas_option_spec), .name = "tiles",
     .type = CAS_OPTION_TEXT, .default_value = "",
     .help = "tile count overrides ID:COUNT,... ('*' for all), start tile included"},
    {.struct_size = sizeof(struct cas_option_spec), .name = "tileset",
     .type = CAS_OPTION_TEXT, .default_value = "base.tiles",
     .help = "tile set file in the plugin's data folder"},
    {.struct_size = sizeof(struct cas_option_spec), .name = "meeples",
     .type = CAS_OPTION_INT, .default_value = "7", .min = 1, .max = CARC_MAX_MEEPLES,
     .help = "meeples per player (the rulebook: 7)"},
};

static const struct cas_carc_figure_kind meeple = {
    .struct_size = sizeof(struct cas_carc_figure_kind),
    .name = "meeple",
    .per_player = 7,
    .strength = 1,
    .classes = CAS_CARC_CLASS_BIT(CAS_CARC_ROAD) | CAS_CARC_CLASS_BIT(CAS_CARC_CITY) |
               CAS_CARC_CLASS_BIT(CAS_CARC_FIELD) | CAS_CARC_CLASS_BIT(CAS_CARC_CLOISTER),
};

struct game_options {
    int farmers, meeples;
    const char *tiles;
    const char *tileset;
};

static int read_options(const struct cas_host *host, const struct cas_game_params *p,
                        struct game_options *o, size_t *bad_option)
{
    *o = (struct game_options){.farmers = 1, .meeples = 7, .tiles = "",
                               .tileset = "base.tiles"};
    for (size_t i = 0; i < p->n_options; i++) {
        const struct cas_option_value *v = &p->options[i];
        int bad = 0;
        if (strcmp(v->name, "farmers") == 0) {
            bad = strcmp(v->value, "on") != 0 && strcmp(v->value, "off") != 0;
            o->farmers = strcmp(v->value, "on") == 0;
        } else if (strcmp(v->name, "tiles") == 0) {
            o->tiles = v->value;
        } else if (strcmp(v->name, "meeples") == 0) {
            o->meeples = atoi(v->value);
            bad = o->meeples < 1 || o->meeples > CARC_MAX_MEEPLES;
        } else if (strcmp(v->name, "tileset") == 0) {
            bad = !v->value[0] || strchr(v->value, '/') || v->value[0] == '.';
            o->tileset = v->value;
        } else {
            bad = 1;
        }
        if (bad) {
            if (bad_option)
                *bad_option = i;
            cas_host_errorf(host, "option %s = '%s' is not valid; farmers is on|off, "
                            "tileset a file name in the data folder, meeples 1 to %d",
                            v->name, v->value, CARC_MAX_MEEPLES);
            return CAS_EOPTION;
        }
    }
    return CAS_OK;
}

static int max_players(const struct cas_game_params *p)
{
    int max = 5;
    for (size_t i = 0; i < p->n_expansions; i++) {
        const struct cas_carc_expansion *x = p->expansions[i].extension;
        if (x && x->struct_size >= offsetof(struct cas_carc_expansion, max_players) +
                     sizeof x->max_players &&
            x->max_players > max)
            max = x->max_players;
    }
    return max < CARC_MAX_PLAYERS ? max : CARC_MAX_PLAYERS;
}

static size_t align8(size_t n) { return (n + 7) & ~(size_t)7; }

/* Capacities from the tile pool, and where each array sits in a state. */
static int layout(struct cas_game *g)
{
    int tiles = 0, cells = 0, nodes = 0, figs = 0, cloisters = 0;
    for (int k = 0; k < g->nkinds; k++) {
        g->multi_cell |= g->kinds[k].ncells > 1;
        if (g->kinds[k].has_cloister)
            g->cloister_kinds[k / 64] |= 1ull << (k % 64);
        tiles += g->kinds[k].count;
        cells += g->kinds[k].count * g->kinds[k].ncells;
        nodes += g->kinds[k].count * g->kinds[k].nf;
        cloisters +=
            g->kinds[k].count * __builtin_popcount(g->kinds[k].of_class[CAS_CARC_CLOISTER]);
    }
    for (int f = 0; f < g->nfig; f++) {
        figs += g->fig[f].def.per_player;
        if (g->fig[f].def.flags & CAS_CARC_FIG_ESCORTED)
            g->escorted |= 1u << f;
    }
    g->cap_tiles = tiles;
    g->cap_cloisters = cloisters;
    g->cap_cells = 3 * cells + 4;
    g->cap_nodes = nodes;
    g->cap_figs = figs * g->nplayers;
    if (g->cap_cells > 20000 || nodes > 60000 || g->cap_figs > CARC_MAX_FIGURES) {
        cas_host_errorf(g->host, "%d tiles and %d figures are too many for one game "
                        "(limits: 6500 spaces, %d figures)", tiles, g->cap_figs,
                        CARC_MAX_FIGURES);
        return CAS_EDATA;
    }
    g->bag_size = 0;
    for (int k = 0; k < g->nkinds; k++)
        g->bag_size += g->kinds[k].hand ? 0 : g->kinds[k].count;
    g->hash_size = 64;
    g->hash_shift = 64 - 6;
    while (g->hash_size < 2 * g->cap_cells) {
        g->hash_size *= 2;
        g->hash_shift--;
    }
    size_t off = align8(sizeof(struct cas_state));
    g->off_bag = off;
    off = align8(off + (size_t)g->nkinds * sizeof(uint16_t));
    g->off_bag_kinds = off;
    off = align8(off + (size_t)g->nkinds * sizeof(uint16_t));
    g->off_bag_tickets = off;
    off = align8(off + (size_t)g->bag_size);
    g->off_bag_ends = off;
    off = align8(off + (size_t)g->nkinds * sizeof(uint16_t));
    g->off_ghead = off;
    off = align8(off + CARC_PATTERNS * sizeof(uint16_t));
    g->off_gcount = off;
    off = align8(off + CARC_PATTERNS * sizeof(uint16_t));
    g->off_tiles = off;
    off = align8(off + (size_t)g->cap_tiles * sizeof(struct carc_tile));
    g->off_cells = off;
    off = align8(off + (size_t)g->cap_cells * sizeof(struct carc_cell));
    g->off_hash = off;
    off = align8(off + (size_t)g->hash_size * sizeof(uint16_t));
    g->off_front = off;
    off = align8(off + (size_t)g->cap_cells * sizeof(uint16_t));
    g->off_nodes = off;
    off = align8(off + (size_t)g->cap_nodes * sizeof(struct carc_node));
    g->off_figs = off;
    off = align8(off + (size_t)g->cap_figs * sizeof(struct carc_fig));
    g->off_cloisters = off;
    off = align8(off + (size_t)g->cap_cloisters * sizeof(struct carc_cloister));
    for (int i = 0; i < g->nexp; i++) {
        g->exp[i].state_off = off;
        off = align8(off + g->exp[i].desc->state_size);
    }
    g->state_size = off;
    return CAS_OK;
}

static int load_tiles(struct cas_game *g, const struct game_options *o)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", g->host->data_dir, o->tileset);
    g->start_kind = -1;
    int rc = cas__carc_parse_tileset(g->host, path, &g->own_kinds, &g->nkinds, g->attrs,
                                     g->nattrs, &g->start_kind);
    g->kinds = g->own_kinds;
    if (rc == CAS_OK && g->start_kind < 0) {
        cas_host_errorf(g->host, "%s: no 'start ID' line names the start tile", path);
        rc = CAS_EDATA;
    }
    return rc;
}

static int check_pool(struct cas_game *g)
{
    if (g->kinds[g->start_kind].count < 1 || g->kinds[g->start_kind].hand) {
        cas_host_errorf(g->host, "tiles: the start tile %s needs a count of at least 1 "
                        "(the count includes the start tile)",
                        g->kinds[g->start_kind].id);
        return CAS_EOPTION;
    }
    return CAS_OK;
}

/* The key of the tables a game's params build: every option of the game
 * and of its expansions (the tile sets, the counts, the figures and
 * vetoes all follow from them).  0 when it does not fit. */
static int kinds_key(const struct cas_game_params *p, char *key, size_t cap)
{
    size_t len = (size_t)snprintf(key, cap, "tables");
    for (size_t i = 0; i < p->n_options && len < cap; i++)
        len += (size_t)snprintf(key + len, cap - len, "\n%s=%s", p->options[i].name,
                                p->options[i].value);
    for (size_t e = 0; e < p->n_expansions && len < cap; e++) {
        const struct cas_expansion_ref *x = &p->expansions[e];
        len += (size_t)snprintf(key + len, cap - len, "\n+%s", x->id);
        for (size_t i = 0; i < x->n_options && len < cap; i++)
            len += (size_t)snprintf(key + len, cap - len, "\n%s.%s=%s", x->id,
                                    x->options[i].name, x->options[i].value);
    }
    return len < cap;
}

/* Where the kinds' symbols are written: counted, then copied into place. */
struct symbol_sink {
    char *text; /* NULL: count only */
    size_t len;
};

static int symbol_write(void *ctx, const char *data, size_t len)
{
    struct symbol_sink *s = ctx;
    if (s->text)
        memcpy(s->text + s->len, data, len);
    s->len += len;
    return CAS_OK;
}

/* Every kind's symbol back to back into sink, its offsets into at[0..nkinds]
 * (at may be NULL when only counting). */
static int write_symbols(const struct cas_game *g, struct symbol_sink *sink, uint32_t *at)
{
    struct cas_writer out = {.struct_size = sizeof out, .ctx = sink, .write = symbol_write};
    for (int k = 0; k < g->nkinds; k++) {
        if (at)
            at[k] = (uint32_t)sink->len;
        int rc = cas__carc_kind_symbol(g, k, &out);
        if (rc != CAS_OK)
            return rc;
    }
    if (at)
        at[g->nkinds] = (uint32_t)sink->len;
    return sink->len < UINT32_MAX ? CAS_OK : CAS_ENOMEM;
}

/* The finished kinds, the pattern masks and, where the host shares, the
 * kinds' SVG symbols into one flat block, handed to the host to share with
 * the other games of the same options (ABI 1.3: 141 KB a game otherwise,
 * 444 KB with five expansions), else kept as the game's own.  Without a
 * host that shares, the symbols are not kept (they would cost every game
 * its own copy): its renders draw them. */
static int finish_tables(struct cas_game *g, const struct cas_game_params *params)
{
    const struct cas_host *h = g->host;
    char key[2048];
    int shares = CAS_HAS_FIELD(h, struct cas_host, unshare) && h->share && h->unshare &&
                 kinds_key(params, key, sizeof key);
    size_t kinds_end = sizeof(struct carc_tables) + (size_t)g->nkinds * sizeof(struct carc_kind);
    size_t symbols_at = (kinds_end + 7) / 8 * 8, size = kinds_end;
    struct symbol_sink count = {.text = NULL, .len = 0};
    if (shares && write_symbols(g, &count, NULL) == CAS_OK)
        size = symbols_at + ((size_t)g->nkinds + 1) * sizeof(uint32_t) + count.len;
    struct carc_tables *t = h->alloc(h->ctx, size);
    if (!t)
        return CAS_ENOMEM;
    memset(t, 0, size); /* no stray byte: the host compares blocks byte for byte */
    if (size > kinds_end) {
        uint32_t *at = (uint32_t *)((char *)t + symbols_at);
        struct symbol_sink sink = {.text = (char *)(at + g->nkinds + 1), .len = 0};
        int rc = write_symbols(g, &sink, at);
        if (rc != CAS_OK) {
            h->release(h->ctx, t);
            return rc;
        }
        t->symbols_at = symbols_at;
    }
    for (int p = 0; p < CARC_PATTERNS; p++)
        cas__carc_pattern_masks(p, &t->pattern_req[p], &t->pattern_care[p]);
    memcpy(t->kinds, g->own_kinds, (size_t)g->nkinds * sizeof(struct carc_kind));
    h->release(h->ctx, g->own_kinds);
    g->own_kinds = NULL;
    g->tables = t;
    if (shares) {
        const struct carc_tables *shared = h->share(h->ctx, key, t, size);
        if (shared) {
            h->release(h->ctx, t);
            g->tables = shared;
            g->tables_shared = 1;
        }
    }
    g->kinds = g->tables->kinds;
    g->pattern_req = g->tables->pattern_req;
    g->pattern_care = g->tables->pattern_care;
    return CAS_OK;
}

static void carc_game_free(cas_game *game)
{
    if (!game)
        return;
    const struct cas_host *host = game->host;
    cas__carc_fini_expansions(game);
    host->release(host->ctx, game->own_kinds);
    if (game->tables_shared)
        host->unshare(host->ctx, game->tables);
    else
        host->release(host->ctx, (void *)game->tables);
    host->release(host->ctx, game);
}

static int carc_game_new(const struct cas_host *host, const struct cas_game_params *params,
                         cas_game **out, size_t *bad_option)
{
    *out = NULL;
    struct game_options o;
    int rc = read_options(host, params, &o, bad_option);
    if (rc != CAS_OK)
        return rc;
    if (params->nplayers < 2 || params->nplayers > max_players(params)) {
        cas_host_errorf(host, "%d players: Carcassonne takes 2 to %d", params->nplayers,
                        max_players(params));
        return CAS_EINVAL;
    }
    struct cas_game *g = host->alloc(host->ctx, sizeof *g);
    if (!g)
        return CAS_ENOMEM;
    memset(g, 0, sizeof *g);
    g->host = host;
    g->nplayers = params->nplayers;
    g->farmers = o.farmers;
    g->coat_attr = 0;
    snprintf(g->attrs[g->nattrs++], sizeof g->attrs[0], "coat");
    g->fig[g->nfig].def = meeple;
    g->fig[g->nfig].def.per_player = o.meeples;
    g->fig[g->nfig++].exp = -1;
    rc = load_tiles(g, &o);
    if (rc == CAS_OK)
        rc = cas__carc_load_expansions(g, params, bad_option);
    if (rc == CAS_OK && (rc = cas__carc_apply_counts(host, o.tiles, g->own_kinds, g->nkinds)) ==
                            CAS_EOPTION && bad_option)
        for (size_t i = 0; i < params->n_options; i++)
            if (strcmp(params->options[i].name, "tiles") == 0)
                *bad_option = i;
    if (rc == CAS_OK)
        rc = check_pool(g);
    if (rc == CAS_OK) {
        cas__carc_prepare_rotations(g->own_kinds, g->nkinds);
        rc = layout(g);
    }
    if (rc == CAS_OK)
        rc = cas__carc_init_expansions(g, params, bad_option);
    if (rc == CAS_OK) {
        cas__carc_mark_vetoed_kinds(g);
        cas__carc_prepare_deploys(g);
        rc = finish_tables(g, params);
    }
    if (rc != CAS_OK) {
        carc_game_free(g);
        return rc;
    }
    *out = g;
    return CAS_OK;
}

int cas__carc_state_alloc(const struct cas_game *g, struct cas_state **out)
{
    *out = g->host->alloc(g->host->ctx, g->state_size);
    if (!*out)
        return CAS_ENOMEM;
    memset(*out, 0, g->state_size);
    (*out)->game = g;
    return CAS_OK;
}

void cas__carc_state_reset(struct cas_state *s)
{
    const struct cas_game *g = s->game;
    memset((char *)s + sizeof s->game, 0, g->state_size - sizeof s->game);
    cas__carc_bag_fill(s);
    cas__carc_bag_take(s, g->start_kind);
    cas__carc_place(s, g->start_kind, 0, 0, 0, -1);
    for (int p = 0; p < g->nplayers; p++)
        for (int f = 0; f < g->nfig; f++)
            s->supply[p][f] = (uint8_t)g->fig[f].def.per_player;
    s->placed = -1;
    cas__carc_init_xstates(s);
    s->stage = ST_TURN_START;
    cas__carc_advance(s);
}

static int carc_state_new(const cas_game *game, cas_state **out)
{
    int rc = cas__carc_state_alloc(game, out);
    if (rc == CAS_OK)
        cas__carc_state_reset(*out);
    return rc;
}

static void carc_state_free(cas_state *state)
{
    if (state)
        state->game->host->release(state->game->host->ctx, state);
}

/* Copy `count` elements of `size` bytes at byte offset `off`. */
static void copy_part(struct cas_state *dst, const struct cas_state *src, size_t off,
                      size_t count, size_t size)
{
    memcpy((char *)dst + off, (const char *)src + off, count * size);
}

/* The parts of src a state reads: the header and bag, the open-spot groups
 * that are non-empty, each array up to its count (no code reads past a
 * count: every element is written before its count covers it), the cells
 * hash and the expansion blocks whole.  A
 * mid-game state is mostly unused tails, so this copies about a third. */
static void copy_used(struct cas_state *dst, const struct cas_state *src)
{
    const struct cas_game *g = src->game;
    memcpy(dst, src, g->off_ghead);
    for (int w = 0; w < CARC_PATTERN_WORDS; w++)
        for (uint64_t bits = src->groups[w]; bits; bits &= bits - 1) {
            int p = w * 64 + __builtin_ctzll(bits);
            S_GHEAD(dst)[p] = C_GHEAD(src)[p];
            S_GCOUNT(dst)[p] = C_GCOUNT(src)[p];
        }
    copy_part(dst, src, g->off_tiles, src->ntiles, sizeof(struct carc_tile));
    copy_part(dst, src, g->off_cells, src->ncells, sizeof(struct carc_cell));
    copy_part(dst, src, g->off_hash, (size_t)g->hash_size, sizeof(uint16_t));
    copy_part(dst, src, g->off_front, src->nfront, sizeof(uint16_t));
    copy_part(dst, src, g->off_nodes, src->nnodes, sizeof(struct carc_node));
    copy_part(dst, src, g->off_figs, src->nfigs, sizeof(struct carc_fig));
    copy_part(dst, src, g->off_cloisters, src->ncloisters, sizeof(struct carc_cloister));
    if (g->nexp > 0)
        copy_part(dst, src, g->exp[0].state_off, g->state_size - g->exp[0].state_off, 1);
}

static int carc_state_copy(cas_state *dst, const cas_state *src)
{
    if (dst->game != src->game)
        return CAS_EINVAL;
    copy_used(dst, src);
    return CAS_OK;
}

static int carc_state_clone(const cas_state *state, cas_state **out)
{
    *out = state->game->host->alloc(state->game->host->ctx, state->game->state_size);
    if (!*out)
        return CAS_ENOMEM;
    copy_used(*out, state);
    return CAS_OK;
}

static int carc_current(const cas_state *state) { return cas__carc_current(state); }

static int carc_legal_actions(const cas_state *state, cas_action *buf, size_t cap,
                              size_t *count)
{
    return cas__carc_legal(state, buf, cap, count);
}

static int carc_random_action(const cas_state *state, const struct cas_rng *rng,
                              cas_action *out)
{
    return cas__carc_random_action(state, rng, out);
}

static int carc_chance_outcomes(const cas_state *s, struct cas_outcome *buf, size_t cap,
                                size_t *count)
{
    if (s->stage != ST_DRAW)
        return CAS_EINVAL;
    size_t n = s->bag_kinds;
    for (size_t i = 0; i < n && i < cap; i++) {
        int k = C_BAG_KINDS(s)[i];
        buf[i] = (struct cas_outcome){ACT_DRAW_CODE(k), C_BAG(s)[k]};
    }
    *count = n;
    return n > cap ? CAS_ENOSPC : CAS_OK;
}

static uint64_t carc_chance_total(const cas_state *s)
{
    return s->stage == ST_DRAW ? s->bag_left : 0;
}

static int carc_chance_pick(const cas_state *s, uint64_t ticket, cas_action *out)
{
    if (s->stage != ST_DRAW || ticket >= s->bag_left)
        return CAS_EINVAL;
    *out = ACT_DRAW_CODE(cas__carc_bag_kind_of_ticket(s, ticket));
    return CAS_OK;
}

static int carc_apply(cas_state *state, cas_action action,
                      const struct cas_event_sink *events)
{
    state->sink = events;
    int rc = cas__carc_apply(state, action);
    state->sink = NULL;
    return rc;
}

static int carc_action_text(const cas_state *state, cas_action action, char *buf,
                            size_t cap)
{
    return cas__carc_action_text(state, action, buf, cap);
}

static int carc_parse_action(const cas_state *state, const char *text, cas_action *out)
{
    return cas__carc_parse_action(state, text, out);
}

static int carc_returns(const cas_state *state, int64_t *scores, size_t n)
{
    if (n < (size_t)state->game->nplayers)
        return CAS_EINVAL;
    for (int p = 0; p < state->game->nplayers; p++)
        scores[p] = state->score[p];
    return CAS_OK;
}

static int carc_serialize(const cas_state *state, enum cas_serial_purpose purpose,
                          uint8_t *buf, size_t cap, size_t *len)
{
    if (purpose != CAS_SERIAL_FULL)
        return CAS_EINVAL;
    return cas__carc_serialize(state, buf, cap, len);
}

static int carc_deserialize(const cas_game *game, const uint8_t *buf, size_t len,
                            cas_state **out)
{
    return cas__carc_deserialize(game, buf, len, out);
}

static uint64_t carc_hash(const cas_state *state) { return cas__carc_hash(state); }

static int carc_render(const cas_state *state, int viewer, enum cas_render_format format,
                       const struct cas_writer *out)
{
    return cas__carc_render(state, viewer, format, out);
}

static int carc_render_choices(const cas_state *state, int viewer,
                               enum cas_render_format format, const cas_action *actions,
                               size_t n, const struct cas_writer *out)
{
    return cas__carc_render_choices(state, viewer, format, actions, n, out);
}

static int carc_render_since(const cas_state *state, struct cas_render_since *req)
{
    return cas__carc_render_since(state, req);
}

static int carc_notation_help(const cas_game *game, const struct cas_writer *out)
{
    return cas__carc_notation_help(game, out);
}

/* Final scoring applied to a copy: what each player would end with.  The
 * bag is not looked at, so every player can work it out. */
static int carc_projected_returns(const cas_state *state, int64_t *scores, size_t n)
{
    if (n < (size_t)state->game->nplayers)
        return CAS_EINVAL;
    cas_state *copy;
    int rc = carc_state_clone(state, &copy);
    if (rc != CAS_OK)
        return rc;
    copy->sink = NULL;
    if (copy->stage != ST_END)
        cas__carc_final_scoring(copy);
    for (int p = 0; p < state->game->nplayers; p++)
        scores[p] = copy->score[p];
    carc_state_free(copy);
    return CAS_OK;
}

static const char *carc_player_label(const cas_game *game, int player)
{
    if (player < 0 || player >= game->nplayers)
        return "nobody";
    return cas__carc_colours[player];
}

static const struct cas_game_vtable carc_vtable = {
    .struct_size = sizeof(struct cas_game_vtable),
    .game_new = carc_game_new,
    .game_free = carc_game_free,
    .state_new = carc_state_new,
    .state_free = carc_state_free,
    .state_clone = carc_state_clone,
    .state_copy = carc_state_copy,
    .current = carc_current,
    .legal_actions = carc_legal_actions,
    .chance_outcomes = carc_chance_outcomes,
    .apply = carc_apply,
    .action_text = carc_action_text,
    .parse_action = carc_parse_action,
    .returns = carc_returns,
    .serialize = carc_serialize,
    .deserialize = carc_deserialize,
    .state_encoding = CARC_ENCODING,
    .hash = carc_hash,
    .render = carc_render,
    .player_label = carc_player_label,
    .render_choices = carc_render_choices,
    .notation_help = carc_notation_help,
    .import_foreign = cas__carc_import_foreign,
    .projected_returns = carc_projected_returns,
    .chance_total = carc_chance_total,
    .chance_pick = carc_chance_pick,
    .bench_floor = cas__carc_bench_floor,
    .random_action = carc_random_action,
    .render_since = carc_render_since,
};

static const struct cas_plugin carc_plugin = {
    .struct_size = sizeof(struct cas_plugin),
    .abi_major = CAS_ABI_MAJOR,
    .abi_minor = CAS_ABI_MINOR,
    .fingerprint = CAS_BUILD_FINGERPRINT,
    .id = "carcassonne",
    .version = "1.0.0",
    .kind = CAS_KIND_GAME,
    .min_players = 2,
    .max_players = 5,
    .options = carc_options,
    .n_options = sizeof carc_options / sizeof carc_options[0],
    .game = &carc_vtable,
};

CAS_EXPORT const struct cas_plugin *cas_plugin_entry(void)
{
    return &carc_plugin;
}
