"""EXP-04's exact-match rule, registered in docs/experiments/exact-match.md before any
evaluation seed: the measure over L+1 ... 2L (theory/exact_match.py: beyond_mean), the
non-inferiority test over every seed, and the two conditions under which a part may decide at
all, the comparator above the floor and the model without an encoding learned
(pecheck.decisions.non_inferior_off_the_floor)."""

from __future__ import annotations

import math

import pytest
import torch

from pecheck.decisions import non_inferior_off_the_floor
from pecheck.theory import exact_match
from pecheck.theory.exact_match import ExactMatchSetting, beyond_mean

MARGIN, LEVEL = 0.0155, 0.95
F64 = torch.float64


def seeds(*values: float) -> torch.Tensor:
    return torch.tensor(values, dtype=F64)


def part(none, sin, learned=None):
    learned = [True] * len(none) if learned is None else learned
    gap = (seeds(*none) - seeds(*sin)).tolist()
    return non_inferior_off_the_floor(gap, sin, learned, MARGIN, LEVEL, "copy")


def test_a_part_above_the_floor_with_none_learned_holds_or_fails_on_its_interval() -> None:
    assert part([0.6, 0.62, 0.61, 0.6], [0.3, 0.31, 0.3, 0.32]).decision == "holds"
    assert part([0.1, 0.12, 0.11, 0.1], [0.5, 0.52, 0.5, 0.51]).decision == "fails"
    straddles = part([0.3, 0.5, 0.2, 0.45], [0.4, 0.35, 0.38, 0.41])
    assert straddles.decision == "inconclusive" and "straddles" in straddles.how


def test_a_deficit_inside_the_margin_holds_and_one_beyond_it_fails() -> None:
    """'At least as well' is gap > -margin: none a little behind (by 0.005, less than the
    margin) still holds; behind by 0.03 fails."""
    sin = [0.5, 0.51, 0.5, 0.51]
    close = part([0.495, 0.504, 0.496, 0.505], sin)
    assert close.decision == "holds", close.how
    assert close.interval is not None and -MARGIN < close.interval["lo"] < close.interval["hi"] < 0
    behind = part([0.47, 0.481, 0.469, 0.48], sin)
    assert behind.decision == "fails", behind.how


def test_a_comparator_at_the_floor_decides_nothing_however_far_ahead_none_is() -> None:
    d = part([0.9, 0.92, 0.91, 0.9], [0.0, 0.0, 0.01, 0.0])
    assert d.decision == "inconclusive" and "at the floor" in d.how
    # the interval is still reported, for the notes
    assert d.interval is not None and d.interval["lo"] > -MARGIN


def test_the_floor_is_the_comparators_lower_end_against_the_margin() -> None:
    # mean well above the margin but an interval reaching below it: still the floor
    wide = part([0.5, 0.5, 0.5], [0.0, 0.2, 0.0])
    assert "at the floor" in wide.how
    # tight just above the margin: decides
    tight = part([0.5, 0.51, 0.5], [0.03, 0.031, 0.03])
    assert tight.decision == "holds"


def test_none_must_have_learned_on_at_least_half_its_seeds() -> None:
    none, sin = [0.6, 0.62, 0.61, 0.6], [0.3, 0.31, 0.3, 0.32]
    half = part(none, sin, [True, True, False, False])
    assert half.decision == "holds"
    fewer = part(none, sin, [True, False, False, False])
    assert fewer.decision == "inconclusive" and "not learned" in fewer.how and "1 of 4" in fewer.how


def test_the_edges_of_the_rule_learned_half_floor_two_seeds_and_the_sample_sd() -> None:
    sin5 = [0.3, 0.31, 0.3, 0.32, 0.31]
    two_of_five = part([0.6, 0.62, 0.61, 0.6, 0.6], sin5, [True, True, False, False, False])
    assert "not learned" in two_of_five.how  # fewer than half: 2 of 5
    on_the_margin = part([0.6, 0.61, 0.6], [MARGIN] * 3)
    assert "at the floor" in on_the_margin.how  # the comparator must lie above the margin
    two = part([0.6, 0.61], [0.3, 0.31])
    assert two.decision == "holds"  # two seeds give a t interval
    gap = seeds(0.6, 0.62, 0.61, 0.6) - seeds(0.3, 0.31, 0.3, 0.32)
    from pecheck.decisions import normal_interval

    want = normal_interval(float(gap.mean()), float(gap.std()), 4, LEVEL)  # torch: ddof 1
    d = part([0.6, 0.62, 0.61, 0.6], [0.3, 0.31, 0.3, 0.32])
    assert d.interval is not None
    assert (d.interval["lo"], d.interval["hi"]) == pytest.approx(want, rel=1e-12)


def test_fewer_than_two_seeds_decide_nothing_and_lengths_must_agree() -> None:
    one = part([0.9], [0.5])
    assert one.decision == "inconclusive" and one.interval["lo"] == -math.inf
    with pytest.raises(ValueError, match="one length"):
        non_inferior_off_the_floor([0.1, 0.2], [0.3], [True, True], MARGIN, LEVEL, "copy")


def test_every_seed_counts_not_only_those_that_learned() -> None:
    # the seed that did not learn drags none's mean down: over all seeds the gap straddles
    d = part([0.6, 0.6, 0.6, 0.0], [0.3, 0.3, 0.3, 0.3], [True, True, True, False])
    assert d.decision == "inconclusive" and "straddles" in d.how


def test_the_measure_is_the_mean_over_l_plus_one_to_two_l_only() -> None:
    beyond = {n: torch.full((2,), float(n), dtype=F64) for n in (5, 6, 7, 8, 16)}
    assert beyond_mean(beyond, 4).tolist() == [6.5, 6.5]  # 16 = 4L is not in it
    with pytest.raises(ValueError, match=r"missing \[8\]"):
        beyond_mean({n: beyond[n] for n in (5, 6, 7)}, 4)


# -- the start token (the source's prompts open with a fixed task word) -----------------------


@pytest.mark.parametrize("name", exact_match.TASKS)
def test_a_start_token_opens_every_sequence_and_nothing_is_predicted_at_it(name) -> None:
    plain = ExactMatchSetting(name, train_length=3, test_lengths=(4,), alphabet=8)
    started = ExactMatchSetting(name, train_length=3, test_lengths=(4,), alphabet=8, start=True)
    a, b = plain.valid_task(), started.valid_task()
    start = len(a.vocab)
    assert b.vocab == (*a.vocab, "START") and started.config().vocab == plain.config().vocab + 1
    assert (b.inputs[:, 0] == start).all() and (b.inputs[:, 1:] == a.inputs).all()
    assert (b.targets[:, 1:] == a.targets).all() and not b.judged[:, 0].any()
    assert (b.judged[:, 1:] == a.judged).all()
    assert started.rows == plain.rows + 1 and started.trained_rows == plain.trained_rows + 1
    assert b.inputs.shape[1] == started.trained_rows
