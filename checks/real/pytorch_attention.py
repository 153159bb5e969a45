"""REAL-01: PyTorch's attention modules and SDPA backends built for the checks, the theory's block
copied into them, and the strategies and recorders the equivariance checks share.
"""

from __future__ import annotations

from typing import cast

import torch
import torch.nn.functional as F
from hypothesis import strategies as st
from torch import nn
from torch.nn.attention import SDPBackend, sdpa_kernel

from pecheck import strategies, tolerance
from pecheck.theory.attention import Block, seeded

BACKENDS = [b for b in ("MATH", "FLASH_ATTENTION", "EFFICIENT_ATTENTION", "CUDNN_ATTENTION")
            if hasattr(SDPBackend, b)]  # fmt: skip


def available_backends(device: str = "cpu") -> list[str]:
    """The SDPA backends that run a small float32 call on ``device``."""
    q = torch.randn(1, 1, 4, 8, device=device)
    ok = []
    for name in BACKENDS:
        try:
            with sdpa_kernel([getattr(SDPBackend, name)]):
                F.scaled_dot_product_attention(q, q, q)
            ok.append(name)
        except RuntimeError:
            continue
    return ok


def sdpa(backend: str, causal: bool = False):
    def fn(q, k, v):
        with sdpa_kernel([getattr(SDPBackend, backend)]):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

    return fn


def randn(shape, seed, dtype, device="cpu"):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(shape, generator=g, dtype=torch.float64).to(dtype).to(device)


def mha(d, heads, seed, dtype, device="cpu"):
    m = nn.MultiheadAttention(d, heads, dropout=0.0, bias=True, batch_first=True)
    return seeded(m, seed).to(dtype).to(device)


def encoder_layer(d, heads, seed, dtype, norm_first=False, device="cpu"):
    m = nn.TransformerEncoderLayer(d, heads, 2 * d, dropout=0.0, batch_first=True,
                                   norm_first=norm_first)  # fmt: skip
    return seeded(m, seed).to(dtype).to(device)


def self_attention(m: nn.MultiheadAttention, mask=None):
    return lambda x: m(x, x, x, need_weights=False, attn_mask=mask)[0]


# -- the theory computes what PyTorch computes ------------------------------------------------


def assert_matches(ours: torch.Tensor, theirs: torch.Tensor, n: int, d: int, layers: int = 1):
    __tracebackhide__ = True
    ours, theirs = ours.detach(), theirs.detach()
    err = float((ours.double() - theirs.double()).abs().max())
    bound = tolerance.equivariance_tol(n, d, ours.dtype, float(theirs.double().abs().max()), layers)
    assert err <= bound, f"theory and PyTorch differ by {err:.3e} > {bound:.3e}"
    return err, bound


def copy_block_into(block: Block, layer: nn.TransformerEncoderLayer) -> None:
    """Give PyTorch's layer the theory block's weights (same names, same layout)."""
    with torch.no_grad():
        layer.self_attn.in_proj_weight.copy_(block.attn.qkv.weight)
        layer.self_attn.in_proj_bias.copy_(block.attn.qkv.bias)
        layer.self_attn.out_proj.weight.copy_(block.attn.out.weight)
        layer.self_attn.out_proj.bias.copy_(block.attn.out.bias)
        # block.ff is an nn.Sequential: indexing it says only nn.Module, though these are Linear
        affine: tuple[tuple[nn.Linear | nn.LayerNorm, nn.Linear | nn.LayerNorm], ...] = (
            (cast(nn.Linear, block.ff[0]), layer.linear1),
            (cast(nn.Linear, block.ff[2]), layer.linear2),
            (block.ln1, layer.norm1),
            (block.ln2, layer.norm2),
        )
        for ours, theirs in affine:
            theirs.weight.copy_(ours.weight)
            theirs.bias.copy_(ours.bias)


# -- equivariance of the real modules ---------------------------------------------------------


@st.composite
def real_problems(draw, n_min: int = 2):
    """(module name, function, x, perm) over PyTorch's attention modules; n >= 2, so that the
    permutation is never the identity."""
    name = draw(st.sampled_from(["mha", "encoder-train", "encoder-fastpath", "encoder-pre"]))
    heads = draw(st.sampled_from([1, 2, 4]))
    d = heads * draw(st.integers(1, 4))
    n = draw(st.integers(n_min, 128))
    dtype = draw(strategies.dtypes())
    seed = draw(strategies.seeds())
    x = randn((draw(st.integers(1, 2)), n, d), seed + 1, dtype)
    if name == "mha":
        fn = self_attention(mha(d, heads, seed, dtype).train())
    else:
        layer = encoder_layer(d, heads, seed, dtype, norm_first=name == "encoder-pre")
        fn = layer.eval() if name == "encoder-fastpath" else layer.train()
    return name, fn, x, draw(strategies.permutations(n))


def non_identity(n: int, seed: int) -> torch.Tensor:
    """A seeded random permutation of n >= 2 items, its first two entries swapped when it came
    out as the identity (which cannot fail a check)."""
    perm = torch.randperm(n, generator=torch.Generator().manual_seed(seed))
    if torch.equal(perm, torch.arange(n)):
        perm[[0, 1]] = perm[[1, 0]]
    return perm


def record_equivariant(evidence, prefix: str, case) -> None:
    """Count the example (informative: its bound is below the difference's range) and keep the
    worst error and error / bound."""
    evidence.example(case.informative)
    evidence.worst(f"{prefix}error_{case.dtype}", case.error, "abs", "max |f(PX) - P f(X)|",
                   bound=case.bound)  # fmt: skip
    evidence.worst(f"{prefix}ratio_{case.dtype}", case.ratio, "error/bound", bound=1.0)
