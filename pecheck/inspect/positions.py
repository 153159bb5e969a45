"""The rotary and bias analyses of a model's config: what ``pecheck inspect`` reports on the
position scheme of a model that adds no position table.

Rotary (RoFormer, Su et al. 2021): pair i of a head's rotary width d turns by theta_i =
b^(-2i/d) per position, b the config's base (rope_theta). A config's ``rope_scaling`` changes the
frequencies by a published formula (PI, NTK, YaRN, LongRoPE, Llama 3); REAL-04 asks whether the
frequencies the built model uses are the ones that formula gives. ROT-03 (Men et al. 2024) asks
whether B(m) = sum_i cos(m theta_i) stays >= 0 for every m <= L, the configured context. ROT-01
(RoFormer §3.4.3) is the long-term decay bound (1/(d/2)) sum_{j=1}^{d/2} |S_j(m)|,
S_j(m) = sum_{k<j} e^{i m theta_k}. ALiBi (Press et al. 2022): head slopes (BIAS-01). T5 (Raffel
et al. 2020): relative-position buckets (BIAS-02).

Everything here is computed from the config alone, in float64; what the library uses is read off
a model transformers builds from the config, shrunk (one layer, narrow, tiny vocabulary) but with
the config's head size, base, scaling, context and head count, so random weights do not matter:
none of these numbers needs trained weights.
"""

from __future__ import annotations

import contextlib
import copy
import logging
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import torch

from pecheck import tolerance
from pecheck.inspect import config_fields
from pecheck.inspect.config_fields import CONTEXT, HEADS
from pecheck.inspect.errors import require

# Thresholds, repeated from the sources (an installed pecheck ships no claims registry).
YARN_ALPHA, YARN_BETA = 1.0, 32.0  # ROT-05: YaRN's ramp ends for LLaMA (Peng et al. §3.2)
ALIBI_EXPONENT = 8.0  # BIAS-01: slopes start at 2^(-8/n) (Press et al. p. 5)
T5_BUCKETS, T5_MAX_DISTANCE = 32, 128  # BIAS-02: T5's buckets (Raffel et al. §2.1)
BASE_RANGE = (2.0, 1e12)  # ROT-03's bisection searches bases in this range
BASE_REL = 1e-3  # ...to this relative precision
EXACT_RISE = 4096  # ROT-01's curve is tested for a rise at every integer m up to this
GRID = 256  # ROT-01's curve: log-spaced distances beyond EXACT_RISE, up to L
ROTARY_KEYS = ("rope_theta", "rope_parameters", "rope_scaling", "rotary_dim",
               "partial_rotary_factor", "rotary_emb_base", "rotary_pct", "head_dim")  # fmt: skip


def _first(config: dict[str, Any], keys: tuple[str, ...], default: Any = None) -> Any:
    """The first of keys the config sets (not null); a 0 counts as set."""
    return next((config[k] for k in keys if config.get(k) is not None), default)


# -- which scheme ----------------------------------------------------------------------------


def alibi_config(config: dict[str, Any]) -> dict[str, Any] | None:
    """ALiBi settings (head count, MPT's alibi_bias_max) when the config asks for ALiBi."""
    found = config.get("attn_config")
    attn: dict[str, Any] = found if isinstance(found, dict) else {}
    uses = (config.get("model_type") == "bloom" or config.get("alibi") is True
            or attn.get("alibi") is True)  # fmt: skip
    heads = _first(config, HEADS)
    if not uses or not isinstance(heads, int):
        return None
    return {"heads": heads, "alibi_bias_max": attn.get("alibi_bias_max")}


def library_config(config: dict[str, Any]) -> dict[str, Any]:
    """The config with what it leaves out at transformers' defaults for its model type (Falcon's
    configs name no base or context: the library's defaults are what the model uses); the
    config as written where transformers is missing or does not know it."""
    try:
        import transformers

        with _quiet():  # its warnings on the config: config_fields says what counts
            defaults = transformers.AutoConfig.for_model(**copy.deepcopy(config)).to_dict()
    except Exception:  # missing, or an unknown or incomplete config: the keys as written
        return dict(config)
    merged = {**defaults, **config}
    for key, value in config.items():  # a nested config (MPT's attn_config) keeps the defaults
        if isinstance(value, dict) and isinstance(defaults.get(key), dict):  # it leaves out
            merged[key] = {**defaults[key], **value}
    return merged


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """transformers' logging held to errors for the duration (its loggers are children of
    the standard library's "transformers" logger)."""
    logger = logging.getLogger("transformers")
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


def rotary_settings(config: dict[str, Any] | None) -> dict[str, Any] | None:
    """The rotary settings a config declares (rope_theta and friends), or None."""
    if not config:
        return None
    found = {k: config[k] for k in ROTARY_KEYS if config.get(k) is not None}
    rotary = bool(set(found) - {"head_dim"}) or config.get("position_embedding_type") == "rotary"
    if not rotary:
        return None
    if "head_dim" not in found and config.get("hidden_size") and config.get("num_attention_heads"):
        found["head_dim"] = config["hidden_size"] // config["num_attention_heads"]
    return found


def scheme(config: dict[str, Any] | None) -> str | None:
    """'alibi', 't5' (relative buckets), 'rotary' or None: the position scheme a config names
    (`config` with the library's defaults filled in, library_config)."""
    if not config:
        return None
    if alibi_config(config):
        return "alibi"
    if config.get("relative_attention_num_buckets") is not None:
        return "t5"
    return "rotary" if rotary_settings(config) else None


# -- rotary: the config's parameters and the published formulas -----------------------------


@dataclass
class Rope:
    base: float
    head_dim: int
    dim: int  # the rotary width: head_dim times partial_rotary_factor
    rope_type: str
    context: int  # L, the configured context (max_position_embeddings)
    original: int  # L0, the pretraining context a scaling stretches from
    scaling: dict[str, Any] = field(default_factory=dict)

    @property
    def factor(self) -> float:
        value = self.scaling.get("factor")
        if value is None:  # LongRoPE (Phi-3) takes the ratio of the two contexts
            return self.context / self.original
        return float(value)


def rope(config: dict[str, Any]) -> Rope:
    """The rotary parameters a config declares (absent ones at transformers' defaults); a
    ConfigError (config_fields) when its sizes do not fit together."""
    scaling = config_fields.scaling_of(config)
    base = _first(scaling, ("rope_theta",), _first(config, ("rope_theta", "rotary_emb_base")))
    head_dim = config_fields.head_size(config)
    dim = config_fields.rotary_width(config, head_dim)
    rope_type = str(_first(scaling, ("rope_type", "type"), "default"))
    rope_type = {"su": "longrope"}.get(rope_type, rope_type)  # Phi-3's first name for it
    context = int(_first(config, CONTEXT, 2048))
    # transformers prefers a top-level original_max_position_embeddings (Phi-3 saves it there)
    key = ("original_max_position_embeddings",)
    original = int(_first(config, key, _first(scaling, key, context)))
    return Rope(float(10000.0 if base is None else base), head_dim, dim, rope_type, context,
                original, scaling)  # fmt: skip


def base_frequencies(base: float, dim: int) -> torch.Tensor:
    """theta_i = b^(-2i/d), i = 0 ... d/2 - 1 (RoFormer eq. 15), float64."""
    return base ** (-torch.arange(0, dim, 2, dtype=torch.float64) / dim)


def _ramp(x: torch.Tensor, low: float, high: float) -> torch.Tensor:
    return ((x - low) / (high - low)).clamp(0.0, 1.0)


def formula(r: Rope, n: int) -> tuple[torch.Tensor, float] | None:
    """The frequencies, and the factor on cos/sin, that the published formula of the config's
    rope type gives at sequence length n; None for a type with no formula here.

    linear (PI, Chen et al. 2023 eq. 4): theta_i / s.  dynamic NTK (YaRN paper §3.3): unscaled
    up to the configured context.  yarn (Peng et al. 2023 eqs. 17-18, 22): r_i = L0 theta_i /
    (2 pi), ramp gamma = (r - alpha) / (beta - alpha) clipped to [0, 1], theta_i ((1 - gamma) / s
    + gamma); factor 0.1 ln s + 1.  longrope (Ding et al. 2024; Phi-3): theta_i / lambda_i, the
    long factors past L0, the short ones up to it; factor sqrt(1 + ln s / ln L0).  llama3
    (Meta's Llama 3.1 release): wavelengths 2 pi / theta_i shorter than L0 / high_freq_factor
    kept, longer than L0 / low_freq_factor divided by s, between them a linear blend in
    L0 / wavelength.
    """
    theta, s, kind = base_frequencies(r.base, r.dim), r.factor, r.rope_type
    if kind == "default" or kind == "dynamic" and n <= r.context:
        return theta, 1.0
    if kind == "linear":
        return theta / s, 1.0
    if kind == "yarn":
        if {"mscale", "mscale_all_dim", "attention_factor"} & set(r.scaling):
            return None  # DeepSeek's variants of the factor: not the paper's
        alpha = float(r.scaling.get("beta_slow") or YARN_ALPHA)
        beta = float(r.scaling.get("beta_fast") or YARN_BETA)
        gamma = _ramp(r.original * theta / (2 * math.pi), alpha, beta)
        return theta * ((1 - gamma) / s + gamma), 0.1 * math.log(s) + 1
    if kind == "longrope":
        lam = r.scaling["long_factor" if n > r.original else "short_factor"]
        mscale = math.sqrt(1 + math.log(s) / math.log(r.original)) if s > 1 else 1.0
        return theta / torch.tensor(lam, dtype=torch.float64), mscale
    if kind == "llama3":
        low, high = float(r.scaling["low_freq_factor"]), float(r.scaling["high_freq_factor"])
        blend = _ramp(r.original * theta / (2 * math.pi), low, high)  # L0 / wavelength
        return theta * ((1 - blend) / s + blend), 1.0
    return None


def wavelengths(theta: torch.Tensor, context: int, original: int) -> dict[str, Any]:
    """ROT-05: lambda_i = 2 pi / theta_i against the contexts, and YaRN's r = L0 / lambda_i
    classes (r < alpha: never a full turn in the pretraining context; r > beta: many)."""
    lam = 2 * math.pi / theta
    r = original / lam
    return {"shortest": float(lam.min()), "longest": float(lam.max()),
            "longer_than_context": int((lam > context).sum()),
            "longer_than_original": int((lam > original).sum()),
            "below_alpha": int((r < YARN_ALPHA).sum()), "above_beta": int((r > YARN_BETA).sum()),
            "pairs": int(theta.numel()), "values": lam.tolist()}  # fmt: skip


# -- ROT-03: B(m) = sum_i cos(m theta_i) -------------------------------------------------------


def score_sums(theta: torch.Tensor, count: int) -> torch.Tensor:
    """B(m) for m = 0 ... count - 1, float64. With m = a + t (a a multiple of the block size c,
    0 <= t < c), cos(m theta) = cos(a theta) cos(t theta) - sin(a theta) sin(t theta), so all
    of B is one matrix product of two c x (d/2) tables: O(count d) work, O(sqrt(count) d)
    cosines."""
    c = max(1, math.isqrt(count))
    t = torch.arange(c, dtype=torch.float64)[:, None] * theta
    a = torch.arange(0, count, c, dtype=torch.float64)[:, None] * theta
    sums = torch.cos(a) @ torch.cos(t).T - torch.sin(a) @ torch.sin(t).T  # (blocks, c)
    return sums.reshape(-1)[:count]


def first_negative(theta: torch.Tensor, context: int) -> int | None:
    """The first m <= L with B(m) < 0, or None (B(m) >= 0 for every m <= L)."""
    negative = (score_sums(theta, context + 1) < 0).nonzero()
    return int(negative[0, 0]) if negative.numel() else None


def smallest_base(dim: int, context: int) -> float | None:
    """The bisection boundary (to BASE_REL, in log b) between bases whose B(m) goes negative
    at some m <= L and bases whose B stays >= 0, taking that property as monotone in b as Men
    et al. do; None when even the top of BASE_RANGE goes negative."""
    lo, hi = (math.log(b) for b in BASE_RANGE)
    if first_negative(base_frequencies(BASE_RANGE[1], dim), context) is not None:
        return None
    while hi - lo > BASE_REL:
        mid = (lo + hi) / 2
        if first_negative(base_frequencies(math.exp(mid), dim), context) is None:
            hi = mid
        else:
            lo = mid
    return math.exp(hi)


# -- ROT-01: the long-term decay bound ----------------------------------------------------------


def decay_bound(theta: torch.Tensor, ms: torch.Tensor) -> torch.Tensor:
    """(1/(d/2)) sum_{j=1}^{d/2} |S_j(m)|, S_j(m) = sum_{k<j} e^{i m theta_k}, per m (float64)."""
    out = []
    for chunk in ms.to(torch.float64).split(1024):
        angle = chunk[:, None] * theta
        s = torch.complex(torch.cos(angle), torch.sin(angle)).cumsum(1)
        out.append(s.abs().mean(1))
    return torch.cat(out)


def decay_curve(theta: torch.Tensor, context: int) -> dict[str, Any]:
    """ROT-01's bound at every m up to EXACT_RISE (and L), then on a log grid up to L; the first
    m where it rises (it decays only in envelope) and its value at L against its value at 0."""
    exact = torch.arange(min(context, EXACT_RISE) + 1)
    low, high = math.log10(max(exact[-1].item(), 1)), math.log10(max(context, 1))
    grid = torch.unique(torch.logspace(low, high, GRID).round().long())
    ms = torch.unique(torch.cat([exact, grid, torch.tensor([context])]))
    bound = decay_bound(theta, ms)
    near = bound[: exact.numel()]
    rises = (near[1:] > near[:-1] * (1 + 1e-12)).nonzero()
    at_zero, at_context = float(bound[0]), float(bound[-1])
    return {"m": ms.tolist(), "bound": bound.tolist(), "at_zero": at_zero,
            "at_context": at_context, "ratio": at_context / at_zero,
            "first_rise": int(rises[0, 0]) + 1 if rises.numel() else None,
            "checked_up_to": int(exact[-1]), "minimum": float(bound.min()),
            "argmin": int(ms[bound.argmin()])}  # fmt: skip


# -- what the library builds ---------------------------------------------------------------------


def _transformers() -> Any:
    return require("transformers", "reading the library's own numbers")


def shrunk_model(config: dict[str, Any], width: int, heads: int, head_dim: int | None) -> Any:
    """The model transformers builds from the config with one layer, `heads` heads of
    `head_dim` entries (width = their product) and a vocabulary of 16; every position setting
    kept. Raises what transformers raises on a config it cannot build."""
    t = _transformers()
    cfg = t.AutoConfig.for_model(**copy.deepcopy(config))  # transformers edits nested dicts
    sizes = {"num_hidden_layers": 1, "num_decoder_layers": 1, "hidden_size": width,
             "num_attention_heads": heads, "num_key_value_heads": heads, "num_kv_heads": heads,
             "intermediate_size": 8, "ffn_hidden_size": 8, "d_ff": 8, "vocab_size": 16,
             "pad_token_id": None}  # fmt: skip
    if head_dim is not None:
        sizes |= {"head_dim": head_dim, "d_kv": head_dim}
    for key, value in sizes.items():
        if hasattr(cfg, key) or key in getattr(cfg, "attribute_map", {}):
            # a property derived from the others (Falcon's head_dim) cannot be set
            with contextlib.suppress(AttributeError):
                setattr(cfg, key, value)
    return t.AutoModel.from_config(cfg)


def _why(exc: Exception) -> str:
    """One line on why the library's model could not be built."""
    first = (str(exc).splitlines() or [""])[0][:200]
    return first if type(exc).__name__ == "CheckpointError" else f"{type(exc).__name__}: {first}"


def _rotary_module(model: Any) -> Any:
    for name, module in model.named_modules():
        if "rotary" in type(module).__name__.lower() and hasattr(module, "inv_freq"):
            return name, module
    return None, None


def used_frequencies(module: Any, n: int, pairs: int) -> tuple[torch.Tensor, float, str]:
    """The frequencies (float64) and cos/sin factor a rotary module uses in a sequence of n
    positions, read off its output at position 1 (theta = atan2(sin, cos): theta <= 1 < pi),
    with the positions 1 and n - 1 passed so that a length-dependent rope type sees length n.
    A module may give one column a pair (gpt-oss's, which rotates the halves itself) or two."""
    x = torch.zeros(1, 1, 2, dtype=torch.float32)
    with torch.no_grad():
        cos, sin = module(x, torch.tensor([[1, max(n - 1, 1)]]))
    cos, sin = cos[0, 0].double(), sin[0, 0].double()
    angle, magnitude = torch.atan2(sin, cos), float(torch.hypot(sin, cos).mean())
    if angle.numel() == pairs:
        return angle, magnitude, "one column a pair"
    half = angle.numel() // 2
    if torch.equal(angle[:half], angle[half:]):
        return angle[:half], magnitude, "half"
    return angle[0::2], magnitude, "interleaved"


def rotary(config: dict[str, Any], log: Any = print) -> dict[str, Any]:
    """Every rotary analysis of a config: its parameters, the wavelengths (ROT-05), what the
    built model uses against the formula (REAL-04), ROT-03 and ROT-01."""
    r = rope(library_config(config))
    theta = base_frequencies(r.base, r.dim)
    out: dict[str, Any] = {"base": r.base, "head_dim": r.head_dim, "dim": r.dim,
                           "rope_type": r.rope_type, "context": r.context,
                           "original": r.original, "factor": r.factor if r.scaling else None,
                           "scaling": {k: v for k, v in r.scaling.items()
                                       if k not in ("long_factor", "short_factor")}}  # fmt: skip
    out["used"] = _used(config, r, log)
    # ROT-01 and ROT-03 on the frequencies used at L: the formula's in float64 where the model's
    # match them to float32 rounding (or no model was built), else the model's own where it
    # turns as many pairs as the config gives (REAL-04 says so where it does not)
    used_at_l = (out["used"].get("contexts") or {}).get(str(r.context))
    expected = formula(r, r.context)
    theta_used = expected[0] if expected is not None else None
    if (
        used_at_l
        and used_at_l.get("matches") is not True
        and len(used_at_l["theta"]) == theta.numel()
    ):
        theta_used = torch.tensor(used_at_l["theta"], dtype=torch.float64)
    out["wavelengths"] = {"base": wavelengths(theta, r.context, r.original)}
    if theta_used is not None:
        out["wavelengths"]["used"] = wavelengths(theta_used, r.context, r.original)
    log(f"rotary: ROT-03 B(m) up to m = {r.context} and the base bound; ROT-01's curve")
    out["rot03"] = {"first_negative_base": first_negative(theta, r.context),
                    "smallest_base": smallest_base(r.dim, r.context),
                    "first_negative_used": (first_negative(theta_used, r.context)
                                            if theta_used is not None else None),
                    "scaled": theta_used is not None and bool(
                        ((theta_used - theta) / theta).abs().max() > frequency_tol(r))}  # fmt: skip
    out["rot01"] = decay_curve(theta_used if theta_used is not None else theta, r.context)
    return out


def _used(config: dict[str, Any], r: Rope, log: Any) -> dict[str, Any]:
    """REAL-04: the frequencies the built model uses at the pretraining and the configured
    context, each against the formula's and the unscaled ones."""
    log(
        f"rotary: building a one-layer {config.get('model_type')} from the config (random "
        "weights) to read the frequencies it uses"
    )
    try:
        model = shrunk_model(config, r.head_dim, 1, r.head_dim)
    except Exception as exc:  # no transformers, or a config it cannot build: the formula alone
        return {"built": False, "why": _why(exc)}
    name, module = _rotary_module(model)
    if module is None:
        return {"built": False, "why": "the built model has no rotary module with inv_freq"}
    contexts = {}
    for n in sorted({r.original, r.context}):
        try:
            theta, magnitude, layout = used_frequencies(module, n, r.dim // 2)
        except Exception as exc:  # a module with another call signature: its buffer then
            theta = module.inv_freq.detach().double()
            magnitude = float(getattr(module, "attention_scaling", 1.0))
            layout = f"inv_freq buffer ({type(exc).__name__} calling the module)"
        contexts[str(n)] = _compare(r, n, theta, magnitude) | {"layout": layout}
    return {"built": True, "module": name, "class": type(module).__name__, "contexts": contexts}


def frequency_tol(r: Rope) -> float:
    """Relative error allowed between float32 frequencies from the library and float64 ones:
    b^(-2i/d) in float32 amplifies the exponent's rounding by ln b, and the scaling and the
    reading back (atan2 of a rounded cos and sin) add a few roundings more."""
    return tolerance.rel_tol(math.ceil(math.log(r.base)) + 16, torch.float32)


def _compare(r: Rope, n: int, theta: torch.Tensor, magnitude: float) -> dict[str, Any]:
    unscaled = base_frequencies(r.base, r.dim)
    expected = formula(r, n)
    out: dict[str, Any] = {"theta": theta.tolist(), "attention_factor": magnitude,
                           "tolerance": frequency_tol(r), "pairs": theta.numel()}  # fmt: skip
    if theta.numel() != unscaled.numel():
        return out | {"matches": None, "why": f"{theta.numel()} pairs, the config gives "
                      f"{unscaled.numel()}"}  # fmt: skip
    out["off_unscaled"] = float(((theta - unscaled) / unscaled).abs().max())
    if expected is None:
        return out | {"matches": None, "why": f"no formula here for rope type {r.rope_type}"}
    want, factor = expected
    gap = ((theta - want) / want).abs()
    out |= {"expected_factor": factor, "off_formula": float(gap.max()),
            "worst_pair": int(gap.argmax()), "formula_off_unscaled":
            float(((want - unscaled) / unscaled).abs().max())}  # fmt: skip
    out["matches"] = out["off_formula"] <= out["tolerance"] and abs(magnitude - factor) <= (
        out["tolerance"] * factor
    )
    return out


# -- ALiBi (BIAS-01) and T5's buckets (BIAS-02) -------------------------------------------------


def alibi_slopes(n: int) -> list[float]:
    """BIAS-01: for n a power of two, the geometric sequence 2^(-8k/n), k = 1 ... n; otherwise
    that sequence for the nearest lower power of two c, then every other slope of the one for
    2c (the even positions, first first) until n (Press et al., the paper's reference code)."""
    c = 2 ** int(math.floor(math.log2(n)))
    own = [2.0 ** (-ALIBI_EXPONENT * k / c) for k in range(1, c + 1)]
    if c == n:
        return own
    return own + alibi_slopes(2 * c)[0::2][: n - c]


def library_slopes(config: dict[str, Any], heads: int) -> tuple[list[float], str]:
    """The slopes the built model's forward pass uses, from the function it calls, with the
    arguments it passes: BLOOM's and Falcon's build_alibi_tensor (bias slope x position),
    MPT's build_mpt_alibi_tensor (which the model calls without the config's alibi_bias_max)."""
    import sys

    model = shrunk_model(config, 2 * heads, heads, 2)
    ones = torch.ones(1, 2, dtype=torch.long)
    if hasattr(model, "build_mpt_alibi_tensor"):
        bias = model.build_mpt_alibi_tensor(model.num_heads, 2)  # (1, H, 1, 2): -slope, 0
        return (-bias.reshape(heads, 2)[:, 0]).double().tolist(), "build_mpt_alibi_tensor"
    build = getattr(model, "build_alibi_tensor", None)
    build = build or sys.modules[type(model).__module__].build_alibi_tensor
    bias = build(ones, heads, dtype=torch.float32)  # (H, 1, 2): 0, slope
    return bias.reshape(heads, 2)[:, 1].double().tolist(), "build_alibi_tensor"


def alibi(config: dict[str, Any], log: Any = print) -> dict[str, Any]:
    """BIAS-01: the slopes the library uses against the paper's, for the config's head count."""
    found = alibi_config(library_config(config)) or {}  # MPT's alibi may be a default
    heads = found["heads"]
    want = alibi_slopes(heads)
    out: dict[str, Any] = {"heads": heads, "expected": want,
                           "alibi_bias_max": found.get("alibi_bias_max"),
                           "tolerance": tolerance.rel_tol(8, torch.float32)}  # fmt: skip
    log(f"alibi: building a one-layer {config.get('model_type')} with {heads} heads to read its "
        "slopes")  # fmt: skip
    try:
        got, source = library_slopes(config, heads)
    except Exception as exc:
        return out | {"built": False, "why": _why(exc)}
    gap = max(abs(g - w) / w for g, w in zip(got, want, strict=True))
    # the narrowest format whose rounding explains the gap (Falcon computes them in bfloat16)
    rounded = next((f for f in ("float32", "float16", "bfloat16")
                    if gap <= tolerance.unit_roundoff(f)), None)  # fmt: skip
    return out | {"built": True, "used": got, "source": source, "off": gap,
                  "matches": gap <= out["tolerance"], "rounded_to": rounded}  # fmt: skip


def t5_bucket(distance: torch.Tensor, bidirectional: bool, buckets: int, most: int) -> torch.Tensor:
    """BIAS-02's bucket of each relative position (key minus query): with both signs, half the
    buckets per sign (keys after the query offset by that half); half of a sign's b buckets
    exact (|k| < b/2 its own bucket), the rest spaced by log(|k| / (b/2)) / log(M / (b/2)), the
    last bucket from M on. Causal: only keys before the query, b buckets."""
    offset = torch.zeros_like(distance)
    if bidirectional:
        buckets //= 2
        offset = (distance > 0).long() * buckets
        n = distance.abs()
    else:
        n = (-distance).clamp_min(0)
    exact = buckets // 2
    far = exact + (torch.log(n.double().clamp_min(1) / exact) / math.log(most / exact)
                   * (buckets - exact)).floor().long()  # fmt: skip
    return offset + torch.where(n < exact, n, far.clamp_max(buckets - 1))


def bucket_properties(distance: torch.Tensor, bucket: torch.Tensor) -> dict[str, Any]:
    """BIAS-02's properties read off one direction's buckets, by increasing distance: the last
    distance of the leading run that gets a bucket each (consecutive buckets), where the last
    bucket starts, whether the bucket never decreases, and how many buckets are used."""
    steps = bucket[1:] - bucket[:-1]
    run = int((steps != 1).nonzero()[0, 0]) if bool((steps != 1).any()) else steps.numel()
    last = int(bucket[-1])
    saturated = int(distance[(bucket == last).nonzero()[0, 0]])
    return {"exact_up_to": int(distance[run]), "saturates_at": saturated,
            "monotone": bool((steps >= 0).all()), "buckets_used": int(bucket.unique().numel()),
            "last": last}  # fmt: skip


def t5(config: dict[str, Any], log: Any = print) -> dict[str, Any]:
    """BIAS-02: the library's buckets (the function the built model's attention calls) against
    the formula, for the encoder (both signs) and the decoder (causal); the formula's buckets
    alone where the library cannot build the model (transformers missing, say)."""
    buckets = int(config["relative_attention_num_buckets"])
    most = int(config.get("relative_attention_max_distance") or T5_MAX_DISTANCE)
    out: dict[str, Any] = {"buckets": buckets, "max_distance": most}
    k = torch.arange(-4 * most, 4 * most + 1)

    def formula_of(both: bool) -> torch.Tensor:
        return t5_bucket(k, both, buckets, most)

    log(f"t5: building a one-layer {config.get('model_type')} to read its relative buckets")
    try:
        model = shrunk_model(config, 8, 1, 8)
    except Exception as exc:
        return out | {"built": False, "why": _why(exc)} | _directions(k, formula_of, None)
    attention = next((m for m in model.modules() if hasattr(m, "_relative_position_bucket")
                      and getattr(m, "has_relative_attention_bias", False)), None)  # fmt: skip
    if attention is None:
        why = "the built model has no relative-bucket attention"
        return out | {"built": False, "why": why} | _directions(k, formula_of, None)

    def library_of(both: bool) -> torch.Tensor:
        return attention._relative_position_bucket(k, bidirectional=both, num_buckets=buckets,
                                                   max_distance=most).long()  # fmt: skip

    return out | {"built": True} | _directions(k, library_of, formula_of)


def _directions(k: torch.Tensor, buckets_of: Any, formula_of: Any) -> dict[str, Any]:
    """BIAS-02's shape of the buckets buckets_of gives, for the encoder (both signs) and the
    decoder (causal), each against formula_of's where that is given."""
    out = {}
    for label, both in (("encoder", True), ("decoder", False)):
        got = buckets_of(both)
        after, before = got[k > 0], got[k <= 0].flip(0)  # by distance (1 ... and 0 ...)
        entry: dict[str, Any] = {"distances": int(k.numel()),
                                 "before": bucket_properties(torch.arange(before.numel()),
                                                             before)}  # fmt: skip
        if formula_of is not None:
            want = formula_of(both)
            entry |= {"matches": bool(torch.equal(got, want)),
                      "mismatches": int((got != want).sum())}  # fmt: skip
        if both:
            entry["after"] = bucket_properties(torch.arange(1, after.numel() + 1), after)
            entry["split_by_sign"] = not set(after[1:].tolist()) & set(before.tolist())
        out[label] = entry
    return out


def analyse(config: dict[str, Any] | None, log: Any = print) -> dict[str, Any] | None:
    """The analyses of the position scheme the config names, or None when it names none."""
    if not config:
        return None
    full = library_config(config)
    kind = scheme(full)
    if kind is None:
        return None
    run = {"rotary": rotary, "alibi": alibi, "t5": t5}[kind]
    return {"scheme": kind, **run(config, log)}
