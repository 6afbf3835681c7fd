#!/usr/bin/env python3
"""merge_differential.py - airspace's merge verdict against git's, on random
histories.

Each case builds a repository (a base of five files in three directories,
then one to three random operations per commit, one or two commits on each
of two branches: line edits, appends, new files, deletions, file renames,
directory renames, mode changes; with --more-kinds also a directory
replaced by a file and a file by a directory, binary contents and
symbolic links), merges the branches, and compares what
`airspace replay` says of that merge with `git merge-tree --write-tree
--name-only`: the label always, the conflicted paths too. It also counts
the conflicted merges the replay did not have in resolution at the end
(the merge channel on the two tips): recall at the end.

    merge_differential.py [--labels-only] [--more-kinds] AIRSPACE_BIN WORKDIR
                          FIRST_SEED LAST_SEED

Prints one line per disagreement and a summary; exits 1 on any label
disagreement, any conflicted merge not in resolution at the end, or a path
disagreement unless --labels-only.
"""
import json
import os
import random
import shutil
import subprocess
import sys

BASE_FILES = ["a/f1.txt", "a/f2.txt", "a/s/g.txt", "b/h.txt", "top.txt"]


def git(cwd, *args, check=True):
    r = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)}: {r.stderr.strip()}")
    return r


def tracked(d):
    return sorted(git(d, "ls-files").stdout.split())


KINDS = ["edit", "edit", "edit", "append", "add", "delete", "rename",
         "dirrename", "chmod"]
MORE_KINDS = ["dirtofile", "filetodir", "binary", "symlink"]


def operate(rng, d, tag, kinds):
    try:
        operate1(rng, d, tag, rng.choice(kinds))
    except OSError:
        pass  # an operation the tree at hand does not allow: none
    git(d, "add", "-A")


def operate1(rng, d, tag, kind):
    files = tracked(d)
    dirs = sorted({os.path.dirname(f) for f in files} - {""})
    if kind in ("edit", "append") and files:
        f = os.path.join(d, rng.choice(files))
        if os.path.islink(f) or not os.path.isfile(f):
            return
        try:
            lines = open(f).read().split("\n")
        except UnicodeDecodeError:
            return
        at = rng.randrange(len(lines)) if kind == "edit" else len(lines) - 1
        new = [f"{tag}{rng.randint(0, 9)}-{j}" for j in range(rng.randint(1, 3))]
        lines[at:at + rng.randint(0, 2)] = new
        with open(f, "w") as fh:
            fh.write("\n".join(lines))
    elif kind == "add":
        where = rng.choice(dirs + ["", "x"])
        path = os.path.join(where, f"n{rng.randint(0, 3)}.txt")
        os.makedirs(os.path.join(d, where), exist_ok=True)
        with open(os.path.join(d, path), "w") as fh:
            fh.write("".join(f"{tag}add{j}\n" for j in range(rng.randint(1, 5))))
    elif kind == "delete" and files:
        git(d, "rm", "-qf", rng.choice(files))
    elif kind == "rename" and files:
        f = rng.choice(files)
        where = rng.choice(dirs + ["", "y"])
        path = os.path.join(where, f"r{rng.randint(0, 3)}_{os.path.basename(f)}")
        if not os.path.exists(os.path.join(d, path)):
            os.makedirs(os.path.join(d, where), exist_ok=True)
            git(d, "mv", f, path)
    elif kind == "dirrename" and dirs:
        src = rng.choice(dirs)
        dst = rng.choice(["z", "w/" + os.path.basename(src), src + "2"])
        if not os.path.exists(os.path.join(d, dst)):
            os.makedirs(os.path.dirname(os.path.join(d, dst)) or d, exist_ok=True)
            git(d, "mv", src, dst, check=False)
    elif kind == "chmod" and files:
        f = os.path.join(d, rng.choice(files))
        if os.path.isfile(f) and not os.path.islink(f):
            os.chmod(f, 0o755)
    elif kind == "dirtofile" and dirs:
        where = rng.choice(dirs)
        git(d, "rm", "-rqf", where)
        shutil.rmtree(os.path.join(d, where), ignore_errors=True)
        with open(os.path.join(d, where), "w") as fh:
            fh.write(f"{tag} file where a directory was\n")
    elif kind == "filetodir" and files:
        f = rng.choice(files)
        git(d, "rm", "-qf", f)
        os.makedirs(os.path.join(d, f), exist_ok=True)
        with open(os.path.join(d, f, "inner.txt"), "w") as fh:
            fh.write(f"{tag} inner\n")
    elif kind == "binary" and files:
        with open(os.path.join(d, rng.choice(files)), "wb") as fh:
            fh.write(bytes([0, 1, 2, rng.randint(0, 255)]) + tag.encode())
    elif kind == "symlink" and files:
        f = os.path.join(d, rng.choice(files))
        os.remove(f)
        os.symlink(f"target-{tag}{rng.randint(0, 2)}", f)


def build(seed, d, kinds):
    rng = random.Random(seed)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    git(d, "-c", "init.defaultBranch=main", "init", "-q")
    for f in BASE_FILES:
        os.makedirs(os.path.join(d, os.path.dirname(f)), exist_ok=True)
        with open(os.path.join(d, f), "w") as fh:
            fh.write("".join(f"{f}-line{j}\n" for j in range(12)))
    git(d, "add", "-A")
    git(d, "commit", "-qm", "base")
    for side in "AB":
        git(d, "checkout", "-q", "-b", side, "main")
        for c in range(rng.randint(1, 2)):
            for _ in range(rng.randint(1, 3)):
                operate(rng, d, side, kinds)
            git(d, "commit", "-q", "--allow-empty", "-m", f"{side}{c}")
    git(d, "checkout", "-q", "-b", "m", "A")
    if git(d, "merge", "-q", "--no-ff", "-m", "M", "B", check=False).returncode:
        git(d, "add", "-A")
        git(d, "commit", "-q", "-m", "M")


def git_verdict(d):
    r = git(d, "merge-tree", "--write-tree", "--name-only", "A", "B", check=False)
    if r.returncode not in (0, 1):
        raise RuntimeError(f"git merge-tree: {r.stderr.strip()}")
    paths = []
    for line in r.stdout.split("\n")[1:]:
        if not line:
            break
        # git moves the file of a file/directory conflict aside as
        # "path~side"; this merge lists it as "path"
        if line.endswith(("~A", "~B")):
            line = line[:-2]
        paths.append(line)
    return r.returncode == 1, sorted(set(paths))


def airspace_verdict(binary, d):
    r = subprocess.run([binary, "replay", "--json", "--per-merge"], cwd=d,
                       capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"airspace replay: {r.stderr.strip()}")
    merges = json.loads(r.stdout)["merges"]
    if not merges:
        return None  # git could not commit the merge: nothing to replay
    if len(merges) != 1:
        raise RuntimeError(f"expected one merge replayed, got {len(merges)}")
    m = merges[0]
    return m["conflicted"], sorted(m["conflicted_paths"]), m["end"]["level"]


def main():
    flags = {a for a in sys.argv[1:] if a.startswith("--")}
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    labels_only = "--labels-only" in flags
    kinds = KINDS + (MORE_KINDS if "--more-kinds" in flags else [])
    binary, work, first, last = args[0], args[1], int(args[2]), int(args[3])
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid",
           "GIT_AUTHOR_DATE": "2026-01-01T10:00:00Z",
           "GIT_COMMITTER_DATE": "2026-01-01T10:00:00Z"}
    os.environ.update(env)
    n = conflicted = label_bad = path_bad = missed = unmerged = 0
    for seed in range(first, last + 1):
        d = os.path.join(work, f"case{seed}")
        build(seed, d, kinds)
        want, want_paths = git_verdict(d)
        verdict = airspace_verdict(binary, d)
        if verdict is None:
            unmerged += 1
            shutil.rmtree(d)
            continue
        got, got_paths, end_level = verdict
        n += 1
        conflicted += want
        if want and end_level != "resolution":
            missed += 1
            print(f"seed {seed}: conflicted, but {end_level} at the end")
        if got != want:
            label_bad += 1
            print(f"seed {seed}: label {got}, git says {want}")
        elif got_paths != want_paths:
            path_bad += 1
            print(f"seed {seed}: paths {got_paths}, git lists {want_paths}")
        shutil.rmtree(d)
    print(f"{n} merges ({conflicted} conflicted): labels agree on "
          f"{n - label_bad}, paths on {n - label_bad - path_bad}; "
          f"in resolution at the end: {conflicted - missed} of {conflicted}"
          + (f" ({unmerged} histories without a merge commit)" if unmerged
             else ""))
    sys.exit(1 if label_bad or missed or (path_bad and not labels_only)
             else 0)


if __name__ == "__main__":
    main()
