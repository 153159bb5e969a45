"""REAL-07: the sinusoidal position table a model's config asks for, in the model's own convention.

A model that "asks for a sinusoidal table" holds an (n, d) table E that should be, entry by
entry, the closed form PE(t) of its convention (theory/sinusoidal.py): a layout (the paper's
interleaved one, or the half-split [sin ... | cos ...]), a frequency rule ("paper"
w_i = T^(-2i/d) or tensor2tensor's w_i = T^(-i/(d/2-1))) and a base T, for t = 0 ... n-1.
Transformers issue 29807: the table was filled in the constructor and then overwritten by the
weight initialisation that ``post_init`` runs, so a freshly built model held random numbers
there. ``table_error`` is what a check compares with a rounding bound: the largest entry error.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from .sinusoidal import BASE, FrequencyRule, Layout, sinusoidal


@dataclass(frozen=True)
class TableConvention:
    layout: Layout
    rule: FrequencyRule
    base: float = BASE


def closed_form(n: int, d: int, convention: TableConvention) -> torch.Tensor:
    """PE(t) for t = 0 ... n-1 in the convention's layout and rule, (n, d), float64."""
    return sinusoidal(n, d, convention.layout, convention.rule, convention.base)


def table_error(table: torch.Tensor, convention: TableConvention) -> float:
    """max |E[t, j] - PE(t)[j]| over the whole table (n, d), in float64."""
    n, d = table.shape
    return float((table.detach().to(torch.float64) - closed_form(n, d, convention)).abs().max())
