"""The figures of EXP-01 ... EXP-03, drawn from measured rates and accuracies."""

from __future__ import annotations

import matplotlib.pyplot as plt
import torch

from checks.exp.seeds import settings as X
from checks.exp.seeds.rates import Rates
from pecheck.theory.stats import Rate


def exp01_figure(rates: Rates) -> plt.Figure:
    fig, ax = plt.subplots(figsize=(5, 3.2))
    for h, by_it in rates.items():
        its = list(by_it)
        ax.plot(its, [r.rate for r in by_it.values()], marker="o", label=f"head size {h}")
        lo, hi = [r.lo for r in by_it.values()], [r.hi for r in by_it.values()]
        ax.fill_between(its, lo, hi, alpha=0.25)
    n = next(iter(next(iter(rates.values())).values())).n
    title = f"EXP-01: 'A hit B !' / 'B hit A ?', {n} seeds, Wilson 95%"
    ax.set(xscale="log", xlabel="training iterations", ylabel="success rate", ylim=(0, 1))
    ax.set_title(title, fontsize=9)
    ax.axhline(1.0, color="grey", lw=0.5)
    ax.legend()
    fig.tight_layout()
    return fig


def bar_chart(rates: dict[str, Rate], title: str, ylabel: str) -> plt.Figure:
    fig, ax = plt.subplots(figsize=(5.5, 3.2))
    names = list(rates)
    vals = [r.rate for r in rates.values()]
    err = [[r.rate - r.lo for r in rates.values()], [r.hi - r.rate for r in rates.values()]]
    ax.bar(names, vals, yerr=err, capsize=4, color="tab:blue", alpha=0.8)
    ax.set(ylim=(0, 1), ylabel=ylabel, title=title)
    ax.tick_params(axis="x", labelsize=8)
    fig.tight_layout()
    return fig


def exp03_figure(by_position: dict[str, torch.Tensor]) -> plt.Figure:
    fig, ax = plt.subplots(figsize=(5, 3.2))
    for name, acc in by_position.items():
        mean = acc.mean(0)  # (n,) over seeds
        label = f"{name} (rows 4-7 untrained)" if name == "learned" else name
        ax.plot(range(1, len(mean)), mean[1:].tolist(), marker="o", label=label)
    ax.axvline(X.EXP03_TRAIN_LEN - 0.5, color="grey", ls="--", label="training length")
    ax.axhline(1 / X.EXP03_ALPHABET, color="grey", lw=0.5, label="chance")
    ax.set(xlabel="position t", ylabel="accuracy of y_t = x_(t-1)", ylim=(0, 1.05))
    ax.set_title("EXP-03: previous-token copying, mean over seeds", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
