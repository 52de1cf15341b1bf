"""Matrix multiply with the first operand transposed: out = A.T @ B, A (k, m), B (k, n)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """out = torch.matmul(A.T, B): A is stored (k, m), B (k, n), out (m, n)."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A.T, B)


m = 512
k = 256
n = 384

CONFIGS = {
    "small": {"m": 40, "k": 70, "n": 50},
    "medium": {"m": 512, "k": 256, "n": 384},
    "large": {"m": 2048, "k": 1024, "n": 2048},
}

TOLERANCE = {"atol": 1e-3, "rtol": 1e-3}


def get_inputs():
    A = torch.randn(k, m)
    B = torch.randn(k, n)
    return [A, B]


def get_init_inputs():
    return []
