/*
 * test_bots.c — the order in which castellan serve's bot pool decides
 * (host/server/bots.c, cas__bot_queue): a quick bot's decision never
 * waits for another game's search, searches keep one thread free for
 * quick ones, and searches of several games are served in turn.  Counts
 * and order only: no thread, no clock.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "table.h"

/* A job of game `game` (its table stands for the game), a search or not. */
static struct cas__bot_job job(intptr_t game, int search)
{
    return (struct cas__bot_job){.table = (struct cas__table *)game, .search = search};
}

static intptr_t game_of(const struct cas__bot_job *j)
{
    assert_non_null(j);
    return (intptr_t)j->table;
}

/* Two threads, as serve has by default: issue 41's case, one game's
 * mcts-hard (and another's) in the pool when a random bot's turn comes. */
static void test_quick_bots_never_wait_for_searches(void **unused)
{
    (void)unused;
    struct cas__bot_queue q;
    struct cas__bot_job a = job(1, 1), b = job(2, 1), c = job(3, 0), d = job(4, 0);
    cas__bot_queue_init(&q, 2);
    cas__bot_queue_push(&q, &a);
    cas__bot_queue_push(&q, &b);
    cas__bot_queue_push(&q, &c);
    /* the quick decision first, though it came last */
    assert_int_equal(game_of(cas__bot_queue_next(&q)), 3);
    struct cas__bot_job *first = cas__bot_queue_next(&q);
    assert_int_equal(game_of(first), 1);
    /* game 2's search waits: the second thread stays free for quick bots */
    assert_null(cas__bot_queue_next(&q));
    cas__bot_queue_push(&q, &d);
    assert_int_equal(game_of(cas__bot_queue_next(&q)), 4);
    assert_null(cas__bot_queue_next(&q));
    /* game 1's search is decided: game 2's starts */
    cas__bot_queue_done(&q, first);
    struct cas__bot_job *second = cas__bot_queue_next(&q);
    assert_int_equal(game_of(second), 2);
    cas__bot_queue_done(&q, second);
    assert_null(cas__bot_queue_next(&q));
    assert_int_equal(q.searching, 0);
}

/* Three games that each search, on four threads: three at once; a game
 * that searches again goes behind the others that were waiting. */
static void test_searches_take_turns_across_games(void **unused)
{
    (void)unused;
    struct cas__bot_queue q;
    struct cas__bot_job s[5] = {job(1, 1), job(2, 1), job(3, 1), job(4, 1), job(1, 1)};
    struct cas__bot_job *running[5];
    cas__bot_queue_init(&q, 4);
    for (int i = 0; i < 4; i++)
        cas__bot_queue_push(&q, &s[i]);
    for (int i = 0; i < 3; i++) {
        running[i] = cas__bot_queue_next(&q);
        assert_int_equal(game_of(running[i]), i + 1);
    }
    assert_null(cas__bot_queue_next(&q)); /* 3 of 4 threads search at most */
    cas__bot_queue_done(&q, running[0]);
    cas__bot_queue_push(&q, &s[4]);       /* game 1 again, after game 4 */
    assert_int_equal(game_of(cas__bot_queue_next(&q)), 4);
    assert_null(cas__bot_queue_next(&q));
    cas__bot_queue_done(&q, running[1]);
    assert_int_equal(game_of(cas__bot_queue_next(&q)), 1);
}

/* One thread: searches cannot keep it free, so they run, in turn. */
static void test_one_thread_still_searches(void **unused)
{
    (void)unused;
    struct cas__bot_queue q;
    struct cas__bot_job a = job(1, 1), b = job(2, 0);
    cas__bot_queue_init(&q, 1);
    cas__bot_queue_push(&q, &a);
    struct cas__bot_job *j = cas__bot_queue_next(&q);
    assert_int_equal(game_of(j), 1);
    cas__bot_queue_push(&q, &b);
    assert_int_equal(game_of(cas__bot_queue_next(&q)), 2);
    cas__bot_queue_done(&q, j);
    assert_null(cas__bot_queue_next(&q));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quick_bots_never_wait_for_searches),
        cmocka_unit_test(test_searches_take_turns_across_games),
        cmocka_unit_test(test_one_thread_still_searches),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
