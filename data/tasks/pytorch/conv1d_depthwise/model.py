"""Depthwise 1-D convolution: nn.Conv1d(channels, channels, 5, groups=channels, bias=False), no padding."""
import torch
import torch.nn as nn


class Model(nn.Module):
    """out[n, c, i] = sum over k < 5 of conv.weight[c, 0, k] * x[n, c, i + k]; the output is length - 4 long."""

    def __init__(self, channels, kernel_size):
        super().__init__()
        self.conv = nn.Conv1d(channels, channels, kernel_size, groups=channels, bias=False)

    def forward(self, x):
        return self.conv(x)


batch_size = 8
channels = 64
length = 1024

CONFIGS = {
    "small": {"batch_size": 2, "channels": 8, "length": 100},
    "medium": {"batch_size": 8, "channels": 64, "length": 1024},
    "large": {"batch_size": 16, "channels": 256, "length": 4096},
}


def get_inputs():
    x = torch.randn(batch_size, channels, length)
    return [x]


def get_init_inputs():
    return [channels, 5]
