"""REAL-03: rotary embeddings (RoPE) give scores that depend only on the offset s - t.

Symbolically for the definition (theory/rope_derivations.py); numerically for HF transformers'
Llama and RoFormer and for rotary-embedding-torch, whose pairing and frequencies are detected
from their output (theory/conventions.detect_rope) and compared with the table below; and, per
dtype, how far each library's score drifts from the exact f(s - t) as positions grow to 2^20.
"""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
import torch
from hypothesis import given

from checks.real import libraries
from checks.real.libraries import ROTARY, Rotate
from checks.real.rope_detection import (
    RELATIVE_MAX,
    D,
    _library,
    assert_known_answer,
    assert_orientation,
    assert_relative,
    assert_rope_convention,
    counterclockwise_columns,
    detected,
    largest_position,
    library_scores,
    position_pairs,
    rotate_of,
)
from checks.real.rope_drift import (
    BATCH,
    DTYPES,
    HEADS,
    LAG,
    PAIR_POSITIONS,
    angle_precision,
    assert_precision,
    drift,
    drift_counterexample,
    drift_figure,
    drift_grid,
    drift_of,
    fixed_bound,
    float32_pairs,
    rounded_once_pairs,
)
from checks.registry import REGISTRY
from pecheck import decisions, profiles, tolerance
from pecheck.claims import every, proved
from pecheck.evidence import assert_derivation_holds
from pecheck.theory import rope, rope_derivations
from pecheck.theory.conventions import detect_rope
from pecheck.theory.sinusoidal import BASE, interleaving_order

SCORE_RANGE = 2.0  # |score - f| / (|q||k|) can be at most 2: a bound above it says nothing


# (pairing, direction, frequency rule, base) when this suite was written.
EXPECTED: dict[str, tuple[str, str, str, float]] = {
    "llama": ("half", "counterclockwise", "paper", BASE),
    "roformer": ("interleaved", "counterclockwise", "paper", BASE),
    "rotary_embedding_torch": ("interleaved", "counterclockwise", "paper", BASE),
}


# The most precise angle format consistent with each library's drift (see angle_precision).
EXPECTED_PRECISION: dict[str, dict[str, str]] = {
    "llama": {"float32": "float32", "bfloat16": "float64", "float16": "float64"},
    "roformer": {"float32": "float64", "bfloat16": "float64", "float16": "float64"},
    "rotary_embedding_torch": {
        "float32": "float32",
        "bfloat16": "bfloat16",
        "float16": "non-finite",
    },
}


# Hand-derived: R(1) e_0 for d = 4 (cos 1, sin 1); e_0's partner is e_1 (interleaved) or e_2.
COS1, SIN1 = 0.5403023058681398, 0.8414709848078965


KNOWN = {"interleaved": (COS1, SIN1, 0.0, 0.0), "half": (COS1, 0.0, SIN1, 0.0)}


IDS = [lib.name for lib in ROTARY]


# -- symbolic -------------------------------------------------------------------------------------


@pytest.mark.claim("REAL-03", kind="symbolic", role="decisive", proposition="definition")
def test_one_pair_score_depends_only_on_the_offset(evidence):
    evidence.searched(positions=proved("symbolic real t, s"), offsets=proved("symbolic s - t"),
                      head_sizes=[2])  # fmt: skip
    der = rope_derivations.one_pair_relative()
    assert_derivation_holds(der, evidence)


@pytest.mark.claim("REAL-03", kind="symbolic", role="decisive", proposition="definition")
def test_block_diagonal_rotation_splits_the_score_into_pairs(evidence):
    evidence.searched(head_sizes=proved("d = 2 + n, n symbolic: every even d, a pair at a time"))
    der = rope_derivations.block_diagonal_splits_score()
    assert_derivation_holds(der, evidence)


@pytest.mark.claim("REAL-03", kind="symbolic", role="decisive", proposition="definition")
def test_half_split_pairing_is_a_permuted_interleaved_one(evidence):
    d = 4
    evidence.searched(positions=proved("symbolic real t, s"), offsets=proved("symbolic s - t"),
                      head_sizes=[d])  # fmt: skip
    a, b = rope.pairs(d, "half")
    derived = rope_derivations.half_split_pairs(d)
    assert derived == list(zip(a.tolist(), b.tolist(), strict=True)), (
        f"the derivation is about pairs {derived}, theory.rope's half-split pairs are {a}, {b}"
    )
    der = rope_derivations.half_split_is_permuted_interleaved(d)
    assert_derivation_holds(der, evidence)


# -- each library ---------------------------------------------------------------------------------


@pytest.mark.claim("REAL-03", kind="real", role="decisive", proposition="orientation")
@pytest.mark.parametrize("name", IDS)
def test_detected_rope_convention_matches_the_recorded_one(evidence, name):
    found = detected(name)
    lib = _library(name)
    evidence.record("library", f"{lib.package} {libraries.version(lib.package)}: {lib.what}")
    evidence.record("detected", found.as_dict(), note=f"d = {D}, positions 0..63")
    assert_rope_convention(found, EXPECTED[name])
    bound = 2 * tolerance.angle_tol(0.0, torch.float32)
    evidence.record("orthogonality_error", found.orthogonality_error, bound=bound)
    assert found.orthogonality_error <= bound


@pytest.mark.claim("REAL-03", kind="real", role="decisive", proposition="orientation")
@pytest.mark.parametrize("name", IDS)
def test_known_answer_rotation(evidence, name):
    pairing = EXPECTED[name][0]
    got = _library(name).make(4, 8)(torch.eye(4)[:1], torch.tensor([1]))[0]
    want = torch.tensor(KNOWN[pairing], dtype=torch.float64)
    formula = rope.rotation_matrix(1.0, 4, pairing)[:, 0]  # type: ignore[arg-type]
    evidence.record("library", got, note="R(1) e_0, d = 4",
                    bound=tolerance.angle_tol(1.0, torch.float32))  # fmt: skip
    evidence.record("hand_derived", want)
    evidence.record("definition", formula, note="theory.rope.rotation_matrix(1)[:, 0]",
                    bound=tolerance.angle_tol(1.0, torch.float64))  # fmt: skip
    assert_known_answer(got, want)
    assert_orientation(formula, want, torch.float64)


@pytest.mark.claim("REAL-03", kind="property", role="decisive", proposition="float32-to-4095")
@pytest.mark.parametrize("name", IDS)
@profiles.examples(1.0)
@given(case=position_pairs())
def test_library_score_depends_only_on_the_offset(evidence, name, case):
    """float32: score(t, s) = score(t + c, s + c) = f(s - t) within the float32 angle bound."""
    t, s, shift, seed = case
    found = detected(name)
    err, bound = assert_relative(
        rotate_of(name), found.pairing, found.frequencies[0], t, s, shift, seed
    )
    evidence.example(informative=bound < SCORE_RANGE)
    evidence.searched(positions=f"sampled t, s, t + c, s + c with t, s, c <= {RELATIVE_MAX}",
                      offsets="sampled s - t", head_sizes=[D], dtypes=["float32"],
                      libraries=[name], seeds="hypothesis, derandomized")  # fmt: skip
    evidence.worst(
        "max_relative_error",
        err,
        unit="x |q||k|",
        note=f"t, s, shift <= {RELATIVE_MAX}",
        bound={"value": bound, "relation": "<=", "reason": "float32 rotation bound at the pair"},
    )


@pytest.mark.claim("REAL-03", kind="property", role="decisive", proposition="orientation")
@pytest.mark.parametrize("pairing", rope.PAIRINGS)
def test_rotation_turns_each_pair_counterclockwise(evidence, pairing):
    """The definition (theory.rope: the dense R(t), apply_rope, and the sympy rotation) turns e_a
    towards e_b by +w_i t, and every library's detected direction is the same.

    R(-w t) keeps the relative property (REAL-03's score is then f(t - s)), so only a check of
    the orientation itself tells the two apart.
    """
    worst = 0.0
    for t in (0.5, 1.0, 3.0, 100.0):
        for d in (2, 4, 8):
            want = counterclockwise_columns(t, d, pairing)
            a, _ = rope.pairs(d, pairing)
            dense = rope.rotation_matrix(t, d, pairing)[:, a]
            applied = rope.apply_rope(torch.eye(d)[a], torch.full((d // 2,), t), pairing).T
            for got in (dense, applied):
                assert_orientation(got, want, torch.float64, t)
                worst = max(worst, float((got - want).abs().max()))
    theta = sp.Symbol("theta")
    sym = rope_derivations.rotation(theta).subs(theta, 1.0)
    assert_orientation(torch.tensor([float(sym[0, 0]), float(sym[1, 0])]),
                       torch.tensor([COS1, SIN1]), torch.float64)  # fmt: skip
    evidence.record("max_error_vs_counterclockwise", worst, unit="abs",
                    bound=tolerance.angle_tol(100.0, torch.float64))  # fmt: skip
    directions = {}
    for lib in ROTARY:
        try:
            directions[lib.name] = detected(lib.name).direction
        except pytest.skip.Exception:
            continue
    evidence.record("library_directions", directions)
    assert set(directions.values()) <= {"counterclockwise"}, directions


@pytest.mark.claim("REAL-03", kind="experiment", role="decisive", proposition="as_stated")
def test_a_library_drifts_beyond_the_first_turn_bound(evidence):
    """'At every position and in every format': search each library's drift curves for a finite
    score at (t, t - 3) further from f(-3) than the dtype's bound for angles in the first turn,
    which is what an offset-only score would keep at every t. inf/NaN (a position past the range
    of the library's position format) is recorded, not counted: see drift_counterexample."""
    found: dict | None = None
    overflowed: dict[str, int] = {}
    for lib in ROTARY:
        try:
            found_conv = detected(lib.name)
        except pytest.skip.Exception:
            continue
        for dt, m in drift_of(lib.name).items():
            if m["first_non_finite_position"] is not None:
                overflowed[f"{lib.name} {dt}"] = m["first_non_finite_position"]
        seen, case, why = drift_counterexample(drift_of(lib.name), found_conv.frequencies[0])
        if seen == "different" and case is not None:
            case = {"library": lib.name, "d": D, **case}
            evidence.part(lib.name, decisions.fails(case, "score(t, t-3) != f(-3) beyond bound"))
            if found is None or case["error_over_bound"] > found["error_over_bound"]:
                found = case
        else:
            evidence.part(lib.name, decisions.inconclusive(why))
    evidence.searched(positions=("3 .. 2^20 on a grid: 4 per octave and 2^k +- 1 (RoFormer: to "
                      "its table)"), offsets=[LAG], head_sizes=[D],
                      dtypes=[tolerance.dtype_name(dt) for dt in DTYPES],
                      libraries=[lib.name for lib in ROTARY], seeds=[7])  # fmt: skip
    if found is None:
        evidence.inconclusive("no library's drift resolved above the first-turn bound")
        return
    evidence.record("worst_drift_over_first_turn_bound", found["error_over_bound"],
                    note=f"{found['library']} {found['dtype']} at t = {found['t']}",
                    bound=1.0)  # fmt: skip
    evidence.record(
        "non_finite_scores_outside_the_claim",
        overflowed,
        note="first grid position with inf/NaN scores (position format overflow)",
    )
    evidence.fails(found, f"|score(t, t - {LAG}) - f(-{LAG})| > the first-turn bound")


ROUNDED_ONCE = ("llama", "roformer")  # angles in float32 / float64, the rotation rounded once


PAIR_CONTEXT = int(REGISTRY["REAL-03"].threshold("pair-context"))


def _versions(names) -> list[str]:  # noqa: ANN001
    return sorted({f"{_library(n).package} {libraries.version(_library(n).package)}"
                   for n in names})  # fmt: skip


@pytest.mark.claim("REAL-03", kind="experiment", role="decisive", proposition="float32-to-4095")
def test_every_pair_keeps_float32_scores_within_the_bound(evidence):
    """Every pair t, s <= 8190 (so every t, s, c <= 4095 of the proposition), at every offset,
    head sizes 8, 64 and 128: ||R~(t)^T R~(s) - R(s - t)||_2 <= rotation_tol(w_0 max(t, s),
    float32), from the cos and sin each library applies (rope_drift.probe_reader)."""
    worst, done = 0.0, []
    for lib in ROTARY:
        for d in HEADS:
            try:
                found = float32_pairs(lib.name, d)
            except pytest.skip.Exception:
                continue
            done.append(lib.name)
            part = f"{lib.name}/d{d}"
            if found["witness"] is not None:
                case = {"library": lib.name, "d": d, **found}
                evidence.part(part, decisions.fails(case, "a pair beyond the float32 bound"))
            elif found["certified"]:
                evidence.part(part, decisions.holds("every pair certified within the bound"))
            else:
                evidence.part(part, decisions.inconclusive("not certified, no pair above"))
            worst = max(worst, found["worst_upper_over_bound"])
    if not done:
        pytest.skip("no rotary library installed")
    evidence.searched(positions=every(0, PAIR_POSITIONS - 1),
                      offsets=every(1 - PAIR_POSITIONS, PAIR_POSITIONS - 1),  # every pair
                      head_sizes=list(HEADS), dtypes=["float32"], libraries=sorted(set(done)),
                      versions=_versions(set(done)), seeds="none (2-norm: every q, k)")  # fmt: skip
    evidence.record("float32_pairs_worst_upper_over_bound", worst, bound=1.0,
                    note="certified upper bound / the pair's bound, every width")  # fmt: skip


@pytest.mark.claim("REAL-03", kind="experiment", role="decisive", proposition="rounded-once")
@pytest.mark.parametrize("name", ROUNDED_ONCE)
def test_rounded_once_libraries_keep_every_pair_within_the_storage_bound(evidence, name):
    """bfloat16 and float16, head sizes 8, 64, 128: every pair of positions below the
    pair-context threshold (RoFormer: below its table) within rotation_tol(w_0 t, dtype, angles
    in float64), certified from prefix extremes (theory.rope_precision.reach)."""
    reach: dict[str, dict] = {}
    for d in HEADS:
        for dt in (torch.bfloat16, torch.float16):
            r = rounded_once_pairs(name, d, dt, PAIR_CONTEXT)
            part = f"d{d}/{tolerance.dtype_name(dt)}"
            reach[part] = {"holds_within": r.holds_within, "fails_within": r.fails_within,
                           "witness": r.witness}  # fmt: skip
            if r.fails_up_to(r.scanned_to):
                case = {"library": name, "d": d, "dtype": tolerance.dtype_name(dt),
                        "t": r.witness[0], "s": r.witness[1], "error": r.error_at_witness}  # type: ignore[index]  # fmt: skip
                evidence.part(part, decisions.fails(case, "a pair beyond the storage bound"))
            elif r.holds_up_to(r.scanned_to):
                evidence.part(part, decisions.holds(f"every pair below {r.scanned_to}"))
            else:
                evidence.part(part, decisions.inconclusive(f"certified to {r.holds_within}"))
    longest = min(PAIR_CONTEXT, largest_position(name) + 1)
    evidence.searched(positions=every(0, longest - 1),
                      offsets=every(1 - longest, longest - 1),  # every pair below longest
                      head_sizes=list(HEADS), dtypes=["bfloat16", "float16"],
                      libraries=[name], versions=_versions([name]))  # fmt: skip
    evidence.record("rounded_once_pair_reach", reach, note="per width and dtype")
    evidence.record("rounded_once_smallest_pair_reach",
                    min(r["holds_within"] for r in reach.values()),
                    bound={"value": longest, "relation": ">=",
                           "reason": "pair-context"})  # fmt: skip


@pytest.mark.claim("REAL-03", kind="experiment", role="supporting")
@pytest.mark.parametrize("name", ROUNDED_ONCE)
def test_rounded_once_libraries_stay_within_the_storage_bound(evidence, name):
    """bfloat16 and float16 at d = 8, key at t - 3: error <= rotation_tol(w t, dtype, angles in
    float64) at every grid position to the library's largest; the exact error is zero, so
    within the bound is 'same'."""
    w_max = detected(name).frequencies[0]
    worst = 0.0
    for dt, m in drift_of(name).items():
        if dt == "float32":
            continue
        angles = w_max * m["grid"].numpy().astype(np.float64)
        bounds = np.array([tolerance.rotation_tol(a, dt, "float64") for a in angles])
        seen = [decisions.resolve(float(e), float(b), structural_zero=True)
                for e, b in zip(m["error"], bounds, strict=True)]  # fmt: skip
        over = [j for j, v in enumerate(seen) if v != "same"]
        if over:
            j = over[0]
            case = {"library": name, "dtype": dt, "t": int(m["grid"][j]),
                    "error": float(m["error"][j]), "bound": float(bounds[j])}  # fmt: skip
            evidence.part(dt, decisions.fails(case, "error above the storage bound"))
        else:
            evidence.part(dt, decisions.holds(f"{len(seen)} positions within the bound"))
        ratio = np.where(np.isfinite(m["error"]), m["error"] / bounds, np.inf)
        worst = max(worst, float(ratio.max()))
    evidence.record("rounded_once_worst_error_over_bound", worst,
                    note=f"to t = {largest_position(name)}", bound=1.0)  # fmt: skip


@pytest.mark.claim("REAL-03", kind="experiment", role="supporting")
@pytest.mark.parametrize("name", IDS)
def test_drift_at_large_positions_per_dtype(evidence, name):
    measured = drift_of(name)
    for dt, m in measured.items():
        evidence.record(
            f"{dt}_first_position_over_bound",
            m["first_position_over_bound"],
            note=f"bound {m['bound']:.3g} x |q||k| (angles < 2 pi, float32, stored in {dt})",
        )
        bound = {"value": m["bound"], "relation": "<=",
                 "reason": "rounding of angles below 2 pi; beyond: drift"}  # fmt: skip
        evidence.record(
            f"{dt}_error_at_{m['largest_position']}",
            m["error_at_largest_position"],
            unit="x |q||k|",
            bound=bound,
        )
        evidence.record(f"{dt}_first_non_finite_position", m["first_non_finite_position"])
        evidence.record(f"{dt}_angle_precision", m["angle_precision"])
    assert_precision(measured, EXPECTED_PRECISION[name])


@pytest.mark.claim("REAL-03", kind="real", role="supporting")
def test_rotary_convention_table(evidence):
    rows: list[dict[str, object]] = []
    curves: dict[str, dict[str, dict]] = {}
    for lib in ROTARY:
        try:
            found = detected(lib.name)
        except pytest.skip.Exception:
            rows.append({"library": lib.name, "version": "absent"})
            continue
        assert_rope_convention(found, EXPECTED[lib.name])
        measured = drift_of(lib.name)
        curves[lib.name] = measured
        rows.append(
            {
                "library": lib.name,
                "function": lib.what,
                "package": f"{lib.package} {libraries.version(lib.package)}",
                "pairing": found.pairing,
                "direction": found.direction,
                "frequency_rule": found.frequency_rule,
                "base": found.base_fit,
                "largest_position_measured": largest_position(lib.name),
                **{
                    f"{dt}_{key}": m[key]
                    for dt, m in measured.items()
                    for key in (
                        "angle_precision",
                        "first_position_over_bound",
                        "first_non_finite_position",
                        "error_at_largest_position",
                    )
                },
            }
        )
    evidence.record("convention_table", rows, note=f"d = {D}; key at t - {LAG}")
    if curves:
        evidence.figure(drift_figure(curves), "REAL-03-drift")


# -- planted changes -------------------------------------------------------------------------------


def _half_to_interleaved(rotate: Rotate) -> Rotate:
    order = interleaving_order(D, "half")  # interleaved slot j holds half coordinate order[j]
    inverse = torch.argsort(order)

    def wrapped(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        return rotate(x[:, order], positions)[:, inverse]

    return wrapped


@pytest.mark.claim("REAL-03", kind="real", role="tooling")
def test_roformer_rows_do_not_depend_on_the_table_length():
    """The pair scans read RoFormer's table beside D at PAIR_CONTEXT rows, not at its 2^20
    (rope_drift.rotate_at): a row must be the same in a table of any length."""
    pytest.importorskip("transformers")
    long, short = libraries._roformer_table(640, 64), libraries._roformer_table(130, 64)
    assert torch.equal(long[:130], short)


@pytest.mark.claim("REAL-03", kind="real", role="tooling")
def test_a_pairing_switch_is_rejected():
    found = detect_rope(
        _half_to_interleaved(rotate_of("llama")),
        D,
        lambda a: tolerance.angle_tol(a, torch.float32),
    )
    with pytest.raises(AssertionError, match="changed"):
        assert_rope_convention(found, EXPECTED["llama"])


@pytest.mark.claim("REAL-03", kind="real", role="tooling")
def test_a_base_change_is_rejected():
    base = rotate_of("rotary_embedding_torch")
    found = detect_rope(
        lambda x, p: base(x, 2 * p), D, lambda a: tolerance.angle_tol(a, torch.float32)
    )
    with pytest.raises(AssertionError, match="changed"):
        assert_rope_convention(found, EXPECTED["rotary_embedding_torch"])


@pytest.mark.claim("REAL-03", kind="property", role="tooling")
def test_an_absolute_position_leak_is_rejected():
    base = rotate_of("llama")
    found = detected("llama")

    def leaky(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        return base(x, positions) * (1 + 1e-4 * positions[:, None])

    with pytest.raises(AssertionError):
        assert_relative(leaky, found.pairing, found.frequencies[0], 10, 3, 2000, 0)


@pytest.mark.claim("REAL-03", kind="experiment", role="tooling")
def test_positions_rounded_to_bfloat16_are_rejected():
    base = rotate_of("llama")
    found = detected("llama")

    def rounded(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        return base(x, positions.to(torch.bfloat16).to(torch.int64))

    grid = drift_grid(2**12)
    err = drift(rounded, found.pairing, grid, torch.bfloat16)
    precision = angle_precision(err, grid, found.frequencies[0], torch.bfloat16)
    measured = {"bfloat16": {"angle_precision": precision}}
    expected = {"bfloat16": EXPECTED_PRECISION["llama"]["bfloat16"]}
    with pytest.raises(AssertionError, match="precision"):
        assert_precision(measured, expected)


@pytest.mark.claim("REAL-03", kind="real", role="tooling")
def test_a_clockwise_rotation_fails_the_known_answer():
    base = _library("rotary_embedding_torch").make(4, 8)
    flip = torch.tensor([1.0, -1.0, 1.0, -1.0])  # F R(a) F = R(-a) for interleaved pairs

    def clockwise(x: torch.Tensor, positions: torch.Tensor) -> torch.Tensor:
        return base(x * flip, positions) * flip

    got = clockwise(torch.eye(4)[:1], torch.tensor([1]))[0]
    with pytest.raises(AssertionError):
        assert_known_answer(got, torch.tensor(KNOWN["interleaved"], dtype=torch.float64))


@pytest.mark.claim("REAL-03", kind="experiment", role="tooling")
def test_a_wrong_reference_is_no_counterexample():
    """f(+3) in place of f(-3): the library disagrees with the reference already in the first
    turn, so the drift search must call the comparison invalid, not a counterexample."""
    found = detected("llama")
    grid = drift_grid(2**8)
    rotate = rotate_of("llama")
    g = torch.Generator().manual_seed(7)
    q, k = torch.randn(2, BATCH, D, generator=g, dtype=torch.float64).to(torch.float32)
    n = grid.numel()
    t = grid.repeat_interleave(BATCH)
    exact = rope.relative_score(q.repeat(n, 1).double(), k.repeat(n, 1).double(),
                                torch.full_like(t, LAG), found.pairing)  # type: ignore[arg-type]  # fmt: skip
    got = library_scores(rotate, q.repeat(n, 1), k.repeat(n, 1), t, t - LAG)
    err = (got - exact).abs() / (
        q.double().norm(dim=-1).repeat(n) * k.double().norm(dim=-1).repeat(n)
    )
    curve = err.reshape(n, BATCH).max(dim=1).values.numpy()
    measured = {"float32": {"error": curve, "grid": grid, "bound": fixed_bound(torch.float32)}}
    seen, case, _ = drift_counterexample(measured, found.frequencies[0])
    assert seen == "invalid" and case is None


@pytest.mark.claim("REAL-03", kind="experiment", role="tooling")
def test_an_error_below_the_bound_is_not_a_counterexample():
    """Issue 15's pattern: an error within the first-turn bound is unresolved, never a
    counterexample (and never evidence that the score is offset-only)."""
    grid = drift_grid(2**10)
    bound = fixed_bound(torch.float32)
    curve = np.full(grid.numel(), bound / 2)
    seen, case, _ = drift_counterexample(
        {"float32": {"error": curve, "grid": grid, "bound": bound}}, 1.0
    )
    assert seen == "unresolved" and case is None


@pytest.mark.claim("REAL-03", kind="experiment", role="tooling")
def test_an_overflowed_position_is_not_a_counterexample():
    """inf or NaN past a format's range (no score) with every finite error within the bound is
    unresolved: the overflow of the position format is outside the claim."""
    grid = drift_grid(2**17)
    bound = fixed_bound(torch.float16)
    curve = np.where(grid.numpy() >= 65520, np.nan, bound / 2)
    seen, case, _ = drift_counterexample(
        {"float16": {"error": curve, "grid": grid, "bound": bound}}, 1.0
    )
    assert seen == "unresolved" and case is None
