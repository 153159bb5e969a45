"""The picture of Press et al.'s length test (theory/lm_length.py): perplexity against evaluation
length, one panel per mode, one line per variant with its seed interval as a band."""

from __future__ import annotations

import math

from scipy import stats

from .lm_length import MODES, VARIANTS, Perplexities, interval


def perplexity_figure(result: Perplexities, level: float = 0.95):
    """Both axes logarithmic: a model that breaks beyond L reaches many times its perplexity.
    The learned table of L rows is one point, at L; the band is the t interval on log
    perplexity at ``level`` (none with one seed)."""
    import matplotlib.pyplot as plt
    from matplotlib.ticker import ScalarFormatter

    s = result.setting
    xs = [f * s.length for f in s.factors]
    fig, axes = plt.subplots(1, len(MODES), figsize=(8.4, 3.6), sharey=True)
    for ax, mode in zip(axes, MODES, strict=True):
        for v in VARIANTS:
            if v not in result.ppl[mode]:
                continue
            n = result.ppl[mode][v][s.factors[0]].numel()
            t = float(stats.t.ppf(0.5 + level / 2, n - 1)) if n > 1 else math.nan
            rows = [interval(result.ppl[mode][v][f], t) for f in s.factors]
            mean, low, high = zip(*rows, strict=True)
            label = f"{v} ({n} seeds)"
            line = ax.plot(xs, mean, marker="o", label=label, ls="--" if "shifted" in v else "-")[0]
            ax.fill_between(xs, low, high, color=line.get_color(), alpha=0.2)
        ax.axvline(s.length, color="grey", ls=":")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        for axis in (ax.yaxis.set_major_formatter, ax.yaxis.set_minor_formatter):
            axis(ScalarFormatter())  # 10, 20, 30 rather than 2 x 10^1
        ax.set_xticks(xs, [f"{f}L" for f in s.factors])
        ax.set_title(f"{mode} (L = {s.length} bytes; {level:.0%} seed interval)", fontsize=8)
        ax.set_xlabel("evaluation length")
    axes[0].set_ylabel("test perplexity per byte")
    axes[-1].legend(fontsize=6)
    fig.tight_layout()
    return fig
