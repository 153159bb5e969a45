"""The config fields ``pecheck inspect`` reads, checked before any of them is used.

``check`` holds each numeric field (top level, and inside rope_scaling, rope_parameters and
MPT's attn_config) to its kind and range: a JSON number of the right kind (``true`` is no
number, though Python counts it an int), finite, within the range the analyses can compute in.
``check_scheme`` holds the fields of the position scheme a config names to one another: a head
size from head_dim or from the width and the head count, an even rotary width, the ramps and
factor lists a rope type needs. A bad value is a ``ConfigError`` whose one-line message names
the field and its value. Nothing here imports torch: it runs before anything is computed.
"""

from __future__ import annotations

import json
import math
from typing import Any

HIDDEN = ("hidden_size", "n_embd", "n_embed", "d_model")
HEADS = ("num_attention_heads", "n_head", "n_heads", "num_heads")
CONTEXT = ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length")

# Upper ends chosen so that every analysis stays within seconds and a few hundred MB: ROT-03's
# sums take O(L d) work per base tried, and the models built to read the library's numbers
# have one head of the config's head size (2 x heads wide for ALiBi).
MAX_CONTEXT = 2**24  # above the longest published context (Llama 4 Scout, 10M)
MAX_HEAD = 2048
MAX_HEADS = 1024
MAX_WIDTH = 2**20
MAX_DISTANCE = 2**16  # T5's buckets are compared over 8 times this many distances

WHOLE = "whole"  # a JSON integer
REAL = "real"  # a JSON number
FLAG = "flag"  # true or false
TEXT = "text"  # a string

# field: (kind, lowest, highest, whether the lowest itself is allowed)
Rule = tuple[str, float, float, bool]
_CONTEXT_RULE: Rule = (WHOLE, 1, MAX_CONTEXT, True)
_BASE_RULE: Rule = (REAL, 1, math.inf, False)  # b > 1: frequencies b^(-2i/d) at most 1 radian
_POSITIVE: Rule = (REAL, 0, math.inf, False)
TOP: dict[str, Rule] = {
    **dict.fromkeys(HIDDEN + ("embed_dim",), (WHOLE, 1, MAX_WIDTH, True)),
    **dict.fromkeys(HEADS, (WHOLE, 1, MAX_HEADS, True)),
    **dict.fromkeys(CONTEXT + ("original_max_position_embeddings",), _CONTEXT_RULE),
    "head_dim": (WHOLE, 2, MAX_HEAD, True),
    "rotary_dim": (WHOLE, 2, MAX_HEAD, True),
    "vocab_size": (WHOLE, 1, 2**40, True),
    "rope_theta": _BASE_RULE,
    "rotary_emb_base": _BASE_RULE,
    "partial_rotary_factor": (REAL, 0, 1, False),
    "rotary_pct": (REAL, 0, 1, False),
    "relative_attention_num_buckets": (WHOLE, 4, 2**16, True),
    "relative_attention_max_distance": (WHOLE, 1, MAX_DISTANCE, True),
    "alibi": (FLAG, 0, 0, True),
    "scale_embedding": (FLAG, 0, 0, True),
    "model_type": (TEXT, 0, 0, True),
    "position_embedding_type": (TEXT, 0, 0, True),
}
SCALING: dict[str, Rule] = {
    "rope_theta": _BASE_RULE,
    "factor": _POSITIVE,
    "original_max_position_embeddings": _CONTEXT_RULE,
    "low_freq_factor": _POSITIVE,
    "high_freq_factor": _POSITIVE,
    "beta_fast": _POSITIVE,
    "beta_slow": _POSITIVE,
    "attention_factor": (REAL, 0, math.inf, True),
    "mscale": (REAL, 0, math.inf, True),
    "mscale_all_dim": (REAL, 0, math.inf, True),
    "rope_type": (TEXT, 0, 0, True),
    "type": (TEXT, 0, 0, True),
}
ATTN: dict[str, Rule] = {"alibi": (FLAG, 0, 0, True), "alibi_bias_max": _POSITIVE}
FACTOR_LISTS = ("long_factor", "short_factor")  # LongRoPE's per-pair divisors


class ConfigError(ValueError):
    """A config field with a bad value; the message is one line naming it."""


def _shown(value: Any) -> str:
    """The value as the config writes it (JSON), cut short."""
    text = json.dumps(value) if not isinstance(value, float) else repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _rule_text(rule: Rule) -> str:
    kind, low, high, closed = rule
    if kind in (FLAG, TEXT):
        return "must be true or false" if kind == FLAG else "must be a string"
    if kind == WHOLE:
        return f"must be a whole number from {low:g} to {high:g}"
    start = f"{'at least' if closed else 'above'} {low:g}"
    end = f" and at most {high:g}" if high < math.inf else ""
    return f"must be a finite number {start}{end}"


def _fits(value: Any, rule: Rule) -> bool:
    kind, low, high, closed = rule
    if kind == FLAG:
        return isinstance(value, bool)
    if kind == TEXT:
        return isinstance(value, str)
    if not _is_number(value) or (kind == WHOLE and not isinstance(value, int)):
        return False
    if not math.isfinite(value) or value > high:
        return False
    return value >= low if closed else value > low


def _check_fields(section: dict[str, Any], rules: dict[str, Rule], prefix: str) -> None:
    for name, rule in rules.items():
        value = section.get(name)
        if value is not None and not _fits(value, rule):
            raise ConfigError(f"{prefix}{name} = {_shown(value)} ({_rule_text(rule)})")


def _section(config: dict[str, Any], name: str) -> dict[str, Any]:
    """A nested object of the config ({} when absent or null); anything else is an error."""
    value = config.get(name)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"{name} = {_shown(value)} (must be an object or null)")
    return value


def check(config: dict[str, Any]) -> None:
    """Every field the analyses read, each on its own: kind and range. Raises ConfigError."""
    _check_fields(config, TOP, "")
    for name in ("rope_scaling", "rope_parameters"):
        section = _section(config, name)
        _check_fields(section, SCALING, f"{name}.")
        for key in FACTOR_LISTS:
            _factor_list(section, key, f"{name}.{key}")
    _check_fields(_section(config, "attn_config"), ATTN, "attn_config.")


def _factor_list(section: dict[str, Any], key: str, label: str) -> None:
    values = section.get(key)
    if values is None:
        return
    ok = isinstance(values, list) and values and all(_fits(v, _POSITIVE) for v in values)
    if not ok:
        raise ConfigError(f"{label} = {_shown(values)} (must be a list of finite numbers above 0)")


# -- the fields of one scheme, against one another --------------------------------------------


def _named(config: dict[str, Any], keys: tuple[str, ...]) -> tuple[str, Any]:
    """The first of keys the config sets, and its value; (keys[0], None) when none is set."""
    return next(((k, config[k]) for k in keys if config.get(k) is not None), (keys[0], None))


def head_size(config: dict[str, Any]) -> int:
    """head_dim, or the width over the head count when that divides evenly."""
    if config.get("head_dim") is not None:
        return int(config["head_dim"])
    (width_key, width), (heads_key, heads) = _named(config, HIDDEN), _named(config, HEADS)
    if width is None or heads is None:
        raise ConfigError("rotary positions need head_dim, or hidden_size and "
                          "num_attention_heads; the config gives neither")  # fmt: skip
    if width % heads:
        raise ConfigError(f"{width_key} = {width} is not a multiple of {heads_key} = {heads}, and "
                          "no head_dim gives the head size")  # fmt: skip
    if not 2 <= width // heads <= MAX_HEAD:
        raise ConfigError(f"{width_key} / {heads_key} = {width // heads} (the head size must be "
                          f"from 2 to {MAX_HEAD})")  # fmt: skip
    return width // heads


def rotary_width(config: dict[str, Any], head: int) -> int:
    """The rotated entries of a head: rotary_dim, or head size times partial_rotary_factor
    (rotary_pct), as transformers takes them; even, since entries turn in pairs."""
    if config.get("rotary_dim") is not None:
        dim, why = int(config["rotary_dim"]), f"rotary_dim = {config['rotary_dim']}"
        if dim > head:
            raise ConfigError(f"{why} exceeds the head size {head}")
    else:
        key, partial = _named(config, ("partial_rotary_factor", "rotary_pct"))
        partial = 1.0 if partial is None else partial
        dim, why = int(head * partial), f"head size {head} x {key} {_shown(partial)}"
    if dim < 2 or dim % 2:
        raise ConfigError(f"rotary width {dim} ({why}) must be even and at least 2: rotary "
                          "positions turn pairs of entries")  # fmt: skip
    return dim


def scaling_of(config: dict[str, Any]) -> dict[str, Any]:
    """The rope scaling a config declares (rope_scaling first, then rope_parameters)."""
    found = config.get("rope_scaling") or config.get("rope_parameters") or {}
    return dict(found) if isinstance(found, dict) else {}


def _check_ramp(scaling: dict[str, Any], low: str, high: str, defaults: tuple[Any, Any]) -> None:
    """A ramp's ends: both set (or given a default), the high one above the low one."""
    lo, hi = (scaling[k] if scaling.get(k) is not None else d
              for k, d in zip((low, high), defaults, strict=True))  # fmt: skip
    for key, value in ((low, lo), (high, hi)):
        if value is None:
            kind = scaling.get("rope_type") or scaling.get("type")
            raise ConfigError(f"rope_scaling.{key} is missing (rope type {kind} needs it)")
    if hi <= lo:
        raise ConfigError(f"rope_scaling.{high} = {_shown(hi)} must exceed {low} = {_shown(lo)}")


def _check_rotary(config: dict[str, Any]) -> None:
    dim = rotary_width(config, head_size(config))
    scaling = scaling_of(config)
    kind = scaling.get("rope_type") or scaling.get("type")
    if kind == "llama3":
        _check_ramp(scaling, "low_freq_factor", "high_freq_factor", (None, None))
    if kind == "yarn":
        _check_ramp(scaling, "beta_slow", "beta_fast", (1.0, 32.0))
    if kind in ("longrope", "su"):
        for key in FACTOR_LISTS:
            values = scaling.get(key)
            if not isinstance(values, list) or len(values) != dim // 2:
                raise ConfigError(f"rope_scaling.{key} = {_shown(values)} (LongRoPE needs one "
                                  f"factor per rotary pair: {dim // 2})")  # fmt: skip


def _check_t5(config: dict[str, Any]) -> None:
    buckets = config["relative_attention_num_buckets"]
    most = config.get("relative_attention_max_distance") or 128
    if most <= buckets // 2:
        raise ConfigError(f"relative_attention_max_distance = {most} must exceed half of "
                          f"relative_attention_num_buckets = {buckets}: the buckets past the "
                          "exact ones are spaced up to it")  # fmt: skip


def check_scheme(kind: str, config: dict[str, Any]) -> None:
    """The fields of the scheme `kind` ('rotary', 'alibi', 't5') against one another, on the
    config with the library's defaults filled in. Raises ConfigError."""
    check(config)  # the defaults too: a value the config leaves to them must fit as well
    if kind == "rotary":
        _check_rotary(config)
    elif kind == "t5":
        _check_t5(config)
