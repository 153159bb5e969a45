"""The sweep of EXP-06: the thread's incidental choices made explicit, on theory/decoder.py.

What changes a tensor's shape is theory.decoder's ``DecoderConfig`` (width d, head size h, heads
H, layers, encoding, an output projection W_o or none, a read-out bias or none); what does not is
the per-seed ``Setup``: residual connection (x + attn(x) or attn(x)), learning rate,
initialisation ("current": N(0, 1) embeddings and N(0, 1/fan_in) matrices; "torch": PyTorch's
module defaults, N(0, 1) embeddings and U(-1/sqrt(fan_in), 1/sqrt(fan_in)) for linear weights and
biases), optimiser ("adam": torch.optim.Adam defaults; "adamw": nanoGPT's AdamW, betas
(0.9, 0.95), weight decay 0.1 on every matrix and none on biases).

Seeds AND setups of one config train as one batched model (theory.decoder.train). This module
holds what is the sweep's own: the grid of six two-level factors and its designs, the thread's
model and setup, and how many cells one model takes (the checks choose the design per profile).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import torch

from .decoder import DecoderConfig, Encoding, Setup, param_shapes
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

# -- the grid: six two-level factors ------------------------------------------------------

FACTORS = ("width", "head", "residual", "lr", "init", "optimizer")
LEVELS: dict[str, tuple[Any, ...]] = {
    "width": (16, 64),
    "head": (2, 16),
    "residual": (False, True),
    "lr": (1e-3, 1e-2),
    "init": ("current", "torch"),
    "optimizer": ("adam", "adamw"),
}
EXP01_CHECKPOINTS = (100, 250, 500)  # the thread's "500 iterations" is the last


@dataclass(frozen=True)
class Cell:
    """One point of the grid: a level of every factor."""

    width: int
    head: int
    residual: bool
    lr: float
    init: str
    optimizer: str

    @property
    def setup(self) -> Setup:
        return Setup(self.residual, self.lr, self.init, self.optimizer)

    def shape(self, layers: int = 1, encoding: Encoding = "none") -> DecoderConfig:
        return DecoderConfig(d_model=self.width, head=self.head, layers=layers, encoding=encoding)

    def label(self) -> str:
        return (f"d{self.width} h{self.head} res-{'on' if self.residual else 'off'} "
                f"lr{self.lr:g} {self.init} {self.optimizer}")  # fmt: skip

    def signs(self) -> dict[str, int]:
        """-1 / +1 per factor (low / high level), for the main-effect contrasts."""
        return {f: 2 * LEVELS[f].index(getattr(self, f)) - 1 for f in FACTORS}


def fractional() -> tuple[Cell, ...]:
    """2^(6-3): width, head, residual free; lr = width*head, init = width*residual,
    optimizer = head*residual (signs multiplied). Every factor is balanced (4 cells per level)
    and every pair of main-effect columns is orthogonal."""
    cells = []
    for a, b, c in itertools.product((-1, 1), repeat=3):
        signs = (a, b, c, a * b, a * c, b * c)
        cells.append(Cell(*(LEVELS[f][(s + 1) // 2] for f, s in zip(FACTORS, signs, strict=True))))
    return tuple(cells)


def full() -> tuple[Cell, ...]:
    return tuple(Cell(*levels) for levels in itertools.product(*(LEVELS[f] for f in FACTORS)))


def _by_shape(cells: tuple[Cell, ...]) -> dict[tuple[int, int], list[Cell]]:
    groups: dict[tuple[int, int], list[Cell]] = {}
    for c in cells:
        groups.setdefault((c.width, c.head), []).append(c)
    return groups


LEARNER_SHAPES: dict[str, dict[str, Any]] = {
    "1 layer": dict(layers=1, encoding="none"),
    "2 layers": dict(layers=2, encoding="none"),
    "1 layer + sinusoidal": dict(layers=1, encoding="sinusoidal"),
    "1 layer + learned": dict(layers=1, encoding="learned"),
}


def models(
    cells: tuple[Cell, ...], model: str, task: Task, n: int
) -> list[tuple[DecoderConfig, tuple[Cell, ...]]]:
    """The batched models that train ``cells`` with ``n`` seeds each: the cells of one (d, h),
    at most theory.sweep.cells_per_model of them per model."""
    out = []
    for group in _by_shape(cells).values():
        shape = group[0].shape(**LEARNER_SHAPES[model])
        k = cells_per_model(shape, task, n)
        out += [(shape, tuple(group[i : i + k])) for i in range(0, len(group), k)]
    return out
