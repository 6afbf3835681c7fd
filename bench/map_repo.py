#!/usr/bin/env python3
"""map_repo.py DIR [FILES] - write a repository-shaped tree of FILES small
files (default 20 000) into DIR for the map's benchmark (bench/map.sh).

Deterministic (seeded). Twelve top directories, eight below each and four
below those; C, Python, TypeScript, Go, Markdown and JSON files of a few
lines, the source ones importing two neighbours, so the graph has edges
and the layout's smoothing has work, while the first index stays short.
"""
import os
import random
import sys

root = sys.argv[1]
total = int(sys.argv[2]) if len(sys.argv) > 2 else 20000
rng = random.Random(20261125)
tops = ["src", "lib", "app", "tests", "docs", "web", "tools", "pkg", "api",
        "core", "ui", "data"]
dirs = [f"{t}/m{a}/p{b}" for t in tops for a in range(8) for b in range(4)]
exts = [".c", ".py", ".ts", ".go", ".md", ".json"]
files = []
for i in range(total):
    d = dirs[i % len(dirs)]
    files.append(f"{d}/f{i}{exts[rng.randrange(len(exts))]}")
for i, f in enumerate(files):
    path = os.path.join(root, f)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    ext = os.path.splitext(f)[1]
    peers = [files[(i + len(dirs) * k) % total] for k in (1, 2)]
    with open(path, "w") as out:
        if ext == ".c":
            out.write("".join(f'#include "{os.path.relpath(p, os.path.dirname(f))}"\n'
                              for p in peers if p.endswith(".c")))
            out.write(f"int\nf{i}(int x)\n{{\n    return x + {i};\n}}\n")
        elif ext == ".py":
            out.write(f"def f{i}(x):\n    return x + {i}\n")
        elif ext == ".ts":
            out.write("".join(f'import "./{os.path.basename(p)[:-3]}";\n'
                              for p in peers if p.endswith(".ts") and os.path.dirname(p) == os.path.dirname(f)))
            out.write(f"export const f{i} = (x: number) => x + {i};\n")
        elif ext == ".go":
            out.write(f"package p\n\nfunc F{i}(x int) int {{ return x + {i} }}\n")
        elif ext == ".md":
            out.write(f"# note {i}\n\nline one\nline two\n")
        else:
            out.write(f'{{"id": {i}}}\n')
print(len(files))
