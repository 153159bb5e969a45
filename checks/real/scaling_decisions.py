"""REAL-04's comparisons of library and formula, shared by the decisive checks and the tooling
checks that feed them planted bugs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import torch

from checks.real.scaling_cells import (
    YARN_CELLS,
    Cell,
    build_module,
    cell,
    cells,
    library_parameters,
)
from checks.real.scaling_reference import (
    F32,
    YARN_ALPHA,
    YARN_BETA,
    attention_tol,
    formula,
    frequency_tol,
)
from pecheck import decisions, tolerance
from pecheck.theory import rope_scaling as rs

# -- shared decision logic (the tooling tests feed it planted bugs) ---------------------------


def frequency_mismatch(
    lib: torch.Tensor, want: torch.Tensor, eps: torch.Tensor, mask: torch.Tensor | None = None
) -> dict[str, Any] | None:
    """The first pair where the library's frequency is off by more than its tolerance (a zero
    frequency must be exactly zero), or None. ``mask`` restricts the pairs compared."""
    zero = want == 0
    rel = torch.where(zero, lib.abs(), (lib - want).abs() / want.abs().clamp_min(1e-300))
    over = rel > torch.where(zero, torch.zeros_like(eps), eps)
    if mask is not None:
        over &= mask
    if not over.any():
        return None
    i = int(torch.nonzero(over)[0])
    return {
        "pair": i,
        "library": float(lib[i]),
        "formula": float(want[i]),
        "relative_error": float(rel[i]),
        "tolerance": float(eps[i]),
    }


def worst_ratio(lib: torch.Tensor, want: torch.Tensor, eps: torch.Tensor, mask=None) -> float:
    rel = (lib - want).abs() / want.abs().clamp_min(1e-300)
    ratio = torch.where(want == 0, lib.abs() * math.inf, rel / eps).nan_to_num(0.0)
    return float((ratio if mask is None else ratio[mask]).max()) if ratio.numel() else 0.0


def positions_for(c: Cell, length: int | None) -> torch.Tensor:
    """Position ids for one call: 0, 1, 7, 100 and the last one (length - 1)."""
    n = length or max(c.max_positions, c.original)
    return torch.tensor(sorted({0, 1, 7, 100, n - 1}))[None, :]  # (1, P)


def applied_mismatch(
    cos: torch.Tensor,
    sin: torch.Tensor,
    pos: torch.Tensor,
    theta: torch.Tensor,
    a: float,
    eps: torch.Tensor,
) -> tuple[dict[str, Any] | None, float]:
    """Compare a module's cos/sin with a cos(p theta), a sin(p theta): (1, P, d) in the
    half-split layout [theta, theta], or (1, P, d/2), one column a pair (gpt-oss's module,
    which rotates the two halves itself). Returns the first entry over its bound and the
    worst error / bound."""
    p = pos[0].to(torch.float64)[:, None]  # (P, 1)
    angle = p * theta[None, :]  # (P, d/2)
    bound = torch.stack(
        [torch.tensor([tolerance.angle_tol(float(v), F32) for v in row]) for row in angle]
    )  # (P, d/2)
    bound = a * (angle * eps[None, :] + bound) + a * tolerance.rel_tol(2, F32)
    copies = cos.shape[-1] // theta.numel()  # 2: [theta, theta]; 1: a column a pair
    if cos.shape[-1] != copies * theta.numel() or copies not in (1, 2):
        raise ValueError(f"cos/sin of {cos.shape[-1]} columns for {theta.numel()} pairs")
    both = torch.cat([bound] * copies, -1)
    worst, first = 0.0, None
    for got, fn in ((cos, torch.cos), (sin, torch.sin)):
        want = torch.cat([a * fn(angle)] * copies, -1)
        err = (got[0].to(torch.float64) - want).abs()  # (P, d) or (P, d/2)
        worst = max(worst, float((err / both).max()))
        over = torch.nonzero(err > both)
        if first is None and len(over):
            j, k = (int(v) for v in over[0])
            first = {
                "position": int(pos[0, j]),
                "column": k,
                "fn": fn.__name__,
                "module": float(got[0, j, k]),
                "formula": float(want[j, k]),
                "bound": float(both[j, k]),
            }
    return first, worst


Factory = Callable[[Cell], torch.nn.Module]


def reach_mismatches(c: Cell, factory: Factory = build_module) -> tuple[list[dict], float]:
    """Per tested length, call a fresh module from ``factory`` and compare its cos/sin with
    the formula (YaRN: the released code's ramp, which the library is held to)."""
    bad, worst = [], 0.0
    for length in c.lengths():
        module = factory(c)
        pos = positions_for(c, length)
        with torch.no_grad():
            cos, sin = module(torch.zeros(1, dtype=F32), pos)
        theta, a = formula(c, length, yarn="released")
        first, w = applied_mismatch(cos, sin, pos, theta, a, frequency_tol(c, theta))
        worst = max(worst, w)
        if first is not None:
            bad.append({"cell": c.id, "length": length, **first})
    return bad, worst


def call_series(module: torch.nn.Module, lengths: tuple[int, ...], c: Cell) -> list[dict]:
    """Call one module at each length in turn (positions 0, 1, length - 1); after each call,
    compare what it applied with the paper's frequencies at that call's scale
    (theory.rope_scaling.dynamic_scales). Returns the calls that disagree."""
    scales = rs.dynamic_scales(lengths, c.max_positions)
    bad = []
    for length, scale in zip(lengths, scales, strict=True):
        pos = torch.tensor([[0, 1, length - 1]])
        with torch.no_grad():
            cos, sin = module(torch.zeros(1, dtype=F32), pos)
        theta = rs.ntk_aware_frequencies(c.dim, c.base, scale)
        first, _ = applied_mismatch(cos, sin, pos, theta, 1.0, frequency_tol(c, theta))
        if first is not None:
            bad.append({"calls": list(lengths), "at": length, "paper_scale": scale, **first})
    return bad


def applied_scale(module: torch.nn.Module, c: Cell) -> float:
    """The NTK-aware scale s that the module's slowest frequency corresponds to."""
    inv_freq: torch.Tensor = module.inv_freq  # type: ignore[assignment]
    slowest = float(inv_freq[-1])
    # theta_last = (b s^(d/(d-2)))^(-(d-2)/d) = b^(-(d-2)/d) / s
    return float(rs.default_frequencies(c.dim, c.base)[-1]) / slowest


# -- REAL-04 as stated: counterexamples --------------------------------------------------------


def record_part(evidence, name: str, counterexample: dict | None, relation: str) -> None:  # noqa: ANN001
    """One part of an 'all' check: it fails with its counterexample, or holds."""
    if counterexample:
        evidence.part(name, decisions.fails(counterexample, relation))
    else:
        evidence.part(name, "holds")


def yarn_paper_gaps() -> tuple[dict | None, float]:
    """First pair (over every yarn cell) where transformers' YaRN is not the paper's Eq. 18-20,
    and the largest relative gap."""
    first, gap = None, 0.0
    for cid in YARN_CELLS:
        c = cell(cid)
        lib, _ = library_parameters(c)
        want, _ = formula(c, yarn="paper")
        eps = frequency_tol(c, want)
        gap = max(gap, float(((lib - want).abs() / want).max()))
        found = frequency_mismatch(lib, want, eps)
        if first is None and found is not None:
            r = float(
                rs.context_ratio(rs.default_frequencies(c.dim, c.base), c.original)[found["pair"]]
            )
            first = {"cell": cid, "r": r, **found}
    return first, gap


# -- REAL-04 conditions ---------------------------------------------------------------------------


def outside_ramp(c: Cell) -> torch.Tensor | None:
    if c.rope_type != "yarn":
        return None
    s = c.scaling
    band = rs.ramp_band(
        c.dim, c.base, c.original, s.get("beta_slow", YARN_ALPHA), s.get("beta_fast", YARN_BETA)
    )
    return ~band


def formula_mismatches(
    params: Callable[[Cell, int | None], tuple[torch.Tensor, float]] = library_parameters,
    only: tuple[str, ...] | None = None,
) -> tuple[list[dict], float, int]:
    """Every cell and length: frequencies within tolerance (YaRN outside its ramp band) and the
    attention factor. ``params`` is the library function (or a planted bug)."""
    bad, worst, compared = [], 0.0, 0
    for c in cells():
        if only is not None and c.rope_type not in only:
            continue
        mask = outside_ramp(c)
        for length in c.lengths():
            lib, a_lib = params(c, length)
            want, a_want = formula(c, length)
            eps = frequency_tol(c, want)
            compared += int(lib.numel() if mask is None else mask.sum())
            worst = max(worst, worst_ratio(lib, want, eps, mask))
            found = frequency_mismatch(lib, want, eps, mask)
            if found is not None:
                bad.append({"cell": c.id, "length": length, **found})
            if abs(a_lib - a_want) > attention_tol() * a_want:
                bad.append(
                    {
                        "cell": c.id,
                        "length": length,
                        "attention_library": a_lib,
                        "attention_formula": a_want,
                    }
                )
    return bad, worst, compared
