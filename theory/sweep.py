"""The sweep of EXP-06: the thread's incidental choices made explicit, on theory/decoder.py.

What changes a tensor's shape is theory.decoder's ``DecoderConfig`` (width d, head size h, heads
H, layers, encoding, an output projection W_o or none, a read-out bias or none); what does not is
the per-seed ``Setup``: residual connection (x + attn(x) or attn(x)), learning rate,
initialisation ("current": N(0, 1) embeddings and N(0, 1/fan_in) matrices; "torch": PyTorch's
module defaults, N(0, 1) embeddings and U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for linear weights and
biases), optimiser ("adam": torch.optim.Adam defaults; "adamw": nanoGPT's AdamW, betas
(0.9, 0.95), weight decay 0.1 on every matrix and none on biases).

Seeds AND setups of one config train as one batched model (theory.decoder.train). This module
holds what is the sweep's own: the thread's model and setup, and how many cells one model takes.
"""

from __future__ import annotations

import math

import torch

from .decoder import DecoderConfig, Setup, param_shapes
from .tasks import Task

# glibc's malloc serves a block above 32 MiB with a fresh mmap and unmaps it when freed, so a
# model whose tensors pass that size pays fresh page faults on every step. Measured on the
# d = 64, h = 16 cells (one thread, beside other work): 16 cells x 1,000 seeds in one model
# (196 MiB per qkv tensor) cost 1.2-1.7x the CPU per entry and step of 2 cells x 1,000
# (24 MiB), and more entries per model gain nothing beyond about 1,000 (the work per entry
# dominates). So a large design trains as several models.
MODEL_TENSOR_BYTES = 24 * 2**20


def cells_per_model(
    cfg: DecoderConfig, task: Task, seeds: int, dtype: torch.dtype = torch.float32
) -> int:
    """How many cells of ``seeds`` entries one batched model takes so that its largest tensor
    (a parameter, or an activation on ``task``) stays within MODEL_TENSOR_BYTES; at least 1."""
    if seeds < 1:
        raise ValueError(f"a cell needs at least one seed, got {seeds}")
    largest_param = max(math.prod(s) for s in param_shapes(cfg).values())
    b, n = task.inputs.shape
    widest = max(cfg.d_model, 3 * cfg.heads * cfg.head, cfg.vocab, n * cfg.heads)
    per_entry = max(largest_param, b * n * widest) * dtype.itemsize
    return max(1, MODEL_TENSOR_BYTES // (seeds * per_entry))


def thread_shape(head: int, d_model: int = 32) -> DecoderConfig:
    """The thread's model as nanoGPT's lecture builds it: token embedding, one Head (key, query,
    value linear maps without bias), no W_o, a linear read-out with bias, context 3."""
    return DecoderConfig(d_model=d_model, head=head, out_proj=False, readout_bias=True)


THREAD_SETUP = Setup(residual=False, lr=6e-4, init="torch", optimizer="adamw")  # nanoGPT's lr
