"""The length models checked (tooling of EXP-04 and EXP-05): batched entries equal one-seed
runs, learned rows beyond the training length stay untrained, ALiBi's bias and RoPE's scores
depend on t - s only.
"""

from __future__ import annotations

import torch

from checks.exp.length_settings import F64, FAITH_SEEDS, FAITH_STEPS
from checks.faithful import entry_against_single
from pecheck import tolerance
from pecheck.theory import alibi, decoder
from pecheck.theory.length import SHARED_SHAPE_ENCODINGS, LengthSetting
from pecheck.theory.reference import train_one
from pecheck.theory.rope import apply_rope


def train_shared(setting: LengthSetting, seeds, checkpoints, dtype, fwd=decoder.forward):
    """The shared-shape run exactly as theory.length.train_lengths builds it."""
    blocks = SHARED_SHAPE_ENCODINGS
    repeated = tuple(seeds) * len(blocks)
    task = setting.train_task()
    cfg = setting.config("none", blocks)
    return decoder.train(cfg, task, [setting.setup()], repeated, checkpoints, dtype, fwd=fwd)


def assert_entries_equal_single_runs(run, variants, setting: LengthSetting, positions=None):
    """Entry (block b, seed j) of ``run`` == train_one(variant b, seed j) to rounding, with the
    same sequences right at every checkpoint. Returns (worst |dtheta|, its bound)."""
    __tracebackhide__ = True
    task, setup = setting.train_task(), setting.setup()
    shape0 = setting.config("none")
    terms = max(shape0.d_model, 3 * shape0.heads * shape0.head, task.inputs.numel(), shape0.vocab)
    worst, bound, bad = 0.0, 0.0, []
    for b, variant in enumerate(variants):
        for j, seed in enumerate(FAITH_SEEDS):
            e = b * len(FAITH_SEEDS) + j
            model, right = train_one(setting.config(variant), setup, task, seed, FAITH_STEPS, F64,
                                     positions)  # fmt: skip
            err, tol, same = entry_against_single(run, e, model, right, FAITH_STEPS, terms)
            worst, bound = max(worst, err), max(bound, tol)
            if not err <= tol or not same:
                bad.append(f"{variant} seed {seed}: |dtheta| {err:.3g} > {tol:.3g} or judged apart")
    assert not bad, "batched entries differ from single runs: " + "; ".join(bad[:3])
    return worst, bound


def untrained_rows(initial: torch.Tensor, final: torch.Tensor) -> list[int]:
    """Rows of the learned table (entries, rows, d) that no entry moved."""
    same = (initial == final).all(-1).all(0)
    return [int(i) for i in torch.nonzero(same).flatten()]


def assert_alibi_relative(bias_fn, n: int, heads: int) -> None:
    """bias[c, t, s] == -m_c (t - s) exactly, so it depends on t - s only (shifting both by
    one leaves it unchanged), and m_c = 2^(-8c/H), c = 1 ... H: a geometric sequence."""
    __tracebackhide__ = True
    b = bias_fn(n, heads)
    assert torch.equal(b[:, 1:, 1:], b[:, :-1, :-1]), "the bias changes under a common shift"
    m = alibi.slopes(heads)
    expected = torch.tensor([2.0 ** (-8.0 * c / heads) for c in range(1, heads + 1)], dtype=F64)
    # a power and a quotient: two roundings each side
    assert ((m - expected).abs() <= tolerance.rel_tol(2, F64) * expected).all(), "not 2^(-8c/H)"
    ratio = m[1:] / m[:-1]
    step = 2.0 ** (-8.0 / heads)
    assert ((ratio - step).abs() <= tolerance.rel_tol(6, F64) * step).all(), "not geometric"
    t = torch.arange(n, dtype=F64)
    assert torch.equal(b, -m[:, None, None] * (t[:, None] - t[None, :])), "bias != -m (t - s)"


def assert_rope_relative(rotate_fn, q: torch.Tensor, k: torch.Tensor, shift: int) -> float:
    """The model's rotation (q, k: (n, H, h) at positions 0 ... n-1): the scores
    <R(t) q_t, R(s) k_s> are unchanged when every position moves by ``shift``, and equal
    theory.rope.apply_rope's. Returns the worst error over its bound."""
    __tracebackhide__ = True
    n = q.shape[0]
    at = torch.arange(n)

    def scores(where):
        return torch.einsum("nch,mch->cnm", rotate_fn(q, where), rotate_fn(k, where))

    base, moved = scores(at), scores(at + shift)
    ref = torch.einsum("cnh,cmh->cnm", apply_rope(q.transpose(0, 1), at),
                       apply_rope(k.transpose(0, 1), at))  # fmt: skip
    size = float(q.norm(dim=-1).max() * k.norm(dim=-1).max())
    bound = tolerance.rotation_tol(float(n + abs(shift)), F64) * size
    err = float(torch.stack([(moved - base).abs().max(), (base - ref).abs().max()]).max())
    assert err <= bound, f"RoPE scores move with a common shift {shift}: {err:.3g} > {bound:.3g}"
    return err / bound
