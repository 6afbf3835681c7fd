# t18-replay-lead.sh - lead time of the first warnings from records with
# checkpoints (`steps`, tests/cases/records/steps.jsonl), computed by hand.
# Every side commits at t 1000, 2000, 3000, 4000; the merges at 5000, so
# the time in flight is 4000 s.
#   1 conflicted: both sides on a.c line 10 from their first commit
#   2 conflicted: the second side reaches a.c line 10 at its third commit
#   3 clean: c.c against d.c
. "$(dirname "$0")/lib.sh"
F="$AIRSPACE_SOURCE_DIR/tests/cases/records/steps.jsonl"
J="$TMP/out.json"

as replay --records "$F" --json --per-merge > "$J"
check "merge 1: traffic and resolution at the first commits (t 1000)" jqt "$J" \
    '.merges[0] | .first_traffic == 1000 and .first_resolution == 1000 and .lead_fraction == 1'
check "merge 2: clear at half-way, warned at the third commit (t 3000)" jqt "$J" \
    '.merges[1] | .half.level == "clear" and .first_traffic == 3000 and .lead_fraction == 0.5'
check "merge 3: never warned" jqt "$J" '.merges[2].first_traffic == null'
# fractions 1 and 0.5: quartiles at positions 0.25, 0.5, 0.75
check "lead window quartiles over the conflicted merges" jqt "$J" \
    '.groups.all.lead_window.traffic | .n == 2 and .raised == 2 and .q1 == 0.625 and .median == 0.75 and .q3 == 0.875'
check "resolution came at the same points" jqt "$J" \
    '.groups.all.lead_window.resolution.median == 0.75'
check "the checkpoints do not move the half-way AUC" jqt "$J" \
    '.groups.all.half.airspace.auc == 0.75'
as replay --records "$F" > "$TMP/out.txt"
check "table prints the quartiles" grep -q \
    'traffic 0.625/0.750/0.875 (raised 2 of 2)' "$TMP/out.txt"

# Without the checkpoints only half-way (t 2000) and the end (t 4000)
# count: fractions 0.75 and 0.25.
jq -c 'del(.sides[].steps)' "$F" > "$TMP/nosteps.jsonl"
as replay --records "$TMP/nosteps.jsonl" --json > "$J"
check "without steps: median 0.5 (half-way 0.75, end 0.25)" jqt "$J" \
    '.groups.all.lead_window.traffic | .q1 == 0.375 and .median == 0.5 and .q3 == 0.625'

# A checkpoint dated before the one before it (a rebased commit) is held at
# that one's time: merge 2's third commit said 500, held at 1000.
jq -c 'if .merge == "2222222222222222222222222222222222222222"
       then .sides[1].steps[1].ct = 500 else . end' "$F" > "$TMP/back.jsonl"
as replay --records "$TMP/back.jsonl" --json --per-merge > "$J"
check "a step back in time is held at the step before it" jqt "$J" \
    '.merges[1].first_traffic == 1000'

# A checkpoint that breaks the format stops the run (exit 2) and names it.
jq -c '.sides[0].steps[0].n_included = 9' "$F" > "$TMP/bad.jsonl"
rc=0
as replay --records "$TMP/bad.jsonl" > "$TMP/bad.out" 2> "$TMP/bad.err" || rc=$?
check "a step counting more commits than the side has: exit 2" [ "$rc" -eq 2 ]
check "the error names the step" grep -q 'sides\[0\]\.steps\[0\]' "$TMP/bad.err"
check "nothing on stdout" [ ! -s "$TMP/bad.out" ]
finish
