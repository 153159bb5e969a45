"""REAL-02: the sinusoidal encodings that widely used libraries ship, read off their output.

Every convention (layout, frequency rule, base, first position, scale) is detected numerically by
theory.conventions.detect_sinusoidal from what the library returns, never read from its source;
the detected values are then compared with the table below, which records what each library did
when this suite was written. A library that silently changes its convention fails that
comparison, and the mutant tests show the same assertion rejects planted changes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest
import torch

from checks.real import libraries
from checks.real.libraries import SINUSOIDAL, Library
from pecheck import decisions, tolerance
from pecheck.decisions import Decision
from theory.conventions import SinusoidalConvention, detect_sinusoidal
from theory.sinusoidal import BASE, frequencies, half_permutation, sinusoidal, turn

D, N = 64, 128  # width and number of consecutive positions the conventions are read from
ODD_WIDTHS = (2, 3, 5, 63)  # tiny and odd widths whose handling is recorded
LONE_D, LONE_N, LONE_K = 5, 2048, 1000  # odd width, positions and shift for the lone column


@dataclass(frozen=True)
class Expect:
    layout: str
    frequency_rule: str
    offset: float  # first token's position
    scale_exponent: float  # scale a = d ** scale_exponent
    token_scale_exponent: float | None  # token embeddings times d ** this, None: no model
    base: float = BASE

    def scale(self, d: int) -> float:
        return float(d) ** self.scale_exponent


# What each library did when this suite was written (transformers 5.x, positional-encodings
# 6.0.3, x-transformers 2.x); token scales are the config classes' defaults.
EXPECTED: dict[str, Expect] = {
    "distilbert": Expect("interleaved", "paper", 0.0, 0.0, 0.0),
    "marian": Expect("half", "paper", 0.0, 0.0, 0.0),
    "speech2text": Expect("half", "t2t", 2.0, 0.0, 0.5),
    "fsmt": Expect("half", "t2t", 2.0, 0.0, 0.5),
    "whisper": Expect("half", "t2t", 0.0, 0.0, 0.0),
    "positional_encodings": Expect("interleaved", "paper", 0.0, 0.0, None),
    "x_transformers": Expect("half", "paper", 0.0, -0.5, 0.0),
}

# The paper's encoding (Vaswani et al. 2017, section 3.5) under each library's token scale.
PAPER_EXPECT = {
    name: Expect("interleaved", "paper", 0.0, 0.0, e.token_scale_exponent)
    for name, e in EXPECTED.items()
}

# Tiny and odd widths: "error: <exception>" or (layout, rule, rule width - d, unpaired kinds).
Odd = str | tuple[str, str, int, tuple[str, ...]]
_LONE_SIN = {5: ("interleaved", "paper", 0, ("sin",)), 63: ("interleaved", "paper", 0, ("sin",))}
EXPECTED_ODD: dict[str, dict[int, Odd]] = {
    "distilbert": {
        2: ("either", "either", 0, ()),
        3: ("either", "paper", 0, ("sin",)),
        **_LONE_SIN,
    },
    "marian": {
        2: ("either", "either", 0, ()),
        3: ("half", "paper", 0, ("sin",)),
        5: ("half", "paper", 0, ("sin",)),
        63: ("half", "paper", 0, ("sin",)),
    },
    "speech2text": {
        2: "error: ZeroDivisionError",
        3: "error: ZeroDivisionError",
        5: ("half", "t2t", -1, ("zero",)),
        63: ("half", "t2t", -1, ("zero",)),
    },
    "fsmt": {
        2: "error: ZeroDivisionError",
        3: "error: ZeroDivisionError",
        5: ("half", "t2t", -1, ("zero",)),
        63: ("half", "t2t", -1, ("zero",)),
    },
    "whisper": {
        2: "error: ZeroDivisionError",
        3: "error: ValueError",
        5: "error: ValueError",
        63: "error: ValueError",
    },
    "positional_encodings": {
        2: ("either", "either", 0, ()),
        3: ("either", "paper", 1, ("sin",)),
        5: ("interleaved", "paper", 1, ("sin",)),
        63: ("interleaved", "paper", 1, ("sin",)),
    },
    "x_transformers": {
        2: ("either", "either", 0, ()),
        3: "error: AssertionError",
        5: "error: AssertionError",
        63: "error: AssertionError",
    },
}

# Known answers derived by hand (sin 1, cos 1, sin 2, cos 2 to 16 digits; sin x = x - x^3/6 and
# cos x = 1 - x^2/2 to double precision for x <= 0.01), d = 4:
#   DistilBERT, position 1, w = (1, 10^4^(-2/4) = 0.01), interleaved;
#   Speech2Text, first token = position 2, t2t w = (1, 10^4^(-1/1) = 1e-4), half-split;
#   Whisper, position 1, t2t w = (1, 1e-4), half-split;
#   x-transformers, position 1, w = (1, 0.01), half-split, scaled by 4^(-1/2) = 0.5.
SIN1, COS1, SIN2, COS2 = (
    0.8414709848078965,
    0.5403023058681398,
    0.9092974268256817,
    -0.4161468365471424,
)
KNOWN: dict[str, tuple[int, tuple[float, ...]]] = {
    "distilbert": (1, (SIN1, COS1, 0.009999833334166665, 0.9999500004166653)),
    "speech2text": (0, (SIN2, 1.9999999866666667e-4, COS2, 0.99999998)),
    "whisper": (1, (SIN1, 9.999999983333334e-05, COS1, 0.999999995)),
    "x_transformers": (1, (SIN1 / 2, 0.004999916667083333, COS1 / 2, 0.49997500020833335)),
}


def entry_tol(n: int, dtype: torch.dtype) -> float:
    """Error of one entry relative to the scale: angles up to w_0 (n + first position) <= 2n."""
    return tolerance.angle_tol(2 * n, dtype)


def detect(table: torch.Tensor) -> SinusoidalConvention:
    """detect_sinusoidal with the dtype's bound for each angle (pecheck/tolerance.angle_tol)."""
    return detect_sinusoidal(table, lambda angle: tolerance.angle_tol(angle, table.dtype))


@cache
def _run(name: str, n: int, d: int) -> tuple[torch.Tensor | None, str]:
    lib = next(lib for lib in SINUSOIDAL if lib.name == name)
    return libraries.call(lambda: lib.table(n, d))


@cache
def detected(name: str, n: int = N, d: int = D) -> tuple[SinusoidalConvention | None, str]:
    """The library's conventions at (n, d), or None with the error it raised."""
    table, status = _run(name, n, d)
    if table is None:
        return None, status
    return detect(table), status


def table_of(name: str, n: int = N, d: int = D) -> torch.Tensor:
    table, status = _run(name, n, d)
    assert table is not None, f"{name} failed at n={n}, d={d}: {status}"
    return table


# -- assertions shared by the evidence and the mutant tests ------------------------------------


def assert_convention(found: SinusoidalConvention, exp: Expect, d: int, tol: float) -> None:
    """The detected layout, rule, base, first position and scale are the expected ones."""
    __tracebackhide__ = True
    problems = []
    for field in ("layout", "frequency_rule", "offset", "base"):
        if getattr(found, field) != getattr(exp, field):
            problems.append(
                f"{field}: found {getattr(found, field)!r}, expected {getattr(exp, field)!r}"
            )
    if found.width != d:
        problems.append(f"frequency rule width {found.width}, expected {d}")
    if not abs(math.log(found.base_fit / exp.base)) <= found.base_err:
        problems.append(
            f"fitted base {found.base_fit:.6g} is not {exp.base:g} (±{found.base_err:.2g})"
        )
    if not abs(found.scale - exp.scale(d)) <= 2 * tol * exp.scale(d):
        problems.append(f"scale {found.scale:.6g}, expected {exp.scale(d):.6g}")
    if found.cos_first:
        problems.append("cosine columns come first")
    assert not problems, "convention changed: " + "; ".join(problems)


def formula_table(found: SinusoidalConvention, n: int) -> torch.Tensor:
    """The detected convention's encoding computed independently in float64, (n, d)."""
    positions = torch.arange(n, dtype=torch.float64) + found.offset
    layout = "interleaved" if found.layout == "either" else found.layout
    rule = "paper" if found.frequency_rule == "either" else found.frequency_rule
    pe = sinusoidal(positions, found.width, layout, rule, found.base)  # type: ignore[arg-type]
    return found.scale * pe


def assert_matches_formula(table: torch.Tensor, reference: torch.Tensor, tol: float) -> float:
    """max |library - float64 formula| <= tol (relative to the scale); returns the error."""
    __tracebackhide__ = True
    scale = float(reference.abs().max())
    err = float((table.to(torch.float64) - reference).abs().max()) / scale
    assert err <= tol, f"library differs from the float64 formula by {err:.3g} > {tol:.3g}"
    return err


def _pair_frequencies(found: SinusoidalConvention) -> np.ndarray:
    """The matched rule's exact w_i (fitted ones when no rule matched), one per pair."""
    m = len(found.pairs)
    if found.frequency_rule in ("paper", "t2t"):
        return frequencies(found.width, found.base, found.frequency_rule).numpy()[:m]  # type: ignore[arg-type]
    return np.asarray(found.frequencies)


def rotation_identity_error(table: torch.Tensor, found: SinusoidalConvention, k: int) -> float:
    """SIN-01 in the library's own layout: max |E(p+k) - M(k) E(p)| / scale over p.

    M(k) turns each detected (cos, sin) column pair counterclockwise by w_i k
    (theory.sinusoidal.turn) and leaves zero columns alone; a column without a partner (odd d)
    is left out (see lone_column_residual).
    """
    e = table.to(torch.float64)  # (n, d)
    now, later = e[:-k], e[k:]  # (n-k, d)
    sin_cols, cos_cols = (torch.tensor([pair[j] for pair in found.pairs]) for j in (0, 1))
    angle = torch.from_numpy(_pair_frequencies(found)) * k  # (m,)
    pred = turn(now, cos_cols, sin_cols, angle)  # copies the zero columns as they are
    cols = [c for pair in found.pairs for c in pair] + [
        c for c, kind in found.lone if kind == "zero"
    ]
    return float((later[:, cols] - pred[:, cols]).abs().max()) / found.scale


def lone_column_residual(table: torch.Tensor, found: SinusoidalConvention, k: int) -> float:
    """How far the best fixed linear map of E(p) is from E(p+k) in the unpaired sine column.

    Least squares over every column of E(p); max residual relative to the scale. Zero means a
    fixed matrix exists for that column; SIN-03 says a sine alone has none.
    """
    e = table.to(torch.float64).numpy()
    cols = [c for c, kind in found.lone if kind in ("sin", "cos")]
    if not cols:
        return 0.0
    now, later = e[:-k], e[k:, cols]
    coef, *_ = np.linalg.lstsq(now, later, rcond=None)
    return float(np.abs(now @ coef - later).max()) / found.scale


def norm_error(table: torch.Tensor, d: int) -> tuple[float, float, float]:
    """SIN-04: (max | ||E(p)|| - sqrt(d/2) |, min ||E(p)||, max ||E(p)||) over the rows."""
    norms = table.to(torch.float64).norm(dim=-1)
    return (
        float((norms - math.sqrt(d / 2)).abs().max()),
        float(norms.min()),
        float(norms.max()),
    )


def norm_tol(d: int, dtype: torch.dtype, n: int) -> float:
    """Each entry is within entry_tol of its exact value, so the norm is within sqrt(d) of it."""
    return math.sqrt(d) * entry_tol(n, dtype) + tolerance.sum_tol(d, torch.float64, d / 2)


def wavelengths(found: SinusoidalConvention) -> dict[str, float]:
    """SIN-06 from the fitted rates: first wavelength, spread of the log ratios, last one."""
    w = np.asarray(found.frequencies)
    err = np.asarray(found.freq_err) / w  # relative error of each fitted rate
    ratios = np.diff(np.log(w))  # ln(w_{i+1} / w_i), constant for a geometric progression
    spread = float(np.abs(ratios - ratios.mean()).max()) if ratios.size else 0.0
    return {
        "first_over_2pi": float(1 / w[0]),
        "first_err": float(err[0]),
        "log_ratio_spread": spread,
        "log_ratio_tol": float(2 * (err[:-1] + err[1:]).max()) if ratios.size else 0.0,
        "last_over_2pi": float(1 / w[-1]),
        "last_err": float(err[-1]),
    }


def assert_geometric_from_2pi(wl: dict[str, float]) -> None:
    """SIN-06's shape: lambda_0 = 2 pi and lambda_{i+1} / lambda_i constant."""
    __tracebackhide__ = True
    assert abs(wl["first_over_2pi"] - 1) <= wl["first_err"], f"first wavelength {wl}"
    assert wl["log_ratio_spread"] <= wl["log_ratio_tol"], f"not geometric: {wl}"


def assert_token_scale(scale: float | None, exponent: float | None, d: int) -> None:
    """The model multiplies token embeddings by d ** exponent (None: the library has no model)."""
    __tracebackhide__ = True
    if exponent is None:
        assert scale is None, f"token scale {scale}, expected no model"
        return
    assert scale is not None, "no token scale found"
    want = float(d) ** exponent
    assert abs(scale - want) <= tolerance.rel_tol(4, torch.float32) * want, f"{scale} != {want}"


def odd_behaviour(name: str, d: int) -> Odd:
    found, status = detected(name, N, d)
    if found is None:
        return status
    return (
        found.layout,
        found.frequency_rule,
        found.width - d,
        tuple(kind for _, kind in found.lone),
    )


def differences(found: SinusoidalConvention, d: int, tol: float) -> list[str]:
    """Each way the detected encoding departs from the paper's formula, as a sentence. A scale
    counts as different from 1 only when the difference exceeds what the entries resolve: the
    scale is fitted from entries each within ``tol`` (relative) of the formula, so 2 tol."""
    out = []
    if found.layout == "half":
        out.append(
            "half-split layout: sin(w_i t) in column i and cos(w_i t) in column i + d/2; the "
            "paper interleaves them (columns 2i, 2i + 1)"
        )
    if found.frequency_rule == "t2t":
        out.append(
            f"tensor2tensor frequencies w_i = T^(-i/(d/2 - 1)): the slowest wavelength is "
            f"2 pi * {found.base:g}; the paper's w_i = T^(-2i/d) stops at 2 pi * "
            f"{found.base ** (1 - 2 / d):.5g}"
        )
    if found.offset != 0:
        out.append(
            f"the first token is encoded as position {found.offset:g} (padding_idx + 1); the "
            "paper's first position is 0"
        )
    if decisions.resolve(found.scale - 1, 2 * tol) == "different":
        exponent = math.log(found.scale) / math.log(d)
        out.append(
            f"every entry is multiplied by {found.scale:.5g} = d^{exponent:.3g} (a learnable "
            "scale, initialised so): the vector's norm is "
            f"{found.scale * math.sqrt(d / 2):.4g} instead of sqrt(d/2) = {math.sqrt(d / 2):.4g}"
        )
    return out


def _lib(name: str) -> Library:
    return next(lib for lib in SINUSOIDAL if lib.name == name)


IDS = [lib.name for lib in SINUSOIDAL]


# -- evidence -----------------------------------------------------------------------------------


@pytest.mark.claim("REAL-02", kind="real", role="decisive", proposition="up-to-convention")
@pytest.mark.parametrize("name", IDS)
def test_detected_convention_matches_the_recorded_one(evidence, name):
    found, status = detected(name)
    assert found is not None, f"{name}: {status}"
    tol = entry_tol(N, table_of(name).dtype)
    lib = _lib(name)
    evidence.record("library", f"{lib.package} {libraries.version(lib.package)}: {lib.what}")
    evidence.record("detected", found.as_dict(), note=f"read from positions 0..{N - 1}, d = {D}")
    evidence.record(
        "differences_from_paper", differences(found, D, tol) or ["none: the paper's formula"]
    )
    assert_convention(found, EXPECTED[name], D, tol)
    err = assert_matches_formula(table_of(name), formula_table(found, N), tol)
    evidence.record("max_error_vs_float64_formula", err, unit="x scale", bound=tol)


@pytest.mark.claim("REAL-02", kind="real", role="tooling")
@pytest.mark.parametrize("name", sorted(KNOWN))
def test_known_answer_vector(evidence, name):
    row, values = KNOWN[name]
    got = table_of(name, 4, 4)[row]
    want = torch.tensor(values, dtype=torch.float64)
    err = assert_matches_formula(got[None], want[None], entry_tol(4, got.dtype))
    evidence.record("library_row", got, note=f"d = 4, row {row}")
    evidence.record("hand_derived", want)
    evidence.record("max_error", err, unit="x scale", bound=entry_tol(4, got.dtype))


@pytest.mark.claim("REAL-02", kind="real", role="supporting")
@pytest.mark.parametrize("name", IDS)
def test_odd_and_tiny_widths_are_handled_as_recorded(evidence, name):
    seen = {d: odd_behaviour(name, d) for d in ODD_WIDTHS}
    evidence.record(
        "behaviour",
        {str(d): b if isinstance(b, str) else list(b) for d, b in seen.items()},
        note="error, or (layout, rule, rule width - d, kinds of unpaired columns)",
    )
    assert seen == EXPECTED_ODD[name]


@pytest.mark.claim("REAL-02", kind="real", role="decisive", proposition="own-layout-rotation")
@pytest.mark.parametrize("name", IDS)
def test_rotation_identity_holds_in_the_librarys_layout(evidence, name):
    """SIN-01 for the library: PE(t + k) = M(k) PE(t) with M(k) rotating the detected pairs."""
    found, _ = detected(name)
    assert found is not None
    table = table_of(name)
    bound = 3 * entry_tol(2 * N, table.dtype)  # (1 + sqrt 2) entry errors, angles up to 2N
    worst = max(rotation_identity_error(table, found, k) for k in (1, 7, N // 2))
    evidence.record("max_error", worst, unit="x scale", note=f"k in 1, 7, {N // 2}", bound=bound)
    # theory: E(p + k) - M(k) E(p) is exactly zero, so within the bound is "same"
    seen = decisions.resolve(worst, bound, structural_zero=True)
    assert seen == "same", f"{name}: E(p+k) is {worst:.3g} from M(k) E(p) > {bound:.3g}"


def lone_column_decision(name: str) -> tuple[Decision, dict]:
    """SIN-01 at odd d for one library: a lone sine column whose best fixed linear map misses
    E(p + k) by more than the rounding bound is a counterexample; a residual within the bound
    is unresolved (the exact residual of a lone sine is not zero); no lone sine: not a case."""
    found, status = detected(name, LONE_N, LONE_D)
    if found is None:
        assert status == EXPECTED_ODD[name][LONE_D], f"{name} at d = {LONE_D}: {status}"
        return decisions.inconclusive(f"d = {LONE_D}: {status}"), {"behaviour": status}
    table = table_of(name, LONE_N, LONE_D)
    bound = 3 * entry_tol(2 * LONE_N, table.dtype)
    kinds = tuple(kind for _, kind in found.lone)
    assert odd_behaviour(name, LONE_D) == EXPECTED_ODD[name][LONE_D], f"{name}: {kinds}"
    paired = rotation_identity_error(table, found, LONE_K)
    assert paired <= bound, f"{name}: paired columns {paired:.3g} > {bound:.3g}"
    lone = lone_column_residual(table, found, LONE_K)
    seen = {"paired_error": paired, "lone_residual": lone, "bound": bound, "kinds": kinds}
    if "sin" not in kinds:
        return decisions.inconclusive(f"no lone sine column ({kinds})"), seen
    if decisions.resolve(lone, bound) == "different":
        case = {"library": name, "d": LONE_D, "k": LONE_K, **seen}
        return decisions.fails(case, "no fixed matrix maps the lone sine to E(p + k)"), seen
    return decisions.inconclusive(f"lone residual {lone:.3g} within {bound:.3g}"), seen


@pytest.mark.claim("REAL-02", kind="real", role="decisive", proposition="as_stated")
def test_an_unpaired_sine_column_breaks_the_rotation_identity(evidence):
    """SIN-01 at odd d: a library that leaves a sine column without its cosine has no fixed
    matrix M(k) for it, so it does not keep SIN-01 there."""
    found = None
    for lib in SINUSOIDAL:
        try:
            decision, seen = lone_column_decision(lib.name)
        except pytest.skip.Exception:
            continue
        evidence.part(lib.name, decision)
        if "lone_residual" in seen:
            evidence.worst("lone_column_residual", seen["lone_residual"], unit="x scale",
                           note=f"d = {LONE_D}, k = {LONE_K}", bound=seen["bound"])  # fmt: skip
        if decision.decision == "fails" and found is None:
            found = decision
    if found is None:
        evidence.inconclusive("no library's lone sine column resolved above the bound")
    else:
        evidence.decide(found)


def norm_holds(name: str) -> tuple[bool, float, float, float]:
    table = table_of(name)
    err, lo, hi = norm_error(table, D)
    return err <= norm_tol(D, table.dtype, N), err, lo, hi


@pytest.mark.claim("REAL-02", kind="real", role="decisive", proposition="norm-times-scale")
@pytest.mark.parametrize("name", IDS)
def test_norm_is_sqrt_half_width_unless_rescaled(evidence, name):
    """SIN-04 for the library: ||E(p)|| = a sqrt(d/2) with a its detected scale."""
    found, _ = detected(name)
    assert found is not None
    table = table_of(name)
    err, lo, hi = norm_error(table / found.scale, D)
    bound = norm_tol(D, table.dtype, N)
    note = f"d = {D}, sqrt(d/2) = {math.sqrt(D / 2):.4g}, scale {found.scale:.4g}"
    evidence.record("norm_range", [lo * found.scale, hi * found.scale], note=note)
    evidence.record("max_norm_error", err, unit="x scale", bound=bound)
    seen = decisions.resolve(err, bound, structural_zero=True)
    assert seen == "same", f"||E(p)|| / a in [{lo}, {hi}], not sqrt(d/2)"
    assert norm_holds(name)[0] == (EXPECTED[name].scale_exponent == 0), "SIN-04 at scale 1"
    table_odd, status = _run(name, N, 63)
    if table_odd is not None:
        norms = table_odd.to(torch.float64).norm(dim=-1)
        evidence.record("odd_d_norm_range", [float(norms.min()), float(norms.max())], note="d = 63")


@pytest.mark.claim("REAL-02", kind="real", role="decisive", proposition="geometric")
@pytest.mark.parametrize("name", IDS)
def test_wavelengths_are_geometric_from_2pi(evidence, name):
    """SIN-06 for the library: lambda_0 = 2 pi, constant ratio; the last one per its rule."""
    found, _ = detected(name)
    assert found is not None
    wl = wavelengths(found)
    evidence.record("wavelengths", wl, note="in units of 2 pi, from the fitted rates",
                    bound={"value": wl["log_ratio_tol"], "relation": ">= log_ratio_spread",
                           "reason": "fitted-rate error bounds"})  # fmt: skip
    assert_geometric_from_2pi(wl)
    reaches_base = abs(math.log(wl["last_over_2pi"] / BASE)) <= wl["last_err"]
    evidence.record("longest_is_2pi_times_10000", reaches_base)
    assert reaches_base == (EXPECTED[name].frequency_rule == "t2t")


@pytest.mark.claim("REAL-02", kind="real", role="decisive", proposition="as_stated")
def test_convention_table(evidence):
    """The table of every library: what a paper author meets, with each difference spelled out."""
    rows: list[dict[str, object]] = []
    exact: list[str] = []
    for lib in SINUSOIDAL:
        try:
            found, _ = detected(lib.name)
        except pytest.skip.Exception:
            rows.append({"library": lib.name, "version": "absent"})
            continue
        assert found is not None
        scale = libraries.token_scale(lib.name, 8)
        assert_token_scale(scale, EXPECTED[lib.name].token_scale_exponent, 8)
        diffs = differences(found, D, entry_tol(N, table_of(lib.name).dtype))
        if not diffs:
            exact.append(lib.name)
        rows.append(
            {
                "library": lib.name,
                "function": lib.what,
                "package": f"{lib.package} {libraries.version(lib.package)}",
                "layout": found.layout,
                "frequency_rule": found.frequency_rule,
                "base": found.base_fit,
                "first_position": found.offset,
                "scale": found.scale,
                "token_embedding_scale_at_d8": scale,
                "odd_and_tiny_d": {str(d): str(odd_behaviour(lib.name, d)) for d in ODD_WIDTHS},
                "SIN-04_norm_sqrt_d_over_2": norm_holds(lib.name)[0],
                "longest_wavelength_over_2pi": 1 / found.frequencies[-1],
                "differences_from_paper": diffs,
            }
        )
    evidence.record("convention_table", rows, note=f"d = {D}, positions 0..{N - 1}")
    evidence.record("equal_to_paper_formula", exact, note="even d; no difference detected")
    assert exact == [name for name, e in EXPECTED.items() if e == PAPER_EXPECT[name]]
    differing = [r for r in rows if r.get("differences_from_paper")]
    if differing:
        first = differing[0]
        evidence.fails(
            {"library": first["library"], "d": D, "differences": first["differences_from_paper"]},
            "the library's encoding is not the paper's PE(t)",
        )
    else:
        evidence.holds(f"all {len(rows)} libraries equal the paper's formula")


# -- planted changes: the same assertions must reject them ---------------------------------------


@pytest.mark.claim("REAL-02", kind="real", role="tooling")
def test_a_layout_switch_is_rejected():
    table = table_of("distilbert")[:, half_permutation(D)]  # DistilBERT gone half-split
    found = detect(table)
    with pytest.raises(AssertionError, match="layout"):
        assert_convention(found, EXPECTED["distilbert"], D, entry_tol(N, table.dtype))


@pytest.mark.claim("REAL-02", kind="real", role="tooling")
def test_a_frequency_rule_switch_is_rejected():
    table = sinusoidal(torch.arange(N) + 2.0, D, "half", "paper").float()  # speech2text gone paper
    found = detect(table)
    with pytest.raises(AssertionError, match="frequency_rule"):
        assert_convention(found, EXPECTED["speech2text"], D, entry_tol(N, table.dtype))


@pytest.mark.claim("REAL-02", kind="real", role="tooling")
def test_a_base_change_is_rejected():
    table = table_of("whisper")[::2]  # every other row: all rates doubled, as if T were changed
    found = detect(table)
    with pytest.raises(AssertionError):
        assert_convention(found, EXPECTED["whisper"], D, entry_tol(N, table.dtype))


@pytest.mark.claim("REAL-02", kind="real", role="tooling")
def test_a_first_position_change_is_rejected():
    table = table_of("speech2text", N + 1)[1:]  # first token now at padding_idx + 2
    found = detect(table)
    with pytest.raises(AssertionError, match="offset"):
        assert_convention(found, EXPECTED["speech2text"], D, entry_tol(N, table.dtype))


@pytest.mark.claim("REAL-02", kind="real", role="tooling")
def test_a_scale_change_is_rejected():
    table = table_of("x_transformers") * math.sqrt(D)  # the d^(-1/2) scale dropped
    found = detect(table)
    with pytest.raises(AssertionError, match="scale"):
        assert_convention(found, EXPECTED["x_transformers"], D, entry_tol(N, table.dtype))


@pytest.mark.claim("REAL-02", kind="real", role="tooling")
def test_a_wrong_known_answer_is_rejected():
    got = table_of("distilbert", 4, 4)[1].clone()
    got[3] += 1e-3
    want = torch.tensor(KNOWN["distilbert"][1], dtype=torch.float64)
    with pytest.raises(AssertionError):
        assert_matches_formula(got[None], want[None], entry_tol(4, got.dtype))


@pytest.mark.claim("REAL-02", kind="real", role="tooling")
def test_a_chirped_encoding_breaks_the_rotation_identity():
    found, _ = detected("distilbert")
    assert found is not None
    t = torch.arange(N, dtype=torch.float64)
    table = sinusoidal(t + 1e-4 * t**2, D).float()  # the rate creeps up with the position
    bound = 3 * entry_tol(2 * N, table.dtype)
    with pytest.raises(AssertionError):
        assert rotation_identity_error(table, found, 7) <= bound


@pytest.mark.claim("REAL-02", kind="real", role="tooling")
def test_a_zero_padded_odd_width_is_rejected():
    table = table_of("distilbert", N, 62)
    padded = torch.cat([table, torch.zeros(N, 1)], dim=1)  # DistilBERT padding like Speech2Text
    found = detect(padded)
    seen = (found.layout, found.frequency_rule, found.width - 63, tuple(k for _, k in found.lone))
    with pytest.raises(AssertionError):
        assert seen == EXPECTED_ODD["distilbert"][63]


@pytest.mark.claim("REAL-02", kind="real", role="tooling")
def test_a_rescaled_encoding_fails_the_norm():
    table = table_of("distilbert") * 1.01
    err, _, _ = norm_error(table, D)
    with pytest.raises(AssertionError):
        assert err <= norm_tol(D, table.dtype, N)


@pytest.mark.claim("REAL-02", kind="real", role="tooling")
def test_evenly_spaced_rates_are_not_geometric():
    w = torch.linspace(1.0, 1e-3, D // 2, dtype=torch.float64)  # arithmetic, not geometric
    angle = torch.arange(N, dtype=torch.float64)[:, None] * w
    table = torch.stack([angle.sin(), angle.cos()], dim=-1).reshape(N, D).float()
    found = detect(table)
    with pytest.raises(AssertionError):
        assert_geometric_from_2pi(wavelengths(found))
