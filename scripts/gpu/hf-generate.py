#!/usr/bin/env python3
"""transformers' `generate` on a checkpoint, timed: the baseline cudaperf-lm's tokens/s is compared with in the
same device call (issue 34, item 3). Random prompts, EOS ignored (min_new_tokens = max_new_tokens), bf16 on CUDA,
a 16-token warm-up first. Sampling is plain: temperature 1.0, no top-k (transformers' default is 50), top-p 1.0.
Prints one JSON line: {"tokens_per_second", "batch", "prompt_tokens", "new_tokens", "sampling", "version",
"device", "cache"}; with --merge FILE also stores it in that JSON object file under "transformers_generate".
Usage: hf-generate.py CHECKPOINT [--batch 64] [--prompt 512] [--new 256] [--greedy] [--static-cache] [--merge FILE]
"""
import argparse
import json
import sys
import time


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkpoint")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--prompt", type=int, default=512)
    ap.add_argument("--new", type=int, default=256)
    ap.add_argument("--greedy", action="store_true")
    ap.add_argument("--static-cache", action="store_true", help="cache_implementation='static' (no torch.compile)")
    ap.add_argument("--merge")
    a = ap.parse_args()
    import torch
    import transformers
    model = transformers.AutoModelForCausalLM.from_pretrained(a.checkpoint, torch_dtype=torch.bfloat16).cuda().eval()
    torch.manual_seed(0)
    ids = torch.randint(0, model.config.vocab_size, (a.batch, a.prompt), device="cuda")
    kw = dict(pad_token_id=0, attention_mask=torch.ones_like(ids))
    kw.update(dict(do_sample=False) if a.greedy else dict(do_sample=True, temperature=1.0, top_p=1.0, top_k=0))
    if a.static_cache:
        kw["cache_implementation"] = "static"
    with torch.no_grad():
        model.generate(input_ids=ids, max_new_tokens=16, **kw)
        torch.cuda.synchronize()
        t = time.time()
        out = model.generate(input_ids=ids, max_new_tokens=a.new, min_new_tokens=a.new, **kw)
        torch.cuda.synchronize()
        seconds = time.time() - t
    result = {"tokens_per_second": (out.shape[1] - ids.shape[1]) * ids.shape[0] / seconds, "seconds": seconds,
              "batch": a.batch, "prompt_tokens": a.prompt, "new_tokens": a.new,
              "sampling": "greedy" if a.greedy else "t1", "cache": "static" if a.static_cache else "dynamic",
              "version": transformers.__version__, "torch": torch.__version__, "device": torch.cuda.get_device_name()}
    print(json.dumps(result))
    if a.merge:
        try:
            doc = json.load(open(a.merge))
        except (OSError, ValueError):
            doc = {}
        doc["transformers_generate"] = result
        json.dump(doc, open(a.merge, "w"), indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
