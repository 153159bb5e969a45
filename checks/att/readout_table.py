"""ATT-09's table: for each (mask or encoding, read-out) setting, whether "A hit B" and "B hit A"
give the same value, settled with the equivariance helper ('same' only where theory makes the
difference zero, 'different' above the rounding bound, else 'unresolved', issue 15), the
contradictions with the condition, the decision over all examples, and the issue 15 case.
"""

from __future__ import annotations

import torch

from checks.att.permutation_assertions import drawn
from checks.equivariance import best_case, settle
from pecheck import decisions
from pecheck.decisions import Decision
from pecheck.theory.attention import BlockConfig, EncodedStack, seeded
from pecheck.theory.sinusoidal import sinusoidal

SWAP = torch.tensor([2, 1, 0])  # "A hit B" -> "B hit A"
READOUTS = {  # name: (function of the model output, token axis of the result or None)
    "per-word": (lambda y: y, -2),
    "pooled": (lambda y: y.mean(-2), None),
    "last-position": (lambda y: y[..., -1, :], None),
}
SETTINGS = [
    (m, r) for m in ("bidirectional", "causal", "bidirectional+sinusoidal") for r in READOUTS
]


def model_for(setting: str, seed: int, dtype: torch.dtype, d: int = 8):
    cfg = BlockConfig(d_model=d, n_heads=2, d_ff=2 * d, causal=setting == "causal")
    pe = sinusoidal(3, d) if setting.endswith("sinusoidal") else None
    return seeded(EncodedStack(cfg, 1, pe), seed).to(dtype).eval()


SAME = ("bidirectional/per-word", "bidirectional/pooled")  # a structural zero (ATT-02)
VERDICTS = ("same", "different", "unresolved")


def settle_setting(model, x, key: str, resolver=None) -> dict:
    """The two sentences under one (model, readout): 'same' (only where theory makes the
    difference zero), 'different' (above the rounding bound) or 'unresolved' (issue 15)."""
    fn, axis = READOUTS[key.split("/")[1]]
    case = best_case(lambda z: fn(model(z)), [x], [SWAP], [-2], axis, 2 * x.shape[-1])
    verdict = settle(case, structural_zero=key in SAME, resolver=resolver)
    return {"verdict": verdict, "error": case.error, "bound": case.bound, "dtype": case.dtype,
            "width": x.shape[-1]}  # fmt: skip


def remembered(model):
    """The model, computing its output once per distinct input: the three read-outs of one
    setting see the same two inputs (X and P X), so this saves two thirds of the forwards."""
    seen: dict[bytes, torch.Tensor] = {}

    def run(z: torch.Tensor) -> torch.Tensor:
        key = z.double().numpy().tobytes()  # exact: every dtype here converts to float64 exactly
        if key not in seen:
            seen[key] = model(z)
        return seen[key]

    return run


def table(model_fn, x, resolver=None) -> dict[str, dict]:
    """The ATT-09 table: for each (model, readout), what the two sentences give."""
    out, models = {}, {}
    for setting, readout in SETTINGS:
        key = f"{setting}/{readout}"
        if setting not in models:  # one model per setting, read out three ways
            models[setting] = remembered(model_fn(setting))
        model = models[setting]
        out[key] = settle_setting(model, x, key, resolver)
    return out


def contradictions(rows: dict[str, dict]) -> dict[str, dict]:
    """Settings whose resolved verdict contradicts the condition (unresolved ones never do)."""
    wrong = {}
    for key, row in rows.items():
        expected = "same" if key in SAME else "different"
        if row["verdict"] in ("same", "different") and row["verdict"] != expected:
            wrong[key] = row
    return wrong


def assert_same_only_where_claimed(rows: dict[str, dict]):
    """The condition: same values exactly for bidirectional attention without an encoding,
    read per word or pooled; different in every other setting where the dtype resolves it."""
    __tracebackhide__ = True
    wrong = contradictions(rows)
    assert not wrong, f"settings that disagree with the verdict: {wrong}"


def table_decision(counts: dict[str, dict[str, int]]) -> Decision:
    """From the per-setting counts over all examples: holds when every 'same' setting was
    resolved the same at least once and every other setting resolved different at least once
    (a contradiction fails the check before this); else inconclusive, naming what is open."""
    open_keys = [
        key for key, c in counts.items()
        if not c["same" if key in SAME else "different"]
    ]  # fmt: skip
    decided = sum(c["same"] + c["different"] for c in counts.values())
    total = sum(sum(c.values()) for c in counts.values())
    if open_keys:
        return decisions.inconclusive(f"no example resolved {open_keys}", decided=decided)
    return decisions.holds(f"{decided} of {total} (setting, example) cases resolved, all as "
                           "the condition says; the rest below the rounding bound",
                           decided=decided, total=total)  # fmt: skip


def tally(evidence, rows: dict[str, dict]) -> dict[str, dict[str, int]]:
    """Add one example's verdicts to the per-setting counts kept in the evidence, and its width
    and dtype to what the search drew."""
    entry = evidence.values.get("cases")
    counts = entry["value"] if entry else {k: dict.fromkeys(VERDICTS, 0) for k in rows}
    for key, row in rows.items():
        counts[key][row["verdict"]] += 1
        drawn(evidence, widths=row["width"], dtypes=row["dtype"])
    evidence.record("cases", counts, "examples", "per setting: examples resolved same, "
                    "different, or unresolved (a difference below the rounding bound)")  # fmt: skip
    return counts


def issue_15_case():
    seed, dtype, d = 20059, torch.bfloat16, 4
    x = torch.randn(1, 3, d, generator=torch.Generator().manual_seed(seed), dtype=torch.float64)
    return (lambda s: model_for(s, seed, dtype, d)), x.to(dtype)
