#!/usr/bin/env python3
"""The tiny dataset of the trainers' command-line tests (rl-cli-test.sh, dp-test.sh), written into the
current directory: manifest.jsonl over five shipped tasks (splits train/test, three families) and
shape.json, a one-layer Qwen2 shape with a 384-token vocabulary.
Usage: tiny-dataset.py SOURCE_DIR"""
import json
import os
import sys

root = os.path.join(sys.argv[1], "data", "tasks")
rows = [("saxpy", "train", "a"), ("vector_add", "train", "a"), ("reduce_sum", "train", "b"), ("transpose", "test", "a"),
        ("histogram", "test", "c")]
with open("manifest.jsonl", "w") as f:
    for name, split, family in rows:
        d = os.path.join(root, name)
        impls = sorted(os.listdir(os.path.join(d, "impls")))
        f.write(json.dumps({"task": name, "dir": d, "family": family, "kind": "c", "split": split,
                            "implementations": [{"file": "impls/" + i, "strategies": [], "baseline": i == "baseline.cu",
                                                 "expected": "neutral"} for i in impls]}) + "\n")
with open("shape.json", "w") as f:
    json.dump({"model_type": "qwen2", "vocab_size": 384, "hidden_size": 32, "intermediate_size": 64,
               "num_hidden_layers": 1, "num_attention_heads": 2, "num_key_value_heads": 1,
               "max_position_embeddings": 4096, "rope_theta": 10000.0, "tie_word_embeddings": True}, f)
