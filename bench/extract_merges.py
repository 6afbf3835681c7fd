#!/usr/bin/env python3
"""extract_merges.py - merge records (data/merges/README.md schema 1) from a
git repository, for `airspace replay --records`.

    bench/extract_merges.py --git-dir DIR --ref SHA --repo-name OWNER/NAME
        [--max N] [--max-side 200] [--max-files 2000] [--jobs 2]
        --out FILE.jsonl.gz [--stats FILE.json]

Newest merges first (committer date order) until N are kept.  Each record
is one two-parent merge M = (P1, P2) with its single merge base B; the two
sides are B..P1 and B..P2.  Skipped and counted: octopus merges,
criss-cross merges (several merge bases), merges without a base, empty
sides (a parent is the base), sides over --max-side commits or over
--max-files changed files.

Per side: the commits oldest first (`git log --reverse --date-order
Pi ^B`, with their --name-status -M file lists; merge commits list none),
the full working set `git diff -U0 -M B Pi`, and the half-way working set:
with n commits, k = ceil(n/2), H = the first commit on Pi's first-parent
chain (from B upward) whose history inside the side holds >= k commits;
`git diff -U0 -M B H`, or, when H does not contain B, the diff from B to
`git merge-tree --write-tree B H` (half.replayed_on_base; paths that
merge leaves conflicted counted in half.replay_conflicts).
Label: `git merge-tree --write-tree -z --name-only P1 P2`, exit 1 =
conflicted, with the conflicted paths.  A merge whose objects the
repository lacks (a snapshot without its largest blobs) is skipped as
missing_object.

--steps S adds to each side `steps`: the working sets after ceil(n j / S)
of its n commits, j = 1 .. S-1 (found as the half-way one is; a count
reached only at the tip, or one already recorded, is left out), each {commit, k, n_included, ct, ws}:
what `airspace replay --records` scores, besides half-way and the end, to
time the first warnings.  --only-conflicted keeps conflicted merges only
(lead times are measured on those); --only FILE processes only the merges
listed (e.g. the conflicted ones of an earlier extraction).

Every git command runs without user or system configuration, with
diff.renames=true and the tip's .mailmap.  Only the standard library.
"""
import argparse
import gzip
import hashlib
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor

ENV = None
GIT = None


def git(args, ok=(0,), binary=False):
    p = subprocess.run(GIT + args, env=ENV, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode not in ok:
        raise RuntimeError("git %s: %s" % (" ".join(args[:3]),
                                           p.stderr.decode(errors="replace")))
    out = p.stdout if binary else p.stdout.decode("utf-8", "surrogateescape")
    return p.returncode, out


def unquote(s):
    """A path as git prints it (core.quotePath=false still quotes control
    characters, quotes and backslashes)."""
    if not s.startswith('"'):
        return s
    body = s[1:-1]
    raw = bytearray()
    i = 0
    esc = {"n": 10, "t": 9, '"': 34, "\\": 92, "a": 7, "b": 8, "f": 12,
           "r": 13, "v": 11}
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            d = body[i + 1]
            if d in "01234567":
                raw.append(int(body[i + 1:i + 4], 8))
                i += 4
                continue
            raw.append(esc.get(d, ord(d)))
            i += 2
            continue
        raw.extend(c.encode("utf-8", "surrogateescape"))
        i += 1
    return raw.decode("utf-8", "surrogateescape")


def strip_prefix(p, pre):
    p = unquote(p)
    return p[len(pre):] if p.startswith(pre) else p


def parse_diff(text):
    """Working set from `git diff -U0 -M` output: file entries with hunks
    [start, end, added] in base coordinates."""
    files = []
    cur = None
    for line in text.split("\n"):
        if line.startswith("diff --git "):
            cur = {"status": "M", "hunks": [], "_a": None, "_b": None,
                   "_line": line}
            files.append(cur)
            continue
        if cur is None:
            continue
        if line.startswith("@@ "):
            old = line.split(" ")[1][1:]
            new = line.split(" ")[2][1:]
            s, _, ln = old.partition(",")
            s, ln = int(s), int(ln) if ln else 1
            _, _, nl = new.partition(",")
            added = int(nl) if nl else 1
            if ln == 0:  # pure insertion after base line s
                cur["hunks"].append([s + 1, s + 1, added])
            else:
                cur["hunks"].append([s, s + ln, added])
        elif line.startswith("new file mode"):
            cur["status"] = "A"
        elif line.startswith("deleted file mode"):
            cur["status"] = "D"
        elif line.startswith("rename from "):
            cur["status"] = "R"
            cur["old_path"] = unquote(line[len("rename from "):])
        elif line.startswith("rename to "):
            cur["_b"] = unquote(line[len("rename to "):])
        elif line.startswith("copy from "):
            cur["status"] = "C"
            cur["old_path"] = unquote(line[len("copy from "):])
        elif line.startswith("copy to "):
            cur["_b"] = unquote(line[len("copy to "):])
        elif line.startswith("similarity index "):
            cur["sim"] = int(line[len("similarity index "):].rstrip("%"))
        elif line.startswith("--- "):
            if line[4:] != "/dev/null":
                cur["_a"] = strip_prefix(line[4:], "a/")
        elif line.startswith("+++ "):
            if line[4:] != "/dev/null":
                cur["_b"] = strip_prefix(line[4:], "b/")
        elif line.startswith("Binary files "):
            cur["binary"] = True
    out = []
    for f in files:
        path = f.pop("_b") or f.pop("_a", None)
        f.pop("_a", None)
        hdr = f.pop("_line")
        if not path:
            # mode change only: "diff --git a/X b/X"
            rest = hdr[len("diff --git "):]
            half = len(rest) // 2
            path = strip_prefix(rest[half + 1:], "b/") if rest[half] == " " \
                else strip_prefix(rest.split(" b/", 1)[-1], "")
            f["status"] = "T" if f["status"] == "M" and not f["hunks"] \
                else f["status"]
        if f.get("binary"):
            f["hunks"] = []
        f["path"] = path
        out.append(f)
    return out


def side_commits(p, b):
    """Commits of B..P oldest first, with parents, times, author, files."""
    _, text = git(["log", "--reverse", "--date-order", "-M",
                   "--name-status", "-z", "--format=%x01%H %P%x02%at %ct %aE",
                   p, "^" + b])
    commits = []
    for chunk in text.split("\x01")[1:]:
        head, _, rest = chunk.partition("\x02")
        ids = head.split()
        meta, _, files_part = rest.partition("\x00")
        # with -z the format line ends at the first NUL ("\n" before files)
        meta = meta.strip()
        at, ct, email = meta.split(" ", 2) if meta.count(" ") >= 2 else (
            meta.split(" ") + ["", ""])[:3]
        email = email.split("\n")[0]
        toks = [t for t in files_part.lstrip("\n").split("\x00")]
        files = []
        i = 0
        while i < len(toks):
            st = toks[i].strip("\n")
            if not st:
                i += 1
                continue
            letter = st[0]
            if letter in "RC":
                files.append([letter, toks[i + 2], toks[i + 1]])
                i += 3
            else:
                files.append([letter, toks[i + 1]])
                i += 2
        c = {"sha": ids[0], "parents": ids[1:], "at": int(at), "ct": int(ct),
             "author": hashlib.sha1(email.lower().encode()).hexdigest()[:16],
             "files": files}
        if len(ids) > 2:
            c["merge"] = True
            c["files"] = []
        commits.append(c)
    return commits


def is_ancestor(a, b):
    rc, _ = git(["merge-base", "--is-ancestor", a, b], ok=(0, 1))
    return rc == 0


def half_ws(p, b, commits, k=None):
    n = len(commits)
    k = (n + 1) // 2 if k is None else k
    inside = {c["sha"]: c["parents"] for c in commits}
    # first-parent chain of P down to the side's edge, then oldest first
    chain = []
    cur = p
    while cur in inside:
        chain.append(cur)
        ps = inside[cur]
        cur = ps[0] if ps else None
    chain.reverse()
    h = chain[-1]
    count = n
    for c in chain:
        seen = set()
        stack = [c]
        while stack:
            x = stack.pop()
            if x in seen or x not in inside:
                continue
            seen.add(x)
            stack.extend(inside[x])
        if len(seen) >= k:
            h, count = c, len(seen)
            break
    ct = next(c["ct"] for c in commits if c["sha"] == h)
    half = {"commit": h, "k": k, "n_included": count, "ct": ct}
    if is_ancestor(b, h):
        _, d = git(["diff", "-U0", "-M", "--no-color", b, h])
    else:
        rc, out = git(["merge-tree", "--write-tree", "--name-only", "-z",
                       b, h], ok=(0, 1))
        parts = out.split("\x00")
        tree = parts[0]
        half["replayed_on_base"] = True
        half["replay_conflicts"] = len([x for x in parts[1:] if x]) \
            if rc == 1 else 0
        if rc == 1:
            # conflicted paths, then an empty entry, then messages
            conf = []
            for x in parts[1:]:
                if not x:
                    break
                conf.append(x)
            half["replay_conflicts"] = len(conf)
        _, d = git(["diff", "-U0", "-M", "--no-color", b, tree])
    half["ws"] = parse_diff(d) if h != p else None
    return half


def one_merge(m, parents, mainline, args):
    """One record, or a skip reason (str)."""
    if len(parents) != 2:
        return "octopus"
    p1, p2 = parents
    if args.only_conflicted:
        rc, _ = git(["merge-tree", "--write-tree", "--name-only", "-z", p1,
                     p2], ok=(0, 1))
        if rc == 0:
            return "clean_not_wanted"
    rc, out = git(["merge-base", "--all", p1, p2], ok=(0, 1))
    bases = out.split()
    if not bases:
        return "no_merge_base"
    if len(bases) > 1:
        return "criss_cross"
    b = bases[0]
    if b in (p1, p2):
        return "empty_side"
    sides = []
    for p in (p1, p2):
        _, cnt = git(["rev-list", "--count", p, "^" + b])
        if int(cnt) > args.max_side:
            return "side_too_many_commits"
    for p in (p1, p2):
        commits = side_commits(p, b)
        _, d = git(["diff", "-U0", "-M", "--no-color", b, p])
        ws = parse_diff(d)
        if len(ws) > args.max_files:
            return "side_too_many_files"
        half = half_ws(p, b, commits)
        if half["ws"] is None:
            half["ws"] = ws
        steps = []
        n = len(commits)
        for j in range(1, args.steps):
            k = -(-n * j // args.steps)  # ceil(n j / steps)
            if k >= n:
                continue
            st = half if k == half["k"] else half_ws(p, b, commits, k)
            if st["n_included"] >= n or (
                    steps and steps[-1]["n_included"] == st["n_included"]):
                continue
            if st["ws"] is None:
                st["ws"] = ws
            steps.append({kk: st[kk] for kk in
                          ("commit", "k", "n_included", "ct", "ws")})
        sides.append({"tip": p, "n_commits": len(commits),
                      "n_merges": sum(1 for c in commits if c.get("merge")),
                      "commits": commits, "ws": ws, "half": half})
        if args.steps > 1:
            sides[-1]["steps"] = steps
    rc, out = git(["merge-tree", "--write-tree", "--name-only", "-z", p1, p2],
                  ok=(0, 1))
    parts = out.split("\x00")
    conflicted = []
    if rc == 1:
        for x in parts[1:]:
            if not x:
                break
            conflicted.append(x)
    _, meta = git(["show", "-s", "--format=%T %at %ct", m])
    tree, at, ct = meta.split()
    return {"schema": 1, "repo": args.repo_name, "merge": m,
            "merge_tree": tree, "merge_at": int(at), "merge_ct": int(ct),
            "parents": [p1, p2], "base": b, "criss_cross": False,
            "mainline": mainline, "sides": sides,
            "label": {"conflicted": rc == 1, "conflicted_paths": conflicted,
                      "auto_tree": parts[0]}}


def guarded(m, parents, mainline, args):
    """one_merge, with a merge whose objects the repository lacks (a
    snapshot without its largest blobs) skipped as missing_object."""
    try:
        return one_merge(m, parents, mainline, args)
    except RuntimeError as e:
        if "unable to read" in str(e) or "bad object" in str(e) or \
                "missing" in str(e):
            return "missing_object"
        raise


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--git-dir", required=True)
    ap.add_argument("--ref", required=True)
    ap.add_argument("--repo-name", required=True)
    ap.add_argument("--max", type=int, default=1000)
    ap.add_argument("--max-side", type=int, default=200)
    ap.add_argument("--max-files", type=int, default=2000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--steps", type=int, default=0,
                    help="also record each side's working set after "
                    "ceil(n j / STEPS) commits, j = 1 .. STEPS-1 (steps)")
    ap.add_argument("--only", help="a file of merge ids, one a line: "
                    "process only these merges")
    ap.add_argument("--only-conflicted", action="store_true",
                    help="keep conflicted merges only (for lead times)")
    ap.add_argument("--out", required=True)
    ap.add_argument("--stats")
    args = ap.parse_args()

    global ENV, GIT
    home = tempfile.mkdtemp(prefix="extract-home-")
    ENV = dict(os.environ, HOME=home, GIT_CONFIG_NOSYSTEM="1",
               GIT_CONFIG_GLOBAL="/dev/null", LC_ALL="C")
    ENV.pop("GIT_DIR", None)
    GIT = ["git", "--git-dir", args.git_dir, "-c", "diff.renames=true",
           "-c", "core.quotePath=false", "-c",
           "mailmap.blob=%s:.mailmap" % args.ref, "-c", "log.mailmap=true"]
    t0 = time.time()
    _, tip = git(["rev-parse", args.ref + "^{commit}"])
    tip = tip.strip()
    _, fp = git(["rev-list", "--first-parent", tip])
    mainline = set(fp.split())
    _, lst = git(["rev-list", "--date-order", "--merges", "--parents", tip])
    merges = [l.split() for l in lst.splitlines() if l]
    if args.only:
        with open(args.only) as f:
            want = set(l.strip() for l in f if l.strip())
        merges = [m for m in merges if m[0] in want]
    stats = {"repo": args.repo_name, "ref": args.ref, "tip": tip,
             "max": args.max, "max_side": args.max_side,
             "git_version": git(["version"])[1].strip(), "kept": 0,
             "conflicted": 0, "merges_processed": 0, "skipped": {}}
    kept = []
    batch = max(args.jobs * 4, 8)
    with ThreadPoolExecutor(max_workers=args.jobs) as ex:
        i = 0
        while i < len(merges) and len(kept) < args.max:
            chunk = merges[i:i + batch]
            i += batch
            res = list(ex.map(lambda x: guarded(
                x[0], x[1:], x[0] in mainline, args), chunk))
            for r in res:
                if len(kept) >= args.max:
                    break
                stats["merges_processed"] += 1
                if isinstance(r, str):
                    stats["skipped"][r] = stats["skipped"].get(r, 0) + 1
                    continue
                kept.append(r)
                stats["conflicted"] += r["label"]["conflicted"]
            print("%s: %d processed, %d kept, %d conflicted" % (
                args.repo_name, stats["merges_processed"], len(kept),
                stats["conflicted"]), file=sys.stderr)
    stats["kept"] = len(kept)
    stats["mainline_kept"] = sum(1 for r in kept if r["mainline"])
    stats["mainline_conflicted"] = sum(
        1 for r in kept if r["mainline"] and r["label"]["conflicted"])
    if kept:
        stats["span"] = [min(r["merge_ct"] for r in kept),
                         max(r["merge_ct"] for r in kept)]
    stats["seconds"] = round(time.time() - t0, 1)
    with gzip.open(args.out, "wt", encoding="utf-8",
                   errors="surrogateescape") as f:
        for r in kept:
            f.write(json.dumps(r, separators=(",", ":"),
                               ensure_ascii=False) + "\n")
    if args.stats:
        with open(args.stats, "w") as f:
            json.dump(stats, f, indent=1, sort_keys=True)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
