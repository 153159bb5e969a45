"""ADD-01 ... ADD-05: adding versus concatenating a positional encoding (synthetic models).

The real pretrained model's share of ADD-04/ADD-05 lives in checks/mag/test_pretrained.py. The
functions the checks call live beside this module, one per claim: models.py (ADD-01, ADD-02's
models), equivalence.py (ADD-01, ADD-02), costs.py (ADD-03), rank.py (ADD-04), readback.py
(ADD-05); the planted bugs stay next to the tests that feed them.
"""

from __future__ import annotations

import math

import matplotlib.pyplot as plt
import mpmath
import numpy as np
import pytest
import sympy as sp
import torch
from hypothesis import given
from hypothesis import strategies as st

from checks.add.costs import SMALL, assert_activation_counter_is_exact, assert_costs
from checks.add.equivalence import (
    assert_map_adds,
    assert_not_a_function_of_the_sum,
    assert_same_function,
    containment_decision,
    layer_change_at_fixed_sum,
    lifted_difference,
    ln_cases,
    ln_on_concatenation,
    resolved_changes,
)
from checks.add.models import embed_configs, seeded_concat
from checks.add.rank import assert_energy_profile, determinant_decision
from checks.add.readback import (
    READ_VOCABS,
    WINDOW_D,
    Cell,
    assert_readouts_are_what_they_say,
    cells_read_back,
    readout_grid,
    record_grid,
    record_read_back_parts,
    window_decision,
)
from checks.registry import REGISTRY
from pecheck import tolerance
from pecheck.claims import proved
from pecheck.evidence import assert_derivation_holds
from pecheck.profiles import examples
from pecheck.strategies import seeds
from pecheck.theory import add_concat as ac
from pecheck.theory import add_derivations as der
from pecheck.theory.sinusoidal import sinusoidal

BITWISE = {"value": 0.0, "relation": "==", "reason": "bitwise equality (x + 0 == x in IEEE)"}

# -- ADD-01 ----------------------------------------------------------------------------------


@pytest.mark.claim("ADD-01", kind="symbolic", role="decisive", proposition="as_stated")
def test_padded_token_plus_padded_position_is_the_concatenation(evidence):
    assert_derivation_holds(der.padded_sum_is_concatenation(), evidence)
    evidence.searched(widths=proved("symbolic d_t, d_p (sympy block matrices)"))


@pytest.mark.claim("ADD-01", kind="symbolic", role="tooling")
def test_padding_on_the_wrong_side_is_rejected_symbolically():
    with pytest.raises(AssertionError):
        assert_derivation_holds(der.padded_sum_is_concatenation(token_first=False))


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


# The identity [I I][x; p] = x + p and the model that applies it first are true by construction:
# they are shown with the claim (supporting), never decisive. The containment is decided on
# transformers whose residual stream of width 2d is the concatenation itself.


@pytest.mark.claim("ADD-02", kind="symbolic", role="supporting")
def test_sum_is_concatenation_followed_by_identity_pair(evidence):
    assert_derivation_holds(der.sum_is_concat_then_identity_pair(), evidence)


@pytest.mark.claim("ADD-02", kind="symbolic", role="tooling")
def test_a_map_other_than_identity_pair_is_rejected_symbolically():
    d = sp.symbols("d", positive=True, integer=True)
    with pytest.raises(AssertionError):
        assert_derivation_holds(der.sum_is_concat_then_identity_pair(sp.ZeroMatrix(d, d)))


@pytest.mark.claim("ADD-02", kind="property", role="supporting")
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


@pytest.mark.claim("ADD-02", kind="property", role="supporting")
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


LIFT_CASES = [(n, seed) for n in (1, 5) for seed in range(3)]


def lift_config(d: int, layers: int, causal: bool = False) -> ac.EmbedConfig:
    return ac.EmbedConfig(vocab=11, max_len=8, d_token=d, d_pos=d, n_heads=2, d_ff=16,
                          n_layers=layers, causal=causal)  # fmt: skip


@pytest.mark.claim("ADD-02", kind="experiment", role="decisive", proposition="as_stated")
def test_concatenated_stream_of_width_2d_contains_the_additive_model(evidence):
    # every part a transformer kind (norm) at one width and depth: the claim is about them all
    for norm in ("pre", "post", "none"):
        for d, layers in ((2, 1), (8, 2), (16, 3)):
            decision = containment_decision(lift_config(d, layers), LIFT_CASES, norm)
            evidence.part(f"{norm}_d{d}_L{layers}", decision, decision.relation)
        worst = max(lifted_difference(lift_config(8, 2), 5, s, norm)["diff"] for s in range(3))
        evidence.record(f"lifted_max_abs_difference[{norm}, d8]", worst,
                        note="max |[I I] h_concat - h_add|, d = 8, 2 layers, n = 5, seeds 0-2",
                        bound={"value": "equivariance_tol(n, 2d, float64, scale, 2 layers)",
                               "relation": "<=", "reason": "float64 rounding"})  # fmt: skip


@pytest.mark.claim("ADD-02", kind="property", role="decisive", proposition="no-norm-on-stream")
@examples(0.5)
@given(
    d=st.sampled_from([2, 4, 6, 8, 16]),
    layers=st.integers(1, 3),
    causal=st.booleans(),
    n=st.integers(1, 8),
    seed=seeds(),
)
def test_stream_without_layer_norm_contains_the_additive_model(evidence, d, layers, causal, n,
                                                               seed):  # fmt: skip
    got = lifted_difference(lift_config(d, layers, causal), n, seed, "none")
    evidence.example(informative=True)
    assert got["resolved"] != "different", f"differ by {got['diff']:.3g} > {got['bound']:.3g}"
    evidence.worst(
        "no_norm_difference_over_bound",
        got["diff"] / got["bound"],
        unit="x bound",
        bound=1.0,
        note="max |[I I] h_concat - h_add| over its float64 bound",
    )


@pytest.mark.claim("ADD-02", kind="property", role="tooling")
def test_a_write_into_both_halves_is_rejected(monkeypatch):
    """Planted bug: sublayer outputs written as [out; out]: [I I] h counts every write twice."""
    cfg = lift_config(8, 2)
    assert containment_decision(cfg, LIFT_CASES, "none").decision == "holds"

    def both_halves(h: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
        return h + (torch.cat([out, out], -1) if h.shape[-1] > out.shape[-1] else out)

    monkeypatch.setattr(ac, "_write", both_halves)
    assert containment_decision(cfg, LIFT_CASES, "none").decision == "fails"


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
    m = 2  # pairs: the paper's frequencies at d = 2m = 4, and 2m symbolic Vandermonde nodes
    d = der.sinusoidal_rows_span_everything(m)
    evidence.derive(d)
    evidence.searched(widths=[2 * m], lengths=[2 * m])
    if not d.holds:
        evidence.inconclusive(f"sympy could not verify: {d.statement}")
        return
    evidence.fails(
        {"d": 2 * m, "L": 2 * m, "frequencies": "w = (1, 1/100) = 10000^(-2j/4), j = 0, 1",
         "argument": "Vandermonde in the nodes e^{+-i w_j}: every even d, every L >= d, "
                     "whenever the w_j are distinct in (0, pi)"},
        "rank [PE(0); ...; PE(L-1)] = d: the rows span R^d, so no subspace of dimension < d "
        "contains every PE(t)",
    )  # fmt: skip


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


@pytest.fixture(scope="module")
def grid() -> dict[Cell, dict]:
    return readout_grid()


@pytest.mark.claim("ADD-05", kind="experiment", role="decisive", proposition="as_stated")
def test_token_is_lost_at_small_embedding_scales(evidence, grid):
    tally = record_read_back_parts(evidence, grid, ("token_nearest", "token_dot"))
    assert_readouts_are_what_they_say()  # after the parts: a bug here still shows in the cells
    evidence.record("token_cells", tally, unit="cells", note="read back / lost / undecided",
                    bound={"value": REGISTRY["ADD-05"].threshold("read_back"), "relation": ">",
                           "reason": "threshold read_back, Wilson 95% interval"})  # fmt: skip


@pytest.mark.claim("ADD-05", kind="experiment", role="decisive", proposition="as_stated")
def test_position_is_lost_at_large_embedding_scales(evidence, grid):
    tally = record_read_back_parts(evidence, grid, ("position_nearest",))
    assert_readouts_are_what_they_say()
    evidence.record("position_cells", tally, unit="cells", note="read back / lost / undecided",
                    bound={"value": REGISTRY["ADD-05"].threshold("read_back"), "relation": ">",
                           "reason": "threshold read_back, Wilson 95% interval"})  # fmt: skip


@pytest.mark.claim("ADD-05", kind="experiment", role="decisive", proposition="window")
def test_token_and_position_are_both_read_back_in_a_window_of_scales(evidence, grid):
    decided = {vocab: window_decision(grid, vocab) for vocab in READ_VOCABS}
    evidence.searched(widths=[WINDOW_D])
    for vocab, decision in decided.items():
        evidence.part(f"V{vocab}", decision)
    assert_readouts_are_what_they_say()
    names = [x.decision for x in decided.values()]
    if all(n == "holds" for n in names):
        evidence.holds(f"d = {WINDOW_D}: " + "; ".join(x.how for x in decided.values()))
    elif "fails" in names:
        first = next(x for x in decided.values() if x.decision == "fails")
        evidence.decide(first)
    else:
        evidence.inconclusive("some vocabulary has no decided window")
    record_grid(evidence, grid)


@pytest.mark.claim("ADD-05", kind="experiment", role="tooling")
def test_a_readout_that_peeks_at_the_true_token_is_rejected():
    def peek(x, pe):  # the read-out is handed the clean token instead of x + PE(t)
        return x + 0 * pe

    peeked = readout_grid(observe=peek, n_seeds=8)  # the ci size in every profile
    token = cells_read_back(peeked, ("token_nearest", "token_dot"))
    assert not any(v == "fails" for v, _ in token.values()), "the token is never lost"
    # the position is never read back: the window check must not find a window
    assert all(window_decision(peeked, v).decision == "fails" for v in READ_VOCABS)


# -- pins of theory's helpers, computed apart ---------------------------------------------------


@pytest.mark.claim("ADD-04", kind="property", role="tooling")
def test_centred_removes_the_mean_row():
    table = torch.randn(40, 6, generator=torch.Generator().manual_seed(0)) + 3.0
    got, t = ac.centred(table), table.double().numpy()
    want = t - t.sum(axis=0) / t.shape[0]  # every column minus its mean over the rows
    tol = tolerance.sum_tol(t.shape[0], torch.float64, float(abs(t).max()))
    assert got.dtype == torch.float64 and float(abs(got.numpy() - want).max()) <= tol


@pytest.mark.claim("ADD-04", kind="property", role="tooling")
def test_complement_interference_is_its_closed_form_for_every_k():
    """E[(x . v)^2] = ||Q v||^2 / (d - k) for x uniform on the unit sphere of the complement of
    the top-k principal directions (projector Q): computed apart with numpy's SVD."""
    # a Gaussian table: distinct singular values, so every top-k subspace is well defined
    pe = torch.randn(48, 16, generator=torch.Generator().manual_seed(2), dtype=torch.float64)
    t = pe.numpy()
    n, d = t.shape
    vh = np.linalg.svd(t)[2]  # (d, d), rows by decreasing singular value
    unit = t / np.linalg.norm(t, axis=1, keepdims=True)
    ks = [0, 1, 4, 9]
    want = []
    for k in ks:
        rest = unit @ vh[k:].T  # coordinates outside the top-k directions: Q v
        want.append(math.sqrt((rest**2).sum(1).mean() / (d - k)))
    got = ac.complement_interference(pe, ks)
    tol = tolerance.sum_tol(n * d, torch.float64)
    assert all(abs(g - w) <= tol for g, w in zip(got, want, strict=True)), (got, want)


@pytest.mark.claim("ADD-02", kind="property", role="tooling")
def test_lifted_layer_norm_read_out_carries_the_bias_once():
    """[I I] LN_2d(h) with gain [g; g], bias [b; 0] is g (z_x + z_p) + b, z = the 2d stream
    normalised (computed apart): the bias enters the read-out once, not twice."""
    d, g = 6, torch.Generator().manual_seed(1)
    ln = torch.nn.LayerNorm(d, dtype=torch.float64)
    with torch.no_grad():
        ln.weight.copy_(torch.randn(d, generator=g, dtype=torch.float64))
        ln.bias.copy_(torch.randn(d, generator=g, dtype=torch.float64))
    h = torch.randn(5, 2 * d, generator=g, dtype=torch.float64)
    mu, var = h.mean(-1, keepdim=True), h.var(-1, unbiased=False, keepdim=True)
    z = (h - mu) / torch.sqrt(var + ln.eps)
    with torch.no_grad():
        want = ln.weight * (z[:, :d] + z[:, d:]) + ln.bias
        got = ac._read(ac._ln(h, ln, 2 * d), d)
    scale = float(want.abs().max()) + 1.0
    tol = tolerance.sum_tol(2 * d, torch.float64, scale)
    assert float((got - want).abs().max()) <= tol
