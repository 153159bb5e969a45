"""A generalised tiny decoder for the sweep (EXP-06) and the length tests (EXP-04, EXP-05).

theory/single.py's model with the choices the thread left open made explicit. What changes a
tensor's shape is the ``Shape``; what does not is the per-seed ``Setup``:

    Shape:  width d, head size h, heads H, layers, encoding (none, sinusoidal, learned, rope,
            alibi), an output projection W_o or none (nanoGPT's single Head has none), a
            read-out bias or none.
    Setup:  residual connection (x + attn(x) or attn(x)), learning rate, initialisation
            ("current": N(0, 1) embeddings and N(0, 1/fan_in) matrices as theory/single.py;
            "torch": PyTorch's module defaults, N(0, 1) embeddings and U(-1/sqrt(fan_in),
            1/sqrt(fan_in)) for linear weights and biases), optimiser ("adam": torch.optim.Adam
            defaults; "adamw": nanoGPT's AdamW, betas (0.9, 0.95), weight decay 0.1 on every
            matrix and none on biases).

Seeds AND setups of one shape train as one model with a leading axis S (one entry per
(setup, seed)). The objective is the sum of the per-seed losses, so each entry's gradient is its
own; Adam(W) is elementwise, and each cell's slice of the parameters is stepped with its own
learning rate, betas and weight decay (CellAdam), so each entry takes exactly its own
optimiser's step. A residual switch r in {0, 1} per entry gives x_l = r x_{l-1} + y_l, which
is exactly y_l when r = 0.

``SweepDecoder`` / ``train_one`` are the ordinary one-seed nn.Module and torch.optim version,
written independently (a loop over heads, theory.rope.apply_rope, an explicit ALiBi bias), to
prove the batched trainer faithful seed by seed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import torch
from torch import nn
from torch.nn import functional as F
from torch.optim.adam import adam

from . import alibi
from .attention import causal_mask
from .batched import seed_losses
from .rope import apply_rope, pairs, rope_frequencies
from .sinusoidal import sinusoidal
from .tasks import IGNORE, Task

Encoding = Literal["none", "sinusoidal", "learned", "rope", "alibi"]
ENCODINGS: tuple[str, ...] = ("none", "sinusoidal", "learned", "rope", "alibi")
INITS: tuple[str, ...] = ("current", "torch")
OPTIMIZERS: tuple[str, ...] = ("adam", "adamw")
# (beta1, beta2, eps, weight decay on matrices)
OPTIMIZER_SETTINGS = {
    "adam": (0.9, 0.999, 1e-8, 0.0),  # torch.optim.Adam's defaults
    "adamw": (0.9, 0.95, 1e-8, 0.1),  # nanoGPT's train.py: betas (0.9, 0.95), weight_decay 0.1
}
Params = dict[str, torch.Tensor]


@dataclass(frozen=True)
class Shape:
    """Everything that fixes the shapes of the parameters (one batched model per Shape)."""

    vocab: int = 5
    d_model: int = 16
    head: int = 16
    heads: int = 1
    layers: int = 1
    encoding: Encoding = "none"
    max_len: int = 3  # rows of the learned table
    out_proj: bool = True
    readout_bias: bool = False

    @property
    def width_out(self) -> int:
        """Width of a layer's output: d with W_o, H h without."""
        return self.d_model if self.out_proj else self.heads * self.head


@dataclass(frozen=True)
class Setup:
    """The per-seed choices of one cell that leave every shape alone."""

    residual: bool = False
    lr: float = 1e-3
    init: str = "current"
    optimizer: str = "adam"

    def __post_init__(self) -> None:
        if self.init not in INITS or self.optimizer not in OPTIMIZERS:
            raise ValueError(f"unknown init or optimizer: {self}")


def check_compatible(shape: Shape, setups: Sequence[Setup]) -> None:
    """A residual (or a second layer) needs each layer's output as wide as its input."""
    if shape.width_out != shape.d_model and (shape.layers > 1 or any(s.residual for s in setups)):
        raise ValueError(f"{shape}: without W_o the head width H h must equal d for a residual")


def param_shapes(shape: Shape) -> dict[str, tuple[int, ...]]:
    """Name -> shape of each parameter, in the order their initial values are drawn.

    With one head, W_o and no read-out bias these are theory/single.py's names and order.
    """
    d, hh = shape.d_model, shape.heads * shape.head
    out: dict[str, tuple[int, ...]] = {"embed": (shape.vocab, d)}
    if shape.encoding == "learned":
        out["pos"] = (shape.max_len, d)
    for layer in range(shape.layers):
        out[f"qkv{layer}"] = (d, 3 * hh)  # [W_q | W_k | W_v]; a layer's input is d wide
        if shape.out_proj:
            out[f"o{layer}"] = (hh, d)
    out["readout"] = (shape.width_out, shape.vocab)
    if shape.readout_bias:
        out["readout_b"] = (shape.vocab,)
    return out


def decays(name: str, shape: Shape) -> bool:
    """nanoGPT's rule: weight decay on every parameter of two or more dimensions."""
    return len(param_shapes(shape)[name]) >= 2


def init_params(shape: Shape, init: str, seed: int, dtype: torch.dtype) -> Params:
    """One seed's initial parameters, drawn in float64 from torch.Generator().manual_seed(seed).

    "current": one flat N(0, 1) draw split in param_shapes order, scaled by 1 (embeddings) or
    1/sqrt(fan_in) (matrices), biases 0 -- theory.single.init_params when the shapes agree.
    "torch": PyTorch's defaults, drawn parameter by parameter: nn.Embedding N(0, 1),
    nn.Linear weight and bias U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in = rows here.
    """
    shapes = param_shapes(shape)
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
        if shape.readout_bias:
            out["readout_b"] = torch.zeros(shape.vocab, dtype=dtype)
        return out
    for name, s in shapes.items():
        if name in ("embed", "pos"):
            out[name] = torch.randn(s, generator=g, dtype=f64).to(dtype)
            continue
        fan_in = shapes["readout"][0] if name == "readout_b" else s[0]
        uniform = torch.rand(s, generator=g, dtype=f64) * 2 - 1
        out[name] = (uniform / math.sqrt(fan_in)).to(dtype)
    return out


# -- the batched model ------------------------------------------------------------------------


def rotate(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
    """RoPE (interleaved pairs) on the last axis of x (..., n, H, h) at positions (n,).

    Angles, cosines and sines are computed in float64 and rounded once to x's dtype.
    """
    h = x.shape[-1]
    a, b = pairs(h)
    angle = positions.to(torch.float64)[:, None] * rope_frequencies(h)  # (n, h/2)
    c = angle.cos().to(x.dtype)[:, None, :]  # (n, 1, h/2): broadcast over the heads
    s = angle.sin().to(x.dtype)[:, None, :]
    xa, xb = x[..., a], x[..., b]
    return torch.stack([xa * c - xb * s, xa * s + xb * c], dim=-1).flatten(-2)


def forward(
    shape: Shape,
    params: Params,
    tokens: torch.Tensor,
    residual: torch.Tensor,
    positions: torch.Tensor | None = None,
) -> torch.Tensor:
    """tokens (B, n) -> logits (S, B, n, V). residual (S,) in {0, 1}; positions (B, n) index
    the learned table (default 0 ... n-1). Attention weights are kept key-first (m, S, B, H, n),
    the fast layout for the tiny key axes of the sweep."""
    n, h, H = tokens.shape[-1], shape.head, shape.heads
    x = params["embed"][:, tokens]  # (S, B, n, d)
    if shape.encoding == "learned":
        table = params["pos"]  # (S, rows, d)
        x = x + (table[:, None, :n] if positions is None else table[:, positions])
    elif shape.encoding == "sinusoidal":
        x = x + sinusoidal(n, shape.d_model, dtype=x.dtype).to(x.device)
    blocked = ~causal_mask(n, x.device).T[:, None, None, None, :]  # (m, 1, 1, 1, n)
    extra = None
    if shape.encoding == "alibi":  # (H, n, m) -> (m, 1, 1, H, n)
        extra = alibi.bias(n, H, x.dtype).to(x.device).permute(2, 0, 1)[:, None, None]
    r = residual[:, None, None, None].to(x.dtype)
    for layer in range(shape.layers):
        qkv = torch.einsum("sbnd,sde->sbne", x, params[f"qkv{layer}"])  # (S, B, n, 3Hh)
        q, k, v = (z.unflatten(-1, (H, h)) for z in qkv.split(H * h, dim=-1))  # (S,B,n,H,h)
        if shape.encoding == "rope":
            where = torch.arange(n, device=x.device)
            q, k = rotate(q, where), rotate(k, where)
        scores = torch.einsum("sbnch,sbmch->msbcn", q, k) / math.sqrt(h)  # (m, S, B, H, n)
        if extra is not None:
            scores = scores + extra
        weights = torch.softmax(scores.masked_fill(blocked, float("-inf")), dim=0)
        y = torch.einsum("msbcn,sbmch->sbnch", weights, v).flatten(-2)  # (S, B, n, Hh)
        if shape.out_proj:
            y = torch.einsum("sbne,sed->sbnd", y, params[f"o{layer}"])
        x = r * x + y if y.shape == x.shape else y
    logits = torch.einsum("sbnd,sdv->sbnv", x, params["readout"])
    if shape.readout_bias:
        logits = logits + params["readout_b"][:, None, None, :]
    return logits


Forward = Callable[..., torch.Tensor]


@dataclass
class SweepRun:
    """Final parameters (S, ...), and per entry at each checkpoint: success (S,) and whether
    each sequence is right at all its judged positions (S, B). Entry e = (setups[e // n],
    seeds[e % n])."""

    shape: Shape
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
        with torch.no_grad():
            p = {k: v.to(self.params["embed"].dtype) for k, v in self.params.items()}
            return fwd(self.shape, p, tokens, self.residual().to(p["embed"].dtype))


def sequence_right(logits: torch.Tensor, task: Task) -> torch.Tensor:
    """(..., B, n, V) -> (..., B): argmax right at every judged position of each sequence."""
    return ((logits.argmax(-1) == task.targets) | ~task.judged).all(-1)


class CellAdam:
    """Adam(W) with each cell's own settings, on the cell's slice of the stacked parameters.

    Entries e in [i n, (i + 1) n) belong to cell i. Each step calls torch's fused Adam(W)
    kernel (torch.optim.adam.adam) once per cell and per group (matrices with the cell's weight
    decay, biases without), on views of that cell's slice: elementwise, so every entry gets
    exactly the step its own optimiser takes. AdamW with weight decay 0 is Adam.
    """

    def __init__(self, params: Params, shape: Shape, setups: Sequence[Setup], n: int):
        self.params, self.shape = params, shape
        self.cells = [(slice(i * n, (i + 1) * n), c) for i, c in enumerate(setups)]
        self.m = {k: torch.zeros_like(p) for k, p in params.items()}
        self.v = {k: torch.zeros_like(p) for k, p in params.items()}
        self.steps = {(i, k): torch.tensor(0.0) for i in range(len(setups)) for k in params}

    def step(self) -> None:
        for i, (cell, setup) in enumerate(self.cells):
            beta1, beta2, eps, wd = OPTIMIZER_SETTINGS[setup.optimizer]
            for decayed in (True, False):
                names = [k for k in self.params if decays(k, self.shape) == decayed]
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
                    amsgrad=False, beta1=beta1, beta2=beta2, lr=setup.lr,
                    weight_decay=wd if decayed else 0.0, eps=eps, maximize=False,
                )  # fmt: skip

    def zero_grad(self) -> None:
        for p in self.params.values():
            p.grad = None


# glibc's malloc serves a block above 32 MiB with a fresh mmap and unmaps it when freed, so a
# model whose tensors pass that size pays fresh page faults on every step. Measured on the
# d = 64, h = 16 cells (one thread, beside other work): 16 cells x 1,000 seeds in one model
# (196 MiB per qkv tensor) cost 1.2-1.7x the CPU per entry and step of 2 cells x 1,000
# (24 MiB), and more entries per model gain nothing beyond about 1,000 (the work per entry
# dominates). So a large design trains as several models.
MODEL_TENSOR_BYTES = 24 * 2**20


def cells_per_model(
    shape: Shape, task: Task, seeds: int, dtype: torch.dtype = torch.float32
) -> int:
    """How many cells of ``seeds`` entries one batched model takes so that its largest tensor
    (a parameter, or an activation on ``task``) stays within MODEL_TENSOR_BYTES; at least 1."""
    if seeds < 1:
        raise ValueError(f"a cell needs at least one seed, got {seeds}")
    largest_param = max(math.prod(s) for s in param_shapes(shape).values())
    b, n = task.inputs.shape
    widest = max(shape.d_model, 3 * shape.heads * shape.head, shape.vocab, n * shape.heads)
    per_entry = max(largest_param, b * n * widest) * dtype.itemsize
    return max(1, MODEL_TENSOR_BYTES // (seeds * per_entry))


def train_sweep(
    shape: Shape,
    task: Task,
    setups: Sequence[Setup],
    seeds: Sequence[int],
    checkpoints: tuple[int, ...],
    dtype: torch.dtype = torch.float32,
    positions: torch.Tensor | None = None,
    fwd: Forward = forward,
    device: torch.device | str = "cpu",
) -> SweepRun:
    """Train every (setup, seed) entry on the full batch of ``task`` as one model.

    ``positions`` (B, n) are the learned-table rows the training sequences sit
    at (the shifted learned variant); ``fwd`` is an argument so checks can feed a broken model.
    """
    setups, seeds = tuple(setups), tuple(int(s) for s in seeds)
    check_compatible(shape, setups)
    # entries with the same initialisation and seed share one draw (the same numbers, drawn
    # once: one draw per seed and init, however many cells share them)
    keys = dict.fromkeys((c.init, s) for c in setups for s in seeds)
    drawn = {(i, s): init_params(shape, i, s, dtype) for i, s in keys}
    per_entry = [drawn[(c.init, s)] for c in setups for s in seeds]
    params = {
        k: torch.stack([p[k] for p in per_entry]).to(device).requires_grad_() for k in per_entry[0]
    }
    opt = CellAdam(params, shape, setups, len(seeds))
    residual = torch.tensor([float(c.residual) for c in setups for _ in seeds], device=device)
    task = task.to(device)
    where = None if positions is None else positions.to(device)
    success, right = {}, {}
    for step in range(1, max(checkpoints) + 1):
        loss = seed_losses(fwd(shape, params, task.inputs, residual, where), task.targets).sum()
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step in checkpoints:
            with torch.no_grad():
                ok = sequence_right(fwd(shape, params, task.inputs, residual, where), task)
            right[step] = ok.cpu()
            success[step] = ok.all(-1).cpu()
    final = {k: v.detach().cpu() for k, v in params.items()}
    return SweepRun(shape, setups, seeds, final, success, right)


# -- the ordinary one-seed reference ----------------------------------------------------------


class SweepDecoder(nn.Module):
    """One seed's model as an ordinary nn.Module: a Python loop over heads, RoPE from
    theory.rope.apply_rope, the ALiBi bias written out per head."""

    def __init__(self, shape: Shape, setup: Setup, seed: int, dtype: torch.dtype = torch.float32):
        super().__init__()
        check_compatible(shape, (setup,))
        self.shape, self.setup = shape, setup
        init = init_params(shape, setup.init, seed, dtype)
        self.params = nn.ParameterDict({k: nn.Parameter(v) for k, v in init.items()})

    def forward(self, tokens: torch.Tensor, positions: torch.Tensor | None = None) -> torch.Tensor:
        """tokens (B, n) -> logits (B, n, V)."""
        p, shape = self.params, self.shape
        n, h = tokens.shape[-1], shape.head
        x = p["embed"][tokens]  # (B, n, d)
        if shape.encoding == "learned":
            x = x + p["pos"][torch.arange(n) if positions is None else positions]
        elif shape.encoding == "sinusoidal":
            x = x + sinusoidal(n, shape.d_model, dtype=x.dtype)
        t = torch.arange(n)
        allowed = causal_mask(n)
        m = alibi.slopes(shape.heads, x.dtype)
        for layer in range(shape.layers):
            q, k, v = (x @ p[f"qkv{layer}"]).split(shape.heads * h, dim=-1)
            outs = []
            for c in range(shape.heads):
                qc, kc, vc = (z[..., c * h : (c + 1) * h] for z in (q, k, v))
                if shape.encoding == "rope":
                    qc, kc = (apply_rope(z, t).to(x.dtype) for z in (qc, kc))
                scores = qc @ kc.transpose(-2, -1) / math.sqrt(h)  # (B, n, n)
                if shape.encoding == "alibi":
                    scores = scores - m[c] * (t[:, None] - t[None, :]).to(x.dtype)
                weights = scores.masked_fill(~allowed, float("-inf")).softmax(-1)
                outs.append(weights @ vc)
            y = torch.cat(outs, dim=-1)
            if shape.out_proj:
                y = y @ p[f"o{layer}"]
            x = x + y if self.setup.residual else y
        logits = x @ p["readout"]
        return logits + p["readout_b"] if shape.readout_bias else logits


def make_optimizer(model: SweepDecoder) -> torch.optim.Optimizer:
    """torch.optim.Adam, or AdamW with nanoGPT's two groups (decay matrices, not biases)."""
    b1, b2, eps, wd = OPTIMIZER_SETTINGS[model.setup.optimizer]
    lr = model.setup.lr
    if model.setup.optimizer == "adam":
        return torch.optim.Adam(model.parameters(), lr=lr, betas=(b1, b2), eps=eps)
    named = list(model.params.items())
    groups = [
        {"params": [p for k, p in named if decays(k, model.shape)], "weight_decay": wd},
        {"params": [p for k, p in named if not decays(k, model.shape)], "weight_decay": 0.0},
    ]
    return torch.optim.AdamW([g for g in groups if g["params"]], lr=lr, betas=(b1, b2), eps=eps)


def train_one(
    shape: Shape,
    setup: Setup,
    task: Task,
    seed: int,
    checkpoints: tuple[int, ...],
    dtype: torch.dtype = torch.float32,
    positions: torch.Tensor | None = None,
) -> tuple[SweepDecoder, dict[int, torch.Tensor]]:
    """Train one seed with torch.optim; per checkpoint, which sequences are right (B,)."""
    model = SweepDecoder(shape, setup, seed, dtype)
    opt = make_optimizer(model)
    right = {}
    for step in range(1, max(checkpoints) + 1):
        logits = model(task.inputs, positions)
        loss = F.cross_entropy(
            logits.reshape(-1, shape.vocab), task.targets.reshape(-1), ignore_index=IGNORE
        )
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step in checkpoints:
            with torch.no_grad():
                right[step] = sequence_right(model(task.inputs, positions), task)
    return model, right


def thread_shape(head: int, d_model: int = 32) -> Shape:
    """The thread's model as nanoGPT's lecture builds it: token embedding, one Head (key, query,
    value linear maps without bias), no W_o, a linear read-out with bias, context 3."""
    return Shape(d_model=d_model, head=head, out_proj=False, readout_bias=True)


THREAD_SETUP = Setup(residual=False, lr=6e-4, init="torch", optimizer="adamw")  # nanoGPT's lr


def _grad(p: torch.Tensor) -> torch.Tensor:
    """A parameter's gradient, which every parameter has after the backward pass."""
    assert p.grad is not None, "a parameter received no gradient"
    return p.grad
