#!/bin/sh
# replay.sh - time `airspace replay` on a generated history: 2 500 merges
# of a 6 000-file C repository (bench/replay_repo.py), Release build.
set -eu
cd "$(dirname "$0")/.."
cmake --build build/release > /dev/null
T=$(mktemp -d)
python3 bench/replay_repo.py "$T/r" "${1:-2500}" 3000
cd "$T/r"
/usr/bin/time -f "wall_s=%e max_rss_kb=%M" \
    "$OLDPWD/build/release/airspace" replay --json > "$T/out.json"
jq -c '{merges_seen, stats, end: .groups.all.end.airspace.traffic}' "$T/out.json"
rm -rf "$T"
