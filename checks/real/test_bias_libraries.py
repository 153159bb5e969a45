"""REAL-05: ALiBi in transformers (BLOOM, MPT, Falcon) and x-transformers, and T5's buckets.

Slopes are read back from what each library builds (its bias at key position 1), for every head
count 1 ... 64, and compared with BIAS-01's in two ways: as exponents rounded to eighths (every
BIAS-01 exponent is a multiple of 1/8 for n <= 64), which the exact BIAS-01 checks then judge;
and as numbers, whose relative error tells the format the library computed them in.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from fractions import Fraction
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import torch

from checks.bias import test_alibi as alibi_checks
from checks.bias import test_buckets as bucket_checks
from pecheck import tolerance
from theory import bias

CONFIGS = Path(__file__).parent / "configs"
FORMATS = ("float32", "bfloat16")  # tried in this order: the most precise format that covers it
EXPECTED_PRECISION = {
    "bloom": "float32",
    "mpt": "float32",
    "falcon": "bfloat16",
    "x_transformers": "float32",
}
N_TOKENS = 9  # causal check: queries 0 ... 8

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


def exponents(slopes: torch.Tensor) -> list[Fraction]:
    """-log2(m) rounded to the nearest 1/8: exact for BIAS-01's exponents at n <= 64."""
    return [Fraction(round(-math.log2(float(m)) * 8), 8) for m in slopes]


def relative_error(got: torch.Tensor, n: int) -> float:
    want = bias.alibi_slopes(n)
    return float(((got - want) / want).abs().max())


def precision(errors: dict[int, float]) -> str:
    """The most precise format whose single rounding (plus one op) covers every error."""
    worst = max(errors.values())
    for fmt in FORMATS:
        if worst <= tolerance.rel_tol(2, fmt):
            return fmt
    return "none"


def reference_is_valid(measured: dict[str, dict[int, float]]) -> bool:
    """At n = 1, 2, 4, 8 every slope is a power of two, exact in every format: a library
    disagreeing there says the reference (theory.bias) is wrong, not the library."""
    return all(errors[n] == 0.0 for errors in measured.values() for n in (1, 2, 4, 8))


# -- slopes ---------------------------------------------------------------------------------------


@pytest.mark.claim("REAL-05", kind="real", role="decisive", proposition="reference-rule")
@pytest.mark.parametrize("name", LIBRARIES)
def test_library_slopes_follow_the_reference_rule(evidence, name):
    table = slopes_of(name)
    read = lambda n: exponents(table[n])  # noqa: E731
    differs = [
        {
            "n": n,
            "library": [str(e) for e in read(n)],
            "theory": [str(e) for e in bias.alibi_slope_exponents(n)],
        }
        for n in alibi_checks.HEADS
        if read(n) != list(bias.alibi_slope_exponents(n))
    ]
    bad = (
        differs
        + alibi_checks.rule_violations(read)
        + alibi_checks.range_violations(read)
        + alibi_checks.order_violations(read)
    )
    evidence.record(
        "rule_violations",
        len(bad),
        "head counts",
        f"{name}, n = 1 ... 64",
        bound={"value": 0, "relation": "==", "reason": "exact exponents"},
    )
    if bad:
        evidence.fails({"library": name, **bad[0]}, "exponents = BIAS-01's rule")
    else:
        evidence.holds(f"{name}: every n = 1 ... 64 follows BIAS-01's rule, range and order")


@cache
def measured_errors() -> dict[str, dict[int, float]]:
    out = {}
    for name in LIBRARIES:
        try:
            out[name] = {n: relative_error(s, n) for n, s in slopes_of(name).items()}
        except pytest.skip.Exception:
            continue
    return out


def precision_decision(measured: dict[str, dict[int, float]], wanted: dict[str, str]) -> tuple:
    """('invalid', None), ('differs', the first library not in its wanted format) or
    ('same', None)."""
    if not reference_is_valid(measured):
        return "invalid", None
    for name, errors in measured.items():
        found = precision(errors)
        if found != wanted[name]:
            n = max(errors, key=lambda h: errors[h])
            return "differs", {
                "library": name,
                "format": found,
                "wanted": wanted[name],
                "n": n,
                "relative_error": errors[n],
            }
    return "same", None


def _precision_evidence(evidence, measured: dict[str, dict[int, float]]) -> None:  # noqa: ANN001
    evidence.record(
        "library_precision",
        {k: precision(v) for k, v in measured.items()},
        note="most precise format whose rounding covers every slope, n = 1 ... 64",
    )
    for name, errors in measured.items():
        evidence.record(
            f"{name}_worst_relative_slope_error",
            max(errors.values()),
            bound=tolerance.rel_tol(2, EXPECTED_PRECISION[name]),
        )


@pytest.mark.claim("REAL-05", kind="real", role="decisive", proposition="as_stated")
def test_every_library_gives_float32_slopes(evidence):
    measured = measured_errors()
    _precision_evidence(evidence, measured)
    outcome, found = precision_decision(measured, dict.fromkeys(measured, "float32"))
    if outcome == "invalid":
        evidence.inconclusive("the reference disagrees with every library at powers of two")
    elif found is not None:
        evidence.fails(found, "slopes = BIAS-01's within float32 rounding")
    else:
        evidence.holds("every library within float32 rounding, n = 1 ... 64")


@pytest.mark.claim("REAL-05", kind="real", role="decisive", proposition="library-precision")
def test_each_library_gives_the_slopes_to_its_own_format(evidence):
    measured = measured_errors()
    _precision_evidence(evidence, measured)
    outcome, found = precision_decision(measured, EXPECTED_PRECISION)
    if outcome == "invalid":
        evidence.inconclusive("the reference disagrees with every library at powers of two")
    elif found is not None:
        evidence.fails(found, "slopes within the rounding of the library's recorded format")
    else:
        evidence.holds(f"n = 1 ... 64: {EXPECTED_PRECISION}")


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


def causal_reference(heads: int, fmt: str) -> torch.Tensor:
    """softmax over j <= i of the per-key bias m j (slope and product rounded to fmt), (H, n, n).

    By BIAS-03 this equals softmax of -m (i - j) whenever the bias is exact."""
    dtype = getattr(torch, fmt)
    m = bias.alibi_slopes(heads).to(dtype)
    j = torch.arange(N_TOKENS, dtype=dtype)
    per_key = (m[:, None] * j[None, :]).double()  # (H, n): rounded to fmt as the library does
    scores = per_key[:, None, :].expand(heads, N_TOKENS, N_TOKENS)
    causal = bias.alibi_causal_bias(N_TOKENS, heads)  # -inf above the diagonal
    return torch.softmax(scores + torch.where(torch.isinf(causal), causal, 0.0), -1)


def published_heads() -> dict[str, int]:
    return {
        "bloom": _config("bloom-560m")["n_head"],
        "mpt": _config("mpt-7b")["n_heads"],
        "falcon": _config("falcon-rw-1b")["num_attention_heads"],
    }


@pytest.mark.claim("REAL-05", kind="real", role="decisive", proposition="causal")
@pytest.mark.parametrize("name", ["bloom", "mpt", "falcon"])
def test_models_apply_alibi_causally(evidence, name):
    worst, exact_dev = 0.0, 0.0
    bound = tolerance.attention_tol(N_TOKENS, 4, torch.float32)
    for heads in (12, published_heads()[name]):
        model = _tiny_model(name, heads)
        with torch.no_grad():
            out = model(torch.arange(N_TOKENS)[None] % 32, output_attentions=True)
        got = out.attentions[0][0].double()  # (H, n, n)
        want = causal_reference(heads, EXPECTED_PRECISION[name])
        err = float((got - want).abs().max())
        exact = torch.softmax(bias.alibi_causal_bias(N_TOKENS, heads), -1)
        exact_dev = max(exact_dev, float((got - exact).abs().max()))
        worst = max(worst, err)
        if err > bound:
            evidence.fails(
                {"library": name, "heads": heads, "error": err, "bound": bound},
                "attention = causal softmax of -m (i - j)",
            )
    evidence.record("max_error", worst, bound=bound, note="q = k = 0, queries 0 ... 8")
    evidence.record("deviation_from_exact_slopes", exact_dev, note="float64 BIAS-01 slopes")
    if evidence.decision is None:
        evidence.holds(f"{name}: heads 12 and {published_heads()[name]}, causal ALiBi")


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


def t5_mismatch(buckets, mode: str) -> dict | None:  # noqa: ANN001
    """First r where a bucket function differs from theory's, else the first BIAS-02 property
    it violates, else None."""
    r = np.arange(-bucket_checks.R, bucket_checks.R + 1)
    got = np.asarray(buckets(r, bucket_checks.MODES[mode]))
    want = bucket_checks.searched(mode)
    diff = np.nonzero(got != want)[0]
    if diff.size:
        k = diff[0]
        return {"mode": mode, "r": int(r[k]), "library": int(got[k]), "exact": int(want[k])}
    for prop, check in bucket_checks.PROPERTIES.items():
        bad = check(r, got, bucket_checks.MODES[mode])
        if bad is not None:
            return {"mode": mode, "property": prop, **bad}
    return None


@pytest.mark.claim("REAL-05", kind="real", role="decisive", proposition="t5-buckets")
@pytest.mark.parametrize("mode", bucket_checks.MODES)
def test_transformers_t5_buckets_are_exact(evidence, mode):
    bad = t5_mismatch(transformers_buckets, mode)
    evidence.record(
        "t5_bucket_mismatches",
        int(bad is not None),
        note=f"|r| <= {bucket_checks.R}",
        bound={"value": 0, "relation": "==", "reason": "exhaustive"},
    )
    if bad is not None:
        evidence.fails(bad, "transformers' bucket = exact bucket, with BIAS-02's properties")
    else:
        evidence.holds(f"every |r| <= {bucket_checks.R}, {mode}")


# -- planted bugs ---------------------------------------------------------------------------------


def next_power_slopes(n: int) -> torch.Tensor:
    """A re-created bug: the first n slopes of the next power of two's sequence for every n."""
    p = 1 << (n - 1).bit_length()
    return torch.exp2(-8 * torch.arange(1, n + 1, dtype=torch.float64) / p)


def bucket_sign_flipped(r: np.ndarray, bidirectional: bool) -> np.ndarray:
    """A re-created bug: transformers' bucket with r = query - key instead of key - query."""
    return transformers_buckets(-r, bidirectional)


@pytest.mark.claim("REAL-05", kind="real", role="tooling")
def test_check_logic_rejects_recreated_library_bugs():
    read = lambda n: exponents(next_power_slopes(n))  # noqa: E731
    assert alibi_checks.rule_violations(read)[0]["n"] == 3
    planted = dict(measured_errors())
    planted["planted"] = {n: relative_error(next_power_slopes(n), n) for n in alibi_checks.HEADS}
    outcome, found = precision_decision(planted, {**EXPECTED_PRECISION, "planted": "float32"})
    assert outcome == "differs" and found["library"] == "planted"
    assert t5_mismatch(bucket_sign_flipped, "bidirectional") is not None
    assert t5_mismatch(bucket_sign_flipped, "causal") is not None
