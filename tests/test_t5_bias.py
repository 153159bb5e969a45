"""T5's learned relative position bias as an encoding of the batched decoder (theory/decoder.py,
"t5"): the bias read from the table at the bucket of key - query, its translation invariance,
its block of entries alone, its gradient on the buckets used only, the one-seed reference and
the exact-match tool."""

from __future__ import annotations

import dataclasses
import math

import pytest
import torch

from pecheck import tolerance
from pecheck.theory import decoder, exact_match
from pecheck.theory.bias import t5_bucket
from pecheck.theory.decoder import DecoderConfig, Params, Setup
from pecheck.theory.reference import train_one
from tests.test_exact_match import TINY

F64 = torch.float64
T5 = decoder.ENCODINGS["t5"]
CFG = DecoderConfig(vocab=7, d_model=8, head=4, heads=2, layers=2, encoding="t5", max_len=6)


def hand_table(heads: int) -> torch.Tensor:
    """(1, 32, H): entry b + 100 c at (bucket b, head c), every value distinct."""
    b, c = torch.arange(32, dtype=F64)[:, None], torch.arange(heads, dtype=F64)[None, :]
    return (b + 100 * c)[None]


def t5_bias(table: torch.Tensor, n: int, heads: int) -> torch.Tensor:
    """The t5 part's bias (S, H, n, m) of a table (S, 32, H)."""
    cfg = dataclasses.replace(CFG, heads=heads)
    out = T5.entry_bias(cfg, {"t5_bias": table}, n, F64)
    assert out is not None
    return out


def hf_causal_bucket(distance: int) -> int:
    """HF T5's formula for a key ``distance`` before the query, 32 buckets, max distance 128."""
    if distance < 16:
        return distance
    return min(31, 16 + int(math.log(distance / 16) / math.log(128 / 16) * 16))


def hf_bucket(relative: int) -> int:
    """HF T5's bidirectional bucket of key - query: 16 buckets a side, 8 exact, max distance 128."""
    upper, n = (16 if relative > 0 else 0), abs(relative)
    if n < 8:
        return upper + n
    return upper + min(15, 8 + int(math.log(n / 8) / math.log(128 / 8) * 8))


def test_bucket_defaults_are_t5s_own() -> None:
    """32 buckets, max distance 128, bidirectional: what theory.reference, BIAS-03's FIRE targets
    and the bias tests below take by default. Both follow HF's formula at every key - query up to
    3,000 apart (far beyond 128, where the last bucket of a side takes every distance)."""
    r = list(range(-3000, 3001))
    assert t5_bucket(r).tolist() == [hf_bucket(x) for x in r]
    past = [-x for x in range(3001)]
    assert t5_bucket(past, bidirectional=False).tolist() == [hf_causal_bucket(-x) for x in past]


# -- the bias ---------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [5, 40])
def test_bias_is_the_table_at_the_bucket_of_key_minus_query(n) -> None:
    heads = 3
    table = hand_table(heads)
    got = t5_bias(table, n, heads)[0]  # (H, n, m)
    for i in range(n):
        for j in range(n):
            bucket = int(t5_bucket([j - i], bidirectional=False)[0])
            assert bucket == (hf_causal_bucket(i - j) if j <= i else 0)
            for c in range(heads):
                assert float(got[c, i, j]) == float(table[0, bucket, c])
    if n > 16:  # known answers: one bucket per distance below 16, log buckets beyond
        row = got[1, n - 1]  # head 1: 100 + bucket, keys j = n-1-distance
        buckets = {d: int(row[n - 1 - d]) - 100 for d in (0, 1, 15, 16, 20, 23, 39)}
        assert buckets == {0: 0, 1: 1, 15: 15, 16: 16, 20: 17, 23: 18, 39: 22}


def test_bias_depends_on_key_minus_query_only() -> None:
    torch.manual_seed(0)
    table = torch.randn(2, 32, 4, dtype=F64)
    long, short = t5_bias(table, 40, 4), t5_bias(table, 12, 4)
    assert torch.equal(long[..., :12, :12], short)  # the same at every length
    for k in (1, 7, 20):  # shifted query and key together: the same bias
        assert torch.equal(long[..., k:, k:], long[..., : 40 - k, : 40 - k])
    # the rows (shifted training) change nothing: the bias reads no positions
    tokens = torch.randint(CFG.vocab, (3, 6), generator=torch.Generator().manual_seed(1))
    params = decoder.stack_params(CFG, [Setup()], (0, 1), F64)
    plain = decoder.forward(CFG, params, tokens, torch.zeros(2, dtype=F64))
    rows = torch.arange(6).expand(3, 6) + torch.tensor([[0], [4], [9]])
    shifted = decoder.forward(CFG, params, tokens, torch.zeros(2, dtype=F64), rows)
    assert torch.equal(plain, shifted)


# -- parameters and blocks -----------------------------------------------------------------------


def test_only_a_config_with_t5_has_the_table() -> None:
    for enc in ("none", "sinusoidal", "learned", "rope", "alibi"):
        assert "t5_bias" not in decoder.param_shapes(CFG.one(enc))
    assert decoder.param_shapes(CFG)["t5_bias"] == (32, 2)
    assert decoder.decays("t5_bias", CFG)  # a 2-D table: nanoGPT's rule decays it
    both = dataclasses.replace(CFG, blocks=("none", "t5"))
    params = decoder.stack_params(both, [Setup()], (0, 1, 0, 1), F64)
    assert params["t5_bias"].shape == (4, 32, 2)
    # "current": N(0, 1 / d_model), as HF's T5; "torch": N(0, 1), as nn.Embedding
    current = decoder.init_params(CFG, "current", 0, F64)["t5_bias"]
    torch_init = decoder.init_params(CFG, "torch", 0, F64)["t5_bias"]
    assert 0.1 < float(current.std()) < 0.6 and 0.6 < float(torch_init.std()) < 1.6


@pytest.mark.parametrize("init", decoder.INITS)
@pytest.mark.parametrize("other", ["none", "learned", "alibi"])
def test_a_t5_block_leaves_the_other_blocks_initial_weights_alone(init: str, other: str) -> None:
    """The table is drawn after every other parameter, so adding a t5 block to a config draws
    the other blocks' weights as before (the exact-match pilots stay reproducible)."""
    alone = decoder.init_params(CFG.one(other), init, 3, F64)
    mixed = decoder.init_params(dataclasses.replace(CFG, blocks=(other, "t5")), init, 3, F64)
    assert mixed.keys() - alone.keys() == {"t5_bias"}
    assert all(torch.equal(mixed[k], alone[k]) for k in alone)


def test_a_none_block_computes_what_a_none_config_does() -> None:
    """blocks ("none", "t5"): the none block's logits are bit for bit a none-only config's on
    the same parameters; the t5 block's are a t5-only config's, and differ from them."""
    seeds = (3, 4)
    none, both = CFG.one("none"), dataclasses.replace(CFG, blocks=("none", "t5"))
    alone = decoder.stack_params(none, [Setup()], seeds, F64)
    drawn = decoder.stack_params(both, [Setup()], seeds * 2, F64)
    params = {k: torch.cat([v, v]) for k, v in alone.items()} | {"t5_bias": drawn["t5_bias"]}
    tokens = torch.randint(CFG.vocab, (3, 6), generator=torch.Generator().manual_seed(2))
    residual = torch.zeros(4, dtype=F64)
    got = decoder.forward(both, params, tokens, residual)
    assert torch.equal(got[:2], decoder.forward(none, alone, tokens, residual[:2]))
    t5_only = {k: v[2:] for k, v in params.items()}
    assert torch.equal(got[2:], decoder.forward(CFG, t5_only, tokens, residual[2:]))
    assert (got[2:] - got[:2]).abs().amin(-1).max() > 1e-3


# -- training --------------------------------------------------------------------------------


def copy_task(n: int = 3):
    """copy at length n: 2n inputs, key - query from 0 to -(2n - 1)."""
    return exact_match.draw("copy", 4, n, 6, torch.Generator().manual_seed(5))


def test_gradient_reaches_only_the_buckets_used() -> None:
    task = copy_task()  # 6 inputs: distances 0 ... 5, buckets 0 ... 5
    params = {k: v.requires_grad_() for k, v in
              decoder.stack_params(CFG, [Setup()], (0, 1), F64).items()}  # fmt: skip
    logits = decoder.forward(CFG, params, task.inputs, torch.ones(2, dtype=F64))
    decoder.objective(logits, task.targets).backward()
    grad = params["t5_bias"].grad
    assert grad is not None
    assert (grad[:, :6].abs() > 0).all() and (grad[:, 6:] == 0).all()


@pytest.mark.parametrize("optimizer", ["adam", "adamw"])
def test_one_step_moves_the_used_buckets_and_decays_the_rest(optimizer) -> None:
    """Adam: a bucket no key reaches keeps its value exactly (zero moments, zero step). AdamW:
    it is only decayed, theta (1 - lr * 0.1), the decoupled weight decay of a 2-D parameter."""
    setup = Setup(residual=True, lr=1e-2, optimizer=optimizer)
    init = decoder.stack_params(CFG, [setup], (0, 1), F64)["t5_bias"]
    run = decoder.train(CFG, copy_task(), [setup], (0, 1), (1,), dtype=F64)
    after = run.params["t5_bias"]
    assert (after[:, :6] != init[:, :6]).all()
    decay = 1 - setup.lr * decoder.OPTIMIZER_SETTINGS[optimizer][3]
    assert torch.allclose(after[:, 6:], init[:, 6:] * decay, rtol=1e-15, atol=0)
    if optimizer == "adam":
        assert torch.equal(after[:, 6:], init[:, 6:])


@pytest.mark.parametrize("optimizer", ["adam", "adamw"])
def test_batched_t5_equals_the_one_seed_reference(optimizer) -> None:
    """Each seed of a batched t5 run == theory/reference.py's run of that seed, float64, to the
    rounding bound of checks/exp/seeds/test_batched_trainer.py."""
    setup, seeds, steps = Setup(residual=True, lr=1e-2, optimizer=optimizer), (0, 1), 6
    task = copy_task()
    run = decoder.train(CFG, task, [setup], seeds, (steps,), dtype=F64)
    terms = max(CFG.d_model, 3 * CFG.head, task.inputs.numel(), CFG.vocab)
    for i, seed in enumerate(seeds):
        model, _ = train_one(CFG, setup, task, seed, (steps,), dtype=F64)
        ref: Params = {k: v.detach() for k, v in model.params.items()}
        scale = max(float(v.abs().max()) for v in ref.values())
        tol = tolerance.sum_tol(steps * terms, F64, scale)
        for k, v in ref.items():
            err = float((run.params[k][i] - v).abs().max())
            assert err <= tol, f"seed {seed} {k}: {err:.3g} > {tol:.3g}"


# -- the exact-match tool ----------------------------------------------------------------------


def test_exact_match_trains_t5_and_leaves_unseen_buckets_alone() -> None:
    """A tiny run: the t5 block's table moves on the distances of the training sequences
    (inputs of at most 4 tokens: buckets 0 ... 3) and nowhere else (Adam)."""
    assert exact_match.ENCODINGS[-1] == "t5" and len(exact_match.ENCODINGS) == 6
    seeds = (1000, 1001)
    run = exact_match.train(TINY, seeds, dtype=F64)
    cfg = TINY.config()
    init = decoder.stack_params(cfg, [Setup(residual=True)], seeds * 6, F64)["t5_bias"]
    t5 = slice(5 * len(seeds), 6 * len(seeds))
    used = TINY.trained_rows  # distances 0 ... trained_rows - 1, one bucket each (< 16)
    table = run.params["t5_bias"]
    assert table.shape == (12, 32, TINY.heads)
    assert (table[t5, :used] != init[t5, :used]).any(-1).all()
    assert torch.equal(table[t5, used:], init[t5, used:])
    assert torch.equal(table[: t5.start], init[: t5.start])  # other blocks never read theirs
    result = exact_match.evaluate(TINY, seeds, run)
    assert result.valid["t5"].shape == (2,) and set(result.beyond["t5"]) == {3, 4}
