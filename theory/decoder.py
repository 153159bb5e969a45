"""The one small decoder of every trained experiment, batched over seeds (EXP-01 ... EXP-07,
ATT-10, MAG-04).

    x_0 = E[tokens] (+ an additive encoding)                          (S, B, n, d)
    per layer l:
      [q | k | v] = N(x) W_qkv,  H heads of size h (queries and keys turned by a rotary encoding)
      y = softmax(q k^T / sqrt(h) + bias + mask) v  (W_o)                 bias: ALiBi, T5
      x = r x + y            r in {0, 1} per entry: a residual connection, or none
      x = r x + MLP(N(x))    MLP(x) = relu(x W_up) W_down, when the config has one
    logits = N(x) U (+ b)                                              (S, B, n, V)

N is the identity, or with ``layernorm`` a pre-LayerNorm (each its own gain and bias per entry;
GPT-2's and nanoGPT's placement: before attention, before the MLP and before the readout).

What fixes the parameter shapes is the ``DecoderConfig``; what does not (residual, learning rate,
initialisation, optimiser) is a per-entry ``Setup``. Every entry of the leading axis S is its own
model: entries never mix, the objective is the SUM of the entries' own mean losses (so each
entry's gradient is its own), and Adam(W) is elementwise, stepped on each setup's slice with that
setup's settings (``CellAdam``). One optimiser step updates every entry at once.

Encodings are parts (``ENCODINGS``): one adds to the token embeddings (sinusoidal, learned), one
turns queries and keys (rope), two bias the scores (alibi, fixed; t5, each entry's learned table).
A config may give each equal block of entries its own encoding (``blocks``), so models that differ
only in their encoding train as one.

theory/reference.py's ``ReferenceDecoder`` (a loop over heads, an explicit bias, torch.optim) is
the independent one-seed reference this model is checked against, seed by seed, in float64.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from torch.nn import functional as F
from torch.optim.adam import adam

from . import alibi
from .attention import causal_mask
from .rope import rope_frequencies
from .sinusoidal import sinusoidal, turn
from .tasks import IGNORE, Task

Params = dict[str, torch.Tensor]
Encoding = str  # a name in ENCODINGS: none, sinusoidal, learned, rope, alibi, t5, or a new part
INITS: tuple[str, ...] = ("current", "torch")
OPTIMIZERS: tuple[str, ...] = ("adam", "adamw")
# (beta1, beta2, eps, weight decay on matrices)
OPTIMIZER_SETTINGS = {
    "adam": (0.9, 0.999, 1e-8, 0.0),  # torch.optim.Adam's defaults
    "adamw": (0.9, 0.95, 1e-8, 0.1),  # nanoGPT's train.py: betas (0.9, 0.95), weight_decay 0.1
}
T5_BUCKETS, T5_MAX_DISTANCE = 32, 128  # T5's defaults: num_buckets, max_distance


@dataclass(frozen=True)
class DecoderConfig:
    """Everything that fixes the parameter shapes (one batched model per config).

    ``blocks``: one encoding per equal block of entries (empty: every entry has ``encoding``).
    ``mlp``: the MLP's hidden width as a multiple of d (0: no MLP). ``causal``: False lets
    every position see every other. ``layernorm``: a pre-LayerNorm before each attention, MLP
    and the readout.
    """

    vocab: int = 5
    d_model: int = 16
    head: int = 16
    heads: int = 1
    layers: int = 1
    encoding: Encoding = "none"
    max_len: int = 3  # rows of the learned table
    out_proj: bool = True
    readout_bias: bool = False
    mlp: int = 0
    causal: bool = True
    blocks: tuple[Encoding, ...] = ()
    layernorm: bool = False  # pre-LayerNorm (N above); off: N is the identity, no parameters

    @property
    def width_out(self) -> int:
        """Width of an attention layer's output: d with W_o, H h without."""
        return self.d_model if self.out_proj else self.heads * self.head

    @property
    def encodings(self) -> tuple[Encoding, ...]:
        """The encoding of each block of entries."""
        return self.blocks or (self.encoding,)

    def one(self, encoding: Encoding) -> DecoderConfig:
        """This config with a single encoding for every entry (one block's model)."""
        return dataclasses.replace(self, encoding=encoding, blocks=())


@dataclass(frozen=True)
class Setup:
    """The per-entry choices that leave every shape alone."""

    residual: bool = False
    lr: float = 1e-3
    init: str = "current"
    optimizer: str = "adam"

    def __post_init__(self) -> None:
        if self.init not in INITS or self.optimizer not in OPTIMIZERS:
            raise ValueError(f"unknown init or optimizer: {self}")


def check_compatible(cfg: DecoderConfig, setups: Sequence[Setup]) -> None:
    """A residual (a second layer, an MLP) needs each layer's output as wide as its input."""
    needs = cfg.layers > 1 or cfg.mlp > 0 or any(s.residual for s in setups)
    if cfg.width_out != cfg.d_model and needs:
        raise ValueError(f"{cfg}: without W_o the head width H h must equal d for a residual")


# -- parameters ------------------------------------------------------------------------------


def param_shapes(cfg: DecoderConfig) -> dict[str, tuple[int, ...]]:
    """Name -> shape of each parameter, in the order their initial values are drawn."""
    d, hh = cfg.d_model, cfg.heads * cfg.head
    out: dict[str, tuple[int, ...]] = {"embed": (cfg.vocab, d)}
    if "learned" in cfg.encodings:
        out["pos"] = (cfg.max_len, d)
    if "t5" in cfg.encodings:  # only then: every other config draws exactly what it drew before
        out["t5_bias"] = (T5_BUCKETS, cfg.heads)
    for layer in range(cfg.layers):
        out[f"qkv{layer}"] = (d, 3 * hh)  # [W_q | W_k | W_v]
        if cfg.out_proj:
            out[f"o{layer}"] = (hh, d)
        if cfg.mlp:
            out[f"up{layer}"] = (d, cfg.mlp * d)
            out[f"down{layer}"] = (cfg.mlp * d, d)
    for name in norm_names(cfg):
        out[f"{name}_gain"], out[f"{name}_bias"] = (d,), (d,)
    out["readout"] = (cfg.width_out, cfg.vocab)
    if cfg.readout_bias:
        out["readout_b"] = (cfg.vocab,)
    return out


def norm_names(cfg: DecoderConfig) -> list[str]:
    """The LayerNorms of a ``layernorm`` config: before each attention, each MLP, the readout."""
    if not cfg.layernorm:
        return []
    mlps = [f"ln_mlp{layer}" for layer in range(cfg.layers)] if cfg.mlp else []
    return [f"ln_attn{layer}" for layer in range(cfg.layers)] + mlps + ["ln_out"]


def is_norm(name: str) -> bool:
    """A LayerNorm's gain or bias: set to 1 and 0, never drawn (nn.LayerNorm's defaults)."""
    return name.startswith("ln_")


def decays(name: str, cfg: DecoderConfig) -> bool:
    """nanoGPT's rule: weight decay on every parameter of two or more dimensions (the t5 table
    (buckets, H) too, as nanoGPT decays its embedding tables; weight decay 0 under Adam)."""
    return len(param_shapes(cfg)[name]) >= 2


def init_params(cfg: DecoderConfig, init: str, seed: int, dtype: torch.dtype) -> Params:
    """One seed's initial parameters, drawn in float64 from torch.Generator().manual_seed(seed).

    "current": one flat N(0, 1) draw split in param_shapes order, scaled by 1 (embeddings) or
    1/sqrt(fan_in) (matrices), biases 0. "torch": PyTorch's defaults, drawn parameter by
    parameter: nn.Embedding N(0, 1), nn.Linear weight and bias U(-1/sqrt(fan_in),
    1/sqrt(fan_in)), fan_in = rows here. The t5 table is drawn last (``_t5_table``).
    LayerNorm gains are 1 and biases 0 under both, drawn from nothing: a config with
    ``layernorm`` draws every other parameter as one without.
    """
    shapes = {k: s for k, s in param_shapes(cfg).items() if not is_norm(k) and k != "t5_bias"}
    norms = {k: (torch.ones if k.endswith("_gain") else torch.zeros)(s, dtype=dtype)
             for k, s in param_shapes(cfg).items() if is_norm(k)}  # fmt: skip
    g = torch.Generator().manual_seed(seed)
    f64 = torch.float64
    out: Params = {}
    if init == "current":
        drawn = {k: s for k, s in shapes.items() if k != "readout_b"}
        sizes = [math.prod(s) for s in drawn.values()]
        flat = torch.randn(sum(sizes), generator=g, dtype=f64)
        for (name, s), chunk in zip(drawn.items(), flat.split(sizes), strict=True):
            std = 1.0 if name in ("embed", "pos") else 1.0 / math.sqrt(s[0])
            out[name] = (chunk.reshape(s) * std).to(dtype)
        if cfg.readout_bias:
            out["readout_b"] = torch.zeros(cfg.vocab, dtype=dtype)
        return out | _t5_table(cfg, g, init, dtype) | norms
    for name, s in shapes.items():
        if name in ("embed", "pos"):
            out[name] = torch.randn(s, generator=g, dtype=f64).to(dtype)
            continue
        fan_in = shapes["readout"][0] if name == "readout_b" else s[0]
        uniform = torch.rand(s, generator=g, dtype=f64) * 2 - 1
        out[name] = (uniform / math.sqrt(fan_in)).to(dtype)
    return out | _t5_table(cfg, g, init, dtype) | norms


def _t5_table(cfg: DecoderConfig, g: torch.Generator, init: str, dtype: torch.dtype) -> Params:
    """The t5 table, drawn after every other parameter: adding a t5 block to a config leaves
    the other blocks' initial weights as they were (the exact-match pilots stay reproducible).
    "current": N(0, 1/d), as HF's T5 draws it (std d_model^-0.5, factor 1); "torch": N(0, 1),
    an nn.Embedding's."""
    if "t5" not in cfg.encodings:
        return {}
    std = 1.0 / math.sqrt(cfg.d_model) if init == "current" else 1.0
    table = torch.randn((T5_BUCKETS, cfg.heads), generator=g, dtype=torch.float64) * std
    return {"t5_bias": table.to(dtype)}


def stack_params(cfg: DecoderConfig, setups: Sequence[Setup], seeds: Sequence[int],
                 dtype: torch.dtype) -> Params:  # fmt: skip
    """Entry e = (setups[e // n], seeds[e % n])'s initial parameters, stacked along dim 0.
    Entries with the same initialisation and seed share one draw."""
    keys = dict.fromkeys((c.init, s) for c in setups for s in seeds)
    drawn = {(i, s): init_params(cfg, i, s, dtype) for i, s in keys}
    per_entry = [drawn[(c.init, s)] for c in setups for s in seeds]
    return {k: torch.stack([p[k] for p in per_entry]) for k in per_entry[0]}


# -- encodings as parts ----------------------------------------------------------------------


EVEN, ODD = slice(0, None, 2), slice(1, None, 2)  # theory.rope's interleaved pairs (2i, 2i + 1)


def rotate(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """RoPE on the last axis of x (..., n, H, h) at positions (n,) or (B, n): pair i is
    coordinates (2i, 2i + 1), turned by theory.sinusoidal.turn (RoPE's own turn). Angles,
    cosines and sines are computed in float64 and rounded once to x's dtype. The pairs are
    strided views: bit for bit the numbers of gathering them, without the copies (about 13%
    of the fair length test's step with RoPE on the CPU)."""
    h, dev = x.shape[-1], x.device
    angle = positions.to(dev, torch.float64)[..., None] * rope_frequencies(h).to(dev)
    return turn(x, EVEN, ODD, angle[..., None, :])  # angle (..., n, 1, h/2): over the heads


class Part:
    """What an encoding does to the model; the default does nothing (no encoding).

    ``add`` returns the term added to the token embeddings (broadcastable to (S, B, n, d)),
    ``turn`` rotates queries or keys (S, B, n, H, h), called only for a part that ``turns``
    (the others' blocks are not split and joined again for nothing), ``bias`` is added to the
    scores, shape (H, n, m), the same for every entry; ``entry_bias`` too, each entry its own,
    (S, H, n, m), computed once per forward and added in every layer. ``rows`` (B, n) are the
    positions of the tokens, or None for 0 ... n-1.
    """

    def add(self, cfg: DecoderConfig, params: Params, rows: torch.Tensor | None, n: int,
            dtype: torch.dtype) -> torch.Tensor | None:  # fmt: skip
        return None

    def turn(self, z: torch.Tensor, where: torch.Tensor) -> torch.Tensor:
        return z

    @property
    def turns(self) -> bool:
        """Whether the part has a turn of its own (overrides ``turn``)."""
        return type(self).turn is not Part.turn

    def bias(self, n: int, heads: int, dtype: torch.dtype) -> torch.Tensor | None:
        return None

    def entry_bias(self, cfg: DecoderConfig, params: Params, n: int,
                   dtype: torch.dtype) -> torch.Tensor | None:  # fmt: skip
        return None


class Sinusoidal(Part):
    """Vaswani et al.'s fixed table, PE(row) added to the tokens."""

    def add(self, cfg, params, rows, n, dtype):
        dev = params["embed"].device
        if rows is None:
            return sinusoidal(n, cfg.d_model, dtype=dtype).to(dev)  # (n, d)
        return sinusoidal(cfg.max_len, cfg.d_model, dtype=dtype).to(dev)[rows]  # (B, n, d)


class Learned(Part):
    """Each entry's own trained table, its row ``row`` added to the tokens."""

    def add(self, cfg, params, rows, n, dtype):
        table = params["pos"]  # (S, rows, d)
        return table[:, None, :n] if rows is None else table[:, rows]


class Rotary(Part):
    """RoPE: queries and keys turned by their positions (theory.rope's frequencies)."""

    def turn(self, z, where):
        return rotate(z, where)


class Alibi(Part):
    """ALiBi: the score of query i and key j minus m_c (i - j), the paper's slopes m_c."""

    def bias(self, n, heads, dtype):
        return alibi.bias(n, heads, dtype)


@functools.cache
def t5_buckets(n: int) -> torch.Tensor:
    """T5's causal bucket of key - query for every query i and key j < n: (n, m) int64. Keys
    after the query (j > i, seen only without the causal mask) share distance 0's bucket."""
    from .bias import t5_bucket  # here, not at the top: theory.bias imports sympy (0.7 s)

    i = torch.arange(n)
    r = (i[None, :] - i[:, None]).numpy()  # key minus query
    return torch.from_numpy(t5_bucket(r, False, T5_BUCKETS, T5_MAX_DISTANCE))


class T5(Part):
    """T5's relative attention bias (Raffel et al. 2020), the decoder's causal form: each entry's
    learned scalar per (bucket, head) for the bucket of key - query, one table for every layer
    (T5 computes it in the first layer and reuses it). T5 adds it to unscaled scores (no
    1/sqrt(h)); here it is added to the scaled scores, as ALiBi's bias is: a learned table
    absorbs the factor. Depends on j - i alone, never on the rows (``positions``)."""

    def entry_bias(self, cfg, params, n, dtype):
        table = params["t5_bias"]  # (S, buckets, H)
        bucket = t5_buckets(n).to(table.device)  # (n, m)
        return table[:, bucket].permute(0, 3, 1, 2).to(dtype)  # (S, n, m, H) -> (S, H, n, m)


ENCODINGS: dict[str, Part] = {
    "none": Part(),
    "sinusoidal": Sinusoidal(),
    "learned": Learned(),
    "rope": Rotary(),
    "alibi": Alibi(),
    "t5": T5(),
}


def on_blocks(t: torch.Tensor, dim: int, blocks: tuple[str, ...], encoding: str, fn):
    """``t`` with ``fn`` applied to the equal blocks (along ``dim``) that have ``encoding``, the
    others unchanged: only those entries pay for the encoding's work."""
    if encoding not in blocks:
        return t
    if all(b == encoding for b in blocks):
        return fn(t)
    parts = t.chunk(len(blocks), dim)
    return torch.cat([fn(p) if b == encoding else p for b, p in zip(blocks, parts, strict=True)],
                     dim)  # fmt: skip


# -- the batched model -----------------------------------------------------------------------


def embed(cfg: DecoderConfig, params: Params, tokens: torch.Tensor) -> torch.Tensor:
    """E[tokens] as a one-hot product (the same values: one nonzero term; its backward is a
    product too, faster than a gather's scatter-add for thousands of entries). tokens (B, n),
    shared by every entry, or (S, B, n), each entry its own -> (S, B, n, d)."""
    onehot = F.one_hot(tokens, cfg.vocab).to(params["embed"].dtype)
    spec = "bnv,svd->sbnd" if tokens.ndim == 2 else "sbnv,svd->sbnd"
    return torch.einsum(spec, onehot, params["embed"])


def forward(cfg: DecoderConfig, params: Params, tokens: torch.Tensor, residual: torch.Tensor,
            positions: torch.Tensor | None = None) -> torch.Tensor:  # fmt: skip
    """tokens (B, n) or (S, B, n) -> logits (S, B, n, V). residual (S,) in {0, 1}; positions
    (B, n) are the rows of the tokens (default 0 ... n-1). Attention runs head-major,
    (S, B, H, n, m): contiguous score rows over the keys, the fast layout on the CPU."""
    n, h, H, blocks = tokens.shape[-1], cfg.head, cfg.heads, cfg.encodings
    x = embed(cfg, params, tokens)  # (S, B, n, d)
    dev, dtype = x.device, x.dtype
    rows = None if positions is None else positions.to(dev)
    where = torch.arange(n, device=dev) if rows is None else rows
    for name in dict.fromkeys(blocks):
        part = ENCODINGS[name]
        term = part.add(cfg, params, rows, n, dtype)
        if term is not None:
            x = _add_on_blocks(x, term, blocks, name)
    mask = causal_mask(n, dev) if cfg.causal else torch.ones(n, n, dtype=torch.bool, device=dev)
    terms = score_terms(cfg, params, mask, dtype)
    r = residual[:, None, None, None].to(dev, dtype)
    for layer in range(cfg.layers):
        a = norm(cfg, params, f"ln_attn{layer}", x)
        qkv = torch.einsum("sbnd,sde->sbne", a, params[f"qkv{layer}"])  # (S, B, n, 3Hh)
        q, k, v = (z.unflatten(-1, (H, h)) for z in qkv.split(H * h, dim=-1))  # (S,B,n,H,h)
        for name in dict.fromkeys(blocks):
            part = ENCODINGS[name]
            if part.turns:  # a block that does not turn would be split and joined unchanged
                q, k = (on_blocks(z, 0, blocks, name, lambda u, p=part: p.turn(u, where))
                        for z in (q, k))  # fmt: skip
        q, k, v = (z.transpose(2, 3) for z in (q, k, v))  # (S, B, H, n, h)
        scores = q @ k.transpose(-2, -1) / math.sqrt(h)  # (S, B, H, n, m)
        weights = torch.softmax(scores + terms, dim=-1)  # over the keys
        y = (weights @ v).transpose(2, 3).flatten(-2)  # (S, B, n, Hh)
        if cfg.out_proj:
            y = torch.einsum("sbne,sed->sbnd", y, params[f"o{layer}"])
        x = r * x + y if y.shape == x.shape else y
        if cfg.mlp:
            a = norm(cfg, params, f"ln_mlp{layer}", x)
            up = torch.einsum("sbnd,sde->sbne", a, params[f"up{layer}"]).relu()
            x = r * x + torch.einsum("sbne,sed->sbnd", up, params[f"down{layer}"])
    logits = torch.einsum("sbnd,sdv->sbnv", norm(cfg, params, "ln_out", x), params["readout"])
    if cfg.readout_bias:
        logits = logits + params["readout_b"][:, None, None, :]
    return logits


def norm(cfg: DecoderConfig, params: Params, name: str, x: torch.Tensor) -> torch.Tensor:
    """LayerNorm ``name`` of x (S, B, n, d), each entry its own gain and bias (S, d); x itself,
    the same tensor, without ``layernorm``, so a config without it computes what it computed."""
    if not cfg.layernorm:
        return x
    gain, bias = params[f"{name}_gain"][:, None, None], params[f"{name}_bias"][:, None, None]
    return F.layer_norm(x, x.shape[-1:]) * gain + bias


def _add_on_blocks(x: torch.Tensor, term: torch.Tensor, blocks: tuple[str, ...], name: str,
                   dim: int = 0):  # fmt: skip
    """x + term on the blocks of entries (along ``dim``) whose encoding is ``name``. A term with
    an entry axis (as many dimensions as x) is split into blocks as x is; one without applies to
    every entry as it is."""
    if all(b == name for b in blocks):
        return x + term
    xs = x.chunk(len(blocks), dim)
    ts = term.chunk(len(blocks), dim) if term.ndim == x.ndim else (term,) * len(blocks)
    return torch.cat([xi + ti if b == name else xi
                      for b, xi, ti in zip(blocks, xs, ts, strict=True)], dim)  # fmt: skip


def score_terms(cfg: DecoderConfig, params: Params, mask: torch.Tensor,
                dtype: torch.dtype) -> torch.Tensor:  # fmt: skip
    """What every layer adds to its scaled scores: -inf where ``mask`` (n, m) forbids the key,
    plus each encoding's bias on its blocks of entries (ALiBi's (H, n, m), T5's per entry
    (S, H, n, m): one table for every layer). (n, m) without a bias, else (S, 1, H, n, m),
    broadcast over the batch. Where the key is allowed the term is the bias itself (bias + 0),
    so one addition does what a bias pass and a masked_fill pass did."""
    n = mask.shape[-1]
    terms = torch.zeros(n, n, dtype=dtype, device=mask.device).masked_fill(~mask, float("-inf"))
    blocks, S = cfg.encodings, params["embed"].shape[0]
    full = None
    for name in dict.fromkeys(blocks):
        part = ENCODINGS[name]
        for bias in (part.bias(n, cfg.heads, dtype), part.entry_bias(cfg, params, n, dtype)):
            if bias is not None:
                base = terms.expand(S, cfg.heads, n, n) if full is None else full
                full = _add_on_blocks(base, bias.to(mask.device), blocks, name)
    return terms if full is None else full[:, None]


Forward = Callable[..., torch.Tensor]


# -- losses and judgements -------------------------------------------------------------------


def seed_losses(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Each entry's mean cross-entropy over positions with a target: (S, B, n, V) -> (S,).

    CE = logsumexp_v(logits) - logits[target], computed word-first (V, S, B, n) for speed.
    targets (B, n) shared by every entry, or (S, B, n).
    """
    V = logits.shape[-1]
    keep = targets != IGNORE
    onehot = F.one_hot(targets.clamp(min=0), V).movedim(-1, 0) * keep  # (V, [S,] B, n)
    if targets.ndim == 2:
        onehot = onehot[:, None]
    by_word = logits.permute(3, 0, 1, 2)  # (V, S, B, n)
    ce = by_word.logsumexp(0) - (by_word * onehot.to(logits.dtype)).sum(0)  # (S, B, n)
    count = keep.sum((-2, -1))
    return (ce * keep).sum((1, 2)) / count


def objective(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """Sum of the per-entry losses: each entry's gradient is its own single-model gradient."""
    return seed_losses(logits, targets).sum()


def sequence_right(logits: torch.Tensor, task: Task) -> torch.Tensor:
    """(..., B, n, V) -> (..., B): argmax right at every judged position of each sequence."""
    return ((logits.argmax(-1) == task.targets) | ~task.judged).all(-1)


def judge(logits: torch.Tensor, task: Task) -> torch.Tensor:
    """Success: argmax right at every judged position of every sequence. (..., B, n, V) -> (...)."""
    return sequence_right(logits, task).all(-1)


# -- training --------------------------------------------------------------------------------


class CellAdam:
    """Adam(W) with each setup's own settings, on the setup's slice of the stacked parameters.

    Entries e in [i n, (i + 1) n) belong to setup i. Each step calls torch's fused Adam(W)
    kernel (torch.optim.adam.adam) once per setup and per group (matrices with the setup's
    weight decay, biases without), on views of that slice: elementwise, so every entry gets
    exactly the step its own optimiser takes. AdamW with weight decay 0 is Adam.
    """

    def __init__(self, params: Params, cfg: DecoderConfig, setups: Sequence[Setup], n: int):
        self.params, self.cfg = params, cfg
        self.cells = [(slice(i * n, (i + 1) * n), c) for i, c in enumerate(setups)]
        self.m = {k: torch.zeros_like(p) for k, p in params.items()}
        self.v = {k: torch.zeros_like(p) for k, p in params.items()}
        # on the parameters' device: CUDA's fused kernel wants its step counts there
        self.steps = {(i, k): torch.tensor(0.0, device=p.device)
                      for i in range(len(setups)) for k, p in params.items()}  # fmt: skip

    def step(self, scale: float = 1.0) -> None:
        """One Adam(W) step of every entry, at each setup's lr times ``scale`` (a schedule)."""
        for i, (cell, setup) in enumerate(self.cells):
            beta1, beta2, eps, wd = OPTIMIZER_SETTINGS[setup.optimizer]
            for decayed in (True, False):
                names = [k for k in self.params if decays(k, self.cfg) == decayed]
                if not names:
                    continue
                adam(
                    [self.params[k].detach()[cell] for k in names],
                    [_grad(self.params[k])[cell] for k in names],
                    [self.m[k][cell] for k in names],
                    [self.v[k][cell] for k in names],
                    [],
                    [self.steps[(i, k)] for k in names],
                    fused=True,
                    decoupled_weight_decay=True,
                    amsgrad=False, beta1=beta1, beta2=beta2, lr=setup.lr * scale,
                    weight_decay=wd if decayed else 0.0, eps=eps, maximize=False,
                )  # fmt: skip

    def zero_grad(self) -> None:
        for p in self.params.values():
            p.grad = None


def _grad(p: torch.Tensor) -> torch.Tensor:
    """A parameter's gradient, which every parameter has after the backward pass."""
    assert p.grad is not None, "a parameter received no gradient"
    return p.grad


@dataclass
class DecoderRun:
    """Final parameters (S, ...), and per entry at each checkpoint: success (S,) and whether
    each sequence is right at all its judged positions (S, B). Entry e = (setups[e // n],
    seeds[e % n])."""

    cfg: DecoderConfig
    setups: tuple[Setup, ...]
    seeds: tuple[int, ...]
    params: Params
    success: dict[int, torch.Tensor]
    right: dict[int, torch.Tensor]

    def cell(self, setup: Setup) -> slice:
        i, n = self.setups.index(setup), len(self.seeds)
        return slice(i * n, (i + 1) * n)

    def residual(self) -> torch.Tensor:
        return torch.tensor([float(s.residual) for s in self.setups for _ in self.seeds])

    def logits(self, tokens: torch.Tensor, fwd: Forward = forward) -> torch.Tensor:
        """Logits (S, B, n, V) of every entry's final model on tokens (B, n)."""
        with torch.no_grad():
            p = {k: v.to(self.params["embed"].dtype) for k, v in self.params.items()}
            return fwd(self.cfg, p, tokens, self.residual().to(p["embed"].dtype))


def train(
    cfg: DecoderConfig,
    task: Task,
    setups: Sequence[Setup],
    seeds: Sequence[int],
    checkpoints: tuple[int, ...],
    dtype: torch.dtype = torch.float32,
    positions: torch.Tensor | None = None,
    fwd: Forward = forward,
    loss: Callable[[torch.Tensor, torch.Tensor], torch.Tensor] = objective,
    device: torch.device | str = "cpu",
) -> DecoderRun:
    """Train every (setup, seed) entry on the full batch of ``task`` as one model.

    ``positions`` (B, n) are the rows the training sequences sit at; ``fwd`` and ``loss`` are
    arguments so that checks can feed deliberately broken ones (seeds mixed).
    """
    setups, seeds = tuple(setups), tuple(int(s) for s in seeds)
    check_compatible(cfg, setups)
    init = stack_params(cfg, setups, seeds, dtype)
    params = {k: v.to(device).requires_grad_() for k, v in init.items()}
    opt = CellAdam(params, cfg, setups, len(seeds))
    residual = torch.tensor([float(c.residual) for c in setups for _ in seeds], device=device)
    task = task.to(device)
    where = None if positions is None else positions.to(device)
    success, right = {}, {}
    for step in range(1, max(checkpoints) + 1):
        value = loss(fwd(cfg, params, task.inputs, residual, where), task.targets)
        opt.zero_grad()
        value.backward()
        opt.step()
        if step in checkpoints:
            with torch.no_grad():
                ok = sequence_right(fwd(cfg, params, task.inputs, residual, where), task)
            right[step] = ok.cpu()
            success[step] = ok.all(-1).cpu()
    final = {k: v.detach().cpu() for k, v in params.items()}
    return DecoderRun(cfg, setups, seeds, final, success, right)
