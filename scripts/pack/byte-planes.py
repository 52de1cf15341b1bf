#!/usr/bin/env python3
"""Byte planes of a stream, so that zstd sees bf16 tensors' sign/exponent bytes apart from their mantissa bytes.

An arm's compact trainer state (cudaperf-train compact-state: bf16 LoRA weights and AdamW moments) barely
compresses as it is (6.6 MB tar -> 5.04 MB with zstd -19): each bf16 value's high byte (sign and exponent) is
highly predictable, its low byte is not, and interleaved they defeat the match finder. Written here because no
Debian tool does this transform (c-blosc's shuffle filter ships as a library only); python3 is on every host
that packs or unpacks a state, numpy is not, so plain byte slicing.

  byte-planes.py split < state.tar | zstd -19 > state.tar.bp.zst
  zstd -dc state.tar.bp.zst | byte-planes.py join > state.tar

Format: b"CPBP1\\n", the input's length N as 8 little-endian bytes, the N//2 bytes at odd offsets, then the
N - N//2 bytes at even offsets. Stdin to stdout. Exit 0; 2 when join's input is not this format (wrong magic,
a length that disagrees with the bytes that follow); 64 for a usage error.
"""
import sys

MAGIC = b"CPBP1\n"


def split(data: bytes) -> bytes:
    return MAGIC + len(data).to_bytes(8, "little") + data[1::2] + data[0::2]


def join(blob: bytes) -> bytes:
    head = len(MAGIC) + 8
    if len(blob) < head or blob[:len(MAGIC)] != MAGIC:
        raise ValueError("not a byte-planes stream (no CPBP1 header)")
    n = int.from_bytes(blob[len(MAGIC):head], "little")
    body = blob[head:]
    if len(body) != n:
        raise ValueError(f"the header says {n} bytes, {len(body)} follow (truncated or trailing data)")
    odd, even = body[:n // 2], body[n // 2:]
    out = bytearray(n)
    out[0::2] = even
    out[1::2] = odd
    return bytes(out)


def main(argv) -> int:
    if len(argv) != 2 or argv[1] not in ("split", "join"):
        print("usage: byte-planes.py split|join < IN > OUT", file=sys.stderr)
        return 64
    data = sys.stdin.buffer.read()
    try:
        out = split(data) if argv[1] == "split" else join(data)
    except ValueError as e:
        print(f"byte-planes: {e}", file=sys.stderr)
        return 2
    sys.stdout.buffer.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
