#!/usr/bin/env python3
"""records_repo.py - rebuild recorded merges as a git repository.

    records_repo.py RECORDS.jsonl[.gz] OUT_DIR [--max N] [--conflicted-first]

Each record of ../shared/data/merges (format in its README) becomes, on one
first-parent chain:

    base_k   every base path of the merge set to synthesized content
             (one line "k:path:i" per line, as many lines as the recorded
             hunks need), paths the sides add removed
    side 1   its half-way working set, then its full one, as commits at the
             recorded committer times, on the chain
    side 2   the same on a branch from base_k
    merge_k  parents side 1, side 2 (tree: side 1's)

Hunks [start, end, added] replace base lines start..end-1 with `added`
lines unique to the side; statuses A, D, R (old path moved, hunks applied),
C (copy), T (a symlink) and binary files follow the record. The paths, the
commit graph of each merge, the times and the hunk positions are the
recorded ones; file contents are synthesized, so a merge conflicts when the
sides' recorded hunks overlap or touch in a shared file (or on a structural
conflict), which is close to, not always, git's verdict on the real
contents. Built with `git fast-import`.
"""
import gzip
import json
import subprocess
import sys


def load(path, limit, conflicted_first):
    opener = gzip.open if path.endswith(".gz") else open
    recs = []
    with opener(path, "rt") as fh:
        for line in fh:
            if line.strip():
                recs.append(json.loads(line))
    if conflicted_first:
        recs.sort(key=lambda r: not r["label"]["conflicted"])
    if limit:
        recs = recs[:limit]
    recs.sort(key=lambda r: r["merge_ct"])
    return recs


def base_path(e):
    return e.get("old_path") or e["path"] if e["status"] in "RC" else e["path"]


class Builder:
    def __init__(self, out):
        self.out = out
        self.mark = 0

    def data(self, blob):
        self.out.write(b"data %d\n" % len(blob))
        self.out.write(blob)
        self.out.write(b"\n")

    def commit(self, ref, t, msg, parent=None, merge=None, ops=()):
        self.mark += 1
        w = self.out.write
        w(b"commit %s\nmark :%d\n" % (ref.encode(), self.mark))
        w(b"committer r <r@example.invalid> %d +0000\n" % t)
        self.data(msg.encode())
        if parent:
            w(b"from :%d\n" % parent)
        if merge:
            w(b"merge :%d\n" % merge)
        for op in ops:
            if op[0] == "D":
                w(b"D %s\n" % quote(op[1]))
            else:
                mode, path, blob = op[1], op[2], op[3]
                w(b"M %s inline %s\n" % (mode, quote(path)))
                self.data(blob)
        w(b"\n")
        return self.mark


def quote(path):
    if any(c in path for c in '"\n\\') or path.startswith(" "):
        return json.dumps(path).encode()
    return path.encode()


SLASH = (".js", ".mjs", ".cjs", ".ts", ".tsx", ".jsx", ".c", ".h", ".cc",
         ".cpp", ".hpp", ".go", ".rs", ".java", ".swift", ".kt", ".scss")
HASH = (".py", ".pyx", ".rb", ".sh", ".yml", ".yaml", ".toml", ".cfg")


def comment_of(path):
    """Synthesized lines are comments in the file's language, so the
    import-graph parser reads them as quickly as real code."""
    if path.endswith(SLASH):
        return "// "
    if path.endswith(HASH):
        return "# "
    return ""


def text(lines, path=""):
    c = comment_of(path)
    return ("".join(c + x + "\n" for x in lines)).encode()


def side_state(k, s, ws, base):
    """{path: None (deleted) | (mode, bytes)} after applying ws to base."""
    state = {}
    for e in ws:
        st, path = e["status"], e["path"]
        tag = "s%d.%d" % (s, k)
        if e.get("binary"):
            blob = b"\0bin " + ("%s:%s" % (tag, path)).encode()
            state[path] = None if st == "D" else (b"100644", blob)
            if st == "R" and e.get("old_path"):
                state[e["old_path"]] = None
            continue
        if st == "D":
            state[path] = None
            continue
        if st == "T":
            state[path] = (b"120000", ("target-%s" % tag).encode())
            continue
        if st == "A":
            n = sum(h[2] for h in e.get("hunks", [])) or 1
            state[path] = (b"100644",
                           text(["%s:%s:%d" % (tag, path, j) for j in range(n)],
                                path))
            continue
        src = base.get(e.get("old_path") or path) if st in "RC" else base.get(path)
        lines = list(src) if src is not None else []
        out, pos = [], 1
        for start, end, added in sorted(e.get("hunks", [])):
            start = max(start, 1)
            while pos < start and pos - 1 < len(lines):
                out.append(lines[pos - 1])
                pos += 1
            out.extend("%s:%s:%d:%d" % (tag, path, start, j) for j in range(added))
            pos = max(pos, end)
        out.extend(lines[pos - 1:])
        state[path] = (b"100644", text(out, path))
        if st == "R" and e.get("old_path"):
            state[e["old_path"]] = None
    return state


def main():
    args = sys.argv[1:]
    limit, cfirst = 0, False
    if "--max" in args:
        i = args.index("--max")
        limit = int(args[i + 1])
        del args[i:i + 2]
    if "--conflicted-first" in args:
        args.remove("--conflicted-first")
        cfirst = True
    if len(args) != 2:
        sys.exit(__doc__)
    src, outdir = args
    recs = load(src, limit, cfirst)
    subprocess.run(["git", "init", "-q", "-b", "main", outdir], check=True)
    fi = subprocess.Popen(["git", "fast-import", "--quiet"], cwd=outdir,
                          stdin=subprocess.PIPE)
    b = Builder(fi.stdin)
    prev = None
    index = []
    for k, r in enumerate(recs):
        sides = r["sides"]
        wss = [w for s in sides for w in (s["ws"], s["half"]["ws"])]
        # base content: every base path the sides touch, long enough
        need = {}
        added = set()
        for ws in wss:
            for e in ws:
                if e["status"] == "A":
                    added.add(e["path"])
                    continue
                if e["status"] in "RC":
                    added.add(e["path"])
                p = base_path(e)
                top = max([h[1] for h in e.get("hunks", [])] + [1])
                need[p] = max(need.get(p, 0), top + 3)
        base = {p: ["%d:%s:%d" % (k, p, i) for i in range(1, n + 1)]
                for p, n in need.items()}
        added -= set(base)
        t0 = min(c["ct"] for s in sides for c in s["commits"]) - 1
        ops = [("M", b"100644", p, text(v, p)) for p, v in sorted(base.items())]
        ops += [("D", p) for p in sorted(added)]
        bmark = b.commit("refs/heads/main", t0, "base %d" % k, prev, None, ops)
        tips = []
        for s, side in enumerate(sides):
            ref = "refs/heads/main" if s == 0 else "refs/heads/side"
            if s == 1:
                b.out.write(b"reset refs/heads/side\nfrom :%d\n\n" % bmark)
            parent = bmark
            tip_ct = max(c["ct"] for c in side["commits"])
            half = side["half"]
            steps = []
            if half["commit"] != side["tip"]:
                steps.append((half["ct"], half["ws"], "half"))
            steps.append((tip_ct, side["ws"], "tip"))
            cur = {}
            for t, ws, what in steps:
                state = side_state(k, s + 1, ws, base)
                ops = []
                for p in sorted(set(state) | set(cur)):
                    want = state.get(p, "base")
                    if want == "base":
                        want = (b"100644", text(base[p], p)) if p in base else None
                    ops.append(("D", p) if want is None else ("M", want[0], p, want[1]))
                parent = b.commit(ref, t, "side %d %s %d" % (s + 1, what, k),
                                  parent, None, ops)
                cur = state
            tips.append(parent)
        prev = b.commit("refs/heads/main", r["merge_ct"], "merge %d" % k,
                        tips[0], tips[1], [])
        index.append((k, r["merge"], r["label"]["conflicted"]))
    fi.stdin.close()
    if fi.wait():
        sys.exit("git fast-import failed")
    subprocess.run(["git", "checkout", "-q", "-f", "main"], cwd=outdir,
                   check=True)
    with open(outdir + "/.git/records-index.tsv", "w") as fh:
        for k, sha, c in index:
            fh.write("%d\t%s\t%s\n" % (k, sha, "true" if c else "false"))
    print("%s: %d merges rebuilt" % (outdir, len(recs)), file=sys.stderr)


if __name__ == "__main__":
    main()
