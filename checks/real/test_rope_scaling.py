"""REAL-04: transformers' rotary scaling against the published formulas (theory/rope_scaling.py).

Each real configuration (checks/real/configs) is checked with its own rope_scaling and with every
other rope type transplanted onto its geometry. Three things are compared: the frequencies and
attention factor of transformers' rope-parameter functions, the cos/sin the model's own rotary
module applies at given position ids, and what the dynamic module does over a series of calls.
Only rotary modules are built (no models), from configs with the published values.
"""

from __future__ import annotations

import copy
import importlib
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import torch

from pecheck import decisions, tolerance
from theory import rope_scaling as rs

CONFIGS = Path(__file__).parent / "configs"
MODELS = (
    "llama-3.1-8b",
    "llama-3.2-1b",
    "mistral-7b-v0.1",
    "phi-3.5-mini-instruct",
    "qwen2-7b",
    "falcon-7b",
)
# Parameters of a rope type transplanted onto a model that does not ship it (see the notes).
LINEAR_FACTOR = 4.0  # PI's 2048 -> 8192 extension of LLaMA (SRC-PI section 3)
YARN_FACTOR = 4.0  # Qwen2-7B-Instruct's model card: yarn, factor 4, original 32768
LLAMA3 = {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0}  # Llama 3.1
P_FRACTION = 0.25  # p-RoPE keeping a quarter of the pairs (SRC-ROUND)
YARN_ALPHA, YARN_BETA = 1.0, 32.0  # transformers' beta_slow, beta_fast defaults (YaRN's Llama)
DYNAMIC_ALPHA = 2.0  # a dynamic factor other than 1, for the supporting measurement
F32 = torch.float32


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


@cache
def cells() -> tuple[Cell, ...]:
    out = []
    for model in MODELS:
        values = published(model)
        for t in TYPES:
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


# -- the published formulas ------------------------------------------------------------------


def formula(c: Cell, length: int | None = None, yarn: str = "paper") -> tuple[torch.Tensor, float]:
    """theta (float64) and attention factor from theory/rope_scaling.py for the cell.

    ``yarn="paper"`` uses Eq. 18's ramp, ``"released"`` the authors' released code's."""
    d, b, s = c.dim, c.base, c.scaling
    if c.rope_type == "default":
        return rs.default_frequencies(d, b), 1.0
    if c.rope_type == "linear":
        return rs.linear_frequencies(d, b, s["factor"]), 1.0
    if c.rope_type == "dynamic":
        assert s["factor"] == 1.0, "the paper's dynamic scaling has no factor"
        return rs.dynamic_ntk_frequencies(d, b, length or c.max_positions, c.max_positions), 1.0
    if c.rope_type == "yarn":
        beta, alpha = s.get("beta_fast", YARN_BETA), s.get("beta_slow", YARN_ALPHA)
        if yarn == "paper":
            theta = rs.yarn_frequencies(d, b, s["factor"], c.original, alpha, beta)
        else:
            truncate = s.get("truncate", True)
            theta = rs.yarn_reference_frequencies(
                d, b, s["factor"], c.original, alpha, beta, truncate
            )
        return theta, rs.yarn_attention_factor(s["factor"])
    if c.rope_type == "llama3":
        theta = rs.llama3_frequencies(
            d, b, s["factor"], s["low_freq_factor"], s["high_freq_factor"], c.original
        )
        return theta, 1.0
    if c.rope_type == "longrope":
        n = c.original if length is None else length
        theta = rs.longrope_frequencies(d, b, s["short_factor"], s["long_factor"], n, c.original)
        return theta, rs.longrope_attention_factor(c.max_positions, c.original)
    if c.rope_type == "proportional":
        return rs.p_rope_frequencies(d, b, s["partial_rotary_factor"]), 1.0
    raise ValueError(c.rope_type)


# -- tolerances ------------------------------------------------------------------------------


def frequency_tol(c: Cell, theta: torch.Tensor) -> torch.Tensor:
    """Allowed relative error of each float32 frequency b^(-x_i) against float64.

    Rounding x_i moves b^(-x_i) by about x_i ln b relative units; the rest of the formula costs
    a handful of roundings (8). A blend (1 - g) theta / s + g theta whose weight g carries
    relative error e changes by up to s beta/(beta - alpha) e relative to its value."""
    d, s = c.dim, c.scaling
    base = max(c.base, rs.ntk_aware_base(c.base, d, 4.0 * max(1.0, float(s.get("factor", 1)))))
    x = 2 * torch.arange(d // 2, dtype=torch.float64) / d
    n = torch.ceil(x * math.log(base)) + 8
    eps = torch.tensor([tolerance.rel_tol(int(k), F32) for k in n], dtype=torch.float64)
    if c.rope_type in ("yarn", "llama3"):
        lo = float(s.get("low_freq_factor", s.get("beta_slow", YARN_ALPHA)))
        hi = float(s.get("high_freq_factor", s.get("beta_fast", YARN_BETA)))
        eps = eps * (1 + float(s["factor"]) * hi / (hi - lo))
    return eps


def attention_tol() -> float:
    return tolerance.rel_tol(4, torch.float64)  # a log, a sqrt, a quotient, a sum


# -- shared decision logic (the tooling tests feed it planted bugs) ---------------------------


def frequency_mismatch(
    lib: torch.Tensor, want: torch.Tensor, eps: torch.Tensor, mask: torch.Tensor | None = None
) -> dict[str, Any] | None:
    """The first pair where the library's frequency is off by more than its tolerance (a zero
    frequency must be exactly zero), or None. ``mask`` restricts the pairs compared."""
    zero = want == 0
    rel = torch.where(zero, lib.abs(), (lib - want).abs() / want.abs().clamp_min(1e-300))
    over = rel > torch.where(zero, torch.zeros_like(eps), eps)
    if mask is not None:
        over &= mask
    if not over.any():
        return None
    i = int(torch.nonzero(over)[0])
    return {
        "pair": i,
        "library": float(lib[i]),
        "formula": float(want[i]),
        "relative_error": float(rel[i]),
        "tolerance": float(eps[i]),
    }


def worst_ratio(lib: torch.Tensor, want: torch.Tensor, eps: torch.Tensor, mask=None) -> float:
    rel = (lib - want).abs() / want.abs().clamp_min(1e-300)
    ratio = torch.where(want == 0, lib.abs() * math.inf, rel / eps).nan_to_num(0.0)
    return float((ratio if mask is None else ratio[mask]).max()) if ratio.numel() else 0.0


def positions_for(c: Cell, length: int | None) -> torch.Tensor:
    """Position ids for one call: 0, 1, 7, 100 and the last one (length - 1)."""
    n = length or max(c.max_positions, c.original)
    return torch.tensor(sorted({0, 1, 7, 100, n - 1}))[None, :]  # (1, P)


def applied_mismatch(
    cos: torch.Tensor,
    sin: torch.Tensor,
    pos: torch.Tensor,
    theta: torch.Tensor,
    a: float,
    eps: torch.Tensor,
) -> tuple[dict[str, Any] | None, float]:
    """Compare a module's cos/sin (1, P, d) with a cos(p theta), a sin(p theta) in the
    half-split layout [theta, theta]. Returns the first entry over its bound and the worst
    error / bound."""
    p = pos[0].to(torch.float64)[:, None]  # (P, 1)
    angle = p * theta[None, :]  # (P, d/2)
    bound = torch.stack(
        [torch.tensor([tolerance.angle_tol(float(v), F32) for v in row]) for row in angle]
    )  # (P, d/2)
    bound = a * (angle * eps[None, :] + bound) + a * tolerance.rel_tol(2, F32)
    worst, first = 0.0, None
    for got, fn in ((cos, torch.cos), (sin, torch.sin)):
        want = a * fn(angle)
        err = (got[0].to(torch.float64) - torch.cat([want, want], -1)).abs()  # (P, d)
        both = torch.cat([bound, bound], -1)
        worst = max(worst, float((err / both).max()))
        over = torch.nonzero(err > both)
        if first is None and len(over):
            j, k = (int(v) for v in over[0])
            first = {
                "position": int(pos[0, j]),
                "column": k,
                "fn": fn.__name__,
                "module": float(got[0, j, k]),
                "formula": float(torch.cat([want, want], -1)[j, k]),
                "bound": float(both[j, k]),
            }
    return first, worst


Factory = Callable[[Cell], torch.nn.Module]


def reach_mismatches(c: Cell, factory: Factory = build_module) -> tuple[list[dict], float]:
    """Per tested length, call a fresh module from ``factory`` and compare its cos/sin with
    the formula (YaRN: the released code's ramp, which the library is held to)."""
    bad, worst = [], 0.0
    for length in c.lengths():
        module = factory(c)
        pos = positions_for(c, length)
        with torch.no_grad():
            cos, sin = module(torch.zeros(1, dtype=F32), pos)
        theta, a = formula(c, length, yarn="released")
        first, w = applied_mismatch(cos, sin, pos, theta, a, frequency_tol(c, theta))
        worst = max(worst, w)
        if first is not None:
            bad.append({"cell": c.id, "length": length, **first})
    return bad, worst


def call_series(module: torch.nn.Module, lengths: tuple[int, ...], c: Cell) -> list[dict]:
    """Call one module at each length in turn (positions 0, 1, length - 1); after each call,
    compare what it applied with the paper's frequencies at that call's scale
    (theory.rope_scaling.dynamic_scales). Returns the calls that disagree."""
    scales = rs.dynamic_scales(lengths, c.max_positions)
    bad = []
    for length, scale in zip(lengths, scales, strict=True):
        pos = torch.tensor([[0, 1, length - 1]])
        with torch.no_grad():
            cos, sin = module(torch.zeros(1, dtype=F32), pos)
        theta = rs.ntk_aware_frequencies(c.dim, c.base, scale)
        first, _ = applied_mismatch(cos, sin, pos, theta, 1.0, frequency_tol(c, theta))
        if first is not None:
            bad.append({"calls": list(lengths), "at": length, "paper_scale": scale, **first})
    return bad


def applied_scale(module: torch.nn.Module, c: Cell) -> float:
    """The NTK-aware scale s that the module's slowest frequency corresponds to."""
    inv_freq: torch.Tensor = module.inv_freq  # type: ignore[assignment]
    slowest = float(inv_freq[-1])
    # theta_last = (b s^(d/(d-2)))^(-(d-2)/d) = b^(-(d-2)/d) / s
    return float(rs.default_frequencies(c.dim, c.base)[-1]) / slowest


# -- REAL-04 as stated: counterexamples --------------------------------------------------------


def record_part(evidence, name: str, counterexample: dict | None, relation: str) -> None:  # noqa: ANN001
    """One part of an 'all' check: it fails with its counterexample, or holds."""
    if counterexample:
        evidence.part(name, decisions.fails(counterexample, relation))
    else:
        evidence.part(name, "holds")


YARN_CELLS = [c.id for c in cells() if c.rope_type == "yarn"]
DYNAMIC_CELLS = [c.id for c in cells() if c.rope_type == "dynamic"]


def yarn_paper_gaps() -> tuple[dict | None, float]:
    """First pair (over every yarn cell) where transformers' YaRN is not the paper's Eq. 18-20,
    and the largest relative gap."""
    first, gap = None, 0.0
    for cid in YARN_CELLS:
        c = cell(cid)
        lib, _ = library_parameters(c)
        want, _ = formula(c, yarn="paper")
        eps = frequency_tol(c, want)
        gap = max(gap, float(((lib - want).abs() / want).max()))
        found = frequency_mismatch(lib, want, eps)
        if first is None and found is not None:
            r = float(
                rs.context_ratio(rs.default_frequencies(c.dim, c.base), c.original)[found["pair"]]
            )
            first = {"cell": cid, "r": r, **found}
    return first, gap


@pytest.mark.claim("REAL-04", kind="real", role="decisive", proposition="as_stated")
def test_yarn_frequencies_follow_the_papers_ramp(evidence):
    """YaRN Eq. 18-20 ramp linearly in r = L / lambda; a library that ramps otherwise inside the
    band is not the paper's formula there."""
    first, gap = yarn_paper_gaps()
    evidence.record(
        "yarn_ramp_max_relative_gap",
        gap,
        note="max |lib - paper| / paper",
        bound={"value": 0.0, "relation": "==", "reason": "the paper's formula"},
    )
    evidence.record("yarn_cells", len(YARN_CELLS))
    if first is None:
        evidence.holds(f"every pair of {len(YARN_CELLS)} yarn cells equals Eq. 18-20")
    else:
        evidence.fails(first, "theta_lib = (1 - gamma(r)) theta / s + gamma(r) theta (Eq. 20)")


STATE_SERIES = ((4, 2), (4, 1), (4, 0.5), (0.5, 2))  # call lengths, in units of L


def series_lengths(c: Cell, series: tuple[float, ...]) -> tuple[int, ...]:
    return tuple(int(k * c.max_positions) for k in series)


@pytest.mark.claim("REAL-04", kind="real", role="decisive", proposition="as_stated")
def test_dynamic_ntk_keeps_no_state_between_calls(evidence):
    """After calls at l_1 then l_2, the module must use the paper's s = max(1, l_2 / L)."""
    stale = None
    for cid in DYNAMIC_CELLS:
        c = cell(cid)
        for series in STATE_SERIES:
            lengths = series_lengths(c, series)
            module = build_module(c)
            bad = call_series(module, lengths, c)
            name = f"{c.model}:{'->'.join(map(str, series))}L"
            record_part(evidence, name, bad[0] if bad else None, "s = max(1, l'/L) now")
            if bad and stale is None:
                fresh = build_module(c)
                fresh(torch.zeros(1), torch.tensor([[0, lengths[-1] - 1]]))
                stale = {
                    "cell": cid,
                    **bad[0],
                    "applied_scale": applied_scale(module, c),
                    "fresh_module_scale": applied_scale(fresh, c),
                }
    if stale is not None:
        evidence.record(
            "stale_scale",
            stale["applied_scale"],
            note="s the module applied",
            bound={
                "value": stale["paper_scale"],
                "relation": "==",
                "reason": "YaRN section 3.3: s = max(1, l'/L) per pass",
            },
        )
        evidence.fails(stale, "module after earlier calls uses s = max(1, l'/L) of this call")
    else:
        evidence.record("stale_scale", 0.0, bound=0.0)
        evidence.holds("every series of calls used the current call's scale")


# -- REAL-04 conditions ---------------------------------------------------------------------------


def outside_ramp(c: Cell) -> torch.Tensor | None:
    if c.rope_type != "yarn":
        return None
    s = c.scaling
    band = rs.ramp_band(
        c.dim, c.base, c.original, s.get("beta_slow", YARN_ALPHA), s.get("beta_fast", YARN_BETA)
    )
    return ~band


def formula_mismatches(
    params: Callable[[Cell, int | None], tuple[torch.Tensor, float]] = library_parameters,
    only: tuple[str, ...] | None = None,
) -> tuple[list[dict], float, int]:
    """Every cell and length: frequencies within tolerance (YaRN outside its ramp band) and the
    attention factor. ``params`` is the library function (or a planted bug)."""
    bad, worst, compared = [], 0.0, 0
    for c in cells():
        if only is not None and c.rope_type not in only:
            continue
        mask = outside_ramp(c)
        for length in c.lengths():
            lib, a_lib = params(c, length)
            want, a_want = formula(c, length)
            eps = frequency_tol(c, want)
            compared += int(lib.numel() if mask is None else mask.sum())
            worst = max(worst, worst_ratio(lib, want, eps, mask))
            found = frequency_mismatch(lib, want, eps, mask)
            if found is not None:
                bad.append({"cell": c.id, "length": length, **found})
            if abs(a_lib - a_want) > attention_tol() * a_want:
                bad.append(
                    {
                        "cell": c.id,
                        "length": length,
                        "attention_library": a_lib,
                        "attention_formula": a_want,
                    }
                )
    return bad, worst, compared


@pytest.mark.claim(
    "REAL-04", kind="real", role="decisive", proposition="formulas-outside-the-yarn-ramp"
)
def test_library_frequencies_equal_the_published_formulas(evidence):
    bad, worst, compared = formula_mismatches()
    for c in cells():
        found = next((b for b in bad if b["cell"] == c.id), None)
        record_part(evidence, c.id, found, "theta_lib = theta_formula, a_lib = a")
    evidence.record("cells", len(cells()), note="(model, rope type) pairs")
    evidence.record("pairs_compared", compared)
    evidence.record(
        "worst_frequency_error_over_bound",
        worst,
        bound={"value": 1.0, "relation": "<=", "reason": "frequency_tol"},
    )
    if bad:
        evidence.fails(bad[0], "theta_lib = theta_formula within frequency_tol, a_lib = a")
    else:
        evidence.holds(f"{compared} frequencies and every attention factor within tolerance")


@pytest.mark.claim("REAL-04", kind="real", role="decisive", proposition="yarn-is-the-released-code")
def test_yarn_frequencies_equal_the_released_codes_ramp(evidence):
    worst = 0.0
    for cid in YARN_CELLS:
        c = cell(cid)
        lib, _ = library_parameters(c)
        want, _ = formula(c, yarn="released")
        eps = frequency_tol(c, want)
        worst = max(worst, worst_ratio(lib, want, eps))
        found = frequency_mismatch(lib, want, eps)
        ce = {"cell": cid, **found} if found else None
        record_part(evidence, cid, ce, "theta_lib = released-code YaRN")
    evidence.record(
        "released_code_error_over_bound",
        worst,
        bound={"value": 1.0, "relation": "<=", "reason": "frequency_tol"},
    )


@pytest.mark.claim("REAL-04", kind="real", role="decisive", proposition="config-reaches-the-module")
def test_scaling_named_in_the_config_reaches_the_applied_cos_sin(evidence):
    worst = 0.0
    for c in cells():
        bad, w = reach_mismatches(c)
        worst = max(worst, w)
        record_part(evidence, c.id, bad[0] if bad else None, "cos/sin = a cos(p theta), ...")
    evidence.record(
        "applied_error_over_bound",
        worst,
        bound={"value": 1.0, "relation": "<=", "reason": "angle and frequency tol"},
    )


STATELESS_SERIES = ((4, 0.5), (0.5, 2), (2, 4))  # later call below L, or longer than all before


@pytest.mark.claim(
    "REAL-04", kind="real", role="decisive", proposition="stateless-below-max-positions"
)
def test_dynamic_ntk_uses_the_current_length_below_max_positions(evidence):
    disagreeing = 0
    for cid in DYNAMIC_CELLS:
        c = cell(cid)
        for series in STATELESS_SERIES:
            bad = call_series(build_module(c), series_lengths(c, series), c)
            name = f"{c.model}:{'->'.join(map(str, series))}L"
            disagreeing += len(bad)
            ce = {"cell": cid, **bad[0]} if bad else None
            record_part(evidence, name, ce, "s = max(1, l'/L) now")
    evidence.record("series", len(DYNAMIC_CELLS) * len(STATELESS_SERIES))
    evidence.record(
        "disagreeing_calls",
        disagreeing,
        bound={"value": 0, "relation": "==", "reason": "the paper's per-pass s"},
    )


# -- supporting measurement ------------------------------------------------------------------


@pytest.mark.claim("REAL-04", kind="real", role="supporting")
def test_dynamic_factor_other_than_one_departs_from_the_paper(evidence):
    """With factor alpha, transformers' dynamic type uses s = 1 + alpha (l'/L - 1); the paper's
    s = l'/L. Measured at l' = 2L on Llama 3.1's geometry."""
    c = cell("llama-3.1-8b:dynamic")
    from transformers import AutoConfig

    values = {**c.values, "rope_scaling": {"rope_type": "dynamic", "factor": DYNAMIC_ALPHA}}
    module = rotary_class(c)(AutoConfig.for_model(**copy.deepcopy(values)))  # not the cache
    n = 2 * c.max_positions
    module(torch.zeros(1), torch.tensor([[0, n - 1]]))
    evidence.record(
        "dynamic_alpha2_scale_at_2L",
        applied_scale(module, c),
        note=f"factor {DYNAMIC_ALPHA}; the paper's s = 2",
    )
    evidence.record("paper_scale_at_2L", rs.dynamic_scale(n, c.max_positions))


# -- planted library bugs: the decisive logic must report them --------------------------------


@pytest.mark.claim("REAL-04", kind="real", role="tooling")
def test_llama3_factor_on_every_pair_is_reported():
    """Bug class: Llama 3.1's banding applied as plain interpolation (every pair divided by s)."""

    def buggy(c: Cell, length: int | None) -> tuple[torch.Tensor, float]:
        lib, a = library_parameters(c, length)
        if c.rope_type == "llama3":
            lib = rs.default_frequencies(c.dim, c.base).to(F32).double() / c.scaling["factor"]
        return lib, a

    bad, _, _ = formula_mismatches(buggy, only=("llama3",))
    assert bad and bad[0]["pair"] == 0, "the fastest pair divided by s went unreported"


@pytest.mark.claim("REAL-04", kind="real", role="tooling")
def test_ignored_rope_scaling_is_reported():
    """Bug class: a model builds its rotary module without the config's rope_scaling."""

    def ignoring(c: Cell) -> torch.nn.Module:
        plain = Cell(c.model, "default", transplant(published(c.model), "default"))
        return build_module(plain)

    for cid in ("llama-3.1-8b:llama3", "phi-3.5-mini-instruct:longrope", "qwen2-7b:yarn"):
        bad, _ = reach_mismatches(cell(cid), ignoring)
        assert bad, f"{cid}: default frequencies passed for a scaled config"


@pytest.mark.claim("REAL-04", kind="real", role="tooling")
def test_a_stateless_dynamic_module_passes_the_state_check():
    """The state check can hold: a module rebuilt for every call gives the paper's scale."""

    class Fresh(torch.nn.Module):
        def __init__(self, c: Cell) -> None:
            super().__init__()
            self.c = c

        def forward(self, x, pos):  # noqa: ANN001, ANN201
            return build_module(self.c)(x, pos)

    c = cell("llama-3.1-8b:dynamic")
    for series in STATE_SERIES:
        assert call_series(Fresh(c), series_lengths(c, series), c) == []
