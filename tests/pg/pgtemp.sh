#!/bin/sh
# pgtemp.sh - a throwaway PostgreSQL server for the team store's tests and
# benchmark: its data, log and Unix socket in one directory, no TCP.
#
#   pgtemp.sh start DIR   initdb DIR/data (first time) and start it; prints
#                         the libpq URL of its database "airspace"
#   pgtemp.sh stop DIR    stop it fast (the data stays)
#   pgtemp.sh url DIR     print the URL again
#   pgtemp.sh check       exit 0 when the server programs are installed
#
# Run as root, the server runs as the user postgres (Debian's postgresql
# package creates it): PostgreSQL refuses to run as root. Tests SKIP when
# `check` fails (scripts/setup.sh installs postgresql).
set -eu
cd / # the server's user may not enter the caller's directory

bindir() {
    for d in $(ls -d /usr/lib/postgresql/*/bin 2> /dev/null | sort -V -r); do
        [ -x "$d/initdb" ] && { echo "$d"; return 0; }
    done
    command -v initdb > /dev/null 2>&1 && { dirname "$(command -v initdb)"; return 0; }
    return 1
}

as_owner() { # run a command as the server's owner
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

owner() {
    if [ "$(id -u)" = 0 ]; then echo postgres; else id -un; fi
}

url() {
    echo "postgresql://$(owner)@/airspace?host=$1"
}

case "${1:-}" in
check)
    B=$(bindir) || exit 1
    if [ "$(id -u)" = 0 ]; then
        id postgres > /dev/null 2>&1 && command -v runuser > /dev/null || exit 1
    fi
    exit 0
    ;;
start)
    D=$2
    B=$(bindir) || { echo "pgtemp: no PostgreSQL server installed" >&2; exit 1; }
    mkdir -p "$D"
    [ "$(id -u)" = 0 ] && chown postgres "$D"
    chmod 0700 "$D"
    case "$D" in /*) ;; *) echo "pgtemp: DIR must be absolute" >&2; exit 2 ;; esac
    if [ ! -f "$D/data/PG_VERSION" ]; then
        as_owner "$B/initdb" -D "$D/data" -U "$(owner)" --auth=trust \
            --no-sync -E UTF8 --locale=C > "$D/initdb.log" 2>&1 ||
            { cat "$D/initdb.log" >&2; exit 1; }
        fresh=1
    fi
    as_owner "$B/pg_ctl" -D "$D/data" -l "$D/log" -w -t 20 \
        -o "-c listen_addresses= -c unix_socket_directories=$D -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200" \
        start > /dev/null || { tail -20 "$D/log" >&2; exit 1; }
    if [ "${fresh:-0}" = 1 ]; then
        as_owner "$B/createdb" -h "$D" -U "$(owner)" airspace
    fi
    url "$D"
    ;;
stop)
    D=$2
    B=$(bindir) || exit 0
    [ -f "$D/data/postmaster.pid" ] || exit 0
    as_owner "$B/pg_ctl" -D "$D/data" -m immediate -w stop > /dev/null 2>&1 || true
    ;;
url)
    url "$2"
    ;;
*)
    echo "usage: pgtemp.sh start|stop|url DIR | check" >&2
    exit 2
    ;;
esac
