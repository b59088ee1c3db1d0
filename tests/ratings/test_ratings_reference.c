/*
 * test_ratings_reference.c — every Weng-Lin update castellan makes over
 * 3,000 random games (2 to 6 players from a pool of 40, with frequent ties)
 * compared with openskill's (the reference implementation, from npm, test
 * only: tests/ratings/package.json) to 1e-9.  Exits 77 (CTest: skipped),
 * naming the command that would run it, when node or the package is
 * missing.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "prng.h"
#include "ratings.h"

#define GAMES 3000
#define POOL 40
#define MOST 6

struct game {
    size_t n;
    int place[MOST];
    struct cas__rating before[MOST], after[MOST];
};

static struct game games[GAMES];
static char dir[4096], inputs[4200], outputs[4200];

/* The games, each rated from the pool's ratings as they stand. */
static void play_games(void)
{
    struct cas__rating_model m;
    struct cas__rating pool[POOL];
    struct cas__prng rng;
    cas__rating_model_default(&m);
    for (int i = 0; i < POOL; i++)
        pool[i] = cas__rating_new(&m);
    cas__prng_init(&rng, 20261204, 0, 0);
    for (int g = 0; g < GAMES; g++) {
        struct game *gm = &games[g];
        int who[MOST];
        long long score[MOST];
        gm->n = 2 + (size_t)cas__prng_below(&rng, MOST - 1);
        for (size_t i = 0; i < gm->n; i++) {
            int fresh;
            do {
                who[i] = (int)cas__prng_below(&rng, POOL);
                fresh = 1;
                for (size_t j = 0; j < i; j++)
                    fresh &= who[j] != who[i];
            } while (!fresh);
            score[i] = (long long)cas__prng_below(&rng, 6);
            gm->before[i] = gm->after[i] = pool[who[i]];
        }
        cas__rating_places(score, gm->place, gm->n);
        assert_int_equal(cas__rating_update(&m, gm->after, gm->place, gm->n), 0);
        for (size_t i = 0; i < gm->n; i++)
            pool[who[i]] = gm->after[i];
    }
}

static void write_inputs(void)
{
    FILE *f = fopen(inputs, "w");
    assert_non_null(f);
    for (int g = 0; g < GAMES; g++) {
        fputs("{\"r\":[", f);
        for (size_t i = 0; i < games[g].n; i++)
            fprintf(f, "%s[%.17g,%.17g]", i ? "," : "", games[g].before[i].mu,
                    games[g].before[i].sigma);
        fputs("],\"place\":[", f);
        for (size_t i = 0; i < games[g].n; i++)
            fprintf(f, "%s%d", i ? "," : "", games[g].place[i]);
        fputs("]}\n", f);
    }
    assert_int_equal(fclose(f), 0);
}

static void every_update_matches_openskill(void **unused)
{
    (void)unused;
    play_games();
    write_inputs();
    char cmd[16384];
    snprintf(cmd, sizeof cmd, "cd '%s' && node reference.mjs < '%s' > '%s'", dir, inputs, outputs);
    assert_int_equal(system(cmd), 0);

    FILE *f = fopen(outputs, "r");
    assert_non_null(f);
    double worst = 0;
    for (int g = 0; g < GAMES; g++) {
        for (size_t i = 0; i < games[g].n; i++) {
            double mu, sigma;
            assert_int_equal(fscanf(f, "%lf %lf", &mu, &sigma), 2);
            double d = fmax(fabs(mu - games[g].after[i].mu), fabs(sigma - games[g].after[i].sigma));
            if (d > 1e-9)
                fail_msg("game %d player %zu: castellan %.17g %.17g, openskill %.17g %.17g", g, i,
                         games[g].after[i].mu, games[g].after[i].sigma, mu, sigma);
            worst = fmax(worst, d);
        }
    }
    double extra;
    assert_int_equal(fscanf(f, "%lf", &extra), EOF);
    fclose(f);
    printf("ratings_reference: %d games compared; largest difference %.3g\n", GAMES, worst);
}

int main(void)
{
    const char *src = getenv("CASTELLAN_SOURCE_DIR");
    if (!src) {
        fprintf(stderr, "ratings_reference: CASTELLAN_SOURCE_DIR is not set (run it through ctest)\n");
        return 1;
    }
    snprintf(dir, sizeof dir, "%s/tests/ratings", src);
    char here[2048];
    if (!getcwd(here, sizeof here)) {
        perror("ratings_reference: getcwd");
        return 1;
    }
    snprintf(inputs, sizeof inputs, "%s/ratings_reference.in", here);
    snprintf(outputs, sizeof outputs, "%s/ratings_reference.out", here);
    if (system("node --version >/dev/null 2>&1") != 0) {
        printf("ratings_reference: skipped: node is not installed (apt-get install nodejs npm)\n");
        return 77;
    }
    char probe[8192];
    snprintf(probe, sizeof probe, "%s/node_modules/openskill/package.json", dir);
    FILE *f = fopen(probe, "r");
    if (!f) {
        printf("ratings_reference: skipped: openskill is not installed: run (cd %s && npm ci)\n", dir);
        return 77;
    }
    fclose(f);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_update_matches_openskill),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
