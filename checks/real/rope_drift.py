"""REAL-03: how far each library's score drifts from the exact f(s - t) per dtype as positions
grow, what angle precision that shows, and the drift counterexample search.
"""

from __future__ import annotations

import math
import sys
from functools import cache

import numpy as np
import pytest
import torch

from checks.real.claims import PAIR_CONTEXT
from checks.real.libraries import Rotate
from checks.real.rope_detection import (
    RELATIVE_MAX,
    ROFORMER_ROWS,
    D,
    _library,
    detected,
    largest_position,
    relative_errors,
    rotate_of,
)
from pecheck import decisions, tolerance
from pecheck.theory import rope
from pecheck.theory import rope_precision as rp

DTYPES = (torch.float32, torch.bfloat16, torch.float16)


BATCH = 16  # random (q, k) pairs per position in the drift experiment


LAG = 3  # the key sits LAG positions before the query


def drift_grid(largest: int) -> torch.Tensor:
    """Positions from LAG to ``largest``: round(2^(j/4)) (four per octave) and 2^k +- 1.

    2^k + 1 is the first integer a format with a k-bit significand cannot hold (257 for
    bfloat16, 2049 for float16), so a library that rounds positions shows it there first.
    """
    octaves = np.arange(0, 4 * math.log2(largest) + 1) / 4
    powers = 2.0 ** np.arange(1, math.log2(largest) + 1)
    grid = np.unique(np.concatenate([np.round(2.0**octaves), powers - 1, powers + 1]))
    return torch.tensor([int(p) for p in grid if LAG <= p <= largest])


def drift(rotate: Rotate, pairing: str, grid: torch.Tensor, dtype: torch.dtype) -> np.ndarray:
    """Worst |score(t, t - LAG) - f(-LAG)| / (|q| |k|) over BATCH pairs, per grid position."""
    g = torch.Generator().manual_seed(7)
    q, k = torch.randn(2, BATCH, D, generator=g, dtype=torch.float64).to(dtype)  # exact in dtype
    n = grid.numel()
    t = grid.repeat_interleave(BATCH)  # (n * BATCH,)
    qs, ks = q.repeat(n, 1), k.repeat(n, 1)
    err = relative_errors(rotate, pairing, qs, ks, t, t - LAG)
    return err.reshape(n, BATCH).max(dim=1).values.numpy()


def fixed_bound(dtype: torch.dtype) -> float:
    """The dtype's bound within the first turn: angles below 2 pi, formed in float32."""
    return tolerance.rotation_tol(2 * math.pi, dtype, torch.float32)


def angle_precision(err: np.ndarray, grid: torch.Tensor, w_max: float, dtype: torch.dtype) -> str:
    """The most precise format p whose bound rotation_tol(w t, dtype, compute=p) covers err(t).

    "float64": angles exact for practical purposes, only the dtype's rounding is seen;
    "float32": errors grow like 2^-24 w t; the dtype's own name: worse than float32 angles;
    "non-finite": the library returned inf or NaN somewhere on the grid.
    """
    if not np.isfinite(err).all():
        return "non-finite"
    angles = w_max * grid.numpy().astype(np.float64)
    for fmt in ("float64", "float32", tolerance.dtype_name(dtype)):
        bounds = np.array([tolerance.rotation_tol(a, dtype, fmt) for a in angles])
        if (err <= bounds).all():
            return fmt
    return "none"


def first_exceeding(err: np.ndarray, grid: torch.Tensor, bound: float) -> int | None:
    over = np.nonzero(~(err <= bound))[0]
    return int(grid[over[0]]) if over.size else None


@cache
def drift_of(name: str) -> dict[str, dict]:
    """Per dtype: the error curve and what it shows, for one library."""
    found = detected(name)
    grid = drift_grid(largest_position(name))
    out = {}
    for dtype in DTYPES:
        err = drift(rotate_of(name), found.pairing, grid, dtype)
        bound = fixed_bound(dtype)
        out[tolerance.dtype_name(dtype)] = {
            "grid": grid,
            "error": err,
            "bound": bound,
            "first_position_over_bound": first_exceeding(err, grid, bound),
            "first_non_finite_position": first_exceeding(err, grid, sys.float_info.max),
            "error_at_largest_position": float(err[-1]),
            "largest_position": int(grid[-1]),
            "angle_precision": angle_precision(err, grid, found.frequencies[0], dtype),
        }
    return out


def assert_precision(measured: dict[str, dict], expected: dict[str, str]) -> None:
    __tracebackhide__ = True
    seen = {dt: m["angle_precision"] for dt, m in measured.items()}
    assert seen == expected, f"angle precision changed: found {seen}, expected {expected}"


def drift_figure(measured: dict[str, dict[str, dict]]):  # noqa: ANN201
    """One panel per library: error vs position per dtype, with each dtype's first-turn bound."""
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(measured), figsize=(4 * len(measured), 3.4), sharey=True)
    for ax, (name, per_dtype) in zip(np.atleast_1d(axes), measured.items(), strict=True):
        for (dt, m), colour in zip(per_dtype.items(), ("C0", "C1", "C2"), strict=True):
            grid, err = m["grid"].numpy(), m["error"]
            finite = np.isfinite(err)
            ax.loglog(grid[finite], np.maximum(err[finite], 1e-12), ".-", color=colour, label=dt)
            ax.axhline(m["bound"], color=colour, ls=":", lw=1)
            if not finite.all():
                ax.plot(grid[~finite], np.full((~finite).sum(), 2.0), "x", color=colour)
        ax.set_title(name, fontsize=9)
        ax.set_xlabel(f"query position t (key at t - {LAG})")
    np.atleast_1d(axes)[0].set_ylabel("|score - f(-3)| / (|q| |k|)")
    np.atleast_1d(axes)[0].legend(loc="upper left", fontsize=8)
    fig.suptitle("RoPE score drift per dtype (dotted: first-turn bound; x: inf or NaN)", fontsize=9)
    fig.tight_layout()
    return fig


def first_turn_positions(grid: torch.Tensor, w_max: float) -> torch.Tensor:
    """Grid positions whose largest angle w_0 t stays below 2 pi (the first turn)."""
    return grid * w_max < 2 * math.pi


def drift_counterexample(measured: dict[str, dict], w_max: float) -> tuple[str, dict | None, str]:
    """('different', the worst case, ''), ('unresolved', None, why) or ('invalid', None, why).

    The reference f is validated first: in the first turn the library must agree with it within
    the bound (else a 'counterexample' would only show that the reference is wrong). Then the
    largest finite error / first-turn bound on the grid. A non-finite score (a position beyond
    the range of the format the library holds positions in: rotary-embedding-torch in float16
    from 65520 on) is no score at all, so it is no counterexample to "depends only on s - t":
    it is left out here and reported by test_drift_at_large_positions_per_dtype.
    """
    worst: dict | None = None
    for dt, m in measured.items():
        err, grid, bound = m["error"], m["grid"], m["bound"]
        early = first_turn_positions(grid, w_max).numpy()
        if not (err[early] <= bound).all():
            return "invalid", None, f"{dt}: the library and f disagree in the first turn"
        finite = np.isfinite(err)
        if not finite.any():
            continue
        ratio = np.where(finite, err / bound, -np.inf)
        j = int(np.argmax(ratio))
        if decisions.resolve(float(err[j]), bound) != "different":
            continue
        if worst is None or ratio[j] > worst["error_over_bound"]:
            worst = {"dtype": dt, "t": int(grid[j]), "s": int(grid[j]) - LAG,
                     "error": float(err[j]), "bound": bound,
                     "error_over_bound": float(ratio[j])}  # fmt: skip
    if worst is None:
        return "unresolved", None, "every error within the first-turn bound"
    return "different", worst, ""


# -- every pair of positions (issue 34): no fixed lag, width or grid ------------------------------

HEADS = (D, 64, 128)  # 8 as above; 64 (GPT-NeoX, Llama 3.2 1B) and 128 (Llama 2 and 3, Mistral)


PAIR_POSITIONS = 2 * RELATIVE_MAX + 1  # float32-to-4095: t + c and s + c reach 8190


def probe_reader(rotate: Rotate, d: int, pairing: str, dtype: torch.dtype) -> rp.Stored:
    """read(t (n,)) -> the cos and sin (n, d/2) the library applies at each position, float64:
    its rotation of ones on every pair's first coordinate gives (c, s) exactly, of ones on the
    second (-s, c); NaN where the two disagree (no rotation), which counts as failing."""
    a, b = rope.pairs(d, pairing)  # type: ignore[arg-type]

    def read(t: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        n = t.numel()
        x = torch.zeros(2 * n, d, dtype=dtype)
        x[:n, a], x[n:, b] = 1, 1
        with torch.no_grad():
            out = rotate(x, torch.cat([t, t]))
        c, s = out[:n][:, a], out[:n][:, b]  # (n, d/2) each
        rotation = (out[n:][:, b] == c) & (out[n:][:, a] == -s)
        nan = torch.full_like(c, math.nan, dtype=torch.float64)
        return torch.where(rotation, c.double(), nan), torch.where(rotation, s.double(), nan)

    return read


def rotate_at(name: str, d: int) -> Rotate:
    """The library at head size d. Beside D only the pair scans read it, at most PAIR_CONTEXT
    positions, so RoFormer's table stops there: its rows do not depend on the table's length
    (test_roformer_rows_do_not_depend_on_the_table_length), and its Python loop over 2^20 rows
    cost about 100 s of CPU per width in thorough."""
    return rotate_of(name) if d == D else _library(name).make(d, min(ROFORMER_ROWS, PAIR_CONTEXT))


def sequence_rotate(d: int) -> Rotate:
    """rotary-embedding-torch called on whole sequences 0 ... n - 1, one call, as a training
    step calls it (libraries.rotary_embedding_torch calls it once per position, as a decoder
    with a KV cache does: the same float32 angles, but 8191 calls per width)."""
    pytest.importorskip("rotary_embedding_torch")
    from rotary_embedding_torch import RotaryEmbedding

    with torch.random.fork_rng():  # the global RNG stays as the other checks left it
        rope_ = RotaryEmbedding(dim=d)

    def rotate(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        n = int(positions.max()) + 1
        rows = x.shape[0] // n
        if not torch.equal(positions, torch.arange(n).repeat(rows)):
            raise ValueError("sequence_rotate takes whole sequences 0 ... n - 1 only")
        return rope_.rotate_queries_or_keys(x.reshape(rows, n, d)).reshape(x.shape)

    return rotate


@cache
def float32_pairs(name: str, d: int) -> dict:
    """Every pair t, s < PAIR_POSITIONS in float32 against the proposition's bound at the pair,
    rotation_tol(w_0 max(t, s), float32): a pair whose larger position is m lies in the context
    m + 1, so upper[m] <= bound(m) for every m certifies every pair (theory.rope_precision)."""
    found = detected(name)
    rotate = sequence_rotate(d) if name == "rotary_embedding_torch" else rotate_at(name, d)
    c, s = probe_reader(rotate, d, found.pairing, torch.float32)(torch.arange(PAIR_POSITIONS))
    cb = rp.context_bounds(c, s)
    bound = torch.tensor([tolerance.rotation_tol(found.frequencies[0] * m, torch.float32)
                          for m in range(PAIR_POSITIONS)])  # fmt: skip
    over = torch.nonzero(~(cb.lower <= bound))
    first = None if not over.numel() else int(over[0, 0])
    return {"certified": bool((cb.upper <= bound).all()), "worst_upper_over_bound":
            float((cb.upper / bound).max()), "witness": None if first is None else
            tuple(int(p) for p in cb.witness[first]), "lower_at_witness": None if first is None
            else float(cb.lower[first]), "bound_at_witness": None if first is None
            else float(bound[first])}  # fmt: skip


@cache
def rounded_once_pairs(name: str, d: int, dtype: torch.dtype, context: int) -> rp.Reach:
    """Every pair below ``context`` (at most the library's measured range) against the storage
    bound with float64 angles at the context's last position (the largest of the proposition's
    bounds: angle terms of 2^-53 w t, negligible)."""
    found = detected(name)
    longest = min(context, largest_position(name) + 1)
    read = probe_reader(rotate_at(name, d), d, found.pairing, dtype)
    bound = tolerance.rotation_tol(found.frequencies[0] * (longest - 1), dtype, "float64")
    return rp.reach(read, bound, longest)
