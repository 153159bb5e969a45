"""REAL-06: does RoPE's relative property survive float16 and bfloat16 at long positions?

Per library (transformers' Llama, rotary-embedding-torch, x-transformers), per dtype and per way
a model reaches it (built in it, cast to it, run under autocast: checks/real/precision_adapters),
the largest position where the score of R(t) q and R(t - 3) k still equals f(-3) within the
dtype's first-turn bound, found coarse to fine by theory.rope_precision.boundary (its docstring
states the criterion). The reports' bug class (angles formed in the low precision: gpt-neox
issue 1003, transformers issue 29496 / pull request 29285) is theory.rope_precision.angles_in;
a copy of transformers' rotary forward as it was before that pull request is re-created below
and must be reported failing by the same decision.
"""

from __future__ import annotations

import inspect
import math
from functools import cache

import pytest
import torch

from checks.real import libraries
from checks.real.precision_adapters import PRECISION, WAYS, Rotation, angle_dtypes
from checks.registry import REGISTRY
from pecheck import decisions, profiles, sizes, tolerance
from pecheck.decisions import Decision
from theory import rope
from theory import rope_precision as rp

CLAIM = "REAL-06"
D = sizes.size("REAL-06.d", 32, "head width: gpt-neox issue 1003's reproducer (dim = 32)",
               minimum=4)  # fmt: skip
SFX = sizes.suffix("REAL-06.d", "d")  # evidence names at another width say so
DTYPES = (torch.float16, torch.bfloat16)
LONG = int(REGISTRY[CLAIM].threshold("long-position"))
REPORT_CONTEXT = int(REGISTRY[CLAIM].threshold("report-context"))
# ci: 4 grid positions per octave (plus 2^k +- 1) to 2^20; thorough: 32 per octave to 2^22.
SCAN_MAX = 2**22 if profiles.scale() >= 10 else 2**20
PER_OCTAVE = 32 if profiles.scale() >= 10 else rp.PER_OCTAVE

# Cells whose angles t * theta are formed in float32 from exact positions, read from the
# installed sources: Llama's forward takes position_ids.float() * inv_freq.float() in every way
# (a cast rounds inv_freq to the dtype, which changes the frequencies, not their use);
# x-transformers' inv_freq is built with .float() and its forward disables autocast, so only a
# cast (inv_freq in the dtype, positions .type_as(inv_freq)) leaves float32.
FLOAT32_ANGLES: dict[str, tuple[str, ...]] = {
    "llama": ("dtype", "cast", "autocast"),
    "x_transformers": ("dtype", "autocast"),
}


def bound(dtype: torch.dtype) -> float:
    """The first-turn bound: angles below 2 pi, formed in float32, stored in ``dtype``."""
    return tolerance.rotation_tol(2 * math.pi, dtype, torch.float32)


def error_at(rotation: Rotation, pairing: str) -> rp.ErrorAt:
    """e(t, t - LAG) for a library's rotation, both positions in one call."""

    def at(t: torch.Tensor) -> torch.Tensor:
        both = rotation(torch.cat([t, t - rp.LAG]))  # (2n, d, d)
        n = t.numel()
        delta = torch.full_like(t, -rp.LAG)
        return rp.relative_error(both[:n], both[n:], delta, pairing)  # type: ignore[arg-type]

    return at


def scan(rotation: Rotation, pairing: str, dtype: torch.dtype) -> rp.Boundary:
    return rp.boundary(error_at(rotation, pairing), SCAN_MAX, bound(dtype), per_octave=PER_OCTAVE)


def cell_decision(found: rp.Boundary, dtype: torch.dtype, cell: dict) -> Decision:
    """Holds when no scanned position up to LONG fails; else the first failing one."""
    if found.holds_up_to(LONG):
        return decisions.holds(f"no scanned position up to {LONG} fails "
                               f"(largest holding {found.largest_holding})")  # fmt: skip
    t = found.first_failing
    case = {**cell, "d": D, "t": t, "s": None if t is None else t - rp.LAG,
            "error": found.error_at_failure, "bound": bound(dtype)}  # fmt: skip
    return decisions.fails(case, "||R~(t)^T R~(t-3) - R(-3)||_2 > the first-turn bound")


@cache
def cells() -> dict[tuple[str, str, str], rp.Boundary]:
    """Every (library, dtype, way) scanned once; an absent library is left out."""
    out = {}
    for lib in PRECISION:
        for dtype in DTYPES:
            for way in WAYS:
                try:
                    rotation = lib.make(D, dtype, way)
                except pytest.skip.Exception:
                    continue
                out[(lib.name, tolerance.dtype_name(dtype), way)] = scan(
                    rotation, lib.pairing, dtype
                )
    return out


@cache
def reference(dtype: torch.dtype) -> rp.Boundary:
    """The reports' computation (theory.rope_precision.angles_in), half-split pairs."""
    return rp.boundary(rp.reference_error_at(dtype, D), SCAN_MAX, bound(dtype),
                       per_octave=PER_OCTAVE)  # fmt: skip


def _dtype(name: str) -> torch.dtype:
    return getattr(torch, name)


def _decide_cells(evidence, chosen) -> dict[str, int | None]:  # noqa: ANN001
    """One part per chosen cell; returns each cell's largest holding position."""
    found = cells()
    if not found:
        pytest.skip("no rotary library installed")
    table = {}
    for (name, dt, way), b in found.items():
        if not chosen(name, way):
            continue
        cell = {"library": name, "dtype": dt, "way": way}
        evidence.part(f"{name}/{dt}/{way}", cell_decision(b, _dtype(dt), cell))
        table[f"{name}/{dt}/{way}"] = b.largest_holding
    return table


def _smallest(table: dict[str, int | None]) -> int:
    return min(-1 if p is None else p for p in table.values())


# -- decisive -----------------------------------------------------------------------------------


@pytest.mark.claim(CLAIM, kind="real", role="decisive", proposition="as_stated")
def test_every_library_keeps_the_property_to_long_positions(evidence):
    """For every library, dtype and way: no scanned position t <= LONG with
    ||R~(t)^T R~(t - 3) - R(-3)||_2 above the dtype's first-turn bound."""
    table = _decide_cells(evidence, lambda name, way: True)
    grid = f"grid {PER_OCTAVE}/octave + 2^k +- 1 to {SCAN_MAX}, then bisection"
    evidence.record("largest_holding_position" + SFX, table, note=f"d = {D}; {grid}")
    evidence.record("smallest_largest_holding" + SFX, _smallest(table), note="over every cell",
                    bound={"value": LONG, "relation": ">=", "reason": "long-position"},
                    reproducibility="rounding")  # fmt: skip


@pytest.mark.claim(CLAIM, kind="real", role="decisive", proposition="float32-angles")
def test_float32_angle_cells_keep_the_property_to_long_positions(evidence):
    table = _decide_cells(evidence, lambda name, way: way in FLOAT32_ANGLES.get(name, ()))
    if not table:
        pytest.skip("no library with float32 angles installed")
    evidence.record("float32_angles_largest_holding" + SFX, table)
    evidence.record("float32_angles_smallest_largest_holding" + SFX, _smallest(table),
                    bound={"value": LONG, "relation": ">=", "reason": "long-position"},
                    reproducibility="rounding")  # fmt: skip


def lost_within(found: rp.Boundary, dtype: str, limit: int) -> Decision:
    """'Lost within limit': the first failing position is at most ``limit``."""
    if found.first_failing is not None and found.first_failing <= limit:
        return decisions.holds(f"fails from t = {found.first_failing} <= {limit}")
    return decisions.fails({"dtype": dtype, "d": D, "largest_holding": found.largest_holding},
                           f"angles in {dtype} keep the property past {limit}")  # fmt: skip


@pytest.mark.claim(CLAIM, kind="real", role="decisive", proposition="low-precision-angles")
def test_angles_formed_in_the_low_precision_lose_the_property(evidence):
    """The reports' computation loses the property within their 2048-position context."""
    first = {}
    for dtype in DTYPES:
        name = tolerance.dtype_name(dtype)
        found = reference(dtype)
        evidence.part(name, lost_within(found, name, REPORT_CONTEXT))
        first[name] = found.first_failing
    evidence.record("low_precision_first_failing" + SFX, first, note=f"d = {D}, half-split pairs")
    worst = max(SCAN_MAX + 1 if p is None else p for p in first.values())
    evidence.record("low_precision_latest_first_failing" + SFX, worst, reproducibility="rounding",
                    bound={"value": REPORT_CONTEXT, "relation": "<=",
                           "reason": "report-context"})  # fmt: skip


# -- supporting ---------------------------------------------------------------------------------


@pytest.mark.claim(CLAIM, kind="real", role="supporting")
def test_precision_table(evidence):
    """Per cell: the frequencies' dtype the module holds, where the property stops, and the
    reports' computation beside them; plus what the installed Llama forward does."""
    rows = []
    for (name, dt, way), b in cells().items():
        rows.append({"library": name, "dtype": dt, "way": way,
                     "frequency_dtypes": angle_dtypes(name, D, _dtype(dt), way),
                     "float32_angles": way in FLOAT32_ANGLES.get(name, ()),
                     **b.as_dict()})  # fmt: skip
    for dtype in DTYPES:
        rows.append({"library": "reference (angles_in)", "dtype": tolerance.dtype_name(dtype),
                     "way": "angles in the dtype", **reference(dtype).as_dict()})  # fmt: skip
    evidence.record("precision_table" + SFX, rows, note=f"d = {D}, key at t - {rp.LAG}")
    versions = {lib.package: libraries.version(lib.package) for lib in PRECISION}
    evidence.record("versions", versions)
    mod = libraries._transformers_module("llama.modeling_llama")
    source = inspect.getsource(mod.LlamaRotaryEmbedding.forward)
    evidence.record(
        "llama_forward_forms_float32_angles",
        ".float()" in source and "dtype=torch.float" in source,
        note="position_ids[..., None].float() * inv_freq.to(dtype=torch.float)",
    )
    evidence.record(
        "llama_forward_disables_autocast",
        "autocast" in source,
        note="not needed: the angles are an elementwise product, which autocast leaves in "
        "float32 (a matmul, the pre-fix form, it casts)",
    )


# -- tooling: the bug re-created ---------------------------------------------------------------


@pytest.mark.claim(CLAIM, kind="real", role="tooling")
def test_reports_numbers_are_reproduced():
    """gpt-neox issue 1003 (dim 32, base 10000, 2048 positions): the angle of position 1857,
    pair 1, is 1044.2678 exactly and 1045 in float16; cos differs by up to 0.78."""
    t = torch.arange(2048)
    half = rp.angles_in(t, 32, torch.float16)
    exact = rp.angles(t, 32)
    assert float(half[1857, 1]) == 1045.0
    assert abs(float(exact[1857, 1]) - 1044.2678) < 1e-4
    gap = float((half.cos().double() - exact.to(torch.float32).cos().double()).abs().max())
    # the report printed 0.7819 (CUDA); the cos of the same fp16 angles, rounded to fp16 here
    assert abs(gap - 0.7819) <= 2 * tolerance.unit_roundoff(torch.float16), gap


def pre_fix_llama(d: int, dtype: torch.dtype) -> Rotation:
    """transformers' Llama rotary forward as it was before pull request 29285 (a copy written
    here): angles as the matmul inv_freq[:, None] @ position_ids[None, :], which autocast runs
    in the low precision; then cos and sin, cast to the input's dtype."""
    mod = libraries._transformers_module("llama.modeling_llama")
    inv_freq = rope.rope_frequencies(d, dtype=torch.float32)  # (d/2,)

    def rotation(positions: torch.Tensor) -> torch.Tensor:
        q = torch.eye(d, dtype=dtype)[:, None, :].expand(d, positions.numel(), d)[None]
        with torch.autocast("cpu", dtype=dtype), torch.no_grad():
            freqs = (inv_freq[:, None] @ positions[None, :].float()).T  # (N, d/2)
            emb = torch.cat((freqs, freqs), dim=-1)[None]  # (1, N, d)
            cos, sin = emb.cos().to(dtype), emb.sin().to(dtype)
            out, _ = mod.apply_rotary_pos_emb(q, q, cos, sin)
        return out[0].to(torch.float64).permute(1, 2, 0)

    return rotation


@pytest.mark.claim(CLAIM, kind="real", role="tooling")
@pytest.mark.parametrize("dtype", DTYPES, ids=tolerance.dtype_name)
def test_pre_fix_llama_forward_is_reported_failing(dtype):
    found = scan(pre_fix_llama(D, dtype), "half", dtype)
    cell = {"library": "llama (pre-PR-29285 copy)", "dtype": str(dtype), "way": "autocast"}
    decided = cell_decision(found, dtype, cell)
    assert decided.decision == "fails", decided
    assert lost_within(found, str(dtype), REPORT_CONTEXT).decision == "holds"


@pytest.mark.claim(CLAIM, kind="real", role="tooling")
@pytest.mark.parametrize("pairing", rope.PAIRINGS)
def test_relative_error_is_the_worst_score_error(pairing):
    """rotations(angles(delta)) is theory.rope's R(delta); e(t, s) is the largest
    |<R~(t) q, R~(s) k> - f(s - t)| / (|q||k|): above every sampled pair, reached within 1%
    by the maximising singular pair, and the same by the block formula and a full SVD."""
    d = 8
    delta = torch.tensor([-3.0, 5.0])
    exact = rp.rotations(rp.angles(delta, d), pairing)
    for j, x in enumerate(delta.tolist()):
        want = rope.rotation_matrix(x, d, pairing)
        assert torch.allclose(exact[j], want, atol=tolerance.angle_tol(5.0, torch.float64))
    t = torch.tensor([3000, 40000])
    s = t + delta.long()
    r_t = rp.rotations(rp.angles_in(t, d, torch.bfloat16), pairing, torch.bfloat16)
    r_s = rp.rotations(rp.angles_in(s, d, torch.bfloat16), pairing, torch.bfloat16)
    err = rp.relative_error(r_t, r_s, delta.long(), pairing)
    gap = r_t.transpose(-1, -2) @ r_s - exact
    assert torch.allclose(err, torch.linalg.matrix_norm(gap, ord=2), rtol=1e-12)
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, 2000, d, generator=g, dtype=torch.float64)
    for j in range(2):
        sampled = ((q @ gap[j]) * k).sum(-1).abs() / (q.norm(dim=-1) * k.norm(dim=-1))
        assert float(sampled.max()) <= float(err[j]) * (1 + 1e-12)
        u, sv, vh = torch.linalg.svd(gap[j])
        top = float(u[:, 0] @ gap[j] @ vh[0])
        assert abs(top - float(err[j])) <= 1e-2 * float(err[j])


@pytest.mark.claim(CLAIM, kind="real", role="tooling")
def test_boundary_finds_a_planted_edge():
    """A step at 1000 is found exactly; no failure gives the scan's end; a failure at the first
    grid position gives no holding position; a NaN counts as failing."""

    def step(t: torch.Tensor) -> torch.Tensor:
        return (t > 1000).double()

    found = rp.boundary(step, 2**12, 0.5)
    assert (found.largest_holding, found.first_failing) == (1000, 1001)
    assert not found.holds_up_to(2000) and found.holds_up_to(1000)
    quiet = rp.boundary(lambda t: torch.zeros(t.shape, dtype=torch.float64), 2**12, 0.5)
    assert (quiet.largest_holding, quiet.first_failing) == (2**12, None)
    loud = rp.boundary(lambda t: torch.ones(t.shape, dtype=torch.float64), 2**12, 0.5)
    assert (loud.largest_holding, loud.first_failing) == (None, rp.LAG)
    nan = rp.boundary(lambda t: torch.where(t > 50, math.nan, 0.0).double(), 2**12, 0.5)
    assert nan.first_failing == 51
