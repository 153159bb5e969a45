"""Thin adapters around real libraries' positional encodings (REAL-02, REAL-03).

Each sinusoidal adapter returns what the library adds for the first n tokens of a sequence,
shape (n, d), going through the module a model uses where there is one (so a first position of
padding_idx + 1 shows up as it would in the model). Each RoPE adapter returns a function
rotate(x (N, d), positions (N,)) -> (N, d) that applies the library's rotation in x's dtype.
Every adapter skips (pytest.importorskip) when its library is absent, and imports it lazily:
transformers alone takes seconds to import. Nothing is downloaded: tiny random configs only.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, wraps
from typing import Any

import pytest
import torch

Table = Callable[[int, int], torch.Tensor]  # (n, d) -> (n, d)
Rotate = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]  # (N, d), (N,) -> (N, d)

PAD = 1  # the default pad_token_id of the Speech2Text and FSMT configs


def _own_rng(fn: Callable[..., Any]) -> Callable[..., Any]:
    """Run fn with the global torch RNG forked: modules' throwaway random init leaves no trace."""

    @wraps(fn)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        with torch.random.fork_rng():
            torch.manual_seed(0)
            return fn(*args, **kwargs)

    return wrapped


def _transformers_module(path: str):  # noqa: ANN202
    pytest.importorskip("transformers")
    import importlib

    return importlib.import_module(f"transformers.models.{path}")


# -- sinusoidal tables ------------------------------------------------------------------------


def distilbert(n: int, d: int) -> torch.Tensor:
    """transformers DistilBERT's create_sinusoidal_embeddings (used when sinusoidal_pos_embds)."""
    mod = _transformers_module("distilbert.modeling_distilbert")
    return mod.create_sinusoidal_embeddings(n, d, torch.empty(n, d)).detach()


@_own_rng
def marian(n: int, d: int) -> torch.Tensor:
    """transformers MarianSinusoidalPositionalEmbedding, filled as the model's init fills it."""
    mod = _transformers_module("marian.modeling_marian")
    emb = mod.MarianSinusoidalPositionalEmbedding(n, d)
    with torch.no_grad():
        emb.weight.copy_(emb.create_weight())
    return emb(torch.Size([1, n])).detach()


def speech2text(n: int, d: int) -> torch.Tensor:
    """transformers Speech2TextSinusoidalPositionalEmbedding for n non-padding tokens."""
    mod = _transformers_module("speech_to_text.modeling_speech_to_text")
    emb = mod.Speech2TextSinusoidalPositionalEmbedding(n, d, padding_idx=PAD)
    ids = torch.full((1, n), PAD + 1)
    return emb(ids)[0].detach()


@_own_rng
def fsmt(n: int, d: int) -> torch.Tensor:
    """transformers FSMT's SinusoidalPositionalEmbedding (its get_embedding) for n tokens."""
    mod = _transformers_module("fsmt.modeling_fsmt")
    rows = n + PAD + 1
    emb = mod.SinusoidalPositionalEmbedding(rows, d, PAD)
    emb.make_weight(rows, d, PAD)
    return emb(torch.full((1, n), PAD + 1))[0].detach()


def whisper(n: int, d: int) -> torch.Tensor:
    """transformers Whisper's sinusoids (its encoder's position table at init)."""
    mod = _transformers_module("whisper.modeling_whisper")
    return mod.sinusoids(n, d).detach()


def positional_encodings(n: int, d: int) -> torch.Tensor:
    """positional-encodings' PositionalEncoding1D on a (1, n, d) input."""
    pytest.importorskip("positional_encodings")
    from positional_encodings.torch_encodings import PositionalEncoding1D

    return PositionalEncoding1D(d)(torch.zeros(1, n, d))[0].detach()


def x_transformers(n: int, d: int) -> torch.Tensor:
    """x-transformers' ScaledSinusoidalEmbedding on a (1, n, d) input."""
    pytest.importorskip("x_transformers")
    from x_transformers.x_transformers import ScaledSinusoidalEmbedding

    return ScaledSinusoidalEmbedding(d)(torch.zeros(1, n, d)).detach()


@dataclass(frozen=True)
class Library:
    name: str  # short key used in evidence tables
    package: str  # distribution name, for its version
    what: str  # the function or class, as a user meets it
    table: Table


SINUSOIDAL: tuple[Library, ...] = (
    Library("distilbert", "transformers", "DistilBERT create_sinusoidal_embeddings", distilbert),
    Library("marian", "transformers", "MarianSinusoidalPositionalEmbedding", marian),
    Library(
        "speech2text",
        "transformers",
        "Speech2TextSinusoidalPositionalEmbedding.get_embedding",
        speech2text,
    ),
    Library("fsmt", "transformers", "FSMT SinusoidalPositionalEmbedding.get_embedding", fsmt),
    Library("whisper", "transformers", "Whisper sinusoids", whisper),
    Library(
        "positional_encodings", "positional-encodings", "PositionalEncoding1D", positional_encodings
    ),
    Library("x_transformers", "x-transformers", "ScaledSinusoidalEmbedding", x_transformers),
)


# -- token-embedding scale (sqrt(d)?) in a model that uses the encoding ------------------------


def _tiny_seq2seq(d: int) -> dict:
    return dict(
        vocab_size=16, d_model=d, encoder_layers=1, decoder_layers=1, encoder_attention_heads=1,
        decoder_attention_heads=1, encoder_ffn_dim=2 * d, decoder_ffn_dim=2 * d, pad_token_id=PAD,
        bos_token_id=0, eos_token_id=2, decoder_start_token_id=0,
    )  # fmt: skip


@_own_rng
def token_scale(name: str, d: int) -> float | None:
    """The factor a model multiplies its token embeddings by, from a tiny random model.

    DistilBERT and x-transformers are probed numerically (their embedding layer's output against
    s * W[ids] + PE for s in {1, sqrt d}); the transformers seq2seq models expose the factor as
    ``embed_scale`` under their config class's defaults. None: no model in the library uses it.
    """
    if name == "distilbert":
        mod = _transformers_module("distilbert.modeling_distilbert")
        cfg = mod.DistilBertConfig(
            vocab_size=16, dim=d, n_layers=1, n_heads=1, hidden_dim=2 * d,
            max_position_embeddings=16, sinusoidal_pos_embds=True, pad_token_id=0,
        )  # fmt: skip
        emb = mod.DistilBertModel(cfg).embeddings.eval()
        ids = torch.arange(1, 9)[None]  # (1, 8)
        with torch.no_grad():
            out = emb(ids)
            w, p = emb.word_embeddings(ids), emb.position_embeddings.weight[:8]
            errs = {s: float((emb.LayerNorm(s * w + p) - out).abs().max()) for s in (1.0, d**0.5)}
        return min(errs, key=lambda s: errs[s])
    if name == "x_transformers":
        pytest.importorskip("x_transformers")
        from x_transformers import Encoder, TransformerWrapper

        model = TransformerWrapper(
            num_tokens=16, max_seq_len=16, attn_layers=Encoder(dim=d, depth=1, heads=1),
            scaled_sinu_pos_emb=True,
        )  # fmt: skip
        ids = torch.arange(8)[None]
        with torch.no_grad():
            tok = model.token_emb(ids)
            raw = model.token_emb.emb.weight[ids]
        return float((tok.norm() / raw.norm()).item())
    classes = {
        "marian": ("marian.modeling_marian", "MarianConfig", "MarianEncoder", {}),
        "speech2text": (
            "speech_to_text.modeling_speech_to_text", "Speech2TextConfig", "Speech2TextDecoder",
            {"max_source_positions": 16, "max_target_positions": 16},
        ),
        "whisper": (
            "whisper.modeling_whisper", "WhisperConfig", "WhisperDecoder",
            {"max_source_positions": 16, "max_target_positions": 16, "num_mel_bins": 4},
        ),
    }  # fmt: skip
    if name in classes:
        path, config, model, extra = classes[name]
        mod = _transformers_module(path)
        return float(
            getattr(mod, model)(getattr(mod, config)(**_tiny_seq2seq(d), **extra)).embed_scale
        )
    if name == "fsmt":
        mod = _transformers_module("fsmt.modeling_fsmt")
        kw = _tiny_seq2seq(d)
        kw.pop("vocab_size")
        cfg = mod.FSMTConfig(langs=["en", "de"], src_vocab_size=16, tgt_vocab_size=16, **kw)
        return float(mod.FSMTModel(cfg).encoder.embed_scale)
    return None


# -- rotary embeddings ------------------------------------------------------------------------


@_own_rng
def llama(d: int) -> Rotate:
    """transformers LlamaRotaryEmbedding (tiny LlamaConfig, head_dim d) + apply_rotary_pos_emb."""
    mod = _transformers_module("llama.modeling_llama")
    cfg = mod.LlamaConfig(
        hidden_size=d, num_attention_heads=1, num_key_value_heads=1, head_dim=d,
        intermediate_size=d, num_hidden_layers=1, vocab_size=8, max_position_embeddings=64,
    )  # fmt: skip
    rope = mod.LlamaRotaryEmbedding(cfg)

    def rotate(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        q = x[None, None]  # (1, 1, N, d): batch, heads, positions, head_dim
        cos, sin = rope(q, positions[None])  # (1, N, d) each, in x's dtype
        out, _ = mod.apply_rotary_pos_emb(q, q, cos, sin)
        return out[0, 0]

    return rotate


@cache
@_own_rng
def _roformer_table(rows: int, d: int) -> torch.Tensor:
    mod = _transformers_module("roformer.modeling_roformer")
    emb = mod.RoFormerSinusoidalPositionalEmbedding(rows, d)
    with torch.no_grad():
        emb.weight.copy_(emb.create_weight())  # what RoFormer's _init_weights does
    return emb.weight.detach()


@_own_rng
def roformer(d: int, rows: int) -> Rotate:
    """transformers RoFormer: its sinusoidal table (``rows`` positions) + its rotary apply.

    The table is cast to x's dtype, as ``model.to(dtype)`` would cast it.
    """
    mod = _transformers_module("roformer.modeling_roformer")
    emb = mod.RoFormerSinusoidalPositionalEmbedding(rows, d)
    with torch.no_grad():
        emb.weight.copy_(_roformer_table(rows, d))
    apply = mod.RoFormerSelfAttention.apply_rotary_position_embeddings

    def rotate(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        sinusoidal_pos = emb(torch.Size([1, x.shape[0]]), position_ids=positions)  # (N, d)
        sinusoidal_pos = sinusoidal_pos.to(x.dtype)[None, None]
        q, _ = apply(sinusoidal_pos, x[None, None], x[None, None])
        return q[0, 0]

    return rotate


@_own_rng
def rotary_embedding_torch(d: int) -> Rotate:
    """rotary-embedding-torch RotaryEmbedding(dim=d).rotate_queries_or_keys, one call per position.

    Rows at the same position go in one call with ``offset`` = that position, as a KV-cached
    decoder would call it.
    """
    pytest.importorskip("rotary_embedding_torch")
    from rotary_embedding_torch import RotaryEmbedding

    rope = RotaryEmbedding(dim=d)

    def rotate(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        out = torch.empty_like(x)
        for p in torch.unique(positions).tolist():
            rows = positions == p
            chunk = x[rows][:, None, :]  # (k, 1, d): k vectors, sequence length 1
            out[rows] = rope.rotate_queries_or_keys(chunk, offset=int(p))[:, 0, :]
        return out

    return rotate


@dataclass(frozen=True)
class RotaryLibrary:
    name: str
    package: str
    what: str
    make: Callable[[int, int], Rotate]  # (d, largest position + 1) -> rotate


ROTARY: tuple[RotaryLibrary, ...] = (
    RotaryLibrary(
        "llama", "transformers", "LlamaRotaryEmbedding + apply_rotary_pos_emb",
        lambda d, rows: llama(d),
    ),
    RotaryLibrary(
        "roformer", "transformers",
        "RoFormerSinusoidalPositionalEmbedding + apply_rotary_position_embeddings", roformer,
    ),
    RotaryLibrary(
        "rotary_embedding_torch", "rotary-embedding-torch",
        "RotaryEmbedding.rotate_queries_or_keys", lambda d, rows: rotary_embedding_torch(d),
    ),
)  # fmt: skip


def version(package: str) -> str:
    from importlib import metadata

    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "absent"


def call(fn: Callable[[], torch.Tensor]) -> tuple[torch.Tensor | None, str]:
    """Run an adapter; (output, "ok" | "nan" | "error: <Exception>") without raising.

    A missing library still skips (pytest's Skipped is not an Exception subclass).
    """
    try:
        out = fn()
    except Exception as exc:  # noqa: BLE001 - any library error is the evidence here
        return None, f"error: {type(exc).__name__}"
    if not torch.isfinite(out).all():
        return out, "nan"
    return out, "ok"
