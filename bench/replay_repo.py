#!/usr/bin/env python3
"""replay_repo.py DIR [MERGES] [FILES] - write a git repository for timing
`airspace replay`: FILES C sources (each including the header of the file
before it in its directory), then MERGES times: a branch with one or two
commits, a mainline commit, and the merge of the two. About one merge in
ten changes the same line on both sides (a textual conflict); the merge
commit's tree takes the mainline's side there. Deterministic (seeded)."""
import os, random, subprocess, sys

out = sys.argv[1]
merges = int(sys.argv[2]) if len(sys.argv) > 2 else 2500
nfiles = int(sys.argv[3]) if len(sys.argv) > 3 else 3000
rnd = random.Random(7)
LINES = 40
files = {}
for i in range(nfiles):
    d = i // 100
    prev = f'#include "f{i - 1:04d}.h"\n' if i % 100 else ""
    body = [f"int fn_{i}_{k}(int x) {{ return x + {k}; }}\n" for k in range(LINES)]
    files[f"src/d{d:02d}/f{i:04d}.c"] = [f'#include "f{i:04d}.h"\n', prev] + body
    files[f"src/d{d:02d}/f{i:04d}.h"] = [f"int fn_{i}_0(int x);\n"]

cmds = []
t = 1700000000
mark = 0


def data(s):
    b = s.encode()
    return b"data %d\n" % len(b) + b + b"\n"


def commit(ref, msg, changes, parents=(), when=None):
    global mark, t
    mark += 1
    t += 60
    who = b"bench <bench@example.invalid> %d +0000" % (when or t)
    s = b"commit %s\nmark :%d\nauthor %s\ncommitter %s\n" % (
        ref.encode(), mark, who, who)
    s += data(msg)
    for i, p in enumerate(parents):
        s += (b"from :%d\n" if i == 0 else b"merge :%d\n") % p
    for path, lines in changes.items():
        s += b"M 100644 inline %s\n" % path.encode() + data("".join(lines))
    cmds.append(s)
    return mark


base = commit("refs/heads/main", "base", files)
main = base
paths = [p for p in files if p.endswith(".c")]
for m in range(merges):
    br = dict()
    a = rnd.choice(paths)
    la = rnd.randrange(2, LINES)
    conflict = rnd.random() < 0.1
    b = a if conflict else rnd.choice(paths)
    lb = la if conflict else rnd.randrange(2, LINES)
    # branch: one or two commits on file a
    tip = main
    for k in range(rnd.choice((1, 2))):
        ch = list(files[a])
        ch[la] = f"int fn_branch_{m}_{k}(int x) {{ return x * {k + 2}; }}\n"
        tip = commit(f"refs/heads/b{m % 50}", f"branch {m}.{k}", {a: ch}, [tip])
        br[a] = ch
    # mainline: one commit on file b
    ch = list(files[b])
    ch[lb] = f"int fn_main_{m}(int x) {{ return x - 1; }}\n"
    main = commit("refs/heads/main", f"main {m}", {b: ch}, [main])
    files[b] = ch
    # the merge: the branch's files, except where both changed one
    merged = {p: l for p, l in br.items() if p != b}
    main = commit("refs/heads/main", f"merge {m}", merged, [main, tip])
    files.update(merged)

os.makedirs(out, exist_ok=True)
subprocess.run(["git", "init", "-q", "-b", "main", out], check=True)
p = subprocess.Popen(["git", "fast-import", "--quiet"], cwd=out,
    stdin=subprocess.PIPE)
p.stdin.write(b"".join(cmds))
p.stdin.close()
if p.wait():
    sys.exit("fast-import failed")
subprocess.run(["git", "reset", "-q", "--hard", "main"], cwd=out, check=True)
print(f"{out}: {nfiles * 2} files, {merges} merges")
