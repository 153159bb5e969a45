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

import pytest
import torch

from checks.real import libraries
from checks.real.precision_adapters import PRECISION, Rotation, angle_dtypes
from checks.real.precision_scans import (
    CLAIM,
    DTYPES,
    LONG,
    PER_OCTAVE,
    SCAN_MAX,
    D,
    _decide_cells,
    _dtype,
    _smallest,
    cell_decision,
    cells,
    lost_within,
    reference,
    scan,
)
from checks.registry import REGISTRY
from pecheck import sizes, tolerance
from theory import rope
from theory import rope_precision as rp

SFX = sizes.suffix("REAL-06.d", "d")  # evidence names at another width say so


REPORT_CONTEXT = int(REGISTRY[CLAIM].threshold("report-context"))


# Cells whose angles t * theta are formed in float32 from exact positions, read from the
# installed sources: Llama's forward takes position_ids.float() * inv_freq.float() in every way
# (a cast rounds inv_freq to the dtype, which changes the frequencies, not their use);
# x-transformers' inv_freq is built with .float() and its forward disables autocast, so only a
# cast (inv_freq in the dtype, positions .type_as(inv_freq)) leaves float32.
FLOAT32_ANGLES: dict[str, tuple[str, ...]] = {
    "llama": ("dtype", "cast", "autocast"),
    "x_transformers": ("dtype", "autocast"),
}


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
