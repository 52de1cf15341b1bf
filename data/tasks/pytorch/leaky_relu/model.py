"""LeakyReLU (negative_slope 0.01) over a (batch_size, dim) tensor."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """out = LeakyReLU(x) with negative_slope 0.01: x if x > 0 else 0.01 x."""

    def __init__(self, negative_slope):
        super().__init__()
        self.act = nn.LeakyReLU(negative_slope)

    def forward(self, x):
        return self.act(x)


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
    return [0.01]
