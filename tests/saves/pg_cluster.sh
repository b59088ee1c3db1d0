#!/bin/sh
# pg_cluster.sh start|stop|pause|resume DIR BINDIR — a throwaway PostgreSQL
# cluster for the tests of the PostgreSQL save store: initdb into DIR/data,
# a server that listens on a unix socket in DIR only (no TCP at all) and
# trusts the local user `castellan`; stopped and removed by `stop`.  CTest
# runs it as the setup and cleanup of the fixture `pg`
# (tests/saves/CMakeLists.txt).  `pause` stops the server and keeps its
# data, `resume` starts it again: a test of a database that goes away
# (tests/server/test_serve_pg_restart.c) uses a cluster of its own.
#
# PostgreSQL refuses to run as root: as root, the cluster belongs to the
# user castellan-test when it exists (.ci/run creates it), else nobody.
# That user must be able to reach DIR: every folder above it needs x for
# others, as the build tree has by default.
set -eu
action=$1 dir=$2 bindir=$3

as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u "$owner" -- "$@"
    else
        "$@"
    fi
}

owner=nobody
id castellan-test >/dev/null 2>&1 && owner=castellan-test

# fsync off: the tests kill castellan, or stop the server cleanly, never
# the machine.
start_server() {
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-c listen_addresses='' -c unix_socket_directories='$dir' -c port=5432 -c fsync=off -c max_connections=50" \
        start >/dev/null ||
        { cat "$dir/server.log" >&2; exit 1; }
}

case $action in
start)
    if [ -f "$dir/data/postmaster.pid" ]; then
        as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate -w stop >/dev/null 2>&1 || true
    fi
    rm -rf "$dir"
    mkdir -p "$dir"
    socket="$dir/.s.PGSQL.5432"
    if [ ${#socket} -gt 100 ]; then
        echo "pg_cluster.sh: $socket is longer than a unix socket path may be; use a build folder with a shorter path" >&2
        exit 1
    fi
    [ "$(id -u)" -ne 0 ] || chown "$owner" "$dir"
    if ! as_owner test -w "$dir"; then
        echo "pg_cluster.sh: the user $owner cannot reach $dir; give the folders above it x for others (chmod o+x)" >&2
        exit 1
    fi
    as_owner "$bindir/initdb" -D "$dir/data" -U castellan --auth=trust -E UTF8 \
        --no-locale --no-sync >"$dir/initdb.log" 2>&1 ||
        { cat "$dir/initdb.log" >&2; exit 1; }
    start_server
    echo "PostgreSQL test cluster ready at $dir"
    ;;
pause)
    # fast: the server's clean shutdown, as an administrator's restart.
    as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
resume)
    start_server
    ;;
stop)
    if [ -f "$dir/data/postmaster.pid" ]; then
        as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    fi
    rm -rf "$dir"
    ;;
*)
    echo "usage: pg_cluster.sh start|stop|pause|resume DIR BINDIR" >&2
    exit 2
    ;;
esac
