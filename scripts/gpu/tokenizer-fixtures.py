#!/usr/bin/env python3
"""Hugging Face fixtures for cudaperf's tokenizer (test/learn/fixtures/tokenizer/README.md).

On a host with Python's `tokenizers` (and `transformers`), writes into OUT/tokenizer/:
  hf-repo/tokenizer.json, hf-repo/training-files.json  BpeTrainer (Qwen2 form) on the repository's sources
  hf-small/tokenizer.json                              BpeTrainer on test/learn/fixtures/tokenizer/texts
  expected/hf-repo.json, expected/ours-repo.json       ids, decoded texts, pre-tokens under every variant
  hf-checks.json                                       transformers on ours-repo/; encoding speed
Every step is guarded: a failing one is recorded in hf-checks.json and the others still run.
Usage: tokenizer-fixtures.py [--root DIR] --out DIR [--cudaperf-tokenizer BIN]
"""
import argparse
import json
import os
import subprocess
import sys
import time
import traceback

QWEN2 = r"""(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"""
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|pad|>"]
EXTENSIONS = {".cu", ".cuh", ".c", ".h", ".cc", ".cpp", ".hpp", ".py"}
REPO_VARIANTS = ["qwen2", "gpt2", "llama3"]
PRETOKEN_VARIANTS = ["qwen2", "gpt2", "gpt2-prefix-space", "llama3", "split-behaviors"]


def fnv1a(data: bytes) -> str:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return "%016x" % h


def ids_digest(ids):
    return fnv1a(",".join(map(str, ids)).encode())


def read_text(path):
    return open(path, "rb").read().decode("utf-8", "replace")


def repo_sources(root):
    """The repository's sources, as scripts/tokenizer-expected.js lists them."""
    found = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root).replace(os.sep, "/")
        rel_dir = "" if rel_dir == "." else rel_dir
        dirnames[:] = [d for d in dirnames
                       if not (d.startswith(".") or d.startswith("build") or d in ("node_modules", "__pycache__")
                               or (rel_dir + "/" + d).lstrip("/") == "test/learn/fixtures")]
        for name in filenames:
            rel = (rel_dir + "/" + name).lstrip("/")
            full = os.path.join(root, rel)
            if os.path.splitext(name)[1] in EXTENSIONS and os.path.isfile(full) and os.path.getsize(full) <= 512 * 1024:
                found.append(rel)
    return sorted(found)


def compact(value, indent=""):
    """JSON with each list of numbers or strings on one line (the layout scripts/tokenizer-expected.js writes)."""
    if isinstance(value, list) and all(isinstance(x, (int, str)) for x in value):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    inner = indent + " "
    if isinstance(value, list):
        return "[\n" + ",\n".join(inner + compact(x, inner) for x in value) + "\n" + indent + "]" if value else "[]"
    if isinstance(value, dict):
        return ("{\n" + ",\n".join(inner + json.dumps(k, ensure_ascii=False) + ": " + compact(v, inner)
                                   for k, v in value.items()) + "\n" + indent + "}") if value else "{}"
    return json.dumps(value, ensure_ascii=False)


def apply_variant(base, variant):
    doc = json.loads(json.dumps(base))
    next_id = max([-1] + list(doc["model"]["vocab"].values()) + [t["id"] for t in doc["added_tokens"]]) + 1
    for token in variant.get("append_added_tokens", []):
        doc["added_tokens"].append(dict({"id": next_id}, **token))
        next_id += 1
    for dotted, value in variant.get("set", {}).items():
        keys = dotted.split(".")
        node = doc
        for key in keys[:-1]:
            node = node[key]
        node[keys[-1]] = json.loads(json.dumps(value))

    def id_of(content):
        return next(t["id"] for t in doc["added_tokens"] if t["content"] == content)

    def resolve(node):
        if not node:
            return
        if node.get("type") == "Sequence" and "processors" in node:
            for inner in node["processors"]:
                resolve(inner)
        if node.get("type") == "TemplateProcessing":
            for entry in node["special_tokens"].values():
                entry["ids"] = [id_of(x) if isinstance(x, str) else x for x in entry["ids"]]

    resolve(doc.get("post_processor"))
    return doc


def train(texts, vocab_size, path):
    from tokenizers import Regex, Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
    tok = Tokenizer(models.BPE())
    tok.normalizer = normalizers.NFC()
    tok.pre_tokenizer = pre_tokenizers.Sequence([
        pre_tokenizers.Split(Regex(QWEN2), behavior="isolated", invert=False),
        pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, min_frequency=2, special_tokens=SPECIALS,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(texts, trainer=trainer, length=len(texts))
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tok.save(path)
    # Re-written on one line (the same document): pretty-printing spends four lines on each merge.
    doc = json.load(open(path, encoding="utf-8"))
    with open(path, "w", encoding="utf-8") as f:
        json.dump(doc, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
    return tok


def expected_for(name, tokenizer_path, fixtures, root, sources, version):
    from tokenizers import Tokenizer
    base = json.load(open(tokenizer_path, encoding="utf-8"))
    cases = json.load(open(os.path.join(fixtures, "cases.json"), encoding="utf-8"))["cases"]
    variants = json.load(open(os.path.join(fixtures, "variants.json"), encoding="utf-8"))["variants"]
    text_names = sorted(os.listdir(os.path.join(fixtures, "texts")))
    out = {"schema": "cudaperf-tokenizer-expected/1", "producer": "tokenizers %s (python)" % version,
           "tokenizer": name + "/tokenizer.json",
           "repo_files": {rel: fnv1a(open(os.path.join(root, rel), "rb").read()) for rel in sources},
           "variants": {}}
    for variant_name, variant in variants.items():
        tok = Tokenizer.from_str(json.dumps(apply_variant(base, variant)))
        has_template = "TemplateProcessing" in json.dumps(variant.get("set", {}))
        result = {"cases": [], "texts": {}}
        for text in cases:
            ids = tok.encode(text).ids
            entry = {"ids": ids}
            decoded = tok.decode(ids, skip_special_tokens=False)
            skipped = tok.decode(ids, skip_special_tokens=True)
            if decoded != text:
                entry["decoded"] = decoded
            if skipped != decoded:
                entry["decoded_skip_special"] = skipped
            if variant_name in PRETOKEN_VARIANTS:
                entry["pretokens"] = [piece for piece, _ in tok.pre_tokenizer.pre_tokenize_str(text)]
            if has_template:
                entry["ids_plain"] = tok.encode(text, add_special_tokens=False).ids
            result["cases"].append(entry)
        for text_name in text_names:
            ids = tok.encode(read_text(os.path.join(fixtures, "texts", text_name))).ids
            result["texts"][text_name] = {"ids": ids} if variant_name == "qwen2" else \
                {"count": len(ids), "digest": ids_digest(ids)}
        if variant_name in REPO_VARIANTS:
            result["repo"] = {}
            for rel in sources:
                ids = tok.encode(read_text(os.path.join(root, rel))).ids
                result["repo"][rel] = [len(ids), ids_digest(ids)]
        out["variants"][variant_name] = result
        print("%s %s: %d cases, %d texts%s" % (name, variant_name, len(cases), len(text_names),
                                              ", %d repository files" % len(sources) if "repo" in result else ""))
    return out


def check_transformers(fixtures):
    """transformers' AutoTokenizer on ours-repo/ (tokenizer.json + tokenizer_config.json from cudaperf)."""
    import transformers
    from tokenizers import Tokenizer
    folder = os.path.join(fixtures, "ours-repo")
    result = {"version": transformers.__version__, "loaded": False}
    auto = transformers.AutoTokenizer.from_pretrained(folder)
    result.update(loaded=True, cls=type(auto).__name__)
    reference = Tokenizer.from_file(os.path.join(folder, "tokenizer.json"))
    cases = json.load(open(os.path.join(fixtures, "cases.json"), encoding="utf-8"))["cases"]
    same = differ = decode_differ = 0
    mismatches = []
    for i, text in enumerate(cases):
        ours = auto(text)["input_ids"]
        theirs = reference.encode(text).ids
        if ours == theirs:
            same += 1
        else:
            differ += 1
            mismatches.append({"case": i, "transformers": ours[:20], "tokenizers": theirs[:20]})
        if auto.decode(theirs) != reference.decode(theirs, skip_special_tokens=False):
            decode_differ += 1
    result.update(ids_same=same, ids_differ=differ, decode_differ=decode_differ, id_mismatches=mismatches[:10])
    chat = json.load(open(os.path.join(fixtures, "chat.json"), encoding="utf-8"))["cases"]
    chat_same = chat_differ = 0
    chat_errors = []
    for i, c in enumerate(chat):
        try:
            rendered = auto.apply_chat_template(c["messages"], tokenize=False,
                                                add_generation_prompt=c["add_generation_prompt"])
        except Exception as e:  # transformers refusing an input (an empty conversation) is no difference
            chat_errors.append({"case": i, "error": repr(e)[:300]})
            continue
        if rendered == c["expected"]:
            chat_same += 1
        else:
            chat_differ += 1
            chat_errors.append({"case": i, "rendered": rendered[:300], "expected": c["expected"][:300]})
    result.update(chat_same=chat_same, chat_differ=chat_differ, chat_notes=chat_errors)
    return result


def measure_speed(fixtures, root, sources, cudaperf_tokenizer):
    """Tokens per second on the repository's .cu files: tokenizers' encode one file at a time (one
    thread) and encode_batch (all cores), and cudaperf-tokenizer bench where it was built."""
    from tokenizers import Tokenizer
    tok = Tokenizer.from_file(os.path.join(fixtures, "ours-repo", "tokenizer.json"))
    files = [os.path.join(root, rel) for rel in sources if rel.endswith(".cu")]
    texts = [read_text(f) for f in files]
    result = {"files": len(files), "bytes": sum(len(t.encode()) for t in texts)}
    passes = []
    for _ in range(6):
        start = time.perf_counter()
        tokens = sum(len(tok.encode(t).ids) for t in texts)
        passes.append(time.perf_counter() - start)
    result.update(tokens=tokens, hf_first_s=passes[0], hf_best_s=min(passes[1:]),
                  hf_first_tokens_per_s=tokens / passes[0], hf_best_tokens_per_s=tokens / min(passes[1:]))
    start = time.perf_counter()
    batch_tokens = sum(len(e.ids) for e in tok.encode_batch(texts))
    result["hf_batch_tokens_per_s"] = batch_tokens / (time.perf_counter() - start)
    if cudaperf_tokenizer:
        run = subprocess.run([cudaperf_tokenizer, "bench", "--tokenizer", os.path.join(fixtures, "ours-repo"),
                              "--repeat", "5"] + files, capture_output=True, text=True, timeout=120)
        result["cudaperf_bench"] = run.stdout.strip().splitlines() + run.stderr.strip().splitlines()
        same = 0
        for f in files:  # the same ids as tokenizers, file by file, straight from the CLI
            run = subprocess.run([cudaperf_tokenizer, "encode", "--tokenizer", os.path.join(fixtures, "ours-repo"), f],
                                 capture_output=True, text=True, timeout=60)
            if run.returncode == 0 and json.loads(run.stdout)["ids"] == tok.encode(read_text(f)).ids:
                same += 1
        result["cudaperf_cli_same_ids"] = "%d of %d files" % (same, len(files))
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    parser.add_argument("--out", required=True)
    parser.add_argument("--cudaperf-tokenizer", default="")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    fixtures = os.path.join(root, "test/learn/fixtures/tokenizer")
    out = os.path.join(os.path.abspath(args.out), "tokenizer")
    os.makedirs(os.path.join(out, "expected"), exist_ok=True)
    import tokenizers
    checks = {"schema": "cudaperf-tokenizer-hf-checks/1", "tokenizers": tokenizers.__version__, "steps": {}}
    sources = repo_sources(root)
    print("tokenizers %s; %d repository source files" % (tokenizers.__version__, len(sources)))

    def step(name, function):
        start = time.time()
        try:
            value = function()
            checks["steps"][name] = {"ok": True, "seconds": round(time.time() - start, 1)}
            print("== %s: ok (%.1f s)" % (name, time.time() - start))
            return value
        except Exception:
            checks["steps"][name] = {"ok": False, "error": traceback.format_exc()[-2000:]}
            print("== %s: FAILED\n%s" % (name, traceback.format_exc()))
            return None

    def train_repo():
        train([read_text(os.path.join(root, rel)) for rel in sources], 3000, os.path.join(out, "hf-repo", "tokenizer.json"))
        with open(os.path.join(out, "hf-repo", "training-files.json"), "w") as f:
            json.dump({"about": "the files hf-repo/tokenizer.json was trained on, with their FNV-1a digests",
                       "files": {rel: fnv1a(open(os.path.join(root, rel), "rb").read()) for rel in sources}}, f, indent=1)
            f.write("\n")
        # The commit of those files, so that tests read a file edited since from git (TokenizerFixtures.h,
        # recordedSource): SOURCE_COMMIT where the tree came from `git archive` (device-tree.sh src), else git.
        commit = ""
        if os.path.exists(os.path.join(root, "SOURCE_COMMIT")):
            commit = open(os.path.join(root, "SOURCE_COMMIT")).read().strip()
        else:
            try:
                commit = subprocess.run(["git", "-C", root, "rev-parse", "HEAD"], capture_output=True,
                                        text=True, check=True).stdout.strip()
            except (OSError, subprocess.CalledProcessError):
                pass
        if len(commit) == 40:
            with open(os.path.join(out, "repo-sources.json"), "w") as f:
                json.dump({"about": "the commit whose tree the repository-source fixtures were made from; tests read "
                                    "a file edited since from here with git cat-file", "commit": commit}, f, indent=1)
                f.write("\n")

    def train_small():
        names = sorted(os.listdir(os.path.join(fixtures, "texts")))
        train([read_text(os.path.join(fixtures, "texts", n)) for n in names], 600, os.path.join(out, "hf-small", "tokenizer.json"))

    def write_expected(name, tokenizer_path):
        doc = expected_for(name, tokenizer_path, fixtures, root, sources, tokenizers.__version__)
        with open(os.path.join(out, "expected", name + ".json"), "w", encoding="utf-8") as f:
            f.write(compact(doc) + "\n")

    step("train hf-repo", train_repo)
    step("train hf-small", train_small)
    if os.path.exists(os.path.join(out, "hf-repo", "tokenizer.json")):
        step("expected hf-repo", lambda: write_expected("hf-repo", os.path.join(out, "hf-repo", "tokenizer.json")))
    step("expected ours-repo", lambda: write_expected("ours-repo", os.path.join(fixtures, "ours-repo", "tokenizer.json")))
    checks["transformers"] = step("transformers on ours-repo", lambda: check_transformers(fixtures))
    checks["speed"] = step("speed", lambda: measure_speed(fixtures, root, sources, args.cudaperf_tokenizer))
    with open(os.path.join(out, "hf-checks.json"), "w", encoding="utf-8") as f:
        json.dump(checks, f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(json.dumps({k: v for k, v in checks.items() if k != "steps"}, indent=1, ensure_ascii=False)[:4000])
    failed = [name for name, s in checks["steps"].items() if not s["ok"]]
    print("RESULT: " + ("ok" if not failed else "FAILED: " + ", ".join(failed)))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
