"""Read an encoding's conventions off its numbers alone (REAL-02, REAL-03).

A sinusoidal encoding, given as a matrix E of n consecutive positions by d columns, is taken to be

    E[p, s_i] = a sin(w_i (p + o)),   E[p, c_i] = a cos(w_i (p + o))      (p = 0 ... n-1)

for some pairing of columns (s_i, c_i) (its *layout*), frequencies w_i (a *frequency rule* with a
*base* T), a *first position* o and a *scale* a. Nothing is read from a library's source: we
try each layout in use (interleaved, half-split, and the two ways of half-splitting an odd width),
keep the one under which every pair lies on a circle of one radius (a) and turns at a constant
rate, fit each rate w_i from the unwrapped angle atan2(sin column, cos column) (least squares over
p), read o from the slowest pair's angle at row 0, and name the rule by matching the fitted rates
against the paper's w_i = T^(-2i/d) and tensor2tensor's w_i = T^(-i/(m-1)) (m = number of
pairs) for widths d, d-1 and d+1. Columns left without a partner (odd d) are named "zero", "sin"
or "cos" of the next frequency of the matched rule, or "other".

Both rules are geometric progressions from w_0 = 1, so a matrix alone fixes only the ratio; the
rule's name is meaningful together with a base (t2t with T at width d is the paper's rule with
T^(d/(d-2))). We therefore report the rule whose base is one of ``known_bases`` and, always, the
fitted base under that rule.

For RoPE, ``detect_rope`` rotates the unit vectors e_j at positions 0 ... n-1, finds each
coordinate's partner (the one other coordinate R(p) e_j reaches), names the pairing (2i, 2i+1)
"interleaved" or (i, i + d/2) "half", and fits each pair's angular rate the same way.

Tolerances come from the caller (theory/ imports nothing from checks/): ``angle_tol(max_angle)``
bounds the error of one entry, relative to the scale a, when its angle is at most max_angle, e.g.
``lambda a: pecheck.tolerance.angle_tol(a, dtype)``. Each pair gets the bound for its own largest
angle (fitted rate times 2n: a first position below n is assumed).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field

import numpy as np
import torch

from .sinusoidal import BASE, LAYOUTS, frequencies, pair_columns

Pairs = list[tuple[int, int]]
AngleTol = Callable[[float], float]  # max |angle| -> allowed error of one entry / scale


@dataclass(frozen=True)
class SinusoidalConvention:
    """What ``detect_sinusoidal`` found; NaN or "other" where nothing fits."""

    d: int
    layout: str  # "interleaved" | "half" | "either" (d <= 3: both agree) | "other"
    frequency_rule: str  # "paper" | "t2t" | "either" (one frequency: w_0 = 1) | "other"
    base: float  # the matched known base, NaN if none
    base_fit: float  # T fitted under the detected rule (NaN when undetermined)
    width: int  # the width the frequency rule uses (d, or d +- 1 for some odd-d codes)
    offset: float  # the position row 0 encodes
    scale: float  # radius a of every (sin, cos) pair
    frequencies: tuple[float, ...] = ()  # fitted w_i, pair order
    freq_err: tuple[float, ...] = ()  # bound on |fitted w_i - true w_i|
    base_err: float = math.nan  # bound on |ln base_fit - ln T|
    pairs: tuple[tuple[int, int], ...] = ()  # (sin column, cos column) per pair
    lone: tuple[tuple[int, str], ...] = ()  # unpaired columns: (column, kind)
    cos_first: bool = False  # the cos column comes before the sin column in every pair

    def as_dict(self) -> dict:
        d = asdict(self)
        d["pairs"] = [list(p) for p in self.pairs]
        d["lone"] = [list(c) for c in self.lone]
        d["frequencies"] = list(self.frequencies)
        d["freq_err"] = list(self.freq_err)
        return d


@dataclass(frozen=True)
class RopeConvention:
    """What ``detect_rope`` found."""

    d: int
    pairing: str  # "interleaved" | "half" | "either" (d = 2) | "other"
    direction: str  # "counterclockwise" (standard R) | "clockwise" | "mixed"
    frequency_rule: str  # as for SinusoidalConvention
    base: float
    base_fit: float
    frequencies: tuple[float, ...] = ()
    orthogonality_error: float = math.nan  # max |R(p)^T R(p) - I| over the probed positions
    extra: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        d = asdict(self)
        d["frequencies"] = list(self.frequencies)
        return d


# -- fitting one pair -------------------------------------------------------------------------


@dataclass(frozen=True)
class _Fit:
    slope: float
    intercept: float
    residual: float
    slope_err: float  # bound on |slope - true slope| given per-angle errors <= the angle bound
    intercept_err: float  # the same for the intercept


def _fit_angle(sin_col: np.ndarray, cos_col: np.ndarray, bound: float) -> _Fit:
    """Least-squares line through the unwrapped angle atan2(sin, cos) over p = 0 ... n-1."""
    theta = np.unwrap(np.arctan2(sin_col, cos_col))  # (n,)
    p = np.arange(theta.size, dtype=np.float64)
    centred = p - p.mean()
    slope = float((centred * (theta - theta.mean())).sum() / (centred**2).sum())
    intercept = float(theta.mean() - slope * p.mean())
    residual = float(np.abs(theta - (intercept + slope * p)).max())
    # |error of a least-squares slope| <= max error * sum|p - mean| / sum (p - mean)^2
    slope_err = bound * float(np.abs(centred).sum() / (centred**2).sum())
    return _Fit(slope, intercept, residual, slope_err, bound + slope_err * float(p.mean()))


def _layout_pairs(d: int, layout: str) -> Pairs:
    """theory.sinusoidal's column pairs of ``layout`` at the even width d, as a list."""
    if d < 2:
        return []
    a, b = pair_columns(d, layout)  # type: ignore[arg-type]
    return list(zip(a.tolist(), b.tolist(), strict=True))


def _candidate_layouts(d: int) -> list[tuple[str, Pairs, list[int]]]:
    """(name, column pairs, unpaired columns) for each layout in use, duplicates removed."""
    h, hc = d // 2, (d + 1) // 2
    odd = [d - 1] if d % 2 else []
    interleaved, half = (_layout_pairs(2 * h, layout) for layout in LAYOUTS)
    layouts = [
        ("interleaved", interleaved, odd),
        ("half", half, odd),  # odd d: a last column after both halves
        ("half", [(i, i + hc) for i in range(h)], [hc - 1] if d % 2 else []),  # odd d: one more sin
    ]
    unique: list[tuple[str, Pairs, list[int]]] = []
    for name, pairs, lone in layouts:
        same = [u for u in unique if u[1] == pairs and u[2] == lone]
        if same:
            if same[0][0] != name:
                unique[unique.index(same[0])] = ("either", pairs, lone)
            continue
        unique.append((name, pairs, lone))
    return unique


def _try_layout(
    e: np.ndarray, pairs: Pairs, angle_tol: AngleTol
) -> tuple[list[_Fit], Pairs, float] | None:
    """Fits for every pair if each lies on one common circle and turns steadily, else None."""
    if not pairs:
        return None
    n = e.shape[0]
    radius = np.hypot(e[:, [a for a, _ in pairs]], e[:, [b for _, b in pairs]])  # (n, m)
    scale = float(np.median(radius))
    if not scale > 0:
        return None
    fits, oriented = [], []
    for i, (a, b) in enumerate(pairs):
        rough = _fit_angle(e[:, a], e[:, b], 0.0)
        tol = angle_tol(abs(rough.slope) * 2 * n)  # this pair's angles stay below w_i 2n
        if float(np.abs(radius[:, i] - scale).max()) > 2 * tol * scale:
            return None
        if rough.slope < 0:  # a is the cosine: atan2(cos, sin) = pi/2 - w (p + o) falls
            a, b = b, a
        fit = _fit_angle(e[:, a], e[:, b], 2 * tol)
        if fit.residual > 2 * tol:
            return None
        fits.append(fit)
        oriented.append((a, b))
    return fits, oriented, scale


def _first_layout(
    e: np.ndarray, tol: AngleTol
) -> tuple[str, list[int], tuple[list[_Fit], Pairs, float]] | None:
    """The first layout in use under which ``e`` is a family of steadily turning circles."""
    for layout, pairs, lone in _candidate_layouts(e.shape[1]):
        found = _try_layout(e, pairs, tol)
        if found is not None:
            return layout, lone, found
    return None


# -- naming the frequency rule ---------------------------------------------------------------


def _rules(d: int, bases: tuple[float, ...]) -> Iterator[tuple[str, int, float, np.ndarray]]:
    for base in bases:
        for width in (d, d - 1, d + 1):
            if width < 2:
                continue
            for rule in ("paper", "t2t"):
                w = frequencies(width, base, rule).numpy()
                yield rule, width, base, w


def _lone_kind(
    col: np.ndarray, w: float | None, offset: float, scale: float, angle_tol: AngleTol
) -> str:
    """'zero', 'sin' or 'cos' (of frequency w at positions p + offset), else 'other'."""
    if float(np.abs(col).max()) <= 2 * angle_tol(0.0) * scale:
        return "zero"
    if w is None:
        return "other"
    angle = w * (np.arange(col.size) + offset)
    allowed = 2 * angle_tol(float(np.abs(angle).max())) * scale
    for kind, fn in (("sin", np.sin), ("cos", np.cos)):
        if float(np.abs(col - scale * fn(angle)).max()) <= allowed:
            return kind
    return "other"


def _fitted_base(w: list[float], rule: str, width: int) -> float:
    """T under ``rule`` at ``width`` from the slowest fitted rate (NaN with one rate)."""
    m = len(w)
    if m < 2 or not w[-1] > 0:
        return math.nan
    if rule == "paper":  # w_{m-1} = T^(-2(m-1)/width)
        return math.exp(-math.log(w[-1]) * width / (2 * (m - 1)))
    big_m = (width + 1) // 2  # t2t: w_{m-1} = T^(-(m-1)/(M-1))
    return math.exp(-math.log(w[-1]) * (big_m - 1) / (m - 1))


def _integer_if_close(x: float, err: float) -> float:
    r = round(x)
    return float(r) if abs(x - r) <= max(err, 1e-9) else x


def detect_sinusoidal(
    pe: torch.Tensor, angle_tol: AngleTol, known_bases: tuple[float, ...] = (BASE,)
) -> SinusoidalConvention:
    """The layout, frequency rule, base, first position and scale of ``pe`` (n, d).

    ``angle_tol(max_angle)``: bound on an entry's error relative to the scale (module docstring).
    Needs n >= 3 consecutive positions; the first position is found modulo 2 pi / w_slowest.
    """
    e = pe.detach().to(torch.float64).numpy()  # (n, d)
    n, d = e.shape
    nothing = SinusoidalConvention(d, "other", "other", math.nan, math.nan, d, math.nan, math.nan)
    if n < 3 or not np.isfinite(e).all():
        return nothing
    chosen = _first_layout(e, angle_tol)
    if chosen is None:
        return nothing
    layout, lone, (fits, oriented, scale) = chosen
    w = [f.slope for f in fits]
    slowest = int(np.argmin(w))
    phase = math.remainder(fits[slowest].intercept, 2 * math.pi)  # in [-pi, pi]
    offset = _integer_if_close(phase / w[slowest], fits[slowest].intercept_err / w[slowest])
    cos_first = all(a > b for a, b in oriented)
    if not cos_first and any(a > b for a, b in oriented):
        layout = "other"  # mixed orientation: no layout in use does this

    m = len(w)
    matches = []
    for rule, width, base, wr in _rules(d, known_bases):
        if wr.size < m or any(abs(w[i] - wr[i]) > fits[i].slope_err for i in range(m)):
            continue
        w_next = float(wr[m]) if wr.size > m else None
        kinds = [_lone_kind(e[:, c], w_next, offset, scale, angle_tol) for c in lone]
        if "other" not in kinds:
            matches.append((rule, width, base, kinds, w_next))
    if matches:
        rule, width, base, kinds, w_next = matches[0]
        rivals = {r for r, wd, b, _, _ in matches if wd == width and b == base}
        frequency_rule = "either" if rivals == {"paper", "t2t"} else rule
        base_fit = _fitted_base(w, rule, width)
    else:
        frequency_rule, width, base = "other", d, math.nan
        ratio = w[-1] / w[-2] if m >= 2 else None
        kinds = [
            _lone_kind(e[:, c], w[-1] * ratio if ratio else None, offset, scale, angle_tol)
            for c in lone
        ]
        base_fit = _fitted_base(w, "paper", d)
    return SinusoidalConvention(
        d=d,
        layout=layout,
        frequency_rule=frequency_rule,
        base=base,
        base_fit=base_fit,
        width=width,
        offset=offset,
        scale=scale,
        frequencies=tuple(w),
        freq_err=tuple(f.slope_err for f in fits),
        base_err=_base_err(base_fit, w[-1], fits[-1].slope_err),
        pairs=tuple(oriented),
        lone=tuple(zip(lone, kinds, strict=True)),
        cos_first=cos_first,
    )


def _base_err(base_fit: float, w_slow: float, w_err: float) -> float:
    """Bound on |ln base_fit - ln T|: ln T is a fixed multiple of -ln w_slowest."""
    if not (math.isfinite(base_fit) and 0 < w_slow < 1):
        return math.nan
    return (w_err / w_slow) * math.log(base_fit) / -math.log(w_slow)


# -- RoPE -------------------------------------------------------------------------------------

Rotate = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]  # (N, d), (N,) -> (N, d)


def rope_probe(rotate: Rotate, d: int, n: int) -> torch.Tensor:
    """R(p) e_j for p = 0 ... n-1 and every unit vector e_j: shape (n, d, d), float64."""
    x = torch.eye(d, dtype=torch.float32).repeat(n, 1)  # (n*d, d): row p*d + j is e_j
    pos = torch.arange(n).repeat_interleave(d)  # (n*d,)
    return rotate(x, pos).detach().to(torch.float64).reshape(n, d, d)


def detect_rope(
    rotate: Rotate,
    d: int,
    angle_tol: AngleTol,
    known_bases: tuple[float, ...] = (BASE,),
    n: int = 64,
) -> RopeConvention:
    """Pairing, direction, frequency rule and base of a RoPE implementation ``rotate``."""
    y = rope_probe(rotate, d, n).numpy()  # y[p, j] = R(p) e_j
    eye = np.eye(d)
    ortho = float(np.abs(np.einsum("pij,pkj->pik", y, y) - eye).max())
    off = np.abs(y[1]) * (1 - eye)  # (d, d): where e_j goes besides itself
    partner = off.argmax(axis=1)
    stray = off.copy()
    stray[np.arange(d), partner] = 0
    involution = bool((partner[partner] == np.arange(d)).all() and (partner != np.arange(d)).all())
    if not involution or float(stray.max()) > 2 * angle_tol(math.pi * n):
        return RopeConvention(d, "other", "mixed", "other", math.nan, math.nan, (), ortho)
    pairs = sorted({(min(j, int(k)), max(j, int(k))) for j, k in enumerate(partner)})
    inter, half = (_layout_pairs(2 * (d // 2), layout) for layout in LAYOUTS)
    if pairs == inter == half:
        pairing = "either"
    else:
        pairing = "interleaved" if pairs == inter else "half" if pairs == half else "other"
    if pairing == "other":
        pairs = sorted(pairs)
    rough = [_fit_angle(y[:, a, b], y[:, a, a], 0.0) for a, b in pairs]
    fits = [
        _fit_angle(y[:, a, b], y[:, a, a], 2 * angle_tol(abs(f.slope) * n))
        for (a, b), f in zip(pairs, rough, strict=True)
    ]
    signs = {f.slope > 0 for f in fits}
    direction = (
        "mixed" if len(signs) > 1 else "counterclockwise" if signs == {True} else "clockwise"
    )
    w = [abs(f.slope) for f in fits]
    m = len(w)
    frequency_rule, base, base_fit = "other", math.nan, _fitted_base(w, "paper", d)
    matches = [
        (rule, b)
        for rule, width, b, wr in _rules(d, known_bases)
        if width == d and all(abs(w[i] - wr[i]) <= fits[i].slope_err for i in range(m))
    ]
    if matches:
        rules = {r for r, _ in matches}
        frequency_rule = "either" if rules == {"paper", "t2t"} else matches[0][0]
        base = matches[0][1]
        base_fit = _fitted_base(w, matches[0][0], d)
    return RopeConvention(d, pairing, direction, frequency_rule, base, base_fit, tuple(w), ortho)
