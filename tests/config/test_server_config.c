/*
 * test_server_config.c — the [server] section of a castellan serve settings
 * file: every key read, and every error a user can write named with
 * FILE:LINE, the value and the fix, leaving nothing behind.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <castellan/plugin.h>

#include "server_config.h"

#define FILE_NAME "server-config-test.ini"

static int load_text(const char *text, struct cas__server_config *c, char *err, size_t cap)
{
    FILE *f = fopen(FILE_NAME, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    return cas__server_config_load(FILE_NAME, c, err, cap);
}

static void expect_error(const char *text, const char *expected)
{
    struct cas__server_config c;
    char err[512];
    assert_true(load_text(text, &c, err, sizeof err) < 0);
    assert_string_equal(err, expected);
    assert_null(c.listen); /* nothing kept of a bad file */
    assert_int_equal(c.max_games, 0);
}

static void test_every_key_is_read(void **state)
{
    (void)state;
    struct cas__server_config c;
    char err[512];
    assert_int_equal(load_text("[session]\ngame = fixture\n[server]\nlisten = [::1]:9000\n"
                               "cert = c.pem\nkey = k.pem\ndatabase = s.db\nwww = w\n"
                               "plugin-path = p\nmax-message-bytes = 4096\n"
                               "max-queue-bytes = 65536\nmax-games = 10\nmax-connections = 20\n"
                               "bot-threads = 2\nrate = 2.5\nburst = 8\n"
                               "allowed-hosts = a.example.org, b.example.org\n"
                               "max-send-bytes = 1048576\n"
                               "notify-command = /bin/cat --show-all\n", &c, err, sizeof err),
                     0);
    assert_string_equal(c.listen, "[::1]:9000");
    assert_string_equal(c.cert, "c.pem");
    assert_string_equal(c.key, "k.pem");
    assert_string_equal(c.database, "s.db");
    assert_string_equal(c.www, "w");
    assert_string_equal(c.plugin_path, "p");
    assert_int_equal(c.max_message_bytes, 4096);
    assert_int_equal(c.max_queue_bytes, 65536);
    assert_int_equal(c.max_games, 10);
    assert_int_equal(c.max_connections, 20);
    assert_int_equal(c.bot_threads, 2);
    assert_true(c.rate == 2.5);
    assert_true(c.burst == 8);
    assert_string_equal(c.allowed_hosts, "a.example.org, b.example.org");
    assert_int_equal(c.max_send_bytes, 1048576);
    assert_string_equal(c.notify_command, "/bin/cat --show-all");
    cas__server_config_free(&c);
}

/* The settings beside the example systemd unit are read as they stand. */
static void test_example_for_systemd(void **state)
{
    (void)state;
    struct cas__server_config c;
    char err[512], path[1024];
    snprintf(path, sizeof path, "%s/docs/examples/systemd/server.ini",
             getenv("CASTELLAN_SOURCE_DIR"));
    if (cas__server_config_load(path, &c, err, sizeof err) != CAS_OK)
        fail_msg("%s", err);
    assert_string_equal(c.listen, "127.0.0.1:8080");
    assert_non_null(c.allowed_hosts);
    assert_true(c.max_connections + 64 <= 65536); /* the unit's LimitNOFILE */
    cas__server_config_free(&c);
}

static void test_bad_keys_and_values(void **state)
{
    (void)state;
    expect_error("[server]\nlistn = 1.2.3.4:80\n",
                 FILE_NAME ":2: unknown key \"listn\" in [server] (closest: listen); "
                 "docs/server.md lists the keys");
    /* A key near nothing gets no guess. */
    expect_error("[server]\nlisten = 127.0.0.1:1\nzzz = 1\n",
                 FILE_NAME ":3: unknown key \"zzz\" in [server]; docs/server.md lists the keys");
    expect_error("[server]\nmax-games = 5\nmax-games = 6\n",
                 FILE_NAME ":3: \"max-games\" is set twice in [server]; keep one");
    expect_error("[server]\nwww =\n",
                 FILE_NAME ":2: \"www\" has no value; give one or drop the line");
    expect_error("[server]\nbot-threads = 65\n",
                 FILE_NAME ":2: bot-threads = 65: give a number from 1 to 64");
    expect_error("[server]\nrate = fast\n",
                 FILE_NAME ":2: rate = fast: give a number from 0.1 to 1e+06");
    expect_error("[server]\nmax-games = 2.5\n",
                 FILE_NAME ":2: max-games = 2.5: give a whole number");
    expect_error("[server]\ncert = c.pem\n",
                 FILE_NAME ": [server] names a cert but no key; TLS needs both");
    expect_error("[server]\nkey = k.pem\n",
                 FILE_NAME ": [server] names a key but no cert; TLS needs both");
    expect_error("[server]\nnotify-command = mail -s \"$GAME\" club\n",
                 FILE_NAME ":2: notify-command: \"mail -s \"$GAME\" club\" does not start with "
                 "an absolute path; name the program as /path/to/program (it runs without a "
                 "shell: no $VARIABLES, quotes or pipes)");
    expect_error("[server]\nnotify-command = /etc/passwd\n",
                 FILE_NAME ":2: notify-command: /etc/passwd is not an executable file; check "
                 "the path and its mode (chmod +x)");
    expect_error("[server]\nthis line has no equals sign\n",
                 FILE_NAME ":2: neither [section] nor key = value; fix the line's syntax");
}

static void test_unreadable_file(void **state)
{
    (void)state;
    struct cas__server_config c;
    char err[512];
    assert_true(cas__server_config_load("no-such-dir/x.ini", &c, err, sizeof err) < 0);
    assert_string_equal(err, "no-such-dir/x.ini: cannot be read: No such file or directory; "
                             "check the path");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_key_is_read),
        cmocka_unit_test(test_example_for_systemd),
        cmocka_unit_test(test_bad_keys_and_values),
        cmocka_unit_test(test_unreadable_file),
    };
    int failed = cmocka_run_group_tests(tests, NULL, NULL);
    remove(FILE_NAME);
    return failed;
}
