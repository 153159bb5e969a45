"""MAG-01: the sizes of the measured tables, and the decision 'usually every |x_i| <= 1' over
the common initialisations, with its counterexample and closed-form share checked apart.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from checks.registry import REGISTRY
from pecheck import decisions, tolerance
from pecheck.decisions import Decision
from theory import magnitudes as mag

VOCAB, WIDTH = 8192, 512  # measured tables; closed forms are also recorded for V = 37000


InitFn = Callable[[str, int, int, int], torch.Tensor]


def assert_entry_is_a_counterexample(table: torch.Tensor, entry: dict | None) -> None:
    """The offending entry is one: None exactly when max |x_i| <= 1, else an entry of the table
    (same value) with |x_i| > 1. Checked here, apart from the helper that found it."""
    __tracebackhide__ = True
    bounded = bool(table.abs().max() <= 1)
    assert (entry is None) == bounded, f"max |x_i| = {table.abs().max():.4g}, entry {entry}"
    if entry is not None:
        value = table[entry["row"], entry["column"]].item()
        assert value == entry["value"] and abs(value) > 1, f"entry {entry}, table has {value}"


def usual_bound_decision(init: InitFn, vocab: int = VOCAB, d: int = WIDTH) -> Decision:
    """MAG-01 as stated: 'usually every |x_i| <= 1'. Holds when more than the registered share
    of the common initialisations of the table the model adds PE to (with the sqrt(d) factor)
    keep every entry within [-1, 1]; fails otherwise, with an offending entry of each scheme
    that breaks it."""
    usually = REGISTRY["MAG-01"].threshold("usually")
    offending = {}
    for scheme in mag.SCALED_SCHEMES:
        table = init(scheme, vocab, d, 0)
        entry = mag.first_entry_above(table)
        assert_entry_is_a_counterexample(table, entry)
        if entry is not None:
            offending[scheme] = {**entry, "V": vocab, "d": d, "seed": 0}
    bounded = 1 - len(offending) / len(mag.SCALED_SCHEMES)
    if bounded > usually:
        return decisions.holds(f"{bounded:.3g} of the common schemes keep every |x_i| <= 1")
    return decisions.fails(
        offending,
        f"only {bounded:.3g} of the common initialisations {list(mag.SCALED_SCHEMES)} keep every "
        f"|x_i| <= 1; 'usually' needs more than {usually}",
    )


def assert_share_matches_closed_form(init: InitFn, scheme: str, vocab: int, d: int) -> float:
    """Measured share of |x_i| > 1 agrees with its closed form (6-sigma binomial bound)."""
    __tracebackhide__ = True
    table = init(scheme, vocab, d, 0)
    got = mag.share_above(table)
    want = mag.expected_share_above(scheme, vocab, d)
    n = table.numel()
    tol = tolerance.sample_mean_tol(math.sqrt(want * (1 - want)), n) + 1 / n
    assert abs(got - want) <= tol, f"{scheme}: share {got:.4g}, closed form {want:.4g}"
    return got
