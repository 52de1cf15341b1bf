"""Fused pair: layer normalization over the last dimension of a (batch_size, seq_len, hidden) tensor, then ReLU."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """out = relu((x - mean) / sqrt(var + 1e-5) * norm.weight + norm.bias) over the last dimension.

    nn.LayerNorm(hidden): biased variance (divided by hidden), eps 1e-5, affine weight and bias.
    """

    def __init__(self, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(hidden)

    def forward(self, x):
        return torch.relu(self.norm(x))


batch_size = 4
seq_len = 128
hidden = 1024

CONFIGS = {
    "small": {"batch_size": 2, "seq_len": 7, "hidden": 100},
    "medium": {"batch_size": 4, "seq_len": 128, "hidden": 1024},
    "large": {"batch_size": 16, "seq_len": 1024, "hidden": 512},
}

# nn.LayerNorm starts with weight 1 and bias 0; drawing them at random makes an implementation
# that ignores either fail.
DISTRIBUTIONS = {"norm_weight": {"uniform": [0.5, 1.5]}, "norm_bias": {"uniform": [-0.5, 0.5]}}


def get_inputs():
    x = torch.randn(batch_size, seq_len, hidden)
    return [x]


def get_init_inputs():
    return [hidden]
