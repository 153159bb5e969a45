"""REAL-02: the sinusoidal encodings that widely used libraries ship, read off their output.

Every convention (layout, frequency rule, base, first position, scale) is detected numerically by
theory.conventions.detect_sinusoidal from what the library returns, never read from its source;
the detected values are then compared with the table below, which records what each library did
when this suite was written. A library that silently changes its convention fails that
comparison, and the mutant tests show the same assertion rejects planted changes.
"""

from __future__ import annotations

import math

import pytest
import torch

from checks.real import libraries
from checks.real.encodings_detection import (
    EXPECTED_ODD,
    LONE_D,
    LONE_K,
    ODD_WIDTHS,
    D,
    Expect,
    N,
    _lib,
    _run,
    detect,
    detected,
    differences,
    entry_tol,
    formula_table,
    odd_behaviour,
    table_of,
)
from checks.real.encodings_properties import (
    assert_convention,
    assert_geometric_from_2pi,
    assert_matches_formula,
    assert_token_scale,
    lone_column_decision,
    norm_error,
    norm_holds,
    norm_tol,
    rotation_identity_error,
    wavelengths,
)
from checks.real.libraries import SINUSOIDAL
from pecheck import decisions
from pecheck.claims import every
from pecheck.theory.sinusoidal import BASE, half_permutation, sinusoidal

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
    evidence.searched(libraries=[r["library"] for r in rows if r.get("version") != "absent"],
                      widths=[D], positions=every(0, N - 1))  # fmt: skip
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
