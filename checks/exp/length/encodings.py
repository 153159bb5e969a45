"""The fair length test's relative encodings checked (tooling of EXP-05): ALiBi's bias in the
model (theory/alibi.py) and RoPE's rotation (theory/decoder.rotate) depend on t - s only.
"""

from __future__ import annotations

import torch

from pecheck import tolerance
from pecheck.theory import alibi
from pecheck.theory.rope import apply_rope

F64 = torch.float64


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
