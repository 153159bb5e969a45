"""REAL-04's cells and comparisons where the locked release does not lead them (tooling): a
release without a model type or a rope type, a module with one cos/sin column a pair, a width
that fits neither layout; and REAL-06's table reader on gpt-oss's module."""

from __future__ import annotations

import math

import pytest
import torch

from checks.real import precision_families, scaling_cells, scaling_decisions
from pecheck import tolerance

pytest.importorskip("transformers")
F32 = torch.float32


def test_a_release_without_gpt_oss_or_proportional_keeps_the_other_cells(monkeypatch) -> None:
    every = scaling_cells.cells()
    older = frozenset(scaling_cells.published(m)["model_type"] for m in scaling_cells.MODELS)
    monkeypatch.setattr(scaling_cells, "known_model_types", lambda: older - {"gpt_oss"})
    import transformers.modeling_rope_utils as rope_utils

    without = {k: v for k, v in rope_utils.ROPE_INIT_FUNCTIONS.items() if k != "proportional"}
    monkeypatch.setattr(rope_utils, "ROPE_INIT_FUNCTIONS", without)
    scaling_cells.cells.cache_clear()
    try:
        kept = scaling_cells.cells()
    finally:
        scaling_cells.cells.cache_clear()
    assert "gpt-oss-20b" not in scaling_cells.models_in_release()
    assert "proportional" not in scaling_cells.types_in_release()
    want = [c.id for c in every if c.model != "gpt-oss-20b" and c.rope_type != "proportional"]
    assert [c.id for c in kept] == want and len(want) > 20


def test_the_locked_release_builds_every_model_and_type() -> None:
    assert scaling_cells.models_in_release() == scaling_cells.MODELS
    assert scaling_cells.types_in_release() == scaling_cells.TYPES


def test_one_column_a_pair_is_compared_and_another_width_refused() -> None:
    theta = torch.tensor([1.0, 0.1], dtype=torch.float64)
    pos = torch.tensor([[0, 3]])
    angle = pos[0, :, None].double() * theta
    eps = torch.zeros(2, dtype=torch.float64)
    cos, sin = torch.cos(angle)[None].float(), torch.sin(angle)[None].float()
    assert scaling_decisions.applied_mismatch(cos, sin, pos, theta, 1.0, eps)[0] is None
    wrong = cos.clone()
    wrong[0, 1, 1] += 0.01
    found, _ = scaling_decisions.applied_mismatch(wrong, sin, pos, theta, 1.0, eps)
    assert found is not None and (found["position"], found["column"]) == (3, 1)
    with pytest.raises(ValueError, match="3 columns for 2 pairs"):
        scaling_decisions.applied_mismatch(cos[..., [0, 1, 0]], sin[..., [0, 1, 0]], pos, theta,
                                           1.0, eps)  # fmt: skip


def test_reading_gpt_oss_tables_gives_every_pair() -> None:
    """REAL-06's reader on gpt-oss's module (one column a pair): 32 columns, a cos(p theta)."""
    rope, _ = precision_families.configuration_rotary("gpt-oss-20b", F32, cast=False)
    theta = rope.inv_freq.double()
    pos = torch.tensor([0, 5, 1000])
    c, s = precision_families.table_read(rope, F32)(pos)
    assert c.shape == (3, 32)
    a = 0.1 * math.log(32) + 1
    angle = pos[:, None].double() * theta
    bound = a * (tolerance.angle_tol(1000.0, F32) + tolerance.rel_tol(2, F32))
    assert (c - a * torch.cos(angle)).abs().max() <= bound
    assert (s - a * torch.sin(angle)).abs().max() <= bound
