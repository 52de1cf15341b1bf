"""GELU, tanh approximation, over a (batch_size, dim) tensor."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """out = GELU(x), tanh approximation (approximate='tanh'): 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))."""

    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.nn.functional.gelu(x, approximate="tanh")


batch_size = 16
dim = 16384

# Elementwise: the large config is 8M elements (32 MB in, 32 MB out), a few tens of microseconds on an H200.
CONFIGS = {
    "small": {"batch_size": 4, "dim": 1000},
    "medium": {"batch_size": 16, "dim": 16384},
    "large": {"batch_size": 128, "dim": 65536},
}


def get_inputs():
    x = torch.randn(batch_size, dim)
    return [x]


def get_init_inputs():
    return []
