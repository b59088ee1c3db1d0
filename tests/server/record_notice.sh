#!/bin/sh
# The notify-command of tests/server/test_server.c: appends what it gets on
# stdin (one JSON notice and a newline) to the file named by its argument.
exec cat >> "$1"
