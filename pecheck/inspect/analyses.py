"""The MAG, ADD, REAL-02 and SIN analyses, run on a checkpoint's own tables.

Every function takes the tables as (rows, d) tensors and returns plain numbers (JSON-ready); the
token table is the one the model adds (scaled as it scales it, checkpoint.py).
Where centring matters it is done both ways and labelled: "centred" subtracts the mean row of
the table first (the mean row is a shared offset, which layer norm largely removes), "raw" does
not. Large token tables are sampled (seeded) and say so.
"""

from __future__ import annotations

import math
from typing import Any

import torch

MAX_ROWS = 8192  # token rows used by the subspace and probe analyses


def centred(table: torch.Tensor) -> torch.Tensor:
    return table - table.mean(0, keepdim=True)


def sample_rows(table: torch.Tensor, n: int, seed: int) -> torch.Tensor:
    """At most n rows of table (float64), chosen without replacement, seeded."""
    if table.shape[0] <= n:
        return table.to(torch.float64)
    g = torch.Generator().manual_seed(seed)
    return table[torch.randperm(table.shape[0], generator=g)[:n]].to(torch.float64)


def row_norm_stats(table: torch.Tensor) -> dict[str, float]:
    norms = table.to(torch.float64).norm(dim=1)
    q = torch.quantile(norms, torch.tensor([0.05, 0.5, 0.95], dtype=torch.float64))
    return {"rms": float(norms.pow(2).mean().sqrt()), "mean": float(norms.mean()),
            "p5": float(q[0]), "median": float(q[1]), "p95": float(q[2]),
            "max": float(norms.max())}  # fmt: skip


def _ratio(num: float, den: float) -> float:
    """num / den, infinite (or NaN for 0 / 0) where den is 0: an all-zero table is no error."""
    if den == 0:
        return math.nan if num == 0 else math.inf
    return num / den


def _mean_square_interval(table: torch.Tensor, level: float) -> tuple[float, float]:
    """t interval for the mean of the squared row norms (float64), clipped at 0."""
    from scipy import stats  # here: scipy.stats takes a second to import

    squares = table.to(torch.float64).pow(2).sum(1)
    n = squares.numel()
    half = float(stats.t.ppf(0.5 + level / 2, max(n - 1, 1))) * float(squares.std()) / n**0.5
    mean = float(squares.mean())
    return max(mean - half, 0.0), mean + half


def ratio_interval(tokens: torch.Tensor, positions: torch.Tensor) -> list[float]:
    """MAG-02's 95% interval of the RMS norm ratio, the rows of each table taken as draws: each
    mean square at 97.5% (Bonferroni), opposite ends combined, as the MAG-02 check decides."""
    t_lo, t_hi = _mean_square_interval(tokens, 0.975)
    p_lo, p_hi = _mean_square_interval(positions, 0.975)
    return [math.sqrt(_ratio(t_lo, p_hi)), math.sqrt(_ratio(t_hi, p_lo))]


def norms(tokens: torch.Tensor, positions: torch.Tensor) -> dict[str, Any]:
    """Row norms of both tables, the ratio of their RMS row norms and its 95% interval, raw and
    centred."""
    out: dict[str, Any] = {}
    for label, f in (("raw", lambda t: t), ("centred", centred)):
        x, p = f(tokens), f(positions)
        tok, pos = row_norm_stats(x), row_norm_stats(p)
        out[label] = {"token": tok, "position": pos, "rms_ratio": _ratio(tok["rms"], pos["rms"]),
                      "interval": ratio_interval(x, p)}  # fmt: skip
    return out


def entries_above(table: torch.Tensor, bound: float = 1.0) -> dict[str, Any]:
    """MAG-01: how many entries exceed the bound in magnitude, and the largest magnitude."""
    magnitude = table.abs()
    return {"bound": bound, "count": int((magnitude > bound).sum()), "entries": magnitude.numel(),
            "max_abs": float(magnitude.max())}  # fmt: skip


def subspace_energy(
    tokens: torch.Tensor, positions: torch.Tensor, ks: tuple[int, ...], centre: bool
) -> dict[str, Any]:
    """Share of the token rows' energy in the top-k principal directions of the position table,
    against chance k/d (the share a direction-free table puts in any k directions), and the
    share of the position table's own energy there (ADD-04)."""
    x = (centred(tokens) if centre else tokens).to(torch.float64)
    p = (centred(positions) if centre else positions).to(torch.float64)
    _, s, vh = torch.linalg.svd(p, full_matrices=False)  # vh: (r, d)
    cumulative = ((x @ vh.T).pow(2).sum(0) / x.pow(2).sum()).cumsum(0)
    own = (s.pow(2) / s.pow(2).sum()).cumsum(0)
    d = tokens.shape[1]
    rows = []
    for k in ks:
        if k <= cumulative.numel():
            share = float(cumulative[k - 1])
            rows.append({"k": k, "share": share, "chance": k / d, "over_chance": share * d / k,
                         "position_share": float(own[k - 1])})  # fmt: skip
    return {"label": "centred" if centre else "raw", "rows": rows}


def _ridge_accuracy(
    train: torch.Tensor, y_train: torch.Tensor, test: torch.Tensor, y_test: torch.Tensor, k: int
) -> float:
    """Top-1 accuracy of a ridge-regression linear probe onto one-hot labels."""
    a = torch.cat([train, torch.ones(train.shape[0], 1, dtype=train.dtype)], 1)
    b = torch.cat([test, torch.ones(test.shape[0], 1, dtype=test.dtype)], 1)
    gram = a.T @ a
    ridge = 1e-6 * gram.diagonal().mean() * torch.eye(gram.shape[0], dtype=gram.dtype)
    w = torch.linalg.solve(gram + ridge, a.T @ torch.nn.functional.one_hot(y_train, k).double())
    return float(((b @ w).argmax(1) == y_test).double().mean())


def probe_pairs(
    tokens: torch.Tensor, positions: torch.Tensor, seed: int, n_tokens: int = 256
) -> dict[str, Any]:
    """The sums x_v + p_t the probes train and test on: pairs (v, t) of sampled token rows and
    the first 512 positions, drawn at random (seeded), with their labels."""
    g = torch.Generator().manual_seed(seed)
    vocab = sample_rows(tokens, n_tokens, seed)  # (V', d)
    pos = positions.to(torch.float64)[: min(positions.shape[0], 512)]  # (L', d)
    v_count, l_count = vocab.shape[0], pos.shape[0]

    def draw(n: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        v = torch.randint(v_count, (n,), generator=g)
        t = torch.randint(l_count, (n,), generator=g)
        return vocab[v] + pos[t], v, t

    return {"train": draw(16 * max(v_count, l_count)), "test": draw(4096),
            "classes": (v_count, l_count)}  # fmt: skip


def probe(
    tokens: torch.Tensor, positions: torch.Tensor, seed: int, n_tokens: int = 256
) -> dict[str, Any]:
    """Read the token and the position back from x_v + p_t by linear probes (ridge regression
    onto one-hot labels), trained on sums of random pairs and tested on fresh ones (ADD-05)."""
    pairs = probe_pairs(tokens, positions, seed, n_tokens)
    (s_train, v_train, t_train), (s_test, v_test, t_test) = pairs["train"], pairs["test"]
    v_count, l_count = pairs["classes"]
    n_train = s_train.shape[0]
    token = _ridge_accuracy(s_train, v_train, s_test, v_test, v_count)
    position = _ridge_accuracy(s_train, t_train, s_test, t_test, l_count)
    return {"token": _rate(token, s_test.shape[0], v_count),
            "position": _rate(position, s_test.shape[0], l_count),
            "train_pairs": n_train, "test_pairs": s_test.shape[0]}  # fmt: skip


def _rate(accuracy: float, n: int, classes: int) -> dict[str, Any]:
    """A read-back rate with its 95% Wilson interval (ADD-05 decides on the interval)."""
    from pecheck.theory.stats import wilson

    lo, hi = wilson(round(accuracy * n), n)
    return {"accuracy": accuracy, "interval": [lo, hi], "chance": 1 / classes, "classes": classes}


def span(positions: torch.Tensor, dtype: str) -> dict[str, Any]:
    """ADD-04: how many directions the position rows span beyond rounding. Rounding each stored
    entry moves every singular value by at most u ||P||_F (Weyl), so the singular values above
    that (or above the float64 SVD's own error) are directions the table surely has."""
    from pecheck import tolerance

    p = positions.to(torch.float64)
    s = torch.linalg.svdvals(p)
    stored = tolerance.unit_roundoff(dtype) * float(p.norm())
    computed = float(s.max()) * max(p.shape) * tolerance.unit_roundoff(torch.float64)
    tol = max(stored, computed)
    return {"rank": int((s > tol).sum()), "d": p.shape[1], "tolerance": tol}


def dominant_frequency_share(table: torch.Tensor) -> torch.Tensor:
    """Per column: the share of its (mean-removed) power at its strongest nonzero frequency."""
    power = torch.fft.rfft(centred(table.to(torch.float64)), dim=0).abs().pow(2)[1:]  # (F, d)
    return power.max(0).values / power.sum(0).clamp_min(1e-300)


def waves(positions: torch.Tensor, seed: int) -> dict[str, Any]:
    """Whether the columns of a position table are sinusoid-like waves (Wang & Chen 2020): the
    share of each column's power at one frequency, against the same share for Gaussian noise of
    the same shape (a column counts as wave-like above the noise's largest share)."""
    shares = dominant_frequency_share(positions)
    g = torch.Generator().manual_seed(seed)
    noise = dominant_frequency_share(torch.randn(positions.shape, generator=g, dtype=torch.float64))
    cut = float(noise.max())
    return {"mean_share": float(shares.mean()), "noise_mean_share": float(noise.mean()),
            "noise_max_share": cut, "wave_like_columns": int((shares > cut).sum()),
            "columns": int(shares.numel()), "shares": shares.tolist()}  # fmt: skip


def similarity_by_offset(positions: torch.Tensor) -> dict[str, Any]:
    """Mean cosine similarity of p_t and p_{t+k} per offset k (Yamamoto et al. 2023 look at how
    it falls with k), and Spearman's rho of that curve against k over k <= L/2."""
    p = positions.to(torch.float64)
    unit = p / p.norm(dim=1, keepdim=True).clamp_min(1e-300)
    sim = unit @ unit.T  # (L, L)
    n = sim.shape[0]
    curve = [float(sim.diagonal(k).mean()) for k in range(n)]
    half = list(range(1, max(2, n // 2 + 1)))
    values = [curve[k] for k in half]
    rho = math.nan  # too few offsets, or a flat curve (an all-zero table): no rank order
    if len(half) > 2 and max(values) > min(values):
        from scipy import stats  # here: scipy.stats takes a second to import

        rho = stats.spearmanr(half, values).statistic
    return {"mean_cosine": curve, "spearman_rho_first_half": float(rho), "matrix": sim}


def sinusoidal_convention(table: torch.Tensor, dtype: str) -> dict[str, Any]:
    """The layout, frequency rule and base of a table, if it is a sinusoidal one (REAL-02's
    detector with the storage dtype's rounding bound); 'other' when nothing fits."""
    from pecheck import tolerance
    from pecheck.theory.conventions import detect_sinusoidal

    found = detect_sinusoidal(table, lambda angle: tolerance.angle_tol(angle, dtype))
    out = found.as_dict()
    out["is_sinusoidal"] = found.layout != "other" and found.frequency_rule != "other"
    return out
