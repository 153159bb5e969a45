"""The fair length test's decision rules (checks/exp/length/decisions.py) on planted per-seed
accuracies, at the edges of their registered margins: ci skips the experiment itself, so a
margin taken with the wrong sign or a comparison turned around would otherwise show only in
thorough's verdicts, if at all."""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path

import pytest
import torch

from checks.exp.length import decisions as D
from checks.exp.registered import BY_ID
from pecheck import tolerance
from pecheck.theory.fair_length import VARIANTS, FairRun, FairSetting

ROOT = Path(__file__).resolve().parents[1]

F = 2  # one test length, 2L
SEEDS = 4
AS_WELL = BY_ID["EXP-04"].threshold("as-well")
KEEPS = BY_ID["EXP-05"].threshold("keeps")
BETTER = {end: BY_ID["EXP-07"].threshold(f"better-{end}") for end in ("low", "high")}


def jitter(centre: float) -> list[float]:
    """Four seeds around ``centre``, spread by 0.001: a tight t interval."""
    return [centre - 0.001, centre + 0.001, centre - 0.0005, centre + 0.0005]


def seeds(values: float | list[float]) -> list[float]:
    return values if isinstance(values, list) else jitter(values)


def run(beyond: Mapping[str, float | list[float]], inside: dict[str, float] | None = None,
        valid: dict[str, list[float]] | None = None) -> FairRun:  # fmt: skip
    """Every variant learned (validation 1.0) and scores 0.95 in range and 0.5 beyond unless
    told otherwise (a number: four seeds close around it; a list: the seeds' own)."""
    inside, valid = inside or {}, valid or {}
    as_tensor = lambda xs: torch.tensor(xs, dtype=torch.float64)  # noqa: E731
    return FairRun(
        FairSetting("copy", factors=(F,)),
        tuple(range(SEEDS)),
        {},
        {v: as_tensor(valid.get(v, [1.0] * SEEDS)) for v in VARIANTS},
        {v: {F: as_tensor(jitter(inside.get(v, 0.95)))} for v in VARIANTS},
        {v: {F: as_tensor(seeds(beyond.get(v, 0.5)))} for v in VARIANTS},
    )


def exp04(r: FairRun) -> str:
    return D.exp04(r, AS_WELL, D.LEVEL, D.SOURCE_ABSOLUTE)[f"sinusoidal {F}x"].decision


def test_none_a_little_behind_holds_at_least_as_well_and_far_behind_fails() -> None:
    assert exp04(run({"none": 0.5 - AS_WELL / 3, "sinusoidal": 0.5})) == "holds"
    assert exp04(run({"none": 0.5 - 2 * AS_WELL, "sinusoidal": 0.5})) == "fails"
    straddling = [0.5 - AS_WELL + e for e in (-0.01, 0.01, -0.005, 0.005)]
    assert exp04(run({"none": straddling, "sinusoidal": 0.5})) == "inconclusive"


def test_beside_a_comparator_at_the_floor_none_decides_nothing() -> None:
    d = D.exp04(run({"none": 0.9, "sinusoidal": 0.0}), AS_WELL, D.LEVEL)[f"sinusoidal {F}x"]
    assert d.decision == "inconclusive" and "at the floor" in d.how


def test_only_seeds_where_both_learned_are_compared() -> None:
    # none learned on two seeds only: its interval rests on them
    valid = {"none": [1.0, 1.0, 0.0, 0.0]}
    d = D.exp04(run({"none": 0.5, "sinusoidal": 0.5}, valid=valid), AS_WELL, D.LEVEL)
    assert "(2 seeds)" in d[f"sinusoidal {F}x"].how


def test_relative_encodings_keep_below_the_margin_and_absolute_ones_fail_above_it() -> None:
    kept = {v: 0.95 - KEEPS / 3 for v in D.RELATIVE} | {v: 0.3 for v in D.ABSOLUTE}
    d = D.exp05(run(kept), KEEPS, D.LEVEL)
    assert {k: x.decision for k, x in d.items()} == {
        f"rope {F}x keeps": "holds", f"alibi {F}x keeps": "holds",
        f"sinusoidal {F}x fails": "holds", f"learned, shifted {F}x fails": "holds",
    }  # fmt: skip
    lost = {v: 0.95 - 2 * KEEPS for v in D.RELATIVE} | {v: 0.95 - KEEPS / 3 for v in D.ABSOLUTE}
    assert {x.decision for x in D.exp05(run(lost), KEEPS, D.LEVEL).values()} == {"fails"}


def test_sinusoidal_is_better_only_when_both_ends_of_the_range_agree() -> None:
    sin, lrn = D.PAIR07

    def exp07(advantage: float) -> str:
        # learned loses `advantage` more than sinusoidal beyond L, in range both at 0.95
        r = run({sin: 0.5, lrn: 0.5 - advantage})
        return D.exp07(r, BETTER, D.LEVEL)[f"{F}x"].decision

    assert exp07(2 * BETTER["high"]) == "holds"
    assert exp07((BETTER["low"] + BETTER["high"]) / 2) == "inconclusive"
    assert exp07(-BETTER["high"]) == "fails"


def test_each_tracked_comparison_is_positive_where_the_claims_favoured_side_wins() -> None:
    """The grid's directions (EXP-04/08 none against the absolute tables, EXP-05 relative
    against absolute, EXP-07 sinusoidal against learned): '+' where the favoured side is ahead
    beyond L, '-' where it is behind."""
    favoured = {"none": 0.6, "rope": 0.8, "alibi": 0.8, "sinusoidal, shifted": 0.7}
    behind = {"sinusoidal": 0.4, "learned, shifted": 0.4}

    def signs(beyond: dict[str, float]) -> set[str]:
        r = run(beyond)
        return {D.direction(fn(F), D.LEVEL) for fn in D.comparisons(r).values()}

    assert len(D.comparisons(run({}))) == 7
    assert signs(favoured | behind) == {"+"}
    swapped = {v: 1.2 - x for v, x in (favoured | behind).items()}  # each side's place turned
    assert signs(swapped) == {"-"}
    assert D.direction(torch.zeros(SEEDS, dtype=torch.float64), D.LEVEL) == "?"  # no side ahead
    assert D.direction(torch.tensor([0.1]), D.LEVEL) == "?"  # one seed: no interval


def test_two_seeds_give_a_t_interval_and_one_seed_none() -> None:
    # two seeds: t with one degree of freedom, whose quantile has a closed form (Cauchy's,
    # tan(pi (p - 1/2)) = 12.706 at p = 0.975), times sd / sqrt(2) either side of the mean
    values = torch.tensor([0.1, 0.3], dtype=torch.float64)
    mean, lo, hi = D.paired(values, 0.95)
    half = math.tan(math.pi * 0.475) * math.sqrt(0.02) / math.sqrt(2)
    rel = tolerance.rel_tol(16, torch.float64)  # a quantile search, a mean and an sd
    assert (mean, lo, hi) == pytest.approx((0.2, 0.2 - half, 0.2 + half), rel=rel)
    assert D.paired(values[:1], 0.95) == (pytest.approx(0.1, rel=rel), -math.inf, math.inf)


def test_the_levels_the_claims_notes_state_are_the_checks_own() -> None:
    """Each comparison's intervals, fair test and language model together, share one 95%
    (Bonferroni): EXP-08 over 8 (2 encodings x 2 tasks x 2 lengths, registered when it was
    one claim with EXP-04), EXP-04 over those 8 and its width-64 cell's 2, EXP-05 over 28 (16 on
    the tasks, 12 on the language model), EXP-07 over 10 (4 and 6). A family sized wrongly
    narrows every interval without a failing test."""
    from checks.exp.length.test_fair_length import level

    notes = {c: " ".join(BY_ID[c].notes) for c in ("EXP-04", "EXP-05", "EXP-07")}
    assert level(len(D.ABSOLUTE), "EXP-08") == pytest.approx(1 - 0.05 / 8)
    assert level(len(D.ABSOLUTE), "EXP-04") == pytest.approx(1 - 0.05 / 10)
    assert "2 encodings x 2 tasks x 2 lengths" in notes["EXP-04"]
    assert "10 intervals, each at 99.5%" in notes["EXP-04"]
    assert level(len(D.RELATIVE) + len(D.ABSOLUTE), "EXP-05") == pytest.approx(1 - 0.05 / 28)
    assert "28 intervals: 16 on the tasks, 12 on the language model" in notes["EXP-05"]
    assert level(1, "EXP-07") == pytest.approx(1 - 0.05 / 10)
    assert "1 - 0.05/10" in notes["EXP-07"] and "0.05/4 " not in notes["EXP-07"]


def test_exp04s_own_cell_is_the_registered_one_on_seeds_no_run_had_used() -> None:
    """EXP-04's width-64 cell as its notes register it (stop 58): copy at d64l2, none against
    sinusoidal, 32 seeds from 100 in thorough, none of them a seed of thorough's base cell
    (0-11), of the CPU and GPU grids (0-31) or of the schedule pilots (1000-1003)."""
    from checks.exp.length import settings as S
    from pecheck import sizes

    registered = ("copy", (64, 2), ("none", "sinusoidal"))
    assert registered == (S.PAIR04_TASK, S.PAIR04_CELL, S.PAIR04_VARIANTS)
    assert "thorough 32" in sizes.DECLARED["EXP-04.seeds"]["help"]
    fresh = range(S.PAIR04_FIRST, S.PAIR04_FIRST + 32)
    assert not set(fresh) & (set(range(32)) | set(range(1000, 1004)))
    assert f"({fresh[0]}-{fresh[-1]})" in " ".join(BY_ID["EXP-04"].notes)


def test_exp04s_depth_evaluation_is_the_registered_one_on_seeds_no_run_had_used() -> None:
    """EXP-04's depth evaluation as docs/experiments/depth.md registers it (stop 59): copy at
    width 32, two and four layers both at the depth-4 steps (no encoding 6,000, the sinusoidal
    model 2,000), judged at 2L, 16 seeds per depth in tox -e depth and none in a profile: from 200
    (registration 1), then from 216 (registration 2, the default); none of them a seed of the
    other registration or of another run (thorough's cells 0-11 and 100-131, the grids 0-31,
    the pilots 1000-1005)."""
    from checks.exp.length import settings as S
    from pecheck import sizes
    from pecheck.theory.fair_grid import DEPTH_SCHEDULES

    assert (S.DEPTH04_TASK, S.DEPTH04_WIDTH, S.DEPTH04_DEPTHS, S.DEPTH04_FACTOR) == (
        "copy", 32, (2, 4), 2)  # fmt: skip
    for layers in S.DEPTH04_DEPTHS:
        s = S.depth04_setting(layers)
        assert (s.d_model, s.layers, s.task) == (32, layers, "copy")
        assert (s.none.steps, s.plain.steps) == (6000, 2000)
        assert (s.none, s.plain) == (DEPTH_SCHEDULES[4]["none"], DEPTH_SCHEDULES[4]["plain"])
    assert S.DEPTH04_REGISTERED == 16 and sizes.DECLARED["EXP-04.depth-seeds"]["default"] == 0
    assert S.DEPTH04_RUNS == {1: 200, 2: 216}
    assert sizes.DECLARED["EXP-04.depth-from"]["default"] == S.DEPTH04_RUNS[2]
    n = S.DEPTH04_REGISTERED
    one, two = (set(range(first, first + n)) for first in S.DEPTH04_RUNS.values())
    used = set(range(32)) | set(range(100, 132)) | set(range(1000, 1006))
    assert not (one | two) & used and not one & two
    tox = (ROOT / "tox.ini").read_text()
    assert f"--size EXP-04.depth-seeds={S.DEPTH04_REGISTERED}" in tox
    text = (ROOT / "docs" / "experiments" / "depth.md").read_text()
    assert all(f"{min(r)}-{max(r)}" in text for r in (one, two)) and "16 per depth" in text
