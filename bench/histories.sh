#!/bin/sh
# histories.sh - regenerate the development histories beyond sympy and
# ember.js (docs/replay.md, "More histories") from pinned commits.
#
#   bench/histories.sh CLONES OUT [NAME...]
#
# CLONES holds a clone (bare or not) of each repository as CLONES/owner+name
# (e.g. `git clone --bare https://github.com/amethyst/amethyst
# CLONES/amethyst+amethyst`). For each history it writes to OUT:
#   NAME.jsonl.gz        the merge records (newest first, up to the cap)
#   NAME.stats.json      the extractor's counters (as in bench/histories/)
#   lead-NAME.jsonl.gz   the conflicted ones again with 8 checkpoints a side
#                        (for the lead times)
# Also sympy and ember.js, whose records otherwise come with the development
# set: their lead files are made from the conflicted merges listed in
# ../shared/data/merges (or $AIRSPACE_MERGES).
# The records' content is fixed by the pinned tip, the cap and git 2.39
# (bench/extract_merges.py); bench/histories/*.stats.json hold the counts
# the figures in docs/replay.md came from.
set -eu
cd "$(dirname "$0")/.."
[ $# -ge 2 ] || { echo "usage: bench/histories.sh CLONES OUT [NAME...]" >&2; exit 2; }
CLONES=$1 OUT=$2
shift 2
DEV=${AIRSPACE_MERGES:-../shared/data/merges}
mkdir -p "$OUT"
# name            repository                  pinned tip                                cap
LIST='apollographql-apollo-client apollographql/apollo-client 54084bc22e92651cf153d03d0370b8dff3d1163f 1500
eclipse-jetty.project eclipse/jetty.project 6f3a6942502d79988bc97c67bcc39503efcecc77 1500
duckdb-duckdb duckdb/duckdb 044a04a7cd39e6e8235f756597ae42dde084e5e5 700
amethyst-amethyst amethyst/amethyst 69c62327b66593a09fe53076fdcbc38c0499f018 1500
sympy-sympy sympy/sympy e950d313a932bc6cccbc95376b3821cd2f8b5af4 0
emberjs-ember.js emberjs/ember.js f4f8b5d8b2e4dc7e3d0f326fd58184be362893fb 0'
echo "$LIST" | while read -r name repo tip cap; do
    if [ $# -gt 0 ]; then
        case " $* " in *" $name "*) ;; *) continue ;; esac
    fi
    dir=$CLONES/$(echo "$repo" | tr / +)
    [ -d "$dir/repo" ] && dir=$dir/repo
    x() {
        python3 bench/extract_merges.py --git-dir "$dir" --ref "$tip" \
            --repo-name "$repo" --jobs 2 "$@"
    }
    if [ "$cap" -gt 0 ]; then
        x --max "$cap" --out "$OUT/$name.jsonl.gz" --stats "$OUT/$name.stats.json"
        src=$OUT/$name.jsonl.gz
    else
        src=$DEV/$name.jsonl.gz
    fi
    zcat "$src" | jq -r 'select(.label.conflicted) | .merge' > "$OUT/$name.conflicted"
    x --max 100000 --steps 8 --only "$OUT/$name.conflicted" \
        --out "$OUT/lead-$name.jsonl.gz" --stats "$OUT/lead-$name.stats.json"
done
