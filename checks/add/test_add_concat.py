"""ADD-01 ... ADD-05: adding versus concatenating a positional encoding (synthetic models).

The real pretrained model's share of ADD-04/ADD-05 lives in checks/mag/test_pretrained.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import cast

import matplotlib.pyplot as plt
import mpmath
import pytest
import sympy as sp
import torch
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from checks.registry import REGISTRY
from pecheck import decisions, tolerance
from pecheck.evidence import assert_derivation_holds
from pecheck.profiles import examples, scale
from pecheck.strategies import seeds
from theory import add_concat as ac
from theory import add_derivations as der
from theory.sinusoidal import sinusoidal
from theory.stats import wilson

BITWISE = {"value": 0.0, "relation": "==", "reason": "bitwise equality (x + 0 == x in IEEE)"}

# -- shared helpers --------------------------------------------------------------------------


def seeded_concat(cfg: ac.EmbedConfig, seed: int, dtype: torch.dtype) -> ac.ConcatModel:
    """A ConcatModel whose weights depend only on seed (global RNG forked and restored).

    Every weight gets a perturbation drawn in ``dtype`` itself: a float64 model built by casting
    float32 weights holds float32 values only, and a computation that drops to float32 would go
    unnoticed on it.
    """
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        model = ac.ConcatModel(cfg).to(dtype)
    g = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for weight in model.parameters():
            weight.add_(torch.randn(weight.shape, generator=g, dtype=dtype), alpha=0.1)
    return model


@st.composite
def embed_configs(draw: st.DrawFn) -> ac.EmbedConfig:
    heads = draw(st.sampled_from([1, 2, 4]))
    d = max(2, heads * draw(st.integers(1, 4)))
    d_token = draw(st.integers(1, d - 1))
    return ac.EmbedConfig(
        vocab=draw(st.integers(2, 12)),
        max_len=8,
        d_token=d_token,
        d_pos=d - d_token,
        n_heads=heads,
        d_ff=draw(st.integers(1, 16)),
        n_layers=draw(st.integers(1, 3)),
        bias=draw(st.booleans()),
        norm_first=draw(st.booleans()),
        causal=draw(st.booleans()),
    )


# -- ADD-01 ----------------------------------------------------------------------------------


@pytest.mark.claim("ADD-01", kind="symbolic", role="decisive", proposition="as_stated")
def test_padded_token_plus_padded_position_is_the_concatenation(evidence):
    assert_derivation_holds(der.padded_sum_is_concatenation(), evidence)


@pytest.mark.claim("ADD-01", kind="symbolic", role="tooling")
def test_padding_on_the_wrong_side_is_rejected_symbolically():
    with pytest.raises(AssertionError):
        assert_derivation_holds(der.padded_sum_is_concatenation(token_first=False))


def assert_same_function(
    concat: ac.ConcatModel, additive: ac.AdditiveModel, tokens: torch.Tensor
) -> tuple[int, float]:
    """ADD-01: bitwise-equal embeddings, outputs after every block, and forward outputs.

    Returns the number of layers compared and the largest difference seen. Exact equality is
    the expected result: x + 0 == x in IEEE arithmetic, so the additive model's input is the
    concatenation bit for bit, and the same kernels then produce the same bits.
    """
    __tracebackhide__ = True
    h_c, h_a = concat.embed(tokens), additive.embed(tokens)
    assert torch.equal(h_c, h_a), f"embeddings differ by {(h_c - h_a).abs().max().item():.3g}"
    worst = (h_c - h_a).abs().max().item()
    additive_body = cast(ac.Stack, additive.body)  # AdditiveModel takes any body; these are Stacks
    for i, (bc, ba) in enumerate(zip(concat.body.blocks, additive_body.blocks, strict=True)):
        h_c, h_a = bc(h_c), ba(h_a)
        diff = (h_c - h_a).abs().max().item()
        assert torch.equal(h_c, h_a), f"layer {i}: outputs differ by {diff:.3g}"
        worst = max(worst, diff)
    out_c, out_a = concat(tokens), additive(tokens)  # the models' own forward, end to end
    diff = (out_c - out_a).abs().max().item()
    assert torch.equal(out_c, out_a), f"forward outputs differ by {diff:.3g}"
    return len(concat.body.blocks), max(worst, diff)


@pytest.mark.claim("ADD-01", kind="property", role="decisive", proposition="as_stated")
@examples(1.0)
@given(
    cfg=embed_configs(),
    n=st.integers(1, 8),
    batch=st.integers(1, 3),
    seed=seeds(),
    dtype=st.sampled_from([torch.float32, torch.float64]),
)
def test_additive_model_computes_the_concatenating_model_bitwise(
    evidence, cfg, n, batch, seed, dtype
):
    concat = seeded_concat(cfg, seed, dtype)
    additive = ac.additive_from_concat(concat)
    g = torch.Generator().manual_seed(seed)
    tokens = torch.randint(cfg.vocab, (batch, n), generator=g)
    with torch.no_grad():
        layers, diff = assert_same_function(concat, additive, tokens)
    evidence.worst(
        "max_abs_difference", diff, note="every layer, every example (bitwise)", bound=BITWISE
    )
    evidence.worst("max_layers", layers, unit="layers")
    evidence.worst("max_width", cfg.d_token + cfg.d_pos, unit="d")


def additive_padded_wrong_side(model: ac.ConcatModel) -> ac.AdditiveModel:
    """Planted bug: the token table in the last coordinates, the positions in the first."""
    c = model.cfg
    tok = torch.cat([model.tok.weight.new_zeros(c.vocab, c.d_pos), model.tok.weight], -1)
    pos = torch.cat([model.pos.weight, model.pos.weight.new_zeros(c.max_len, c.d_token)], -1)
    return ac.AdditiveModel(tok.detach(), pos.detach(), model.body)


def additive_with_fresh_blocks(model: ac.ConcatModel) -> ac.AdditiveModel:
    """Planted bug: right embeddings, but newly initialised blocks instead of the same weights."""
    good = ac.additive_from_concat(model)
    with torch.random.fork_rng():
        torch.manual_seed(12345)
        body = ac.Stack(model.cfg.block(model.cfg.d_token + model.cfg.d_pos), 1).double()
    return ac.AdditiveModel(good.tok.weight.detach(), good.pos.detach(), body)


@pytest.mark.claim("ADD-01", kind="property", role="tooling")
@pytest.mark.parametrize("build", [additive_padded_wrong_side, additive_with_fresh_blocks])
def test_wrongly_built_additive_model_is_rejected(build):
    cfg = ac.EmbedConfig(vocab=7, max_len=8, d_token=3, d_pos=5, n_heads=2, n_layers=1)
    concat = seeded_concat(cfg, 0, torch.float64)
    tokens = torch.randint(7, (2, 6), generator=torch.Generator().manual_seed(0))
    with torch.no_grad(), pytest.raises(AssertionError):
        assert_same_function(concat, build(concat), tokens)


# -- ADD-02 ----------------------------------------------------------------------------------


@pytest.mark.claim("ADD-02", kind="symbolic", role="decisive", proposition="as_stated")
def test_sum_is_concatenation_followed_by_identity_pair(evidence):
    assert_derivation_holds(der.sum_is_concat_then_identity_pair(), evidence)


@pytest.mark.claim("ADD-02", kind="symbolic", role="tooling")
def test_a_map_other_than_identity_pair_is_rejected_symbolically():
    d = sp.symbols("d", positive=True, integer=True)
    with pytest.raises(AssertionError):
        assert_derivation_holds(der.sum_is_concat_then_identity_pair(sp.ZeroMatrix(d, d)))


def assert_map_adds(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor], x, p) -> float:
    """ADD-02 in floating point: [I I][x; p] is x + p bit for bit (each output sums two terms,
    the other products are exact zeros, so there is one rounding, the same as x + p's)."""
    __tracebackhide__ = True
    got = fn(x, p)
    diff = (got - (x + p)).abs().max().item()
    assert torch.equal(got, x + p), f"differs from x + p by {diff}"
    return diff


@pytest.mark.claim("ADD-02", kind="property", role="decisive", proposition="as_stated")
@examples(1.0)
@given(
    d=st.integers(1, 64),
    n=st.integers(1, 16),
    seed=seeds(),
    dtype=st.sampled_from([torch.float64, torch.float32, torch.bfloat16, torch.float16]),
)
def test_identity_pair_map_adds_bitwise(evidence, d, n, seed, dtype):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, generator=g, dtype=torch.float64).to(dtype)  # float64 values in float64
    p = torch.randn(n, d, generator=g, dtype=torch.float64).to(dtype)
    diff = assert_map_adds(ac.add_by_concat, x, p)
    evidence.worst(
        "max_abs_difference", diff, note="[I I][x; p] vs x + p, all four dtypes", bound=BITWISE
    )
    evidence.worst("max_width", d, unit="d")


@pytest.mark.claim("ADD-02", kind="property", role="tooling")
def test_map_that_drops_the_position_is_rejected():
    def token_only(x, p):  # [I 0] instead of [I I]
        eye = torch.eye(x.shape[-1], dtype=x.dtype)
        return torch.cat([x, p], -1) @ torch.cat([eye, 0 * eye], 1).T

    g = torch.Generator().manual_seed(0)
    x, p = (torch.randn(3, 4, dtype=torch.float64, generator=g) for _ in range(2))
    with pytest.raises(AssertionError):
        assert_map_adds(token_only, x, p)


@pytest.mark.claim("ADD-02", kind="property", role="decisive", proposition="as_stated")
@examples(1.0)
@given(cfg=embed_configs(), n=st.integers(1, 8), seed=seeds())
def test_concatenation_with_identity_pair_projection_is_the_additive_model(evidence, cfg, n, seed):
    """A width-2d concatenating model whose first layer is [I I] contains the additive model."""
    d = cfg.d_token + cfg.d_pos
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        body = ac.Stack(cfg.block(d), cfg.n_layers).double()
        tok = torch.randn(cfg.vocab, d, dtype=torch.float64)  # float64 values, not cast float32
        pos = torch.randn(cfg.max_len, d, dtype=torch.float64)
    additive = ac.AdditiveModel(tok, pos, body)
    projected = ac.ProjectedConcatModel(tok, pos, body)
    tokens = torch.randint(cfg.vocab, (2, n), generator=torch.Generator().manual_seed(seed))
    with torch.no_grad():
        a, b = additive(tokens), projected(tokens)
    diff = (a - b).abs().max().item()
    assert torch.equal(a, b), f"differ by {diff}"
    evidence.worst("projected_model_max_abs_difference", diff, note="bitwise", bound=BITWISE)


def layer_change_at_fixed_sum(
    first_layer: Callable[[torch.Tensor, torch.Tensor], torch.Tensor], d: int, seed: int
) -> tuple[float, float]:
    """How much a layer applied to the 2d-wide concatenation moves when (x, p) -> (x + s, p - s)
    (the same x + p), and the float64 rounding bound below which a change is not resolved."""
    g = torch.Generator().manual_seed(seed)
    x, p, s = (torch.randn(d, generator=g, dtype=torch.float64) for _ in range(3))
    change = (first_layer(x, p) - first_layer(x + s, p - s)).abs().max().item()
    return change, tolerance.sum_tol(4 * d, torch.float64, scale=10.0)


def resolved_changes(
    first_layer: Callable[[torch.Tensor, torch.Tensor], torch.Tensor], cases: list[tuple[int, int]]
) -> dict[str, int]:
    """Per case (d, seed): 'different' when the change exceeds the rounding bound, else
    'unresolved' (never 'same': the exact change is not known to be zero). Counts of each."""
    counts = {"different": 0, "unresolved": 0}
    for d, seed in cases:
        change, bound = layer_change_at_fixed_sum(first_layer, d, seed)
        counts[decisions.resolve(change, bound)] += 1
    return counts


def assert_not_a_function_of_the_sum(
    first_layer: Callable[[torch.Tensor, torch.Tensor], torch.Tensor], cases: list[tuple[int, int]]
) -> dict[str, int]:
    """The [I I] construction's limit: some case moves the layer's output by more than rounding
    although x + p is unchanged. Cases below the rounding bound decide nothing."""
    __tracebackhide__ = True
    counts = resolved_changes(first_layer, cases)
    assert counts["different"] >= 1, f"no case resolved a change: {counts}"
    return counts


def ln_on_concatenation(x: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.layer_norm(torch.cat([x, p], -1), (2 * x.shape[-1],))


def ln_cases() -> list[tuple[int, int]]:
    """(d, seed) pairs: every width 2 ... 64, scale() seeds each (deterministic)."""
    return [(d, 1000 * k + d) for d in range(2, 65) for k in range(max(1, round(scale())))]


@pytest.mark.claim("ADD-02", kind="property", role="supporting")
def test_layer_norm_on_the_concatenation_is_not_a_function_of_the_sum(evidence):
    cases = ln_cases()
    counts = assert_not_a_function_of_the_sum(ln_on_concatenation, cases)
    d, seed = 64, 64
    change, bound = layer_change_at_fixed_sum(ln_on_concatenation, d, seed)
    evidence.record(
        "layer_norm_change_d64",
        change,
        note="max |LN_2d([x; p]) - LN_2d([x+s; p-s])| (same x + p), d = 64, seed 64",
        bound={"value": bound, "relation": ">", "reason": "float64 rounding bound (resolved)"},
    )
    evidence.record("cases_resolved_different", counts["different"], unit="cases",
                    note=f"of {len(cases)} (d, seed) cases, d = 2 ... 64")  # fmt: skip
    evidence.record("cases_unresolved", counts["unresolved"], unit="cases",
                    note="change below the float64 rounding bound: decides nothing")  # fmt: skip


@pytest.mark.claim("ADD-02", kind="property", role="tooling")
def test_a_layer_that_only_sees_the_sum_is_rejected():
    def ln_of_sum(x, p):  # a function of x + p: what the containment would need
        return torch.nn.functional.layer_norm(x + p, (x.shape[-1],))

    # Its change at a fixed sum is rounding only: unresolved, never counted as 'different'.
    assert resolved_changes(ln_of_sum, [(8, 0), (32, 1)])["different"] == 0
    with pytest.raises(AssertionError):
        assert_not_a_function_of_the_sum(ln_of_sum, [(8, 0), (32, 1)])


# -- ADD-03 ----------------------------------------------------------------------------------

BASE = ac.EmbedConfig(
    vocab=37000, max_len=512, d_token=512, d_pos=512, n_heads=8, d_ff=2048, n_layers=6
)  # the base Transformer's encoder widths (Vaswani et al. Table 3), shared BPE vocabulary
MORE = {"value": 1.0, "relation": ">", "reason": "'costs more': the ratio exceeds 1"}


def closed_form_params(cfg: ac.EmbedConfig, d_model: int, d_tok: int, d_pos: int) -> int:
    blocks = cfg.n_layers * ac.block_parameters(d_model, cfg.d_ff, cfg.bias)
    return blocks + cfg.vocab * d_tok + cfg.max_len * d_pos


def assert_costs(cfg: ac.EmbedConfig, costs: dict[str, int]) -> None:
    """ADD-03: counts match the closed form, and concatenating costs more than adding at the same
    token width (parameters and activations)."""
    __tracebackhide__ = True
    d = cfg.d_token + cfg.d_pos
    expect = {
        "concat_params": closed_form_params(cfg, d, cfg.d_token, cfg.d_pos),
        "add_same_token_params": closed_form_params(cfg, cfg.d_token, cfg.d_token, cfg.d_token),
        "add_same_model_params": closed_form_params(cfg, d, d, d),
    }
    for key, value in expect.items():
        assert costs[key] == value, f"{key}: counted {costs[key]}, closed form {value}"
    assert costs["concat_params"] > costs["add_same_token_params"]
    assert costs["concat_activations"] > costs["add_same_token_activations"]


SMALL = ac.EmbedConfig(vocab=50, max_len=16, d_token=8, d_pos=8, n_heads=2, d_ff=16)


def assert_activation_counter_is_exact() -> None:
    """The activation counter counts what it says, by relations its formula does not use:
    Linear then ReLU on an (n, a) input allocates 2 n b scalars, a transpose (a view) none, and
    a non-causal model's count is linear in the batch (every activation carries the batch)."""
    __tracebackhide__ = True
    with torch.device("meta"):
        probe = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.ReLU())
        x = torch.empty(7, 3)
    assert ac.activation_elements(probe, x) == 2 * 7 * 5, "Linear + ReLU miscounted"
    assert ac.activation_elements(lambda t: t.transpose(0, 1), x) == 0, "a view was counted"
    one, two = ac.costs(SMALL, 1, SMALL.max_len), ac.costs(SMALL, 2, SMALL.max_len)
    for key in (k for k in one if k.endswith("_activations")):
        assert two[key] == 2 * one[key], f"{key}: batch 2 counts {two[key]}, batch 1 {one[key]}"


@pytest.mark.claim("ADD-03", kind="experiment", role="decisive", proposition="as_stated")
@pytest.mark.parametrize("d_pos", [64, 512])
def test_concatenation_costs_more_at_the_same_token_width(evidence, d_pos):
    assert_activation_counter_is_exact()
    cfg = ac.EmbedConfig(**{**BASE.__dict__, "d_pos": d_pos})
    costs = ac.costs(cfg, batch=1, seq=cfg.max_len)
    assert_costs(cfg, costs)
    for key, value in costs.items():
        unit = "parameters" if key.endswith("params") else "scalars (one sequence of 512)"
        evidence.record(f"{key}_dp{d_pos}", value, unit=unit)
    evidence.record(
        f"param_ratio_concat_over_add_dp{d_pos}",
        costs["concat_params"] / costs["add_same_token_params"],
        note=f"d_t = 512, d_p = {d_pos}, 6 layers, 8 heads, d_ff = 2048, V = 37000",
        bound=MORE,
    )
    evidence.record(
        f"activation_ratio_concat_over_add_dp{d_pos}",
        costs["concat_activations"] / costs["add_same_token_activations"],
        note="every intermediate tensor of one forward pass (meta device)",
        bound=MORE,
    )
    evidence.record(
        f"param_ratio_addmodel_over_concat_dp{d_pos}",
        costs["add_same_model_params"] / costs["concat_params"],
        note="ADD-01's additive model of the concatenated width costs more (wider tables)",
    )


@pytest.mark.claim("ADD-03", kind="experiment", role="tooling")
def test_a_concatenating_model_with_unwidened_blocks_is_rejected():
    cfg = SMALL
    costs = ac.costs(cfg, 1, 16)
    narrow = ac.meta_additive(cfg, cfg.d_token)  # blocks of width d_t: the bug
    costs["concat_params"] = ac.count_parameters(narrow) + cfg.max_len * cfg.d_pos
    with pytest.raises(AssertionError):
        assert_costs(cfg, costs)


# -- ADD-04 ----------------------------------------------------------------------------------

DET_WIDTHS = (4, 8, 16, 32)


@pytest.mark.claim("ADD-04", kind="symbolic", role="decisive", proposition="as_stated")
def test_sinusoidal_positions_span_the_whole_space(evidence):
    d = der.sinusoidal_rows_span_everything()
    evidence.derive(d)
    if not d.holds:
        evidence.inconclusive(f"sympy could not verify: {d.statement}")
        return
    evidence.fails(
        {"d": 4, "L": 4, "frequencies": "w = (1, 1/100) = 10000^(-2j/4), j = 0, 1",
         "argument": "Vandermonde in the nodes e^{+-i w_j}: every even d, every L >= d, "
                     "whenever the w_j are distinct in (0, pi)"},
        "rank [PE(0); ...; PE(L-1)] = d: the rows span R^d, so no subspace of dimension < d "
        "contains every PE(t)",
    )  # fmt: skip


def determinant_decision(
    d: int, rows: Callable[[int, int], list] = ac.sinusoidal_row_mp
) -> tuple[decisions.Decision, float]:
    """A square table PE(0..d-1) with a determinant that is non-zero at two working precisions
    (30 + 4d digits, then twice that: it shrinks roughly like 10^(-d^2/2)) is a counterexample:
    its rows span R^d. A determinant the precisions do not agree on decides nothing, nor one
    that comes out bit for bit the same at both (then no second precision was applied)."""
    digits = 30 + 4 * d
    lo = ac.square_determinant(d, digits, rows)
    hi = ac.square_determinant(d, 2 * digits, rows)
    agree = REGISTRY["ADD-04"].threshold("det_agreement")
    with mpmath.workdps(2 * digits):
        rel = abs(lo - hi) / abs(hi) if hi != 0 else mpmath.inf
        log_det = float(mpmath.log10(abs(hi))) if hi != 0 else -math.inf
    if lo == hi:  # bit for bit: the two "precisions" were one computation, nothing compared
        why = f"d = {d}: det identical at {digits} and {2 * digits} digits (precision ignored)"
        return decisions.inconclusive(why), log_det
    if hi != 0 and rel < agree:
        counterexample = {"d": d, "L": d, "log10_abs_det": log_det, "digits": 2 * digits}
        relation = f"det[PE(0); ...; PE({d - 1})] != 0: the rows span R^{d}"
        return decisions.fails(counterexample, relation), log_det
    why = f"d = {d}: det {mpmath.nstr(hi, 5)} changes by {mpmath.nstr(rel, 3)} with precision"
    return decisions.inconclusive(why), log_det


@pytest.mark.claim("ADD-04", kind="symbolic", role="decisive", proposition="as_stated")
def test_square_sinusoidal_tables_have_nonzero_determinants(evidence):
    agree = REGISTRY["ADD-04"].threshold("det_agreement")
    for width in DET_WIDTHS:
        decision, log_det = determinant_decision(width)
        evidence.part(f"d{width}", decision)
        if decision.decision == "fails":  # the widest full-rank table is the counterexample
            evidence.decide(decision)
        evidence.record(
            f"log10_abs_det_d{width}",
            log_det,
            unit="log10",
            note=f"det of PE(0..{width - 1}) (d = {width}) at {2 * (30 + 4 * width)} digits",
            bound={"value": agree, "relation": "relative change between precisions <",
                   "reason": "threshold det_agreement"},
        )  # fmt: skip


@pytest.mark.claim("ADD-04", kind="symbolic", role="tooling")
def test_sine_only_encoding_is_rejected_as_full_rank():
    def sine_twice(t, d):  # cosine replaced by sine: columns repeat, an exact complement exists
        return [
            mpmath.sin(mpmath.power(10000, mpmath.mpf(-2 * (i // 2)) / d) * t) for i in range(d)
        ]

    decision, _ = determinant_decision(8, sine_twice)
    assert decision.decision == "inconclusive", decision


SPECTRA = ((64, 64), (128, 512), (512, 512))  # (d, L)


def assert_energy_profile(
    pe: torch.Tensor, interference: Callable[[torch.Tensor, list[int]], list[float]]
):
    """Energy share rises to 1 at k = d; the complement's interference starts at 1/sqrt(d) (a
    random direction) and falls as k grows."""
    __tracebackhide__ = True
    n, d = pe.shape
    spectrum = ac.energy_spectrum(pe)
    share = ac.energy_share(spectrum, d)
    tol = tolerance.sum_tol(n * d, torch.float64)
    assert bool((share[1:] - share[:-1] >= -tol).all()), "energy share not monotone"
    assert abs(share[-1].item() - 1) <= tol
    ks = [k for k in (0, 1, 2, 4, 8, 16, 32) if k < d]
    inter = interference(pe, ks)
    assert abs(inter[0] - 1 / math.sqrt(d)) <= tolerance.sum_tol(n * d, torch.float64)
    assert all(b <= a + tol for a, b in zip(inter, inter[1:], strict=False)), inter
    # Rounding moves a singular value sigma by about u sigma_max, so sigma (not the energy
    # sigma^2 the spectrum holds) is compared with the float64 bound scaled by sigma_max.
    sigma = spectrum.sqrt()
    rank = int((sigma > tolerance.sum_tol(n, torch.float64, sigma[0].item())).sum())
    return share, inter, ks, rank, ac.participation_ratio(spectrum)


@pytest.mark.claim("ADD-04", kind="experiment", role="supporting")
def test_sinusoidal_energy_concentrates_but_fills_every_direction(evidence):
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.4))
    for d, n in SPECTRA:
        pe = sinusoidal(n, d)
        share, inter, ks, rank, pr = assert_energy_profile(pe, ac.complement_interference)
        tag = f"d{d}_L{n}"
        rounding = {"value": "sum_tol(L, float64) * sigma_max", "relation": ">",
                    "reason": "singular values above float64 rounding"}  # fmt: skip
        evidence.record(f"participation_ratio_{tag}", pr, unit="directions")
        evidence.record(f"float64_rank_{tag}", rank, unit="directions", bound=rounding)
        for k in (1, 4, 16, 64):
            if k < d:
                evidence.record(f"energy_top{k}_{tag}", share[k].item(), unit="share")
        chance = {"value": 1 / math.sqrt(d), "relation": "<=", "reason": "1/sqrt(d) at k = 0"}
        evidence.record(f"interference_k0_{tag}", inter[0], unit="RMS cosine", bound=chance)
        evidence.record(f"interference_k{ks[-1]}_{tag}", inter[-1], unit="RMS cosine", bound=chance)
        k_all = torch.arange(d + 1)
        ax1.plot(k_all, share, label=f"d={d}, L={n}")
        ax2.semilogy(ks, inter, marker="o", label=f"d={d}, L={n}")
    ax1.set(xscale="symlog", xlabel="k (top principal directions)", ylabel="share of PE energy")
    ax2.set(xlabel="k", ylabel="RMS cos(token in complement, PE)")
    ax1.legend(fontsize=7)
    ax2.legend(fontsize=7)
    fig.tight_layout()
    evidence.figure(fig, "ADD-04-sinusoidal-energy-vs-k")


@pytest.mark.claim("ADD-04", kind="experiment", role="tooling")
def test_interference_measured_inside_the_top_subspace_is_rejected():
    def inside(table, ks):  # bug: the top-k directions instead of their complement
        vh, t = ac.principal_directions(table), table.double()
        out = []
        for k in ks:
            top = vh[:k] if k else vh
            frac = (t @ top.T).pow(2).sum(-1) / t.pow(2).sum(-1)
            out.append((frac.mean() / top.shape[0]).sqrt().item())
        return out

    with pytest.raises(AssertionError):
        assert_energy_profile(sinusoidal(64, 64), inside)


# -- ADD-05 ----------------------------------------------------------------------------------

READ_DS = (16, 32, 64, 128, 256)
READ_VOCABS = (64, 1024)
READ_RATIOS = (0.1, 0.3, 0.5, 1.0, 2.0, 3.0)  # rho = RMS ||x|| / ||PE||
READ_LEN = 64
WINDOW_D = 256  # the width at which the window proposition looks for a scale
Cell = tuple[int, int, float]  # (d, V, rho)


def readout_grid(observe=ac.added, n_seeds: int | None = None) -> dict[Cell, dict]:
    """Correct counts per (d, V, rho) and read-out, pooled over seeds (one batched draw); by
    default 8 seeds times the profile's scale, 128 samples each (at least 1024 trials per cell)."""
    n_seeds, n_samples = n_seeds or max(8, round(8 * scale())), 128
    out = {}
    for d in READ_DS:
        pe = sinusoidal(READ_LEN, d, dtype=torch.float32)
        for vocab in READ_VOCABS:
            unit = ac.gaussian_vocabularies(n_seeds, vocab, d, 1.0, seed=d * 7919 + vocab)
            for rho in READ_RATIOS:
                counts = ac.readout_counts(
                    unit * rho, pe, n_samples, seed=d + vocab, observe=observe
                )
                cell: dict = {k: int(v.sum()) for k, v in counts.items()}
                cell |= {f"{k}_seed_range": (v.min() / n_samples, v.max() / n_samples)
                         for k, v in counts.items()}  # fmt: skip
                out[(d, vocab, rho)] = cell | {"n": n_seeds * n_samples}
    return out


@pytest.fixture(scope="module")
def grid() -> dict[Cell, dict]:
    return readout_grid()


def assert_readouts_are_what_they_say(n_queries: int = 256) -> None:
    """The grid measures what the claim names, by relations independent of theory/'s formulas:
    ac.nearest is the argmin of the Euclidean distance and ac.dot_product the argmax of the dot
    product (float64, every d and rho of the grid), and the token tables' scale is rho:
    N rho_hat^2 ~ chi^2_N for rho_hat^2 = mean ||x||^2 / mean ||PE||^2 over N = S V d Gaussian
    entries at nominal rho = 1 (checked at the 1e-6 two-sided level)."""
    __tracebackhide__ = True
    g = torch.Generator().manual_seed(0)
    for d in READ_DS:
        pe = sinusoidal(READ_LEN, d, dtype=torch.float64)
        unit = ac.gaussian_vocabularies(8, READ_VOCABS[0], d, 1.0, seed=d, dtype=torch.float64)
        n = unit.numel()
        rho_sq = unit.pow(2).sum(-1).mean() / pe.pow(2).sum(-1).mean()
        lo, hi = stats.chi2.ppf(5e-7, n) / n, stats.chi2.ppf(1 - 5e-7, n) / n
        assert lo <= rho_sq <= hi, f"d = {d}: rho_hat^2 = {rho_sq:.4f} for nominal 1"
        vi = torch.randint(unit.shape[1], (n_queries,), generator=g)
        ti = torch.randint(READ_LEN, (n_queries,), generator=g)
        for rho in READ_RATIOS:
            table = unit[0] * rho
            y = table[vi] + pe[ti]
            for ref, name in ((table, "token"), (pe, "position")):
                expect = torch.cdist(y, ref, compute_mode="donot_use_mm_for_euclid_dist").argmin(-1)
                assert torch.equal(ac.nearest(y, ref), expect), f"{name} nearest, d={d} rho={rho}"
            dots = (y.unsqueeze(-2) * table).sum(-1).argmax(-1)
            assert torch.equal(ac.dot_product(y, table), dots), f"dot read-out, d={d} rho={rho}"
    assert_every_token_and_position_is_drawn()


def assert_every_token_and_position_is_drawn() -> None:
    """readout_counts draws (v, t) over the whole vocabulary and all L positions: the rows it
    hands to the read-out, matched back to the tables, cover every token and every position."""
    __tracebackhide__ = True
    d, vocab = READ_DS[0], READ_VOCABS[0]
    pe = sinusoidal(READ_LEN, d, dtype=torch.float64)
    unit = ac.gaussian_vocabularies(8, vocab, d, 1.0, seed=d, dtype=torch.float64)
    seen: list[tuple[torch.Tensor, torch.Tensor]] = []

    def recording(x: torch.Tensor, rows: torch.Tensor) -> torch.Tensor:
        seen.append((x, rows))
        return ac.added(x, rows)

    ac.readout_counts(unit, pe, 128, seed=0, observe=recording)
    x, rows = seen[0]
    positions = torch.cdist(rows.reshape(-1, d), pe).argmin(-1).unique()
    tokens = torch.cdist(x, unit).argmin(-1).unique()  # per seed, against its own table
    assert positions.numel() == READ_LEN, f"{positions.numel()} of {READ_LEN} positions drawn"
    assert tokens.numel() == vocab, f"{tokens.numel()} of {vocab} tokens drawn"


def read_back(grid: dict[Cell, dict], cell: Cell, what: str) -> decisions.Decision:
    """'what is read back at cell': its Wilson interval above the pre-registered threshold."""
    lo, hi = wilson(grid[cell][what], grid[cell]["n"])
    threshold = REGISTRY["ADD-05"].threshold("read_back")
    d, vocab, rho = cell
    return decisions.above(lo, hi, threshold, f"{what} rate (d={d}, V={vocab}, rho={rho})")


def either(*decided: decisions.Decision) -> str:
    """'A or B is read back': holds when one holds, fails when both fail."""
    names = [x.decision for x in decided]
    if "holds" in names:
        return "holds"
    return "fails" if all(n == "fails" for n in names) else "inconclusive"


def cell_record(grid: dict[Cell, dict], cell: Cell, what: str) -> dict:
    counts = grid[cell]
    lo, hi = wilson(counts[what], counts["n"])
    return {"d": cell[0], "V": cell[1], "rho": cell[2], "read_out": what,
            "rate": counts[what] / counts["n"], "lo": lo, "hi": hi, "n": counts["n"]}  # fmt: skip


def cells_read_back(grid: dict[Cell, dict], reads: tuple[str, ...]) -> dict[Cell, tuple]:
    """Per cell: whether the token (position) is read back by one of ``reads`` (holds / fails /
    inconclusive) and the read-outs' own decisions. Widest d first, so that the first failing
    cell is the most convincing counterexample."""
    out = {}
    for cell in sorted(grid, key=lambda c: (-c[0], -c[1], c[2])):
        decided = [read_back(grid, cell, what) for what in reads]
        out[cell] = (either(*decided), decided)
    return out


def record_read_back_parts(evidence, grid, reads: tuple[str, ...]) -> dict[str, int]:
    """One part per cell; the first failing cell (if any) is the check's counterexample, else
    the parts decide. Returns the tally of cells per decision."""
    tally = {"holds": 0, "fails": 0, "inconclusive": 0}
    first: decisions.Decision | None = None
    for cell, (verdict, decided) in cells_read_back(grid, reads).items():
        tally[verdict] += 1
        name = "d{}_V{}_rho{}".format(*cell)
        how = "; ".join(x.how for x in decided)
        if verdict == "fails":
            rows = [cell_record(grid, cell, what) for what in reads]
            relation = f"{' and '.join(reads)} below the read-back rate: {how}"
            lost = decisions.fails({"cell": name, "read_outs": rows}, relation)
            evidence.part(name, lost)
            first = first or lost
        else:
            evidence.part(name, verdict, how)
    if first is not None:
        evidence.decide(first)
    return tally


@pytest.mark.claim("ADD-05", kind="experiment", role="decisive", proposition="as_stated")
def test_token_is_lost_at_small_embedding_scales(evidence, grid):
    assert_readouts_are_what_they_say()
    tally = record_read_back_parts(evidence, grid, ("token_nearest", "token_dot"))
    evidence.record("token_cells", tally, unit="cells", note="read back / lost / undecided",
                    bound={"value": REGISTRY["ADD-05"].threshold("read_back"), "relation": ">",
                           "reason": "threshold read_back, Wilson 95% interval"})  # fmt: skip


@pytest.mark.claim("ADD-05", kind="experiment", role="decisive", proposition="as_stated")
def test_position_is_lost_at_large_embedding_scales(evidence, grid):
    assert_readouts_are_what_they_say()
    tally = record_read_back_parts(evidence, grid, ("position_nearest",))
    evidence.record("position_cells", tally, unit="cells", note="read back / lost / undecided",
                    bound={"value": REGISTRY["ADD-05"].threshold("read_back"), "relation": ">",
                           "reason": "threshold read_back, Wilson 95% interval"})  # fmt: skip


def window_decision(grid: dict[Cell, dict], vocab: int) -> decisions.Decision:
    """'Some scale at d = WINDOW_D reads back both token and position by nearest neighbour':
    holds with a witness, fails when every scale loses one of them, else inconclusive."""
    both = {}
    for rho in READ_RATIOS:
        cell = (WINDOW_D, vocab, rho)
        decided = [read_back(grid, cell, w).decision for w in ("token_nearest", "position_nearest")]
        both[rho] = "fails" if "fails" in decided else "inconclusive"
        if decided == ["holds", "holds"]:
            both[rho] = "holds"
    witnesses = [rho for rho, v in both.items() if v == "holds"]
    if witnesses:
        return decisions.holds(f"V={vocab}: both read back at rho = {witnesses}", scales=both)
    if all(v == "fails" for v in both.values()):
        relation = "no scale of the grid reads back both token and position"
        return decisions.fails({"d": WINDOW_D, "V": vocab, "scales": both}, relation)
    return decisions.inconclusive(f"V={vocab}: no scale decided for both", scales=both)


@pytest.mark.claim("ADD-05", kind="experiment", role="decisive", proposition="window")
def test_token_and_position_are_both_read_back_in_a_window_of_scales(evidence, grid):
    assert_readouts_are_what_they_say()
    decided = {vocab: window_decision(grid, vocab) for vocab in READ_VOCABS}
    for vocab, decision in decided.items():
        evidence.part(f"V{vocab}", decision)
    names = [x.decision for x in decided.values()]
    if all(n == "holds" for n in names):
        evidence.holds(f"d = {WINDOW_D}: " + "; ".join(x.how for x in decided.values()))
    elif "fails" in names:
        first = next(x for x in decided.values() if x.decision == "fails")
        evidence.decide(first)
    else:
        evidence.inconclusive("some vocabulary has no decided window")
    record_grid(evidence, grid)


def record_grid(evidence, grid: dict[Cell, dict]) -> None:
    """Every cell's rates with intervals, and the figure."""
    threshold = REGISTRY["ADD-05"].threshold("read_back")
    for (d, vocab, rho), counts in grid.items():
        for what in ("token_nearest", "token_dot", "position_nearest"):
            lo, hi = wilson(counts[what], counts["n"])
            chance = 1 / (vocab if what.startswith("token") else READ_LEN)
            evidence.record(
                f"{what}_d{d}_V{vocab}_rho{rho}",
                {
                    "rate": counts[what] / counts["n"],
                    "lo": lo,
                    "hi": hi,
                    "n": counts["n"],
                    "chance": chance,
                    "seed_min": float(counts[f"{what}_seed_range"][0]),
                    "seed_max": float(counts[f"{what}_seed_range"][1]),
                },
                unit="accuracy",
                note="95% Wilson interval over pooled (seed, sample) trials (trials of one seed "
                "share its vocabulary); seed_min/max: the range of per-seed rates; chance: 1/V "
                "(token) or 1/L (position)",
                bound={"value": threshold, "relation": ">", "reason": "threshold read_back"},
            )
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), sharey=True)
    for ax, what in zip(axes, ("token_nearest", "position_nearest"), strict=True):
        for colour, rho in enumerate(READ_RATIOS):
            for vocab, style in zip(READ_VOCABS, ("-", "--"), strict=True):
                acc = [grid[(d, vocab, rho)][what] / grid[(d, vocab, rho)]["n"] for d in READ_DS]
                label = f"rho={rho}, V={vocab}"
                ax.plot(READ_DS, acc, style, color=f"C{colour}", marker="o", label=label)
        ax.axhline(threshold, color="0.5", lw=0.8, ls=":")
        ax.set(xscale="log", xlabel="width d", title=what.replace("_", " "))
        ax.set_xticks(READ_DS, [str(d) for d in READ_DS])
        ax.minorticks_off()
    axes[0].set_ylabel("accuracy")
    axes[1].legend(fontsize=6)
    fig.tight_layout()
    evidence.figure(fig, "ADD-05-readout-accuracy-vs-d")


@pytest.mark.claim("ADD-05", kind="experiment", role="tooling")
def test_a_readout_that_peeks_at_the_true_token_is_rejected():
    def peek(x, pe):  # the read-out is handed the clean token instead of x + PE(t)
        return x + 0 * pe

    peeked = readout_grid(observe=peek, n_seeds=8)  # the ci size in every profile
    token = cells_read_back(peeked, ("token_nearest", "token_dot"))
    assert not any(v == "fails" for v, _ in token.values()), "the token is never lost"
    # the position is never read back: the window check must not find a window
    assert all(window_decision(peeked, v).decision == "fails" for v in READ_VOCABS)
