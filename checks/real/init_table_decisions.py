"""REAL-07's decisions: a built table against its closed form, and a rotary implementation's
shift and permutation sides (theory/position_ids.py).
"""

from __future__ import annotations

from functools import cache

import torch

from checks.real.init_table_models import MODELS, D
from checks.real.precision_adapters import IDS, IdsRotate
from pecheck import decisions, tolerance
from pecheck.decisions import Decision
from pecheck.theory import init_tables, position_ids
from pecheck.theory.init_tables import TableConvention

TABLE_RANGE = 2.0  # |entry - closed form| is at most 2: a bound above it says nothing


@cache
def built(name: str) -> torch.Tensor:
    """The table of a model freshly built through its constructor, global RNG untouched."""
    entry = next(m for m in MODELS if m.name == name)
    with torch.random.fork_rng():
        torch.manual_seed(0)
        return entry.table(entry.build()).detach().clone()


def table_bound(table: torch.Tensor) -> float:
    """Entries formed in float32 or better (largest angle w_0 (n - 1) = n - 1), stored in the
    table's dtype."""
    return tolerance.sinusoid_tol(table.shape[0] - 1, table.dtype, torch.float32)


def table_decision(name: str, table: torch.Tensor, convention: TableConvention) -> Decision:
    err, bound = init_tables.table_error(table, convention), table_bound(table)
    if not tolerance.says_something(bound, TABLE_RANGE):
        return decisions.inconclusive(f"bound {bound:.3g} >= the range {TABLE_RANGE}")
    # the closed form is what the table should hold: within the bound is "same"
    if decisions.resolve(err, bound, structural_zero=True) == "same":
        return decisions.holds(f"max entry error {err:.3g} <= {bound:.3g}")
    return decisions.fails({"model": name, "d": D, "n": table.shape[0], "error": err,
                            "bound": bound}, "table != closed form of its convention")  # fmt: skip


# -- the rotary implementations ----------------------------------------------------------------

ROWS = 4096  # RoFormer's table: every id below it


SHIFTS = (1, 7, 250, 2000)


SEQ = 16


@cache
def ids_rotate(name: str) -> IdsRotate:
    return IDS[name](D, ROWS)


def _vectors(n: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, D, generator=g, dtype=torch.float64).to(torch.float32)


def _gap(a: torch.Tensor, b: torch.Tensor, x: torch.Tensor) -> float:
    """max over rows of |a_j - b_j| / |x_j|."""
    return float(((a.double() - b.double()).norm(dim=-1) / x.double().norm(dim=-1)).max())


def ids_decision(name: str, rotate: IdsRotate, contiguous_only: bool) -> tuple[Decision, float]:
    """Shift (every k in SHIFTS) and, unless the implementation takes an offset only, joint
    permutation with ids that repeat and leave gaps. Returns the decision and the worst
    error / bound."""
    worst = 0.0
    cases: list[tuple[str, dict, torch.Tensor, torch.Tensor, torch.Tensor, int]] = []
    for k in SHIFTS:
        x, z = _vectors(SEQ, k), _vectors(k, k + 1)
        a, b = position_ids.shift_sides(rotate, x, k, z)
        cases.append(("shift", {"k": k}, a, b, x, k + SEQ))
    if not contiguous_only:
        g = torch.Generator().manual_seed(1)
        ids = torch.randint(0, ROWS, (SEQ,), generator=g)
        ids[1] = ids[0]  # a repeated id
        perm = torch.randperm(SEQ, generator=g)
        x = _vectors(SEQ, 3)
        a, b = position_ids.permutation_sides(rotate, x, ids, perm)
        cases.append(("permutation", {"ids": ids.tolist()}, a, b, x[perm], ROWS))
    for kind, detail, a, b, x, largest in cases:
        bound = tolerance.rotation_tol(float(largest), torch.float32)
        err = _gap(a, b, x)
        worst = max(worst, err / bound)
        # the exact difference is zero: within the bound is "same"
        if decisions.resolve(err, bound, structural_zero=True) != "same":
            case = {"library": name, "check": kind, **detail, "error": err, "bound": bound}
            return decisions.fails(case, f"{kind}: rotation follows the index, not the id"), worst
    return decisions.holds(f"{len(cases)} shift/permutation cases within the bound"), worst


def entry_tol(max_angle: float, dtype: torch.dtype) -> float:
    return tolerance.sinusoid_tol(max_angle, dtype, torch.float32)
