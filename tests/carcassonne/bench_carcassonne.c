/*
 * bench_carcassonne.c — stand-alone speed figures for the base game until
 * `castellan bench` covers it; built but not registered with CTest (speed is
 * never a test).  Usage: bench_carcassonne [games] [data_dir]
 * Random players, farmers on, 2 players; chance by the plugin's weights.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "carc.h"

const struct cas_plugin *cas_plugin_entry(void);

static void *bench_alloc(void *ctx, size_t n) { (void)ctx; return malloc(n); }
static void *bench_realloc(void *ctx, void *p, size_t n) { (void)ctx; return realloc(p, n); }
static void bench_release(void *ctx, void *p) { (void)ctx; free(p); }
static void bench_log(void *ctx, enum cas_log_level l, const char *m) { (void)ctx; (void)l; fprintf(stderr, "%s\n", m); }
static void bench_error(void *ctx, const char *m) { (void)ctx; fprintf(stderr, "error: %s\n", m); }

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts); /* CPU time: robust to a shared machine */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static uint64_t rng_next(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

static cas_action pick(const struct cas_game_vtable *vt, cas_state *s, uint64_t *rng)
{
    static cas_action legal[4096];
    static struct cas_outcome out[256];
    size_t n;
    if (vt->current(s) == CAS_ACTOR_CHANCE) {
        vt->chance_outcomes(s, out, 256, &n);
        uint64_t total = 0;
        for (size_t i = 0; i < n; i++)
            total += out[i].weight;
        uint64_t r = rng_next(rng) % total;
        for (size_t i = 0;; i++) {
            if (r < out[i].weight)
                return out[i].action;
            r -= out[i].weight;
        }
    }
    vt->legal_actions(s, legal, 4096, &n);
    return legal[rng_next(rng) % n];
}

int main(int argc, char **argv)
{
    long games = argc > 1 ? atol(argv[1]) : 20000;
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", argc > 2 ? argv[2] : "plugins/carcassonne/data");
    struct cas_host host = {.struct_size = sizeof host, .abi_major = CAS_ABI_MAJOR,
                            .abi_minor = CAS_ABI_MINOR, .log = bench_log,
                            .set_error = bench_error, .alloc = bench_alloc,
                            .realloc = bench_realloc, .release = bench_release,
                            .data_dir = dir};
    const struct cas_plugin *plugin = cas_plugin_entry();
    const struct cas_game_vtable *vt = plugin->game;
    struct cas_option_value opts[] = {
        {sizeof opts[0], "farmers", "on"}, {sizeof opts[0], "tiles", ""},
        {sizeof opts[0], "tileset", "base.tiles"}};
    struct cas_game_params params = {.struct_size = sizeof params, .nplayers = 2,
                                      .options = opts, .n_options = 3};
    cas_game *game;
    if (vt->game_new(&host, &params, &game, NULL) != CAS_OK)
        return 1;
    cas_state *start, *s;
    vt->state_new(game, &start);
    vt->state_new(game, &s);
    uint64_t rng = 0x12345678abcdefull;
    long decisions = 0;
    int64_t total_score = 0;
    double t0 = now();
    for (long i = 0; i < games; i++) {
        vt->state_copy(s, start);
        while (vt->current(s) != CAS_ACTOR_TERMINAL) {
            vt->apply(s, pick(vt, s, &rng), NULL);
            decisions++;
        }
        int64_t sc[2];
        vt->returns(s, sc, 2);
        total_score += sc[0] + sc[1];
    }
    double t1 = now();
    printf("random playouts: %ld games in %.3f s = %.0f games/s (%.1f decisions/game, "
           "mean total score %.1f)\n", games, t1 - t0, (double)games / (t1 - t0),
           (double)decisions / (double)games, (double)total_score / (double)games);

    /* legal placement generation on mid-game states (turn ~35) */
    cas_state *mid[64];
    for (int i = 0; i < 64; i++) {
        vt->state_clone(start, &mid[i]);
        int placed = 0;
        while (placed < 35 || vt->current(mid[i]) == CAS_ACTOR_CHANCE ||
               mid[i]->stage != ST_PLACE) {
            if (mid[i]->stage == ST_PLACE)
                placed++;
            vt->apply(mid[i], pick(vt, mid[i], &rng), NULL);
        }
    }
    static cas_action legal[4096];
    size_t n, total = 0;
    long reps = 200000;
    t0 = now();
    for (long r = 0; r < reps; r++) {
        vt->legal_actions(mid[r & 63], legal, 4096, &n);
        total += n;
    }
    t1 = now();
    printf("legal placements at turn 35: %.3f us per generation (%.1f placements)\n",
           (t1 - t0) * 1e6 / (double)reps, (double)total / (double)reps);
    t0 = now();
    for (long r = 0; r < reps; r++) {
        cas_state *c;
        vt->state_clone(mid[r & 63], &c);
        vt->state_free(c);
    }
    t1 = now();
    printf("state_clone+free: %.3f us\n", (t1 - t0) * 1e6 / (double)reps);
    t0 = now();
    for (long r = 0; r < reps; r++)
        vt->state_copy(s, mid[r & 63]);
    t1 = now();
    uint8_t bytes[1 << 16];
    size_t len;
    vt->serialize(mid[0], CAS_SERIAL_FULL, bytes, sizeof bytes, &len);
    printf("state_copy: %.3f us; state size %zu bytes in memory, %zu bytes serialized "
           "at turn 35\n", (t1 - t0) * 1e6 / (double)reps, game->state_size, len);
    uint64_t sum = 0;
    t0 = now();
    for (long r = 0; r < reps; r++)
        sum += vt->hash(mid[r & 63]);
    t1 = now();
    printf("hash: %.3f us (checksum %04x)\n", (t1 - t0) * 1e6 / (double)reps,
           (unsigned)(sum & 0xFFFF));
    for (int i = 0; i < 64; i++)
        vt->state_free(mid[i]);
    vt->state_free(s);
    vt->state_free(start);
    vt->game_free(game);
    return 0;
}
