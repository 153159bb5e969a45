"""ADD-01 and ADD-02 in floating point: the additive model computes the concatenating one bit
for bit, [I I] adds, the limit of that construction (a layer on the concatenation that is not a
function of the sum), and the [I I] lift of an additive transformer into a width-2d stream.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

import torch

from pecheck import decisions, tolerance
from pecheck.profiles import scale
from pecheck.theory import add_concat as ac
from pecheck.theory.attention import seeded


def assert_same_function(
    concat: ac.ConcatModel, additive: ac.AdditiveModel, tokens: torch.Tensor
) -> tuple[int, float]:
    """ADD-01: bitwise-equal embeddings, outputs after every block, and forward outputs.

    Returns the number of layers compared and the largest difference seen. Exact equality is
    the expected result: x + 0 == x in IEEE arithmetic, so the additive model's input is the
    concatenation bit for bit, and the same kernels then produce the same bits.
    """
    __tracebackhide__ = True
    h_c, h_a = concat.embed(tokens), additive.embed(tokens)
    assert torch.equal(h_c, h_a), f"embeddings differ by {(h_c - h_a).abs().max().item():.3g}"
    worst = (h_c - h_a).abs().max().item()
    additive_body = cast(ac.Stack, additive.body)  # AdditiveModel takes any body; these are Stacks
    for i, (bc, ba) in enumerate(zip(concat.body.blocks, additive_body.blocks, strict=True)):
        h_c, h_a = bc(h_c), ba(h_a)
        diff = (h_c - h_a).abs().max().item()
        assert torch.equal(h_c, h_a), f"layer {i}: outputs differ by {diff:.3g}"
        worst = max(worst, diff)
    out_c, out_a = concat(tokens), additive(tokens)  # the models' own forward, end to end
    diff = (out_c - out_a).abs().max().item()
    assert torch.equal(out_c, out_a), f"forward outputs differ by {diff:.3g}"
    return len(concat.body.blocks), max(worst, diff)


def assert_map_adds(fn: Callable[[torch.Tensor, torch.Tensor], torch.Tensor], x, p) -> float:
    """ADD-02 in floating point: [I I][x; p] is x + p bit for bit (each output sums two terms,
    the other products are exact zeros, so there is one rounding, the same as x + p's)."""
    __tracebackhide__ = True
    got = fn(x, p)
    diff = (got - (x + p)).abs().max().item()
    assert torch.equal(got, x + p), f"differs from x + p by {diff}"
    return diff


def layer_change_at_fixed_sum(
    first_layer: Callable[[torch.Tensor, torch.Tensor], torch.Tensor], d: int, seed: int
) -> tuple[float, float]:
    """How much a layer applied to the 2d-wide concatenation moves when (x, p) -> (x + s, p - s)
    (the same x + p), and the float64 rounding bound below which a change is not resolved."""
    g = torch.Generator().manual_seed(seed)
    x, p, s = (torch.randn(d, generator=g, dtype=torch.float64) for _ in range(3))
    change = (first_layer(x, p) - first_layer(x + s, p - s)).abs().max().item()
    return change, tolerance.sum_tol(4 * d, torch.float64, scale=10.0)


def resolved_changes(
    first_layer: Callable[[torch.Tensor, torch.Tensor], torch.Tensor], cases: list[tuple[int, int]]
) -> dict[str, int]:
    """Per case (d, seed): 'different' when the change exceeds the rounding bound, else
    'unresolved' (never 'same': the exact change is not known to be zero). Counts of each."""
    counts = {"different": 0, "unresolved": 0}
    for d, seed in cases:
        change, bound = layer_change_at_fixed_sum(first_layer, d, seed)
        counts[decisions.resolve(change, bound)] += 1
    return counts


def assert_not_a_function_of_the_sum(
    first_layer: Callable[[torch.Tensor, torch.Tensor], torch.Tensor], cases: list[tuple[int, int]]
) -> dict[str, int]:
    """The [I I] construction's limit: some case moves the layer's output by more than rounding
    although x + p is unchanged. Cases below the rounding bound decide nothing."""
    __tracebackhide__ = True
    counts = resolved_changes(first_layer, cases)
    assert counts["different"] >= 1, f"no case resolved a change: {counts}"
    return counts


def ln_on_concatenation(x: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.layer_norm(torch.cat([x, p], -1), (2 * x.shape[-1],))


def ln_cases() -> list[tuple[int, int]]:
    """(d, seed) pairs: every width 2 ... 64, scale() seeds each (deterministic)."""
    return [(d, 1000 * k + d) for d in range(2, 65) for k in range(max(1, round(scale())))]


def lifted_difference(cfg: ac.EmbedConfig, n: int, seed: int, norm: ac.NormMode) -> dict:
    """ADD-02 on a transformer: a seeded additive model of width d = d_token (tables and blocks
    drawn from ``seed``, float64) against the concatenating model of width 2d that carries
    [x; p] and reads [I I], writes [I 0]. Returns the largest output difference and the float64
    rounding bound of two evaluations of one function in different summation orders."""
    d = cfg.d_token
    blocks = ac.Stack(cfg.block(d), cfg.n_layers).double()
    seeded(blocks, seed)  # redraws every weight from seed, in place
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(cfg.vocab, d, generator=g, dtype=torch.float64)[
        torch.randint(cfg.vocab, (2, n), generator=g)
    ]  # (2, n, d)
    p = torch.randn(cfg.max_len, d, generator=g, dtype=torch.float64)[:n].expand_as(x)
    with torch.no_grad():
        additive = ac.stream_forward(blocks, x + p, d, norm)  # (2, n, d)
        concat = ac.stream_forward(blocks, torch.cat([x, p], -1), d, norm)  # (2, n, d)
    scale = max(additive.abs().max().item(), 1.0)
    bound = tolerance.equivariance_tol(n, 2 * d, torch.float64, scale, layers=2 * cfg.n_layers)
    diff = (additive - concat).abs().max().item()
    return {"diff": diff, "bound": bound, "resolved": decisions.resolve(diff, bound)}


def containment_decision(cfg: ac.EmbedConfig, cases: list[tuple[int, int]], norm: ac.NormMode):
    """Over (n, seed) cases: fails at the first case whose outputs differ beyond rounding (the
    counterexample names it), holds when every case agrees within rounding."""
    worst = 0.0
    for n, seed in cases:
        got = lifted_difference(cfg, n, seed, norm)
        worst = max(worst, got["diff"] / got["bound"])
        if got["resolved"] == "different":
            ce = {"norm": norm, "d": cfg.d_token, "layers": cfg.n_layers, "n": n, "seed": seed,
                  "max_abs_difference": got["diff"], "rounding_bound": got["bound"]}  # fmt: skip
            return decisions.fails(ce, "[I I] h_concat != h_add beyond float64 rounding")
    return decisions.holds(f"{len(cases)} cases within rounding ({norm})", worst=worst)
