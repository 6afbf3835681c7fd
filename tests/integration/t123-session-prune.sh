# t123-session-prune.sh - a daemon starting clears out what sessions that
# ended without a word (a client killed: no SessionEnd) left in the
# airspace directory: a process's record and a name's claim once the
# process is gone, a session's record once its process is gone and a week
# has passed (a session resumed meanwhile finds its name), the hooks'
# snapshots older than a day, crew-update hashes older than a week. They
# stayed for ever (100 killed sessions left 200 files).
. "$(dirname "$0")/lib.sh"
base_repo "$TMP/repo"
D=.git/airspace
mkdir -p "$D/sessions" "$D/hooks" "$D/crew"
chmod 700 "$D"
# this shell is alive: its records stay
ME=$$
START=$(cut -d' ' -f22 "/proc/$ME/stat")
echo "alive $START" > "$D/sessions/p-$ME"
echo "$ME $START" > "$D/sessions/a-alive"
echo "alive $ME $START" > "$D/sessions/s-cc-alive"
# a process that is gone (pid 1 is never a client; a start time no
# process has)
echo "ghost 1" > "$D/sessions/p-4194303"
echo "4194303 1" > "$D/sessions/a-ghost"
echo "ghost 4194303 1" > "$D/sessions/s-cc-ghost-old"
echo "ghost 4194303 1" > "$D/sessions/s-cc-ghost-new"
touch -d '8 days ago' "$D/sessions/s-cc-ghost-old"
echo "before" > "$D/hooks/ghost-00000000000000aa"
touch -d '2 days ago' "$D/hooks/ghost-00000000000000aa"
echo "before" > "$D/hooks/alive-00000000000000bb"
echo "x" > "$D/crew/ghost"
touch -d '8 days ago' "$D/crew/ghost"
echo "x" > "$D/crew/alive"
as status > /dev/null 2>&1 || true
trap 'as stop > /dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
gone() { [ ! -e "$D/$1" ]; }
check "a gone process's record is removed" gone sessions/p-4194303
check "a gone process's claim is removed" gone sessions/a-ghost
check "a gone session's record older than a week is removed" gone sessions/s-cc-ghost-old
check "a gone session's recent record stays (a resume finds its name)" [ -e "$D/sessions/s-cc-ghost-new" ]
check "a live process's records stay" sh -c "[ -e '$D/sessions/p-$ME' ] && [ -e '$D/sessions/a-alive' ] && [ -e '$D/sessions/s-cc-alive' ]"
check "a snapshot older than a day is removed" gone hooks/ghost-00000000000000aa
check "a fresh snapshot stays" [ -e "$D/hooks/alive-00000000000000bb" ]
check "a crew hash older than a week is removed" gone crew/ghost
check "a fresh crew hash stays" [ -e "$D/crew/alive" ]
finish
