#!/bin/sh
# map.sh [FILES] [AGENTS] [SECONDS] - the live map at scale: a generated
# repository of FILES files (default 20 000, bench/map_repo.py) and AGENTS
# agents (default 50) registered in its working tree, each with three
# changed files reported; the map in headless chromium at 1280x800
# (bench/map.mjs): first frame, first contentful paint, and frames per
# second by requestAnimationFrame over SECONDS (default 5); as the page
# chooses (no GPU here: the 2-D canvas), with three.js asked for (#3d),
# and with WebGL off. Needs the
# release build, chromium and tests/browser (scripts/setup.sh --clients).
# Results: bench/RESULTS-map.md.
set -eu
cd "$(dirname "$0")/.."
FILES=${1:-20000}
AGENTS=${2:-50}
SECONDS_=${3:-5}
BIN=${AIRSPACE_BIN:-build/release/airspace}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
OUT=${BENCH_OUT:-bench/out/map}
rm -rf "$OUT"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
R="$OUT/repo"
export GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=b@example.invalid
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=b@example.invalid
git -c init.defaultBranch=main init -q "$R"
python3 bench/map_repo.py "$R" "$FILES" > /dev/null
git -C "$R" add -A
git -C "$R" commit -qm base
trap '"$BIN" stop --repo "$R" > /dev/null 2>&1 || :' EXIT
t0=$(date +%s%N)
URL=$("$BIN" open --repo "$R" --no-browser)
SOCK="$R/.git/airspace/sock"
until curl -sf --unix-socket "$SOCK" http://a/v1/status | jq -e '.index.state == "ready"' > /dev/null; do
    sleep 0.2
done
echo "index_ms=$((($(date +%s%N) - t0) / 1000000))"
# AGENTS agents in the working tree, each changing and reporting 3 files
# spread over the tree
git -C "$R" ls-files > "$OUT/files"
n=$(wc -l < "$OUT/files")
a=1
while [ $a -le "$AGENTS" ]; do
    curl -sf --unix-socket "$SOCK" -H 'Content-Type: application/json' \
        --data "{\"id\":\"agent$a\",\"client\":\"claude-code\",\"worktree\":\"$R\"}" \
        http://a/v1/agents > /dev/null
    for k in 0 1 2; do
        f=$(sed -n "$(((a * 397 + k * 13) % n + 1))p" "$OUT/files")
        echo "// agent$a" >> "$R/$f"
        curl -sf --unix-socket "$SOCK" -H 'Content-Type: application/json' \
            --data "{\"path\":\"$f\"}" "http://a/v1/agents/agent$a/edits" > /dev/null
    done
    a=$((a + 1))
done
sleep 1
echo "load_average=$(cut -d' ' -f1-3 /proc/loadavg)"
MAP_AGENTS=$AGENTS node bench/map.mjs "$URL" "$SECONDS_" "$OUT/map.png"
echo "# three.js asked for (#3d): WebGL on the software rasteriser"
MAP_AGENTS=$AGENTS node bench/map.mjs "$URL" "$SECONDS_" "$OUT/map-3d.png" 3d
echo "# WebGL off"
MAP_AGENTS=$AGENTS node bench/map.mjs "$URL" "$SECONDS_" "$OUT/map-nogl.png" 2d
echo "load_average=$(cut -d' ' -f1-3 /proc/loadavg)"
