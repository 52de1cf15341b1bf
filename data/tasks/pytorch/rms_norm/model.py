"""RMS normalization over the last dimension of a (batch_size, seq_len, hidden) tensor."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """out = x * rsqrt(mean(x^2 over the last dimension) + 1e-6) * weight (a hidden-sized parameter)."""

    def __init__(self, hidden, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.eps = eps

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


batch_size = 4
seq_len = 128
hidden = 1024

CONFIGS = {
    "small": {"batch_size": 2, "seq_len": 7, "hidden": 100},
    "medium": {"batch_size": 4, "seq_len": 128, "hidden": 1024},
    "large": {"batch_size": 8, "seq_len": 512, "hidden": 2048},
}

# The weight starts at 1; a random weight makes an implementation that ignores it fail.
DISTRIBUTIONS = {"weight": {"uniform": [0.5, 1.5]}}


def get_inputs():
    x = torch.randn(batch_size, seq_len, hidden)
    return [x]


def get_init_inputs():
    return [hidden, 1e-6]
