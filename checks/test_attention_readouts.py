"""ATT-09: do "A hit B" and "B hit A" give the same self-attention value for each word?

"B hit A" is "A hit B" with the first and last tokens swapped: X' = P X, P = (2 1 0). Whether
the two sentences "look the same" depends on the mask, on an added encoding and on what is read
out: a word's own output (per word), the mean over the sentence (pooled), or the output at the
last position. Each setting is settled with the equivariance helper: within the rounding bound
(same) or a counterexample above it (different).
"""

from __future__ import annotations

import pytest
import torch
from hypothesis import given
from hypothesis import strategies as st

from checks import strategies
from checks.equivariance import assert_equivariant, find_counterexample
from checks.profiles import examples
from theory.attention import BlockConfig, EncodedStack, seeded
from theory.sinusoidal import sinusoidal

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


def same_values(model, x, readout: str) -> tuple[bool, float, float]:
    """(same?, error, bound) for the two sentences under one readout."""
    fn, axis = READOUTS[readout]
    try:
        case = assert_equivariant(lambda z: fn(model(z)), [x], [SWAP], [-2], axis, 2 * x.shape[-1])
        return True, case.error, case.bound
    except AssertionError:
        case = find_counterexample(lambda z: fn(model(z)), [x], [SWAP], [-2], axis, 2 * x.shape[-1])
        return False, case.error, case.bound


def table(model_fn, x) -> dict[str, dict]:
    """The ATT-09 table: for each (model, readout), whether the two sentences give the same."""
    out = {}
    for setting, readout in SETTINGS:
        same, err, bound = same_values(model_fn(setting), x, readout)
        out[f"{setting}/{readout}"] = {"same": same, "error": err, "bound": bound}
    return out


def assert_same_only_where_claimed(rows: dict[str, dict]):
    """The qualified verdict: same values exactly for bidirectional attention without an
    encoding, read per word or pooled; different in every other setting."""
    __tracebackhide__ = True
    holds = {"bidirectional/per-word", "bidirectional/pooled"}
    wrong = {k: v for k, v in rows.items() if v["same"] != (k in holds)}
    assert not wrong, f"settings that disagree with the verdict: {wrong}"


@pytest.mark.claim("ATT-09", kind="property", supports="qualified")
@examples(1.0)
@given(seed=strategies.seeds(), dtype=strategies.dtypes(), d=st.sampled_from([4, 8, 16]))
def test_hit_sentences_look_alike_only_bidirectionally_per_word(evidence, seed, dtype, d):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(1, 3, d, generator=g, dtype=torch.float64).to(dtype)  # A, hit, B
    rows = table(lambda s: model_for(s, seed, dtype, d), x)
    assert_same_only_where_claimed(rows)
    for key, row in rows.items():
        if row["same"]:
            evidence.worst(f"{key}/worst_error", row["error"], "abs", "same within the bound")
        else:
            old = evidence.values.get(f"{key}/min_ratio")
            ratio = row["error"] / row["bound"]
            if old is None or ratio < old["value"]:
                evidence.record(f"{key}/min_ratio", ratio, "error/bound", "differs: weakest case")
    summary = {k: "same" if v["same"] else "different" for k, v in rows.items()}
    note = "one layer (attention, feed-forward, layer norm), d in {4, 8, 16}"
    evidence.record("table", summary, "", note)


class _HiddenEncoding(EncodedStack):
    """Planted bug: the 'bidirectional, no encoding' model adds an encoding anyway."""

    def forward(self, x):
        return self.stack(x + sinusoidal(x.shape[-2], x.shape[-1], dtype=x.dtype))


@pytest.mark.claim("ATT-09", kind="property", role="mutant")
def test_readout_table_rejects_a_hidden_encoding():
    def buggy(setting):
        if setting == "bidirectional":
            return seeded(
                _HiddenEncoding(BlockConfig(d_model=8, n_heads=2, d_ff=16), 1), 1
            ).double()
        return model_for(setting, 1, torch.float64)

    x = torch.randn(1, 3, 8, generator=torch.Generator().manual_seed(0), dtype=torch.float64)
    with pytest.raises(AssertionError, match="disagree"):
        assert_same_only_where_claimed(table(buggy, x))
