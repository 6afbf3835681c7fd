# t142-airspace-dir-mode.sh - `.git/airspace` made by hand for the local
# config file (`mkdir .git/airspace`: mode 755 under the usual umask) is
# made private (0700) by the command that starts the daemon, and used: no
# one else could write in it. One that others can write to (775) is
# refused as before, exit 3, and the message says exactly what to run; its
# mode is left alone, and so is that of a directory a symbolic link points
# at.
. "$(dirname "$0")/lib.sh"

base_repo "$TMP/repo"
R=$(pwd -P)
trap '"$AIRSPACE_BIN" stop --repo "$R" > /dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
D="$R/.git/airspace"

run() {
    RC=0
    as "$@" > "$TMP/out" 2> "$TMP/err" || RC=$?
}

# ---- 755, with the local config file in it ----
mkdir -m 755 "$D"
printf '[alerts]\n\tcommand = true\n' > "$D/config"
chmod 644 "$D/config"
run status --json
check "755: status starts the daemon ($RC: $(cat "$TMP/err"))" [ "$RC" -eq 0 ]
check "755: the directory is now 700 ($(stat -c %a "$D"))" [ "$(stat -c %a "$D")" = 700 ]
check "755: the config file in it is read" jqt "$TMP/out" '.daemon.alerts.command == true'
as stop > /dev/null 2>&1

# ---- 750: the same ----
chmod 750 "$D"
run status
check "750: status starts the daemon ($RC)" [ "$RC" -eq 0 ]
check "750: now 700 ($(stat -c %a "$D"))" [ "$(stat -c %a "$D")" = 700 ]
as stop > /dev/null 2>&1

# ---- 775: others could have written in it: refused, left alone ----
chmod 775 "$D"
run status
check "775: exit 3 ($RC)" [ "$RC" -eq 3 ]
check "775: names the directory, its mode and what to run ($(cat "$TMP/err"))" \
    grep -qF "'$D' is open to other users (mode 775), who can write in it: refusing to use it (remove it, or see that nothing in it is someone else's and run chmod 700 '$D')" "$TMP/err"
check "775: its mode is left alone" [ "$(stat -c %a "$D")" = 775 ]
check "775: no daemon" [ ! -S "$D/sock" ]
run serve
check "775: serve refuses it too ($RC)" [ "$RC" -ne 0 ]
check "775: still 775" [ "$(stat -c %a "$D")" = 775 ]

# ---- a symbolic link to a 755 directory: never followed, never chmod'ed ----
rm -rf "$D"
mkdir -m 755 "$TMP/elsewhere"
ln -s "$TMP/elsewhere" "$D"
run status
check "a link: exit 3 ($RC)" [ "$RC" -eq 3 ]
check "a link: says so ($(cat "$TMP/err"))" grep -qF "'$D' is a symbolic link" "$TMP/err"
check "a link: the directory it points at keeps its mode" \
    [ "$(stat -c %a "$TMP/elsewhere")" = 755 ]
rm "$D"

finish
