#!/bin/sh
# rebuilt.sh - git mode on the recorded merge histories rebuilt as git
# repositories (bench/records_repo.py: real commit graphs, paths, times and
# hunk positions; synthesized contents). For each recorded repository:
#   - the label airspace computes (libgit2) against `git merge-tree`, on
#     every merge
#   - the rebuilt label against the recorded one
#   - recall and precision at the end (the merge channel on the two tips),
#     AUC and traffic at half-way against the 3-line baseline
#   - wall time and peak RSS of the replay
#
#   bench/rebuilt.sh [N]      N merges per repository (default 500): every
#                             recorded conflict first, then clean ones
# The recorded histories are read from $AIRSPACE_MERGES (default
# ../shared/data/merges).
set -eu
cd "$(dirname "$0")/.."
N=${1:-500}
DATA=${AIRSPACE_MERGES:-../shared/data/merges}
cmake --build build/release > /dev/null
AS=$PWD/build/release/airspace
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for f in "$DATA"/*.jsonl.gz; do
    name=$(basename "$f" .jsonl.gz)
    R="$T/$name"
    python3 bench/records_repo.py "$f" "$R" --max "$N" --conflicted-first
    (cd "$R" && /usr/bin/time -f "wall_s=%e max_rss_kb=%M" "$AS" replay --json \
        > "$T/$name.json") 2> "$T/$name.time"
    git -C "$R" log --merges --format="%H %s" > "$T/$name.msgs"
    agree=0 n=0
    jq -r '.merges[] | "\(.parents[0]) \(.parents[1]) \(.conflicted)"' \
        "$T/$name.json" > "$T/$name.labels"
    while read -r p1 p2 label; do
        n=$((n + 1))
        if git -C "$R" merge-tree --write-tree "$p1" "$p2" > /dev/null 2>&1; then
            want=false
        else
            want=true
        fi
        [ "$want" = "$label" ] && agree=$((agree + 1))
    done < "$T/$name.labels"
    echo "== $name: $N merges rebuilt; $(tail -1 "$T/$name.time")"
    echo "  label = git merge-tree on $agree of $n merges"
    python3 - "$R/.git/records-index.tsv" "$T/$name.msgs" "$T/$name.json" <<'EOF'
import json, sys
idx = {}
for line in open(sys.argv[1]):
    k, sha, c = line.rstrip("\n").split("\t")
    idx[int(k)] = c == "true"
msg = {}
for line in open(sys.argv[2]):
    parts = line.split()
    msg[parts[0]] = int(parts[-1])
J = json.load(open(sys.argv[3]))
both = rec_only = rebuilt_only = 0
for m in J["merges"]:
    rec = idx[msg[m["merge"]]]
    both += rec and m["conflicted"]
    rec_only += rec and not m["conflicted"]
    rebuilt_only += m["conflicted"] and not rec
print("  recorded conflicts conflicting when rebuilt: %d of %d; rebuilt-only "
      "conflicts: %d" % (both, both + rec_only, rebuilt_only))
g = J["groups"]["all"]
e, h, hn = g["end"]["airspace"]["traffic"], g["half"]["airspace"], g["half"]["near"]
print("  end: recall %.3f (%d of %d), precision %.3f" % (
    e["recall"], e["tp"], e["tp"] + e["fn"], e["precision"]))
print("  half-way: AUC %.3f (near %.3f, shared %.3f); traffic %d/%d caught/flagged,"
      " near %d/%d" % (h["auc"], hn["auc"], g["half"]["shared"]["auc"],
                       h["traffic"]["tp"], h["traffic"]["tp"] + h["traffic"]["fp"],
                       hn["traffic"]["tp"], hn["traffic"]["tp"] + hn["traffic"]["fp"]))
lead = g["lead"]["airspace"]
print("  median lead of the first correct warning: %.1f h (%.2f of the time in "
      "flight), n %d" % ((lead["median_s"] or 0) / 3600,
                         lead["median_fraction"] or 0, lead["n"]))
EOF
done
