/*
 * test_methods.c — the store's backends behind one method table
 * (saves/saves_int.h): every backend fills every method, a table with a
 * hole is named before it is used, every migration has a text for every
 * dialect and the versions count up from 1 without gaps to the schema
 * this castellan writes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <string.h>

#include "saves_int.h"

static const struct cas__saves_methods *const backends[] = {
    &cas__sqlite_methods,
    &cas__pg_methods,
};

static void test_every_backend_fills_every_method(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++) {
        const char *missing = cas__saves_missing_method(backends[i]);
        if (missing)
            fail_msg("the %s backend lacks the method %s", backends[i]->name, missing);
    }
    assert_int_equal(cas__sqlite_methods.dialect, CAS__SAVES_SQLITE);
    assert_int_equal(cas__pg_methods.dialect, CAS__SAVES_PG);
    assert_false(cas__sqlite_methods.shared);
    assert_true(cas__pg_methods.shared);
}

/* A method left out of a copy of a full table is the one named. */
static void test_a_hole_is_named(void **state)
{
    (void)state;
    struct cas__saves_methods m = cas__sqlite_methods;
    m.append = NULL;
    assert_string_equal(cas__saves_missing_method(&m), "append");
    m = cas__pg_methods;
    m.served_orphans = NULL;
    assert_string_equal(cas__saves_missing_method(&m), "served_orphans");
    m = cas__pg_methods;
    m.open = NULL;
    assert_string_equal(cas__saves_missing_method(&m), "open");
}

static void test_every_migration_speaks_every_dialect(void **state)
{
    (void)state;
    size_t n;
    const struct cas__saves_migration *m = cas__saves_migrations(&n);
    assert_int_equal(n, CAS__SAVES_SCHEMA_VERSION);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(m[i].version, (int)i + 1);
        assert_non_null(m[i].what);
        for (int d = 0; d < CAS__SAVES_DIALECTS; d++) {
            const char *sql = cas__saves_migration_sql(&m[i], (enum cas__saves_dialect)d);
            if (!sql || !*sql)
                fail_msg("migration %d has no text for %s", m[i].version, backends[d]->name);
        }
        /* One text for both, or one for each: never both kinds at once. */
        if (m[i].sql)
            for (int d = 0; d < CAS__SAVES_DIALECTS; d++)
                assert_null(m[i].dialect[d]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_backend_fills_every_method),
        cmocka_unit_test(test_a_hole_is_named),
        cmocka_unit_test(test_every_migration_speaks_every_dialect),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
