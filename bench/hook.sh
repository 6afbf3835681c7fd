#!/bin/sh
# hook.sh - the latency of one PreToolUse hook call end to end (process
# start, daemon round trip, decision), N calls, p50 and p99, next to
# spawning /bin/true the same way in the same run. With BASE=PATH (an
# airspace-hook built from an earlier commit), that one too, interleaved
# with this build's, for a ratio in one run.
set -eu
cd "$(dirname "$0")/.."
cmake --build build/release > /dev/null
B="$(pwd)/build/release"
N=${1:-500}
T=$(mktemp -d)
git -c init.defaultBranch=main init -q "$T/r"
echo x > "$T/r/x.c"
git -C "$T/r" add -A
git -C "$T/r" -c user.name=b -c user.email=b@b commit -qm x
(cd "$T/r" && exec "$B/airspace" serve --log-stderr 2> "$T/log") &
pid=$!
until curl -sf --unix-socket "$T/r/.git/airspace/sock" http://a/v1/status > /dev/null 2>&1; do sleep 0.05; done
IN="{\"session_id\":\"bench0001\",\"cwd\":\"$T/r\",\"hook_event_name\":\"PreToolUse\",\"tool_name\":\"Edit\",\"tool_input\":{\"file_path\":\"$T/r/x.c\",\"old_string\":\"x\",\"new_string\":\"y\"}}"
printf '%s' "$IN" > "$T/in.json"
python3 - "$B/airspace" "$B/airspace-hook" "$T/in.json" "$N" "${BASE:-}" <<'PY'
import subprocess, sys, time
exe, lean, inp, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
base = sys.argv[5]
data = open(inp, "rb").read()
def run(argv, stdin):
    t = []
    for _ in range(n):
        t0 = time.perf_counter()
        subprocess.run(argv, input=stdin, stdout=subprocess.DEVNULL, check=False)
        t.append((time.perf_counter() - t0) * 1000)
    t.sort()
    return t[n // 2], t[n * 99 // 100]
run([exe, "hook", "claude-code"], data)  # warm up (registers the agent)
b50, b99 = run(["/bin/true"], b"")
h50, h99 = run([exe, "hook", "claude-code"], data)
l50, l99 = run([lean, "claude-code"], data)
print(f"bench=hook true_p50_ms={b50:.2f} true_p99_ms={b99:.2f}")
print(f"bench=hook binary=airspace-hook calls={n} p50_ms={l50:.2f} "
      f"p99_ms={l99:.2f} ratio_p50={l50 / b50:.2f}")
print(f"bench=hook binary=airspace calls={n} p50_ms={h50:.2f} "
      f"p99_ms={h99:.2f} ratio_p50={h50 / b50:.2f}")
if base:
    # this build against the earlier one, alternating call by call
    tn, tb = [], []
    for _ in range(n):
        for argv, acc in (([lean, "claude-code"], tn), ([base, "claude-code"], tb)):
            t0 = time.perf_counter()
            subprocess.run(argv, input=data, stdout=subprocess.DEVNULL, check=False)
            acc.append((time.perf_counter() - t0) * 1000)
    tn.sort()
    tb.sort()
    print(f"bench=hook binary=airspace-hook base_p50_ms={tb[n // 2]:.2f} "
          f"this_p50_ms={tn[n // 2]:.2f} this_vs_base={tn[n // 2] / tb[n // 2]:.2f} "
          f"base_p99_ms={tb[n * 99 // 100]:.2f} this_p99_ms={tn[n * 99 // 100]:.2f}")
PY
kill $pid
wait $pid 2> /dev/null || true
rm -rf "$T"
