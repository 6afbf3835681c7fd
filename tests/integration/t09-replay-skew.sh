# t09-replay-skew.sh - git mode with a skewed clock inside a side: main's
# first commit after the fork is dated 5000 (later than the merge, 1600, and
# both tips), so the replay's clock reaches 5000 before the merge. The merge
# is placed at the latest time it merges, so the lead is 0, never negative.
. "$(dirname "$0")/lib.sh"
R="$TMP/repo"
new_repo "$R"
cd "$R"
ct() { # ct UNIX-TIME MESSAGE: commit everything at that time
    git add -A
    GIT_AUTHOR_DATE="@$1 +0000" GIT_COMMITTER_DATE="@$1 +0000" \
        git commit -q --allow-empty -m "$2"
}
seq 1 50 > f
ct 1000 base
git checkout -q -b side
sed -i '10s/.*/s1/' f
ct 1200 s1
git checkout -q main
sed -i '10s/.*/m1/' f
ct 5000 m1
sed -i '40s/.*/m2/' f
ct 1300 m2
t=$(git rev-parse "main^{tree}")
m=$(GIT_AUTHOR_DATE="@1600 +0000" GIT_COMMITTER_DATE="@1600 +0000" \
    git commit-tree "$t" -p main -p side -m merge)
git update-ref refs/heads/main "$m"

as replay --json > "$TMP/out.json"
check "one merge replayed, conflicted" jqt "$TMP/out.json" \
    '.merges | length == 1 and .[0].conflicted'
check "merge time is the latest commit it merges (5000), not 1600" \
    jqt "$TMP/out.json" '.merges[0].merge_time == 5000'
check "warned at 5000: lead 0, not negative" jqt "$TMP/out.json" \
    '.merges[0] | .first_traffic == 5000 and .lead_s == 0'
check "in flight from the later first commit (main's, 5000): 0 s" \
    jqt "$TMP/out.json" '.merges[0].in_flight_s == 0'
finish
