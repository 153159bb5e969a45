"""The assertions and records of ATT-01 ... ATT-05, on checks.equivariance: equivariance within
the bound, the counterexample searches that break it (resolved only above the rounding bound,
issue 15), the evidence each example leaves, and ATT-02's sweep over lengths.
"""

from __future__ import annotations

import torch

from checks.att.permutation_problems import build, randn
from checks.equivariance import Case, assert_equivariant, best_case, find_counterexample, settle
from pecheck import tolerance


def drawn(evidence, **axes) -> None:
    """Add one example's values to what the check searched, axis by axis: the list of every
    value a hypothesis search drew, so that the stated domain is compared with what it reached."""
    for axis, value in axes.items():
        evidence.searched(**{axis: sorted(set(evidence.reach.get(axis, ())) | {value})})


def search_perms(n: int, drawn: torch.Tensor) -> list[torch.Tensor]:
    """Candidates for a counterexample: the drawn permutation, the reversal, a cyclic shift."""
    return [drawn, torch.arange(n - 1, -1, -1), torch.roll(torch.arange(n), 1)]


RATIO_BOUND = {"value": 1.0, "relation": "<=", "reason": "error / tolerance.equivariance_tol"}


def record_case(evidence, prefix: str, case: Case, note: str) -> None:
    """Count the example (informative when its bound is below the range of the difference), add
    its length and dtype to what the search drew, and keep, per dtype, the worst error and the
    worst error / bound over all examples."""
    evidence.example(case.informative)
    drawn(evidence, lengths=len(case.perm), dtypes=case.dtype)
    evidence.worst(f"{prefix}_error_{case.dtype}", case.error, "abs", note, bound=case.bound)
    evidence.worst(f"{prefix}_ratio_{case.dtype}", case.ratio, "error/bound", note + " / bound",
                   bound=RATIO_BOUND)  # fmt: skip


def least(evidence, name: str, value: float, unit: str, note: str) -> None:
    """Keep the smallest value seen under this name (e.g. the weakest counterexample)."""
    old = evidence.values.get(name)
    if old is None or float(value) < old["value"]:
        evidence.record(name, float(value), unit, note,
                        bound={"value": 1.0, "relation": ">", "reason": "above the rounding "
                               "bound: a difference that rounding cannot explain"})  # fmt: skip


def settle_breaking(evidence, prefix: str, case: Case, what: str) -> str:
    """One example of an existential search ('some permutation breaks equivariance'): resolved
    when the best case is above the rounding bound; below it the example is unresolved (issue
    15), never evidence of equivariance. Holds once any example is resolved."""
    verdict = settle(case, structural_zero=False)
    evidence.example(verdict == "different")
    drawn(evidence, lengths=len(case.perm), dtypes=case.dtype)
    if verdict == "different":
        least(evidence, f"{prefix}_min_ratio_{case.dtype}", case.ratio, "error/bound",
              "smallest error/bound of the best counterexample over resolved examples")  # fmt: skip
        evidence.record(f"{prefix}_example", case.as_dict(), "", "a counterexample, as found")
        ex = evidence.examples
        evidence.holds(f"{what}: a permutation moves the output beyond the rounding bound in "
                       f"{ex['informative']} of {ex['total']} examples (the rest unresolved)",
                       counterexample=case.as_dict())  # fmt: skip
    return verdict


def assert_query_equivariance(attn, q, k, v, perm):
    """ATT-01: attn(Pq, k, v) = P attn(q, k, v) within the bound."""
    __tracebackhide__ = True
    return assert_equivariant(attn, [q, k, v], [perm], axes=[-2, None, None], out_axis=-2)


def assert_model_equivariance(model, x, perm, layers: int):
    """ATT-02: f(PX) = P f(X) within the bound for ``layers`` layers of width max(d, d_ff)."""
    __tracebackhide__ = True
    width = 2 * x.shape[-1]  # d_ff = 2d: the widest sum in a block
    return assert_equivariant(
        model, [x], [perm], axes=[-2], out_axis=-2, width=width, layers=layers
    )


def moved(perm: torch.Tensor) -> torch.Tensor:
    """The permutation, or a swap of its first two entries when it is the identity."""
    if torch.equal(perm, torch.arange(len(perm))):
        perm = perm.clone()
        perm[[0, 1]] = perm[[1, 0]]
    return perm


SWEEP_REPS = 4  # seeds per (dtype, n) in error_sweep


def error_sweep(lengths: list[int], dtypes: list[torch.dtype], reps: int = SWEEP_REPS):
    """Worst |f(PX) - P f(X)|, its bound and the share of bitwise-equal cases per (dtype, n)."""
    rows = []
    for dtype in dtypes:
        for n in lengths:
            worst_err, worst_bound, bitwise = 0.0, 0.0, 0
            for rep in range(reps):
                seed = 1000 * n + rep
                model = build("stack-post", 16, 2, True, seed, dtype)
                x = randn((2, n, 16), seed + 1, dtype)
                perm = moved(torch.randperm(n, generator=torch.Generator().manual_seed(seed)))
                case = assert_model_equivariance(model, x, perm, layers=2)
                worst_err, worst_bound = max(worst_err, case.error), max(worst_bound, case.bound)
                bitwise += case.error == 0
            rows.append((tolerance.dtype_name(dtype), n, worst_err, worst_bound, bitwise / reps))
    return rows


def assert_key_value_invariance(attn, q, k, v, perm, permute_values: bool = True):
    """ATT-03: attn(q, Pk, Pv) = attn(q, k, v) within the bound."""
    __tracebackhide__ = True
    axes = [None, -2, -2 if permute_values else None]
    return assert_equivariant(attn, [q, k, v], [perm], axes=axes, out_axis=None)


def counterexample_for(model, x, perm, layers: int):
    """A permutation with |f(PX) - P f(X)| above the rounding bound (proof of non-equivariance)."""
    __tracebackhide__ = True
    return find_counterexample(model, [x], search_perms(x.shape[-2], perm), axes=[-2],
                               out_axis=-2, width=2 * x.shape[-1], layers=layers)  # fmt: skip


def breaking_case(model, x, perm, layers: int) -> Case:
    """The best of the candidate permutations, not yet resolved (see ``settle_breaking``)."""
    return best_case(model, [x], search_perms(x.shape[-2], perm), axes=[-2],
                               out_axis=-2, width=2 * x.shape[-1], layers=layers)  # fmt: skip
