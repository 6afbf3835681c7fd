#!/bin/sh
# demo.sh - set everything up, build a demo repository with several agents
# flying in their own git worktrees, and run `airspace scan` on it.
#
#   scripts/demo.sh [DIR]     (default: build/demo; recreated each run)
#
# The agents:
#   alice  (worktree demo-alice) rewrites conn_open() in src/net/conn.c
#   bob    (worktree demo-bob)   edits the same lines of conn.c, uncommitted
#   carol  (worktree demo-carol) changes src/app/page.c, which calls
#          conn_open() through src/net/conn.h, two directories away
#   dave   (worktree demo-dave)  only touches docs/guide.md
# Then the daemon: a lock, a refused lock, and the git workflow: bob's
# scoped commit refused (alice holds conn.c), alice's branch landed, bob
# told that his work now conflicts with main, his land refused by the
# merge check.
set -eu
cd "$(dirname "$0")/.."
scripts/setup.sh
AIRSPACE="$(pwd)/build/release/airspace"
DEMO="${1:-build/demo}"
rm -rf "$DEMO"
mkdir -p "$DEMO"
DEMO="$(cd "$DEMO" && pwd)"
REPO="$DEMO/repo"

export GIT_AUTHOR_NAME=demo GIT_AUTHOR_EMAIL=demo@example.invalid
export GIT_COMMITTER_NAME=demo GIT_COMMITTER_EMAIL=demo@example.invalid

git -c init.defaultBranch=main init -q "$REPO"
mkdir -p "$REPO/src/net" "$REPO/src/app" "$REPO/src/util" "$REPO/docs"
cat > "$REPO/src/net/conn.h" <<'C'
#ifndef CONN_H
#define CONN_H

struct conn {
    int fd;
    int port;
};

int conn_open(struct conn *c, const char *host, int port);
void conn_close(struct conn *c);
int conn_send(struct conn *c, const char *buf, int len);

#endif
C
cat > "$REPO/src/net/conn.c" <<'C'
#include "conn.h"
#include "../util/log.h"

int
conn_open(struct conn *c, const char *host, int port)
{
    log_info("connecting");
    c->fd = 3;
    c->port = port;
    (void)host;
    return 0;
}

void
conn_close(struct conn *c)
{
    c->fd = -1;
}

int
conn_send(struct conn *c, const char *buf, int len)
{
    (void)buf;
    return c->fd < 0 ? -1 : len;
}
C
cat > "$REPO/src/util/log.h" <<'C'
#ifndef LOG_H
#define LOG_H
void log_info(const char *msg);
#endif
C
cat > "$REPO/src/util/log.c" <<'C'
#include <stdio.h>
#include "log.h"

void
log_info(const char *msg)
{
    fprintf(stderr, "%s\n", msg);
}
C
cat > "$REPO/src/app/page.c" <<'C'
#include "../net/conn.h"

int
page_fetch(const char *host)
{
    struct conn c;
    if (conn_open(&c, host, 80) < 0)
        return -1;
    conn_send(&c, "GET /", 5);
    conn_close(&c);
    return 0;
}

int
page_status(void)
{
    return 200;
}
C
printf '# Guide\n\nHow to use the demo.\n' > "$REPO/docs/guide.md"
git -C "$REPO" add -A
git -C "$REPO" commit -qm "demo project"

for who in alice bob carol dave; do
    git -C "$REPO" worktree add -q -b "$who" "$DEMO/demo-$who" main
done
# alice: rewrites conn_open (lines 7-11), committed
sed -i 's/    c->fd = 3;/    c->fd = dial(host, port);/' "$DEMO/demo-alice/src/net/conn.c"
git -C "$DEMO/demo-alice" commit -qam "conn: dial for real"
# bob: edits the same lines, not yet committed
sed -i 's/    c->fd = 3;/    c->fd = reuse_pool(port);/' "$DEMO/demo-bob/src/net/conn.c"
# carol: adds a retry around the call to conn_open in page.c
sed -i 's/    if (conn_open(&c, host, 80) < 0)/    if (conn_open(\&c, host, 80) < 0 \&\& conn_open(\&c, host, 8080) < 0)/' \
    "$DEMO/demo-carol/src/app/page.c"
# dave: documentation only
printf '\nMore words.\n' >> "$DEMO/demo-dave/docs/guide.md"

echo "demo repository: $REPO (worktrees demo-alice, demo-bob, demo-carol, demo-dave)" >&2
cd "$DEMO/demo-carol"
"$AIRSPACE" scan --explain || true

# The live airspace: the daemon (started on demand) keeps this picture
# up to date as files change; agents lock what they are about to touch.
echo >&2
echo "== the daemon: airspace status (starts it), a lock, a refused lock" >&2
"$AIRSPACE" status
AIRSPACE_AGENT=alice "$AIRSPACE" lock --reason "reworking the dial path" \
    src/net/conn.c
AIRSPACE_AGENT=bob "$AIRSPACE" lock src/net/conn.c || true
"$AIRSPACE" locks

# Scoped commits (only the agent's files, never .git/index.lock) and
# landing (a merge check and a scope check before the branch moves in).
echo >&2
echo "== the git workflow: airspace commit, airspace land" >&2
cd "$DEMO/demo-bob"
AIRSPACE_AGENT=bob "$AIRSPACE" commit -m "conn: reuse pooled descriptors" ||
    echo "(bob's commit is refused: alice holds src/net/conn.c)" >&2
cd "$REPO"
"$AIRSPACE" land alice
cd "$DEMO/demo-bob"
AIRSPACE_AGENT=bob "$AIRSPACE" commit --force -m "conn: reuse pooled descriptors"
cd "$REPO"
# bob is told before he tries: his work conflicts with what landed
"$AIRSPACE" conflicts
"$AIRSPACE" land bob --force ||
    echo "(bob's land is refused: it conflicts with what alice landed)" >&2
git log --oneline -3
"$AIRSPACE" stop
echo "(the daemon is stopped; 'airspace status' in $REPO starts it again)" >&2
