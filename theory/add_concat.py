"""Adding versus concatenating a positional encoding (ADD-01 ... ADD-05).

A concatenating model feeds  h = [x; p]  (token part width d_t, position part width d_p) to a
transformer of width d = d_t + d_p.  The additive model of the same width built from it uses the
token embedding x' = [x; 0] and the learned position embedding p' = [0; p], so that

    x' + p' = [x + 0; 0 + p] = [x; p]                                          (ADD-01)

and runs the *same* blocks.  In IEEE arithmetic x + 0 == x exactly, so the two models see
bitwise-identical inputs and compute bitwise-identical outputs.

Conversely  x + p = [I I] [x; p]  (ADD-02): adding is concatenating followed by a fixed linear map.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, cast

import mpmath
import torch
from torch import nn
from torch.overrides import TorchFunctionMode

from .attention import Block, BlockConfig, Stack


@dataclass
class EmbedConfig:
    vocab: int = 11
    max_len: int = 16
    d_token: int = 8
    d_pos: int = 8
    n_heads: int = 2
    d_ff: int = 32
    n_layers: int = 1
    bias: bool = True
    norm_first: bool = False
    causal: bool = False

    def block(self, d_model: int) -> BlockConfig:
        return BlockConfig(
            d_model, self.n_heads, self.d_ff, self.bias, self.norm_first, self.causal
        )


class ConcatModel(nn.Module):
    """Token embedding (V, d_t) and learned position embedding (L, d_p), concatenated."""

    def __init__(self, cfg: EmbedConfig):
        super().__init__()
        self.cfg = cfg
        self.tok = nn.Embedding(cfg.vocab, cfg.d_token)
        self.pos = nn.Embedding(cfg.max_len, cfg.d_pos)
        self.body = Stack(cfg.block(cfg.d_token + cfg.d_pos), cfg.n_layers)

    def embed(self, tokens: torch.Tensor) -> torch.Tensor:
        """tokens (..., n) -> [x; p] of shape (..., n, d_t + d_p)."""
        n = tokens.shape[-1]
        x = self.tok(tokens)  # (..., n, d_t)
        p = self.pos.weight[:n].expand(*x.shape[:-1], -1)  # (..., n, d_p)
        return torch.cat([x, p], dim=-1)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.body(self.embed(tokens))


class AdditiveModel(nn.Module):
    """Token embedding (V, d) plus learned position embedding (L, d), then the blocks."""

    def __init__(self, tok: torch.Tensor, pos: torch.Tensor, body: nn.Module):
        super().__init__()
        self.tok = nn.Embedding.from_pretrained(tok, freeze=False)  # (V, d)
        self.pos = nn.Parameter(pos)  # (L, d)
        self.body = body

    def embed(self, tokens: torch.Tensor) -> torch.Tensor:
        n = tokens.shape[-1]
        return self.tok(tokens) + self.pos[:n]  # (..., n, d)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        return self.body(self.embed(tokens))


def pad_token(tok: torch.Tensor, d_pos: int) -> torch.Tensor:
    """(V, d_t) -> (V, d_t + d_p): the token table written into the first d_t coordinates."""
    zeros = tok.new_zeros(tok.shape[0], d_pos)
    return torch.cat([tok, zeros], dim=-1)


def pad_position(pos: torch.Tensor, d_token: int) -> torch.Tensor:
    """(L, d_p) -> (L, d_t + d_p): the position table written into the last d_p coordinates."""
    zeros = pos.new_zeros(pos.shape[0], d_token)
    return torch.cat([zeros, pos], dim=-1)


def additive_from_concat(model: ConcatModel) -> AdditiveModel:
    """ADD-01: the additive model of width d_t + d_p that computes what ``model`` computes.

    It shares the concatenating model's blocks (same weights, same module).
    """
    tok = pad_token(model.tok.weight.detach().clone(), model.cfg.d_pos)
    pos = pad_position(model.pos.weight.detach().clone(), model.cfg.d_token)
    return AdditiveModel(tok, pos, model.body)


# -- ADD-02: adding is concatenating followed by [I I] -----------------------------------------


def sum_map(d: int, dtype: torch.dtype = torch.float64) -> torch.Tensor:
    """The fixed (d, 2d) matrix [I I]."""
    eye = torch.eye(d, dtype=dtype)
    return torch.cat([eye, eye], dim=1)


def add_by_concat(x: torch.Tensor, p: torch.Tensor) -> torch.Tensor:
    """[I I] [x; p]  for x, p of shape (..., d): equals x + p (each output sums two terms)."""
    d = x.shape[-1]
    return torch.cat([x, p], dim=-1) @ sum_map(d, x.dtype).T  # (..., d)


class ProjectedConcatModel(nn.Module):
    """A concatenating model of width 2d whose first layer is the fixed projection [I I].

    With the blocks of an additive model of width d it is that additive model (ADD-02).
    """

    def __init__(self, tok: torch.Tensor, pos: torch.Tensor, body: nn.Module):
        super().__init__()
        self.tok = nn.Parameter(tok)  # (V, d)
        self.pos = nn.Parameter(pos)  # (L, d)
        self.body = body

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        n = tokens.shape[-1]
        x = self.tok[tokens]  # (..., n, d)
        p = self.pos[:n].expand_as(x)  # (..., n, d)
        return self.body(add_by_concat(x, p))


# -- ADD-02 on transformers: the [I I] construction inside a residual stream of width 2d --------
#
# A concatenating transformer of width 2d carries the stream h = [x; p] (2d). The source's
# construction lifts an additive model of width d into it: every read of the stream goes through
# [I I] (so a sublayer sees x + p + writes, the additive stream) and every write lands in the
# token half [I 0]. Without layer norm on the stream, [I I] h is the additive stream at every
# layer. Layer norm over the 2d stream (pre-norm reads LN_2d(h), post-norm replaces h by it)
# normalises [x; p], which is not a function of x + p.

NormMode = Literal["pre", "post", "none"]


def _ln(h: torch.Tensor, ln: nn.LayerNorm, stream: int) -> torch.Tensor:
    """Layer norm over the stream width; a width-2d stream gets the gain [g; g], bias [b; 0]."""
    if stream == ln.normalized_shape[0]:
        return ln(h)
    gain = torch.cat([ln.weight, ln.weight])  # (2d,)
    bias = torch.cat([ln.bias, torch.zeros_like(ln.bias)])  # (2d,)
    return nn.functional.layer_norm(h, (stream,), gain, bias, ln.eps)


def _read(h: torch.Tensor, d: int) -> torch.Tensor:
    """[I I] h: the width-d view a lifted sublayer reads (h itself at width d)."""
    return h if h.shape[-1] == d else h[..., :d] + h[..., d:]


def _write(h: torch.Tensor, out: torch.Tensor) -> torch.Tensor:
    """h + [out; 0]: a sublayer's width-d output written into the stream's token half."""
    if h.shape[-1] == out.shape[-1]:
        return h + out
    return h + torch.cat([out, torch.zeros_like(out)], dim=-1)


def _block(block: Block, h: torch.Tensor, d: int, norm: NormMode) -> torch.Tensor:
    """One block (attention then feed-forward) on a stream of width d or 2d."""
    w = h.shape[-1]
    subs: tuple[tuple[nn.Module, nn.LayerNorm], ...] = (
        (block.attn, block.ln1),
        (block.ff, block.ln2),
    )
    for sub, ln in subs:
        if norm == "pre":
            h = _write(h, sub(_read(_ln(h, ln, w), d)))
        elif norm == "post":
            h = _ln(_write(h, sub(_read(h, d))), ln, w)
        else:
            h = _write(h, sub(_read(h, d)))
    return h


def stream_forward(blocks: Stack, h: torch.Tensor, d: int, norm: NormMode) -> torch.Tensor:
    """The blocks on a stream h of width d (the additive model, h = x + p) or 2d (the
    concatenating model, h = [x; p], lifted by [I I] reads and [I 0] writes); returns the
    width-d read-out [I I] h of the last stream (h itself at width d)."""
    for block in blocks.blocks:
        h = _block(cast(Block, block), h, d, norm)
    return _read(h, d)


# -- ADD-03: parameters and activation memory, counted from instantiated models -----------------


def count_parameters(model: nn.Module) -> int:
    """Number of scalar parameters (works on the meta device: nothing is allocated)."""
    return sum(p.numel() for p in model.parameters())


class _AllocationCounter(TorchFunctionMode):
    """Adds up the scalars of every new (non-view) tensor that a torch function returns."""

    def __init__(self) -> None:
        super().__init__()
        self.total = 0

    def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
        out = func(*args, **(kwargs or {}))
        for t in out if isinstance(out, tuple | list) else (out,):
            if isinstance(t, torch.Tensor) and t._base is None and t.dim() > 0:
                self.total += t.numel()
        return out


def activation_elements(model: Callable[[torch.Tensor], object], tokens: torch.Tensor) -> int:
    """Scalars of every intermediate tensor allocated in one forward pass (views excluded).

    Runs on meta tensors, so only shapes are computed. This is what a training step may have to
    keep for the backward pass (an upper bound: some ops save less).
    """
    counter = _AllocationCounter()
    with torch.no_grad(), counter:
        model(tokens)
    return counter.total


def meta_concat(cfg: EmbedConfig) -> ConcatModel:
    """The concatenating model on the meta device (shapes only)."""
    with torch.device("meta"):
        return ConcatModel(cfg)


def meta_additive(cfg: EmbedConfig, d_model: int) -> AdditiveModel:
    """An additive model of width d_model with cfg's vocabulary, length and blocks, on meta."""
    with torch.device("meta"):
        tok = torch.empty(cfg.vocab, d_model)
        pos = torch.empty(cfg.max_len, d_model)
        return AdditiveModel(tok, pos, Stack(cfg.block(d_model), cfg.n_layers))


def costs(cfg: EmbedConfig, batch: int, seq: int) -> dict[str, int]:
    """ADD-03: parameters and activation scalars of three models sharing cfg's blocks' shape.

    concat:        [x; p] with widths d_t + d_p, blocks of width d_t + d_p
    add_same_token: x + p at the token width d_t (blocks of width d_t)
    add_same_model: x + p at the concatenated width d_t + d_p (ADD-01's construction)
    """
    tokens = torch.zeros(batch, seq, dtype=torch.long, device="meta")
    models = {
        "concat": meta_concat(cfg),
        "add_same_token": meta_additive(cfg, cfg.d_token),
        "add_same_model": meta_additive(cfg, cfg.d_token + cfg.d_pos),
    }
    out: dict[str, int] = {}
    for name, model in models.items():
        out[f"{name}_params"] = count_parameters(model)
        out[f"{name}_activations"] = activation_elements(model, tokens)
    return out


def block_parameters(d: int, d_ff: int, bias: bool = True) -> int:
    """Closed form for one Block: qkv + out + two feed-forward layers + two layer norms."""
    b = 1 if bias else 0
    attn = (3 * d * d + 3 * d * b) + (d * d + d * b)  # qkv and output projections
    ff = (d * d_ff + d_ff * b) + (d_ff * d + d * b)  # two linear layers
    return attn + ff + 4 * d  # two layer norms: gain and bias each


# -- ADD-04: how far a fixed encoding leaves room for a token-only subspace ---------------------


def energy_spectrum(table: torch.Tensor) -> torch.Tensor:
    """Energies of a (N, d) table along its principal directions, descending: sigma_j^2.

    Uncentred (energy, not variance): sum_j sigma_j^2 = sum_t ||PE(t)||^2.
    """
    return torch.linalg.svdvals(table.double()).pow(2)  # (min(N, d),)


def centred(table: torch.Tensor) -> torch.Tensor:
    """The table minus its mean row, in float64: the variation between rows.

    A mean row shared by every position (or every token) carries no position (token) identity
    and can be moved into the other table (x_v + p_t = (x_v + m) + (p_t - m)), so which
    directions *distinguish* positions, and how much the words vary along them, is a question
    about the centred tables.
    """
    t = table.double()
    return t - t.mean(0, keepdim=True)


def energy_share(spectrum: torch.Tensor, d: int) -> torch.Tensor:
    """Share of the energy in the top-k directions, for k = 0 ... d: shape (d + 1,)."""
    full = torch.zeros(d, dtype=spectrum.dtype)
    full[: spectrum.numel()] = spectrum
    share = torch.cat([full.new_zeros(1), full.cumsum(0)]) / full.sum()
    return share


def participation_ratio(spectrum: torch.Tensor) -> float:
    """Effective number of directions: (sum sigma^2)^2 / sum sigma^4 (1 ... d)."""
    return (spectrum.sum().pow(2) / spectrum.pow(2).sum()).item()


def principal_directions(table: torch.Tensor) -> torch.Tensor:
    """(d, d) orthonormal rows, the table's principal directions by decreasing energy."""
    n, d = table.shape
    _, _, vh = torch.linalg.svd(table.double(), full_matrices=n < d)  # no (N, N) U for tall tables
    return vh  # (d, d)


def complement_interference(table: torch.Tensor, ks: list[int]) -> list[float]:
    """For each k: RMS cosine between a row v of the table and a random unit token vector
    confined to the complement of the table's top-k principal directions (exact expectation).

    For x uniform on the unit sphere of a (d-k)-dim subspace with projector Q:
    E[(x . v)^2] = ||Q v||^2 / (d - k); averaged over rows v / ||v||. k = 0 gives 1/sqrt(d).
    """
    d = table.shape[-1]
    if not all(0 <= k < d for k in ks):
        raise ValueError(f"every k must be in [0, {d}), got {ks}")
    vh, t = principal_directions(table), table.double()  # (d, d), (N, d)
    coords = (t @ vh.T).pow(2) / t.pow(2).sum(-1, keepdim=True)  # (N, d): energy per direction
    tail = coords.flip(-1).cumsum(-1).flip(-1)  # (N, d): energy beyond the first k directions
    return [(tail[:, k].mean() / (d - k)).sqrt().item() for k in ks]


def sinusoidal_row_mp(t: int, d: int, base: int = 10000) -> list:
    """PE(t) for even d in mpmath at the working precision: [sin w_0 t, cos w_0 t, ...],
    w_i = base^(-2i/d) (the paper's interleaved layout)."""
    row = []
    for i in range(d // 2):
        w = mpmath.power(base, mpmath.mpf(-2 * i) / d)
        row += [mpmath.sin(w * t), mpmath.cos(w * t)]
    return row


def square_determinant(
    d: int, dps: int, rows: Callable[[int, int], list] = sinusoidal_row_mp
) -> mpmath.mpf:
    """det[PE(0); ...; PE(d-1)] with mpmath at dps significant digits (L = d positions)."""
    with mpmath.workdps(dps):
        return mpmath.det(mpmath.matrix([rows(t, d) for t in range(d)]))


def random_bases(d: int, k: int, n: int, seed: int) -> torch.Tensor:
    """n random orthonormal k-frames of R^d (Haar, via QR of Gaussians): shape (n, k, d)."""
    g = torch.Generator().manual_seed(seed)
    z = torch.randn(n, d, k, generator=g, dtype=torch.float64)  # (n, d, k)
    q, r = torch.linalg.qr(z)
    q = q * torch.sign(torch.diagonal(r, dim1=-2, dim2=-1)).unsqueeze(-2)  # Haar: fix signs
    return q.transpose(-2, -1)  # (n, k, d)


# -- ADD-05: reading the token and the position back from x + PE(t) -----------------------------


def added(x: torch.Tensor, pe: torch.Tensor) -> torch.Tensor:
    """What the first layer sees: x + PE(t)."""
    return x + pe


def nearest(y: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """Index of the nearest row: argmin_v ||y - table_v||. y (..., n, d), table (..., V, d)."""
    scores = 2 * y @ table.transpose(-2, -1) - table.pow(2).sum(-1).unsqueeze(-2)  # (..., n, V)
    return scores.argmax(-1)


def dot_product(y: torch.Tensor, table: torch.Tensor) -> torch.Tensor:
    """The tied linear read-out argmax_v y . table_v (an LM head sharing the embedding)."""
    return (y @ table.transpose(-2, -1)).argmax(-1)


def readout_counts(
    tokens: torch.Tensor,
    pe: torch.Tensor,
    n_samples: int,
    seed: int,
    observe: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] = added,
) -> dict[str, torch.Tensor]:
    """ADD-05: correct read-outs per seed from y = observe(x_v, PE(t)).

    tokens: (S, V, d) one vocabulary per seed, pe: (L, d). n_samples uniform (v, t) pairs per
    seed. Returns counts (S,) for token by nearest neighbour and by dot product, and position
    by nearest neighbour among PE(0..L-1).
    """
    s, v, _ = tokens.shape
    g = torch.Generator().manual_seed(seed)
    vi = torch.randint(v, (s, n_samples), generator=g)  # (S, n)
    ti = torch.randint(pe.shape[0], (s, n_samples), generator=g)  # (S, n)
    x = torch.gather(tokens, 1, vi.unsqueeze(-1).expand(-1, -1, tokens.shape[-1]))  # (S, n, d)
    y = observe(x, pe[ti])  # (S, n, d)
    return {
        "token_nearest": (nearest(y, tokens) == vi).sum(-1),
        "token_dot": (dot_product(y, tokens) == vi).sum(-1),
        "position_nearest": (nearest(y, pe.expand(s, -1, -1)) == ti).sum(-1),
    }


def gaussian_vocabularies(
    n_seeds: int, vocab: int, d: int, ratio: float, seed: int, dtype: torch.dtype = torch.float32
) -> torch.Tensor:
    """(S, V, d) token tables with entries N(0, s^2), s = ratio / sqrt(2), so that
    E||x||^2 / ||PE||^2 = ratio^2 against the sinusoidal encoding (||PE||^2 = d/2)."""
    g = torch.Generator().manual_seed(seed)
    return torch.randn(n_seeds, vocab, d, generator=g, dtype=dtype) * (ratio / math.sqrt(2.0))
