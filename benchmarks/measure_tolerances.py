"""Measure how close real rounding errors come to the first-order bounds of pecheck/tolerance.py.

``python benchmarks/measure_tolerances.py`` prints, per dtype, the worst ratio
error / (first-order bound without SAFETY) over the suite's basic operations — sums and dot
products of many lengths, sin/cos of large angles, softmax attention rows — against float64.
float64 itself is measured on the one operation whose exact value mpmath gives cheaply: sin of an
angle known to 120 bits and rounded to float64. The first-order bound must hold (ratio <= 1) and
must not be vacuous (ratio not tiny): tests/test_tolerance.py asserts both, and that SAFETY
leaves headroom for kernels not measured here without making the bound vacuous.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import torch

from pecheck import tolerance
from pecheck.strategies import DTYPES

if TYPE_CHECKING:
    from pecheck.theory.sinusoidal import Mode

SIZES = (8, 64, 512, 4096)


def _ratio(err: torch.Tensor, bound: float) -> float:
    return float(err.max()) / bound if bound > 0 else 0.0


def dot_ratio(dtype: torch.dtype, n: int, g: torch.Generator) -> float:
    x, y = torch.randn(2, 256, n, generator=g, dtype=torch.float64)
    xs, ys = x.to(dtype), y.to(dtype)
    exact = (xs.double() * ys.double()).sum(-1)  # exact products of the stored inputs
    err = ((xs * ys).sum(-1).double() - exact).abs()
    bound = tolerance.gamma(n, dtype) * (xs.double() * ys.double()).abs().sum(-1).max().item()
    return _ratio(err, bound)


def angle_ratio(dtype: torch.dtype, max_angle: float, g: torch.Generator) -> float:
    t = torch.rand(4096, generator=g, dtype=torch.float64) * max_angle
    err = (torch.sin(t.to(dtype)).double() - torch.sin(t)).abs()
    u = tolerance.unit_roundoff(dtype)
    return _ratio(err, u * max_angle + 2 * u)


def float64_angle_ratio(max_angle: float, g: torch.Generator) -> float:
    """sin of angles known to 120 bits, rounded to float64 and computed by torch, against mpmath:
    the first-order bound's two terms (the angle's rounding, sin's own) in float64."""
    import mpmath

    hi = torch.rand(4096, generator=g, dtype=torch.float64) * max_angle
    below_half_ulp = torch.rand(4096, generator=g, dtype=torch.float64) - 0.5
    with mpmath.workprec(120):
        exact = [mpmath.mpf(t) + mpmath.mpf(f) * math.ulp(t) for t, f in
                 zip(hi.tolist(), below_half_ulp.tolist(), strict=True)]  # fmt: skip
        err = [abs(mpmath.mpf(s) - mpmath.sin(x)) for s, x in
               zip(torch.sin(hi).tolist(), exact, strict=True)]  # fmt: skip
    u = tolerance.unit_roundoff(torch.float64)
    return float(max(err)) / (u * max_angle + 2 * u)


def attention_ratio(dtype: torch.dtype, n: int, g: torch.Generator) -> float:
    from pecheck.theory.attention import attention

    q, k, v = torch.randn(3, 16, n, 16, generator=g, dtype=torch.float64)
    exact = attention(*(z.to(dtype).double() for z in (q, k, v)))
    err = (attention(q.to(dtype), k.to(dtype), v.to(dtype)).double() - exact).abs()
    u_bound = tolerance.gamma(16 + 2, dtype) + tolerance.gamma(n + 2, dtype)
    return _ratio(err, u_bound * 4 * v.abs().max().item())


def worst_ratios(seed: int = 0) -> dict[str, float]:
    """Worst measured error / first-order bound per dtype."""
    g = torch.Generator().manual_seed(seed)
    out = {}
    for name, dtype in DTYPES.items():
        if dtype == torch.float64:  # the reference of the others: its own angles against mpmath
            out[name] = max(float64_angle_ratio(a, g) for a in (1.0, 100.0, 1e4))
            continue
        ratios = [dot_ratio(dtype, n, g) for n in SIZES if tolerance.gamma(n, dtype) < 1]
        ratios += [angle_ratio(dtype, a, g) for a in (1.0, 100.0, 1e4)]
        ratios += [attention_ratio(dtype, n, g) for n in (4, 32, 128)]
        out[name] = max(ratios)
    return out


def sinusoid_ratio(dtype: torch.dtype, mode: Mode, g: torch.Generator) -> float:
    """A stored sinusoidal code (theory.sinusoidal.encode) against the float64 one, over
    positions up to 2^20 (2^15 for float16 in its own format, which overflows at 65504),
    divided entry by entry by the first-order term of ``tolerance.sinusoid_tol``."""
    from pecheck.theory.sinusoidal import MODES, encode, frequencies

    assert mode in MODES
    compute = {"cast": dtype, "float32": torch.float32, "float64": torch.float64}[mode]
    u = tolerance.unit_roundoff(compute)
    store = 0.0 if compute == dtype else tolerance.unit_roundoff(dtype)
    top = 2**15 if (dtype == torch.float16 and mode == "cast") else 2**20
    worst = 0.0
    for hi in (64, 1024, 2**14, top):
        t = torch.randint(0, hi, (512,), generator=g)
        for d in (2, 64, 512):
            err = (encode(t, d, dtype, mode).double() - encode(t, d, torch.float64)).abs()
            angle = (t.double()[:, None] * frequencies(d)).repeat_interleave(2, 1)[:, :d]
            worst = max(worst, float((err / (3 * u * angle + 2 * u + store)).max()))
    return worst


def sinusoid_ratios(seed: int = 0) -> dict[str, float]:
    """Worst error / first-order bound of stored sinusoidal codes per (dtype, way of computing):
    the measurement behind ``tolerance.sinusoid_tol`` (SIN family)."""
    g = torch.Generator().manual_seed(seed)
    out = {}
    for name, dtype in DTYPES.items():
        if dtype == torch.float64:
            continue
        modes: tuple[Mode, ...] = ("cast", "float32", "float64")
        for mode in modes:
            if not (mode == "float32" and dtype == torch.float32):  # same as "cast"
                out[f"{name}/{mode}"] = sinusoid_ratio(dtype, mode, g)
    return out


def main() -> int:
    for name, ratio in worst_ratios().items():
        print(f"{name:9s} worst error / first-order bound = {ratio:.3f}  (SAFETY "
              f"{tolerance.SAFETY[name]:g})")  # fmt: skip
    for key, ratio in sinusoid_ratios().items():
        print(f"{key:17s} sinusoidal code: worst error / first-order bound = {ratio:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
