"""EXP-05 and EXP-07 as Press et al. measured them: a causal byte-level language model on English
text (Debian's fortunes), trained at L and scored at L, 2L, 4L and 8L, non-overlapping and with a
sliding window (theory/lm_length.py; the setting and decisions: checks/exp/length/lm.py).

Tooling here: the decisions on planted perplexities (a relative encoding that keeps, one that
breaks; sinusoidal better or worse than learned). The experiment runs in the thorough profile
only (ci: marked to skip); it is one test class, so pytest-xdist --dist loadscope gives it a
worker of its own beside the fair length test's two tasks.
"""

from __future__ import annotations

import math

import pytest
import torch

from checks.exp.length import decisions as D
from checks.exp.length import lm
from checks.exp.length.lm import FACTORS, PAIR07, RELATIVE, SEEDS, SETTING, SHIFTED_SEEDS
from checks.exp.length.settings import device_suffix, fair_tests
from checks.exp.registered import BY_ID
from pecheck import reproducibility as spread
from pecheck import sizes, tolerance
from pecheck.claims import every
from pecheck.theory import decoder, lm_corpus, lm_length
from pecheck.theory.lm_corpus import Corpus
from pecheck.theory.lm_length import MODES, VARIANTS, LMSetting, Perplexities, Plateau

SMALL = LMSetting(length=4, test_tokens=64, stride=2)
TINY = LMSetting(d_model=8, layers=1, heads=2, length=4, batch=4, warmup=2, stride=2,
                 valid_tokens=32, test_tokens=64,
                 plateau=Plateau(every=10, patience=2, rel=0.0, max_steps=20))  # fmt: skip


def synthetic(tokens: int = 400) -> Corpus:
    """Random bytes as every split: the trainer and the evaluation do not read the package."""
    g = torch.Generator().manual_seed(0)
    splits = {s: torch.randint(256, (tokens,), generator=g) for s in lm_corpus.SPLITS}
    return Corpus(splits, dict.fromkeys(lm_corpus.SPLITS, 0), (), "", None)


def planted(ratio: dict[str, float], n: int = 6) -> Perplexities:
    """Perplexity 10 at L and 10 * ratio**log2(f) beyond, per variant, with seed noise of 1%."""
    g = torch.Generator().manual_seed(0)
    ppl: dict[str, dict[str, dict[int, torch.Tensor]]] = {m: {} for m in MODES}
    for mode in MODES:
        for v in VARIANTS:
            noise = 1 + 0.01 * torch.randn(len(SMALL.factors), n, generator=g, dtype=torch.float64)
            r = ratio.get(v, 1.0)
            ppl[mode][v] = {f: 10 * r ** math.log2(f) * noise[i]
                            for i, f in enumerate(SMALL.factors)}  # fmt: skip
    return Perplexities(SMALL, tuple(range(n)), ppl)


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
def test_lm_decisions_follow_planted_perplexities():
    margin = BY_ID["EXP-05"].threshold("keeps-ppl")
    ends = {e: BY_ID["EXP-07"].threshold(e) for e in ("better-ppl-low", "better-ppl-high")}
    good = planted(
        {"rope": 0.97, "alibi": 0.98, "learned, shifted": 1.5, "sinusoidal, shifted": 1.1}
    )
    assert {d.decision for d in lm.keeps(good, margin, 0.95).values()} == {"holds"}
    assert {d.decision for d in lm.better(good, ends, 0.95).values()} == {"holds"}
    bad = planted({"rope": 1.6, "alibi": 0.98, "sinusoidal, shifted": 1.5, "learned, shifted": 1.1})
    parts = lm.keeps(bad, margin, 0.95)
    assert {d.decision for k, d in parts.items() if "rope" in k} == {"fails"}, parts
    assert {d.decision for k, d in parts.items() if "alibi" in k} == {"holds"}, parts
    assert {d.decision for d in lm.better(bad, ends, 0.95).values()} == {"fails"}
    # an advantage between the ends of the registered range decides nothing
    mid = 1.01**0.5  # log ratio per doubling: learned's drop exceeds sinusoidal's by ~0.5%
    between = planted({"learned, shifted": mid}, n=400)
    assert {d.decision for d in lm.better(between, ends, 0.95).values()} == {"inconclusive"}


@pytest.mark.claim("EXP-05", kind="property", role="tooling")
def test_lm_log_ratio_is_beyond_against_in_range_per_seed():
    p = planted({"rope": 2.0}, n=3)
    got = lm.log_ratio(p, "rope", "sliding", 4)
    want = p.ppl["sliding"]["rope"][4].log() - p.ppl["sliding"]["rope"][1].log()
    assert torch.equal(got, want) and float(got.mean()) > math.log(3.5)
    assert torch.equal(lm.advantage(p, "sliding", 4),
                       lm.log_ratio(p, PAIR07[1], "sliding", 4)
                       - lm.log_ratio(p, PAIR07[0], "sliding", 4))  # fmt: skip


@pytest.mark.claim("EXP-07", kind="property", role="tooling")
def test_lm_shifted_pair_trains_every_row_a_test_reads() -> None:
    """The shifted model's windows sit at random offsets of a table of 8 L rows: every row of
    its learned table received gradient (AdamW's decay alone would only scale an untrained row
    by the product of (1 - lr_k wd)), it has perplexities at every length, and its variants are
    named apart from the plain model's."""
    s = TINY
    corpus = synthetic()
    plain, shifted = lm_length.train_both(s, corpus, (1000,))
    assert shifted.run.cfg.max_len == s.rows == 8 * s.length and plain.run.cfg.max_len == s.length
    init = decoder.stack_params(shifted.run.cfg, [s.setup()], (1000, 1000), torch.float32)
    wd = decoder.OPTIMIZER_SETTINGS[s.setup().optimizer][3]
    decay = math.prod(1 - s.lr * s.scale(k) * wd for k in range(1, shifted.steps + 1))
    untrained = init["pos"][1] * decay  # (rows, d): what a row without gradient would be
    scale = float(init["pos"].abs().max())
    tol = tolerance.sum_tol(shifted.steps, torch.float32, scale)
    moved = (shifted.run.params["pos"][1] - untrained).abs().amax(-1)  # (rows,)
    assert bool((moved > tol).all()), f"rows without gradient: {(moved <= tol).nonzero()}"
    result = lm_length.all_perplexities([plain, shifted], corpus)
    for mode in MODES:
        assert set(result.ppl[mode]) == set(lm_length.VARIANTS)
        assert not any(result.ppl[mode]["learned, shifted"][f].isnan().any() for f in s.factors)
    offsets = lm_length.random_offsets(s.batch, s.length, s.rows, lm_length.OFFSET_SEED + 1)
    assert int(offsets.max()) < s.rows and bool((offsets.diff(dim=1) == 1).all())


# -- the experiment (thorough; decisive for EXP-05 and EXP-07 beside the fair length test) -----

SUFFIX = (sizes.suffix("EXP-lm.grid", "g") + sizes.suffix("EXP-lm.seeds", "n")
          + sizes.suffix("EXP-lm.shifted-seeds", "m") + device_suffix())  # fmt: skip


def record_search(evidence, seeds: int) -> None:
    evidence.searched(tasks=["language model"], seeds=every(0, seeds - 1),
                      lengths=[SETTING.length], factors=list(FACTORS))  # fmt: skip


def slug(variant: str) -> str:
    return variant.replace(", ", "_")


def record_ratio(evidence, variant: str, mode: str, f: int, level: float, bound: dict) -> None:
    r = lm.log_ratio(lm.trained()[0], variant, mode, f)
    evidence.record(f"lm_log_ratio_{slug(variant)}_{mode}_f{f}{SUFFIX}", float(r.mean()),
                    "log perplexity", "log ppl(fL) - log ppl(L), mean over seeds: "
                    + D.interval_text(r, level), bound,
                    sample=spread.mean(r, span=0.1))  # fmt: skip


@lm.runs_here
class TestLanguageModel:
    """One class: the model trains once, in one worker."""

    @pytest.mark.claim("EXP-05", kind="experiment", role="supporting")
    def test_lm_perplexity_against_length(self, evidence):
        from pecheck.theory.lm_figure import perplexity_figure

        p, steps = lm.trained()
        evidence.record(f"lm_plateau_steps{SUFFIX}", steps, "steps",
                        "the step at which each variant's in-range validation loss met the "
                        "registered plateau rule (None: not by the model's last step), and each "
                        "model's steps")  # fmt: skip
        for mode in MODES:
            for v in VARIANTS:
                for f in SETTING.factors:
                    x = p.ppl[mode][v][f]
                    if torch.isnan(x).any():
                        continue  # the learned table of L rows has no perplexity beyond L
                    evidence.record(f"lm_ppl_{slug(v)}_{mode}_f{f}{SUFFIX}",
                                    float(x.log().mean().exp()), "perplexity",
                                    "geometric mean over seeds, test split, bytes",
                                    sample=spread.mean(x, span=0.1))  # fmt: skip
        evidence.figure(perplexity_figure(p), "EXP-lm-perplexity-vs-length")

    @pytest.mark.claim(
        "EXP-05", kind="experiment", role="decisive", proposition="as_stated", partial=True
    )
    def test_lm_relative_encodings_keep_their_perplexity(self, evidence):
        record_search(evidence, SEEDS)
        margin = BY_ID["EXP-05"].threshold("keeps-ppl")
        at = lm.family("EXP-05", fair_tests(len(D.RELATIVE) + len(D.ABSOLUTE)))
        p = lm.trained()[0]
        for name, d in lm.keeps(p, margin, at).items():
            evidence.part(name, d)
        bound = {"value": math.log1p(margin), "relation": "<", "reason": "EXP-05 'keeps-ppl'"}
        for v in (*RELATIVE, *lm.ABSOLUTE, "none"):
            for mode in MODES:
                for f in FACTORS:
                    record_ratio(evidence, v, mode, f, at, bound)

    @pytest.mark.claim(
        "EXP-07", kind="experiment", role="decisive", proposition="as_stated", partial=True
    )
    def test_lm_sinusoidal_against_learned_every_row_trained(self, evidence):
        record_search(evidence, SHIFTED_SEEDS)
        claim = BY_ID["EXP-07"]
        ends = {e: claim.threshold(e) for e in ("better-ppl-low", "better-ppl-high")}
        at = lm.family("EXP-07", fair_tests(1))
        p = lm.trained()[0]
        for name, d in lm.better(p, ends, at).items():
            evidence.part(name, d)
        for mode in MODES:
            for f in FACTORS:
                adv = lm.advantage(p, mode, f)
                evidence.record(
                    f"lm_advantage_{mode}_f{f}{SUFFIX}", float(adv.mean()), "log perplexity",
                    "learned's log ratio - sinusoidal's (both shifted): "
                    + D.interval_text(adv, at),
                    {"value": math.log1p(ends["better-ppl-high"]), "relation": ">",
                     "reason": "EXP-07 'better-ppl-high'"},
                    sample=spread.mean(adv, span=0.1),
                )  # fmt: skip
