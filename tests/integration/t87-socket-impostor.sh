# t87-socket-impostor.sh - another local user cannot pose as the daemon.
# A repository path too long for a socket, no XDG_RUNTIME_DIR: the socket
# goes to /tmp/airspace-<uid>/. Another user who takes that directory
# first, links it elsewhere, or serves a fake daemon there is refused:
# the daemon will not use the directory (nor chmod what it did not make),
# and status, lock and the hook send the fake server nothing.
# Two Unix users of its own (useradd): root only.
. "$(dirname "$0")/lib.sh"

if [ "$(id -u)" != 0 ] || ! command -v useradd > /dev/null ||
    ! command -v setpriv > /dev/null || [ ! -x /usr/bin/python3 ]; then
    echo "SKIP: needs root, useradd, setpriv and /usr/bin/python3 (two users of its own)"
    finish
    exit 0
fi

V=asv$$ # the victim, who runs airspace
A=asa$$ # the other user
useradd -M -U -s /bin/sh "$V"
useradd -M -U -s /bin/sh "$A"
VU=$(id -u "$V") VG=$(id -g "$V") AU=$(id -u "$A") AG=$(id -g "$A")
FB=/tmp/airspace-$VU
FAKE=
cleanup() {
    [ -z "$FAKE" ] || kill "$FAKE" 2> /dev/null || true
    for p in $(pgrep -u "$VU" 2> /dev/null); do kill "$p" 2> /dev/null || true; done
    sleep 0.2
    userdel "$V" 2> /dev/null || true
    userdel "$A" 2> /dev/null || true
    rm -rf "$FB" "/tmp/airspace-$AU" "$TMP"
}
trap cleanup EXIT
rm -rf "$FB"
chmod 755 "$TMP"

asv() { # as the victim, without XDG_RUNTIME_DIR
    setpriv --reuid="$VU" --regid="$VG" --clear-groups \
        env -u XDG_RUNTIME_DIR HOME="$TMP/vhome" "$@"
}
asa() {
    setpriv --reuid="$AU" --regid="$AG" --clear-groups env HOME=/ "$@"
}
asa_bg() { # run in the background: the pid is the command's
    exec setpriv --reuid="$AU" --regid="$AG" --clear-groups env HOME=/ "$@"
}

mkdir -p "$TMP/vhome" "$TMP/vpub" "$TMP/a"
R="$TMP/v/$(printf 'long-directory-name-%.0s' 1 2 3 4 5)"
base_repo "$R"
cd "$TMP"
chown -R "$V:$V" "$TMP/vhome" "$TMP/vpub" "$TMP/v"
chmod 755 "$TMP/vpub"
chown "$A:$A" "$TMP/a"
chmod 755 "$TMP/a"
cd "$R"

# where the socket goes: learned from a daemon of the victim's own
asv "$AIRSPACE_BIN" status --json > "$TMP/st.json"
SOCK=$(jq -r .daemon.socket "$TMP/st.json")
check "the socket falls back to $FB ($SOCK)" \
    [ "${SOCK#"$FB"/}" != "$SOCK" ]
check "the fallback directory is the victim's, 0700" \
    [ "$(stat -c '%u %a' "$FB")" = "$VU 700" ]
asv "$AIRSPACE_BIN" stop > /dev/null 2>&1
k=0
while pgrep -u "$VU" -f "^airspace serve" > /dev/null && [ $k -lt 200 ]; do
    sleep 0.05
    k=$((k + 1))
done
rm -rf "$FB"

# the fake daemon: records every byte it is sent, answers 200
cat > "$TMP/fake.py" << 'EOF'
import os, socket, sys
path, rec = sys.argv[1], sys.argv[2]
try:
    os.unlink(path)
except FileNotFoundError:
    pass
s = socket.socket(socket.AF_UNIX)
s.bind(path)
os.chmod(path, 0o777)
s.listen(64)
open(rec + ".ready", "w").close()
body = (b'{"version":"0","pid":1,"startedAt":0,"repository":"x",'
        b'"integration":"main","socket":"fake","agents":{"total":0,'
        b'"active":0},"advisories":{"traffic":0,"resolution":0},'
        b'"escalations":0,"lastEventId":0,"index":{"state":"ready"},'
        b'"agents":[],"locks":[],"advisories":[]}')
while True:
    c, _ = s.accept()
    c.settimeout(2)
    data = b""
    try:
        while b"\r\n\r\n" not in data:
            d = c.recv(65536)
            if not d:
                break
            data += d
        head = data.split(b"\r\n\r\n")[0].lower()
        n = 0
        for line in head.split(b"\r\n"):
            if line.startswith(b"content-length:"):
                n = int(line.split(b":")[1])
        while len(data) - len(head) - 4 < n:
            d = c.recv(65536)
            if not d:
                break
            data += d
        with open(rec, "ab") as f:
            f.write(data)
        c.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
                  b"Connection: close\r\nContent-Length: %d\r\n\r\n"
                  % len(body) + body)
    except Exception:
        pass
    c.close()
EOF
chmod 644 "$TMP/fake.py"

# fake SOCKPATH: the other user serves a fake daemon there
fake() {
    rm -f "$TMP/a/rec" "$TMP/a/rec.ready"
    asa_bg /usr/bin/python3 "$TMP/fake.py" "$1" "$TMP/a/rec" &
    FAKE=$!
    k=0
    while [ ! -e "$TMP/a/rec.ready" ] && [ $k -lt 200 ]; do
        sleep 0.05
        k=$((k + 1))
    done
}
unfake() {
    kill "$FAKE" 2> /dev/null || true
    wait "$FAKE" 2> /dev/null || true
    FAKE=
}
# nothing_sent WHAT: the fake daemon received no byte
nothing_sent() {
    check "$1: nothing sent to the fake daemon ($(head -c 200 "$TMP/a/rec" 2> /dev/null))" \
        [ ! -s "$TMP/a/rec" ]
}
hook_json() {
    printf '{"session_id":"s1","cwd":"%s","hook_event_name":"%s"%s}' \
        "$R" "$1" "$2"
}

# refused TITLE: status, lock and both hook binaries refuse the fake daemon
refused() {
    rc=0
    asv "$AIRSPACE_BIN" status > "$TMP/out" 2> "$TMP/err" || rc=$?
    check "$1: status fails ($rc)" [ "$rc" != 0 ]
    check "$1: status says another user serves the socket" \
        grep -q "served by another user" "$TMP/err"
    nothing_sent "$1: status"
    rc=0
    asv "$AIRSPACE_BIN" lock x > "$TMP/out" 2> "$TMP/err" || rc=$?
    check "$1: lock fails ($rc)" [ "$rc" != 0 ]
    nothing_sent "$1: lock"
    for hb in "$AIRSPACE_BIN hook" "$(dirname "$AIRSPACE_BIN")/airspace-hook"; do
        rm -f "$R/.git/airspace/hook.log"
        hook_json UserPromptSubmit ',"prompt":"SECRET-PROMPT-TEXT"' |
            asv $hb claude-code > "$TMP/hook.out"
        check "$1: $hb: no decision" [ "$(grep -c deny "$TMP/hook.out")" = 0 ]
        check "$1: $hb: a line in the hook log" \
            grep -q "served by another user" "$R/.git/airspace/hook.log"
        hook_json PreToolUse ',"tool_name":"Edit","tool_input":{"file_path":"x"}' |
            asv $hb claude-code > "$TMP/hook.out"
        check "$1: $hb pre-tool-use: no decision" \
            [ "$(grep -c deny "$TMP/hook.out")" = 0 ]
        nothing_sent "$1: $hb"
    done
}

# ---- the other user took the fallback directory first ----
asa mkdir -m 755 "$FB"
fake "$SOCK"
refused "their directory"
unfake
rc=0
asv "$AIRSPACE_BIN" status > "$TMP/out" 2> "$TMP/err" || rc=$?
check "their directory, nobody serving: status fails ($rc)" [ "$rc" != 0 ]
check "the daemon names the directory and its owner ($(cat "$TMP/err"))" \
    grep -q "'$FB' belongs to another user (uid $AU)" "$TMP/err"
rm -rf "$FB"

# ---- a link to a directory of theirs, with the fake daemon in it ----
asa mkdir -m 755 "$TMP/a/d"
asa ln -s "$TMP/a/d" "$FB"
fake "$TMP/a/d/${SOCK##*/}"
refused "a link to their directory"
unfake
rm -f "$FB"

# ---- a link to a directory of the victim's: never followed, never chmod'ed ----
asa ln -s "$TMP/vpub" "$FB"
rc=0
asv "$AIRSPACE_BIN" status > "$TMP/out" 2> "$TMP/err" || rc=$?
check "a link to the victim's directory: status fails ($rc)" [ "$rc" != 0 ]
check "the daemon says it is a link ($(cat "$TMP/err"))" \
    grep -q "'$FB' is a symbolic link" "$TMP/err"
check "the linked directory keeps its mode ($(stat -c %a "$TMP/vpub"))" \
    [ "$(stat -c %a "$TMP/vpub")" = 755 ]
check "no daemon runs" [ -z "$(pgrep -u "$VU" -f '^airspace serve' || true)" ]
rm -f "$FB"

# ---- the victim's own directory, open to others: refused, not chmod'ed ----
asv mkdir -m 755 "$FB"
rc=0
asv "$AIRSPACE_BIN" status > "$TMP/out" 2> "$TMP/err" || rc=$?
check "a directory of the victim's open to others: status fails ($rc)" [ "$rc" != 0 ]
check "the daemon says so ($(cat "$TMP/err"))" \
    grep -q "'$FB' is open to other users (mode 755)" "$TMP/err"
check "its mode is left alone" [ "$(stat -c %a "$FB")" = 755 ]
rm -rf "$FB"

# ---- and with the directory gone, it works again ----
rc=0
asv "$AIRSPACE_BIN" status > "$TMP/out" 2> "$TMP/err" || rc=$?
check "the victim's own daemon again: status exits 0 ($rc)" [ "$rc" = 0 ]
asv "$AIRSPACE_BIN" stop > /dev/null 2>&1 || true

finish
