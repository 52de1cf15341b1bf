#!/usr/bin/env python3
"""Builds data/corpus/manifest.json from the annotations in data/corpus/*.cu.

Usage: build-manifest.py [--corpus data/corpus] [--output data/corpus/manifest.json] [--no-nvcc]

Annotations (see docs/corpus.md):
  // @kernel pattern=<pattern>[; flops=<expr>][; note=<text>]      on the line before a __global__ function
  // @<ld|st|atom|red>.<global|shared> <bytes>B exp=<x> [insts=<k>]  on the line of an access (several allowed)
Launches are read from main(): `const int NAME = EXPR;`, `dim3 NAME(A, B[, C]);` and `kernel<<<GRID, BLOCK[, SMEM]>>>`,
evaluated in order. With nvcc on the PATH (default), ptxas's report supplies mangled names, registers and static
shared memory. Python 3 standard library only. The expectations are first-principles documentation, not
measurements: the measured numbers are in data/corpus/measured/.
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys

KERNEL_RE = re.compile(r"^// @kernel (.*)$")
GLOBAL_RE = re.compile(r"__global__\s+void\s+(\w+)\s*\(")
ACCESS_RE = re.compile(r"@(ld|st|atom|red)\.(global|shared)\s+(\d+)B\s+exp=(\S+)(?:\s+insts=(\d+))?")
CONST_RE = re.compile(r"^\s*const int (\w+) = ([^;]+);")
DIM3_RE = re.compile(r"^\s*dim3 (\w+)\(([^)]*)\);")
LAUNCH_RE = re.compile(r"(\w+)<<<(.+?)>>>")


def evaluate(expr, env):
    expr = re.sub(r"(?<![/])/(?![/])", "//", expr.strip())
    value = eval(expr, {"__builtins__": {}}, env)  # corpus-controlled input: integer arithmetic only
    return value


def as_dim(value):
    if isinstance(value, tuple):
        return list(value) + [1] * (3 - len(value))
    return [int(value), 1, 1]


def split_args(text):
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    return [p.strip() for p in parts]


def parse_expectation(text):
    try:
        return float(text) if "." in text else int(text)
    except ValueError:
        return text  # 'dd', 'dd(~32)': data-dependent


def ptxas_report(path):
    """Kernel mangled name -> {registers, static_smem_bytes} from nvcc -Xptxas -v."""
    if not shutil.which("nvcc"):
        return {}
    proc = subprocess.run(["nvcc", "-O3", "-arch=sm_90", "-lineinfo", "-cubin", "-Xptxas", "-v", "-o", os.devnull, path],
                          capture_output=True, text=True, cwd=os.path.dirname(path))
    result, current = {}, None
    for line in proc.stderr.splitlines():
        m = re.search(r"Compiling entry function '(\w+)'", line)
        if m:
            current = m.group(1)
            result[current] = {}
        m = re.search(r"Used (\d+) registers.*?(?:(\d+) bytes smem)?$", line)
        if m and current:
            result[current]["registers"] = int(m.group(1))
            result[current]["static_smem_bytes"] = int(m.group(2) or 0)
    return result


def demangle(names):
    if not names or not shutil.which("c++filt"):
        return {}
    out = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True).stdout.splitlines()
    return dict(zip(names, out))


def parse_file(path, use_nvcc):
    stem = os.path.splitext(os.path.basename(path))[0]
    lines = open(path).read().splitlines()
    kernels, order = {}, []
    pending, current = None, None
    main_start = next(i for i, l in enumerate(lines) if l.startswith("int main("))
    for number, line in enumerate(lines[:main_start], start=1):
        m = KERNEL_RE.match(line)
        if m:
            fields = {}
            for part in m.group(1).split("; "):
                key, _, value = part.partition("=")
                fields[key.strip()] = value.strip()
            pending = fields
            continue
        m = GLOBAL_RE.search(line)
        if m and pending is not None:
            current = m.group(1)
            kernels[current] = {
                "file": "data/corpus/%s.cu" % os.path.basename(stem),
                "kernel": current,
                "line": number,
                "family": stem,
                "pattern": pending.get("pattern"),
                "note": pending.get("note"),
                "flops_expected": pending.get("flops"),
                "accesses": [],
            }
            if pending.get("flops"):
                kernels[current]["flops_expected_value"] = evaluate(pending["flops"], {})
            order.append(current)
            pending = None
        if current:
            for a in ACCESS_RE.finditer(line):
                op, space, nbytes, exp, insts = a.groups()
                kernels[current]["accesses"].append({
                    "line": number,
                    "op": "load" if op == "ld" else "store" if op == "st" else "atomic" if op == "atom" else "reduction",
                    "space": space,
                    "bytes": int(nbytes),
                    "instructions": int(insts) if insts else 1,
                    ("expected_sectors_per_request" if space == "global" else "expected_wavefronts_per_instruction"):
                        parse_expectation(exp),
                    "source": line.split("//")[0].strip(),
                })
    env = {}
    for line in lines[main_start:]:
        m = CONST_RE.match(line)
        if m:
            env[m.group(1)] = evaluate(m.group(2), env)
            continue
        m = DIM3_RE.match(line)
        if m:
            env[m.group(1)] = tuple(evaluate(x, env) for x in split_args(m.group(2)))
            continue
        m = LAUNCH_RE.search(line)
        if m and m.group(1) in kernels:
            args = split_args(m.group(2))
            k = kernels[m.group(1)]
            k["launch"] = {
                "text": "<<<%s>>>" % m.group(2),
                "grid": as_dim(evaluate(args[0], env)),
                "block": as_dim(evaluate(args[1], env)),
                "dynamic_smem_bytes": evaluate(args[2], env) if len(args) > 2 else 0,
            }
    if use_nvcc:
        report = ptxas_report(path)
        names = demangle(list(report))
        for mangled, info in report.items():
            plain = names.get(mangled, mangled).split("(")[0]
            if plain in kernels:
                kernels[plain]["mangled"] = mangled
                kernels[plain]["demangled"] = names.get(mangled)
                kernels[plain]["ptxas"] = info
    return [kernels[k] for k in order]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("--corpus", default=os.path.join(root, "data", "corpus"))
    parser.add_argument("--output", default=os.path.join(root, "data", "corpus", "manifest.json"))
    parser.add_argument("--no-nvcc", action="store_true")
    args = parser.parse_args()
    entries = []
    for name in sorted(os.listdir(args.corpus)):
        if name.endswith(".cu"):
            entries.extend(parse_file(os.path.join(args.corpus, name), not args.no_nvcc))
    missing = [e["kernel"] for e in entries if "launch" not in e]
    if missing:
        print("kernels without a launch: %s" % ", ".join(missing), file=sys.stderr)
        return 1
    doc = {
        "schema_version": 1,
        "description": "Corpus kernels with their launch configuration and first-principles expectations per access "
                       "(documentation, not ground truth; measured numbers: data/corpus/measured/h200-ncu.json). "
                       "Generated by scripts/corpus/build-manifest.py from the annotations in the .cu files.",
        "compile": "nvcc -O3 -arch=sm_90 -lineinfo",
        "measured_key": "<file stem>/<kernel> in data/corpus/measured/h200-ncu.json",
        "kernels": entries,
    }
    with open(args.output, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    families = {}
    for e in entries:
        families[e["family"]] = families.get(e["family"], 0) + 1
    print("wrote %s: %d kernels %s" % (args.output, len(entries), families))
    return 0


if __name__ == "__main__":
    sys.exit(main())
