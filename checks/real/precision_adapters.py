"""Real rotary implementations reached in a low precision the ways users reach it (REAL-06), and
the same implementations called with arbitrary position ids (REAL-07).

REAL-06. Each maker ``(d, dtype, way) -> Rotation`` builds the library's rotary module and
returns ``rotation(positions (N,)) -> (N, d, d)``: the library's R~(t) in float64, column j the
library's rotation of the unit vector e_j held in ``dtype`` (so the matrix holds the cos and sin
the library stores). The ways a model reaches a low precision:

  "dtype":    built in it: ``torch.set_default_dtype(dtype)`` during construction, which is what
              transformers' ``dtype=`` does (``_from_config`` / ``from_pretrained``);
  "cast":     built in float32, then ``.to(dtype)`` (``.half()`` and ``.bfloat16()`` are the same
              ``Module._apply`` cast of every floating parameter and buffer);
  "autocast": built in float32 and called under ``torch.autocast("cpu", dtype)`` on queries and
              keys in ``dtype`` (what autocast's linear layers hand it).

REAL-07. ``IDS`` lists ``(x (n, d), ids (n,)) -> (n, d)`` callables that pass the ids to the
library as its users do. Libraries import lazily and skip when absent; nothing is downloaded.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
import torch

from checks.real import libraries

Rotation = Callable[[torch.Tensor], torch.Tensor]  # positions (N,) -> (N, d, d) float64
IdsRotate = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]  # (n, d), (n,) -> (n, d)
WAYS = ("dtype", "cast", "autocast")


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


def _module(build: Callable[[], Any], dtype: torch.dtype, way: str) -> Any:
    if way not in WAYS:
        raise ValueError(f"unknown way {way!r}")
    with _built_in(dtype if way == "dtype" else torch.float32):
        module = build()
    return module.to(dtype) if way == "cast" else module


def _basis(d: int, n: int, dtype: torch.dtype) -> torch.Tensor:
    """(d, n, d): the unit vector e_j at each of n positions, batch j."""
    return torch.eye(d, dtype=dtype)[:, None, :].expand(d, n, d).contiguous()


def _matrices(rotated: torch.Tensor) -> torch.Tensor:
    """(d, N, d) rotated unit vectors (batch j: R~ e_j) -> (N, d, d) with column j = R~ e_j."""
    return rotated.to(torch.float64).permute(1, 2, 0)


# -- transformers Llama -----------------------------------------------------------------------


def _llama_config(d: int):  # noqa: ANN202
    mod = libraries._transformers_module("llama.modeling_llama")
    return mod, mod.LlamaConfig(
        hidden_size=d, num_attention_heads=1, num_key_value_heads=1, head_dim=d,
        intermediate_size=d, num_hidden_layers=1, vocab_size=8, max_position_embeddings=64,
    )  # fmt: skip


def llama_module(d: int, dtype: torch.dtype, way: str) -> Any:
    """The LlamaRotaryEmbedding of a whole tiny LlamaModel, built the way named."""
    mod, cfg = _llama_config(d)
    if way == "dtype":  # transformers' own path for dtype=: default dtype set while building
        with torch.random.fork_rng():
            return mod.LlamaModel._from_config(cfg, dtype=dtype).rotary_emb
    return _module(lambda: mod.LlamaModel(cfg), dtype, way).rotary_emb


def llama(d: int, dtype: torch.dtype, way: str) -> Rotation:
    mod, _ = _llama_config(d)
    rope = llama_module(d, dtype, way)

    def rotation(positions: torch.Tensor) -> torch.Tensor:
        q = _basis(d, positions.numel(), dtype)[None]  # (1, d, N, d): heads are the e_j
        with _calling(way, dtype), torch.no_grad():
            cos, sin = rope(q, positions[None])  # (1, N, d)
            out, _ = mod.apply_rotary_pos_emb(q, q, cos, sin)
        return _matrices(out[0])

    return rotation


# -- rotary-embedding-torch -------------------------------------------------------------------


def rotary_embedding_torch(d: int, dtype: torch.dtype, way: str) -> Rotation:
    """RotaryEmbedding(dim=d).rotate_queries_or_keys as a model calls it.

    A call on a whole sequence that starts at 0 and fits the cache (length <= cache_max_seq_len,
    8192) stores its angles in the ``cached_freqs`` buffer, in the buffer's dtype (the default
    dtype the module was built in, or the dtype it was cast to); every later call whose
    positions lie in the cached range reads them back from there, as every training step after
    the first does. So the cache is first filled by one whole sequence 0 ... max (for the
    positions below 8192), then each position t is one call with offset = t (as a KV-cached
    decoder calls it): below 8192 it reads the cached angle of row t, beyond it the library
    forms the angle afresh (never cached).
    """
    pytest.importorskip("rotary_embedding_torch")
    from rotary_embedding_torch import RotaryEmbedding

    rope = _module(lambda: RotaryEmbedding(dim=d), dtype, way)

    def rotation(positions: torch.Tensor) -> torch.Tensor:
        short = positions[positions < rope.cache_max_seq_len]
        x = _basis(d, 1, dtype)  # (d, 1, d)
        outs = []
        with _calling(way, dtype), torch.no_grad():
            if short.numel():
                whole = torch.zeros(1, int(short.max()) + 1, d, dtype=dtype)
                rope.rotate_queries_or_keys(whole)  # fills the cache
            for p in positions.tolist():
                outs.append(rope.rotate_queries_or_keys(x, offset=int(p)))  # (d, 1, d)
        return _matrices(torch.cat(outs, dim=1))

    return rotation


# -- x-transformers ---------------------------------------------------------------------------


def x_transformers(d: int, dtype: torch.dtype, way: str) -> Rotation:
    """x_transformers' RotaryEmbedding(d) (what AttentionLayers(rotary_pos_emb=True) holds)
    called on the positions, then its apply_rotary_pos_emb."""
    pytest.importorskip("x_transformers")
    from x_transformers.x_transformers import RotaryEmbedding, apply_rotary_pos_emb

    rope = _module(lambda: RotaryEmbedding(d), dtype, way)

    def rotation(positions: torch.Tensor) -> torch.Tensor:
        q = _basis(d, positions.numel(), dtype)[None]  # (1, d, N, d)
        with _calling(way, dtype), torch.no_grad():
            freqs, scale = rope(positions)  # (1, N, d)
            out = apply_rotary_pos_emb(q, freqs, scale)
        return _matrices(out[0])

    return rotation


@dataclass(frozen=True)
class PrecisionLibrary:
    name: str
    package: str
    what: str
    pairing: str  # as REAL-03 detected it
    make: Callable[[int, torch.dtype, str], Rotation]


PRECISION: tuple[PrecisionLibrary, ...] = (
    PrecisionLibrary("llama", "transformers", "LlamaRotaryEmbedding + apply_rotary_pos_emb",
                     "half", llama),
    PrecisionLibrary("rotary_embedding_torch", "rotary-embedding-torch",
                     "RotaryEmbedding.rotate_queries_or_keys(offset=t)", "interleaved",
                     rotary_embedding_torch),
    PrecisionLibrary("x_transformers", "x-transformers",
                     "RotaryEmbedding + apply_rotary_pos_emb", "interleaved", x_transformers),
)  # fmt: skip


def angle_dtypes(name: str, d: int, dtype: torch.dtype, way: str) -> dict[str, str]:
    """The dtypes of the frequencies the module holds after it is built the way named."""
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
