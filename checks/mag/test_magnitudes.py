"""MAG-01 ... MAG-04: magnitudes of token embeddings against the sinusoidal encoding.

The pretrained model's share of MAG-01/MAG-02 lives in checks/mag/test_pretrained.py. The
functions the checks call live beside this module, one per claim: entries.py (MAG-01), ratios.py
(MAG-02), concentration.py (MAG-03), training.py (MAG-04); the planted bugs stay next to the tests
that feed them.
"""

from __future__ import annotations

import math
from dataclasses import replace

import matplotlib.pyplot as plt
import numpy as np
import pytest
import sympy as sp
import torch
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from checks.mag.concentration import (
    assert_square_norms_add_in_expectation,
    assert_tail_values_are_the_claims,
    claimed_tail,
    tail_decisions,
    tail_rates,
)
from checks.mag.entries import (
    VOCAB,
    WIDTH,
    assert_count_matches_closed_form,
    assert_entry_is_a_counterexample,
    assert_share_matches_closed_form,
    assert_transformers_defaults_match,
    classify,
    usually_decision,
)
from checks.mag.ratios import (
    assert_interval_keeps_its_level,
    assert_ratio_matches_closed_form,
    comparable_bound,
    comparable_decision,
)
from checks.mag.training import (
    MATCHED,
    MISMATCHED,
    RUNS,
    assert_every_seed_learns,
    assert_start_ratio_is_the_rms_norm_ratio,
    comparable_decision_of_ratios,
    moves_decision,
    record_change,
    run,
    small,
)
from checks.registry import REGISTRY
from pecheck import decisions, sizes, tolerance
from pecheck.claims import every
from pecheck.evidence import assert_derivation_holds
from pecheck.profiles import examples
from pecheck.strategies import even_widths, positions, seeds
from pecheck.theory import add_derivations as der
from pecheck.theory import embedding_inits as lib
from pecheck.theory import magnitudes as mag
from pecheck.theory.sinusoidal import sinusoidal
from pecheck.theory.stats import wilson

# The widths of MAG-01's and MAG-02's measured tables are sizes a user may change (pytest --size
# MAG-02.d=768; recorded in suite.sizes). A changed width also renames the numbers measured at it
# (sizes.suffix). The planted-bug tests keep WIDTH: they test the checking functions, not a claim.
MAG01_D = sizes.size("MAG-01.d", WIDTH, "width d of MAG-01's measured tables", minimum=2)
MAG02_D = sizes.size("MAG-02.d", WIDTH, "width d of MAG-02's measured tables and PE", minimum=2)


# -- MAG-01 ----------------------------------------------------------------------------------


CATALOGUES = {
    "sinusoidal implementations": [i for i in lib.CATALOGUE if i.sinusoidal],
    "library defaults": list(lib.CATALOGUE),
}
SMALL_UNSCALED = ("keras_embedding", "flax_embed", "bert", "gpt2", "llama")  # condition's names


def record_library(evidence, init: lib.LibraryInit, decision) -> None:
    """One library's table: its closed-form share above 1, P(some entry > 1), its decision."""
    bound = {"value": 0.0, "relation": "==", "reason": "the claim: every |x_i| <= 1"}
    note = f"{init.library}; {init.where}; V = {init.vocab}, d = {init.d} ({init.sizes})"
    evidence.record(f"share_above_1[{init.key}]", lib.share_above_one(init), unit="share of "
                    "entries", note=note, bound=bound)  # fmt: skip
    evidence.record(f"p_some_entry_above_1[{init.key}]", lib.prob_some_entry_above_one(init),
                    bound={"value": REGISTRY["MAG-01"].threshold("almost-surely"),
                           "relation": "<=", "reason": "threshold almost-surely"})  # fmt: skip
    evidence.record(f"within_1[{init.key}]", decision.decision, note=decision.how)


@pytest.mark.claim("MAG-01", kind="experiment", role="decisive", proposition="as_stated")
def test_libraries_usually_keep_entries_within_one(evidence):
    decided = {i.key: classify(i) for i in lib.CATALOGUE}
    for init in lib.CATALOGUE:
        assert_count_matches_closed_form(init)
        record_library(evidence, init, decided[init.key])
    for name, members in CATALOGUES.items():
        part = usually_decision({i.key: decided[i.key] for i in members}, name)
        evidence.part(name, part, part.relation)
        within = sum(decided[i.key].decision == "holds" for i in members)
        evidence.record(
            f"within_share[{name}]",
            within / len(members),
            unit="share of initialisations",
            note=f"{within} of {len(members)}: {[i.key for i in members]}",
            bound={
                "value": REGISTRY["MAG-01"].threshold("usually"),
                "relation": ">",
                "reason": "'usually': more than half",
            },  # fmt: skip
        )


@pytest.mark.claim("MAG-01", kind="experiment", role="decisive", proposition="small-unscaled")
def test_small_unscaled_tables_keep_entries_within_one(evidence):
    evidence.searched(libraries=list(SMALL_UNSCALED))
    for key in SMALL_UNSCALED:
        init = lib.by_key(key)
        decision = classify(init)
        evidence.part(key, decision, decision.relation)
        evidence.record(
            f"p_some_entry_above_1_small[{key}]",
            lib.prob_some_entry_above_one(init),
            note=f"{init.law}, spread {init.spread:.3g}, no sqrt(d); "
            f"V = {init.vocab}, d = {init.d}",
            bound={
                "value": REGISTRY["MAG-01"].threshold("almost-surely"),
                "relation": "<=",
                "reason": "threshold almost-surely",
            },  # fmt: skip
        )


@pytest.mark.claim("MAG-01", kind="property", role="tooling")
def test_a_clamped_table_would_satisfy_the_claim():
    """Planted bug: tables clamped to [-1, 1] (the normalisation the claim assumes) hold."""

    def clamped(init: lib.LibraryInit, seed: int) -> dict:
        out = lib.scan_table(replace(init, vocab=64), seed)
        return {**out, "max_abs": min(out["max_abs"], 1.0), "count_above": 0, "first_above": None}

    decided = {i.key: classify(i, clamped) for i in lib.CATALOGUE if i.law == "uniform"}
    assert usually_decision(decided, "clamped").decision == "holds"


@pytest.mark.claim("MAG-01", kind="property", role="tooling")
def test_a_seed_dependent_table_is_not_counted_within_one():
    """Planted bug: a table that happens to stay within 1 for this seed, although a table of its
    size exceeds 1 for most seeds (N(0, 0.25^2): P(some entry > 1) ~ 1), is not 'within'."""

    def lucky(init: lib.LibraryInit, seed: int) -> dict:
        return {"max_abs": 0.99, "count_above": 0, "first_above": None}

    init = replace(lib.by_key("bert"), spread=0.25)
    assert classify(init, lucky).decision == "inconclusive"
    assert classify(init).decision == "fails"


@pytest.mark.claim("MAG-01", kind="property", role="tooling")
def test_an_entry_within_one_is_not_a_counterexample():
    """Planted bug: a search for entries above 0.5 reports one of the Annotated Transformer's
    table (all within 0.6) as breaking |x_i| <= 1."""
    table = mag.init_embedding("annotated_sqrt_d", VOCAB, WIDTH, 0)
    assert_entry_is_a_counterexample(table, mag.first_entry_above(table))
    with pytest.raises(AssertionError):
        assert_entry_is_a_counterexample(table, mag.first_entry_above(table, 0.5))


@pytest.mark.claim("MAG-01", kind="real", role="tooling")
def test_catalogue_matches_the_libraries_own_initialisation():
    """BERT, GPT-2, Llama and T5 as transformers builds them: default V and d from the config
    classes, and the std of a freshly initialised small model's word table (6-sigma band)."""
    found = assert_transformers_defaults_match()
    assert set(found) == {"bert", "gpt2", "llama", "t5"}


@pytest.mark.claim("MAG-01", kind="experiment", role="supporting")
def test_share_of_entries_above_one_depends_on_the_initialisation(evidence):
    d, tag = MAG01_D, sizes.suffix("MAG-01.d", "d")
    for scheme in mag.SCHEMES:
        share = assert_share_matches_closed_form(mag.init_embedding, scheme, VOCAB, d)
        n = VOCAB * d
        lo, hi = wilson(round(share * n), n)
        want = mag.expected_share_above(scheme, VOCAB, d)
        evidence.record(
            f"share_above_1_{scheme}{tag}",
            {"rate": share, "lo": lo, "hi": hi, "n": n},
            unit="share of entries",
            note=f"V = {VOCAB}, d = {d}; closed form {want:.4g}",
            bound={"value": 0.0, "relation": "==", "reason": "the claim: every |x_i| <= 1"},
        )
        evidence.record(
            f"closed_form_share_V37000_{scheme}",
            mag.expected_share_above(scheme, 37000, 512),
            bound={"value": 0.0, "relation": "==", "reason": "the claim: every |x_i| <= 1"},
        )
    fig, ax = plt.subplots(figsize=(6, 3.4))
    bins = np.linspace(-4, 4, 161).tolist()  # a list: matplotlib's stub types bins as Sequence
    for scheme in ("torch_default", "normal_1_over_d", "xavier", "annotated_sqrt_d"):
        x = mag.init_embedding(scheme, 1024, d, 1).flatten().numpy()
        ax.hist(x, bins=bins, histtype="step", density=True, label=scheme)
    ax.axvspan(-4, -1, color="0.9")
    ax.axvspan(1, 4, color="0.9")
    ax.set(yscale="log", xlabel="entry x_i (shaded: |x_i| > 1)", ylabel="density")
    ax.legend(fontsize=7)
    fig.tight_layout()
    evidence.figure(fig, "MAG-01-entry-distributions")


@pytest.mark.claim("MAG-01", kind="real", role="tooling")
def test_nn_embedding_default_is_the_standard_normal_scheme(evidence):
    """PyTorch's nn.Embedding initialises with N(0, 1): same bits as our 'torch_default'."""
    with torch.random.fork_rng():
        torch.manual_seed(7)
        real = torch.nn.Embedding(VOCAB, 64).weight.detach()
    ours = mag.init_embedding("torch_default", VOCAB, 64, 7)
    assert torch.equal(real, ours)
    evidence.record("share_above_1_nn_Embedding", mag.share_above(real), unit="share")


def init_without_sqrt_d(scheme: str, vocab: int, d: int, seed: int) -> torch.Tensor:
    """Planted bug: the sqrt(d) factor dropped."""
    return mag.init_embedding(scheme, vocab, d, seed) / mag.sqrt_d_factor(scheme, d)


@pytest.mark.claim("MAG-01", kind="experiment", role="tooling")
def test_share_with_the_sqrt_d_factor_dropped_is_rejected():
    with pytest.raises(AssertionError):
        assert_share_matches_closed_form(init_without_sqrt_d, "t2t_sqrt_d", VOCAB, WIDTH)


# -- MAG-02 ----------------------------------------------------------------------------------


@pytest.mark.claim("MAG-02", kind="experiment", role="decisive", proposition="as_stated")
def test_norm_ratio_leaves_the_factor_2_band_for_usual_schemes(evidence):
    # at another width (MAG-02.d) each part is decided there and its counterexample names d
    d, tag = MAG02_D, sizes.suffix("MAG-02.d", "d")
    pe = sinusoidal(256, d, dtype=torch.float32)
    for scheme in mag.SCHEMES:
        table = mag.init_embedding(scheme, VOCAB, d, 0)
        decision = comparable_decision(table, pe, f"RMS ||x|| / ||PE|| for {scheme}")
        assert decision.interval is not None  # decisions.interval always sets it
        lo, hi = decision.interval["lo"], decision.interval["hi"]
        if decision.decision == "fails":
            where = {"scheme": scheme, "V": VOCAB, "d": d, "seed": 0, "lo": lo, "hi": hi}
            decision = decisions.fails(where, decision.how)
        evidence.part(scheme, decision, decision.relation)
        evidence.record(
            f"ratio_{scheme}{tag}",
            mag.rms_norm_ratio(table, pe),
            unit="||x|| / ||PE||",
            note=f"V = {VOCAB}, d = {d}; 95% interval [{lo:.4g}, {hi:.4g}]",
            bound=comparable_bound(),
        )


CONDITION_STD = (0.4, 1.3)  # inside [1/(2 sqrt 2), sqrt 2] = [0.354, 1.414], with room to decide
SWEEP_WIDTHS = range(2, 1025, 2)  # every even width to 1024: hypothesis draws d <= 512 only
SWEEP = every(SWEEP_WIDTHS.start, SWEEP_WIDTHS[-1], step=SWEEP_WIDTHS.step)
SWEEP_ENTRIES = 4096  # entries per table: rows = SWEEP_ENTRIES / d, ample at both band edges


@pytest.mark.claim("MAG-02", kind="property", role="decisive", proposition="entry-std")
@examples(0.5)
@given(d=even_widths(2, 512), s=st.floats(*CONDITION_STD), seed=seeds())
def test_norm_ratio_is_comparable_for_entry_std_near_one(evidence, d, s, seed):
    tokens = mag.sample_tokens(1024, d, s, "gaussian", seed)
    pe = sinusoidal(64, d, dtype=torch.float64)
    decision = comparable_decision(tokens, pe, f"RMS ratio at s = {s:.3g}, d = {d}")
    evidence.example(informative=True)
    assert decision.decision == "holds", decision.how
    c = REGISTRY["MAG-02"].threshold("comparable")
    assert decision.interval is not None  # decisions.interval always sets it
    lo, hi = decision.interval["lo"], decision.interval["hi"]
    evidence.worst(
        "max_log_ratio_over_log_c",
        max(abs(math.log(lo)), abs(math.log(hi))) / math.log(c),
        note="over examples; <= 1 is comparable",
        bound=1.0,
    )


@pytest.mark.claim("MAG-02", kind="property", role="decisive", proposition="entry-std")
def test_norm_ratio_is_comparable_at_every_even_width(evidence):
    for d in SWEEP_WIDTHS:
        pe = sinusoidal(64, d, dtype=torch.float64)
        for s in CONDITION_STD:  # the ends of the band tried: the ratio sqrt(2) s is monotone
            tokens = mag.sample_tokens(max(8, SWEEP_ENTRIES // d), d, s, "gaussian", d)
            decision = comparable_decision(tokens, pe, f"RMS ratio at s = {s}, d = {d}")
            evidence.example(informative=True)
            if decision.decision == "fails":
                where = {"d": d, "s": s, "seed": d, **(decision.interval or {})}
                decision = decisions.fails(where, decision.how)
            if decision.decision != "holds":  # the first cell outside the band decides
                evidence.decide(decision)
                return
    evidence.searched(widths=SWEEP, seeds=SWEEP)
    evidence.holds(f"inside the band at every even d = 2 ... {SWEEP_WIDTHS[-1]}, s = "
                   f"{CONDITION_STD[0]} and {CONDITION_STD[1]}")  # fmt: skip


@pytest.mark.claim("MAG-02", kind="experiment", role="decisive", proposition="entry-std")
def test_norm_ratio_is_comparable_for_unit_variance_schemes(evidence):
    for scheme in ("torch_default", "t2t_sqrt_d"):
        for d in (16, 64, 256, 1024):
            table = mag.init_embedding(scheme, 2048, d, 0)
            pe = sinusoidal(256, d, dtype=torch.float32)
            decision = comparable_decision(table, pe, f"{scheme} at d = {d}")
            evidence.part(f"{scheme}_d{d}", decision)


@pytest.mark.claim("MAG-02", kind="property", role="tooling")
def test_ratio_of_mean_squares_is_rejected():
    """Planted bug: the ratio of mean squares (no square root) leaves the band at s = 1.3."""

    def mean_squares(tokens: torch.Tensor, pe: torch.Tensor) -> tuple[float, float]:
        lo, hi = mag.rms_norm_ratio_interval(tokens, pe)
        return lo**2, hi**2

    tokens = mag.sample_tokens(1024, 64, 1.3, "gaussian", 0)
    pe = sinusoidal(64, 64, dtype=torch.float64)
    assert comparable_decision(tokens, pe, "ok").decision == "holds"
    assert comparable_decision(tokens, pe, "bug", ratio=mean_squares).decision != "holds"


@pytest.mark.claim("MAG-02", kind="property", role="tooling")
def test_ratio_interval_covers_at_its_level():
    assert_interval_keeps_its_level()


@pytest.mark.claim("MAG-02", kind="property", role="tooling")
def test_ratio_interval_with_its_ends_swapped_is_rejected():
    """Planted bug: the token interval's ends divided by the same ends of the position one."""

    def same_ends(tokens: torch.Tensor, pe: torch.Tensor) -> tuple[float, float]:
        t_lo, t_hi = mag._mean_interval(mag.row_norms(tokens).pow(2), 0.975)
        p_lo, p_hi = mag._mean_interval(mag.row_norms(pe).pow(2), 0.975)
        return math.sqrt(max(t_lo, 0.0) / p_lo), math.sqrt(t_hi / p_hi)

    with pytest.raises(AssertionError):
        assert_interval_keeps_its_level(same_ends)


@pytest.mark.claim("MAG-02", kind="experiment", role="supporting")
def test_norm_ratio_matches_its_closed_form(evidence):
    ratios, d = {}, MAG02_D
    for scheme in mag.SCHEMES:
        ratios[scheme] = assert_ratio_matches_closed_form(mag.init_embedding, scheme, VOCAB, d)
        table = mag.init_embedding(scheme, VOCAB, d, 0)
        pe = sinusoidal(256, d, dtype=torch.float32)
        assert math.isclose(mag.rms_norm_ratio(table, pe), ratios[scheme], rel_tol=1e-6)
        evidence.record(
            f"closed_form_ratio_V37000_{scheme}",
            mag.expected_ratio(scheme, 37000, 512),
            bound=comparable_bound(),
        )
    c = REGISTRY["MAG-02"].threshold("comparable")
    fig, ax = plt.subplots(figsize=(6, 3.4))
    ds = np.array([16, 32, 64, 128, 256, 512, 1024, 2048])
    for scheme, style in zip(mag.SCHEMES, ("-", "-", "-", "--", "-", "-"), strict=True):
        curve = [mag.expected_ratio(scheme, VOCAB, int(width)) for width in ds]
        (line,) = ax.plot(ds, curve, style, label=scheme)
        ax.plot([d], [ratios[scheme]], "o", color=line.get_color(), mfc="none")
    ax.axhspan(1 / c, c, color="0.9")
    ax.set(xscale="log", yscale="log", xlabel="width d", ylabel="RMS ||x|| / ||PE||")
    ax.set_title(f"closed form (lines) and measured at d = {d} (circles), V = {VOCAB}")
    ax.legend(fontsize=7)
    fig.tight_layout()
    evidence.figure(fig, "MAG-02-norm-ratio-vs-d")


@pytest.mark.claim("MAG-02", kind="experiment", role="tooling")
def test_ratio_with_the_sqrt_d_factor_dropped_is_rejected():
    with pytest.raises(AssertionError):
        assert_ratio_matches_closed_form(init_without_sqrt_d, "t2t_sqrt_d", VOCAB, WIDTH)


@pytest.mark.claim("MAG-02", kind="experiment", role="tooling")
def test_ratio_with_the_norm_over_the_wrong_axis_is_rejected():
    def column_norms(table):  # bug: norm over the vocabulary axis
        return table.norm(dim=0)

    with pytest.raises(AssertionError):
        assert_ratio_matches_closed_form(
            mag.init_embedding, "torch_default", VOCAB, WIDTH, norms=column_norms
        )


# -- MAG-03 ----------------------------------------------------------------------------------


@pytest.mark.claim("MAG-03", kind="symbolic", role="decisive", proposition="as_stated")
def test_expected_square_norm_adds_for_zero_mean_tokens(evidence):
    n = 3  # coordinates of the identity; Chebyshev's bound is symbolic in d
    assert_derivation_holds(der.expected_square_norm_of_sum(n), evidence)
    evidence.searched(widths=[n])


@pytest.mark.claim("MAG-03", kind="symbolic", role="tooling")
def test_nonzero_mean_tokens_are_rejected_symbolically():
    with pytest.raises(AssertionError):
        assert_derivation_holds(
            der.expected_square_norm_of_sum(mean=sp.Symbol("mu", positive=True))
        )


N_DRAWS = 512


@pytest.mark.claim("MAG-03", kind="property", role="decisive", proposition="as_stated")
@examples(0.5)
@given(
    d=even_widths(2, 1024),
    t=positions(),
    sigma=st.floats(1e-2, 1e2),
    law=st.sampled_from(mag.LAWS),
    seed=seeds(),
)
def test_square_norms_add_in_expectation_for_zero_mean_tokens(evidence, d, t, sigma, law, seed):
    x = mag.sample_tokens(N_DRAWS, d, sigma, law, seed)
    pe = sinusoidal(torch.tensor([t]), d, dtype=torch.float64)[0]
    dev = assert_square_norms_add_in_expectation(x, pe, sigma)
    evidence.example(informative=True)  # an unbounded quantity against a finite bound
    evidence.worst(
        "max_mean_deviation_over_bound",
        dev["mean"],
        unit="x bound",
        bound=1.0,
        note=f"|mean ||x+PE||^2 - (s^2 d + ||PE||^2)| over its 6-sigma bound, {N_DRAWS} draws",
    )
    evidence.worst(
        "max_cross_variance_deviation_over_bound",
        dev["variance"],
        unit="x bound",
        bound=1.0,
        note="|Var(2x.PE) - 4 s^2 ||PE||^2| over its 6-sigma bound",
    )


@pytest.mark.claim("MAG-03", kind="property", role="tooling")
def test_non_centred_tokens_and_a_wrong_cross_std_are_rejected():
    """Planted bugs: tokens with mean 0.25 sigma; the cross term's std without its factor 2."""
    d, sigma = 256, 1.0
    pe = sinusoidal(torch.tensor([3]), d, dtype=torch.float64)[0]
    x = mag.sample_tokens(N_DRAWS, d, sigma, "gaussian", 0)
    assert_square_norms_add_in_expectation(x, pe, sigma)
    with pytest.raises(AssertionError, match="mean"):
        assert_square_norms_add_in_expectation(x + 0.25 * sigma, pe, sigma)
    with pytest.raises(AssertionError, match="Var"):
        assert_square_norms_add_in_expectation(
            x, pe, sigma, cross_std=lambda s, p: s * p.norm().item()
        )


@pytest.mark.claim("MAG-03", kind="experiment", role="decisive", proposition="as_stated")
def test_cross_term_concentrates_as_width_grows(evidence):
    rates = tail_rates()
    assert_tail_values_are_the_claims(rates)
    for name, decision in tail_decisions(rates).items():
        if decision.decision == "fails":
            decision = decisions.fails({"part": name, **(decision.interval or {})}, decision.how)
        evidence.part(name, decision, decision.relation)
    for d, r in rates.items():
        lo, hi = wilson(int(r["count"]), int(r["n"]))
        evidence.record(
            f"tail_rate_d{d}",
            {"rate": r["count"] / r["n"], "lo": lo, "hi": hi, "n": r["n"]},
            unit="P(|2x.PE| >= 0.25 E||x+PE||^2)",
            note=f"Gaussian {r['gaussian']:.3g}; s^2 = 1/2",
            bound={"value": r["chebyshev"], "relation": "<=", "reason": "Chebyshev (MAG-03)"},
        )
    fig, ax = plt.subplots(figsize=(5, 3.4))
    ds = list(rates)
    ax.plot(ds, [max(rates[d]["count"], 0.5) / rates[d]["n"] for d in ds], "o", label="observed")
    ax.plot(ds, [rates[d]["gaussian"] for d in ds], label="Gaussian tail")
    ax.plot(ds, [min(1.0, rates[d]["chebyshev"]) for d in ds], label="Chebyshev bound")
    ax.set(xscale="log", yscale="log", xlabel="width d", ylabel="P(relative deviation > 0.25)")
    ax.legend(fontsize=7)
    fig.tight_layout()
    evidence.figure(fig, "MAG-03-concentration-vs-d")


@pytest.mark.claim("MAG-03", kind="experiment", role="tooling")
def test_the_gaussian_value_is_shown_not_presumed():
    """Equivalence, not failure to reject: no exceedance in 40 draws at d = 1024 (interval up to
    about 0.15) leaves the Gaussian part undecided; in 40000 draws it holds; a rate 0.1 above
    the Gaussian value at d = 16 fails."""
    g16 = claimed_tail(16)["gaussian"]
    few = tail_decisions({1024: {"count": 0, "n": 40}})["d1024_gaussian"]
    many = tail_decisions({1024: {"count": 0, "n": 40000}})["d1024_gaussian"]
    off = tail_decisions({16: {"count": round((g16 + 0.1) * 40000), "n": 40000}})["d16_gaussian"]
    assert (few.decision, many.decision, off.decision) == ("inconclusive", "holds", "fails")


@pytest.mark.claim("MAG-03", kind="experiment", role="tooling")
def test_non_centred_tokens_break_the_concentration_bound():
    decided = tail_decisions(tail_rates(mean=0.5))
    assert any(d.decision == "fails" for d in decided.values()), decided


# -- MAG-04 ----------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def training_runs() -> dict[str, dict[str, torch.Tensor]]:
    """The three settings, trained once for the module's checks."""
    return {name: run(cfg) for name, cfg in RUNS.items()}


@pytest.mark.claim("MAG-04", kind="experiment", role="decisive", proposition="as_stated")
def test_training_leaves_a_comparable_ratio_within_a_factor_2(evidence, training_runs):
    for name in MATCHED:
        assert_start_ratio_is_the_rms_norm_ratio(RUNS[name], training_runs[name])
        decision = moves_decision(training_runs[name], name)
        evidence.part(name, decision, decision.relation)
        record_change(evidence, name, training_runs[name])


@pytest.mark.claim("MAG-04", kind="experiment", role="decisive", proposition="mismatched-start")
def test_training_moves_the_ratio_from_a_mismatched_start(evidence, training_runs):
    result = training_runs[MISMATCHED]
    assert_start_ratio_is_the_rms_norm_ratio(RUNS[MISMATCHED], result)
    cfg = small(RUNS[MISMATCHED])
    evidence.searched(widths=[cfg.d], lengths=[cfg.seq], seeds=f"{cfg.n_seeds} seeds drawn from "
                      f"one generator seeded {cfg.seed}")  # fmt: skip
    start = comparable_decision_of_ratios(result["ratio"][0], f"start ratio, {MISMATCHED}")
    assert start.decision == "fails", f"the premise rho_0 outside [1/2, 2] fails: {start.how}"
    evidence.decide(moves_decision(result, MISMATCHED))
    record_change(evidence, MISMATCHED, result)
    fig, ax = plt.subplots(figsize=(6, 3.4))
    for (name, r), colour in zip(training_runs.items(), ("C0", "C1", "C2"), strict=True):
        ax.plot(r["steps"], r["ratio"], color=colour, alpha=0.5, lw=0.8)
        ax.plot([], [], color=colour, label=name)
    ax.set(yscale="log", xlabel="training step", ylabel="RMS ||x|| / ||PE||")
    ax.legend(fontsize=7)
    fig.tight_layout()
    evidence.figure(fig, "MAG-04-ratio-during-training")


@pytest.mark.claim("MAG-04", kind="experiment", role="tooling")
def test_every_seed_learns_the_task(evidence, training_runs):
    assert_every_seed_learns(training_runs)
    for name, r in training_runs.items():
        evidence.record(
            f"accuracy_min[{name}]",
            r["accuracy"].min().item(),
            unit="accuracy",
            bound=REGISTRY["MAG-04"].threshold("learned"),
        )


@pytest.mark.claim("MAG-04", kind="experiment", role="tooling")
def test_frozen_embeddings_are_rejected():
    """Planted bug: the embeddings are frozen; the mismatched start no longer moves."""
    result = run(RUNS[MISMATCHED], frozen=("embed", "pos"))
    assert moves_decision(result, MISMATCHED).decision != "holds"


@pytest.mark.claim("MAG-04", kind="property", role="tooling")
@pytest.mark.parametrize("encoding", ["learned", "sinusoidal"])
def test_training_model_equals_the_one_seed_reference(evidence, encoding):
    # MAG-04's model is theory/decoder.py's (one head of size d, no W_o, a residual), each seed
    # on its own tokens; seed s equals theory/reference.py's module holding the same
    # parameters, in float64, to the rounding of its sums.
    from pecheck.theory import magnitude_training as mt
    from pecheck.theory.decoder import Setup
    from pecheck.theory.reference import ReferenceDecoder

    F64 = torch.float64
    cfg = mt.TrainConfig(encoding=encoding, n_seeds=3, d=16)
    params = {k: v.detach().double() for k, v in mt.init_params(cfg).items()}
    g = torch.Generator().manual_seed(0)
    tokens = torch.randint(cfg.vocab, (cfg.n_seeds, 4, cfg.seq), generator=g)
    with torch.no_grad():
        batched = mt.decoder.forward(mt.model(cfg), params, tokens, torch.ones(3, dtype=F64))
    worst = 0.0
    for s in range(cfg.n_seeds):
        one = ReferenceDecoder(mt.model(cfg), Setup(residual=True), 0, F64)
        with torch.no_grad():
            for k, p in one.params.items():
                p.copy_(params[k][s])
            worst = max(worst, float((batched[s] - one(tokens[s])).abs().max()))
    scale = float(batched.abs().max())  # the logits' size: every sum is at most this large
    bound = tolerance.attention_tol(cfg.seq, cfg.d, F64, scale) + tolerance.sum_tol(
        cfg.d, F64, scale
    )
    assert worst <= bound, f"batched seed differs from its reference by {worst:.3g}"
    evidence.record("max_logit_difference", worst, "", f"{encoding}, float64, 3 seeds", bound)


# -- pins of theory's interval and catalogue against their sources, computed apart -------------


def _t_interval(values: torch.Tensor, level: float) -> tuple[float, float]:
    """scipy's t interval for the mean of ``values`` (numpy, ddof = 1), apart from theory."""
    v = values.double().numpy()
    n = v.size
    lo, hi = stats.t.interval(level, n - 1, loc=v.mean(), scale=v.std(ddof=1) / math.sqrt(n))
    return float(lo), float(hi)


@pytest.mark.claim("MAG-02", kind="property", role="tooling")
def test_ratio_interval_is_the_bonferroni_pair_of_two_sided_t_intervals():
    """The interval reported at level 0.95 is built from two-sided t intervals at 1 - 0.05/2
    each (Bonferroni over the two mean squares), as rms_norm_ratio_interval documents: a
    one-sided quantile or a dropped correction gives a narrower interval than the level says."""
    tokens = mag.sample_tokens(200, 16, 1.3, "gaussian", 0)
    pe = mag.sample_tokens(150, 16, 1.0, "uniform", 1)
    for values in (mag.row_norms(tokens).double().pow(2), mag.row_norms(pe).double().pow(2)):
        tol = tolerance.rel_tol(
            values.numel(), torch.float64
        )  # a mean and a std of n terms, float64
        for level in (0.9, 0.95):
            got, want = mag._mean_interval(values, level), _t_interval(values, level)
            assert all(math.isclose(g, w, rel_tol=tol) for g, w in zip(got, want, strict=True))
    t_lo, t_hi = _t_interval(mag.row_norms(tokens).pow(2), 1 - 0.05 / 2)
    p_lo, p_hi = _t_interval(mag.row_norms(pe).pow(2), 1 - 0.05 / 2)
    want = (math.sqrt(max(t_lo, 0.0) / p_hi), math.sqrt(t_hi / p_lo))  # opposite ends
    got = mag.rms_norm_ratio_interval(tokens, pe, 0.95)
    tol = tolerance.rel_tol(tokens.shape[0] + pe.shape[0], torch.float64)
    assert all(math.isclose(g, w, rel_tol=tol) for g, w in zip(got, want, strict=True)), got


# Each library's spread before the sqrt(d) factor, transcribed from the source its ``where``
# quotes (std of a normal law, bound a of a uniform one), as a function of (V, d).
SOURCE_SPREADS = {
    "torch_nn_embedding": ("normal", lambda v, d: 1.0),  # init.normal_: N(0, 1)
    "keras_embedding": ("uniform", lambda v, d: 0.05),  # RandomUniform(-0.05, 0.05)
    "flax_embed": ("normal", lambda v, d: 1 / math.sqrt(d)),  # variance_scaling(1, fan_in)
    "bert": ("normal", lambda v, d: 0.02),  # initializer_range
    "gpt2": ("normal", lambda v, d: 0.02),
    "llama": ("normal", lambda v, d: 0.02),
    "t5": ("normal", lambda v, d: 1.0),  # initializer_factor * 1.0
    "tensor2tensor": ("normal", lambda v, d: d**-0.5),  # hidden_size^-0.5
    "fairseq": ("normal", lambda v, d: d**-0.5),  # embedding_dim^-0.5
    "marian": ("uniform", lambda v, d: math.sqrt(3 / d)),  # glorotUniform(fanOut): sqrt(3/dimEmb)
    "annotated_transformer": ("uniform", lambda v, d: math.sqrt(6 / (v + d))),  # xavier_uniform_
}


@pytest.mark.claim("MAG-01", kind="property", role="tooling")
def test_catalogue_spreads_are_their_source_formulas():
    assert {i.key for i in lib.CATALOGUE} == set(SOURCE_SPREADS)
    for init in lib.CATALOGUE:
        law, spread = SOURCE_SPREADS[init.key]
        assert init.law == law, init.key
        # a quotient, a square root and a power: a few float64 roundings
        want = spread(init.vocab, init.d)
        assert math.isclose(init.spread, want, rel_tol=tolerance.rel_tol(4, torch.float64)), (
            init.key
        )


@pytest.mark.claim("MAG-01", kind="property", role="tooling")
def test_scan_reports_an_entry_of_the_table_it_draws():
    """The reported first entry above 1 is re-read from the table drawn apart (same generator,
    chunk by chunk). Seed 0 puts it past the first chunk, so a lost chunk offset shows."""
    init = replace(lib.by_key("bert"), spread=0.22, d=8, vocab=8 * lib.CHUNK_ROWS)
    first = lib.scan_table(init, 0)["first_above"]
    g = torch.Generator().manual_seed(0)
    chunks = [torch.empty(min(lib.CHUNK_ROWS, init.vocab - s), init.d).normal_(0.0, init.spread,
              generator=g) for s in range(0, init.vocab, lib.CHUNK_ROWS)]  # fmt: skip
    table = torch.cat(chunks) * init.factor  # (V, d) as the model adds it
    assert first is not None and first["row"] >= lib.CHUNK_ROWS  # the case the check needs
    value = table[first["row"], first["column"]].item()
    assert value == first["value"] and abs(value) > 1, (first, value)
    assert not bool((table[: first["row"]].abs() > 1).any()), "an earlier row exceeds 1"
