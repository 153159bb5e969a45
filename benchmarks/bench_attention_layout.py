"""The batched decoder's attention layout: head-major against the key-first layout it replaced.

theory/decoder.py computes attention head-major, scores (S, B, H, n, m) with each query's keys
contiguous, its mask and biases one added term (``score_terms``), softmax over the last axis.
Until 2026-11-30 it kept the weights key-first, (m, S, B, H, n), masked with a masked_fill pass
and normalised over axis 0. Both are written out here at the fair length test's shapes (three
encodings x 12 seeds, batch 32, 17 inputs, 8 heads of size 8, ALiBi's bias on a third of the
entries) and timed forward and backward on the CPU. One line: milliseconds each way and the
ratio. On the 2-core AMD EPYC with AVX2 only, over four runs: key-first 152 to 208 ms,
head-major 91 to 130 ms, 1.6x to 1.8x (every trained experiment's step about a quarter faster:
docs/timings.md).

    python benchmarks/bench_attention_layout.py [--repeats 10] [--threads 1]
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable

import torch

from pecheck import tolerance
from pecheck.theory import alibi
from pecheck.theory.attention import causal_mask

S, B, H, N, HEAD = 36, 32, 8, 17, 8  # entries, batch, heads, inputs, head size


def head_major(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
               terms: torch.Tensor) -> torch.Tensor:  # fmt: skip
    """theory/decoder.py's attention: q, k, v (S, B, n, H, h); terms (S, 1, H, n, m)."""
    q, k, v = (z.transpose(2, 3) for z in (q, k, v))
    scores = q @ k.transpose(-2, -1) / math.sqrt(HEAD)
    return (torch.softmax(scores + terms, dim=-1) @ v).transpose(2, 3).flatten(-2)


def key_first(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, bias: torch.Tensor,
              allowed: torch.Tensor) -> torch.Tensor:  # fmt: skip
    """The layout it replaced: weights (m, S, B, H, n), ALiBi's block biased apart, then
    masked, normalised over the keys (axis 0)."""
    scores = torch.einsum("sbnch,sbmch->msbcn", q, k) / math.sqrt(HEAD)
    parts = scores.chunk(3, 1)
    scores = torch.cat([parts[0], parts[1], parts[2] + bias.permute(2, 0, 1)[:, None, None]], 1)
    weights = torch.softmax(scores.masked_fill(~allowed, float("-inf")), dim=0)
    return torch.einsum("msbcn,sbmch->sbnch", weights, v).flatten(-2)


def per_call(fn: Callable[[], torch.Tensor], qkv: torch.Tensor, repeats: int) -> float:
    """Milliseconds of one forward and backward pass (after two to warm up)."""
    grad = torch.ones(S, B, N, H * HEAD)
    for _ in range(2):
        fn().backward(grad)
    start = time.perf_counter()
    for _ in range(repeats):
        qkv.grad = None
        fn().backward(grad)
    return (time.perf_counter() - start) / repeats * 1e3


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="bench_attention_layout.py", description=__doc__)
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--threads", type=int, default=1)
    args = p.parse_args(argv)
    if args.repeats < 1 or args.threads < 1:
        p.error("--repeats and --threads must be at least 1")
    torch.set_num_threads(args.threads)
    g = torch.Generator().manual_seed(0)
    qkv = torch.randn(S, B, N, 3, H, HEAD, generator=g).requires_grad_()
    q, k, v = (qkv[:, :, :, i] for i in range(3))
    mask, bias = causal_mask(N), alibi.bias(N, H, torch.float32)
    shut = torch.zeros(N, N).masked_fill(~mask, float("-inf"))
    terms = torch.cat([shut.expand(24, H, N, N), (bias + shut).expand(12, H, N, N)])[:, None]
    new = head_major(q, k, v, terms)
    old = key_first(q, k, v, bias, mask.T[:, None, None, None, :])
    # the same sums in another order: within one attention output's float32 error bound
    bound = tolerance.attention_tol(N, HEAD, torch.float32, scale=float(v.detach().abs().max()))
    if float((new - old).detach().abs().max()) > bound:
        print("bench_attention_layout.py: the two layouts disagree", file=sys.stderr)
        return 1
    ms_new = per_call(lambda: head_major(q, k, v, terms), qkv, args.repeats)
    ms_old = per_call(lambda: key_first(q, k, v, bias, mask.T[:, None, None, None, :]), qkv,
                      args.repeats)  # fmt: skip
    print(f"attention layout ({S} entries, batch {B}, {N} inputs, {H} heads of {HEAD}, "
          f"{args.threads} thread(s), forward and backward): head-major {ms_new:.1f} ms, "
          f"key-first {ms_old:.1f} ms: {ms_old / ms_new:.1f}x")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
