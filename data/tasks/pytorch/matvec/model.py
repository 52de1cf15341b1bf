"""Matrix-vector multiply: out = A @ B with A (m, k) and B (k, 1)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """out = torch.matmul(A, B): (m, k) x (k, 1) -> (m, 1)."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)


m = 1024
k = 2048

CONFIGS = {
    "small": {"m": 33, "k": 100},
    "medium": {"m": 1024, "k": 2048},
    "large": {"m": 2048, "k": 8192},
}

# k = 8192: dot products ~90 in size.
TOLERANCE = {"atol": 2e-3, "rtol": 1e-3}


def get_inputs():
    A = torch.randn(m, k)
    B = torch.randn(k, 1)
    return [A, B]


def get_init_inputs():
    return []
