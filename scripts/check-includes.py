#!/usr/bin/env python3
"""Checks every #include of lib/<Lib>/, include/cudaperf/<Lib>/ and tools/*/ against the layer table of
docs/architecture.md ("Layers: which library may include which"), the one place the rule is written.

  check-includes.py [--root DIR]   exit 0 when every include is allowed, 1 with one line per violation
  check-includes.py --self-test    plants bad includes in a scratch tree (the real table) and checks
                                   that each is reported; exit 0 when all are

Rules: a library includes its own headers and those of the libraries in its row (all listed above it);
its side says which outside headers it may include (neutral: neither LLVM/Clang nor LibTorch; analyzer:
LLVM/Clang; torch: LibTorch); a tool takes the side of what it includes and may not take both.
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

DOC = os.path.join("docs", "architecture.md")
SOURCE_SUFFIXES = (".h", ".hpp", ".cpp", ".cc", ".cu", ".cuh", ".inc", ".def")
INCLUDE = re.compile(r'^\s*#\s*include\s*[<"]([^>"]+)[>"]', re.M)
OURS = re.compile(r"^cudaperf/([A-Za-z0-9_]+)/")
OUTSIDE = {"llvm": "analyzer", "llvm-c": "analyzer", "clang": "analyzer", "clang-c": "analyzer",
           "torch": "torch", "ATen": "torch", "c10": "torch", "caffe2": "torch"}
SIDES = ("neutral", "analyzer", "torch")


class RuleError(Exception):
    pass


def cells(line):
    return [c.strip().strip("`").strip() for c in line.strip().strip("|").split("|")]


def read_rules(root):
    """(order, side, allowed, exceptions) from the table between the include-rules markers."""
    path = os.path.join(root, DOC)
    text = open(path, encoding="utf-8").read()
    m = re.search(r"<!-- include-rules begin -->(.*?)<!-- include-rules end -->", text, re.S)
    if not m:
        raise RuleError(f"{DOC}: no <!-- include-rules begin/end --> block")
    order, side, allowed, exceptions = [], {}, {}, {}
    table = None
    for line in m.group(1).splitlines():
        if not line.strip().startswith("|"):
            table = None if not line.strip() else table
            continue
        row = cells(line)
        if row and set(row[0]) <= set("-: "):
            continue
        if row[:3] == ["library", "side", "may include"]:
            table = "libraries"
            continue
        if row[:3] == ["file", "includes", "why"]:
            table = "exceptions"
            continue
        if table == "libraries":
            lib, lib_side, deps = row[0], row[1], [d.strip() for d in row[2].split(",") if d.strip()]
            if lib_side not in SIDES:
                raise RuleError(f"{DOC}: {lib}: side '{lib_side}' is not one of {', '.join(SIDES)}")
            for d in deps:
                if d not in side:
                    raise RuleError(f"{DOC}: {lib} may include {d}, which is not listed above it")
                if side[d] != "neutral" and side[d] != lib_side:
                    raise RuleError(f"{DOC}: {lib} ({lib_side}) may include {d} ({side[d]}): sides mix")
            if lib in side:
                raise RuleError(f"{DOC}: {lib} is listed twice")
            order.append(lib)
            side[lib] = lib_side
            allowed[lib] = set(deps) | {lib}
        elif table == "exceptions":
            exceptions.setdefault(row[0], set()).update(d.strip() for d in row[1].split(",") if d.strip())
        else:
            raise RuleError(f"{DOC}: a table row outside a known table: {line.strip()}")
    if not order:
        raise RuleError(f"{DOC}: the include-rules block has no library rows")
    return order, side, allowed, exceptions


def sources(directory):
    for base, dirs, files in os.walk(directory):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(SOURCE_SUFFIXES):
                yield os.path.join(base, f)


def includes(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    for m in INCLUDE.finditer(text):
        yield text.count("\n", 0, m.start()) + 1, m.group(1)


def check(root):
    order, side, allowed, exceptions = read_rules(root)
    problems, used_exceptions = [], set()

    def rel(p):
        return os.path.relpath(p, root)

    def library_files(lib):
        for top in (os.path.join(root, "lib", lib), os.path.join(root, "include", "cudaperf", lib)):
            if os.path.isdir(top):
                yield from sources(top)

    known = set(side)
    for top in (os.path.join(root, "lib"), os.path.join(root, "include", "cudaperf")):
        for name in sorted(os.listdir(top)) if os.path.isdir(top) else []:
            if os.path.isdir(os.path.join(top, name)) and name not in known:
                problems.append(f"{rel(os.path.join(top, name))}: library {name} has no row in {DOC}'s layer table")

    for lib in order:
        for path in library_files(lib):
            for line, inc in includes(path):
                where = f"{rel(path)}:{line}: #include \"{inc}\""
                m = OURS.match(inc)
                if m:
                    dep = m.group(1)
                    if dep in allowed[lib]:
                        continue
                    if dep in exceptions.get(rel(path), ()):
                        used_exceptions.add((rel(path), dep))
                        continue
                    why = ("a library above it" if dep in side and order.index(dep) > order.index(lib)
                           else "outside its allowed set" if dep in side else "an unknown library")
                    problems.append(f"{where}: {lib} may not include {dep} ({why}; "
                                    f"{lib} may include {', '.join(sorted(allowed[lib]))})")
                    continue
                outside = OUTSIDE.get(inc.split("/", 1)[0]) if "/" in inc else None
                if outside and outside != side[lib]:
                    problems.append(f"{where}: {lib} is {side[lib]}: no {'LLVM/Clang' if outside == 'analyzer' else 'LibTorch'} headers")

    tools = os.path.join(root, "tools")
    for name in sorted(os.listdir(tools)) if os.path.isdir(tools) else []:
        if not os.path.isdir(os.path.join(tools, name)):
            continue
        sides = {}  # side -> first include that gives it
        for path in sources(os.path.join(tools, name)):
            for line, inc in includes(path):
                where = f"{rel(path)}:{line}: #include \"{inc}\""
                m = OURS.match(inc)
                if m:
                    dep = m.group(1)
                    if dep not in side:
                        problems.append(f"{where}: an unknown library {dep}")
                        continue
                    s = side[dep]
                else:
                    s = OUTSIDE.get(inc.split("/", 1)[0]) if "/" in inc else None
                if s and s != "neutral":
                    sides.setdefault(s, where)
        if len(sides) > 1:
            problems.append(f"tools/{name}: both an LLVM/Clang and a LibTorch program ({sides['analyzer']}; "
                            f"{sides['torch']}): they must be separate executables")

    for f, deps in sorted(exceptions.items()):
        for dep in sorted(deps):
            if (f, dep) not in used_exceptions:
                problems.append(f"{DOC}: the exception '{f} includes {dep}' is no longer needed: delete its row")
    return problems


def self_test(root):
    """Plants one violation of each rule in a scratch copy of the sources and expects each reported."""
    scratch = tempfile.mkdtemp(prefix="check-includes-")
    ok = True
    try:
        for d in ("lib", "include", "tools", "docs"):
            shutil.copytree(os.path.join(root, d), os.path.join(scratch, d),
                            ignore=lambda _d, names: [n for n in names if not os.path.isdir(os.path.join(_d, n))
                                                      and not n.endswith(SOURCE_SUFFIXES + (".md",))])
        clean = check(scratch)
        planted = {
            "lib/Support/Planted.cpp": ('#include "cudaperf/Learn/Tokenizer.h"\n', "Support may not include Learn (a library above it"),
            "lib/Schema/Planted.cpp": ('#include "cudaperf/Runtime/Task.h"\n', "Schema may not include Runtime (a library above it"),
            "lib/Features/Planted.cpp": ("#include <torch/torch.h>\n", "Features is neutral: no LibTorch headers"),
            "include/cudaperf/Reward/Planted.h": ('#include "llvm/Support/JSON.h"\n', "Reward is neutral: no LLVM/Clang headers"),
            "lib/Learn/Planted.cpp": ("#include <clang/AST/Decl.h>\n", "Learn is torch: no LLVM/Clang headers"),
            "lib/Report/Planted.cpp": ('#include "cudaperf/Tool/Driver.h"\n', "Report may not include Tool (a library above it"),
            "tools/planted/main.cpp": ('#include "cudaperf/Tool/Driver.h"\n#include "cudaperf/Learn/Transformer.h"\n',
                                       "tools/planted: both an LLVM/Clang and a LibTorch program"),
        }
        for rel_path, (text, _) in planted.items():
            path = os.path.join(scratch, rel_path)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write("// planted by check-includes.py --self-test\n" + text)
        os.makedirs(os.path.join(scratch, "lib", "Unlisted"))
        open(os.path.join(scratch, "lib", "Unlisted", "x.cpp"), "w").close()
        found = check(scratch)
        new = [p for p in found if p not in clean]
        expectations = [msg for _, msg in planted.values()] + ["library Unlisted has no row"]
        for msg in expectations:
            hit = [p for p in new if msg in p]
            print(("ok   " if hit else "FAIL ") + msg + (": " + hit[0] if hit else ": not reported"))
            ok &= bool(hit)
        if len(new) != len(expectations):
            print(f"FAIL {len(new)} new problems for {len(expectations)} planted:\n  " + "\n  ".join(new))
            ok = False
        # A rule table that lets a library include one listed below... above it is refused.
        doc = os.path.join(scratch, DOC)
        text = open(doc, encoding="utf-8").read()
        open(doc, "w", encoding="utf-8").write(text.replace("| `Schema` | neutral | Support |",
                                                            "| `Schema` | neutral | Runtime, Support |"))
        try:
            check(scratch)
            print("FAIL a table with a cycle was accepted")
            ok = False
        except RuleError as e:
            print("ok   a table with a cycle is refused: " + str(e))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--self-test", action="store_true")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    try:
        if args.self_test:
            return 0 if self_test(root) else 1
        problems = check(root)
    except (RuleError, OSError) as e:
        print(f"check-includes: {e}", file=sys.stderr)
        return 2
    for p in problems:
        print(p)
    if problems:
        print(f"check-includes: {len(problems)} include(s) break the layer rule of {DOC}", file=sys.stderr)
        return 1
    print(f"check-includes: every include of lib/, include/cudaperf/ and tools/ follows {DOC}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
