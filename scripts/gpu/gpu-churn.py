#!/usr/bin/env python3
"""Churns GPU memory and compute beside evaluators, as a trainer on the same GPU would.

usage: gpu-churn.py [--gib 8] [--seconds 600] [--log FILE]

In a loop: allocate --gib GiB, fill it, run a few bf16 matmuls (8192^2), free it and return the
memory to the driver (torch.cuda.empty_cache), so other processes see device-wide free memory
swing by gigabytes. An out-of-memory error (another process took the GPU) is counted and waited
out. Prints one line per second of progress; ends after --seconds or on SIGTERM.
"""
import argparse
import signal
import sys
import time

import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gib", type=float, default=8)
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--log", default=None)
    args = ap.parse_args()
    log = open(args.log, "a") if args.log else sys.stdout
    stop = {"now": False}
    signal.signal(signal.SIGTERM, lambda *_: stop.update(now=True))
    a = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    n_elems = int(args.gib * (1 << 30)) // 4
    start = last = time.time()
    cycles = ooms = matmuls = 0
    while not stop["now"] and time.time() - start < args.seconds:
        try:
            big = torch.empty(n_elems, device="cuda", dtype=torch.float32)
            big.fill_(float(cycles % 7))
            for _ in range(4):
                c = a @ b
                matmuls += 1
            torch.cuda.synchronize()
            del big, c
            torch.cuda.empty_cache()
            cycles += 1
        except torch.cuda.OutOfMemoryError:
            ooms += 1
            torch.cuda.empty_cache()
            time.sleep(0.2)
        if time.time() - last >= 1:
            last = time.time()
            print(f"churn t={last - start:.0f}s cycles={cycles} matmuls={matmuls} ooms={ooms}", file=log, flush=True)
    print(f"churn done: cycles={cycles} matmuls={matmuls} ooms={ooms} seconds={time.time() - start:.1f}",
          file=log, flush=True)


if __name__ == "__main__":
    main()
