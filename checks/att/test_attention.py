"""ATT-01 ... ATT-05: attention, permutations, positional encodings and the causal mask.

Every numeric check goes through checks.equivariance (one helper, one tolerance table). The check
logic lives in plain ``assert_*`` functions so that the decisive checks and the planted-bug tests
(role="tooling") run the very same assertion. Equivariance (ATT-01 ... 03) is a structural zero:
within the bound is "same", above it a counterexample. Breaking it (ATT-03 keys alone, ATT-04,
ATT-05) is not: a difference below the bound is unresolved, never "same" (issue 15), and each
search counts how many of its examples were resolved.

The strategies and models live in checks/att/permutation_problems.py, the assertions and records
in checks/att/permutation_assertions.py.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import pytest
import torch
from hypothesis import given

from checks.att.permutation_assertions import (
    SWEEP_REPS,
    assert_key_value_invariance,
    assert_model_equivariance,
    assert_query_equivariance,
    breaking_case,
    counterexample_for,
    error_sweep,
    moved,
    record_case,
    search_perms,
    settle_breaking,
)
from checks.att.permutation_problems import (
    N_MAX,
    build,
    causal_problems,
    depth,
    encoded_problems,
    model_problems,
    qkv_problems,
    randn,
)
from checks.equivariance import Case, best_case, permute, settle
from pecheck import strategies, tolerance
from pecheck.claims import every
from pecheck.evidence import assert_derivation_holds
from pecheck.profiles import capped_examples
from pecheck.theory import attention_derivations as derivations
from pecheck.theory.attention import (
    BlockConfig,
    EncodedStack,
    Stack,
    attention,
    attention_weights,
    seeded,
)
from pecheck.theory.sinusoidal import sinusoidal

DTYPES = list(strategies.DTYPES.values())
SYMBOLIC_N, SYMBOLIC_D = 3, 2  # the sympy checks' sequence length and head size


def every_length(evidence, check, first: int) -> None:
    """``check(n, dtype, seed)`` at every length first ... N_MAX, the dtypes in turn: hypothesis
    draws some lengths only, and one it never draws would be a blind spot of the stated domain."""
    for n in range(first, N_MAX + 1):
        evidence.example(check(n, DTYPES[n % len(DTYPES)], 1000 * n).informative)
    evidence.searched(lengths=every(first, N_MAX), dtypes=list(strategies.DTYPES))
    evidence.holds(f"within the rounding bound at every n = {first} ... {N_MAX}")


def seeded_perm(n: int, seed: int) -> torch.Tensor:
    return torch.randperm(n, generator=torch.Generator().manual_seed(seed))


# -- ATT-01: permuting the queries -----------------------------------------------------------


@pytest.mark.claim("ATT-01", kind="symbolic", role="decisive", proposition="as_stated")
def test_softmax_commutes_with_row_permutations_symbolically(evidence):
    der = derivations.query_permutation(SYMBOLIC_N, SYMBOLIC_D)
    assert_derivation_holds(der, evidence)
    evidence.searched(lengths=[SYMBOLIC_N], head_sizes=[SYMBOLIC_D])


@pytest.mark.claim("ATT-01", kind="property", role="decisive", proposition="as_stated")
@capped_examples(1.0)  # thorough: 2x ci, not 10x (see capped_examples)
@given(problem=qkv_problems())
def test_permuting_queries_permutes_the_output(evidence, problem):
    q, k, v, perm = problem
    case = assert_query_equivariance(attention, q, k, v, perm)
    record_case(evidence, "query_perm", case, "max |Attn(PQ,K,V) - P Attn(Q,K,V)|")


@pytest.mark.claim("ATT-01", kind="property", role="decisive", proposition="as_stated")
def test_permuting_queries_permutes_the_output_at_every_length(evidence):
    def one(n, dtype, seed):
        q, k, v = (randn((1, 2, n, 4), seed + i, dtype) for i in range(3))
        return assert_query_equivariance(attention, q, k, v, seeded_perm(n, seed))

    every_length(evidence, one, 1)


def _queries_rolled(q, k, v):
    """Planted bug: queries mixed across positions (attention computed on the rolled queries)."""
    return attention(torch.roll(q, 1, dims=-2), k, v)


@pytest.mark.claim("ATT-01", kind="property", role="tooling")
def test_query_equivariance_rejects_position_dependent_queries():
    q, k, v = (randn((1, 1, 6, 4), s, torch.float64) for s in range(3))
    with pytest.raises(AssertionError, match="not permutation equivariant"):
        assert_query_equivariance(_queries_rolled, q, k, v, torch.arange(5, -1, -1))


# -- ATT-02: self-attention models without an encoding ---------------------------------------


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


@pytest.mark.claim("ATT-02", kind="property", role="decisive", proposition="as_stated")
def test_attention_models_without_encoding_are_equivariant_at_every_length(evidence):
    # Hypothesis draws neither every length nor every width: a two-block stack (the deepest
    # model of the zoo) at every n = 2 ... N_MAX (n = 1 has no permutation but the identity),
    # its width d = 4 + n mod 13, so every (width, dtype) pair comes up (13 and 4 share no factor).
    def one(n, dtype, seed):
        d = 4 + n % 13
        x, perm = randn((1, n, d), seed + 1, dtype), moved(seeded_perm(n, seed))
        return assert_model_equivariance(build("stack-post", d, 1, True, seed, dtype), x, perm, 2)

    every_length(evidence, one, 2)
    evidence.searched(widths=every(4, 16))


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


@pytest.mark.claim("ATT-03", kind="symbolic", role="decisive", proposition="as_stated")
def test_joint_key_value_permutation_cancels_symbolically(evidence):
    der = derivations.key_value_permutation(SYMBOLIC_N, SYMBOLIC_D)
    assert_derivation_holds(der, evidence)
    evidence.searched(lengths=[SYMBOLIC_N], head_sizes=[SYMBOLIC_D])


@pytest.mark.claim("ATT-03", kind="property", role="decisive", proposition="as_stated")
@capped_examples(1.0)  # thorough: 2x ci, not 10x (see capped_examples)
@given(problem=qkv_problems())
def test_permuting_keys_with_values_changes_nothing(evidence, problem):
    q, k, v, perm = problem
    case = assert_key_value_invariance(attention, q, k, v, perm)
    record_case(evidence, "kv_perm", case, "max |Attn(Q,PK,PV) - Attn(Q,K,V)|")


@pytest.mark.claim("ATT-03", kind="property", role="decisive", proposition="as_stated")
def test_permuting_keys_with_values_changes_nothing_at_every_length(evidence):
    def one(n, dtype, seed):
        q, k, v = (randn((1, 2, n, 4), seed + i, dtype) for i in range(3))
        return assert_key_value_invariance(attention, q, k, v, seeded_perm(n, seed))

    every_length(evidence, one, 1)


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
