#!/usr/bin/env python3
"""Makes the checkouts the real-code benchmark reads: one directory OWNER+NAME per repository of
data/realcode/manifest.jsonl, at the manifest's commit.

usage: checkout.py DIR [--manifest data/realcode/manifest.jsonl] [--mirror MIRRORS]

By default each repository is cloned from GitHub (git clone --filter=blob:none, then the commit
checked out; about 200 MB in all). With --mirror, bare repositories already on disk are used
instead (MIRRORS/OWNER+NAME/repo, as a local mirror keeps them): only the source, build and
licence files are exported from them, and blobs missing from a partial mirror are skipped.
An existing checkout at the right commit is left alone, so the script can be re-run.
"""
import argparse
import json
import os
import subprocess
import sys

SOURCE_SUFFIXES = (".cu", ".cuh", ".h", ".hpp", ".hh", ".c", ".cpp", ".cc", ".cxx", ".inc", ".inl",
                   ".tcc", ".ipp", ".def", ".mk", ".txt", ".cmake", ".md", ".in", ".am")


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def wanted(path):
    base = os.path.basename(path)
    return (base.endswith(SOURCE_SUFFIXES) or base.startswith(("Makefile", "makefile", "LICENSE", "COPYING"))
            or base == "GNUmakefile")


def export_from_mirror(git_dir, commit, out):
    """Writes the wanted files of \\p commit of a bare repository to \\p out."""
    listing = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "-r", "-l", commit],
                             capture_output=True, text=True, check=True).stdout
    objects = []
    for line in listing.splitlines():
        meta, path = line.split("\t", 1)
        _mode, kind, sha, size = meta.split()
        if kind == "blob" and size.isdigit() and int(size) <= 4_000_000 and wanted(path):
            objects.append((sha, path))
    cat = subprocess.Popen(["git", "--git-dir", git_dir, "cat-file", "--batch"],
                           stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    missing = 0
    for sha, path in objects:
        cat.stdin.write((sha + "\n").encode())
        cat.stdin.flush()
        header = cat.stdout.readline().decode().split()
        if len(header) < 3 or header[1] == "missing":
            missing += 1
            continue
        data = cat.stdout.read(int(header[2]))
        cat.stdout.read(1)
        dst = os.path.join(out, path)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        with open(dst, "wb") as f:
            f.write(data)
    cat.stdin.close()
    cat.wait()
    return len(objects) - missing, missing


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("dir", help="where the OWNER+NAME checkouts go")
    ap.add_argument("--manifest", default=os.path.join(os.path.dirname(__file__), "../../data/realcode/manifest.jsonl"))
    ap.add_argument("--mirror", help="directory of bare mirrors OWNER+NAME/repo to export from")
    args = ap.parse_args()
    repos = {}
    for line in open(args.manifest):
        if line.strip():
            m = json.loads(line)
            repos[m["repository"]] = m["commit"]
    os.makedirs(args.dir, exist_ok=True)
    for repo, commit in sorted(repos.items()):
        out = os.path.join(args.dir, repo.replace("/", "+"))
        stamp = os.path.join(out, ".cudaperf-commit")
        if os.path.exists(stamp) and open(stamp).read().strip() == commit:
            print("%-32s %s (present)" % (repo, commit[:12]))
            continue
        if args.mirror:
            git_dir = os.path.join(args.mirror, repo.replace("/", "+"), "repo")
            if not os.path.isdir(git_dir):
                sys.exit("checkout: no mirror %s" % git_dir)
            written, missing = export_from_mirror(git_dir, commit, out)
            print("%-32s %s: %d files exported, %d missing in the mirror" % (repo, commit[:12], written, missing))
        else:
            if not os.path.isdir(os.path.join(out, ".git")):
                run(["git", "clone", "--filter=blob:none", "--no-checkout",
                     "https://github.com/%s.git" % repo, out])
            run(["git", "-C", out, "checkout", "--quiet", commit])
            print("%-32s %s: cloned" % (repo, commit[:12]))
        with open(stamp, "w") as f:
            f.write(commit + "\n")


if __name__ == "__main__":
    main()
