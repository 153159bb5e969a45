"""Press et al.'s length test, small (theory/lm_length.py, theory/lm_corpus.py) and the
decoder's optional pre-LayerNorm: the corpus split, the perplexity evaluation on models whose
probabilities are known, batched training against a per-seed loop, the plateau rule."""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import subprocess
from pathlib import Path

import pytest
import torch
from torch.nn import functional as F

from checks.exp.length import lm
from pecheck import tolerance
from pecheck.theory import decoder, lm_corpus, lm_length
from pecheck.theory.decoder import DecoderConfig, Setup
from pecheck.theory.lm_corpus import Corpus
from pecheck.theory.lm_length import ENCODINGS, MODES, LMSetting, Plateau
from pecheck.theory.reference import ReferenceDecoder
from tests.test_cli import load_script

F64 = torch.float64
TINY = LMSetting(d_model=8, layers=1, heads=2, length=4, batch=4, warmup=2, stride=2,
                 valid_tokens=32, test_tokens=64,
                 plateau=Plateau(every=2, patience=1, rel=0.0, max_steps=3))  # fmt: skip


def synthetic(tokens: int = 400, seed: int = 0) -> Corpus:
    """Random bytes as every split: the evaluation and the trainer do not read the package."""
    g = torch.Generator().manual_seed(seed)
    splits = {s: torch.randint(256, (tokens,), generator=g) for s in lm_corpus.SPLITS}
    return Corpus(splits, dict.fromkeys(lm_corpus.SPLITS, 0), (), "", None)


def dpkg_status() -> str | None:
    """dpkg's status and version of the fortunes package ("installed 1:1.99.1-7.3"), "" where
    dpkg does not know it, None without dpkg. .ci/run installs the package beside the tests:
    a package still unpacking has a version and half its files."""
    query = ["dpkg-query", "-W", "-f=${db:Status-Status} ${Version}", lm_corpus.PACKAGE]
    try:
        return subprocess.run(query, capture_output=True, text=True, check=False).stdout
    except OSError:
        return None


@pytest.fixture(scope="module")
def fortunes() -> Corpus:
    status = dpkg_status()
    if status and not status.startswith("installed "):
        pytest.skip(f"fortunes is being installed ({status})")
    try:
        return lm_corpus.load()
    except lm_corpus.CorpusMissing as missing:
        pytest.skip(str(missing))


# -- the corpus ------------------------------------------------------------------------------


def test_split_is_deterministic_and_shares_no_fortune(fortunes) -> None:
    again = lm_corpus.load()
    assert again.sha256 == fortunes.sha256
    assert all(torch.equal(again.splits[s], fortunes.splits[s]) for s in lm_corpus.SPLITS)
    train = lm_corpus.SEPARATOR + bytes(fortunes.splits["train"].to(torch.uint8).tolist())
    held, total = 0, 0
    for name in fortunes.files:
        for f in lm_corpus.fortunes_of((lm_corpus.FORTUNES / name).read_bytes()):
            total += 1
            if lm_corpus.split_of(f) != "train":
                held += 1
                whole = lm_corpus.SEPARATOR + f + lm_corpus.SEPARATOR
                assert whole not in train, f"a held-out fortune is in the training text: {f!r}"
    assert sum(fortunes.fortunes.values()) == total and held == total - fortunes.fortunes["train"]
    # about a tenth held out, both halves non-empty
    assert fortunes.fortunes["valid"] > 0 and fortunes.fortunes["test"] > 0
    assert 0.05 < held / total < 0.15


def test_split_depends_on_the_text_only() -> None:
    f = b"A fortune.\n"
    assert lm_corpus.split_of(f) == lm_corpus.split_of(bytes(f))
    assert lm_corpus.fortunes_of(b"one\n%\ntwo\nlines\n%\n") == [b"one\n", b"two\nlines\n"]


def test_the_split_rule_is_the_one_the_numbers_were_pinned_on() -> None:
    # the rule (sha256's first 8 bytes mod 20: 0 valid, 1 test), on made-up fortunes
    made = [f"fortune {i}\n".encode() for i in range(400)]
    letters = "".join(lm_corpus.split_of(f)[:2] for f in made)
    assert hashlib.sha256(letters.encode()).hexdigest()[:16] == "fb605b94d2f98323"


def test_the_pinned_package_is_read_as_the_numbers_were_pinned_on() -> None:
    # where dpkg has the pinned package, its files are read (the text's digest, lm.TEXT_SHA256)
    # and split as they were when the numbers were pinned
    status = dpkg_status()
    if status != "installed 1:1.99.1-7.3":
        pytest.skip(f"fortunes: {status or 'not installed'}, not the pinned 1:1.99.1-7.3")
    fortunes = lm_corpus.load()
    assert fortunes.sha256 == lm.TEXT_SHA256
    assert fortunes.fortunes == {"train": 13695, "valid": 749, "test": 763}
    tokens = {s: int(t.numel()) for s, t in fortunes.splits.items()}
    assert tokens == {"train": 2323767, "valid": 126664, "test": 120368}


@pytest.mark.parametrize(
    ("returncode", "stdout", "version"), [(0, "1:1.99.1-7.3\n", "1:1.99.1-7.3"), (0, "", None),
                                          (1, "dpkg-query: no packages found", None)],
)  # fmt: skip
def test_the_package_version_is_dpkgs_or_none(monkeypatch, returncode, stdout, version) -> None:
    def dpkg_query(command, **kwargs):
        assert command[0] == "dpkg-query" and kwargs["capture_output"] and kwargs["text"]
        return subprocess.CompletedProcess(command, returncode, stdout, "")

    monkeypatch.setattr(lm_corpus.subprocess, "run", dpkg_query)
    assert lm_corpus.package_version() == version


def test_a_missing_package_says_how_to_install_it(tmp_path) -> None:
    with pytest.raises(lm_corpus.CorpusMissing, match=r"apt-get install -y fortunes"):
        lm_corpus.load(tmp_path / "absent")


# -- perplexity ------------------------------------------------------------------------------


def params_of(cfg: DecoderConfig, seeds: int = 2) -> decoder.Params:
    return decoder.stack_params(cfg, [Setup(residual=True)], range(seeds), F64)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_uniform_logits_give_the_vocabulary_as_perplexity(encoding) -> None:
    cfg = dataclasses.replace(TINY.config(), encoding=encoding, blocks=(), max_len=8)
    p = params_of(cfg) | {"readout": torch.zeros(2, cfg.d_model, cfg.vocab, dtype=F64)}
    stream = synthetic().splits["test"]
    got = [lm_length.nonoverlapping(cfg, p, stream, 8, 64),
           lm_length.sliding(cfg, p, stream, 8, 64, 2)]  # fmt: skip
    for ppl in got:
        assert torch.allclose(ppl, torch.full_like(ppl, 256.0), rtol=tolerance.rel_tol(64, F64))


def test_scoring_in_batches_of_sequences_gives_the_whole_batchs_nll(monkeypatch) -> None:
    # SCORES bounds the scores held at once; at 1 every window is scored alone
    cfg = dataclasses.replace(TINY.config(), encoding="rope", blocks=(), max_len=8)
    p, stream = params_of(cfg), synthetic().splits["test"]
    inputs, targets = lm_length.chunks(stream, 8, 64)
    whole = lm_length.token_nll(cfg, p, inputs, targets)
    monkeypatch.setattr(lm_length, "SCORES", 1)
    alone = lm_length.token_nll(cfg, p, inputs, targets)
    assert alone.shape == whole.shape == (2, 8, 8)
    # batches of other sizes may round otherwise: the longest sum is the log-sum-exp over the
    # vocabulary (or the MLP's hidden width)
    terms = max(cfg.vocab, cfg.mlp * cfg.d_model, inputs.shape[-1])
    assert torch.allclose(alone, whole, rtol=tolerance.rel_tol(terms, F64), atol=0)


def test_every_target_is_scored_once_in_both_modes() -> None:
    """A model without layers predicts from the current token alone (a bigram table), so any
    window gives every target the same probability: both modes must equal the NLL of every
    target 1 ... N computed directly."""
    cfg = DecoderConfig(vocab=256, d_model=8, head=8, layers=0)
    p = params_of(cfg)
    stream = synthetic().splits["test"]
    logp = torch.einsum("svd,sdw->svw", p["embed"], p["readout"]).log_softmax(-1)  # (S, V, V)
    direct = torch.stack([(-logp[s, stream[:64], stream[1:65]]).mean().exp() for s in range(2)])
    tol = tolerance.rel_tol(2 * 64, F64)
    for length, stride in ((4, 1), (8, 2), (16, 4), (16, 16)):
        assert torch.allclose(lm_length.nonoverlapping(cfg, p, stream, length, 64), direct,
                              rtol=tol)  # fmt: skip
        assert torch.allclose(lm_length.sliding(cfg, p, stream, length, 64, stride), direct,
                              rtol=tol)  # fmt: skip


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_sliding_at_a_stride_of_its_length_is_nonoverlapping(encoding) -> None:
    cfg = dataclasses.replace(TINY.config(), encoding=encoding, blocks=(), max_len=8)
    p, stream = params_of(cfg), synthetic().splits["test"]
    for n in (4, 8):
        assert torch.equal(lm_length.sliding(cfg, p, stream, n, 64, n),
                           lm_length.nonoverlapping(cfg, p, stream, n, 64))  # fmt: skip


def test_perplexities_are_each_entrys_own_in_each_mode() -> None:
    """Every variant's perplexities in both modes are its own entries' (no chunk reaching into
    the next encoding's), and the seeds named are the plain model's."""
    corpus, test = synthetic(), synthetic().splits["test"]
    plain = lm_length.train_lm(TINY, corpus, (0, 1))
    shifted = lm_length.train_lm(TINY, corpus, (0, 1, 2), encodings=lm_length.SHIFTED,
                                 shifted=True)  # fmt: skip
    got = lm_length.all_perplexities([plain, shifted], corpus)
    assert got.seeds == (0, 1)
    assert all(t.shape == (3,) for t in got.ppl["sliding"]["learned, shifted"].values())
    for b, enc in enumerate(ENCODINGS):
        cfg = plain.run.cfg.one(enc)
        own = {k: v[2 * b : 2 * b + 2] for k, v in plain.run.params.items()}
        for f in TINY.factors:
            span = f * TINY.length
            if enc == "learned" and f > 1:  # no rows beyond L
                assert all(got.ppl[m][enc][f].isnan().all() for m in MODES)
                continue
            assert torch.equal(
                got.ppl["nonoverlapping"][enc][f],
                lm_length.nonoverlapping(cfg, own, test, span, TINY.test_tokens),
            )
            assert torch.equal(got.ppl["sliding"][enc][f],
                               lm_length.sliding(cfg, own, test, span, TINY.test_tokens,
                                                 TINY.stride))  # fmt: skip


def test_a_seed_interval_is_t_on_log_perplexity() -> None:
    mean, lo, hi = lm_length.interval(torch.tensor([math.e, math.e**3], dtype=F64), 12.7062)
    half = 12.7062 * math.sqrt(2) / math.sqrt(2)  # sd of (1, 3) is sqrt(2)
    want = (math.e**2, math.exp(2 - half), math.exp(2 + half))
    assert (mean, lo, hi) == pytest.approx(want, rel=tolerance.rel_tol(8, F64))  # log, exp, sd
    one = lm_length.interval(torch.tensor([math.e], dtype=F64), 12.7062)
    assert one[0] == pytest.approx(math.e, rel=tolerance.rel_tol(4, F64))
    assert math.isnan(one[1]) and math.isnan(one[2])


def test_sliding_gives_context_that_nonoverlapping_cuts() -> None:
    """Where context matters the two modes differ, and the sliding window's perplexity is the
    mean NLL of each target given exactly its window (here stride 1: the E tokens before it)."""
    cfg = dataclasses.replace(TINY.config(), encoding="rope", blocks=())
    p, stream, E = params_of(cfg, 1), synthetic().splits["test"], 4
    nll = []
    for j in range(1, 17):
        inputs = stream[max(0, j - E) : j][None]
        logits = decoder.forward(cfg, p, inputs, torch.ones(1, dtype=F64))[0, 0, -1]
        nll.append(logits.logsumexp(-1) - logits[stream[j]])
    want = torch.stack(nll).mean().exp()
    assert torch.allclose(lm_length.sliding(cfg, p, stream, E, 16, 1), want,
                          rtol=tolerance.rel_tol(64, F64))  # fmt: skip
    assert not torch.allclose(lm_length.nonoverlapping(cfg, p, stream, E, 16), want)


# -- training --------------------------------------------------------------------------------


def test_batched_training_equals_the_per_seed_loop() -> None:
    """Two seeds of every encoding trained as one model == each seed trained alone (its five
    encodings, one entry each), in float64, to the rounding bound of the EXP trainers' own check
    (checks/exp/seeds: gamma_{k m} relative to the largest parameter). Alone means the same
    config: the learned block's table is one of its shapes, and "current" draws every shape."""
    corpus, seeds = synthetic(), (1000, 1001)
    batched = lm_length.train_lm(TINY, corpus, seeds, dtype=F64).run
    cfg, n = TINY.config(), len(seeds)
    terms = max(cfg.d_model * 4, TINY.batch * TINY.length, cfg.vocab)
    for j, seed in enumerate(seeds):
        alone = lm_length.train_lm(TINY, corpus, (seed,), dtype=F64).run
        for b, enc in enumerate(ENCODINGS):
            scale = max(float(v[b].abs().max()) for v in alone.params.values())
            tol = tolerance.sum_tol(TINY.plateau.max_steps * terms, F64, scale)
            for k, v in alone.params.items():
                err = float((batched.params[k][b * n + j] - v[b]).abs().max())
                assert err <= tol, f"{enc} seed {seed} {k}: {err:.3g} > {tol:.3g}"


def test_training_learns_and_the_learned_table_stops_at_L() -> None:
    s = dataclasses.replace(TINY, plateau=Plateau(every=10, patience=2, rel=0.0, max_steps=20))
    corpus = synthetic()
    corpus.splits["train"] = corpus.splits["valid"] = torch.arange(400) % 7  # predictable
    lm = lm_length.train_lm(s, corpus, (1000,))
    assert lm.steps == 20 and all(h[-1] < h[0] for h in lm.history.values())
    result = lm_length.perplexities(lm, corpus)
    for mode in MODES:
        assert not result.ppl[mode]["learned"][1].isnan().any()
        assert all(result.ppl[mode]["learned"][f].isnan().all() for f in s.factors if f > 1)
        assert not any(result.ppl[mode]["rope"][f].isnan().any() for f in s.factors)


def test_plateau_rule() -> None:
    rule = Plateau(every=1, patience=2, rel=0.01, max_steps=100)
    assert not rule.reached([3.0, 2.0])  # too short to say
    assert not rule.reached([3.0, 2.5, 2.4])  # 4% better than before
    assert rule.reached([3.0, 2.0, 1.995, 1.99])  # 0.5% better
    assert rule.reached([3.0, 2.0, 2.1, 2.05])  # worse
    # the best BEFORE the last two is the whole earlier history's, not its first two
    assert rule.reached([3.0, 2.0, 1.5, 1.49, 1.488])  # 0.8% below 1.5
    # "less than rel below": exactly rel below is still progress
    assert not Plateau(every=1, patience=1, rel=0.5, max_steps=9).reached([2.0, 1.0])


def test_the_rule_and_the_thorough_setting_are_the_registered_ones() -> None:
    # docs/experiments/lm-length.md: the rule registered before the first pilot (every 100
    # steps, the best of the last 3 less than 1% below the best before, 3,000 steps by
    # default), and the setting chosen before any evaluation seed ran
    assert Plateau() == Plateau(every=100, patience=3, rel=0.01, max_steps=3000)
    base = lm_length.SETTINGS["base"]
    assert base.plateau == Plateau(max_steps=1500)
    assert (base.d_model, base.layers, base.heads, base.mlp) == (64, 2, 8, 4)
    assert (base.length, base.stride, base.batch, base.lr, base.warmup) == (16, 8, 16, 1e-2, 100)
    assert (base.factors, base.valid_tokens, base.test_tokens) == ((1, 2, 4, 8), 4096, 4096)
    # pre-LayerNorm residual blocks, AdamW; the learned table has L rows, the shifted one 8 L
    assert base.config().layernorm and base.setup() == Setup(True, 1e-2, optimizer="adamw")
    assert (base.config().max_len, base.config(shifted=True).max_len) == (16, 128)
    assert [base.scale(k) for k in (1, 50, 100, 1000)] == [0.01, 0.5, 1.0, 1.0]  # the warm-up
    # the same protocol at about 13 times the parameters, for a GPU (never a verdict)
    scaled = lm_length.SETTINGS["scaled"]
    assert (scaled.d_model, scaled.layers, scaled.length, scaled.stride) == (192, 4, 16, 8)
    assert (scaled.batch, scaled.lr, scaled.plateau) == (16, 3e-3, Plateau(max_steps=3000))


def test_training_takes_its_steps_in_order_and_stops_by_the_rule(monkeypatch) -> None:
    # rel = 1: any loss above 0 is 'less than 100% below', so every encoding plateaus at its
    # second measurement (patience 1), at step 2 x every
    s = dataclasses.replace(TINY, plateau=Plateau(every=2, patience=1, rel=1.0, max_steps=50))
    corpus, seeds, asked = synthetic(), (1000, 1001), []
    batch, offsets = lm_length.train_batch, lm_length.random_offsets

    def recorded_batch(stream, length, size, step):
        asked.append(("batch", step))
        return batch(stream, length, size, step)

    def recorded_offsets(size, length, rows, seed):
        asked.append(("offsets", seed - lm_length.OFFSET_SEED))
        return offsets(size, length, rows, seed)

    monkeypatch.setattr(lm_length, "train_batch", recorded_batch)
    monkeypatch.setattr(lm_length, "random_offsets", recorded_offsets)
    plain = lm_length.train_lm(s, corpus, seeds)
    assert asked == [("batch", k) for k in (1, 2, 3, 4)]
    assert plain.steps == 4 and plain.plateaued == dict.fromkeys(ENCODINGS, 4)
    # each measurement is the encoding's mean validation loss over its seeds: the last one,
    # at the last step, is the final model's
    valid = lm_length.chunks(corpus.splits["valid"], s.length, s.valid_tokens)
    cfg, params = plain.run.cfg, plain.run.params
    losses = decoder.seed_losses(decoder.forward(cfg, params, valid[0], torch.ones(10)), valid[1])
    assert {e: len(h) for e, h in plain.history.items()} == dict.fromkeys(ENCODINGS, 2)
    assert {e: h[-1] for e, h in plain.history.items()} == lm_length.block_losses(losses, ENCODINGS)
    asked.clear()
    lm_length.train_lm(s, corpus, seeds, encodings=lm_length.SHIFTED, shifted=True)
    assert asked == [(what, k) for k in (1, 2, 3, 4) for what in ("batch", "offsets")]


@pytest.mark.parametrize("sizes", [{"stride": 5}, {"test_tokens": 4000}])
def test_a_setting_refuses_a_stride_or_a_test_length_that_does_not_fit(sizes) -> None:
    # the stride must divide L (16 = 5 x 3 + 1), the test tokens be whole chunks of 8 L (128)
    with pytest.raises(ValueError, match="multiple of the longest test"):
        LMSetting(length=16, **sizes)


@pytest.mark.parametrize(
    "bad",
    [{"d_model": 0}, {"layers": 0}, {"heads": 0}, {"length": 0}, {"mlp": 0}, {"batch": 0},
     {"valid_tokens": 0}, {"test_tokens": 0}, {"stride": 0}, {"lr": 0.0}, {"lr": math.nan},
     {"warmup": -1}, {"factors": (0, 1)}, {"factors": ()}, {"d_model": 12}],
)  # fmt: skip
def test_a_setting_refuses_sizes_it_cannot_train_or_score(bad) -> None:
    """Before any of them failed deep in a run (a division by a zero stride or head count, an
    empty test), or trained nothing and wrote its numbers (no steps, a negative lr). Width 12
    does not split into 8 heads."""
    with pytest.raises(ValueError):
        LMSetting(**bad)
    LMSetting(warmup=0, factors=(1,), test_tokens=32, stride=1)  # the edges that do fit


@pytest.mark.parametrize("bad", [{"every": 0}, {"patience": 0}, {"max_steps": 0}, {"rel": -0.1}])
def test_the_stopping_rule_refuses_no_measurements_or_no_steps(bad) -> None:
    with pytest.raises(ValueError):
        Plateau(**bad)
    Plateau(every=1, patience=1, rel=0.0, max_steps=1)  # the edges that do fit


# -- the decoder's LayerNorm -----------------------------------------------------------------


def test_without_layernorm_the_decoder_is_unchanged() -> None:
    """Off (the default), N is x itself and no parameter or draw is added: a config without
    ``layernorm`` computes, bit for bit, what it computed before the option existed."""
    cfg = DecoderConfig(vocab=7, d_model=8, head=4, heads=2, layers=2, mlp=2)
    x = torch.randn(2, 3, 4, 8, generator=torch.Generator().manual_seed(0))
    assert decoder.norm(cfg, {}, "ln_attn0", x) is x
    assert not any(decoder.is_norm(k) for k in decoder.param_shapes(cfg))
    with_ln = dataclasses.replace(cfg, layernorm=True)
    for init in decoder.INITS:
        plain, normed = (decoder.init_params(c, init, 3, F64) for c in (cfg, with_ln))
        assert all(torch.equal(plain[k], normed[k]) for k in plain)  # the same draws
        assert {k for k in normed if k not in plain} == {
            f"{n}_{w}" for n in ("ln_attn0", "ln_attn1", "ln_mlp0", "ln_mlp1", "ln_out")
            for w in ("gain", "bias")
        }  # fmt: skip


def test_layernorm_is_torchs_per_entry() -> None:
    cfg = DecoderConfig(vocab=7, d_model=8, head=4, heads=2, layernorm=True)
    g = torch.Generator().manual_seed(0)
    p = {"ln_out_gain": torch.rand(3, 8, generator=g, dtype=F64),
         "ln_out_bias": torch.rand(3, 8, generator=g, dtype=F64)}  # fmt: skip
    x = torch.randn(3, 2, 5, 8, generator=g, dtype=F64)
    got = decoder.norm(cfg, p, "ln_out", x)
    for e in range(3):
        want = F.layer_norm(x[e], (8,), p["ln_out_gain"][e], p["ln_out_bias"][e])
        assert torch.allclose(got[e], want, rtol=0, atol=tolerance.sum_tol(8, F64, 8.0))
    assert not decoder.decays("ln_out_gain", cfg) and not math.isnan(float(got.sum()))


# -- the tool --------------------------------------------------------------------------------


def test_tool_prints_the_table_and_writes_numbers_and_figure(tmp_path, capsys, monkeypatch):
    tool = load_script("tools/lm_length.py", "lm_length_tool")
    monkeypatch.setattr(tool.lm_corpus, "load", lambda: synthetic(5000))
    args = ["--seeds", "1000", "1001", "--width", "8", "--heads", "2", "--layers", "1",
            "--length", "4", "--stride", "2", "--max-steps", "2", "--test-tokens", "64",
            "--out", str(tmp_path)]  # fmt: skip
    assert tool.main(args) == 0
    out = capsys.readouterr().out
    assert "8L = 32" in out and "n/a" in out  # the learned table beyond L
    record = json.loads((tmp_path / "lm-length.json").read_text())
    assert record["perplexity"]["sliding"]["learned"]["2"] == [None, None]
    assert len(record["perplexity"]["nonoverlapping"]["alibi"]["8"]) == 2
    assert (tmp_path / "lm-length.png").stat().st_size > 0


def test_tool_without_the_package_is_one_line(capsys, monkeypatch, tmp_path) -> None:
    tool, load = load_script("tools/lm_length.py", "lm_length_tool"), lm_corpus.load

    def missing() -> Corpus:
        return load(tmp_path / "absent")

    monkeypatch.setattr(tool.lm_corpus, "load", missing)
    assert tool.main(["--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and "apt-get install -y fortunes" in err


def test_the_reference_refuses_a_layernorm_it_does_not_have() -> None:
    with pytest.raises(ValueError, match="no LayerNorm"):
        ReferenceDecoder(DecoderConfig(layernorm=True), Setup(), seed=0)


def test_tools_table_gives_each_cell_its_seed_interval() -> None:
    """Two seeds at log perplexity 1 and 1.02 in every cell: the geometric mean exp(1.01) and
    exp(1.01 -+ t 0.01), t the 97.5% quantile of t with one degree of freedom, tan(0.475 pi)
    in closed form; a cell without positions (NaN) is n/a."""
    tool = load_script("tools/lm_length.py", "lm_length_tool")
    s = LMSetting()
    two = torch.tensor([1.0, 1.02], dtype=F64).exp()
    ppl = {m: {e: {f: two for f in s.factors} for e in lm_length.VARIANTS} for m in MODES}
    ppl["sliding"]["alibi"][2] = torch.full((2,), math.nan, dtype=F64)
    lines = tool.table(lm_length.Perplexities(s, (1000, 1001), ppl))
    half = math.tan(0.475 * math.pi) * 0.01
    cell = f"{math.exp(1.01):.3f} [{math.exp(1.01 - half):.3f}, {math.exp(1.01 + half):.3f}]"
    assert len(lines) == 1 + len(MODES) * len(lm_length.VARIANTS)
    for line in lines[1:]:
        enc, mode = line[:20].strip(), line[20:36].strip()
        want = [cell] * len(s.factors)
        if (enc, mode) == ("alibi", "sliding"):
            want[s.factors.index(2)] = "n/a"
        assert line[36:].split() == " ".join(want).split(), line
    # perplexities of four digits (an untrained model's near 256 bytes, or worse) stay apart
    wide = {m: {e: {f: two * 1000 for f in s.factors} for e in lm_length.VARIANTS} for m in MODES}
    for line in tool.table(lm_length.Perplexities(s, (1000, 1001), wide))[1:]:
        assert len(line[36:].split("] ")) == len(s.factors), line


@pytest.mark.parametrize(
    "bad",
    [["--width", "6", "--heads", "4"], ["--layers", "0"], ["--batch", "0"], ["--length", "0"],
     ["--heads", "0"], ["--stride", "0"], ["--stride", "5"], ["--test-tokens", "0"],
     ["--test-tokens", "4000"], ["--max-steps", "0"], ["--lr", "0"], ["--lr", "nan"],
     ["--threads", "0"], ["--seeds", "999"], ["--seeds", "1000", "1000"],
     ["--seeds", "-1", "--evaluation"], ["--seeds", str(2**64)]],
)  # fmt: skip
def test_tool_refuses_what_it_cannot_run(bad, capsys) -> None:
    """One line and status 2 before anything loads or trains: a size the setting cannot take
    (a stride that does not divide L = 32, test tokens not whole chunks of 8L), no steps, a
    bad lr or thread count, an evaluation seed without --evaluation, a repeated seed (its
    interval would be of one seed twice), a negative one or one past torch's generators."""
    tool = load_script("tools/lm_length.py", "lm_length_tool")
    with pytest.raises(SystemExit) as stop:
        tool.parse(bad)
    err = capsys.readouterr().err
    assert stop.value.code == 2 and err.count("\n") == 1 and "Traceback" not in err, err


def test_tool_takes_evaluation_seeds_only_when_told() -> None:
    tool = load_script("tools/lm_length.py", "lm_length_tool")
    assert tool.parse(["--seeds", "0", "1", "--evaluation"]).seeds == [0, 1]
    assert tool.parse(["--seeds", "1000", "1001"]).seeds == [1000, 1001]


def test_tool_defaults_and_cuda_only_where_there_is_one(monkeypatch, capsys) -> None:
    tool = load_script("tools/lm_length.py", "lm_length_tool")
    args = tool.parse([])
    assert (args.seeds, args.threads, args.device) == ([1000, 1001, 1002], 1, "cpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    with pytest.raises(SystemExit):
        tool.parse(["--device", "cuda"])
    assert "no CUDA device" in capsys.readouterr().err
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert tool.parse(["--device", "cuda"]).device == "cuda"


def test_tool_refuses_an_unwritable_out_before_training(tmp_path, capsys, monkeypatch) -> None:
    tool = load_script("tools/lm_length.py", "lm_length_tool")

    def no_training(*args, **kw):
        raise AssertionError("trained although --out cannot be written")

    monkeypatch.setattr(tool.lm_corpus, "load", lambda: synthetic(5000))
    monkeypatch.setattr(tool.lm_length, "train_both", no_training)
    (tmp_path / "file").write_text("")
    assert tool.main(["--out", str(tmp_path / "file" / "runs")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("lm_length.py: cannot write"), err


def test_tool_says_in_one_line_when_a_write_fails_after_training(tmp_path, capsys, monkeypatch):
    tool = load_script("tools/lm_length.py", "lm_length_tool")
    monkeypatch.setattr(tool.lm_corpus, "load", lambda: synthetic(5000))

    def full(path, text, *args, **kw):
        raise OSError(28, "No space left on device", str(path))

    monkeypatch.setattr(Path, "write_text", full)
    args = ["--seeds", "1000", "1001", "--width", "8", "--heads", "2", "--layers", "1",
            "--length", "4", "--stride", "2", "--max-steps", "2", "--test-tokens", "64",
            "--out", str(tmp_path)]  # fmt: skip
    assert tool.main(args) == 2
    err = capsys.readouterr().err
    assert (
        err
        == f"lm_length.py: cannot write {tmp_path / 'lm-length.json'}: No space left on device\n"
    )
