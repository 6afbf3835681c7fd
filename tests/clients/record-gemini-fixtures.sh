# record-gemini-fixtures.sh - record what the pinned Gemini CLI really sends
# its hooks: one session (headless, --approval-mode yolo, offline against the
# scripted model server) in a repository set up with `airspace init
# --gemini`, every hook airspace installs pointed at a recorder that keeps
# its stdin and then runs airspace's hook. Writes
# tests/clients/fixtures/gemini/<Event>.json (the first input of each event;
# for BeforeTool and AfterTool, that of write_file, and <Event>.<tool>.json
# for the other tools) with the machine's paths, ids and times replaced by
# placeholders.
#
#   AIRSPACE_BIN=build/release/airspace sh tests/clients/record-gemini-fixtures.sh
. "$(dirname "$0")/../integration/lib.sh"
. "$(dirname "$0")/lib-gemini.sh"
gemini_available || { echo "the pinned Gemini CLI $GEMINI_PIN is not installed" >&2; exit 1; }
OUT="$GEMINI_CLIENTS/fixtures/gemini"
gemini_home
R="$TMP/proj"
new_repo "$R"
printf 'line%s\n' 1 2 3 4 5 6 7 8 > "$R/a.txt"
git -C "$R" add -A
git -C "$R" commit -qm base
cd "$R"
"$AIRSPACE_BIN" init --gemini > /dev/null
# the recorder: keep the input, then answer as airspace does
cat > "$TMP/recorder" << 'SH'
#!/bin/sh
d=$1
shift
t=$(mktemp "$d/in.XXXXXX")
cat > "$t"
"$@" < "$t"
SH
chmod +x "$TMP/recorder"
mkdir "$TMP/rec"
jq --arg r "$TMP/recorder $TMP/rec " \
    '.hooks |= map_values(map(.hooks |= map(.command = $r + .command)))' \
    .gemini/settings.json > "$TMP/settings.json"
cp "$TMP/settings.json" .gemini/settings.json
git add .gemini
git commit -qm "airspace for Gemini"
WT=$("$AIRSPACE_BIN" agent new alice 2> /dev/null)
gemini_trust "$WT"
"$AIRSPACE_BIN" status > /dev/null
trap '"$AIRSPACE_BIN" stop > /dev/null 2>&1 || true; rm -rf "$TMP"' EXIT
cat > "$TMP/script.json" << 'JSON'
{"steps": [
  {"tool": "write_file", "input": {"file_path": "b.txt", "content": "new file\n"}},
  {"tool": "replace", "input": {"file_path": "a.txt", "instruction": "upper-case line 3",
    "old_string": "line3\n", "new_string": "LINE3\n"}},
  {"tool": "run_shell_command", "input": {"command": "echo hi > c.txt", "description": "write c.txt"}},
  {"text": "done"}]}
JSON
gemini_run rec "$WT" "$TMP/script.json" -p "Change a.txt, make b.txt and c.txt" --approval-mode yolo
[ "$GEMINI_RC" = 0 ] || { echo "the session failed ($GEMINI_RC)" >&2; tail "$TMP/rec.err" >&2; exit 1; }
sleep 1 # SessionEnd is not waited for
mkdir -p "$OUT"
rm -f "$OUT"/*.json
WTR=$(realpath "$WT")
for f in $(ls -tr "$TMP"/rec/in.*); do
    ev=$(jq -r .hook_event_name "$f")
    tool=$(jq -r '.tool_name // empty' "$f")
    name=$ev
    [ ! -e "$OUT/$ev.json" ] || [ "$tool" = write_file ] || name=$ev${tool:+.$tool}
    [ -e "$OUT/$name.json" ] && continue
    sid=$(jq -r .session_id "$f")
    s8=$(printf %s "$sid" | cut -c1-8)
    # paths, ids and times are this machine's and this run's
    jq --arg wt "$WTR" --arg home "$HOME" --arg sid "$sid" --arg s8 "$s8" '
        walk(if type == "string" then
            gsub($wt; "<WORKTREE>") | gsub($home; "<HOME>") | gsub($sid; "<SESSION_ID>")
            | gsub("session-[0-9T-]+-" + $s8; "session-<DATE>-<SESSION8>")
            | gsub("PGID: [0-9]+"; "PGID: <PGID>")
            | gsub("crew update for gemini-" + $s8; "crew update for gemini-<SESSION8>")
          else . end)
        | .timestamp = "<TIMESTAMP>"' "$f" > "$OUT/$name.json"
done
ls "$OUT"
