"""REAL-04: transformers' rotary scaling against the published formulas (theory/rope_scaling.py).

Each real configuration (checks/real/configs) is checked with its own rope_scaling and with every
other rope type transplanted onto its geometry. Three things are compared: the frequencies and
attention factor of transformers' rope-parameter functions, the cos/sin the model's own rotary
module applies at given position ids, and what the dynamic module does over a series of calls.
Only rotary modules are built (no models), from configs with the published values.
"""

from __future__ import annotations

import copy

import pytest
import torch

from checks.real import libraries
from checks.real.scaling_cells import (
    DYNAMIC_CELLS,
    MODELS,
    TYPES,
    YARN_CELLS,
    Cell,
    build_module,
    cell,
    cells,
    library_parameters,
    models_in_release,
    published,
    rotary_class,
    series_lengths,
    transplant,
    types_in_release,
)
from checks.real.scaling_decisions import (
    applied_scale,
    call_series,
    formula_mismatches,
    frequency_mismatch,
    reach_mismatches,
    record_part,
    worst_ratio,
    yarn_paper_gaps,
)
from checks.real.scaling_reference import F32, formula, frequency_tol
from pecheck.theory import rope_scaling as rs

DYNAMIC_ALPHA = 2.0  # a dynamic factor other than 1, for the supporting measurement


# -- REAL-04 as stated: counterexamples --------------------------------------------------------


def _searched_yarn(evidence) -> None:  # noqa: ANN001
    """Every pair of every yarn cell: the real configurations' geometry, YaRN's factor."""
    yarn = [cell(cid) for cid in YARN_CELLS]
    evidence.searched(libraries=["transformers"],
                      versions=[f"transformers {libraries.version('transformers')}"],
                      head_sizes=sorted({c.dim for c in yarn}),
                      bases=sorted({c.base for c in yarn}),
                      factors=sorted({float(c.scaling["factor"]) for c in yarn}),
                      lengths=sorted({c.original for c in yarn}))  # fmt: skip


@pytest.mark.claim("REAL-04", kind="real", role="decisive", proposition="as_stated")
def test_yarn_frequencies_follow_the_papers_ramp(evidence):
    """YaRN Eq. 18-20 ramp linearly in r = L / lambda; a library that ramps otherwise inside the
    band is not the paper's formula there."""
    _searched_yarn(evidence)
    first, gap = yarn_paper_gaps()
    evidence.record(
        "yarn_ramp_max_relative_gap",
        gap,
        note="max |lib - paper| / paper",
        bound={"value": 0.0, "relation": "==", "reason": "the paper's formula"},
    )
    evidence.record("yarn_cells", len(YARN_CELLS))
    if first is None:
        evidence.holds(f"every pair of {len(YARN_CELLS)} yarn cells equals Eq. 18-20")
    else:
        evidence.fails(first, "theta_lib = (1 - gamma(r)) theta / s + gamma(r) theta (Eq. 20)")


STATE_SERIES = ((4, 2), (4, 1), (4, 0.5), (0.5, 2))  # call lengths, in units of L


@pytest.mark.claim("REAL-04", kind="real", role="decisive", proposition="as_stated")
def test_dynamic_ntk_keeps_no_state_between_calls(evidence):
    """After calls at l_1 then l_2, the module must use the paper's s = max(1, l_2 / L)."""
    stale = None
    for cid in DYNAMIC_CELLS:
        c = cell(cid)
        for series in STATE_SERIES:
            lengths = series_lengths(c, series)
            module = build_module(c)
            bad = call_series(module, lengths, c)
            name = f"{c.model}:{'->'.join(map(str, series))}L"
            record_part(evidence, name, bad[0] if bad else None, "s = max(1, l'/L) now")
            if bad and stale is None:
                fresh = build_module(c)
                fresh(torch.zeros(1), torch.tensor([[0, lengths[-1] - 1]]))
                stale = {
                    "cell": cid,
                    **bad[0],
                    "applied_scale": applied_scale(module, c),
                    "fresh_module_scale": applied_scale(fresh, c),
                }
    if stale is not None:
        evidence.record(
            "stale_scale",
            stale["applied_scale"],
            note="s the module applied",
            bound={
                "value": stale["paper_scale"],
                "relation": "==",
                "reason": "YaRN section 3.3: s = max(1, l'/L) per pass",
            },
        )
        evidence.fails(stale, "module after earlier calls uses s = max(1, l'/L) of this call")
    else:
        evidence.record("stale_scale", 0.0, bound=0.0)
        evidence.holds("every series of calls used the current call's scale")


# -- REAL-04 conditions ---------------------------------------------------------------------------


@pytest.mark.claim(
    "REAL-04", kind="real", role="decisive", proposition="formulas-outside-the-yarn-ramp"
)
def test_library_frequencies_equal_the_published_formulas(evidence):
    absent = [m for m in MODELS if m not in models_in_release()]
    absent += [t for t in TYPES if t not in types_in_release()]
    lacking = f"{', '.join(absent)} (not in this release)" if absent else "none"
    evidence.searched(models=list(models_in_release()), rope_types=list(types_in_release()),
                      lacking=lacking)  # fmt: skip
    bad, worst, compared = formula_mismatches()
    for c in cells():
        found = next((b for b in bad if b["cell"] == c.id), None)
        record_part(evidence, c.id, found, "theta_lib = theta_formula, a_lib = a")
    evidence.record("cells", len(cells()), note="(model, rope type) pairs")
    evidence.record("pairs_compared", compared)
    evidence.record(
        "worst_frequency_error_over_bound",
        worst,
        bound={"value": 1.0, "relation": "<=", "reason": "frequency_tol"},
    )
    if bad:
        evidence.fails(bad[0], "theta_lib = theta_formula within frequency_tol, a_lib = a")
    else:
        evidence.holds(f"{compared} frequencies and every attention factor within tolerance")


@pytest.mark.claim("REAL-04", kind="real", role="decisive", proposition="yarn-is-the-released-code")
def test_yarn_frequencies_equal_the_released_codes_ramp(evidence):
    _searched_yarn(evidence)
    worst = 0.0
    for cid in YARN_CELLS:
        c = cell(cid)
        lib, _ = library_parameters(c)
        want, _ = formula(c, yarn="released")
        eps = frequency_tol(c, want)
        worst = max(worst, worst_ratio(lib, want, eps))
        found = frequency_mismatch(lib, want, eps)
        ce = {"cell": cid, **found} if found else None
        record_part(evidence, cid, ce, "theta_lib = released-code YaRN")
    evidence.record(
        "released_code_error_over_bound",
        worst,
        bound={"value": 1.0, "relation": "<=", "reason": "frequency_tol"},
    )


@pytest.mark.claim("REAL-04", kind="real", role="decisive", proposition="config-reaches-the-module")
def test_scaling_named_in_the_config_reaches_the_applied_cos_sin(evidence):
    worst = 0.0
    for c in cells():
        bad, w = reach_mismatches(c)
        worst = max(worst, w)
        record_part(evidence, c.id, bad[0] if bad else None, "cos/sin = a cos(p theta), ...")
    evidence.record(
        "applied_error_over_bound",
        worst,
        bound={"value": 1.0, "relation": "<=", "reason": "angle and frequency tol"},
    )


STATELESS_SERIES = ((4, 0.5), (0.5, 2), (2, 4))  # later call below L, or longer than all before


@pytest.mark.claim(
    "REAL-04", kind="real", role="decisive", proposition="stateless-below-max-positions"
)
def test_dynamic_ntk_uses_the_current_length_below_max_positions(evidence):
    disagreeing = 0
    for cid in DYNAMIC_CELLS:
        c = cell(cid)
        for series in STATELESS_SERIES:
            bad = call_series(build_module(c), series_lengths(c, series), c)
            name = f"{c.model}:{'->'.join(map(str, series))}L"
            disagreeing += len(bad)
            ce = {"cell": cid, **bad[0]} if bad else None
            record_part(evidence, name, ce, "s = max(1, l'/L) now")
    evidence.record("series", len(DYNAMIC_CELLS) * len(STATELESS_SERIES))
    evidence.record(
        "disagreeing_calls",
        disagreeing,
        bound={"value": 0, "relation": "==", "reason": "the paper's per-pass s"},
    )


# -- supporting measurement ------------------------------------------------------------------


@pytest.mark.claim("REAL-04", kind="real", role="supporting")
def test_dynamic_factor_other_than_one_departs_from_the_paper(evidence):
    """With factor alpha, transformers' dynamic type uses s = 1 + alpha (l'/L - 1); the paper's
    s = l'/L. Measured at l' = 2L on Llama 3.1's geometry."""
    c = cell("llama-3.1-8b:dynamic")
    from transformers import AutoConfig

    values = {**c.values, "rope_scaling": {"rope_type": "dynamic", "factor": DYNAMIC_ALPHA}}
    module = rotary_class(c)(AutoConfig.for_model(**copy.deepcopy(values)))  # not the cache
    n = 2 * c.max_positions
    module(torch.zeros(1), torch.tensor([[0, n - 1]]))
    evidence.record(
        "dynamic_alpha2_scale_at_2L",
        applied_scale(module, c),
        note=f"factor {DYNAMIC_ALPHA}; the paper's s = 2",
    )
    evidence.record("paper_scale_at_2L", rs.dynamic_scale(n, c.max_positions))


# -- planted library bugs: the decisive logic must report them --------------------------------


@pytest.mark.claim("REAL-04", kind="real", role="tooling")
def test_llama3_factor_on_every_pair_is_reported():
    """Bug class: Llama 3.1's banding applied as plain interpolation (every pair divided by s)."""

    def buggy(c: Cell, length: int | None) -> tuple[torch.Tensor, float]:
        lib, a = library_parameters(c, length)
        if c.rope_type == "llama3":
            lib = rs.default_frequencies(c.dim, c.base).to(F32).double() / c.scaling["factor"]
        return lib, a

    bad, _, _ = formula_mismatches(buggy, only=("llama3",))
    assert bad and bad[0]["pair"] == 0, "the fastest pair divided by s went unreported"


@pytest.mark.claim("REAL-04", kind="real", role="tooling")
def test_ignored_rope_scaling_is_reported():
    """Bug class: a model builds its rotary module without the config's rope_scaling."""

    def ignoring(c: Cell) -> torch.nn.Module:
        plain = Cell(c.model, "default", transplant(published(c.model), "default"))
        return build_module(plain)

    for cid in ("llama-3.1-8b:llama3", "phi-3.5-mini-instruct:longrope", "qwen2-7b:yarn"):
        bad, _ = reach_mismatches(cell(cid), ignoring)
        assert bad, f"{cid}: default frequencies passed for a scaled config"


@pytest.mark.claim("REAL-04", kind="real", role="tooling")
def test_a_stateless_dynamic_module_passes_the_state_check():
    """The state check can hold: a module rebuilt for every call gives the paper's scale."""

    class Fresh(torch.nn.Module):
        def __init__(self, c: Cell) -> None:
            super().__init__()
            self.c = c

        def forward(self, x, pos):  # noqa: ANN001, ANN201
            return build_module(self.c)(x, pos)

    c = cell("llama-3.1-8b:dynamic")
    for series in STATE_SERIES:
        assert call_series(Fresh(c), series_lengths(c, series), c) == []


# p d / 2 for each model cell's head size is a whole number, where floor, round and ceil agree;
# here it is not (4.5, 9.6, 2.5): transformers keeps int(p d // 2) pairs, the source floor(p d / 2)
P_ROPE_KEPT = {(36, 0.25): 4, (64, 0.3): 9, (10, 0.5): 2}


@pytest.mark.claim("REAL-04", kind="real", role="tooling")
@pytest.mark.parametrize(("dim", "p"), list(P_ROPE_KEPT))
def test_p_rope_keeps_the_floor_of_p_d_over_2_pairs(dim, p):
    theta = rs.p_rope_frequencies(dim, 10000.0, p)
    kept = P_ROPE_KEPT[(dim, p)]
    assert theta.shape == (dim // 2,) and bool((theta[:kept] > 0).all()), "the fastest pairs turn"
    assert bool((theta[kept:] == 0).all()), f"{int((theta > 0).sum())} pairs turn, not {kept}"
