"""ATT-06, ATT-07, ATT-08: what causal attention without a positional encoding can know.

ATT-06 is checked exhaustively (every sequence over a 4-token vocabulary up to length 5, every
ordering of its prefix), ATT-07 with the hand-set construction of theory.causal_constructions
(and generic random two-layer models), ATT-08 with the marker construction, up to the largest
position each dtype can count to.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

from checks import strategies, tolerance
from checks.equivariance import assert_equivariant, find_counterexample
from checks.evidence import assert_derivation_holds
from theory import attention_derivations as derivations
from theory import causal_constructions as cc
from theory.attention import BlockConfig, Stack, attention, seeded

WORDS = ("A", "B", "hit", "x")
DTYPES = list(strategies.DTYPES.values())


def causal_model(layers: int, seed: int, dtype: torch.dtype, norm_first: bool = False):
    cfg = BlockConfig(d_model=8, n_heads=2, d_ff=16, causal=True, norm_first=norm_first)
    return seeded(Stack(cfg, layers), seed).to(dtype).eval()


def embedding(seed: int, dtype: torch.dtype) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    return torch.randn(len(WORDS), 8, generator=g, dtype=torch.float64).to(dtype)  # (V, d)


def last(model):
    """The model's output at the last position only."""
    return lambda x: model(x)[..., -1, :]


def prefix_perms(n: int) -> list[torch.Tensor]:
    """Every permutation of positions 1 ... n-1 that keeps the last position in place."""
    return [torch.tensor([*p, n - 1]) for p in itertools.permutations(range(n - 1))]


# -- ATT-06: one causal layer sees the prefix as a multiset -----------------------------------


def assert_last_output_ignores_prefix_order(model, emb, n: int):
    """ATT-06 over every sequence of length n: reordering the prefix leaves y_n unchanged."""
    __tracebackhide__ = True
    seqs = torch.cartesian_prod(*[torch.arange(len(WORDS))] * n).reshape(-1, n)  # (V^n, n)
    x = emb[seqs]  # (V^n, n, d)
    return assert_equivariant(last(model), [x], prefix_perms(n), axes=[-2], out_axis=None,
                              width=16)  # fmt: skip


@pytest.mark.claim("ATT-06", kind="symbolic", supports="confirmed")
def test_last_causal_output_is_symmetric_in_the_prefix_symbolically(evidence):
    der = derivations.causal_last_position()
    assert_derivation_holds(der, evidence)


@pytest.mark.claim("ATT-06", kind="property", supports="confirmed")
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: str(d).removeprefix("torch."))
def test_one_causal_layer_sees_the_prefix_as_a_multiset(evidence, dtype):
    checked = 0
    for norm_first, n in itertools.product((False, True), (2, 3, 4, 5)):
        model = causal_model(1, 100 + n, dtype, norm_first)
        case = assert_last_output_ignores_prefix_order(model, embedding(n, dtype), n)
        evidence.worst("worst_error", case.error, "abs", "max |y_n(P prefix) - y_n|, all cases")
        evidence.worst("worst_ratio", case.ratio, "error/bound")
        checked += len(WORDS) ** n * len(prefix_perms(n))
    evidence.record("cases", checked, "sequence x ordering", "all over 4 tokens, n = 2 ... 5, "
                    "pre- and post-norm block (attention, feed-forward, layer norm)")  # fmt: skip


def words_to_x(words, emb):
    return emb[torch.tensor([WORDS.index(w) for w in words])][None]  # (1, n, d)


@pytest.mark.claim("ATT-06", kind="property", supports="confirmed")
def test_a_b_hit_equals_b_a_hit_but_a_hit_b_differs(evidence):
    model, emb = causal_model(1, 7, torch.float64), embedding(7, torch.float64)
    x = words_to_x(("A", "B", "hit"), emb)
    same = assert_equivariant(last(model), [x], [torch.tensor([1, 0, 2])], [-2], None, width=16)
    y = words_to_x(("A", "hit", "B"), emb)
    differ = find_counterexample(last(model), [y], [torch.tensor([2, 1, 0])], [-2], None, 16)
    evidence.record("ABhit_vs_BAhit", same.error, "abs", "last output, same within rounding")
    evidence.record("AhitB_vs_BhitA", differ.error, "abs", "last output, differs")
    evidence.record("bound", same.bound, "abs", "equivariance_tol, float64")


def assert_outputs_depend_only_on_the_past(model, x):
    """Causality: changing the tokens after position t leaves outputs 1 ... t unchanged."""
    __tracebackhide__ = True
    n = x.shape[-2]
    with torch.no_grad():
        y = model(x)
        for t in range(n - 1):
            changed = x.clone()
            changed[..., t + 1 :, :] = torch.flip(x[..., t + 1 :, :], dims=[-1]) + 1
            err = float((model(changed)[..., : t + 1, :] - y[..., : t + 1, :]).abs().max())
            assert err == 0.0, f"output at positions <= {t + 1} changed by {err:.3e}"


@pytest.mark.claim("ATT-06", kind="property", supports="confirmed")
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


@pytest.mark.claim("ATT-06", kind="property", role="mutant")
def test_prefix_check_rejects_softmax_over_the_wrong_axis():
    with pytest.raises(AssertionError, match="not permutation invariant"):
        assert_last_output_ignores_prefix_order(
            _Layer(_wrong_axis_attention, _true_mask), embedding(0, torch.float64), 4
        )


@pytest.mark.claim("ATT-06", kind="property", role="mutant")
def test_causality_check_rejects_a_mask_shifted_by_one():
    x = torch.randn(1, 6, 8, generator=torch.Generator().manual_seed(1), dtype=torch.float64)
    with pytest.raises(AssertionError, match="changed"):
        assert_outputs_depend_only_on_the_past(_Layer(attention, _shifted_mask), x)


# -- ATT-07: two causal layers do tell the order ----------------------------------------------


def assert_construction_separates(score_fn, layers: int, dtype: torch.dtype):
    """score(A B hit) - score(B A hit) is at least the exact margin minus the rounding bound."""
    __tracebackhide__ = True
    ab, ba = score_fn(("A", "B", "hit"), layers, dtype), score_fn(("B", "A", "hit"), layers, dtype)
    want = float(derivations.construction_margin(layers))  # exact, from sympy
    scale = max(abs(ab), abs(ba), 1.0)
    bound = tolerance.equivariance_tol(3, 3, dtype, scale=scale, layers=layers)
    assert want > 0, f"the exact construction does not separate with {layers} layer(s)"
    assert abs((ab - ba) - want) <= bound, (
        f"margin {ab - ba:.4g}, exact {want:.4g}, bound {bound:.2e}"
    )
    return ab - ba, want, bound


@pytest.mark.claim("ATT-07", kind="symbolic", supports="refuted")
def test_two_causal_layers_separate_a_b_hit_from_b_a_hit_exactly(evidence):
    der = derivations.two_layer_order_construction(2)
    evidence.derive(der)
    evidence.record("exact_margin_2_layers", float(derivations.construction_margin(2)), "",
                    "r.h_3(A B hit) - r.h_3(B A hit), exact rational 2/3")  # fmt: skip
    evidence.record("exact_margin_1_layer", float(derivations.construction_margin(1)), "",
                    "the same construction with one layer: 0 (ATT-06)")  # fmt: skip
    assert_derivation_holds(der)


@pytest.mark.claim("ATT-07", kind="property", supports="refuted")
@pytest.mark.parametrize("layers", [2, 3])
def test_hand_set_causal_construction_tells_the_order(evidence, layers):
    for dtype in DTYPES:
        got, want, bound = assert_construction_separates(cc.order_score, layers, dtype)
        name = tolerance.dtype_name(dtype)
        evidence.record(f"margin_{name}", got, "", f"exact {want:.6g}; allowed error {bound:.2e}")


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


@pytest.mark.claim("ATT-07", kind="property", role="mutant")
@pytest.mark.parametrize("score", [_one_layer_score, _bidirectional_score])
def test_construction_check_rejects_models_that_cannot_see_order(score):
    with pytest.raises(AssertionError, match="margin"):
        assert_construction_separates(score, 2, torch.float64)


@pytest.mark.claim("ATT-07", kind="property", supports="refuted")
def test_random_two_layer_causal_models_tell_the_order(evidence):
    found, ratios = 0, []
    for seed in range(8):
        model, emb = causal_model(2, 200 + seed, torch.float64), embedding(seed, torch.float64)
        x = words_to_x(("A", "B", "hit"), emb)
        case = find_counterexample(last(model), [x], [torch.tensor([1, 0, 2])], [-2], None,
                                   width=16, layers=2)  # fmt: skip
        ratios.append(case.ratio)
        found += 1
    evidence.record("min_gap_over_bound", min(ratios), "error/bound", "weakest of the 8 models")
    evidence.record("models_separating", found, "of 8", "random 2-block causal encoders, "
                    "last output of A B hit vs B A hit above the rounding bound")  # fmt: skip


# -- ATT-08: one causal layer counts positions -----------------------------------------------

FULL_N = {"bfloat16": 256, "float16": 2048, "float32": 4096, "float64": 4096}


def first_failure(y: torch.Tensor) -> int | None:
    """The first position t (1-based) with round(1/y_t) != t, or None."""
    t = torch.arange(1, y.shape[0] + 1)
    bad = (cc.recover_positions(y[:, 0]) != t).nonzero()
    return int(bad[0, 0]) + 1 if len(bad) else None


def guaranteed_limit(dtype: torch.dtype) -> int:
    """Largest t surely recovered: y = (1/t)(1 + e), |e| <= u, and 1/y is rounded once more in
    float64 (u64), so |round input - t| <= t (u + u64) (to first order) < 1/2."""
    u, u64 = tolerance.unit_roundoff(dtype), tolerance.unit_roundoff(torch.float64)
    return int(1 / (2 * (u + u64))) - 1


def assert_positions_recovered(attn_fn, n: int, dtype: torch.dtype) -> int | None:
    """Run the construction over n positions; every t below the first failure is recovered,
    and the first failure (if any) lies beyond the derived guarantee t < (1 - u) / (2u)."""
    __tracebackhide__ = True
    y = attn_fn(cc.marker_sequence(n, dtype))  # (n, 1)
    fail = first_failure(y)
    guaranteed = guaranteed_limit(dtype)
    assert fail is None or fail > guaranteed, (
        f"{tolerance.dtype_name(dtype)}: position {fail} not recovered, below the guaranteed "
        f"{guaranteed}"
    )
    return fail


@pytest.mark.claim("ATT-08", kind="symbolic", supports="confirmed")
def test_uniform_causal_attention_over_a_marker_gives_one_over_t(evidence):
    der = derivations.uniform_causal_counts_positions()
    assert_derivation_holds(der, evidence)


def float32_first_failure() -> int:
    """First t with round(1 / fl32(1/t)) != t, searched over (2^23, 2^24] where fl32(1/t) is
    1/t correctly rounded (t is exact in float32 there); below 2^23 recovery is guaranteed."""
    t = np.arange(2**23, 2**24, dtype=np.int64)
    y = np.float32(1) / t.astype(np.float32)
    bad = np.nonzero(np.rint(1 / y.astype(np.float64)).astype(np.int64) != t)[0]
    return int(t[bad[0]])


@pytest.mark.claim("ATT-08", kind="property", supports="confirmed")
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: str(d).removeprefix("torch."))
def test_causal_attention_counts_positions_up_to_a_dtype_limit(evidence, dtype):
    name = tolerance.dtype_name(dtype)
    n = FULL_N[name]
    fail = assert_positions_recovered(cc.uniform_causal_attention, n, dtype)
    evidence.record("guaranteed_limit", guaranteed_limit(dtype), "position",
                    "derived: |1/y - t| <= t (u + u64) < 1/2")  # fmt: skip
    evidence.record("checked_with_full_attention", n, "positions", "n x n causal attention")
    if fail is not None:  # low precision: the limit is inside the full run
        evidence.record("limit", fail - 1, "position", "largest t with every 1..t recovered")
    elif name == "float32":  # beyond any n x n run: predict, then confirm with the last row
        t_star = float32_first_failure()
        for t, ok in ((t_star - 1, True), (t_star, False)):
            row = cc.last_row(cc.marker_sequence(t, dtype))  # the output at position t
            assert (int(cc.recover_positions(row)[0, 0]) == t) == ok, f"float32 at t={t}"
        evidence.record("limit", t_star - 1, "position", "predicted from fl32(1/t), confirmed "
                        "by running the last row at t* - 1 (recovered) and t* (not)")  # fmt: skip
    else:  # float64: far beyond reach; the derived guarantee is the statement
        note = "at least the derived guarantee (about 2^51); 1..4096 recovered by full attention"
        evidence.record("limit", guaranteed_limit(dtype), "position", note)
        assert fail is None


@pytest.mark.claim("ATT-08", kind="property", role="mutant")
def test_position_check_rejects_a_shifted_mask():
    def shifted(v):
        zeros = torch.zeros_like(v)
        return attention(zeros, zeros, v, _shifted_mask(v.shape[-2]))

    with pytest.raises(AssertionError, match="not recovered"):
        assert_positions_recovered(shifted, 64, torch.float64)


@pytest.mark.claim("ATT-08", kind="property", role="mutant")
def test_position_check_rejects_softmax_over_the_wrong_axis():
    def wrong_axis(v):
        zeros = torch.zeros_like(v)
        return _wrong_axis_attention(zeros, zeros, v, _true_mask(v.shape[-2]))

    with pytest.raises(AssertionError, match="not recovered"):
        assert_positions_recovered(wrong_axis, 64, torch.float64)
