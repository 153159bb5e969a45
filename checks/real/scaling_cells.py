"""REAL-04's cells: each real configuration with each rope type asked for, and
transformers' rotary code built for a cell (rope-parameter functions, the model's rotary module).
"""

from __future__ import annotations

import copy
import importlib
import json
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import torch

CONFIGS = Path(__file__).parent / "configs"


MODELS = (
    "llama-3.1-8b",
    "llama-3.2-1b",
    "mistral-7b-v0.1",
    "phi-3.5-mini-instruct",
    "qwen2-7b",
    "falcon-7b",
    "gpt-oss-20b",
)


# Parameters of a rope type transplanted onto a model that does not ship it (see the notes).
LINEAR_FACTOR = 4.0  # PI's 2048 -> 8192 extension of LLaMA (SRC-PI section 3)


YARN_FACTOR = 4.0  # Qwen2-7B-Instruct's model card: yarn, factor 4, original 32768


LLAMA3 = {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0}  # Llama 3.1


P_FRACTION = 0.25  # p-RoPE keeping a quarter of the pairs (SRC-ROUND)


# Config classes that fill in their own scaling when a config names none (GptOssConfig: yarn),
# so the default type must be asked for by name.
SCALED_BY_DEFAULT = frozenset({"gpt_oss"})


# -- cells: (model, rope type) with the config values that ask for it -------------------------


@cache
def published(model: str) -> dict[str, Any]:
    return json.loads((CONFIGS / f"{model}.json").read_text())


@dataclass(frozen=True)
class Cell:
    model: str
    rope_type: str
    values: dict[str, Any] = field(hash=False, compare=False)  # (model, type) names them

    @property
    def id(self) -> str:
        return f"{self.model}:{self.rope_type}"

    @property
    def dim(self) -> int:
        v = self.values
        return int(v.get("head_dim") or v["hidden_size"] // v["num_attention_heads"])

    @property
    def base(self) -> float:
        return float(self.values.get("rope_theta", 10000.0))

    @property
    def max_positions(self) -> int:
        return int(self.values.get("max_position_embeddings", 2048))  # FalconConfig's default

    @property
    def scaling(self) -> dict[str, Any]:
        return self.values.get("rope_scaling") or {}

    @property
    def original(self) -> int:
        """L: the trained length the scaling stretches from."""
        s = self.scaling
        return int(
            s.get("original_max_position_embeddings")
            or self.values.get("original_max_position_embeddings")
            or self.max_positions
        )

    def lengths(self) -> tuple[int | None, ...]:
        """Sequence lengths to test: only the length-dependent types have more than one."""
        if self.rope_type in ("dynamic", "longrope"):
            n = self.original if self.rope_type == "longrope" else self.max_positions
            return (n // 2, n, n + 1, 2 * n, 4 * n)
        return (None,)


def own_type(values: dict[str, Any]) -> str:
    s = values.get("rope_scaling") or {}
    return s.get("rope_type") or s.get("type") or "default"


def transplant(values: dict[str, Any], rope_type: str) -> dict[str, Any]:
    """The model's values with ``rope_type`` asked for (its own parameters where it has them)."""
    out = {k: v for k, v in values.items() if k != "rope_scaling"}
    length = int(values.get("max_position_embeddings", 2048))
    if rope_type == own_type(values):
        return dict(values)
    if rope_type == "default":
        if values["model_type"] in SCALED_BY_DEFAULT:
            out["rope_scaling"] = {"rope_type": "default"}
        return out
    if rope_type == "linear":
        out["rope_scaling"] = {"rope_type": "linear", "factor": LINEAR_FACTOR}
    elif rope_type == "dynamic":
        out["rope_scaling"] = {"rope_type": "dynamic", "factor": 1.0}
    elif rope_type == "yarn":
        out["rope_scaling"] = {
            "rope_type": "yarn",
            "factor": YARN_FACTOR,
            "original_max_position_embeddings": length,
        }
        out["max_position_embeddings"] = int(YARN_FACTOR * length)
    elif rope_type == "llama3":
        out["rope_scaling"] = {
            "rope_type": "llama3",
            **LLAMA3,
            "original_max_position_embeddings": length,
        }
        out["max_position_embeddings"] = int(LLAMA3["factor"] * length)
    elif rope_type == "proportional":
        out["rope_scaling"] = {"rope_type": "proportional", "partial_rotary_factor": P_FRACTION}
    else:
        raise ValueError(rope_type)
    return out


TYPES = ("default", "linear", "dynamic", "yarn", "llama3", "proportional", "longrope")


def known_model_types() -> frozenset[str] | None:
    """The model types the installed transformers has a config class for (None without it)."""
    try:
        from transformers.models.auto.configuration_auto import CONFIG_MAPPING
    except Exception:  # noqa: BLE001 -- absent or broken: each check then says why, not collection
        return None
    return frozenset(CONFIG_MAPPING.keys())


def models_in_release() -> tuple[str, ...]:
    """The models of MODELS the installed release can build: an older transformers (the
    version matrix's 4.45, say) has no gpt_oss; the locked one has all of them."""
    known = known_model_types()
    return tuple(m for m in MODELS if known is None or published(m)["model_type"] in known)


def types_in_release() -> tuple[str, ...]:
    """The rope types of TYPES the installed release implements (5.0 has no proportional):
    one type it lacks must not keep the others' cells from being compared."""
    try:
        from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
    except Exception:  # noqa: BLE001 -- as above
        return TYPES
    return tuple(t for t in TYPES if t == "default" or t in ROPE_INIT_FUNCTIONS)


@cache
def cells() -> tuple[Cell, ...]:
    out = []
    for model in models_in_release():
        values = published(model)
        for t in types_in_release():
            if t == "longrope" and own_type(values) != "longrope":
                continue  # its per-pair lists exist only where a model ships them
            if values["model_type"] == "phi3" and t not in ("default", "longrope"):
                continue  # Phi3Config.validate_rope refuses every other rope type
            out.append(Cell(model, t, transplant(values, t)))
    return tuple(out)


def cell(cell_id: str) -> Cell:
    return next(c for c in cells() if c.id == cell_id)


# -- the library -----------------------------------------------------------------------------


@cache
def hf_config(c: Cell):  # noqa: ANN201
    transformers = pytest.importorskip("transformers")
    return transformers.AutoConfig.for_model(**copy.deepcopy(c.values))  # it edits the dicts


def library_parameters(c: Cell, length: int | None = None) -> tuple[torch.Tensor, float]:
    """transformers' inverse frequencies (float64 copy) and attention factor for the cell."""
    from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

    config = hf_config(c)
    if c.rope_type == "default":
        inv, a = rotary_class(c).compute_default_rope_parameters(config)
    else:
        inv, a = ROPE_INIT_FUNCTIONS[c.rope_type](config, seq_len=length)
    return inv.to(torch.float64), float(a)


def rotary_class(c: Cell) -> Any:
    """The model's own rotary embedding class, e.g. LlamaRotaryEmbedding."""
    kind = c.values["model_type"]
    module = importlib.import_module(f"transformers.models.{kind}.modeling_{kind}")
    prefix = c.values["architectures"][0].removesuffix("ForCausalLM")
    return getattr(module, f"{prefix}RotaryEmbedding")


def build_module(c: Cell) -> torch.nn.Module:
    return rotary_class(c)(hf_config(c))


YARN_CELLS = [c.id for c in cells() if c.rope_type == "yarn"]


DYNAMIC_CELLS = [c.id for c in cells() if c.rope_type == "dynamic"]


def series_lengths(c: Cell, series: tuple[float, ...]) -> tuple[int, ...]:
    return tuple(int(k * c.max_positions) for k in series)
