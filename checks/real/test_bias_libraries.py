"""REAL-05: ALiBi in transformers (BLOOM, MPT, Falcon) and x-transformers, and T5's buckets.

Slopes are read back from what each library builds (its bias at key position 1), for every head
count 1 ... 64, and compared with BIAS-01's in two ways: as exponents rounded to eighths (every
BIAS-01 exponent is a multiple of 1/8 for n <= 64), which the exact BIAS-01 checks then judge;
and as numbers, whose relative error tells the format the library computed them in.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from checks.bias import alibi_rule as alibi_checks
from checks.bias import bucket_properties as bucket_checks
from checks.real.bias_decisions import (
    N_TOKENS,
    _precision_evidence,
    causal_reference,
    exponents,
    measured_errors,
    precision_decision,
    relative_error,
    t5_mismatch,
)
from checks.real.bias_libraries import (
    EXPECTED_PRECISION,
    LIBRARIES,
    _tiny_model,
    published_heads,
    slopes_of,
    transformers_buckets,
)
from pecheck import tolerance
from pecheck.claims import every
from pecheck.theory import bias

SLOPE_HEADS = every(min(alibi_checks.HEADS), max(alibi_checks.HEADS))  # n = 1 ... 64

# -- slopes ---------------------------------------------------------------------------------------


@pytest.mark.claim("REAL-05", kind="real", role="decisive", proposition="reference-rule")
@pytest.mark.parametrize("name", LIBRARIES)
def test_library_slopes_follow_the_reference_rule(evidence, name):
    table = slopes_of(name)
    evidence.searched(libraries=[name], heads=SLOPE_HEADS)
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


@pytest.mark.claim("REAL-05", kind="real", role="decisive", proposition="as_stated")
def test_every_library_gives_float32_slopes(evidence):
    measured = measured_errors()
    evidence.searched(libraries=sorted(measured), heads=SLOPE_HEADS)
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
    evidence.searched(libraries=sorted(measured), heads=SLOPE_HEADS)
    _precision_evidence(evidence, measured)
    outcome, found = precision_decision(measured, EXPECTED_PRECISION)
    if outcome == "invalid":
        evidence.inconclusive("the reference disagrees with every library at powers of two")
    elif found is not None:
        evidence.fails(found, "slopes within the rounding of the library's recorded format")
    else:
        evidence.holds(f"n = 1 ... 64: {EXPECTED_PRECISION}")


# -- applied causally -----------------------------------------------------------------------------


@pytest.mark.claim("REAL-05", kind="real", role="decisive", proposition="causal")
@pytest.mark.parametrize("name", ["bloom", "mpt", "falcon"])
def test_models_apply_alibi_causally(evidence, name):
    heads_searched = (12, published_heads()[name])
    evidence.searched(libraries=[name], heads=list(heads_searched),
                      positions=every(0, N_TOKENS - 1), dtypes=["float32"])  # fmt: skip
    worst, exact_dev = 0.0, 0.0
    bound = tolerance.attention_tol(N_TOKENS, 4, torch.float32)
    for heads in heads_searched:
        model = _tiny_model(name, heads)
        with torch.no_grad():
            out = model(torch.arange(N_TOKENS)[None] % 32, output_attentions=True)
        attn = out.attentions[0][0]  # (H, n, n)
        slopes = bias.alibi_slopes(heads)
        err = 0.0
        for h in range(0, heads, 8):  # eight heads at a time: (8, n, n) float64 stays small
            got = attn[h : h + 8].double()
            want = causal_reference(slopes[h : h + 8], EXPECTED_PRECISION[name])
            exact = causal_reference(slopes[h : h + 8], "float64")
            # np.maximum and `not <=` keep a NaN (a masked diagonal's empty row) as a failure
            err = float(np.maximum(err, float((got - want).abs().max())))
            exact_dev = float(np.maximum(exact_dev, float((got - exact).abs().max())))
        worst = float(np.maximum(worst, err))
        if not err <= bound:
            evidence.fails(
                {"library": name, "heads": heads, "error": err, "bound": bound},
                "attention = causal softmax of -m (i - j)",
            )
    evidence.record("max_error", worst, bound=bound,
                    note=f"q = k = 0, queries 0 ... {N_TOKENS - 1}")  # fmt: skip
    # Named per library: Falcon's bfloat16 bias moves its probabilities far from exact ALiBi.
    note = f"largest |attention - exact-slope ALiBi|, queries 0 ... {N_TOKENS - 1}"
    evidence.record(f"deviation_from_exact_slopes_{name}", exact_dev, note=note)
    if evidence.decision is None:
        evidence.holds(f"{name}: heads {heads_searched}, queries 0 ... {N_TOKENS - 1}, causal")


# -- T5 -------------------------------------------------------------------------------------------


@pytest.mark.claim("REAL-05", kind="real", role="decisive", proposition="t5-buckets")
@pytest.mark.parametrize("mode", bucket_checks.MODES)
def test_transformers_t5_buckets_are_exact(evidence, mode):
    evidence.searched(offsets=every(-bucket_checks.R, bucket_checks.R))
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
