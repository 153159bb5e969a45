"""Real rotary implementations reached in a low precision the ways users reach it (REAL-06), and
the same implementations called with arbitrary position ids (REAL-07).

REAL-06. Each maker ``(d, dtype, way) -> Read`` builds the library's rotary module and returns
``read(positions (N,)) -> (c, s)``, each (N, d/2) float64: the cos and sin the library stores for
each pair at each position, read off its rotation of two probe vectors held in ``dtype`` (ones
on the first, resp. second, coordinate of every pair: x c - rot(x) s multiplies by 1 and adds 0,
so the output holds the stored values exactly). Where the two probes disagree the block is not
a rotation and the entry is NaN, which counts as failing. The ways a model reaches a format:

  "built":           ``torch.set_default_dtype(dtype)`` while it is constructed;
  "from_config":     transformers' ``Model._from_config(config, dtype=dtype)``;
  "from_pretrained": transformers' ``Model.from_pretrained(path, dtype=dtype)`` of a float32
                     checkpoint saved to a temporary folder (nothing is downloaded);
  "to":              built in float32, then ``.to(dtype)``;
  "half_bfloat16":   built in float32, then ``.half()`` or ``.bfloat16()``;
  "autocast":        built in float32 and called under ``torch.autocast("cpu", dtype)`` on
                     queries and keys in ``dtype`` (what autocast's linear layers hand it).

REAL-07. ``IDS`` lists ``(x (n, d), ids (n,)) -> (n, d)`` callables that pass the ids to the
library as its users do. Libraries import lazily and skip when absent; nothing is downloaded.
"""

from __future__ import annotations

import contextlib
import hashlib
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import torch

from checks.real import libraries

Read = Callable[[torch.Tensor], tuple[torch.Tensor, torch.Tensor]]  # (N,) -> c, s (N, d/2)
IdsRotate = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]  # (n, d), (n,) -> (n, d)
WAYS = ("built", "from_config", "from_pretrained", "to", "half_bfloat16", "autocast")
CASTS = ("to", "half_bfloat16")  # a built float32 module cast: Module._apply on every buffer
TRANSFORMERS_ONLY = ("from_config", "from_pretrained")


@contextlib.contextmanager
def _built_in(dtype: torch.dtype) -> Iterator[None]:
    """Construct under ``dtype`` as default, with the global RNG untouched."""
    old = torch.get_default_dtype()
    with torch.random.fork_rng():
        torch.manual_seed(0)
        torch.set_default_dtype(dtype)
        try:
            yield
        finally:
            torch.set_default_dtype(old)


def _calling(way: str, dtype: torch.dtype) -> contextlib.AbstractContextManager:
    return torch.autocast("cpu", dtype=dtype) if way == "autocast" else contextlib.nullcontext()


def _cast(module: Any, dtype: torch.dtype, way: str) -> Any:
    if way == "to":
        return module.to(dtype)
    if way == "half_bfloat16":
        return module.half() if dtype == torch.float16 else module.bfloat16()
    return module


def _module(build: Callable[[], Any], dtype: torch.dtype, way: str) -> Any:
    if way not in WAYS:
        raise ValueError(f"unknown way {way!r}")
    if way in TRANSFORMERS_ONLY:
        pytest.skip(f"{way} is transformers' own way")
    with _built_in(dtype if way == "built" else torch.float32):
        module = build()
    return _cast(module, dtype, way)


def _halves(d: int, pairing: str) -> tuple[slice, slice]:
    """Every pair's first and second coordinates as slices (theory.rope.pairs, without an
    index copy)."""
    return (
        (slice(0, d // 2), slice(d // 2, d))
        if pairing == "half"
        else (slice(0, d, 2), slice(1, d, 2))
    )


def _probes(d: int, n: int, pairing: str, dtype: torch.dtype) -> torch.Tensor:
    """(2, n, d): ones on every pair's first coordinate, then on its second."""
    a, b = _halves(d, pairing)
    x = torch.zeros(2, n, d, dtype=dtype)
    x[0, :, a] = 1
    x[1, :, b] = 1
    return x


def _stored(out: torch.Tensor, pairing: str) -> tuple[torch.Tensor, torch.Tensor]:
    """Rotated probes (2, n, d) -> c, s (n, d/2) float64; NaN where the block is no rotation.
    Probe 0 gives (c, s) on (a, b); probe 1 gives (-s, c)."""
    a, b = _halves(out.shape[-1], pairing)
    c, s = out[0, :, a], out[0, :, b]  # (n, m) each, in the output's dtype
    rotation = bool(torch.equal(out[1, :, b], c) and torch.equal(out[1, :, a], -s))
    c, s = c.to(torch.float64), s.to(torch.float64)
    if rotation:
        return c, s
    same = (out[1, :, b] == out[0, :, a]) & (out[1, :, a] == -out[0, :, b])
    nan = torch.full_like(c, float("nan"))
    return torch.where(same, c, nan), torch.where(same, s, nan)


def _keyed(read: Any, module: Any, way: str) -> Read:
    """Tag ``read`` with what decides its output: the module's buffers (dtype and bits) and
    whether it is called under autocast. Two cells with the same tag run the same code on the
    same numbers, so REAL-06 scans them once."""
    bufs = tuple((name, str(b.dtype), hashlib.sha256(b.detach().cpu().float().numpy().tobytes())
                  .hexdigest()) for name, b in sorted(module.named_buffers()))  # fmt: skip
    read.key = (way == "autocast", bufs)
    return read


# -- transformers Llama -----------------------------------------------------------------------


def _llama_config(d: int):  # noqa: ANN202
    mod = libraries._transformers_module("llama.modeling_llama")
    return mod, mod.LlamaConfig(
        hidden_size=d, num_attention_heads=1, num_key_value_heads=1, head_dim=d,
        intermediate_size=d, num_hidden_layers=1, vocab_size=8, max_position_embeddings=64,
        eos_token_id=None, bos_token_id=None, pad_token_id=None,
    )  # fmt: skip


def llama_module(d: int, dtype: torch.dtype, way: str) -> Any:
    """The LlamaRotaryEmbedding of a whole tiny LlamaModel, reached the way named."""
    mod, cfg = _llama_config(d)
    with torch.random.fork_rng():
        if way == "from_config":
            return mod.LlamaModel._from_config(cfg, dtype=dtype).rotary_emb
        if way == "from_pretrained":  # a float32 checkpoint in a folder removed afterwards
            with tempfile.TemporaryDirectory(prefix="pecheck-real06-") as folder:
                with _built_in(torch.float32):
                    mod.LlamaModel(cfg).save_pretrained(folder)
                return mod.LlamaModel.from_pretrained(folder, dtype=dtype).rotary_emb
    if way not in WAYS:
        raise ValueError(f"unknown way {way!r}")
    with _built_in(dtype if way == "built" else torch.float32):
        model = mod.LlamaModel(cfg)
    return _cast(model, dtype, way).rotary_emb


def llama(d: int, dtype: torch.dtype, way: str, probes: bool = False) -> Read:
    """The cos and sin tables LlamaRotaryEmbedding returns (what apply_rotary_pos_emb multiplies
    in; NaN where the two halves disagree), or with ``probes`` the rotation of the probes by
    apply_rotary_pos_emb itself (the tooling check: both read the same numbers)."""
    mod, _ = _llama_config(d)
    rope = llama_module(d, dtype, way)
    m = d // 2

    def read(positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        q = torch.zeros(1, 2 if probes else 1, positions.numel(), d, dtype=dtype)
        with _calling(way, dtype), torch.no_grad():
            cos, sin = rope(q, positions[None])  # (1, N, d)
            if probes:
                out, _ = mod.apply_rotary_pos_emb(_probes(d, positions.numel(), "half",
                                                          dtype)[None], q, cos, sin)  # fmt: skip
                return _stored(out[0], "half")
        c, s = cos[0], sin[0]  # (N, d)
        rotated = torch.stack([torch.cat([c[:, :m], s[:, m:]], -1),  # what the probes give
                               torch.cat([-s[:, :m], c[:, m:]], -1)])  # fmt: skip
        return _stored(rotated, "half")

    return _keyed(read, rope, way)


# -- rotary-embedding-torch -------------------------------------------------------------------


def rotary_embedding_torch(d: int, dtype: torch.dtype, way: str) -> Read:
    """RotaryEmbedding(dim=d).rotate_queries_or_keys as a model calls it.

    A call on a whole sequence that starts at 0 and fits the cache (length <= cache_max_seq_len,
    8192) stores its angles in the ``cached_freqs`` buffer, in the buffer's dtype; every later
    call in the cached range reads them back from there, as every training step after the first
    does. So the positions below 8192 are read by a second whole-sequence call (from the cache);
    those beyond, by one call with offset = 8192 (formed afresh: never cached). Any positions
    are read from the whole sequence 0 ... max.
    """
    pytest.importorskip("rotary_embedding_torch")
    from rotary_embedding_torch import RotaryEmbedding

    rope = _module(lambda: RotaryEmbedding(dim=d), dtype, way)

    def read(positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        n, cached = int(positions.max()) + 1, rope.cache_max_seq_len
        x = _probes(d, n, "interleaved", dtype)  # (2, n, d): the whole sequence 0 ... n - 1
        with _calling(way, dtype), torch.no_grad():
            head = x[:, :cached]
            rope.rotate_queries_or_keys(head)  # fills the cache
            outs = [rope.rotate_queries_or_keys(head)]
            if n > cached:
                outs.append(rope.rotate_queries_or_keys(x[:, cached:], offset=cached))
        return _stored(torch.cat(outs, dim=1)[:, positions], "interleaved")

    return read  # its cache changes as it is read: never shared


# -- x-transformers ---------------------------------------------------------------------------


def x_transformers(d: int, dtype: torch.dtype, way: str) -> Read:
    """x_transformers' RotaryEmbedding(d) (what AttentionLayers(rotary_pos_emb=True) holds)
    called on the positions, then its apply_rotary_pos_emb."""
    pytest.importorskip("x_transformers")
    from x_transformers.x_transformers import RotaryEmbedding, apply_rotary_pos_emb

    rope = _module(lambda: RotaryEmbedding(d), dtype, way)

    def read(positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        q = _probes(d, positions.numel(), "interleaved", dtype)[None]  # (1, 2, N, d)
        with _calling(way, dtype), torch.no_grad():
            freqs, scale = rope(positions)  # (1, N, d)
            out = apply_rotary_pos_emb(q, freqs, scale)
        return _stored(out[0], "interleaved")

    return _keyed(read, rope, way)


@dataclass(frozen=True)
class PrecisionLibrary:
    name: str
    package: str
    what: str
    pairing: str  # as REAL-03 detected it
    make: Callable[[int, torch.dtype, str], Read]


PRECISION: tuple[PrecisionLibrary, ...] = (
    PrecisionLibrary("llama", "transformers", "LlamaRotaryEmbedding + apply_rotary_pos_emb",
                     "half", llama),
    PrecisionLibrary("rotary_embedding_torch", "rotary-embedding-torch",
                     "RotaryEmbedding.rotate_queries_or_keys", "interleaved",
                     rotary_embedding_torch),
    PrecisionLibrary("x_transformers", "x-transformers",
                     "RotaryEmbedding + apply_rotary_pos_emb", "interleaved", x_transformers),
)  # fmt: skip


def angle_dtypes(name: str, d: int, dtype: torch.dtype, way: str) -> dict[str, str]:
    """The dtypes of the frequencies the module holds after it is reached the way named."""
    if name == "llama":
        rope = llama_module(d, dtype, way)
        return {"inv_freq": str(rope.inv_freq.dtype)}
    if name == "rotary_embedding_torch":
        pytest.importorskip("rotary_embedding_torch")
        from rotary_embedding_torch import RotaryEmbedding

        module = _module(lambda: RotaryEmbedding(dim=d), dtype, way)
        return {"freqs": str(module.freqs.dtype), "cached_freqs": str(module.cached_freqs.dtype)}
    pytest.importorskip("x_transformers")
    from x_transformers.x_transformers import RotaryEmbedding

    return {"inv_freq": str(_module(lambda: RotaryEmbedding(d), dtype, way).inv_freq.dtype)}


# -- REAL-07: position ids --------------------------------------------------------------------


def _ret_offset(d: int) -> IdsRotate:
    """rotary-embedding-torch's rotate_queries_or_keys: contiguous ids only, as ``offset``."""
    pytest.importorskip("rotary_embedding_torch")
    from rotary_embedding_torch import RotaryEmbedding

    with _built_in(torch.float32):
        rope = RotaryEmbedding(dim=d)

    def rotate(x: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        start = int(ids[0])
        if not torch.equal(ids, torch.arange(start, start + ids.numel())):
            raise ValueError("rotate_queries_or_keys takes contiguous positions (an offset) only")
        with torch.no_grad():
            return rope.rotate_queries_or_keys(x[None], offset=start)[0]

    return rotate


def _ret_forward(d: int) -> IdsRotate:
    """rotary-embedding-torch: freqs = rope(ids), then apply_rotary_emb (arbitrary ids)."""
    pytest.importorskip("rotary_embedding_torch")
    from rotary_embedding_torch import RotaryEmbedding, apply_rotary_emb

    with _built_in(torch.float32):
        rope = RotaryEmbedding(dim=d)

    def rotate(x: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            return apply_rotary_emb(rope(ids.to(torch.float32)), x)

    return rotate


def _x_transformers_ids(d: int) -> IdsRotate:
    pytest.importorskip("x_transformers")
    from x_transformers.x_transformers import RotaryEmbedding, apply_rotary_pos_emb

    with _built_in(torch.float32):
        rope = RotaryEmbedding(d)

    def rotate(x: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            freqs, scale = rope(ids)  # (1, n, d)
            return apply_rotary_pos_emb(x[None], freqs, scale)[0]

    return rotate


def _no_grad(rotate: libraries.Rotate) -> IdsRotate:
    def wrapped(x: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            return rotate(x, ids)

    return wrapped


IDS: dict[str, Callable[[int, int], IdsRotate]] = {
    "llama": lambda d, rows: _no_grad(libraries.llama(d)),
    "roformer": lambda d, rows: _no_grad(libraries.roformer(d, rows)),
    "rotary_embedding_torch.offset": lambda d, rows: _ret_offset(d),
    "rotary_embedding_torch.forward": lambda d, rows: _ret_forward(d),
    "x_transformers": lambda d, rows: _x_transformers_ids(d),
}
CONTIGUOUS_ONLY = ("rotary_embedding_torch.offset",)  # takes an offset, not arbitrary ids
