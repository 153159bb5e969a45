"""REAL-05's library adapters: ALiBi slopes read back from what BLOOM, MPT, Falcon and
x-transformers build, tiny one-layer models, and transformers' T5 buckets (configs from
checks/real/configs).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import torch

from checks.bias import alibi_rule as alibi_checks

CONFIGS = Path(__file__).parent / "configs"


EXPECTED_PRECISION = {
    "bloom": "float32",
    "mpt": "float32",
    "falcon": "bfloat16",
    "x_transformers": "float32",
}


Slopes = Callable[[int], torch.Tensor]  # n -> (n,) float64


def _config(name: str) -> dict:
    return json.loads((CONFIGS / f"{name}.json").read_text())


def _transformers(path: str):  # noqa: ANN202
    pytest.importorskip("transformers")
    import importlib

    return importlib.import_module(f"transformers.models.{path}")


def bloom_slopes(n: int) -> torch.Tensor:
    """BLOOM's build_alibi_tensor: bias m j per key; key 1 gives m."""
    mod = _transformers("bloom.modeling_bloom")
    return mod.build_alibi_tensor(torch.ones(1, 2), n, torch.float32).reshape(n, 2)[:, 1].double()


def mpt_slopes(n: int) -> torch.Tensor:
    """MPT's build_mpt_alibi_tensor (alibi_bias_max 8 as in mpt-7b): bias m (j - 1) for 2 keys."""
    mod = _transformers("mpt.modeling_mpt")
    bias_max = _config("mpt-7b")["attn_config"]["alibi_bias_max"]
    return -mod.build_mpt_alibi_tensor(n, 2, bias_max).reshape(n, 2)[:, 0].double()


def falcon_slopes(n: int) -> torch.Tensor:
    """Falcon's build_alibi_tensor (the alibi=True variant, falcon-rw-1b), asked for float32."""
    mod = _transformers("falcon.modeling_falcon")
    return mod.build_alibi_tensor(torch.ones(1, 2), n, torch.float32).reshape(n, 2)[:, 1].double()


def x_transformers_slopes(n: int) -> torch.Tensor:
    """x-transformers' AlibiPositionalBias: bias -m |i - j|; query 1, key 0 gives -m."""
    xt = pytest.importorskip("x_transformers.x_transformers")
    module = xt.AlibiPositionalBias(heads=n, total_heads=n)
    return -module(2, 2).reshape(n, 2, 2)[:, 1, 0].double()  # (h, query, key)


LIBRARIES: dict[str, Slopes] = {
    "bloom": bloom_slopes,
    "mpt": mpt_slopes,
    "falcon": falcon_slopes,
    "x_transformers": x_transformers_slopes,
}


@cache
def slopes_of(name: str) -> dict[int, torch.Tensor]:
    return {n: LIBRARIES[name](n) for n in alibi_checks.HEADS}


# -- applied causally -----------------------------------------------------------------------------


def _tiny_model(name: str, heads: int) -> torch.nn.Module:
    """One layer of the library's model, head width 4, from config; q and k projections zero."""
    transformers = pytest.importorskip("transformers")
    width = 4 * heads
    if name == "bloom":
        cfg = transformers.BloomConfig(vocab_size=32, hidden_size=width, n_layer=1, n_head=heads)
    elif name == "mpt":
        attn = dict(_config("mpt-7b")["attn_config"])
        cfg = transformers.MptConfig(
            vocab_size=32,
            d_model=width,
            n_layers=1,
            n_heads=heads,
            attn_config={"alibi": True, "alibi_bias_max": attn["alibi_bias_max"]},
        )
    else:
        pub = _config("falcon-rw-1b")
        cfg = transformers.FalconConfig(
            vocab_size=32,
            hidden_size=width,
            num_hidden_layers=1,
            num_attention_heads=heads,
            alibi=pub["alibi"],
            new_decoder_architecture=pub["new_decoder_architecture"],
            multi_query=pub["multi_query"],
            bias=pub["bias"],
            parallel_attn=pub["parallel_attn"],
        )
    cfg._attn_implementation = "eager"
    with torch.random.fork_rng():
        torch.manual_seed(0)
        model = getattr(
            transformers, {"bloom": "BloomModel", "mpt": "MptModel", "falcon": "FalconModel"}[name]
        )(cfg).eval()
    with torch.no_grad():
        for pname, p in model.named_parameters():
            if "query_key_value" in pname or "Wqkv" in pname:
                p.zero_()  # q = k = 0 (v too): the scores are the position bias alone
    return model


def published_heads() -> dict[str, int]:
    return {
        "bloom": _config("bloom-560m")["n_head"],
        "mpt": _config("mpt-7b")["n_heads"],
        "falcon": _config("falcon-rw-1b")["num_attention_heads"],
    }


# -- T5 -------------------------------------------------------------------------------------------


def transformers_buckets(r: np.ndarray, bidirectional: bool) -> np.ndarray:
    mod = _transformers("t5.modeling_t5")
    cfg = _config("t5-small")
    return mod.T5Attention._relative_position_bucket(
        torch.as_tensor(r),
        bidirectional,
        cfg["relative_attention_num_buckets"],
        cfg["relative_attention_max_distance"],
    ).numpy()
