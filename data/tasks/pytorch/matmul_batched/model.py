"""Batched matrix multiply: out[b] = A[b] @ B[b] with A (batch_size, m, k) and B (batch_size, k, n)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """out = torch.bmm(A, B): (batch_size, m, k) x (batch_size, k, n) -> (batch_size, m, n)."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.bmm(A, B)


batch_size = 8
m = 128
k = 256
n = 192

CONFIGS = {
    "small": {"batch_size": 2, "m": 33, "k": 65, "n": 17},
    "medium": {"batch_size": 8, "m": 128, "k": 256, "n": 192},
    "large": {"batch_size": 32, "m": 256, "k": 512, "n": 384},
}

TOLERANCE = {"atol": 1e-3, "rtol": 1e-3}


def get_inputs():
    A = torch.randn(batch_size, m, k)
    B = torch.randn(batch_size, k, n)
    return [A, B]


def get_init_inputs():
    return []
