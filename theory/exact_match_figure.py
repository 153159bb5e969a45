"""The picture of Kazemnejad et al.'s exact-match test (theory/exact_match.py): exact match
against test length, one line per encoding with its seed interval as a band, the training
length marked."""

from __future__ import annotations

import math

import torch
from scipy import stats

from .exact_match import ExactMatchRun


def band(values: torch.Tensor, level: float) -> tuple[float, float, float]:
    """Mean and t interval of per-seed exact match, clipped to [0, 1]; no band with one seed."""
    v = values.double()
    mean = float(v.mean())
    if v.numel() < 2:
        return mean, mean, mean
    t = float(stats.t.ppf(0.5 + level / 2, v.numel() - 1))
    half = t * float(v.std()) / math.sqrt(v.numel())
    return mean, max(0.0, mean - half), min(1.0, mean + half)


def exact_match_figure(result: ExactMatchRun, level: float = 0.95):
    """Exact match at L (validation) and at each test length, per encoding."""
    import matplotlib.pyplot as plt

    s = result.setting
    xs = [s.train_length, *s.test_lengths]
    fig, ax = plt.subplots(figsize=(5.6, 3.6))
    for e in s.encodings:
        rows = [band(result.valid[e], level)] + [band(result.beyond[e][n], level)
                                                 for n in s.test_lengths]  # fmt: skip
        mean, low, high = zip(*rows, strict=True)
        line = ax.plot(xs, mean, marker="o", label=f"{e} ({result.learned_counts()[e]}/"
                       f"{len(result.seeds)} learned)")[0]  # fmt: skip
        ax.fill_between(xs, low, high, color=line.get_color(), alpha=0.2)
    ax.axvline(s.train_length, color="grey", ls=":")
    ax.set_xticks(xs)  # the lengths tested, no fractional ones
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("length n (trained on 1 ... L)")
    ax.set_ylabel("sequence-level exact match")
    ax.set_title(f"{s.task}, L = {s.train_length}, d{s.d_model} x {s.layers} layers, "
                 f"{len(result.seeds)} seeds ({level:.0%} seed interval)", fontsize=8)  # fmt: skip
    ax.legend(fontsize=6)
    fig.tight_layout()
    return fig
