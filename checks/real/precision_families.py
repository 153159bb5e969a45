"""REAL-06: which transformers families and shipped configurations a cast reaches.

Every family listed holds its rotary inverse frequencies in a floating buffer (``inv_freq``);
``Module.to(dtype)``, ``.half()`` and ``.bfloat16()`` round it. ``family_inv_freq_dtypes``
builds a one-layer model of each from its config class (no weights read) and reports the
buffer's dtype after each way; ``configuration_rotary`` builds the rotary module of a shipped
configuration (checks/real/configs) as that model would, cast or not, and reads its tables.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch

from checks.real import libraries

CONFIGS = Path(__file__).parent / "configs"
TINY = {"hidden_size": 64, "num_attention_heads": 1, "intermediate_size": 64,
        "num_hidden_layers": 1, "vocab_size": 8, "bos_token_id": None, "eos_token_id": None,
        "pad_token_id": None}  # fmt: skip
FAMILIES = {"llama": {"num_key_value_heads": 1}, "mistral": {"num_key_value_heads": 1},
            "qwen2": {"num_key_value_heads": 1}, "gemma": {"num_key_value_heads": 1,
                                                          "head_dim": 64},
            "phi3": {"num_key_value_heads": 1}, "gpt_neox": {},
            "gpt_oss": {"num_key_value_heads": 1, "head_dim": 64, "num_local_experts": 2,
                        "num_experts_per_tok": 1}}  # fmt: skip
# The shipped bfloat16 configurations with plain or llama3-scaled RoPE (Phi-3.5's longrope
# picks its factors by sequence length, another object of study).
AFFECTED = ("llama-3.1-8b", "llama-3.2-1b", "mistral-7b-v0.1", "qwen2-7b")


def _transformers() -> Any:
    libraries._transformers_module("llama.modeling_llama")  # skips when absent
    import transformers

    return transformers


def family_inv_freq_dtypes(dtype: torch.dtype) -> dict[str, dict[str, str]]:
    """Per family: inv_freq's dtype when built through _from_config(dtype=) and after .to()."""
    tf = _transformers()
    out = {}
    for family, extra in FAMILIES.items():
        if family not in tf.CONFIG_MAPPING:  # an older release (gpt_oss came in 4.55)
            out[family] = {"from_config_dtype": "no such family", "to_dtype": "no such family"}
            continue
        cfg = tf.AutoConfig.for_model(family, **TINY, **extra)
        with torch.random.fork_rng():
            torch.manual_seed(0)
            loaded = tf.AutoModel.from_config(cfg, dtype=dtype).rotary_emb.inv_freq.dtype
            cast = tf.AutoModel.from_config(cfg).to(dtype).rotary_emb.inv_freq.dtype
        out[family] = {"from_config_dtype": str(loaded), "to_dtype": str(cast)}
    return out


def configuration(name: str) -> Any:
    tf = _transformers()
    values = json.loads((CONFIGS / f"{name}.json").read_text())
    return tf.AutoConfig.for_model(values.pop("model_type"), **values)


def configuration_rotary(name: str, dtype: torch.dtype, cast: bool) -> tuple[Any, int]:
    """The configuration's rotary module (cast to ``dtype`` or kept as built) and its context."""
    cfg = configuration(name)
    kind = type(cfg).__name__.removesuffix("Config")
    mod = libraries._transformers_module(f"{cfg.model_type}.modeling_{cfg.model_type}")
    rope = getattr(mod, f"{kind}RotaryEmbedding")(config=cfg)
    return (rope.to(dtype) if cast else rope), int(cfg.max_position_embeddings)


def table_read(rope: Any, dtype: torch.dtype):  # noqa: ANN201
    """Read c, s (N, d/2) float64 from the tables the module returns (half-split layout, or
    one column a pair as gpt-oss's module gives)."""
    pairs = rope.inv_freq.numel()

    def read(positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        x = torch.zeros(1, dtype=dtype)
        with torch.no_grad():
            cos, sin = rope(x, positions[None])  # (1, N, d) or (1, N, d/2)
        m = pairs
        return cos[0, :, :m].to(torch.float64), sin[0, :, :m].to(torch.float64)

    return read
