#!/usr/bin/env python3
"""A policy that always answers with a code block, for the RL command-line test (rl-cli-test.sh): from a tiny
Qwen2 checkpoint (one layer, its tokenizer), a copy whose next token depends only on the last one (attention
and MLP outputs zeroed, so the hidden state is the token's embedding) and follows the chain
  any other token -> ``` -> cuda -> ĊĊ -> x -> x -> ...
so that (near-)greedy sampling writes "```cuda\\n\\nxxxx...": an unterminated block whose code is "xxxx...",
which the trainer extracts and the stand-in evaluator and analyzer (test/reward/fake-eval.py,
test/learn/fake-analyze.py) pass, so the candidates reach the ranking model.
Usage: chain-model.py SOURCE_CHECKPOINT OUT_DIR"""
import json
import os
import shutil
import struct
import sys
from array import array


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    src, out = sys.argv[1], sys.argv[2]
    config = json.load(open(os.path.join(src, "config.json")))
    blob = open(os.path.join(src, "model.safetensors"), "rb").read()
    header = json.loads(blob[8:8 + struct.unpack("<Q", blob[:8])[0]])
    vocab = json.load(open(os.path.join(src, "tokenizer.json")))["model"]["vocab"]
    V, H = config["vocab_size"], config["hidden_size"]
    ids = {s: vocab[s] for s in ("```", "cuda", "ĊĊ", "x")}
    if H < 5 or len(set(ids.values())) != 4:
        raise SystemExit("chain-model: the tokenizer lacks the chain's tokens or the model is too narrow")
    # Embedding rows: one direction per chain token, direction 0 for every other token.
    dim = {ids["```"]: 4, ids["cuda"]: 1, ids["ĊĊ"]: 2, ids["x"]: 3}
    embed = array("f", [0.0] * (V * H))
    for t in range(V):
        embed[t * H + dim.get(t, 0)] = 1.0
    # Output rows: the successor of direction d scores 10 on d, everything else 0.
    head = array("f", [0.0] * (V * H))
    for d, successor in ((0, "```"), (4, "cuda"), (1, "ĊĊ"), (2, "x"), (3, "x")):
        head[ids[successor] * H + d] = 10.0
    tensors = {}
    for name, meta in header.items():
        if name == "__metadata__":
            continue
        n = 1
        for s in meta["shape"]:
            n *= s
        if name == "model.embed_tokens.weight":
            data = embed
        elif name.endswith("norm.weight"):
            data = array("f", [1.0] * n)
        else:
            data = array("f", [0.0] * n)  # projections: attention and MLP add nothing
        tensors[name] = (meta["shape"], data)
    tensors["lm_head.weight"] = ([V, H], head)
    offset, entries, chunks = 0, {}, []
    for name, (shape, data) in tensors.items():
        raw = data.tobytes()
        entries[name] = {"dtype": "F32", "shape": shape, "data_offsets": [offset, offset + len(raw)]}
        chunks.append(raw)
        offset += len(raw)
    text = json.dumps(entries).encode()
    text += b" " * (-len(text) % 8)
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "model.safetensors"), "wb") as f:
        f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))
    config["tie_word_embeddings"] = False
    config["dtype"] = config["torch_dtype"] = "float32"
    json.dump(config, open(os.path.join(out, "config.json"), "w"), indent=1)
    for f in ("tokenizer.json", "tokenizer_config.json"):
        if os.path.exists(os.path.join(src, f)):
            shutil.copy(os.path.join(src, f), os.path.join(out, f))
    return 0


if __name__ == "__main__":
    sys.exit(main())
