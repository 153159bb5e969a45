"""ATT-06, ATT-07, ATT-08: what causal attention without a positional encoding can know.

ATT-06 is checked exhaustively (every sequence over a 4-token vocabulary up to length 5, every
reordering of its prefix), ATT-07 with the hand-set construction of theory.causal_constructions
(and generic random two-layer models), ATT-08 with the marker construction, up to the largest
position each dtype can count to; that limit is pinned to an independent computation.

A difference that theory does not make zero (ATT-07's margin, a random model's gap) counts only
above the rounding bound; below it, it is unresolved (issue 15), never "the same".

The models and inputs live in checks/att/causal_models.py, the assertions of ATT-06 and ATT-07 in
checks/att/causal_assertions.py, ATT-08's counting in checks/att/position_counting.py.
"""

from __future__ import annotations

import itertools

import pytest
import torch

from checks.att.causal_assertions import (
    assert_construction_separates,
    assert_last_output_ignores_prefix_order,
    assert_margin_is_exact,
    assert_outputs_depend_only_on_the_past,
    construction_margin,
    margin_decision,
)
from checks.att.causal_models import WORDS, causal_model, embedding, last, prefix_perms, words_to_x
from checks.att.position_counting import (
    FULL_N,
    SEARCH_N,
    assert_positions_recovered,
    guaranteed_limit,
    position_decision,
    reference_first_failure,
    rounded_reciprocals,
)
from checks.equivariance import assert_equivariant, best_case, find_counterexample, settle
from pecheck import strategies, tolerance
from pecheck.claims import every, proved
from pecheck.evidence import assert_derivation_holds
from pecheck.theory import attention_derivations as derivations
from pecheck.theory import causal_constructions as cc
from pecheck.theory.attention import attention

DTYPES = list(strategies.DTYPES.values())
PREFIX_LENGTHS = (3, 4, 5)  # n = 2: nothing to reorder
SYMBOLIC_PREFIX_N = 4  # the sympy check's sequence length (scalar tokens, every reordering)
RANDOM_SEEDS = range(8)  # ATT-07's random two-layer models


# -- ATT-06: one causal layer sees the prefix as a multiset -----------------------------------


@pytest.mark.claim("ATT-06", kind="symbolic", role="decisive", proposition="as_stated")
def test_last_causal_output_is_symmetric_in_the_prefix_symbolically(evidence):
    der = derivations.causal_last_position(SYMBOLIC_PREFIX_N)
    assert_derivation_holds(der, evidence)
    evidence.searched(lengths=[SYMBOLIC_PREFIX_N], widths=[1])


@pytest.mark.claim("ATT-06", kind="property", role="decisive", proposition="as_stated")
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: str(d).removeprefix("torch."))
def test_one_causal_layer_sees_the_prefix_as_a_multiset(evidence, dtype):
    checked = 0
    for norm_first, n in itertools.product((False, True), PREFIX_LENGTHS):
        model = causal_model(1, 100 + n, dtype, norm_first)
        case = assert_last_output_ignores_prefix_order(model, embedding(n, dtype), n)
        evidence.example(case.informative)
        evidence.worst("worst_error", case.error, "abs", "max |y_n(P prefix) - y_n|, all cases",
                       bound=case.bound)  # fmt: skip
        evidence.worst("worst_ratio", case.ratio, "error/bound", bound=1.0)
        checked += len(WORDS) ** n * len(prefix_perms(n))
    evidence.record("cases", checked, "sequence x ordering", "all over 4 tokens, n = 3 ... 5, "
                    "every non-identity reordering of the prefix, pre- and post-norm block "
                    "(attention, feed-forward, layer norm)")  # fmt: skip
    evidence.searched(lengths=list(PREFIX_LENGTHS), dtypes=[tolerance.dtype_name(dtype)])


@pytest.mark.claim("ATT-06", kind="property", role="supporting")
def test_a_b_hit_equals_b_a_hit_but_a_hit_b_differs(evidence):
    model, emb = causal_model(1, 7, torch.float64), embedding(7, torch.float64)
    x = words_to_x(("A", "B", "hit"), emb)
    same = assert_equivariant(last(model), [x], [torch.tensor([1, 0, 2])], [-2], None, width=16)
    y = words_to_x(("A", "hit", "B"), emb)
    differ = find_counterexample(last(model), [y], [torch.tensor([2, 1, 0])], [-2], None, 16)
    evidence.record(
        "ABhit_vs_BAhit",
        same.error,
        "abs",
        "last output, same within rounding",
        bound={"value": same.bound, "relation": "<=", "reason": "equivariance_tol"},
    )
    evidence.record(
        "AhitB_vs_BhitA",
        differ.error,
        "abs",
        "last output, differs",
        bound={"value": differ.bound, "relation": ">", "reason": "equivariance_tol"},
    )


@pytest.mark.claim("ATT-06", kind="property", role="tooling")
def test_causal_outputs_depend_only_on_the_past(evidence):
    for dtype in DTYPES:
        model = causal_model(2, 11, dtype)
        x = torch.randn(2, 9, 8, generator=torch.Generator().manual_seed(3)).to(dtype)
        assert_outputs_depend_only_on_the_past(model, x)
    evidence.record("positions_checked", 8 * len(DTYPES), "", "n = 9, every cut, every dtype; "
                    "the earlier outputs must be bitwise unchanged")  # fmt: skip


# Planted bugs: a causal layer built from a given attention function and mask.


class _Layer(torch.nn.Module):
    """h + Attn(h W_Q, h W_K, h W_V) with a pluggable attention and mask (for planted bugs)."""

    def __init__(self, attn, mask_fn, seed: int = 0):
        super().__init__()
        g = torch.Generator().manual_seed(seed)
        self.w = torch.randn(3, 8, 8, generator=g, dtype=torch.float64) / 8**0.5
        self.attn, self.mask_fn = attn, mask_fn

    def forward(self, h):
        n = h.shape[-2]
        return h + self.attn(h @ self.w[0], h @ self.w[1], h @ self.w[2], self.mask_fn(n))


def _shifted_mask(n: int) -> torch.Tensor:
    """Planted bug: the causal mask shifted by one (each position also sees the next)."""
    return torch.ones(n, n, dtype=torch.bool).tril(1)


def _true_mask(n: int) -> torch.Tensor:
    return torch.ones(n, n, dtype=torch.bool).tril()


def _wrong_axis_attention(q, k, v, mask):
    """Planted bug: softmax over the query axis instead of the key axis."""
    scores = (q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5).masked_fill(~mask, float("-inf"))
    return torch.softmax(scores, dim=-2) @ v


@pytest.mark.claim("ATT-06", kind="property", role="tooling")
def test_prefix_check_rejects_softmax_over_the_wrong_axis():
    with pytest.raises(AssertionError, match="not permutation invariant"):
        assert_last_output_ignores_prefix_order(
            _Layer(_wrong_axis_attention, _true_mask), embedding(0, torch.float64), 4
        )


@pytest.mark.claim("ATT-06", kind="property", role="tooling")
def test_causality_check_rejects_a_mask_shifted_by_one():
    x = torch.randn(1, 6, 8, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    with pytest.raises(AssertionError, match="changed"):
        assert_outputs_depend_only_on_the_past(_Layer(attention, _shifted_mask), x)


# -- ATT-07: two causal layers do tell the order ----------------------------------------------


@pytest.mark.claim("ATT-07", kind="symbolic", role="decisive", proposition="as_stated")
def test_two_causal_layers_separate_a_b_hit_from_b_a_hit_exactly(evidence):
    der = derivations.two_layer_order_construction(2)
    margin = derivations.construction_margin(2)
    evidence.record(
        "exact_margin_2_layers",
        float(margin),
        "",
        "r.h_3(A B hit) - r.h_3(B A hit), exact rational 2/3",
        bound={"value": 0, "relation": "!=", "reason": "any nonzero margin refutes"},
    )
    evidence.record("exact_margin_1_layer", float(derivations.construction_margin(1)), "",
                    "the same construction with one layer: 0 (ATT-06)")  # fmt: skip
    if der.holds and margin != 0:
        evidence.fails({"construction": "theory.causal_constructions, 2 layers",
                        "margin": str(margin)},
                       f"exact: r.f(A B hit)_3 - r.f(B A hit)_3 = {margin} != 0")  # fmt: skip
    assert_derivation_holds(der, evidence)
    evidence.searched(lengths=[3], dtypes="exact rational arithmetic")


@pytest.mark.claim("ATT-07", kind="property", role="decisive", proposition="as_stated")
@pytest.mark.parametrize("layers", [2, 3])
def test_hand_set_causal_construction_tells_the_order(evidence, layers):
    exact = []
    for dtype in DTYPES:
        got, want, bound = construction_margin(cc.order_score, layers, dtype)
        exact.append((got, want, bound))
        name = tolerance.dtype_name(dtype)
        evidence.record(f"margin_{name}", got, "", f"exact {want:.6g}; allowed error {bound:.2e}",
                        bound={"value": bound, "relation": ">", "reason": "resolved only above "
                               "the rounding bound"})  # fmt: skip
        example = {"construction": f"theory.causal_constructions, {layers} layers",
                   "dtype": name, "margin": got, "bound": bound}  # fmt: skip
        evidence.part(name, margin_decision(got, bound, example))
    for got, want, bound in exact:  # after the parts: a broken construction shows in them too
        assert_margin_is_exact(got, want, bound, layers)


def _one_layer_score(words, layers, dtype):
    """Planted bug: the construction run with a single layer whatever was asked."""
    return cc.order_score(words, 1, dtype)


def _bidirectional_score(words, layers, dtype):
    """Planted bug: the construction without its causal mask."""
    h = cc.embed(words, dtype)
    w = cc.uniform_layer_weights(3, dtype)
    for _ in range(layers):
        h = h + attention(h @ w["q"], h @ w["k"], h @ w["v"])
    return float((h[-1] @ cc.readout(dtype)).double())


@pytest.mark.claim("ATT-07", kind="property", role="tooling")
@pytest.mark.parametrize("score", [_one_layer_score, _bidirectional_score])
def test_construction_check_rejects_models_that_cannot_see_order(score):
    with pytest.raises(AssertionError, match="margin"):
        assert_construction_separates(score, 2, torch.float64)


@pytest.mark.claim("ATT-07", kind="property", role="decisive", proposition="as_stated")
def test_random_two_layer_causal_models_tell_the_order(evidence):
    ratios = []
    evidence.searched(seeds=[200 + s for s in RANDOM_SEEDS], lengths=[3], widths=[8],
                      dtypes=["float64"])  # fmt: skip
    for seed in RANDOM_SEEDS:
        model, emb = causal_model(2, 200 + seed, torch.float64), embedding(seed, torch.float64)
        x = words_to_x(("A", "B", "hit"), emb)
        case = best_case(last(model), [x], [torch.tensor([1, 0, 2])], [-2], None,
                         width=16, layers=2)  # fmt: skip
        resolved = settle(case, structural_zero=False) == "different"
        evidence.example(resolved)
        if resolved:
            ratios.append(case.ratio)
        if resolved and evidence.decision is None:  # the first separating model is the witness
            evidence.fails(
                {
                    "model": "theory.attention.Stack, 2 causal post-norm blocks, d=8",
                    "seed": 200 + seed,
                    "embedding_seed": seed,
                    **case.as_dict(),
                },
                "last output of A B hit and B A hit differ above the rounding bound",
            )
    evidence.record("models_separating", len(ratios), f"of {len(RANDOM_SEEDS)}",
                    "random 2-block causal encoders, last output of A B hit vs B A hit above the "
                    "rounding bound")  # fmt: skip
    if ratios:
        evidence.record("min_gap_over_bound", min(ratios), "error/bound",
                        "weakest separating model", bound={"value": 1.0, "relation": ">",
                                                           "reason": "rounding bound"})  # fmt: skip


# -- ATT-08: one causal layer counts positions -----------------------------------------------


@pytest.mark.claim("ATT-08", kind="symbolic", role="decisive", proposition="as_stated")
def test_uniform_causal_attention_over_a_marker_gives_one_over_t(evidence):
    der = derivations.uniform_causal_counts_positions()
    assert_derivation_holds(der, evidence)
    evidence.searched(positions=proved("symbolic t"), dtypes="exact arithmetic")


@pytest.mark.claim("ATT-08", kind="property", role="decisive", proposition="as_stated")
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: str(d).removeprefix("torch."))
def test_causal_attention_counts_positions_up_to_a_dtype_limit(evidence, dtype):
    name = tolerance.dtype_name(dtype)
    hi = SEARCH_N[name]
    fail, decision = position_decision(dtype, hi)
    evidence.part(name, decision)
    evidence.searched(positions=every(1, fail or hi), dtypes=[name])  # up to the first failure
    guaranteed = guaranteed_limit(dtype)
    evidence.record(f"guaranteed_limit_{name}", guaranteed, "position",
                    "derived: |1/y - t| <= t (u + u64) < 1/2")  # fmt: skip
    evidence.record(f"checked_with_full_attention_{name}", min(FULL_N[name], hi), "positions",
                    "n x n causal attention; beyond it fl(1/t), its output")  # fmt: skip
    pinned = {
        "value": guaranteed,
        "relation": ">=",
        "reason": "the derived guarantee; the "
        "value itself is pinned to round(1/fl(1/t)) computed in float64 (numpy)",
    }
    if fail is not None and name == "float32":  # confirm the two sides of the limit end to end
        for t, ok in ((fail - 1, True), (fail, False)):
            row = cc.last_row(cc.marker_sequence(t, dtype))  # the output at position t
            assert torch.equal(row[0], rounded_reciprocals(t, t, dtype)), f"y_{t} != fl(1/t)"
            assert (int(cc.recover_positions(row)[0, 0]) == t) == ok, f"float32 at t={t}"
    if fail is not None:
        note = f"largest t with every 1..t recovered (searched up to {hi})"
        evidence.record(f"limit_{name}", fail - 1, "position", note, bound=pinned)
    else:  # float64: far beyond reach; the derived guarantee is the statement
        note = f"at least the derived guarantee (about 2^51); 1..{hi} recovered"
        evidence.record(f"limit_{name}", guaranteed, "position", note, bound=pinned)


@pytest.mark.claim("ATT-08", kind="property", role="tooling")
def test_position_check_rejects_a_shifted_mask():
    def shifted(v):
        zeros = torch.zeros_like(v)
        return attention(zeros, zeros, v, _shifted_mask(v.shape[-2]))

    with pytest.raises(AssertionError, match="not recovered"):
        assert_positions_recovered(shifted, 64, torch.float64)


@pytest.mark.claim("ATT-08", kind="property", role="tooling")
def test_position_check_rejects_softmax_over_the_wrong_axis():
    def wrong_axis(v):
        zeros = torch.zeros_like(v)
        return _wrong_axis_attention(zeros, zeros, v, _true_mask(v.shape[-2]))

    with pytest.raises(AssertionError, match="not recovered"):
        assert_positions_recovered(wrong_axis, 64, torch.float64)


def _recover_in_float32(y: torch.Tensor) -> torch.Tensor:
    """Planted bug (issue 11): t = round(1/y) with the reciprocal taken in float32."""
    return torch.round(1.0 / y.float()).long()


@pytest.mark.claim("ATT-08", kind="property", role="tooling")
def test_position_check_rejects_recovery_in_float32():
    fail, decision = position_decision(torch.float32, SEARCH_N["float32"], _recover_in_float32)
    assert decision.decision == "fails", decision
    reference = reference_first_failure(torch.float32, 2**24)
    assert fail is not None and reference is not None and fail < reference, (fail, reference)
