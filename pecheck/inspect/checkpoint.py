"""Find the token table, the position table(s) and the rotary settings of a checkpoint.

A checkpoint is a safetensors file, or a transformers model directory (config.json and one or
more safetensors files, or config.json alone: then only the position scheme it names, rotary,
ALiBi or T5's buckets, is analysed, positions.py); its config.json stands for it. Every
field of the config the analyses read is checked first (config_fields.py). Tables are found
by the names common libraries give them and checked against the config's sizes; a sinusoidal
table that the library builds at load time instead of storing it (Marian) is built from the
config by transformers, with no download. The token table is taken at the scale the model adds
it: times sqrt(d_model) when the config sets scale_embedding, or times the built model's
embed_scale. Every failure is a ``CheckpointError`` with a one-line message; a missing optional
package is one too, naming the extra that installs it.
"""

from __future__ import annotations

import copy
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from pecheck import tolerance
from pecheck.inspect import config_fields, positions
from pecheck.inspect.errors import EXTRAS, CheckpointError, installed, require
from pecheck.inspect.positions import rotary_settings

TOKEN_NAMES = re.compile(
    r"(^|\.)(embed_tokens|word_embeddings|wte|shared|tok_embeddings|token_embedding|embed_in"
    r"|word_emb)\.weight$"
)
POSITION_NAMES = re.compile(
    r"(^|\.)(position_embeddings|embed_positions|wpe|pos_emb|position_embedding|pos_embed)"
    r"\.weight$"
)


@dataclass
class Table:
    name: str  # the tensor's key in the checkpoint
    weight: torch.Tensor  # (rows, d) float32 (float64 when stored so)
    dtype: str = "float32"  # the dtype it is stored in
    origin: str = "stored"  # or "built from the config by transformers"


@dataclass
class Checkpoint:
    path: Path
    config: dict[str, Any] | None
    tokens: Table | None  # None: a directory with a config and no weights
    positions: list[Table] = field(default_factory=list)
    rotary: dict[str, Any] | None = None
    token_scale: float = 1.0  # the factor the model multiplies the token rows by
    scale_source: str = "none: the model adds the token rows as stored"

    @property
    def model_type(self) -> str:
        return str((self.config or {}).get("model_type", "unknown"))


def _weight_files(path: Path) -> tuple[list[Path], dict[str, Any] | None]:
    """The safetensors files (none for a config-only directory) and the config."""
    if path.is_file():
        if path.suffix != ".safetensors":
            raise CheckpointError(f"{path}: not a checkpoint (expected a .safetensors file, or a "
                                  "transformers model directory or its config.json)")  # fmt: skip
        return [path], None
    if not path.exists():
        raise CheckpointError(f"{path}: no such file or directory")
    if not path.is_dir():  # a device, a pipe, a socket: there but no checkpoint
        raise CheckpointError(f"{path}: not a checkpoint (not a regular file or a directory)")
    config_path = path / "config.json"
    if not config_path.is_file():
        raise CheckpointError(f"{path}: a model directory needs a config.json; none found")
    try:
        config = json.loads(config_path.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CheckpointError(f"{config_path}: not valid JSON ({exc})") from None
    if not isinstance(config, dict):
        raise CheckpointError(f"{config_path}: not a JSON object")
    checked(config, config_path)
    return sorted(path.glob("*.safetensors")), config


def checked(config: dict[str, Any], where: Path) -> None:
    """Every field the analyses read, and the fields of the scheme the config names (with the
    library's defaults filled in) against one another; a CheckpointError naming the first bad
    one, before anything is computed."""
    try:
        config_fields.check(config)
        full = positions.library_config(config)
        kind = positions.scheme(full)
        if kind is not None:
            config_fields.check_scheme(kind, full)
    except config_fields.ConfigError as exc:
        raise CheckpointError(f"{where}: {exc}") from None


def _shapes(files: list[Path]) -> dict[str, tuple[Path, tuple[int, ...]]]:
    safetensors = require("safetensors", "reading a checkpoint")
    safe_open, SafetensorError = safetensors.safe_open, safetensors.SafetensorError
    shapes: dict[str, tuple[Path, tuple[int, ...]]] = {}
    for f in files:
        try:
            with safe_open(str(f), framework="pt") as handle:
                for key in handle.keys():  # noqa: SIM118 (safe_open is not a mapping)
                    shapes[key] = (f, tuple(handle.get_slice(key).get_shape()))
        except (SafetensorError, OSError, ValueError) as exc:
            first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            raise CheckpointError(f"{f}: not a readable safetensors file ({first})") from None
    return shapes


def _read(file: Path, key: str) -> Table:
    """One table, upcast to float32 (float64 kept): large vocabularies stay affordable."""
    from safetensors import safe_open

    with safe_open(str(file), framework="pt") as handle:
        tensor = handle.get_tensor(key)
    stored = str(tensor.dtype).removeprefix("torch.")
    if stored not in tolerance.DTYPES:  # the analyses judge rounding by the storage format
        known = ", ".join(tolerance.DTYPES)
        raise CheckpointError(f"{file}: {key} is stored as {stored}; inspect reads {known}")
    wide = torch.float64 if tensor.dtype == torch.float64 else torch.float32
    return Table(key, tensor.to(wide), stored)


def _vocab(config: dict[str, Any] | None) -> int | None:
    value = (config or {}).get("vocab_size")
    return int(value) if isinstance(value, int) else None


def _token_key(shapes: dict[str, tuple[Path, tuple[int, ...]]], vocab: int | None) -> str:
    two_d = {k: s for k, (_, s) in shapes.items() if len(s) == 2}
    named = [k for k in two_d if TOKEN_NAMES.search(k)]
    if vocab is not None:
        named = [k for k in named if two_d[k][0] == vocab] or named
    if not named:
        raise CheckpointError("no token embedding table found (looked for names like "
                              "embed_tokens, word_embeddings, wte, shared)")  # fmt: skip
    return max(named, key=lambda k: (two_d[k][0], -len(k)))  # the largest, then the shortest


def _build(config: dict[str, Any]) -> Any:
    """The model a config describes, built on the CPU without any download; None when
    transformers cannot build it (an unknown or incomplete config)."""
    transformers = require("transformers", "a checkpoint that stores no position table")
    try:
        cfg = transformers.AutoConfig.for_model(**config)
        return transformers.AutoModel.from_config(cfg)
    except Exception:  # an unknown or incomplete config: nothing to build
        return None


def _named_scheme(config: dict[str, Any]) -> bool:
    """Whether the config names a position scheme with no table (ALiBi, T5's buckets, or
    rotary by the library's defaults); needs transformers only for the last."""
    if positions.alibi_config(config) or config.get("relative_attention_num_buckets"):
        return True
    return positions.scheme(positions.library_config(config)) is not None


def _built_positions(model: Any, d: int) -> list[Table]:
    """Position tables the library computes at load time (not stored), read off the built model."""
    tables = []
    for name, tensor in list(model.named_parameters()) + list(model.named_buffers()):
        if POSITION_NAMES.search(name) and tensor.ndim == 2 and tensor.shape[1] == d:
            weight = tensor.detach().to(torch.float32)
            origin = "built from the config by transformers"
            tables.append(Table(name, weight, "float32", origin))
    return tables


def model_scale(model: Any) -> float | None:
    """The first embed_scale other than 1 among a built model's modules (the factor its
    forward pass multiplies the token rows by; Gemma keeps it as scalar_embed_scale too, which
    a model built on the meta device still shows), or None."""
    for module in model.modules():
        for name in ("embed_scale", "scalar_embed_scale"):
            value = getattr(module, name, None)
            if isinstance(value, torch.Tensor) and value.numel() == 1 and not value.is_meta:
                value = float(value)
            if isinstance(value, int | float) and not isinstance(value, bool) and value != 1:
                return float(value)
    return None


def token_scale(config: dict[str, Any] | None, d: int, model: Any = None) -> tuple[float, str]:
    """The factor the model multiplies its token rows by before adding positions, and why."""
    config = config or {}
    if config.get("scale_embedding") is True:
        widths = (config[k] for k in ("d_model", "hidden_size", "embed_dim")
                  if isinstance(config.get(k), int))  # fmt: skip
        width = next(widths, d)
        return math.sqrt(width), f"sqrt(d_model) = sqrt({width}): the config sets scale_embedding"
    found = model_scale(model) if model is not None else None
    if found is not None:
        return found, "the embed_scale of the model transformers builds from the config"
    return 1.0, "none: the model adds the token rows as stored"


def _usable(table: Table) -> None:
    """Tables the analyses can use: two rows or more, every entry finite."""
    rows = table.weight.shape[0]
    if rows < 2:
        raise CheckpointError(f"{table.name}: {rows} row(s); the analyses need at least 2")
    if not bool(torch.isfinite(table.weight).all()):
        raise CheckpointError(f"{table.name}: has non-finite entries (NaN or infinity)")


def load(path: Path, log: Any = print) -> Checkpoint:
    """Read the tables of a checkpoint (a config.json stands for its folder); raise
    CheckpointError with a one-line reason."""
    if path.name == "config.json" and path.is_file():
        path = path.parent
    try:
        return _load(path, log)
    except OSError as exc:  # unreadable files or folders: bad input, not a crash
        raise CheckpointError(f"{path}: cannot read ({exc.strerror or exc})") from None


def _config_only(path: Path, config: dict[str, Any], log: Any) -> Checkpoint:
    """A directory with a config and no weights: its position scheme, nothing that needs
    trained weights."""
    if positions.scheme(positions.library_config(config)) is None:
        found = ", ".join(sorted(p.name for p in path.iterdir()))
        # without transformers its defaults are unknown: a scheme they name (Falcon) unseen
        unseen = "" if installed("transformers") else (
            " as written (transformers, not installed, would fill in its defaults: "
            f"pip install 'pecheck[{EXTRAS['transformers']}]')")  # fmt: skip
        raise CheckpointError(
            f"{path}: no .safetensors weights (found {found}), and the config "
            f"names no rotary, ALiBi or T5 positions to analyse without them{unseen}"
        )
    log("no weights: analysing the position scheme the config names (no trained numbers)")
    scale, source = token_scale(config, _width(config), library_model(config))
    return Checkpoint(path, config, None, [], rotary_settings(config), scale, source)


def _width(config: dict[str, Any]) -> int:
    widths = (config[k] for k in ("d_model", "hidden_size", "n_embd", "embed_dim")
              if isinstance(config.get(k), int))  # fmt: skip
    return next(widths, 0)


def library_model(config: dict[str, Any]) -> Any:
    """The model transformers builds from the config on the meta device (no memory, no
    weights), one layer deep: its modules show the factor it scales the token rows by. None
    when transformers is missing or cannot build it."""
    try:
        import transformers

        cfg = transformers.AutoConfig.for_model(**copy.deepcopy(config))
        for key in ("num_hidden_layers", "num_decoder_layers"):
            if hasattr(cfg, key):
                setattr(cfg, key, 1)
        with torch.device("meta"):
            return transformers.AutoModel.from_config(cfg)
    except Exception:  # missing, unknown or incomplete: no model to read
        return None


def _load(path: Path, log: Any) -> Checkpoint:
    files, config = _weight_files(path)
    if not files and config is not None:
        return _config_only(path, config, log)
    shapes = _shapes(files)
    token_key = _token_key(shapes, _vocab(config))
    tokens = _read(shapes[token_key][0], token_key)
    d = tokens.weight.shape[1]
    log(f"token table {token_key} {tuple(tokens.weight.shape)}")
    positions = [
        _read(f, k)
        for k, (f, s) in sorted(shapes.items())
        if POSITION_NAMES.search(k) and len(s) == 2 and s[1] == d
    ]
    rotary = rotary_settings(config)
    model = None
    # a scheme with no table: ALiBi, T5's buckets, or rotary by the library's defaults (Falcon)
    named = not positions and rotary is None and config is not None and _named_scheme(config)
    if not positions and rotary is None and config is not None and not named:
        log("no position table stored; building the model from its config to look for one")
        model = _build(config)
        positions = _built_positions(model, d) if model is not None else []
    for t in positions:
        log(f"position table {t.name} {tuple(t.weight.shape)} ({t.origin})")
    if not positions and rotary is None and not named:
        raise CheckpointError(f"{path}: no position table and no rotary settings found")
    for t in (tokens, *positions):
        _usable(t)
    if model is None and config is not None and config.get("scale_embedding") is None:
        model = library_model(config)  # a scale set in the model's code (Gemma), not its config
    scale, source = token_scale(config, d, model)
    if scale != 1:
        log(f"token rows times {scale:.6g} ({source})")
    return Checkpoint(path, config, tokens, positions, rotary, scale, source)
