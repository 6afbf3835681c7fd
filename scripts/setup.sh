#!/bin/sh
# setup.sh - install everything airspace needs to build and test on a fresh
# Debian machine, then configure and build it.
#
#   scripts/setup.sh            release build in build/release
#   scripts/setup.sh --asan     also the sanitizer build in build/asan
#   scripts/setup.sh --clients  also the pinned agent clients the end-to-end
#                               tests run (tests/clients/package-lock.json),
#                               and chromium with playwright-core for the
#                               map's browser tests (tests/browser)
#
# Installs Debian packages (needs root or sudo; skipped when all are present)
# and the npm packages pinned in package-lock.json (tree-sitter grammars).
set -eu
cd "$(dirname "$0")/.."

PKGS="build-essential cmake ninja-build pkg-config git ca-certificates \
libgit2-dev libtree-sitter-dev libjansson-dev zlib1g-dev libsqlite3-dev libevent-dev \
libcurl4-openssl-dev curl libncurses-dev libpq-dev postgresql \
clang-format clang libclang-rt-14-dev python3 jq time libgit2-fixtures tmux faketime"

# the map's browser tests (t81-t84, bench/map.sh) drive Debian's chromium
# (and t81 cuts its connections with ss -K)
case " $* " in *" --clients "*) PKGS="$PKGS chromium iproute2" ;; esac

missing=""
# Node.js and npm: keep whatever provides them (a NodeSource nodejs carries
# its own npm and conflicts with Debian's npm package).
command -v npm >/dev/null 2>&1 || missing="nodejs npm"
for p in $PKGS; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
        missing="$missing $p"
done
if [ -n "$missing" ]; then
    echo "setup: installing Debian packages:$missing" >&2
    SUDO=""
    [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q $missing >&2
fi

if [ ! -f node_modules/.package-lock.json ] ||
    [ package-lock.json -nt node_modules/.package-lock.json ]; then
    echo "setup: installing npm packages (package-lock.json)" >&2
    npm ci --no-audit --no-fund --ignore-scripts >&2
fi
# three.js for the map's page, embedded in the binary (decision 0015)
if [ ! -f web/node_modules/.package-lock.json ] ||
    [ web/package-lock.json -nt web/node_modules/.package-lock.json ]; then
    echo "setup: installing the map's npm packages (web/package-lock.json)" >&2
    (cd web && npm ci --no-audit --no-fund --ignore-scripts >&2)
fi

for a in "$@"; do
    if [ "$a" = "--clients" ] &&
        { [ ! -f tests/clients/node_modules/.package-lock.json ] ||
            [ tests/clients/package-lock.json -nt tests/clients/node_modules/.package-lock.json ]; }; then
        echo "setup: installing the pinned agent clients (tests/clients)" >&2
        (cd tests/clients && npm ci --no-audit --no-fund --ignore-scripts >&2)
    fi
    if [ "$a" = "--clients" ] &&
        { [ ! -f tests/browser/node_modules/.package-lock.json ] ||
            [ tests/browser/package-lock.json -nt tests/browser/node_modules/.package-lock.json ]; }; then
        echo "setup: installing playwright-core for the map's browser tests (tests/browser)" >&2
        (cd tests/browser && npm ci --no-audit --no-fund --ignore-scripts >&2)
    fi
done

build() {
    dir=$1
    shift
    if [ ! -f "$dir/build.ninja" ]; then
        cmake -S . -B "$dir" -G Ninja "$@" >&2
    fi
    cmake --build "$dir" >&2
}

build build/release -DCMAKE_BUILD_TYPE=RelWithDebInfo
for a in "$@"; do
    if [ "$a" = "--asan" ]; then
        build build/asan -DCMAKE_BUILD_TYPE=Debug -DAIRSPACE_SANITIZE=ON
    fi
done
