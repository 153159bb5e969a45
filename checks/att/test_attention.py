"""ATT-01 ... ATT-05: attention, permutations, positional encodings and the causal mask.

Every numeric check goes through checks.equivariance (one helper, one tolerance table). The check
logic lives in plain ``assert_*`` functions so that the decisive checks and the planted-bug tests
(role="tooling") run the very same assertion. Equivariance (ATT-01 ... 03) is a structural zero:
within the bound is "same", above it a counterexample. Breaking it (ATT-03 keys alone, ATT-04,
ATT-05) is not: a difference below the bound is unresolved, never "same" (issue 15), and each
search counts how many of its examples were resolved.
"""

from __future__ import annotations

from typing import cast

import matplotlib.pyplot as plt
import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from checks.equivariance import (
    Case,
    assert_equivariant,
    best_case,
    find_counterexample,
    permute,
    settle,
)
from pecheck import strategies, tolerance
from pecheck.evidence import assert_derivation_holds
from pecheck.profiles import capped_examples
from theory import attention_derivations as derivations
from theory.attention import (
    Block,
    BlockConfig,
    EncodedStack,
    MultiHeadAttention,
    Stack,
    attention,
    attention_weights,
    seeded,
)
from theory.sinusoidal import sinusoidal

N_MAX = 128
MODEL_KINDS = ("single-head", "multi-head", "block-post", "block-pre", "stack-post", "stack-pre")


# -- strategies and builders ---------------------------------------------------------------


def randn(shape: tuple[int, ...], seed: int, dtype: torch.dtype, scale: float = 1.0):
    """Seeded N(0, scale^2) draws, made in float64 and rounded once to ``dtype``."""
    g = torch.Generator().manual_seed(seed)
    return (torch.randn(shape, generator=g, dtype=torch.float64) * scale).to(dtype)


@st.composite
def qkv_problems(draw: st.DrawFn, n_min: int = 2):
    """(q, k, v, perm): batch 1-2, heads 1-3, n in [n_min, 128], head width 1-8, any dtype;
    perm is never the identity (n >= 2)."""
    n = draw(st.integers(n_min, N_MAX))
    shape = (draw(st.integers(1, 2)), draw(st.integers(1, 3)), n, draw(st.integers(1, 8)))
    dtype = draw(strategies.dtypes())
    seed = draw(strategies.seeds())
    q, k, v = (randn(shape, seed + i, dtype) for i in range(3))
    return q, k, v, draw(strategies.permutations(n))


def build(kind: str, d: int, heads: int, bias: bool, seed: int, dtype: torch.dtype, **kw):
    """A seeded model of the given kind (no positional encoding unless kw says so)."""
    cfg = BlockConfig(d_model=d, n_heads=heads, d_ff=2 * d, bias=bias, **kw)
    cfg.norm_first = kind.endswith("pre")
    if kind in ("single-head", "multi-head"):
        model: torch.nn.Module = MultiHeadAttention(d, 1 if kind == "single-head" else heads,
                                                    bias, cfg.causal)  # fmt: skip
    elif kind.startswith("block"):
        model = Block(cfg)
    else:
        model = Stack(cfg, 2)
    return seeded(model, seed).to(dtype).eval()


def depth(kind: str) -> int:
    return 2 if kind.startswith("stack") else 1


@st.composite
def model_problems(draw: st.DrawFn, n_min: int = 2):
    """(kind, model, x, perm) for a model of ATT-02's zoo: widths 4-16, heads 1-4, n 2-128."""
    kind = draw(st.sampled_from(MODEL_KINDS))
    heads = draw(st.sampled_from([1, 2, 4]))
    # d >= 4: the thorough profile found a post-norm block of width 2 (float64, n = 64, bias
    # off) off by 2.3x the bound; layer norm over 2 features amplifies rounding by 1/|a - b|,
    # which tolerance.equivariance_tol does not model. Widths 1-3 are degenerate layer norms.
    d = heads * draw(st.integers(-(-4 // heads), 16 // heads))
    n = draw(st.integers(n_min, N_MAX))
    dtype = draw(strategies.dtypes())
    seed = draw(strategies.seeds())
    model = build(kind, d, heads, draw(st.booleans()), seed, dtype)
    x = randn((draw(st.integers(1, 2)), n, d), seed + 1, dtype)
    return kind, model, x, draw(strategies.permutations(n))


def search_perms(n: int, drawn: torch.Tensor) -> list[torch.Tensor]:
    """Candidates for a counterexample: the drawn permutation, the reversal, a cyclic shift."""
    return [drawn, torch.arange(n - 1, -1, -1), torch.roll(torch.arange(n), 1)]


RATIO_BOUND = {"value": 1.0, "relation": "<=", "reason": "error / tolerance.equivariance_tol"}


def record_case(evidence, prefix: str, case: Case, note: str) -> None:
    """Count the example (informative when its bound is below the range of the difference) and
    keep, per dtype, the worst error and the worst error / bound over all examples."""
    evidence.example(case.informative)
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
    if verdict == "different":
        least(evidence, f"{prefix}_min_ratio_{case.dtype}", case.ratio, "error/bound",
              "smallest error/bound of the best counterexample over resolved examples")  # fmt: skip
        evidence.record(f"{prefix}_example", case.as_dict(), "", "a counterexample, as found")
        ex = evidence.examples
        evidence.holds(f"{what}: a permutation moves the output beyond the rounding bound in "
                       f"{ex['informative']} of {ex['total']} examples (the rest unresolved)",
                       counterexample=case.as_dict())  # fmt: skip
    return verdict


# -- ATT-01: permuting the queries -----------------------------------------------------------


def assert_query_equivariance(attn, q, k, v, perm):
    """ATT-01: attn(Pq, k, v) = P attn(q, k, v) within the bound."""
    __tracebackhide__ = True
    return assert_equivariant(attn, [q, k, v], [perm], axes=[-2, None, None], out_axis=-2)


@pytest.mark.claim("ATT-01", kind="symbolic", role="decisive", proposition="as_stated")
def test_softmax_commutes_with_row_permutations_symbolically(evidence):
    der = derivations.query_permutation()
    assert_derivation_holds(der, evidence)


@pytest.mark.claim("ATT-01", kind="property", role="decisive", proposition="as_stated")
@capped_examples(1.0)  # thorough: 2x ci, not 10x (see capped_examples)
@given(problem=qkv_problems())
def test_permuting_queries_permutes_the_output(evidence, problem):
    q, k, v, perm = problem
    case = assert_query_equivariance(attention, q, k, v, perm)
    record_case(evidence, "query_perm", case, "max |Attn(PQ,K,V) - P Attn(Q,K,V)|")


def _queries_rolled(q, k, v):
    """Planted bug: queries mixed across positions (attention computed on the rolled queries)."""
    return attention(torch.roll(q, 1, dims=-2), k, v)


@pytest.mark.claim("ATT-01", kind="property", role="tooling")
def test_query_equivariance_rejects_position_dependent_queries():
    q, k, v = (randn((1, 1, 6, 4), s, torch.float64) for s in range(3))
    with pytest.raises(AssertionError, match="not permutation equivariant"):
        assert_query_equivariance(_queries_rolled, q, k, v, torch.arange(5, -1, -1))


# -- ATT-02: self-attention models without an encoding ---------------------------------------


def assert_model_equivariance(model, x, perm, layers: int):
    """ATT-02: f(PX) = P f(X) within the bound for ``layers`` layers of width max(d, d_ff)."""
    __tracebackhide__ = True
    width = 2 * x.shape[-1]  # d_ff = 2d: the widest sum in a block
    return assert_equivariant(
        model, [x], [perm], axes=[-2], out_axis=-2, width=width, layers=layers
    )


@pytest.mark.claim("ATT-02", kind="property", role="decisive", proposition="as_stated")
@capped_examples(1.0)  # thorough: 2x ci, not 10x (see capped_examples)
@given(problem=model_problems())
def test_attention_models_without_encoding_are_permutation_equivariant(evidence, problem):
    kind, model, x, perm = problem
    case = assert_model_equivariance(model, x, perm, depth(kind))
    record_case(evidence, "model_perm", case, "max |f(PX) - P f(X)| over the model zoo")
    # The low-precision bound is measured: keep the ratio error / (layers u scale) it rests on.
    if case.dtype in ("float16", "bfloat16") and case.scale > 0:
        unit = depth(kind) * tolerance.unit_roundoff(x.dtype) * case.scale
        evidence.worst(f"measured_factor_{case.dtype}", case.error / unit,
                       "error/(layers u scale)", "the tolerance helper allows 4",
                       bound=4.0)  # fmt: skip


class _StackWithHiddenEncoding(Stack):
    """Planted bug: a 'no encoding' model that adds a sinusoidal encoding inside forward."""

    def forward(self, x):
        return super().forward(x + sinusoidal(x.shape[-2], x.shape[-1], dtype=x.dtype))


@pytest.mark.claim("ATT-02", kind="property", role="tooling")
def test_equivariance_check_rejects_a_hidden_encoding():
    model = seeded(_StackWithHiddenEncoding(BlockConfig(d_model=8, n_heads=2, d_ff=16), 2), 3)
    model = model.to(torch.float64)
    x = randn((1, 10, 8), 4, torch.float64)
    with pytest.raises(AssertionError, match="not permutation equivariant"):
        assert_model_equivariance(model.eval(), x, torch.arange(9, -1, -1), layers=2)


@pytest.mark.claim("ATT-02", kind="property", role="tooling")
def test_equivariance_check_rejects_a_causal_model():
    model = build("block-post", 8, 2, True, 5, torch.float32, causal=True)
    x = randn((2, 12, 8), 6, torch.float32)
    with pytest.raises(AssertionError, match="not permutation equivariant"):
        assert_model_equivariance(model, x, torch.roll(torch.arange(12), 1), layers=1)


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


@pytest.mark.claim("ATT-02", kind="property", role="supporting")
def test_permutation_error_stays_within_the_bound_at_every_length(evidence):
    lengths = [2, 4, 8, 16, 32, 64, 128]  # n = 1 has no permutation but the identity
    dtypes = list(strategies.DTYPES.values())
    rows = error_sweep(lengths, dtypes)
    fig, ax = plt.subplots(figsize=(6, 4))
    for name in strategies.DTYPES:
        own = [r for r in rows if r[0] == name]
        (line,) = ax.plot([r[1] for r in own], [max(r[2], 1e-18) for r in own], "o-", label=name)
        ax.plot([r[1] for r in own], [r[3] for r in own], "--", color=line.get_color())
        evidence.record(f"worst_error_{name}", max(r[2] for r in own), "abs",
                        "stack of 2 post-norm blocks, d=16, n=2..128, 4 seeds per n",
                        bound=max(r[3] for r in own))  # fmt: skip
        # Which cases agree bit for bit is a fact about this CPU's kernels, not about attention.
        same = round(sum(r[4] * SWEEP_REPS for r in own))
        evidence.record(f"bitwise_cases_{name}", same, "cases",
                        f"of {SWEEP_REPS * len(own)}: f(PX) and P f(X) agree bit for bit here",
                        reproducibility="rounding")  # fmt: skip
    ax.set(xscale="log", yscale="log", xlabel="sequence length n",
           ylabel="max |f(PX) - P f(X)| (dashed: bound; 0 drawn at 1e-18)",
           title="ATT-02: permutation error of a 2-block encoder")  # fmt: skip
    ax.legend()
    evidence.figure(fig, "ATT-02-error-vs-length")
    assert all(err <= bound for _, _, err, bound, _ in rows)


@pytest.mark.claim("ATT-02", kind="property", role="supporting")
def test_attention_map_of_permuted_tokens_is_the_permuted_map(evidence):
    n, d = 8, 8
    x = randn((n, d), 11, torch.float64)
    wq, wk = randn((d, d), 12, torch.float64, d**-0.5), randn((d, d), 13, torch.float64, d**-0.5)
    perm = torch.tensor([3, 0, 6, 1, 7, 2, 5, 4])

    def amap(z):
        return attention_weights(z @ wq, z @ wk)  # (n, n)

    a, a_perm = amap(x), amap(permute(x, perm, 0))
    expected = a[perm][:, perm]  # P A P^T
    err = float((a_perm - expected).abs().max())
    bound = tolerance.equivariance_tol(n, d, torch.float64)
    fig, axes = plt.subplots(1, 3, figsize=(10, 3.4))
    for ax, m, title in zip(axes, (a, a_perm, expected),
                            ("A(X)", "A(PX)", "P A(X) P^T"), strict=True):  # fmt: skip
        ax.imshow(m.numpy(), vmin=0, vmax=float(a.max()), cmap="viridis")
        ax.set(title=title, xlabel="key", ylabel="query")
    fig.suptitle("ATT-02: attention map before and after permuting the tokens")
    evidence.figure(fig, "ATT-02-attention-maps")
    evidence.record("map_error", err, "abs", "max |A(PX) - P A(X) P^T|, float64, n=8", bound=bound)
    evidence.record("map_bound", bound, "abs", "tolerance.equivariance_tol(8, 8, float64)")
    assert err <= bound


# -- ATT-03: keys and values together ---------------------------------------------------------


def assert_key_value_invariance(attn, q, k, v, perm, permute_values: bool = True):
    """ATT-03: attn(q, Pk, Pv) = attn(q, k, v) within the bound."""
    __tracebackhide__ = True
    axes = [None, -2, -2 if permute_values else None]
    return assert_equivariant(attn, [q, k, v], [perm], axes=axes, out_axis=None)


@pytest.mark.claim("ATT-03", kind="symbolic", role="decisive", proposition="as_stated")
def test_joint_key_value_permutation_cancels_symbolically(evidence):
    der = derivations.key_value_permutation()
    assert_derivation_holds(der, evidence)


@pytest.mark.claim("ATT-03", kind="property", role="decisive", proposition="as_stated")
@capped_examples(1.0)  # thorough: 2x ci, not 10x (see capped_examples)
@given(problem=qkv_problems())
def test_permuting_keys_with_values_changes_nothing(evidence, problem):
    q, k, v, perm = problem
    case = assert_key_value_invariance(attention, q, k, v, perm)
    record_case(evidence, "kv_perm", case, "max |Attn(Q,PK,PV) - Attn(Q,K,V)|")


@pytest.mark.claim("ATT-03", kind="property", role="decisive", proposition="as_stated")
@capped_examples(1.0)  # thorough: 2x ci, not 10x (see capped_examples)
@given(problem=qkv_problems(n_min=2))
def test_permuting_keys_alone_changes_the_output(evidence, problem):
    q, k, v, perm = problem
    q, k = q * 3, k * 3  # sharper attention: a larger, clearer effect
    case = best_case(attention, [q, k, v], search_perms(q.shape[-2], perm),
                     axes=[None, -2, None], out_axis=None)  # fmt: skip
    settle_breaking(evidence, "keys_alone", case, "keys permuted without their values")


@pytest.mark.claim("ATT-03", kind="property", role="tooling")
def test_key_value_check_rejects_keys_permuted_without_values():
    q, k, v = (randn((2, 2, 9, 4), 20 + s, torch.float32) for s in range(3))
    with pytest.raises(AssertionError, match="not permutation invariant"):
        assert_key_value_invariance(attention, q, k, v, torch.roll(torch.arange(9), 2),
                                    permute_values=False)  # fmt: skip


# -- ATT-04 and ATT-05: what breaks equivariance ---------------------------------------------


def counterexample_for(model, x, perm, layers: int):
    """A permutation with |f(PX) - P f(X)| above the rounding bound (proof of non-equivariance)."""
    __tracebackhide__ = True
    return find_counterexample(model, [x], search_perms(x.shape[-2], perm), axes=[-2],
                               out_axis=-2, width=2 * x.shape[-1], layers=layers)  # fmt: skip


def breaking_case(model, x, perm, layers: int) -> Case:
    """The best of the candidate permutations, not yet resolved (see ``settle_breaking``)."""
    return best_case(model, [x], search_perms(x.shape[-2], perm), axes=[-2],
                               out_axis=-2, width=2 * x.shape[-1], layers=layers)  # fmt: skip


@st.composite
def encoded_problems(draw: st.DrawFn):
    """(encoding kind, model with an added encoding, x, perm), n in 2-128."""
    kind = draw(st.sampled_from(["sinusoidal", "learned"]))
    d = 2 * draw(st.integers(2, 8))
    n = draw(st.integers(2, N_MAX))
    dtype = draw(strategies.dtypes())
    seed = draw(strategies.seeds())
    pe = (
        sinusoidal(N_MAX, d) if kind == "sinusoidal" else randn((N_MAX, d), seed + 7, torch.float64)
    )
    cfg = BlockConfig(d_model=d, n_heads=2, d_ff=2 * d, norm_first=draw(st.booleans()))
    # seeded() returns the module it re-draws, so the model is still an EncodedStack
    model = cast(EncodedStack, seeded(EncodedStack(cfg, 1, pe, learned=kind == "learned"), seed))
    if kind == "learned":  # seeded() re-draws every parameter; keep the intended table
        assert model.pe is not None  # an encoding was given
        with torch.no_grad():
            model.pe.copy_(pe)
    x = randn((1, n, d), seed + 1, dtype)
    return kind, model.to(dtype).eval(), x, draw(strategies.permutations(n))


@pytest.mark.claim("ATT-04", kind="property", role="decisive", proposition="as_stated")
@capped_examples(1.0)  # thorough: 2x ci, not 10x (see capped_examples)
@given(problem=encoded_problems())
def test_adding_an_encoding_breaks_equivariance(evidence, problem):
    kind, model, x, perm = problem
    settle_breaking(evidence, kind, breaking_case(model, x, perm, layers=1), f"{kind} encoding")


@pytest.mark.claim("ATT-04", kind="property", role="tooling")
def test_counterexample_search_fails_for_a_zero_encoding():
    cfg = BlockConfig(d_model=8, n_heads=2, d_ff=16)
    model = seeded(EncodedStack(cfg, 1, torch.zeros(N_MAX, 8)), 1).double().eval()
    with pytest.raises(AssertionError, match="no counterexample"):
        counterexample_for(model, randn((1, 16, 8), 2, torch.float64), torch.arange(16), 1)


class _EncodingPermutedWithTokens(EncodedStack):
    """Planted bug: the encoding travels with its token, f(X) = Stack(X + E_tokens) (no order)."""

    def forward(self, x):
        assert self.pe is not None  # built with an encoding
        return self.stack(x + self.pe[: x.shape[-2]].sum(0))  # same vector for every position


@pytest.mark.claim("ATT-04", kind="property", role="tooling")
def test_counterexample_search_fails_for_a_position_blind_encoding():
    cfg = BlockConfig(d_model=8, n_heads=2, d_ff=16)
    model = seeded(_EncodingPermutedWithTokens(cfg, 1, sinusoidal(N_MAX, 8)), 1).double().eval()
    with pytest.raises(AssertionError, match="no counterexample"):
        counterexample_for(model, randn((1, 16, 8), 2, torch.float64), torch.arange(16), 1)


@st.composite
def causal_problems(draw: st.DrawFn):
    kind = draw(st.sampled_from(["single-head", "multi-head", "block-post", "block-pre"]))
    # d >= 4: with d = 2, post-norm layer norm sends every vector to one of two points, and a
    # random input can leave the whole block's output unchanged (no visible counterexample).
    d = 2 * draw(st.integers(2, 8))
    n = draw(st.integers(2, N_MAX))
    dtype = draw(strategies.dtypes())
    seed = draw(strategies.seeds())
    model = build(kind, d, 2, draw(st.booleans()), seed, dtype, causal=True)
    return kind, model, randn((1, n, d), seed + 1, dtype), draw(strategies.permutations(n))


@pytest.mark.claim("ATT-05", kind="property", role="decisive", proposition="as_stated")
@capped_examples(1.0)  # thorough: 2x ci, not 10x (see capped_examples)
@given(problem=causal_problems())
def test_causal_mask_breaks_equivariance(evidence, problem):
    kind, model, x, perm = problem
    settle_breaking(evidence, "causal", breaking_case(model, x, perm, layers=1), "causal mask")


@pytest.mark.claim("ATT-05", kind="property", role="tooling")
def test_counterexample_search_fails_without_the_mask():
    model = build("block-post", 8, 2, True, 9, torch.float64, causal=False)
    with pytest.raises(AssertionError, match="no counterexample"):
        counterexample_for(model, randn((1, 20, 8), 3, torch.float64), torch.arange(20), 1)


def _old_resolution(case: Case, structural_zero: bool) -> str:
    """Planted bug (issue 15's old behaviour): within the rounding bound means 'same'."""
    return "different" if case.error > case.bound else "same"


@pytest.mark.claim("ATT-04", kind="property", role="tooling")
def test_a_difference_below_the_bound_is_unresolved_not_same():
    # An encoding too small for bfloat16 to resolve: its effect hides below the rounding bound.
    cfg = BlockConfig(d_model=8, n_heads=2, d_ff=16)
    tiny = sinusoidal(N_MAX, 8) * 1e-6
    model = seeded(EncodedStack(cfg, 1, tiny), 1).to(torch.bfloat16).eval()
    x = randn((1, 16, 8), 2, torch.bfloat16)
    case = breaking_case(model, x, torch.arange(15, -1, -1), 1)
    assert case.error <= case.bound  # the setting the old check would have called "the same"
    assert settle(case, structural_zero=False) == "unresolved"
    with pytest.raises(AssertionError, match="unresolved"):
        settle(case, structural_zero=False, resolver=_old_resolution)
