#!/usr/bin/env python3
"""Checks that every tool's main file stays a thin main (docs/architecture.md, "Where steps live"): the
file of tools/<tool>/ that defines main() has at most --limit lines (300). The steps a tool runs live in
the libraries, and a tool's own output code in its other files.

  check-tool-mains.py [--root DIR] [--limit N]   exit 0 when every main file is within the limit, 1 with
                                                 one line per file over it (and when no main file is found)
  check-tool-mains.py --self-test                a scratch tree with a main file of N + 1 lines must be
                                                 reported, one of N lines and a long helper file must not
"""
import argparse
import os
import re
import shutil
import sys
import tempfile

MAIN = re.compile(r"^\s*int\s+main\s*\(", re.M)
LIMIT = 300


def main_files(root):
    """The .cpp files below tools/ that define main() (a tool's helper programs too, e.g. its worker)."""
    found = []
    for folder, dirs, names in os.walk(os.path.join(root, "tools")):
        dirs.sort()
        for name in sorted(names):
            path = os.path.join(folder, name)
            if name.endswith(".cpp") and os.path.isfile(path):
                with open(path, encoding="utf-8", errors="replace") as f:
                    if MAIN.search(f.read()):
                        found.append(path)
    return found


def line_count(path):
    with open(path, "rb") as f:
        return f.read().count(b"\n")  # as wc -l counts


def check(root, limit):
    """The problems, one line each."""
    files = main_files(root)
    if not files:
        return ["no main file found under " + os.path.join(root, "tools")]
    problems = []
    for path in files:
        n = line_count(path)
        if n > limit:
            problems.append(f"{os.path.relpath(path, root)}: {n} lines, over {limit}: move its steps into the "
                            "library they belong to, or tool-specific output code into a second file of the tool")
    return problems


def self_test(limit):
    scratch = tempfile.mkdtemp(prefix="check-tool-mains-")
    try:
        def write(rel, lines):
            path = os.path.join(scratch, rel)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w") as f:
                f.write("".join(lines))
        body = ["// filler\n"] * (limit - 2)
        write("tools/long/long.cpp", ["#include <cstdio>\n", "int main(int argc, char **argv) { return 0; }\n"] + body
              + ["// one line too many\n"])
        write("tools/fits/fits.cpp", ["#include <cstdio>\n", "int main() { return 0; }\n"] + body)
        write("tools/fits/Helpers.cpp", ["// a helper file may be long\n"] * (3 * limit))
        write("tools/fits/worker/WorkerMain.cpp", ["int main() { return 0; }\n"] * 2)
        problems = check(scratch, limit)
        ok = len(problems) == 1 and problems[0].startswith(os.path.join("tools", "long", "long.cpp") + f": {limit + 1} lines")
        empty = tempfile.mkdtemp(prefix="check-tool-mains-empty-")
        os.makedirs(os.path.join(empty, "tools"))
        ok = ok and check(empty, limit) == ["no main file found under " + os.path.join(empty, "tools")]
        shutil.rmtree(empty, ignore_errors=True)
        print("check-tool-mains self-test:", "ok" if ok else "FAILED: " + repr(problems))
        return 0 if ok else 1
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    parser.add_argument("--limit", type=int, default=LIMIT)
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.limit < 3:
        parser.error("--limit must be at least 3")
    if args.self_test:
        return self_test(args.limit)
    root = os.path.abspath(args.root)
    if not os.path.isdir(os.path.join(root, "tools")):
        print(f"check-tool-mains: {root}: no tools/ folder", file=sys.stderr)
        return 2
    problems = check(root, args.limit)
    for p in problems:
        print("check-tool-mains: " + p)
    if not problems:
        print(f"check-tool-mains: every tool's main file is at most {args.limit} lines "
              f"({len(main_files(root))} main files)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
