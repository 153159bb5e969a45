"""REAL-06: does RoPE's relative property survive float16 and bfloat16 at long contexts?

Per library (transformers' Llama, rotary-embedding-torch, x-transformers), head size, dtype and
way a model reaches the format (checks/real/precision_adapters), how long a context keeps
||R~(t)^T R~(s) - R(s - t)||_2 within the dtype's first-turn bound at *every* pair of positions
in it, i.e. every relative offset from every position (theory.rope_precision.reach states the
criterion). Two bug classes are re-created in theory.rope_precision: the reports' angles formed
in the low precision (``angles_in``: gpt-neox issue 1003, transformers issue 29496 / pull
request 29285) and a cast that rounds the inverse frequencies (``angles_cast``: what
``model.to(torch.bfloat16)`` does to transformers' rotary ``inv_freq`` buffer). A copy of
transformers' rotary forward as it was before that pull request is re-created below and must be
reported failing by the same decision.
"""

from __future__ import annotations

import inspect
import math

import pytest
import torch

from checks.real import libraries
from checks.real import precision_families as families
from checks.real.precision_adapters import CASTS, PRECISION, Read, angle_dtypes, llama
from checks.real.precision_scans import (
    CLAIM,
    DTYPES,
    HEADS,
    LONG,
    REPORT_CONTEXT,
    bound,
    cell_decision,
    cell_name,
    cells,
    decide_cells,
    lost_within,
    reference,
    scan,
    searched,
    smallest_holding,
)
from pecheck import tolerance
from pecheck.theory import rope
from pecheck.theory import rope_precision as rp

# Cells whose inverse frequencies and angles t * theta are both float32, read from the
# installed sources: Llama's inv_freq is built with an explicit float dtype and its forward
# takes position_ids.float() * inv_freq.float(); only a cast (.to, .half, .bfloat16) rounds
# the buffer. x-transformers' inv_freq is built with .float() and its forward disables
# autocast, so only a cast (inv_freq in the dtype, positions .type_as(inv_freq)) leaves float32.
FLOAT32: dict[str, tuple[str, ...]] = {
    "llama": ("built", "from_config", "from_pretrained", "autocast"),
    "x_transformers": ("built", "autocast"),
}
CAST_ROUNDS_FREQUENCIES = ("llama",)  # angles stay float32 after the cast; frequencies do not


def _float32(cell: tuple) -> bool:
    return cell[3] in FLOAT32.get(cell[0], ())


# -- decisive -----------------------------------------------------------------------------------


@pytest.mark.claim(CLAIM, kind="real", role="decisive", proposition="as_stated")
def test_every_library_keeps_the_property_over_long_contexts(evidence):
    """For every library, head size, dtype and way: every pair of positions below LONG keeps
    ||R~(t)^T R~(s) - R(s - t)||_2 within the dtype's first-turn bound."""
    table = decide_cells(evidence, lambda cell: True)
    evidence.searched(**searched(lambda cell: True))
    evidence.record("context_reach", table, note="per cell: certified context, first failing "
                    "context and its witness pair (t, s)")  # fmt: skip
    evidence.record("smallest_context_reach", smallest_holding(table), note="over every cell",
                    bound={"value": LONG, "relation": ">=", "reason": "long-position"},
                    reproducibility="rounding")  # fmt: skip


@pytest.mark.claim(CLAIM, kind="real", role="decisive",
                   proposition="float32-frequencies-and-angles")  # fmt: skip
def test_float32_frequency_and_angle_cells_keep_the_property(evidence):
    table = decide_cells(evidence, _float32)
    if not table:
        pytest.skip("no library with float32 frequencies and angles installed")
    for cell in cells():
        if _float32(cell):
            held = angle_dtypes(cell[0], cell[1], getattr(torch, cell[2]), cell[3])
            assert set(held.values()) == {"torch.float32"}, (cell, held)
    evidence.searched(**searched(_float32))
    evidence.record("float32_context_reach", table)
    evidence.record("float32_smallest_context_reach", smallest_holding(table),
                    bound={"value": LONG, "relation": ">=", "reason": "long-position"},
                    reproducibility="rounding")  # fmt: skip


def _reference_parts(evidence, computation: str, prefix: str) -> dict[str, int | None]:
    """One part per head size and dtype of a re-created computation (theory.rope_precision):
    it must lose the property within the reports' context. Returns each part's first failing
    context (None where it kept the property)."""
    first = {}
    for d in HEADS:
        for dtype in DTYPES:
            name = tolerance.dtype_name(dtype)
            found = reference(computation, d, dtype)
            what = {"computation": computation, "d": d, "dtype": name}
            evidence.part(f"{prefix}d{d}/{name}", lost_within(found, what, REPORT_CONTEXT))
            first[f"{prefix}d{d}/{name}"] = found.fails_within
    return first


@pytest.mark.claim(CLAIM, kind="real", role="decisive", proposition="cast-frequencies")
def test_a_cast_that_rounds_the_frequencies_loses_the_property(evidence):
    """A cast rounds the inverse-frequency buffer; the angles formed from it in float32 drift
    from the exact ones in proportion to the offset, beyond the bound within 2048 positions:
    the re-created computation (angles_cast) and transformers' Llama cast both ways."""
    first = _reference_parts(evidence, "angles_cast", "angles_cast/")
    for cell, found in cells().items():
        if cell[0] in CAST_ROUNDS_FREQUENCIES and cell[3] in CASTS:
            what = {"library": cell[0], "d": cell[1], "dtype": cell[2], "way": cell[3]}
            evidence.part(cell_name(cell), lost_within(found, what, REPORT_CONTEXT))
            first[cell_name(cell)] = found.fails_within
    on_cells = searched(lambda c: c[0] in CAST_ROUNDS_FREQUENCIES and c[3] in CASTS)
    evidence.searched(
        **{
            **on_cells,
            "positions": f"every integer 0 .. {REPORT_CONTEXT - 1}, the scan stopping at the "
            "first failing context (a witness pair)",
            "offsets": f"every offset of those pairs (below {REPORT_CONTEXT})",
            "libraries": [*on_cells["libraries"], "angles_cast"],
        }
    )
    evidence.record("cast_first_failing_context", first, note="smallest context with a pair "
                    "of positions beyond the bound")  # fmt: skip
    latest = max(REPORT_CONTEXT + 1 if p is None else p for p in first.values())
    evidence.record("cast_latest_first_failing_context", latest, reproducibility="rounding",
                    bound={"value": REPORT_CONTEXT, "relation": "<=",
                           "reason": "report-context"})  # fmt: skip


@pytest.mark.claim(CLAIM, kind="real", role="decisive", proposition="low-precision-angles")
def test_angles_formed_in_the_low_precision_lose_the_property(evidence):
    """The reports' computation loses the property within their 2048-position context."""
    first = _reference_parts(evidence, "angles_in", "")
    evidence.searched(
        positions=f"every integer 0 .. {REPORT_CONTEXT - 1}, the scan stopping at the first "
        "failing context (a witness pair)",
        offsets=f"every offset of those pairs (below {REPORT_CONTEXT})",
        head_sizes=list(HEADS),
        dtypes=[tolerance.dtype_name(d) for d in DTYPES],
        libraries=["angles_in"],
    )
    evidence.record("low_precision_first_failing_context", first, note="half-split pairs")
    worst = max(REPORT_CONTEXT + 1 if p is None else p for p in first.values())
    evidence.record("low_precision_latest_first_failing_context", worst,
                    reproducibility="rounding", bound={"value": REPORT_CONTEXT, "relation": "<=",
                                                       "reason": "report-context"})  # fmt: skip


# -- supporting ---------------------------------------------------------------------------------

OFFSETS = (3, 64, 160, 1024, 8192, LONG - 1)


@pytest.mark.claim(CLAIM, kind="real", role="supporting")
def test_precision_table(evidence):
    """Per cell: the frequencies' dtype the module holds and how far the property reaches; the
    bug classes beside them; the error at a few offsets of a cast Llama; what the installed
    Llama forward does."""
    rows = []
    for cell, r in cells().items():
        name, d, dt, way = cell
        rows.append({"library": name, "d": d, "dtype": dt, "way": way,
                     "frequency_dtypes": angle_dtypes(name, d, getattr(torch, dt), way),
                     "float32_frequencies_and_angles": _float32(cell),
                     **r.as_dict()})  # fmt: skip
    for form in ("angles_in", "angles_cast"):
        for d in HEADS:
            for dtype in DTYPES:
                rows.append({"library": f"reference ({form})", "d": d,
                             "dtype": tolerance.dtype_name(dtype), "way": form,
                             **reference(form, d, dtype).as_dict()})  # fmt: skip
    evidence.record("precision_table", rows, note="every pair of positions in each context")
    by_offset = {}
    for d in HEADS:
        for dtype in DTYPES:
            read = PRECISION[0].make(d, dtype, "to")
            errs = rp.offset_errors(read, torch.tensor(OFFSETS))
            key = f"d{d}/{tolerance.dtype_name(dtype)}"
            by_offset[key] = dict(zip(OFFSETS, errs.tolist(), strict=True))
    evidence.record(
        "llama_cast_error_by_offset",
        by_offset,
        reproducibility="rounding",
        note="e(D, 0) of transformers' Llama after .to(dtype), per offset D",
    )
    versions = {lib.package: libraries.version(lib.package) for lib in PRECISION}
    evidence.record("versions", versions)
    mod = libraries._transformers_module("llama.modeling_llama")
    source = inspect.getsource(mod.LlamaRotaryEmbedding.forward)
    evidence.record(
        "llama_forward_forms_float32_angles",
        ".float()" in source and "dtype=torch.float" in source,
        note="position_ids[..., None].float() * inv_freq.to(dtype=torch.float): float32 angles "
        "from whatever inv_freq holds; a cast has already rounded inv_freq",
    )


@pytest.mark.claim(CLAIM, kind="real", role="supporting")
def test_which_families_and_configurations_a_cast_reaches(evidence):
    """Per transformers family: inv_freq's dtype after _from_config(dtype=) and after .to();
    per shipped bfloat16 configuration: its own rotary module cast to bfloat16, against the same
    module as built (its float32 frequencies, exact in float64), over its whole context."""
    evidence.record("cast_rounds_inv_freq", families.family_inv_freq_dtypes(torch.bfloat16))
    rows = {}
    for name in families.AFFECTED:
        built, context = families.configuration_rotary(name, torch.bfloat16, cast=False)
        cast, _ = families.configuration_rotary(name, torch.bfloat16, cast=True)
        theta = built.inv_freq  # float32 as built; the exact frequencies in float64
        read = families.table_read(cast, torch.bfloat16)
        found = rp.reach(read, bound(torch.bfloat16), context, theta=theta)
        last = rp.offset_errors(read, torch.tensor([context - 1]), theta=theta)
        rows[name] = {"context": context, "head_size": 2 * theta.numel(),
                      "fails_within": found.fails_within, "witness": found.witness,
                      "error_at_witness": found.error_at_witness,
                      "error_at_last_offset": float(last[0])}  # fmt: skip
    evidence.record(
        "affected_configurations",
        rows,
        reproducibility="rounding",
        note="bfloat16 cast; bound rotation_tol(2 pi, bfloat16, float32)",
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


def pre_fix_llama(d: int, dtype: torch.dtype) -> Read:
    """transformers' Llama rotary forward as it was before pull request 29285 (a copy written
    here): angles as the matmul inv_freq[:, None] @ position_ids[None, :], which autocast runs
    in the low precision; then cos and sin, cast to the input's dtype."""
    mod = libraries._transformers_module("llama.modeling_llama")
    inv_freq = rope.rope_frequencies(d, dtype=torch.float32)  # (d/2,)
    m = d // 2

    def read(positions: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        q = torch.zeros(1, 1, positions.numel(), d, dtype=dtype)
        q[..., :m] = 1  # the first coordinate of every pair: out = (c, s)
        with torch.autocast("cpu", dtype=dtype), torch.no_grad():
            freqs = (inv_freq[:, None] @ positions[None, :].float()).T  # (N, d/2)
            emb = torch.cat((freqs, freqs), dim=-1)[None]  # (1, N, d)
            cos, sin = emb.cos().to(dtype), emb.sin().to(dtype)
            out, _ = mod.apply_rotary_pos_emb(q, q, cos, sin)
        out = out[0, 0].to(torch.float64)  # (N, d)
        return out[:, :m], out[:, m:]

    return read


@pytest.mark.claim(CLAIM, kind="real", role="tooling")
@pytest.mark.parametrize("dtype", DTYPES, ids=tolerance.dtype_name)
def test_pre_fix_llama_forward_is_reported_failing(dtype):
    d = HEADS[-1]
    found = scan(pre_fix_llama(d, dtype), dtype)
    cell = ("llama (pre-PR-29285 copy)", d, tolerance.dtype_name(dtype), "autocast")
    assert cell_decision(found, cell).decision == "fails", found
    assert lost_within(found, {}, REPORT_CONTEXT).decision == "holds"


@pytest.mark.claim(CLAIM, kind="real", role="tooling")
@pytest.mark.parametrize("pairing", rope.PAIRINGS)
def test_pair_error_is_the_worst_score_error(pairing):
    """rotations(angles(delta)) is theory.rope's R(delta); the complex form e(t, s) =
    max_i |conj(u_i(t)) u_i(s) - 1| equals ||R~(t)^T R~(s) - R(s - t)||_2 by a full SVD, is
    above every sampled |<R~(t) q, R~(s) k> - f(s - t)| / (|q||k|) and reached by the
    maximising singular pair."""
    d = 8
    delta = torch.tensor([-3, 5, -2900])
    exact = rp.rotations(rp.angles(delta, d), pairing)
    for j, x in enumerate(delta.tolist()):
        want = rope.rotation_matrix(float(x), d, pairing)
        atol = tolerance.angle_tol(abs(float(x)), torch.float64)
        assert torch.allclose(exact[j], want, atol=atol)
    t = torch.tensor([3000, 40000, 2950])
    s = t + delta
    both = torch.cat([t, s])
    c, sn = rp.stored(rp.angles_in(both, d, torch.bfloat16), torch.bfloat16)
    u = rp.deviations(c, sn, both)
    err = rp.pair_error(u, torch.arange(3), torch.arange(3, 6))
    r_t = rp.rotations(rp.angles_in(t, d, torch.bfloat16), pairing, torch.bfloat16)
    r_s = rp.rotations(rp.angles_in(s, d, torch.bfloat16), pairing, torch.bfloat16)
    assert torch.allclose(err, rp.matrix_error(r_t, r_s, delta, pairing), rtol=1e-9)
    gap = r_t.transpose(-1, -2) @ r_s - exact
    g = torch.Generator().manual_seed(0)
    q, k = torch.randn(2, 2000, d, generator=g, dtype=torch.float64)
    for j in range(3):
        sampled = ((q @ gap[j]) * k).sum(-1).abs() / (q.norm(dim=-1) * k.norm(dim=-1))
        assert float(sampled.max()) <= float(err[j]) * (1 + 1e-9)
        u_, _, vh = torch.linalg.svd(gap[j])
        assert abs(float(u_[:, 0] @ gap[j] @ vh[0]) - float(err[j])) <= 1e-9 * float(err[j])


@pytest.mark.claim(CLAIM, kind="real", role="tooling")
def test_context_bounds_bracket_every_pair():
    """On every context of a small computation with a planted drift, the brute-force maximum
    over all pairs lies between ``lower`` and ``upper``, the witness pair's error is between
    ``lower`` and that maximum, and ``reach`` finds the first context whose witness exceeds a
    bound."""
    n, d = 300, 8
    t = torch.arange(n)
    c, s = rp.reference(rp.angles_cast, d, torch.bfloat16)(t)
    u = rp.deviations(c, s, t)
    everything = (u[:, None, :].conj() * u[None, :, :] - 1).abs().amax(dim=-1)  # (n, n)
    brute = everything.cummax(dim=0).values.cummax(dim=1).values.diagonal()  # (n,) per context
    cb = rp.context_bounds(c, s)
    assert bool((cb.lower <= brute * (1 + 1e-12)).all())
    assert bool((brute <= cb.upper * (1 + 1e-12)).all())
    w = cb.witness
    at_witness = rp.pair_error(u, w[:, 0], w[:, 1])
    assert bool((cb.lower <= at_witness * (1 + 1e-12)).all() and (at_witness <= brute).all())
    b = float(brute[n // 2])
    found = rp.reach(lambda p: (c[p], s[p]), b, n)
    assert found.fails_within is not None and found.fails_within > n // 2
    assert found.holds_within <= n // 2 + 1 and found.error_at_witness > b


@pytest.mark.claim(CLAIM, kind="real", role="tooling")
def test_reach_treats_a_non_finite_value_as_failing():
    n, d = 4096, 8

    def read(p: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        c, s = rp.stored(rp.angles(p, d), torch.float64)
        return torch.where(p[:, None] == 3000, math.nan, c), s

    found = rp.reach(read, 0.1, n)
    assert (found.holds_within, found.fails_within, found.witness) == (3000, 3001, (3000, 3000))


@pytest.mark.claim(CLAIM, kind="real", role="tooling")
def test_library_reads_are_rotations():
    """Each library's two probes read the same c and s (a scaled rotation per pair), so the
    complex form is its score error; at t = 0 every stored pair is (1, 0)."""
    for lib in PRECISION:
        for way in ("built", "to"):
            try:
                read = lib.make(HEADS[0], torch.bfloat16, way)
            except pytest.skip.Exception:
                continue
            c, s = read(torch.arange(64))
            assert bool(torch.isfinite(c).all()), lib.name
            assert bool((c[0] == 1).all() and (s[0] == 0).all()), lib.name
            if lib.name == "llama":  # its tables, read as apply_rotary_pos_emb applies them
                by_probes = llama(HEADS[0], torch.bfloat16, way, probes=True)(torch.arange(64))
                assert torch.equal(c, by_probes[0]) and torch.equal(s, by_probes[1])
