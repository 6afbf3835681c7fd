# t20-replay-records.sh - `airspace replay --records` on a four-merge fixture
# whose numbers are computed by hand (tests/cases/records/four.jsonl):
#   1 conflicted branch merge: a.c lines 10 and 11 (gap 1) at half and end
#   2 conflicted branch merge: nothing shared at half, d/b.c line 5 at end
#   3 clean mainline merge: c.c lines 1 and 11 (gap 10) at half and end
#   4 clean mainline merge: e.c vs f.c
. "$(dirname "$0")/lib.sh"
F="$AIRSPACE_SOURCE_DIR/tests/cases/records/four.jsonl"
J="$TMP/out.json"
near() { # near JSON-PATH VALUE: |value - want| < 1e-6
    jqt "$J" "(($1) - ($2) | fabs) < 1e-6"
}

# Proximity only, no graded term: risk 1 exactly when hunks are within 1 line.
as replay --records "$F" --json --set prox.scale=0 --set weight.exposure=0 \
    --set weight.dirs=0 --set weight.activity=0 > "$J"
check "4 merges, 2 conflicted" jqt "$J" \
    '.merges_read == 4 and .groups.all.merges == 4 and .groups.all.conflicted == 2'
check "absent channels listed" jqt "$J" \
    '.absent_channels | index("merge") != null and index("dependency") != null'
# half: airspace [1,0,0,0] vs labels [1,1,0,0] -> 0.75; shared [1,0,1,0] -> 0.5
check "half AUC airspace 0.75" near '.groups.all.half.airspace.auc' 0.75
check "half AUC shared 0.5" near '.groups.all.half.shared.auc' 0.5
check "half AUC near 0.75" near '.groups.all.half.near.auc' 0.75
# end: airspace [1,1,0,0] -> 1; shared [1,1,1,0] -> 0.75
check "end AUC airspace 1" near '.groups.all.end.airspace.auc' 1
check "end AUC shared 0.75" near '.groups.all.end.shared.auc' 0.75
check "half traffic: precision 1, recall 0.5, share 0.25" jqt "$J" \
    '.groups.all.half.airspace.traffic | .precision == 1 and .recall == 0.5 and .flagged_share == 0.25'
check "end shared baseline precision 2/3" near \
    '.groups.all.end.shared.traffic.precision' '2 / 3'
check "mainline subset has no positive: AUC null" jqt "$J" \
    '.groups.mainline.half.airspace.auc == null and .groups.mainline.merges == 2'
check "branch subset" jqt "$J" '.groups.branch.merges == 2 and .groups.branch.conflicted == 2'

# Defaults, per merge: proximity exp(-(gap-1)/0.3) beyond the margin,
# exposure, dirs and activity (every side here has made 1 commit at half-way,
# 2 at the end: A = 1 - exp(-1/20), then 1 - exp(-2/20)).
as replay --records "$F" --json --per-merge > "$J"
check "merge 1 resolution at half by proximity" jqt "$J" \
    '.merges[0] | .half.level == "resolution" and .first_channel == "proximity"'
check "merge 1 half risk: proximity weight 0.8, exposure, activity" near \
    '.merges[0].half.risk' \
    '1 - 0.2 * (1 - 0.25 * (1 - (-1 / 300 | exp))) * (1 - 0.35 * (1 - (-1 / 20 | exp)))'
# The risk engine's channels are reported (weight 0 by default): ranges 10
# and 11 widened by margin 1 are [9,11] and [10,12], overlap coefficient 2/3.
check "merge 1 engine channels: overlap 2/3, tree 1 (same file)" jqt "$J" \
    '.merges[0].half.channels | ((.overlap - 2 / 3) | fabs) < 1e-6 and .tree == 1'
check "merge 2 clear at half, resolution at end" jqt "$J" \
    '.merges[1] | .half.level == "clear" and .end.level == "resolution" and .half.shared == 0'
check "merge 2 half risk from exposure, dirs and activity" near \
    '.merges[1].half.risk' \
    '1 - (1 - 0.25 * (1 - (-1 / 300 | exp))) * (1 - 0.1 * (1 - (-0.1 | exp))) * (1 - 0.35 * (1 - (-1 / 20 | exp)))'
check "merge 2 activity at half and at the end" jqt "$J" \
    '.merges[1] | ((.half.channels.activity - (1 - (-0.05 | exp))) | fabs) < 1e-6 and ((.end.channels.activity - (1 - (-0.1 | exp))) | fabs) < 1e-6'
check "merge 3 proximity 9 lines beyond the margin: exp(-9/0.3)" near \
    '.merges[2].end.channels.proximity' '(-30 | exp)'
check "merge 3 level clear" jqt "$J" '.merges[2].end.level == "clear"'
as replay --records "$F" --json --per-merge --set prox.scale=10 > "$J"
check "prox.scale=10: merge 3 proximity exp(-0.9), still clear (0.8 * 0.41 < 0.35)" \
    jqt "$J" '((.merges[2].end.channels.proximity - (-0.9 | exp)) | fabs) < 1e-6 and .merges[2].end.level == "clear"'
# Lead: both sides' first commits at t=1000, merges at t=10000 (9000 s in
# flight); merge 1 warned at half-way (t=1000), merge 2 at the end (t=2000).
check "in flight 9000 s, lead 9000 s (fraction 1) and 8000 s (8/9)" jqt "$J" \
    '(.merges[0] | .in_flight_s == 9000 and .lead_s == 9000 and .lead_fraction == 1) and (.merges[1] | .lead_s == 8000 and ((.lead_fraction - 8 / 9) | fabs) < 1e-6)'
check "median lead fraction over the two conflicts" jqt "$J" \
    '((.groups.all.lead.airspace.median_fraction - 17 / 18) | fabs) < 1e-6'
check "merge 4 clear, no first channel" jqt "$J" \
    '.merges[3] | .end.level == "clear" and .first_channel == null'

# Verdicts, defaults, all merges. Half-way airspace ranks 1 > 2 (dirs) > 3
# (a sliver of proximity) > 4: AUC 1 above near's 0.75; traffic flags merge
# 1 only, as near does: not more caught. At the end near's AUC is 1 too.
as replay --records "$F" --json > "$J"
check "verdicts: half AUC yes, traffic no; end AUC no, traffic no" jqt "$J" \
    '.groups.all | .half.verdict == {"auc_beats_baselines": true, "traffic_beats_near": false} and .end.verdict == {"auc_beats_baselines": false, "traffic_beats_near": false}'
check "mainline verdict: no conflict, AUC and traffic n/a" jqt "$J" \
    '.groups.mainline.half.verdict == {"auc_beats_baselines": null, "traffic_beats_near": null}'
as replay --records "$F" > "$TMP/verdict.txt"
check "table: the half-way verdict line" grep -q \
    "^  half: AUC above both baselines yes (1.000 vs 0.750); traffic catches more than near at no more flagged no (1/1 vs 1/1 caught/flagged)" \
    "$TMP/verdict.txt"
check "table: the mainline verdict is n/a, not no" grep -q \
    "AUC above both baselines n/a (n/a vs n/a); traffic catches more than near at no more flagged n/a (0/0 vs 0/0 caught/flagged)" \
    "$TMP/verdict.txt"

# At near's flag budget (1 merge at half-way, 2 at the end) airspace's
# highest risks are merge 1, then merges 1 and 2; the cut is the lowest risk
# flagged. The mainline group's budget is 0.
as replay --records "$F" --json --per-merge > "$J"
check "at near's budget: 1/1 at half-way, cut at merge 1's risk" jqt "$J" \
    '.groups.all.half.airspace.at_near_budget as $b | $b.flagged == 1 and $b.tp == 1 and $b.risk_cut == .merges[0].half.risk'
check "at near's budget: 2/2 at the end, cut at the lower of the two" jqt "$J" \
    '.groups.all.end.airspace.at_near_budget as $b | $b.flagged == 2 and $b.tp == 2 and $b.risk_cut == ([.merges[0].end.risk, .merges[1].end.risk] | min)'
check "at near's budget 0: nothing flagged, no cut" jqt "$J" \
    '.groups.mainline.half.airspace.at_near_budget == {"flagged": 0, "tp": 0, "risk_cut": null}'
# Without proximity and dirs every half-way risk is the same (activity and
# exposure alike): the tie of 4 does not fit a budget of 1.
as replay --records "$F" --json --set weight.proximity=0 --set weight.dirs=0 > "$J"
check "at near's budget: a tie larger than the budget flags nothing" jqt "$J" \
    '.groups.all.half.airspace.at_near_budget == {"flagged": 0, "tp": 0, "risk_cut": null}'
as replay --records "$F" > "$TMP/budget.txt"
check "table: the budget line" grep -q \
    "^  half: at near's budget airspace's highest risks catch 1 of 1 flagged (risk >= 0.804)" \
    "$TMP/budget.txt"

# With the overlap channel weighted 1 it joins the noisy-OR.
as replay --records "$F" --json --per-merge --set weight.overlap=1 > "$J"
check "overlap weight 1: merge 1 half risk gains the factor 1 - 2/3" near \
    '.merges[0].half.risk' \
    '1 - 0.2 * (1 - 0.25 * (1 - (-1 / 300 | exp))) * (1 - 0.35 * (1 - (-1 / 20 | exp))) * (1 / 3)'
check "overlap weight 1: merge 2 first raised by overlap" jqt "$J" \
    '.merges[1].first_channel == "overlap"'

# Splits: even first digit = tune (merges 2 and 4), odd = held-out (1 and 3).
as replay --records "$F" --json --split tune > "$J"
check "tune split: 2 merges" jqt "$J" '.groups.all.merges == 2 and .groups.all.conflicted == 1'
as replay --records "$F" --json --split held-out > "$J"
check "held-out split: 2 merges" jqt "$J" '.groups.all.merges == 2'

# Table output names the baselines.
as replay --records "$F" > "$TMP/out.txt"
check "table has rows" grep -q "half  near" "$TMP/out.txt"

# No conflicted merge at all (nothing to learn hotspots from): a clean run.
as replay --records "$AIRSPACE_SOURCE_DIR/tests/cases/records/clean-only.jsonl" \
    --json > "$J"
check "only clean merges: read, no conflict, AUC null" jqt "$J" \
    '.merges_read == 1 and .groups.all.conflicted == 0 and .groups.all.half.airspace.auc == null'
# A half-way commit dated after the tips and the merge (a skewed clock): the
# merge is placed at that time, so no lead is negative.
as replay --records "$AIRSPACE_SOURCE_DIR/tests/cases/records/half-after-tip.jsonl" \
    --json --per-merge > "$J"
check "skewed half-way time: the merge is not before it, lead 0" jqt "$J" \
    '.merges[0] | .merge_time == 99999 and .lead_s == 0 and .lead_fraction == 0'
check "skewed half-way time: no negative lead anywhere" jqt "$J" \
    '[.merges[] | select(.lead_s != null and .lead_s < 0)] | length == 0'

# A record that breaks the format is refused (exit 2, naming the field), not
# read with a guess: each case mutates merge 1 of the fixture.
refused() { # refused NAME JQ-MUTATION MESSAGE-PART
    head -n 1 "$F" | jq -c "$2" > "$TMP/bad1.jsonl"
    set +e
    as replay --records "$TMP/bad1.jsonl" > /dev/null 2> "$TMP/err"
    rc=$?
    set -e
    check "refused, $1: exit 2" [ "$rc" -eq 2 ]
    check "refused, $1: says '$3'" grep -q "$3" "$TMP/err"
}
refused "added not an integer" '.sides[0].ws[0].hunks[0][2] = "1"' "added >= 0"
refused "binary not a boolean" '.sides[0].ws[0].binary = "yes"' "'binary' must be true or false"
refused "n_commits not the commits listed" '.sides[0].n_commits = 7' "'n_commits' is 7 but 'commits' lists 2"
refused "no commits" '.sides[0].commits = []' "'n_commits' is 2 but 'commits' lists 0"
refused "tip not among the commits" '.sides[0].tip = "zz"' "the tip 'zz' is not among its commits"
refused "absolute path" '.sides[0].ws[0].path = "/etc/a.c"' "bad path '/etc/a.c'"
refused "path with .." '.sides[0].ws[0].path = "src/../../a.c"' "bad path 'src/../../a.c'"
head -n 1 "$F" > "$TMP/good1.jsonl"
check "the unmutated record is read" as replay --records "$TMP/good1.jsonl" --json

# Malformed input: exit 2 with the line number; --skip-bad continues.
set +e
as replay --records "$AIRSPACE_SOURCE_DIR/tests/cases/records/bad.jsonl" \
    > /dev/null 2> "$TMP/err"
rc=$?
set -e
check "malformed: exit 2" [ "$rc" -eq 2 ]
check "malformed: names line 2" grep -q "line 2: invalid JSON" "$TMP/err"
as replay --records "$AIRSPACE_SOURCE_DIR/tests/cases/records/bad.jsonl" \
    --skip-bad --json > "$J" 2> "$TMP/err"
check "skip-bad: 2 read, 3 skipped" jqt "$J" '.merges_read == 2 and .skipped == 3'
set +e
as replay --records "$F" --set nosuch=1 > /dev/null 2> "$TMP/err"
rc=$?
set -e
check "unknown --set key: exit 2" [ "$rc" -eq 2 ]
check "unknown --set key named" grep -q "unknown option 'nosuch'" "$TMP/err"
finish
