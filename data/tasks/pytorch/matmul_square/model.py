"""Square matrix multiply: C = A @ B with A, B of shape (n, n)."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """out = A @ B for square row-major fp32 matrices (no TF32)."""

    def __init__(self):
        super().__init__()

    def forward(self, A, B):
        return torch.matmul(A, B)


n = 1024

CONFIGS = {
    "small": {"n": 100},
    "medium": {"n": 512},
    "large": {"n": 2048},
}

# k = 2048 products of normal values: outputs ~45 in size; summation orders differ by ~1e-4.
TOLERANCE = {"atol": 1e-3, "rtol": 1e-3}


def get_inputs():
    A = torch.randn(n, n)
    B = torch.randn(n, n)
    return [A, B]


def get_init_inputs():
    return []
