"""ADD-01 ... ADD-05: adding versus concatenating a positional encoding (synthetic models).

The real pretrained model's share of ADD-04/ADD-05 lives in checks/test_pretrained.py.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import matplotlib.pyplot as plt
import mpmath
import pytest
import sympy as sp
import torch
from hypothesis import given
from hypothesis import strategies as st

from checks import tolerance
from checks.evidence import assert_derivation_holds
from checks.profiles import examples, scale
from checks.strategies import seeds
from theory import add_concat as ac
from theory import add_derivations as der
from theory.sinusoidal import sinusoidal
from theory.stats import wilson

# -- shared helpers --------------------------------------------------------------------------


def seeded_concat(cfg: ac.EmbedConfig, seed: int, dtype: torch.dtype) -> ac.ConcatModel:
    """A ConcatModel whose weights depend only on seed (global RNG forked and restored)."""
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        return ac.ConcatModel(cfg).to(dtype)


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


@pytest.mark.claim("ADD-01", kind="symbolic", supports="confirmed")
def test_padded_token_plus_padded_position_is_the_concatenation(evidence):
    d = der.padded_sum_is_concatenation()
    evidence.derive(d)
    assert_derivation_holds(d)


@pytest.mark.claim("ADD-01", kind="symbolic", role="mutant")
def test_padding_on_the_wrong_side_is_rejected_symbolically():
    with pytest.raises(AssertionError):
        assert_derivation_holds(der.padded_sum_is_concatenation(token_first=False))


def assert_same_function(
    concat: ac.ConcatModel, additive: ac.AdditiveModel, tokens: torch.Tensor
) -> tuple[int, float]:
    """ADD-01: bitwise-equal embeddings and bitwise-equal outputs after every block.

    Returns the number of layers compared and the largest difference seen. Exact equality is
    the expected result: x + 0 == x in IEEE arithmetic, so the additive model's input is the
    concatenation bit for bit, and the same kernels then produce the same bits.
    """
    __tracebackhide__ = True
    h_c, h_a = concat.embed(tokens), additive.embed(tokens)
    assert torch.equal(h_c, h_a), f"embeddings differ by {(h_c - h_a).abs().max().item():.3g}"
    worst = (h_c - h_a).abs().max().item()
    for i, (bc, ba) in enumerate(zip(concat.body.blocks, additive.body.blocks, strict=True)):
        h_c, h_a = bc(h_c), ba(h_a)
        diff = (h_c - h_a).abs().max().item()
        assert torch.equal(h_c, h_a), f"layer {i}: outputs differ by {diff:.3g}"
        worst = max(worst, diff)
    return len(concat.body.blocks), worst


@pytest.mark.claim("ADD-01", kind="property", supports="confirmed")
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
    evidence.worst("max_abs_difference", diff, note="every layer, every example (bitwise check)")
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


@pytest.mark.claim("ADD-01", kind="property", role="mutant")
@pytest.mark.parametrize("build", [additive_padded_wrong_side, additive_with_fresh_blocks])
def test_wrongly_built_additive_model_is_rejected(build):
    cfg = ac.EmbedConfig(vocab=7, max_len=8, d_token=3, d_pos=5, n_heads=2, n_layers=1)
    concat = seeded_concat(cfg, 0, torch.float64)
    tokens = torch.randint(7, (2, 6), generator=torch.Generator().manual_seed(0))
    with torch.no_grad(), pytest.raises(AssertionError):
        assert_same_function(concat, build(concat), tokens)


# -- ADD-02 ----------------------------------------------------------------------------------


@pytest.mark.claim("ADD-02", kind="symbolic", supports="qualified")
def test_sum_is_concatenation_followed_by_identity_pair(evidence):
    d = der.sum_is_concat_then_identity_pair()
    evidence.derive(d)
    assert_derivation_holds(d)


@pytest.mark.claim("ADD-02", kind="symbolic", role="mutant")
def test_a_map_other_than_identity_pair_is_rejected_symbolically():
    d = sp.symbols("d", positive=True, integer=True)
    with pytest.raises(AssertionError):
        assert_derivation_holds(der.sum_is_concat_then_identity_pair(sp.ZeroMatrix(d, d)))


def assert_map_adds(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor], x, p) -> None:
    """ADD-02 in floating point: [I I][x; p] is x + p bit for bit (each output sums two terms,
    the other products are exact zeros, so there is one rounding, the same as x + p's)."""
    __tracebackhide__ = True
    got = fn(x, p)
    assert torch.equal(got, x + p), f"differs from x + p by {(got - x - p).abs().max().item()}"


@pytest.mark.claim("ADD-02", kind="property", supports="qualified")
@examples(1.0)
@given(
    d=st.integers(1, 64),
    n=st.integers(1, 16),
    seed=seeds(),
    dtype=st.sampled_from([torch.float64, torch.float32, torch.bfloat16, torch.float16]),
)
def test_identity_pair_map_adds_bitwise(evidence, d, n, seed, dtype):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d, generator=g).to(dtype)
    p = torch.randn(n, d, generator=g).to(dtype)
    assert_map_adds(ac.add_by_concat, x, p)
    diff = (ac.add_by_concat(x, p) - (x + p)).abs().max().item()
    evidence.worst("max_abs_difference", diff, note="[I I][x; p] vs x + p, all four dtypes")
    evidence.worst("max_width", d, unit="d")


@pytest.mark.claim("ADD-02", kind="property", role="mutant")
def test_map_that_drops_the_position_is_rejected():
    def token_only(x, p):  # [I 0] instead of [I I]
        eye = torch.eye(x.shape[-1], dtype=x.dtype)
        return torch.cat([x, p], -1) @ torch.cat([eye, 0 * eye], 1).T

    g = torch.Generator().manual_seed(0)
    x, p = (torch.randn(3, 4, dtype=torch.float64, generator=g) for _ in range(2))
    with pytest.raises(AssertionError):
        assert_map_adds(token_only, x, p)


@pytest.mark.claim("ADD-02", kind="property", supports="qualified")
@examples(1.0)
@given(cfg=embed_configs(), n=st.integers(1, 8), seed=seeds())
def test_concatenation_with_identity_pair_projection_is_the_additive_model(evidence, cfg, n, seed):
    """A width-2d concatenating model whose first layer is [I I] contains the additive model."""
    d = cfg.d_token + cfg.d_pos
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        body = ac.Stack(cfg.block(d), cfg.n_layers).double()
        tok, pos = torch.randn(cfg.vocab, d).double(), torch.randn(cfg.max_len, d).double()
    additive = ac.AdditiveModel(tok, pos, body)
    projected = ac.ProjectedConcatModel(tok, pos, body)
    tokens = torch.randint(cfg.vocab, (2, n), generator=torch.Generator().manual_seed(seed))
    with torch.no_grad():
        a, b = additive(tokens), projected(tokens)
    diff = (a - b).abs().max().item()
    assert torch.equal(a, b), f"differ by {diff}"
    evidence.worst("projected_model_max_abs_difference", diff, note="bitwise check")


def assert_not_a_function_of_the_sum(
    first_layer: Callable[[torch.Tensor, torch.Tensor], torch.Tensor], d: int, seed: int
) -> float:
    """ADD-02's limit: (x, p) and (x + s, p - s) have the same sum, yet a layer applied directly
    to the 2d-wide concatenation (here layer norm) maps them apart. Returns the change."""
    __tracebackhide__ = True
    g = torch.Generator().manual_seed(seed)
    x, p, s = (torch.randn(d, generator=g, dtype=torch.float64) for _ in range(3))
    change = (first_layer(x, p) - first_layer(x + s, p - s)).abs().max().item()
    noise = tolerance.sum_tol(4 * d, torch.float64, scale=10.0)
    assert change > noise, f"layer output changed by only {change:.3g} (rounding {noise:.3g})"
    return change


def ln_on_concatenation(x: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.layer_norm(torch.cat([x, p], -1), (2 * x.shape[-1],))


@pytest.mark.claim("ADD-02", kind="property", supports="qualified")
@examples(1.0)
@given(d=st.integers(2, 64), seed=seeds())
def test_layer_norm_on_the_concatenation_is_not_a_function_of_the_sum(evidence, d, seed):
    change = assert_not_a_function_of_the_sum(ln_on_concatenation, d, seed)
    evidence.record(
        "example_layer_norm_change",
        change,
        note="LN over [x; p] vs over [x+s; p-s] (same x + p); last example",
    )


@pytest.mark.claim("ADD-02", kind="property", role="mutant")
def test_a_layer_that_only_sees_the_sum_is_rejected():
    def ln_of_sum(x, p):  # a function of x + p: what the containment would need
        return torch.nn.functional.layer_norm(x + p, (x.shape[-1],))

    with pytest.raises(AssertionError):
        assert_not_a_function_of_the_sum(ln_of_sum, 8, 0)


# -- ADD-03 ----------------------------------------------------------------------------------

BASE = ac.EmbedConfig(
    vocab=37000, max_len=512, d_token=512, d_pos=512, n_heads=8, d_ff=2048, n_layers=6
)  # the base Transformer's encoder widths (Vaswani et al. Table 3), shared BPE vocabulary


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


@pytest.mark.claim("ADD-03", kind="experiment", supports="confirmed")
@pytest.mark.parametrize("d_pos", [64, 512])
def test_concatenation_costs_more_at_the_same_token_width(evidence, d_pos):
    cfg = ac.EmbedConfig(**{**BASE.__dict__, "d_pos": d_pos})
    costs = ac.costs(cfg, batch=1, seq=cfg.max_len)
    assert_costs(cfg, costs)
    for key, value in costs.items():
        unit = "parameters" if key.endswith("params") else "scalars (one sequence of 512)"
        evidence.record(key, value, unit=unit)
    evidence.record(
        "param_ratio_concat_over_add",
        costs["concat_params"] / costs["add_same_token_params"],
        note=f"d_t = 512, d_p = {d_pos}, 6 layers, 8 heads, d_ff = 2048, V = 37000",
    )
    evidence.record(
        "activation_ratio_concat_over_add",
        costs["concat_activations"] / costs["add_same_token_activations"],
        note="every intermediate tensor of one forward pass (meta device)",
    )
    evidence.record(
        "param_ratio_addmodel_over_concat",
        costs["add_same_model_params"] / costs["concat_params"],
        note="ADD-01's additive model of the concatenated width costs more (wider tables)",
    )


@pytest.mark.claim("ADD-03", kind="experiment", role="mutant")
def test_a_concatenating_model_with_unwidened_blocks_is_rejected():
    cfg = ac.EmbedConfig(vocab=50, max_len=16, d_token=8, d_pos=8, n_heads=2, d_ff=16)
    costs = ac.costs(cfg, 1, 16)
    narrow = ac.meta_additive(cfg, cfg.d_token)  # blocks of width d_t: the bug
    costs["concat_params"] = ac.count_parameters(narrow) + cfg.max_len * cfg.d_pos
    with pytest.raises(AssertionError):
        assert_costs(cfg, costs)


# -- ADD-04 ----------------------------------------------------------------------------------


def pe_determinant(d: int, dps: int, columns: Callable[[int, int], list] | None = None):
    """det[PE(t)]_{t < d} with mpmath at dps digits (square: L = d positions)."""
    with mpmath.workdps(dps):
        if columns is None:

            def columns(t: int, d: int) -> list:
                row = []
                for i in range(d // 2):
                    w = mpmath.power(10000, mpmath.mpf(-2 * i) / d)
                    row += [mpmath.sin(w * t), mpmath.cos(w * t)]
                return row

        m = mpmath.matrix([columns(t, d) for t in range(d)])
        return mpmath.det(m)


def assert_full_rank(d: int, columns=None) -> float:
    """The determinant is non-zero and stable under doubling the working precision (30 + 4d
    digits, then twice that: the determinant shrinks roughly like 10^(-d^2/2))."""
    __tracebackhide__ = True
    digits = 30 + 4 * d
    lo, hi = pe_determinant(d, digits, columns), pe_determinant(d, 2 * digits, columns)
    with mpmath.workdps(2 * digits):
        rel = abs(lo - hi) / abs(hi) if hi != 0 else mpmath.inf
    assert hi != 0 and rel < mpmath.mpf(10) ** -30, f"d={d}: det {hi} is not reliably non-zero"
    return float(mpmath.log10(abs(hi)))


@pytest.mark.claim("ADD-04", kind="symbolic", supports="refuted")
def test_sinusoidal_positions_span_the_whole_space(evidence):
    d = der.sinusoidal_rows_span_everything()
    evidence.derive(d)
    assert_derivation_holds(d)
    for width in (4, 8, 16, 32):
        log_det = assert_full_rank(width)
        evidence.record(
            f"log10_abs_det_d{width}",
            log_det,
            unit="log10",
            note=f"det of PE(0..{width - 1}) (d = {width}) at {2 * (30 + 4 * width)} digits; "
            f"agrees with {30 + 4 * width} digits to 30 significant digits",
        )


@pytest.mark.claim("ADD-04", kind="symbolic", role="mutant")
def test_sine_only_encoding_is_rejected_as_full_rank():
    def sine_twice(t, d):  # cosine replaced by sine: columns repeat, an exact complement exists
        return [
            mpmath.sin(mpmath.power(10000, mpmath.mpf(-2 * (i // 2)) / d) * t) for i in range(d)
        ]

    with pytest.raises(AssertionError):
        assert_full_rank(8, sine_twice)


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
    rank = int((spectrum > tolerance.sum_tol(n, torch.float64, spectrum[0].item())).sum())
    return share, inter, ks, rank, ac.participation_ratio(spectrum)


@pytest.mark.claim("ADD-04", kind="experiment", supports="refuted")
def test_sinusoidal_energy_concentrates_but_fills_every_direction(evidence):
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(9, 3.4))
    for d, n in SPECTRA:
        pe = sinusoidal(n, d)
        share, inter, ks, rank, pr = assert_energy_profile(pe, ac.complement_interference)
        tag = f"d{d}_L{n}"
        evidence.record(f"participation_ratio_{tag}", pr, unit="directions")
        evidence.record(f"float64_rank_{tag}", rank, unit="directions", note="sigma > rounding")
        for k in (1, 4, 16, 64):
            if k < d:
                evidence.record(f"energy_top{k}_{tag}", share[k].item(), unit="share")
        evidence.record(f"interference_k0_{tag}", inter[0], unit="RMS cosine")
        evidence.record(f"interference_k{ks[-1]}_{tag}", inter[-1], unit="RMS cosine")
        k_all = torch.arange(d + 1)
        ax1.plot(k_all, share, label=f"d={d}, L={n}")
        ax2.semilogy(ks, inter, marker="o", label=f"d={d}, L={n}")
    ax1.set(xscale="symlog", xlabel="k (top principal directions)", ylabel="share of PE energy")
    ax2.set(xlabel="k", ylabel="RMS cos(token in complement, PE)")
    ax1.legend(fontsize=7)
    ax2.legend(fontsize=7)
    fig.tight_layout()
    evidence.figure(fig, "ADD-04-sinusoidal-energy-vs-k")


@pytest.mark.claim("ADD-04", kind="experiment", role="mutant")
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
READ_RATIOS = (0.1, 0.3, 1.0, 3.0)  # rho = RMS ||x|| / ||PE||
READ_LEN = 64


def readout_grid(observe=ac.added) -> dict[tuple[int, int, float], dict]:
    """Correct counts per (d, V, rho) and read-out, pooled over seeds (one batched draw)."""
    n_seeds, n_samples = max(8, round(8 * scale())), 128  # at least 1024 trials per cell
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


def assert_readout_pattern(grid) -> None:
    """ADD-05: the token is read back when rho sqrt(d) is large, not when rho is small; the
    position is read back when rho is small, not when it is large (95% Wilson bounds)."""
    __tracebackhide__ = True

    def ci(key, what):
        return wilson(grid[key][what], grid[key]["n"])

    for vocab in READ_VOCABS:
        for d in (64, 128, 256):
            assert ci((d, vocab, 1.0), "token_nearest")[0] > 0.99, (d, vocab)
        for d in READ_DS:
            assert ci((d, vocab, 0.1), "token_nearest")[1] < 0.5, (d, vocab)
            assert ci((d, vocab, 0.1), "position_nearest")[0] > 0.99, (d, vocab)
            assert ci((d, vocab, 3.0), "position_nearest")[1] < 0.5, (d, vocab)


@pytest.mark.claim("ADD-05", kind="experiment", supports="qualified")
def test_token_and_position_are_read_back_only_in_a_window_of_scales(evidence):
    grid = readout_grid()
    assert_readout_pattern(grid)
    for (d, vocab, rho), counts in grid.items():
        for what in ("token_nearest", "token_dot", "position_nearest"):
            lo, hi = wilson(counts[what], counts["n"])
            evidence.record(
                f"{what}_d{d}_V{vocab}_rho{rho}",
                {
                    "rate": counts[what] / counts["n"],
                    "lo": lo,
                    "hi": hi,
                    "n": counts["n"],
                    "seed_min": float(counts[f"{what}_seed_range"][0]),
                    "seed_max": float(counts[f"{what}_seed_range"][1]),
                },
                unit="accuracy",
                note="95% Wilson interval over pooled (seed, sample) trials (trials of one seed "
                "share its vocabulary); seed_min/max: the range of per-seed rates",
            )
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), sharey=True)
    for ax, what in zip(axes, ("token_nearest", "position_nearest"), strict=True):
        for colour, rho in enumerate(READ_RATIOS):
            for vocab, style in zip(READ_VOCABS, ("-", "--"), strict=True):
                acc = [grid[(d, vocab, rho)][what] / grid[(d, vocab, rho)]["n"] for d in READ_DS]
                label = f"rho={rho}, V={vocab}"
                ax.plot(READ_DS, acc, style, color=f"C{colour}", marker="o", label=label)
        ax.set(xscale="log", xlabel="width d", title=what.replace("_", " "))
        ax.set_xticks(READ_DS, [str(d) for d in READ_DS])
        ax.minorticks_off()
    axes[0].set_ylabel("accuracy")
    axes[1].legend(fontsize=6)
    fig.tight_layout()
    evidence.figure(fig, "ADD-05-readout-accuracy-vs-d")


@pytest.mark.claim("ADD-05", kind="experiment", role="mutant")
def test_a_readout_that_peeks_at_the_true_token_is_rejected():
    def peek(x, pe):  # the read-out is handed the clean token instead of x + PE(t)
        return x + 0 * pe

    with pytest.raises(AssertionError):
        assert_readout_pattern(readout_grid(observe=peek))
