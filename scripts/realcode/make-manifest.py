#!/usr/bin/env python3
"""Writes data/realcode/manifest.jsonl: one line per .cu file of the real-code corpus, saying where it
comes from (repository, commit, path), under which licence, and the include and define flags its
own build uses (read from its Makefile, Makefile.am or CMakeLists.txt).

usage: make-manifest.py --sources DIR [--out data/realcode/manifest.jsonl]

DIR holds one checkout per repository, named OWNER+NAME (scripts/realcode/checkout.py makes them);
each suite in SUITES names its repository and commit. Paths in flags are written relative to the
repository root as {root}/...; bench-realcode.py substitutes the checkout directory.

The Makefile reader is deliberately small: simple variable assignments (=, :=, ?=, +=), $(VAR) and
${VAR} references, `include` of files that exist, and ifeq/ifneq/ifdef/ifndef evaluated with the
makefile's own defaults (a debug switch left off). Flags kept: -I (existing directories only), -D,
-U, -std=, -rdc=true, --extended-lambda, --expt-relaxed-constexpr, --use_fast_math and -fopenmp
(given to nvcc as -Xcompiler -fopenmp). Anything else (architectures, optimisation, warnings,
libraries) is the benchmark's business: it compiles with nvcc -O3 -arch=sm_90 -c.
"""
import argparse
import json
import os
import re
import sys

# The suites: directory under --sources, GitHub repository, commit, where the CUDA files are.
SUITES = [
    {"suite": "cuda-samples", "dir": "NVIDIA+cuda-samples", "repository": "NVIDIA/cuda-samples",
     "commit": "c94ff366aed18c797b8a85dfaac7817b0228b420", "under": "Samples"},
    {"suite": "hecbench", "dir": "zjin-lcf+HeCBench", "repository": "zjin-lcf/HeCBench",
     "commit": "f27000a5188f8ac79bd43fc95a1b3f890c18823d", "under": "src", "dir_suffix": "-cuda"},
    {"suite": "rodinia", "dir": "yuhc+gpu-rodinia", "repository": "yuhc/gpu-rodinia",
     "commit": "9c10d3ea16ddba2ba057cc3951a9efc4c2cc18a4", "under": "cuda"},
    {"suite": "shoc", "dir": "vetter+shoc", "repository": "vetter/shoc",
     "commit": "0aea03beba2f09fcb5935cc11737372fe4de9ec0", "under": "src/cuda"},
    {"suite": "polybench-gpu", "dir": "cavazos-lab+PolyBench-ACC", "repository": "cavazos-lab/PolyBench-ACC",
     "commit": "70ea4ca9047dc4ec9c3ca79b4c91b3b2cc1510e7", "under": "CUDA"},
]

KEEP_ALONE = {"--extended-lambda", "-extended-lambda", "--expt-extended-lambda", "--expt-relaxed-constexpr",
              "-expt-relaxed-constexpr", "--use_fast_math", "-use_fast_math"}


# --- licences -------------------------------------------------------------------------------------

def classify_licence(text):
    t = " ".join(text.split()).lower()
    if "apache license" in t:
        return "Apache-2.0"
    if "gnu lesser general public" in t:
        return "LGPL"
    if "gnu general public license" in t:
        return "GPL"
    if "permission is hereby granted, free of charge" in t:
        return "MIT"
    if "redistribution and use in source and binary forms" in t:
        return "BSD-3-Clause" if "neither the name" in t or "names of its contributors" in t else "BSD-2-Clause"
    return "see licence file"


def licence_of(root, rel_dir, cache):
    """The nearest LICENSE/COPYING file from the file's directory up to the repository root."""
    d = rel_dir
    while True:
        if d in cache:
            return cache[d]
        full = os.path.join(root, d)
        names = sorted(n for n in os.listdir(full) if re.match(r"(?i)^(licen[cs]e|copying)(\.|$)", n)
                       and os.path.isfile(os.path.join(full, n))) if os.path.isdir(full) else []
        if names:
            path = os.path.join(d, names[0]) if d else names[0]
            with open(os.path.join(root, path), errors="replace") as f:
                cache[d] = (classify_licence(f.read()), path)
            return cache[d]
        if not d:
            cache[d] = ("unknown", None)
            return cache[d]
        d = os.path.dirname(d)


# --- flags ----------------------------------------------------------------------------------------

def expand(value, variables, depth=0):
    if depth > 20:
        return value
    def sub(m):
        name = m.group(1) or m.group(2)
        if ":" in name:  # substitution references $(VAR:.cu=.o): not flags
            return ""
        return expand(variables.get(name, ""), variables, depth + 1)
    return re.sub(r"\$\(([^()$]+)\)|\$\{([^{}$]+)\}", sub, value)


def read_makefile(path, variables, seen):
    """Assignments and conditionals of a makefile (and what it includes) into variables."""
    if path in seen or not os.path.isfile(path):
        return []
    seen.add(path)
    recipes = []
    lines = open(path, errors="replace").read().replace("\\\n", " ").splitlines()
    stack = []  # one bool per open conditional: taking this branch?
    for raw in lines:
        line = raw.split("#", 1)[0].rstrip()
        s = line.strip()
        if not s:
            continue
        word = s.split(None, 1)[0]
        active = all(stack)
        if word in ("ifeq", "ifneq"):
            m = re.match(r"if(n?)eq\s*\(([^,]*),([^)]*)\)", s) or re.match(r"if(n?)eq\s*['\"]([^'\"]*)['\"]\s*['\"]([^'\"]*)['\"]", s)
            cond = False
            if m:
                a, b = expand(m.group(2), variables).strip(), expand(m.group(3), variables).strip()
                cond = (a == b) != (m.group(1) == "n")
            stack.append(cond)
            continue
        if word in ("ifdef", "ifndef"):
            name = s.split(None, 1)[1].strip() if len(s.split()) > 1 else ""
            defined = bool(variables.get(name, "").strip())
            stack.append(defined if word == "ifdef" else not defined)
            continue
        if word == "else":
            if stack:
                stack[-1] = not stack[-1]
            continue
        if word == "endif":
            if stack:
                stack.pop()
            continue
        if not active:
            continue
        if word in ("include", "-include", "sinclude"):
            for inc in expand(s.split(None, 1)[1], variables).split():
                inc_path = inc if os.path.isabs(inc) else os.path.join(os.path.dirname(path), inc)
                recipes += read_makefile(os.path.normpath(inc_path), variables, seen)
            continue
        if raw.startswith("\t"):
            recipes.append(s)
            continue
        m = re.match(r"^(?:export\s+|override\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*(\?=|:=|::=|\+=|=)\s*(.*)$", s)
        if m:
            name, op, value = m.groups()
            if op == "?=" and name in variables:
                continue
            if op in (":=", "::="):
                value = expand(value, variables)
            if op == "+=":
                variables[name] = (variables.get(name, "") + " " + value).strip()
            else:
                variables[name] = value
    return recipes


def keep_flags(tokens, base_dir, root):
    """The source-meaning flags among \\p tokens; -I paths resolved against base_dir, kept when they
    exist inside the checkout, written as {root}/..."""
    out = []
    i = 0
    while i < len(tokens):
        t = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        if t in ("-I", "-D", "-U", "-isystem") and nxt:
            t, i = t + nxt if t != "-isystem" else "-I" + nxt, i + 1
        elif t == "-isystem":
            pass
        if t.startswith("-I") and len(t) > 2:
            p = t[2:].strip('"\'')
            if "$" not in p:
                full = os.path.normpath(p if os.path.isabs(p) else os.path.join(base_dir, p))
                if os.path.isdir(full) and os.path.commonpath([full, root]) == root:
                    rel = os.path.relpath(full, root)
                    out.append("-I{root}" + ("" if rel == "." else "/" + rel))
        elif (t.startswith("-D") or t.startswith("-U")) and len(t) > 2 and "$" not in t:
            out.append(t)
        elif t.startswith("-std=") or t.startswith("--std="):
            out.append("-std=" + t.split("=", 1)[1])
        elif t in ("-rdc=true", "--relocatable-device-code=true", "-dc") or (t == "-rdc" and nxt == "true"):
            out.append("-rdc=true")
        elif t in KEEP_ALONE:
            out.append(t)
        elif t in ("-Xcompiler", "--compiler-options") and nxt:
            if "-fopenmp" in nxt.split(","):
                out += ["-Xcompiler", "-fopenmp"]
            i += 1
        elif t in ("-fopenmp", "-Xcompiler=-fopenmp"):
            out += ["-Xcompiler", "-fopenmp"]
        i += 1
    seen, unique = set(), []
    for f in out:
        key = f if f != "-Xcompiler" else None
        if f == "-fopenmp" and unique and unique[-1] == "-Xcompiler" and "-fopenmp" in seen:
            unique.pop()
            continue
        if key and key in seen:
            continue
        if key:
            seen.add(key)
        unique.append(f)
    return unique


def makefile_flags(root, rel_dir, extra_vars):
    for name in ("Makefile", "makefile", "GNUmakefile", "Makefile.nvidia", "Makefile.am"):
        path = os.path.join(root, rel_dir, name)
        if os.path.isfile(path):
            variables = dict(extra_vars)
            recipes = read_makefile(path, variables, set())
            tokens = []
            for name_, value in variables.items():
                if re.search(r"FLAGS|INC|DEFS|OPT|CPP", name_, re.I):
                    tokens += expand(value, variables).split()
            for r in recipes:
                if "nvcc" in r.lower() or "$(CC)" in r or "$(NVCC)" in r:
                    tokens += expand(r, variables).split()
            return keep_flags(tokens, os.path.join(root, rel_dir), root), os.path.relpath(path, root)
    return [], None


def cmake_flags(root, rel_dir):
    path = os.path.join(root, rel_dir, "CMakeLists.txt")
    if not os.path.isfile(path):
        return [], None
    text = open(path, errors="replace").read()
    tokens = []
    for m in re.finditer(r"(?:target_)?include_directories\s*\(([^)]*)\)", text, re.S):
        for t in m.group(1).split():
            if t in ("PRIVATE", "PUBLIC", "INTERFACE", "SYSTEM", "BEFORE", "AFTER") or "$" in t:
                continue
            if not re.match(r"^[\w./-]+$", t) or t.endswith(")"):
                continue
            tokens.append("-I" + t)
    if re.search(r"cuda_std_17|cxx_std_17|CMAKE_CUDA_STANDARD\s+17", text):
        tokens.append("-std=c++17")
    elif re.search(r"cuda_std_14|cxx_std_14", text):
        tokens.append("-std=c++14")
    for m in re.finditer(r"target_compile_options\s*\(([^)]*)\)", text, re.S):
        tokens += [t for t in re.split(r"[\s:>]+", m.group(1)) if t.startswith("-")]
    if re.search(r"CUDA_SEPARABLE_COMPILATION\s+ON", text):
        tokens.append("-rdc=true")
    if "OpenMP::OpenMP_CXX" in text:
        tokens.append("-fopenmp")
    for m in re.finditer(r"target_compile_definitions\s*\(([^)]*)\)", text, re.S):
        tokens += ["-D" + t for t in m.group(1).split()[1:] if t not in ("PRIVATE", "PUBLIC", "INTERFACE") and "$" not in t]
    tokens.append("-I.")
    return keep_flags(tokens, os.path.join(root, rel_dir), root), os.path.relpath(path, root)


def flags_for(suite, root, rel_dir):
    if suite["suite"] == "cuda-samples":
        flags, src = cmake_flags(root, rel_dir)
        if src:
            return flags, src
    if suite["suite"] == "shoc":
        # Automake: AM_CPPFLAGS = $(CUDA_INC) from config/config.mk.in; the common headers live in
        # src/common and src/cuda/common, found through VPATH.
        return ["-I{root}/src/common", "-I{root}/src/cuda/common", "-I{root}/config"], \
            "config/common.mk.in (CUDA_INC)"
    return makefile_flags(root, rel_dir, {"top_srcdir": root, "srcdir": os.path.join(root, rel_dir)})


def included_by_other(root, rel_path, texts):
    base = os.path.basename(rel_path)
    d = os.path.dirname(rel_path)
    for other, text in texts.get(d, []):
        if other != rel_path and re.search(r'#\s*include\s*["<]([^">]*/)?' + re.escape(base) + r'[">]', text):
            return other
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sources", required=True, help="directory of OWNER+NAME checkouts")
    ap.add_argument("--out", default="data/realcode/manifest.jsonl")
    args = ap.parse_args()
    rows = []
    for suite in SUITES:
        root = os.path.realpath(os.path.join(args.sources, suite["dir"]))
        if not os.path.isdir(root):
            sys.exit("make-manifest: %s is missing (run scripts/realcode/checkout.py)" % root)
        licences = {}
        files = []
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, suite["under"])):
            dirnames.sort()
            rel_dir = os.path.relpath(dirpath, root)
            if suite.get("dir_suffix") and not any(p.endswith(suite["dir_suffix"]) for p in rel_dir.split(os.sep)):
                continue
            for f in sorted(filenames):
                if f.endswith(".cu"):
                    files.append(os.path.join(rel_dir, f))
        texts = {}
        for rel in files:
            with open(os.path.join(root, rel), errors="replace") as fh:
                texts.setdefault(os.path.dirname(rel), []).append((rel, fh.read()))
        for rel in files:
            rel_dir = os.path.dirname(rel)
            flags, flags_from = flags_for(suite, root, rel_dir)
            licence, licence_file = licence_of(root, rel_dir, licences)
            row = {"suite": suite["suite"], "repository": suite["repository"], "commit": suite["commit"],
                   "path": rel, "licence": licence, "licence_file": licence_file,
                   "flags": flags, "flags_from": flags_from,
                   "bytes": os.path.getsize(os.path.join(root, rel))}
            parent = included_by_other(root, rel, texts)
            if parent:
                row["included_by"] = parent
            rows.append(row)
        print("%-14s %4d files" % (suite["suite"], len(files)), file=sys.stderr)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        for r in rows:
            f.write(json.dumps(r, sort_keys=False) + "\n")
    print("make-manifest: %d files -> %s" % (len(rows), args.out), file=sys.stderr)


if __name__ == "__main__":
    main()
