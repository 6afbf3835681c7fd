# t84-map-demo.sh - the map of a small project with four agents, as a
# user sees it at 1280x800: a resolution between alice and bob on
# src/net/conn.c (alice holds it, locked), carol's intent, dave in the
# docs, and bob's question waiting for the human; the page is navigable
# with the keyboard (/ to search and fly to a path, Tab to an agent, Enter
# to follow, Escape to stop) and fits the window. Its screenshot is the
# README's (<build>/test-artefacts/t84-map-demo.png; docs/img/map.png).
# SKIP without chromium.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/map_lib.sh"
need_browser

R="$TMP/repo"
new_repo "$R"
mkdir -p "$R/src/net" "$R/src/app" "$R/src/util" "$R/src/store" "$R/tests" "$R/docs" "$R/web"
cat > "$R/src/net/conn.h" <<'C'
#ifndef CONN_H
#define CONN_H
struct conn {
    int fd;
    int port;
};
int conn_open(struct conn *c, const char *host, int port);
void conn_close(struct conn *c);
#endif
C
cat > "$R/src/net/conn.c" <<'C'
#include "conn.h"

int
conn_open(struct conn *c, const char *host, int port)
{
    (void)host;
    c->fd = 3;
    c->port = port;
    return 0;
}

void
conn_close(struct conn *c)
{
    c->fd = -1;
}
C
cat > "$R/src/app/page.c" <<'C'
#include "../net/conn.h"

int
page_load(const char *url)
{
    struct conn c;
    (void)url;
    return conn_open(&c, "example.org", 80);
}
C
for m in buf str map vec log time; do
    printf '#include "%s.h"\nint %s_init(void) { return 0; }\n' $m $m > "$R/src/util/$m.c"
    printf 'int %s_init(void);\n' $m > "$R/src/util/$m.h"
    printf '#include "../src/util/%s.h"\nint main(void) { return %s_init(); }\n' $m $m > "$R/tests/test_$m.c"
done
for m in db cache index wal; do
    printf '#include "../util/buf.h"\nint %s_open(void) { return buf_init(); }\n' $m > "$R/src/store/$m.c"
done
for m in app view router api state; do
    printf 'import { api } from "./api.js";\nexport const %s = () => api;\n' $m > "$R/web/$m.js"
done
for d in guide install protocol faq; do printf '# %s\n\nText.\n' $d > "$R/docs/$d.md"; done
git -C "$R" add -A
git -C "$R" commit -qm base
for a in alice bob carol dave; do git -C "$R" worktree add -q -b $a "$TMP/$a" main; done
cd "$R"
start_daemon
as api POST /v1/agents "{\"id\":\"alice\",\"client\":\"claude-code\",\"worktree\":\"$TMP/alice\"}" > /dev/null
as api POST /v1/agents "{\"id\":\"bob\",\"client\":\"codex\",\"worktree\":\"$TMP/bob\"}" > /dev/null
as api POST /v1/agents "{\"id\":\"carol\",\"client\":\"gemini\",\"worktree\":\"$TMP/carol\"}" > /dev/null
as api POST /v1/agents "{\"id\":\"dave\",\"client\":\"claude-code\",\"worktree\":\"$TMP/dave\"}" > /dev/null
as intent --agent alice --summary "retry in conn_open" src/net/conn.c > /dev/null
as intent --agent carol --summary "page loads through a pool" src/app/page.c > /dev/null
as lock --agent alice --reason "conn_open rework" src/net/conn.c > /dev/null
sed -i 's/c->fd = 3;/c->fd = connect_retry(host, port, 3);/' "$TMP/alice/src/net/conn.c"
sed -i 's/c->fd = 3;/c->fd = 4; \/\* bob: a fixed descriptor \*\//' "$TMP/bob/src/net/conn.c"
sed -i 's/return conn_open(&c, "example.org", 80);/return conn_open(\&c, "example.org", 443);/' "$TMP/carol/src/app/page.c"
printf '\nConnections retry three times.\n' >> "$TMP/dave/docs/guide.md"
as msg --agent bob --type question supervisor "alice holds conn.c: may I change conn_open too?" > /dev/null
map_url
node "$BROWSER_DIR/t84-demo.mjs" "$URL" "$ARTEFACTS/t84-map-demo.png" > "$TMP/out" 2>&1 && st=0 || st=$?
cat "$TMP/out"
check "the demo map passes" [ "$st" = 0 ]
check "its screenshot is kept" [ -s "$ARTEFACTS/t84-map-demo.png" ]
finish
