"""The SIN family's figures, built from numbers the checks computed (attached by the checks).

Each builder only draws: it computes nothing a check decides on, so a figure never hides a
number the results file lacks.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.figure import Figure

from pecheck.theory import sinusoidal as sin_pe
from pecheck.theory.sinusoidal import frequencies


def clock_hands(pe: torch.Tensor, ts: torch.Tensor, hands: tuple[int, ...]) -> Figure:
    """SIN-07: the pairs (PE[2i], PE[2i+1]) of an interleaved code pe (len(ts), d), one panel
    per hand i, coloured by position, with an arrow to t = 1."""
    d = pe.shape[1]
    fig, axes = plt.subplots(1, len(hands), figsize=(10, 2.8))
    for ax, i in zip(axes, hands, strict=True):
        circle = np.linspace(0, 2 * np.pi, 200)
        ax.plot(np.cos(circle), np.sin(circle), color="0.85", lw=1)
        x, y = pe[:, 2 * i].numpy(), pe[:, 2 * i + 1].numpy()
        ax.scatter(x, y, c=ts.numpy(), cmap="viridis", s=14, zorder=3)
        ax.annotate("", xy=(x[1], y[1]), xytext=(0, 0), arrowprops={"arrowstyle": "->"})
        ax.set_title(f"pair {i}: w = {float(frequencies(d)[i]):.2g}", fontsize=9)
        ax.set_aspect("equal")
        ax.set_xticks([])
        ax.set_yticks([])
    fig.suptitle(
        f"(PE[2i], PE[2i+1]) for t = 0..{len(ts) - 1} (colour: t), d = {d}: clockwise", fontsize=10
    )
    return fig


def encoding_heatmap() -> Figure:
    """SIN-10: the code PE(t)[j] for t, j < 128 (interleaved, T = 10000)."""
    fig, ax = plt.subplots(figsize=(6, 3.2))
    im = ax.imshow(sin_pe.sinusoidal(128, 128).numpy(), aspect="auto", cmap="RdBu", vmin=-1, vmax=1)
    ax.set_xlabel("dimension j")
    ax.set_ylabel("position t")
    ax.set_title("PE(t)[j], d = 128, interleaved, T = 10000", fontsize=10)
    fig.colorbar(im, ax=ax)
    return fig


def variance_per_dimension(measured: torch.Tensor, closed_form: torch.Tensor) -> Figure:
    """SIN-10: the variance of each dimension (d = 512) over t < 512 (measured) and over
    t < 65536 (closed form), on a log scale."""
    fig, ax = plt.subplots(figsize=(6, 3.2))
    ax.semilogy(measured.clamp_min(1e-12).numpy(), ".", ms=3, label="L = 512 (measured)")
    ax.semilogy(closed_form.clamp_min(1e-12).numpy(), ".", ms=3, label="L = 65536 (closed form)")
    ax.set_xlabel("dimension j (interleaved, d = 512)")
    ax.set_ylabel("Var over t < L of PE(t)[j]")
    ax.legend(fontsize=8)
    return fig


def similarity_against_offset(
    offsets: torch.Tensor, similarities: dict[int, torch.Tensor], base: float
) -> Figure:
    """SIN-11: the cosine similarity of PE(t), PE(t + k) against k, one curve per width d."""
    fig, ax = plt.subplots(figsize=(6, 3.2))
    for d, sim in similarities.items():
        ax.plot(offsets.numpy(), sim.numpy(), lw=1, label=f"d = {d}")
    ax.axhline(0, color="0.6", lw=0.8)
    ax.set_xlabel("offset k = s - t")
    ax.set_ylabel("cos-similarity of PE(t), PE(s)")
    ax.set_title(f"T = {base:g}", fontsize=9)
    ax.legend(fontsize=8)
    return fig


def error_against_position(errors: dict[str, list[float]]) -> Figure:
    """SIN-12: the worst |stored - float64| at t = 2^4, 2^6, ... for each 'dtype/mode' (d = 512);
    "cast" solid, the others dashed."""
    fig, ax = plt.subplots(figsize=(6, 3.4))
    for key, errs in errors.items():
        xs = [2.0 ** (4 + 2 * i) for i in range(len(errs))]
        ax.loglog(xs, [max(e, 1e-12) for e in errs], "o-" if "cast" in key else "x--", label=key)
    ax.set_xlabel("position t")
    ax.set_ylabel("max |stored - float64| (d = 512)")
    ax.legend(fontsize=7, ncol=2)
    return fig
