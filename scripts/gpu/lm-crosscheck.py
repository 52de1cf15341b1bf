#!/usr/bin/env python3
"""cudaperf-lm against Hugging Face transformers, on the GPU host (scripts/gpu/lm-crosscheck.sh runs it).

  fixtures  tiny random Qwen2 / Qwen3 / Llama checkpoints made and saved by transformers (fp32 and bf16,
            sharded, tied and untied, three rope types), their transformers outputs stored as fixtures for
            the CPU test (test/learn/fixtures/hf), and cudaperf-lm compared with transformers on the GPU:
            last-position logits (fp32 <= 1e-4, bf16 <= 2e-2), greedy generations (64 tokens, single and
            left-padded batch), and checkpoints written by cudaperf-lm loaded by transformers.
  speed     generated tokens/s at batch 64: cudaperf-lm generate against transformers' generate, same
            configs, same run (the SFT-sized model and a random 1.5B-shaped Qwen2).
  memory    peak GPU memory of one training step (cudaperf-train fit) for 0.5B/1.5B/7B/14B shapes,
            full fine-tuning vs LoRA, with gradient checkpointing; arithmetic where a run cannot fit.

Each part writes a JSON document and prints a short table; a failing case is recorded, never fatal.
"""
import argparse
import concurrent.futures
import json
import math
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time

import torch

PROMPT_LENGTHS = [1, 5, 17, 40]
GREEDY_TOKENS = 64
BATCH_TOKENS = 32
MIN_MARGIN = 1e-3  # a greedy path whose top-2 logits come closer than this is not a fair test


def log(*args):
    print(*args, flush=True)


def run(cmd, timeout=300, env=None):
    start = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    return p.returncode, p.stdout, p.stderr, time.time() - start


def make_config(family, seed_shape):
    """A tiny config of one family; rope_parameters (transformers 5) with a transformers 4 fallback."""
    import transformers
    common = dict(vocab_size=512, hidden_size=64, intermediate_size=128, num_hidden_layers=2,
                  num_attention_heads=4, max_position_embeddings=512, rms_norm_eps=1e-6,
                  initializer_range=0.1, bos_token_id=None, eos_token_id=None, pad_token_id=None)
    common.update(seed_shape.get("extra", {}))
    rope = seed_shape["rope"]
    cls = {"qwen2": transformers.Qwen2Config, "qwen3": transformers.Qwen3Config,
           "llama": transformers.LlamaConfig}[family]
    try:
        return cls(**common, rope_parameters=dict(rope))
    except TypeError:
        legacy = dict(common, rope_theta=rope["rope_theta"])
        if rope["rope_type"] != "default":
            legacy["rope_scaling"] = {k: v for k, v in rope.items() if k != "rope_theta"}
        return cls(**legacy)


FIXTURES = [
    # name, family, stored dtype, shard size, shape extras and rope
    ("qwen2-fp32", "qwen2", torch.float32, None,
     {"extra": {"num_key_value_heads": 2, "tie_word_embeddings": False},
      "rope": {"rope_type": "default", "rope_theta": 10000.0}}),
    ("qwen2-bf16-sharded-tied", "qwen2", torch.bfloat16, "100KB",
     {"extra": {"num_key_value_heads": 2, "tie_word_embeddings": True},
      "rope": {"rope_type": "default", "rope_theta": 1000000.0}}),
    ("qwen3-fp32-tied-mqa", "qwen3", torch.float32, None,
     {"extra": {"num_key_value_heads": 1, "head_dim": 32, "tie_word_embeddings": True},
      "rope": {"rope_type": "default", "rope_theta": 1000000.0}}),
    ("llama-fp32-llama3rope-bias", "llama", torch.float32, "200KB",
     {"extra": {"num_key_value_heads": 2, "attention_bias": True, "mlp_bias": True, "tie_word_embeddings": False},
      "rope": {"rope_type": "llama3", "rope_theta": 500000.0, "factor": 8.0, "low_freq_factor": 1.0,
               "high_freq_factor": 4.0, "original_max_position_embeddings": 64}}),
    ("llama-bf16-linearrope-mha", "llama", torch.bfloat16, None,
     {"extra": {"num_key_value_heads": 4, "tie_word_embeddings": False},
      "rope": {"rope_type": "linear", "rope_theta": 10000.0, "factor": 2.0}}),
]


def model_class(family):
    import transformers
    return {"qwen2": transformers.Qwen2ForCausalLM, "qwen3": transformers.Qwen3ForCausalLM,
            "llama": transformers.LlamaForCausalLM}[family]


def from_pretrained(path, dtype):
    import transformers
    try:
        m = transformers.AutoModelForCausalLM.from_pretrained(path, dtype=dtype)
    except TypeError:
        m = transformers.AutoModelForCausalLM.from_pretrained(path, torch_dtype=dtype)
    return m.to("cuda").eval()


@torch.no_grad()
def last_logits(model, ids):
    return model(input_ids=torch.tensor([ids], device="cuda")).logits[0, -1].float().cpu()


@torch.no_grad()
def greedy_with_margin(model, ids, steps):
    """Greedy by full recomputation, and the smallest top-1/top-2 gap along the way."""
    seq, out, margin = list(ids), [], float("inf")
    for _ in range(steps):
        logits = model(input_ids=torch.tensor([seq], device="cuda")).logits[0, -1].float()
        top = torch.topk(logits, 2).values
        margin = min(margin, float(top[0] - top[1]))
        nxt = int(logits.argmax())
        out.append(nxt)
        seq.append(nxt)
    return out, margin


@torch.no_grad()
def hf_generate_batch(model, prompts, steps, pad=0):
    width = max(len(p) for p in prompts)
    ids = torch.full((len(prompts), width), pad, dtype=torch.long)
    mask = torch.zeros((len(prompts), width), dtype=torch.long)
    for i, p in enumerate(prompts):
        ids[i, width - len(p):] = torch.tensor(p)
        mask[i, width - len(p):] = 1
    out = model.generate(input_ids=ids.cuda(), attention_mask=mask.cuda(), do_sample=False, max_new_tokens=steps,
                         pad_token_id=pad)
    return [row[width:].tolist() for row in out.cpu()]


def lm_logits(lm, model_dir, seqs, device, dtype, tmp):
    path = os.path.join(tmp, "ids-%s-%s-%d.jsonl" % (device, dtype, random.randrange(1 << 30)))
    with open(path, "w") as f:
        for s in seqs:
            f.write(json.dumps({"ids": s}) + "\n")
    rc, out, err, secs = run([lm, "logits", "--model", model_dir, "--ids-file", path, "--device", device,
                              "--dtype", dtype])
    if rc != 0:
        raise RuntimeError("cudaperf-lm logits rc=%d: %s" % (rc, err.strip()[-800:]))
    return [torch.tensor(json.loads(line)["logits"]) for line in out.splitlines() if line.strip()]


def lm_generate(lm, model_dir, prompts, steps, device, dtype, tmp, each):
    path = os.path.join(tmp, "prompts-%d.jsonl" % random.randrange(1 << 30))
    with open(path, "w") as f:
        for p in prompts:
            f.write(json.dumps({"ids": p}) + "\n")
    cmd = [lm, "generate", "--model", model_dir, "--prompts-file", path, "--greedy", "--max-new-tokens", str(steps),
           "--ignore-eos", "--device", device, "--dtype", dtype]
    if each:
        cmd.append("--each")
    rc, out, err, secs = run(cmd)
    if rc != 0:
        raise RuntimeError("cudaperf-lm generate rc=%d: %s" % (rc, err.strip()[-800:]))
    return [r["tokens"] for r in json.loads(out)["rows"]]


def max_diff(a, b):
    return float((a.double() - b.double()).abs().max())


def fixtures(args):
    import transformers
    out_root = os.path.join(args.out, "fixtures", "hf")
    os.makedirs(out_root, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix="lm-crosscheck-")
    results = {"schema": "cudaperf-lm-crosscheck/1", "transformers": transformers.__version__,
               "torch": torch.__version__, "device": torch.cuda.get_device_name(), "fixtures": []}
    for index, (name, family, dtype, shard, shape) in enumerate(FIXTURES):
        r = {"name": name, "family": family, "stored_dtype": str(dtype).replace("torch.", ""), "checks": {}}
        results["fixtures"].append(r)
        try:
            torch.manual_seed(1000 + index)
            config = make_config(family, shape)
            model = model_class(family)(config).eval()
            d = os.path.join(out_root, name)
            shutil.rmtree(d, ignore_errors=True)
            model = model.to(dtype)
            kwargs = {"max_shard_size": shard} if shard else {}
            model.save_pretrained(d, **kwargs)
            for extra in ("generation_config.json",):
                if os.path.exists(os.path.join(d, extra)):
                    os.remove(os.path.join(d, extra))
            r["files"] = sorted(os.listdir(d))
            ref32 = from_pretrained(d, torch.float32)
            refbf = from_pretrained(d, torch.bfloat16)
            rng = random.Random(index)
            cases = [[rng.randrange(512) for _ in range(n)] for n in PROMPT_LENGTHS]
            want32 = [last_logits(ref32, c) for c in cases]
            wantbf = [last_logits(refbf, c) for c in cases]
            # Greedy prompts with clear winners all the way (near-ties would test rounding, not the model).
            greedy, tried = [], 0
            while len(greedy) < 2 and tried < 40:
                tried += 1
                p = [rng.randrange(512) for _ in range(rng.randrange(3, 24))]
                tokens, margin = greedy_with_margin(ref32, p, GREEDY_TOKENS)
                if margin >= MIN_MARGIN:
                    greedy.append({"ids": p, "tokens": tokens, "min_margin": margin})
            hf_gen = [hf_generate_batch(ref32, [g["ids"]], GREEDY_TOKENS)[0] for g in greedy]
            r["checks"]["hf_generate_equals_recomputed_greedy"] = all(a == g["tokens"] for a, g in zip(hf_gen, greedy))
            batch, tried = None, 0
            while batch is None and tried < 40:
                tried += 1
                prompts = [[rng.randrange(512) for _ in range(n)] for n in (2, 9, 5)]
                alone = [greedy_with_margin(ref32, p, BATCH_TOKENS) for p in prompts]
                padded = hf_generate_batch(ref32, prompts, BATCH_TOKENS)
                if all(m >= MIN_MARGIN for _, m in alone) and padded == [t for t, _ in alone]:
                    batch = {"prompts": prompts, "tokens": padded}
            expected = {"schema": "cudaperf-hf-fixture/1", "transformers": transformers.__version__,
                        "torch": torch.__version__, "made_by": "scripts/gpu/lm-crosscheck.py fixtures",
                        "family": family, "stored_dtype": r["stored_dtype"], "logits_tolerance": 1e-4,
                        "cases": [{"ids": c, "last_logits": [round(float(x), 7) for x in w]}
                                  for c, w in zip(cases, want32)],
                        "greedy": greedy}
            if batch:
                expected["batch"] = batch
            with open(os.path.join(d, "expected.json"), "w") as f:
                json.dump(expected, f)
            r["greedy_prompts"] = len(greedy)
            r["batch"] = batch is not None

            # cudaperf-lm on the same checkpoint.
            def compare(device, dt, want, tol, key):
                got = lm_logits(args.lm, d, cases, device, dt, tmp)
                diff = max(max_diff(g, w) for g, w in zip(got, want))
                r["checks"][key] = {"max_abs_diff": diff, "tolerance": tol, "ok": diff <= tol}
            jobs = [("cuda", "float32", want32, 1e-4, "logits_cuda_fp32"),
                    ("cuda", "bfloat16", wantbf, 2e-2, "logits_cuda_bf16"),
                    ("cpu", "float32", want32, 1e-4, "logits_cpu_fp32")]
            with concurrent.futures.ThreadPoolExecutor(4) as pool:
                futures = [pool.submit(compare, *j) for j in jobs]
                gen_single = pool.submit(lm_generate, args.lm, d, [g["ids"] for g in greedy], GREEDY_TOKENS,
                                         "cuda", "float32", tmp, True)
                gen_batch = pool.submit(lm_generate, args.lm, d, batch["prompts"], BATCH_TOKENS, "cuda", "float32",
                                        tmp, False) if batch else None
                for f in futures:
                    f.result()
                got = gen_single.result()
                r["checks"]["greedy_64_cuda_fp32"] = {"ok": got == [g["tokens"] for g in greedy],
                                                      "prompts": len(greedy)}
                if gen_batch:
                    r["checks"]["greedy_left_padded_batch_cuda_fp32"] = {"ok": gen_batch.result() == batch["tokens"]}
            # Checkpoints written by cudaperf-lm load in transformers: a re-save (shards) and a random init.
            resaved = os.path.join(tmp, name + "-resaved")
            rc, _, err, _ = run([args.lm, "convert", "--model", d, "--out", resaved, "--dtype", "float32",
                                 "--max-shard-mb", "0.15"])
            if rc != 0:
                raise RuntimeError("convert: " + err[-500:])
            back = from_pretrained(resaved, torch.float32)
            diff = max(max_diff(last_logits(back, c), w) for c, w in zip(cases, want32))
            r["checks"]["cudaperf_written_checkpoint_in_transformers"] = {"max_abs_diff": diff, "ok": diff <= 1e-6}
            fresh = os.path.join(tmp, name + "-init")
            rc, _, err, _ = run([args.lm, "init", "--config", os.path.join(d, "config.json"), "--out", fresh,
                                 "--seed", "5"])
            if rc != 0:
                raise RuntimeError("init: " + err[-500:])
            hf_fresh = from_pretrained(fresh, torch.float32)
            ours = lm_logits(args.lm, fresh, cases, "cuda", "float32", tmp)
            diff = max(max_diff(o, last_logits(hf_fresh, c)) for o, c in zip(ours, cases))
            r["checks"]["cudaperf_config_json_in_transformers"] = {"max_abs_diff": diff, "ok": diff <= 1e-4}
            del model, ref32, refbf, back, hf_fresh
            torch.cuda.empty_cache()
        except Exception as e:  # recorded, the next fixture still runs
            r["error"] = "%s: %s" % (type(e).__name__, str(e)[-1500:])
        log("fixture %-28s %s" % (name, "ERROR " + r["error"][:200] if "error" in r else
                                  " ".join("%s=%s" % (k, v["ok"] if isinstance(v, dict) else v)
                                           for k, v in r["checks"].items())))
    shutil.rmtree(tmp, ignore_errors=True)
    with open(os.path.join(args.out, "crosscheck.json"), "w") as f:
        json.dump(results, f, indent=1)
    failed = [f["name"] for f in results["fixtures"] if "error" in f or not all(
        (v["ok"] if isinstance(v, dict) else bool(v)) for v in f["checks"].values())]
    log("fixtures: %d made, %d with a failed check or error %s" % (len(results["fixtures"]), len(failed), failed))
    return 0 if not failed else 1


SFT_SHAPE = dict(model_type="qwen2", vocab_size=1920, hidden_size=512, intermediate_size=1536, num_hidden_layers=7,
                 num_attention_heads=8, num_key_value_heads=4, head_dim=64, max_position_embeddings=4096,
                 tie_word_embeddings=True, rope_theta=10000.0)
QWEN2_15B = dict(model_type="qwen2", vocab_size=151936, hidden_size=1536, intermediate_size=8960, num_hidden_layers=28,
                 num_attention_heads=12, num_key_value_heads=2, head_dim=128, max_position_embeddings=32768,
                 tie_word_embeddings=True, rope_theta=1000000.0)
QWEN25_05B = dict(QWEN2_15B, hidden_size=896, intermediate_size=4864, num_hidden_layers=24, num_attention_heads=14,
                  head_dim=64)
QWEN25_7B = dict(QWEN2_15B, vocab_size=152064, hidden_size=3584, intermediate_size=18944, num_hidden_layers=28,
                 num_attention_heads=28, num_key_value_heads=4, head_dim=128, tie_word_embeddings=False)
QWEN25_14B = dict(QWEN25_7B, hidden_size=5120, intermediate_size=13824, num_hidden_layers=48, num_attention_heads=40,
                  num_key_value_heads=8)


def write_config(shape, path):
    """config.json in transformers' form (both rope spellings), read by cudaperf and by transformers."""
    doc = dict(shape, architectures=["Qwen2ForCausalLM"], rms_norm_eps=1e-6, hidden_act="silu",
               initializer_range=0.02, rope_parameters={"rope_type": "default", "rope_theta": shape["rope_theta"]},
               use_sliding_window=False, bos_token_id=None, eos_token_id=None, pad_token_id=None)
    with open(path, "w") as f:
        json.dump(doc, f, indent=1)


def hf_qwen2_config(shape):
    import transformers
    kw = {k: v for k, v in shape.items() if k not in ("model_type", "head_dim", "rope_theta")}
    kw.update(bos_token_id=None, eos_token_id=None, pad_token_id=None)
    try:
        return transformers.Qwen2Config(**kw, rope_parameters={"rope_type": "default", "rope_theta": shape["rope_theta"]})
    except TypeError:
        return transformers.Qwen2Config(**kw, rope_theta=shape["rope_theta"])


def parameter_count(s):
    d, q, kv = s["hidden_size"], s["num_attention_heads"] * s["head_dim"], s["num_key_value_heads"] * s["head_dim"]
    layer = d * q + 2 * d * kv + q * d + q + 2 * kv + 3 * d * s["intermediate_size"] + 2 * d
    return s["vocab_size"] * d * (1 if s["tie_word_embeddings"] else 2) + s["num_hidden_layers"] * layer + d


def speed(args):
    import transformers
    results = {"schema": "cudaperf-lm-speed/1", "transformers": transformers.__version__, "torch": torch.__version__,
               "device": torch.cuda.get_device_name(), "batch": args.batch, "prompt_tokens": args.prompt_tokens,
               "new_tokens": args.new_tokens, "dtype": "bfloat16", "runs": []}
    tmp = tempfile.mkdtemp(prefix="lm-speed-")
    for name, shape in (("sft-23M", SFT_SHAPE), ("qwen2-1.5B-shape", QWEN2_15B)):
        cfg_path = os.path.join(tmp, name + ".json")
        write_config(shape, cfg_path)
        for mode in ("greedy", "sample"):
            row = {"model": name, "parameters": parameter_count(shape), "mode": mode}
            results["runs"].append(row)
            # cudaperf-lm: --repeat 3, the first run warms up.
            cmd = [args.lm, "generate", "--random-init", cfg_path, "--random-prompt-length", str(args.prompt_tokens),
                   "--batch", str(args.batch), "--max-new-tokens", str(args.new_tokens), "--ignore-eos",
                   "--device", "cuda", "--dtype", "bfloat16", "--repeat", "3", "--quiet", "--seed", "1"]
            cmd += ["--greedy"] if mode == "greedy" else ["--temperature", "0.8", "--top-p", "0.95"]
            try:
                rc, out, err, _ = run(cmd, timeout=240)
                if rc != 0:
                    raise RuntimeError("rc=%d %s" % (rc, err[-500:]))
                runs = json.loads(out)["runs"][1:]
                row["cudaperf_tokens_per_second"] = sum(r["tokens_per_second"] for r in runs) / len(runs)
            except Exception as e:
                row["cudaperf_error"] = str(e)[-800:]
            # transformers' generate on the same shape (its own random weights), same batch and lengths.
            try:
                config = hf_qwen2_config(shape)
                torch.manual_seed(0)
                with torch.device("cuda"):
                    model = transformers.Qwen2ForCausalLM(config).to(torch.bfloat16).eval()
                ids = torch.randint(0, shape["vocab_size"], (args.batch, args.prompt_tokens), device="cuda")
                mask = torch.ones_like(ids)
                kw = dict(do_sample=False) if mode == "greedy" else dict(do_sample=True, temperature=0.8, top_p=0.95,
                                                                         top_k=0)
                times = []
                with torch.no_grad():
                    model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=16, pad_token_id=0, **kw)
                    for _ in range(2):
                        torch.cuda.synchronize()
                        t = time.time()
                        out = model.generate(input_ids=ids, attention_mask=mask, max_new_tokens=args.new_tokens,
                                             min_new_tokens=args.new_tokens, pad_token_id=0, **kw)
                        torch.cuda.synchronize()
                        times.append(time.time() - t)
                generated = (out.shape[1] - args.prompt_tokens) * args.batch
                row["transformers_tokens_per_second"] = generated / (sum(times) / len(times))
                row["transformers_generated_per_row"] = out.shape[1] - args.prompt_tokens
                del model
                torch.cuda.empty_cache()
            except Exception as e:
                row["transformers_error"] = "%s: %s" % (type(e).__name__, str(e)[-800:])
            if "cudaperf_tokens_per_second" in row and "transformers_tokens_per_second" in row:
                row["ratio"] = row["cudaperf_tokens_per_second"] / row["transformers_tokens_per_second"]
            log("speed %-18s %-6s cudaperf %8s tok/s  transformers %8s tok/s  ratio %s" % (
                name, mode, "%.0f" % row.get("cudaperf_tokens_per_second", float("nan")),
                "%.0f" % row.get("transformers_tokens_per_second", float("nan")),
                "%.2f" % row["ratio"] if "ratio" in row else row.get("cudaperf_error", row.get("transformers_error", ""))[:120]))
            with open(os.path.join(args.out, "speed.json"), "w") as f:
                json.dump(results, f, indent=1)
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


class MemorySampler:
    """Device memory in use (nvidia-smi, every 100 ms) while a command runs: its peak minus the idle level."""

    def __init__(self):
        self.peak = 0
        self.stop = threading.Event()

    def _read(self):
        out = subprocess.run(["nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits", "-i", "0"],
                             capture_output=True, text=True, timeout=10).stdout
        return int(out.strip().splitlines()[0]) * 1024 * 1024

    def __enter__(self):
        self.idle = self._read()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()
        return self

    def _loop(self):
        while not self.stop.is_set():
            try:
                self.peak = max(self.peak, self._read())
            except Exception:
                pass
            time.sleep(0.1)

    def __exit__(self, *exc):
        self.stop.set()
        self.thread.join()


def memory(args):
    total = torch.cuda.get_device_properties(0).total_memory
    results = {"schema": "cudaperf-lm-memory/1", "device": torch.cuda.get_device_name(), "device_bytes": total,
               "seq": args.seq, "batch": 1, "gradient_checkpointing": True, "runs": []}
    tmp = tempfile.mkdtemp(prefix="lm-memory-")
    shapes = (("Qwen2.5-0.5B", QWEN25_05B), ("Qwen2.5-1.5B", QWEN2_15B), ("Qwen2.5-7B", QWEN25_7B),
              ("Qwen2.5-14B", QWEN25_14B))
    for name, shape in shapes:
        cfg = os.path.join(tmp, name + ".json")
        write_config(shape, cfg)
        params = parameter_count(shape)
        for mode in ("full", "lora"):
            # Arithmetic (docs/training.md): full = bf16 weights + bf16 grads + fp32 master + 2 fp32 moments.
            estimate = params * (16 if mode == "full" else 2)
            row = {"model": name, "parameters": params, "mode": mode, "estimate_bytes_weights_and_state": estimate}
            results["runs"].append(row)
            if estimate > total:
                row["measured"] = False
                row["fits"] = False
                row["reason"] = "weights and optimizer state alone exceed the device (arithmetic)"
            else:
                cmd = [args.train, "fit", "--config", cfg, "--seq", str(args.seq), "--gradient-checkpointing"]
                if mode == "lora":
                    cmd += ["--lora-rank", "16"]
                with MemorySampler() as sampler:
                    try:
                        rc, out, err, secs = run(cmd, timeout=args.fit_timeout)
                    except subprocess.TimeoutExpired:
                        rc, out, err, secs = -1, "", "timeout", args.fit_timeout
                row["measured"] = True
                row["exit_code"] = rc
                row["seconds"] = secs
                row["peak_bytes"] = sampler.peak - sampler.idle
                row["fits"] = rc == 0
                if rc == 0:
                    row.update({k: v for k, v in json.loads(out.strip().splitlines()[-1]).items()
                                if k in ("step_seconds", "grad_norm")})
                else:
                    row["stderr"] = err.strip()[-400:]
            log("memory %-14s %-5s params %6.2fB  fits %-5s peak %s  (state estimate %.1f GB)" % (
                name, mode, params / 1e9, row["fits"],
                "%.1f GB" % (row["peak_bytes"] / 1e9) if row.get("measured") else "not run",
                estimate / 1e9))
            with open(os.path.join(args.out, "memory.json"), "w") as f:
                json.dump(results, f, indent=1)
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("part", choices=["fixtures", "speed", "memory"])
    ap.add_argument("--out", required=True)
    ap.add_argument("--lm", help="cudaperf-lm binary")
    ap.add_argument("--train", help="cudaperf-train binary")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--prompt-tokens", type=int, default=128)
    ap.add_argument("--new-tokens", type=int, default=256)
    ap.add_argument("--seq", type=int, default=2048)
    ap.add_argument("--fit-timeout", type=int, default=150)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    return {"fixtures": fixtures, "speed": speed, "memory": memory}[args.part](args)


if __name__ == "__main__":
    sys.exit(main())
