#!/usr/bin/env python3
"""index_repo.py DIR [FILES] - write a repository-shaped tree of FILES files
(default 10 000) into DIR for the first-index benchmark (bench/startup.sh).

Deterministic (seeded). About a third TypeScript, a quarter Python, a
quarter C (sources and headers), the rest documents and data; source files
of 100-700 lines that import a few modules of the tree and define and call
functions, so parsing, resolution and the symbol tables all have work.
"""
import os
import random
import sys

root = sys.argv[1]
total = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
rng = random.Random(20261201)
ndirs = max(1, total // 80)


def body_lines(lo, hi):
    return rng.randint(lo, hi)


def ts_file(d, i, peers):
    out = []
    for p in peers:
        out.append(f'import {{ fn_{p[0]}_{p[1]} }} from "../d{p[0]:03d}/m{p[1]:03d}";')
    out.append("")
    out.append(f"export class Service{d}x{i} {{")
    for m in range(body_lines(6, 30)):
        out.append(f"    method{m}(x: number, y: string): number {{")
        for k in range(body_lines(4, 20)):
            out.append(f"        const v{k} = x * {k} + y.length; // step {k}")
        if peers:
            p = rng.choice(peers)
            out.append(f"        return fn_{p[0]}_{p[1]}(x) + v0;")
        else:
            out.append("        return v0;")
        out.append("    }")
    out.append("}")
    out.append(f"export function fn_{d}_{i}(x: number): number {{")
    out.append("    return x + 1;")
    out.append("}")
    return "\n".join(out) + "\n"


def py_file(d, i, peers):
    out = []
    for p in peers:
        out.append(f"from pkg.d{p[0]:03d}.m{p[1]:03d} import fn_{p[0]}_{p[1]}")
    out.append("")
    out.append(f"class Model{d}x{i}:")
    for m in range(body_lines(6, 26)):
        out.append(f"    def method{m}(self, x, y):")
        for k in range(body_lines(4, 18)):
            out.append(f"        v{k} = x * {k} + len(y)  # step {k}")
        if peers:
            p = rng.choice(peers)
            out.append(f"        return fn_{p[0]}_{p[1]}(x) + v0")
        else:
            out.append("        return v0")
        out.append("")
    out.append(f"def fn_{d}_{i}(x):")
    out.append("    return x + 1")
    return "\n".join(out) + "\n"


def c_file(d, i, peers):
    out = [f'#include "m{i:03d}.h"']
    for p in peers:
        out.append(f'#include "../d{p[0]:03d}/m{p[1]:03d}.h"')
    out.append("")
    for m in range(body_lines(5, 24)):
        out.append("static int")
        out.append(f"helper_{d}_{i}_{m}(int x, const char *y)")
        out.append("{")
        for k in range(body_lines(4, 20)):
            out.append(f"    int v{k} = x * {k} + (int)y[{k} % 4]; /* step {k} */")
        if peers:
            p = rng.choice(peers)
            out.append(f"    return fn_{p[0]}_{p[1]}(x) + v0;")
        else:
            out.append("    return v0;")
        out.append("}")
        out.append("")
    out.append("int")
    out.append(f"fn_{d}_{i}(int x)")
    out.append("{")
    out.append(f"    return helper_{d}_{i}_0(x, \"abcd\");")
    out.append("}")
    return "\n".join(out) + "\n"


def c_header(d, i):
    return (f"#ifndef M_{d}_{i}_H\n#define M_{d}_{i}_H\n"
            f"int fn_{d}_{i}(int x);\n#endif\n")


written = 0
per_dir = max(1, total // ndirs)
d = 0
while written < total:
    kind = ["ts", "ts", "py", "c", "doc"][d % 5]
    base = {"ts": "src", "py": "pkg", "c": "csrc", "doc": "docs"}[kind]
    path = f"{root}/{base}/d{d:03d}"
    os.makedirs(path, exist_ok=True)
    if kind == "py":
        open(f"{path}/__init__.py", "w").close()
        written += 1
    for i in range(per_dir):
        if written >= total:
            break
        # peers: modules of earlier directories of the same language
        peers = []
        same = [x for x in range(d) if x % 5 == d % 5 or (kind == "ts" and x % 5 in (0, 1))]
        for _ in range(rng.randint(0, 4) if same else 0):
            peers.append((rng.choice(same), rng.randrange(per_dir)))
        if kind == "ts":
            with open(f"{path}/m{i:03d}.ts", "w") as f:
                f.write(ts_file(d, i, peers))
            written += 1
        elif kind == "py":
            with open(f"{path}/m{i:03d}.py", "w") as f:
                f.write(py_file(d, i, peers))
            written += 1
        elif kind == "c":
            with open(f"{path}/m{i:03d}.c", "w") as f:
                f.write(c_file(d, i, peers))
            with open(f"{path}/m{i:03d}.h", "w") as f:
                f.write(c_header(d, i))
            written += 2
        else:
            with open(f"{path}/n{i:03d}.md", "w") as f:
                f.write(f"# Note {d}.{i}\n\n" + "Some text.\n" * body_lines(5, 60))
            written += 1
    d += 1
os.makedirs(f"{root}/pkg", exist_ok=True)
open(f"{root}/pkg/__init__.py", "w").close()
with open(f"{root}/tsconfig.json", "w") as f:
    f.write('{ "compilerOptions": { "baseUrl": "." } }\n')
print(f"files={written + 2}")
