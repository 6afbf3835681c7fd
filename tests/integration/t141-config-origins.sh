# t141-config-origins.sh - a configuration error says where the setting
# came from: thresholds out of order name, for each of the two, the file
# that set it, --set, or "built in" (scan, a command starting the daemon,
# serve); an integration branch that names no commit names the file, git
# config or --integration that gave it; store.url with no path after
# sqlite:, or with a scheme no store has, is refused when the file is read
# (exit 2 naming file, key and value), and so is such a --store. An
# [alerts] command cut short by an unquoted ';' or '#' (a comment in
# git-config syntax) is said on stderr when the daemon is started on it; a
# quoted one is not.
. "$(dirname "$0")/lib.sh"

base_repo "$TMP/repo"
R=$(pwd -P)
trap '"$AIRSPACE_BIN" stop --repo "$R" > /dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
mkdir -m 700 .git/airspace
LOCAL="$R/.git/airspace/config"
TEAM="$R/.airspace/config"
mkdir .airspace

run() {
    RC=0
    as "$@" > "$TMP/out" 2> "$TMP/err" || RC=$?
}
no_daemon() {
    [ ! -S .git/airspace/sock ]
}

# ---- thresholds out of order ----
printf '[risk "tau"]\n\ttraffic = 0.8\n' > "$LOCAL"
run scan
check "scan: exit 2 ($RC)" [ "$RC" -eq 2 ]
check "scan: names the file of tau.traffic, and tau.resolution as built in ($(cat "$TMP/err"))" \
    grep -qF "airspace scan: 'tau.traffic' (0.8, from config file '$LOCAL') is above 'tau.resolution' (0.7, built in)" "$TMP/err"
run scan --set tau.resolution=0.75
check "scan --set: names --set ($(cat "$TMP/err"))" \
    grep -qF "'tau.traffic' (0.8, from config file '$LOCAL') is above 'tau.resolution' (0.75, from --set)" "$TMP/err"
run scan --set tau.traffic=0.9
check "scan: the --set beats the file, and is named ($(cat "$TMP/err"))" \
    grep -qF "'tau.traffic' (0.9, from --set) is above 'tau.resolution' (0.7, built in)" "$TMP/err"
printf '[risk "tau"]\n\tresolution = 0.3\n' > "$TEAM"
printf '[risk "leave"]\n\tresolution = 0.2\n' > "$LOCAL"
run scan
check "scan: two files, each named ($(cat "$TMP/err"))" \
    grep -qF "'tau.traffic' (0.35, built in) is above 'tau.resolution' (0.3, from config file '$TEAM')" "$TMP/err"
rm "$TEAM"
printf '[risk "tau"]\n\ttraffic = 0.8\n' > "$LOCAL"
run status
check "status: exit 2 ($RC)" [ "$RC" -eq 2 ]
check "status: names the file ($(cat "$TMP/err"))" \
    grep -qF "airspace status: 'tau.traffic' (0.8, from config file '$LOCAL') is above 'tau.resolution' (0.7, built in)" "$TMP/err"
check "status: no daemon started" no_daemon
run serve --set tau.resolution=0.75
check "serve: exit 2 ($RC)" [ "$RC" -eq 2 ]
check "serve: names the file and --set ($(cat "$TMP/err"))" \
    grep -qF "airspace serve: 'tau.traffic' (0.8, from config file '$LOCAL') is above 'tau.resolution' (0.75, from --set)" "$TMP/err"
rm "$LOCAL"

# ---- the integration branch ----
printf '[airspace]\n\tintegration = nosuch\n' > "$TEAM"
run scan
check "integration from a file: exit 4 ($RC)" [ "$RC" -eq 4 ]
check "... names the file ($(cat "$TMP/err"))" \
    grep -qF "integration branch 'nosuch' (from config file '$TEAM') does not name a commit" "$TMP/err"
rm "$TEAM"
git config airspace.integration nosuch2
run scan
check "integration from git config: named ($(cat "$TMP/err"))" \
    grep -qF "integration branch 'nosuch2' (from git config 'airspace.integration') does not name a commit" "$TMP/err"
git config --unset airspace.integration
run scan --integration nope
check "--integration: named ($(cat "$TMP/err"))" \
    grep -qF "integration branch 'nope' (from --integration) does not name a commit" "$TMP/err"

# ---- store.url ----
printf '[store]\n\turl = sqlite:\n' > "$LOCAL"
run status
check "store.url = sqlite: exit 2 ($RC)" [ "$RC" -eq 2 ]
check "... names file, key and value ($(cat "$TMP/err"))" \
    grep -qF "airspace status: config file '$LOCAL': store.url = sqlite:: no path after 'sqlite:'" "$TMP/err"
check "... no daemon started" no_daemon
printf '[store]\n\turl = ftp://x/y\n' > "$LOCAL"
run status
check "store.url = ftp://x/y: exit 2 ($RC)" [ "$RC" -eq 2 ]
check "... names file, key and value ($(cat "$TMP/err"))" \
    grep -qF "config file '$LOCAL': store.url = ftp://x/y: an unknown scheme" "$TMP/err"
check "... no ftp: directory made" [ ! -e ftp: ]
printf '[store]\n\turl = sqlite:%s\n' "$TMP/other.db" > "$LOCAL"
run scan
check "store.url = sqlite:PATH is accepted ($RC)" [ "$RC" -eq 0 ]
rm "$LOCAL"
run serve --store ftp://x/y
check "serve --store ftp://x/y: exit 2 ($RC)" [ "$RC" -eq 2 ]
check "... says why ($(head -1 "$TMP/err"))" grep -q "^airspace serve: --store 'ftp://x/y': an unknown scheme" "$TMP/err"

# ---- [alerts] command cut by a comment ----
printf '[alerts]\n\tcommand = cat >> %s; echo more\n' "$TMP/a" > "$LOCAL"
run status
check "a cut command: status still starts the daemon ($RC)" [ "$RC" -eq 0 ]
check "... and says what was cut ($(cat "$TMP/err"))" \
    grep -qF "airspace: warning: config file '$LOCAL': alerts.command stops at the ';', where git-config syntax starts a comment: the command run is 'cat >> $TMP/a'" "$TMP/err"
as stop > /dev/null 2>&1
printf '[alerts]\n\tcommand = "cat >> %s; echo more"\n' "$TMP/a" > "$LOCAL"
run status
check "a quoted command: no warning ($(cat "$TMP/err"))" [ ! -s "$TMP/err" ]
as stop > /dev/null 2>&1
printf '[alerts]\n\tcommand = notify-send x # a note\n' > "$LOCAL"
run serve --idle-exit-ms 100 --tick-ms 10
check "serve says it too ($(cat "$TMP/err"))" \
    grep -qF "airspace serve: warning: config file '$LOCAL': alerts.command stops at the '#'" "$TMP/err"
rm "$LOCAL"

finish
