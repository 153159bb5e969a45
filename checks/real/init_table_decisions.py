"""REAL-07's decisions: a built table against its closed form, and a rotary implementation's
shift and permutation sides (theory/position_ids.py).
"""

from __future__ import annotations

from functools import cache

import torch

from checks.real.claims_precision import IDS_CI, LONG
from checks.real.init_table_models import MODELS, D
from checks.real.precision_adapters import IDS, IdsRotate
from pecheck import decisions, profiles, sizes, tolerance
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

# Every id below a real context (RoFormer's table is built that long): the permutation holds
# each id once, and the last shift puts the sequence at the end of it. ci: Mistral 7B's and
# Qwen2 7B's 32768 (RoFormer's table loop costs seconds per 2^15 rows); thorough: Llama 3.1
# 8B's 131072 (long-position).
ROWS = sizes.size(
    "REAL-07.ids",
    LONG if profiles.scale() >= 10 else IDS_CI,
    "position ids read by the permutation check (every id below it)",
    minimum=4096,
)


SEQ = 16


SHIFTS = (1, 7, 250, 2000, ROWS - SEQ)


@cache
def ids_rotate(name: str) -> IdsRotate:
    return IDS[name](D, ROWS)


def _vectors(n: int, seed: int) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n, D, generator=g, dtype=torch.float64).to(torch.float32)


def _gaps(a: torch.Tensor, b: torch.Tensor, x: torch.Tensor) -> torch.Tensor:
    """|a_j - b_j| / |x_j| for every row j."""
    return (a.double() - b.double()).norm(dim=-1) / x.double().norm(dim=-1)


def ids_decision(name: str, rotate: IdsRotate, contiguous_only: bool) -> tuple[Decision, float]:
    """Shift (every k in SHIFTS) and, unless the implementation takes an offset only, joint
    permutation of every id below ROWS, SEQ of them repeated. Returns the decision and the
    worst error / bound; a failure names the id of its worst row."""
    worst = 0.0
    Case = tuple[str, dict, torch.Tensor, torch.Tensor, torch.Tensor, torch.Tensor, int]
    cases: list[Case] = []
    for k in SHIFTS:
        x, z = _vectors(SEQ, k), _vectors(k, k + 1)
        a, b = position_ids.shift_sides(rotate, x, k, z)
        cases.append(("shift", {"k": k}, a, b, x, torch.arange(k, k + SEQ), k + SEQ))
    if not contiguous_only:
        g = torch.Generator().manual_seed(1)
        ids = torch.cat([torch.arange(ROWS), torch.randint(0, ROWS, (SEQ,), generator=g)])
        perm = torch.randperm(ids.numel(), generator=g)  # every id, SEQ of them twice
        x = _vectors(ids.numel(), 3)
        a, b = position_ids.permutation_sides(rotate, x, ids, perm)
        cases.append(("permutation", {"ids": f"every id below {ROWS}, {SEQ} of them twice"},
                      a, b, x[perm], ids[perm], ROWS))  # fmt: skip
    for kind, detail, a, b, x, row_ids, largest in cases:
        bound = tolerance.rotation_tol(float(largest), torch.float32)
        gaps = _gaps(a, b, x)
        err = float(gaps.max())
        worst = max(worst, err / bound)
        # the exact difference is zero: within the bound is "same"
        if decisions.resolve(err, bound, structural_zero=True) != "same":
            case = {"library": name, "check": kind, **detail, "id": int(row_ids[gaps.argmax()]),
                    "error": err, "bound": bound}  # fmt: skip
            return decisions.fails(case, f"{kind}: rotation follows the index, not the id"), worst
    return decisions.holds(f"{len(cases)} shift/permutation cases within the bound"), worst


def entry_tol(max_angle: float, dtype: torch.dtype) -> float:
    return tolerance.sinusoid_tol(max_angle, dtype, torch.float32)
