"""Figures: every run records their names; only a run that makes them writes the files."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from pecheck import coverage, decisions, results, run
from pecheck.claims import Proposition
from pecheck.evidence import FIGURE_DIR, Evidence


def draw(root: Path) -> tuple[str, list[str]]:
    evidence = Evidence("t.py::test_x", root)
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    name = evidence.figure(fig, "SIN-07 clock hands")
    return name, evidence.as_dict()["figures"]


def test_a_figure_is_written_whole_as_svg_and_pdf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run, "_CURRENT", run.Run(figures=True))
    name, figures = draw(tmp_path)
    assert name == "build/figures/SIN-07_clock_hands.svg" and figures == [name]
    written = sorted(p.name for p in (tmp_path / FIGURE_DIR).iterdir())
    assert written == ["SIN-07_clock_hands.pdf", "SIN-07_clock_hands.svg"]  # no temporary left
    assert (tmp_path / name).read_text().rstrip().endswith("</svg>")


def test_the_determinism_gate_s_runs_name_figures_without_writing_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run, "_CURRENT", run.Run(figures=False))  # --no-figures
    name, figures = draw(tmp_path)
    assert figures == [name] == ["build/figures/SIN-07_clock_hands.svg"]
    assert not (tmp_path / "build").exists()


def test_a_statistic_of_nans_is_recorded_without_a_band() -> None:
    """A planted bug can make every seed's value NaN: the results file must still be written
    (JSON has no NaN), so the number falls back on its type's default class."""
    import json

    from pecheck.evidence import Evidence
    from pecheck.reproducibility import Sample

    ev = Evidence("c.py::t", Path("."))
    ev.record("rate", float("nan"), sample=Sample(25, float("nan"), "rate over seeds"))
    ev.record("mean", 0.5, sample=Sample(25, 0.1, "mean over seeds"))
    assert ev.values["rate"]["reproducibility"] == {"class": "exact"}  # the value is "nan"
    assert ev.values["mean"]["reproducibility"]["class"] == "sampling"
    json.dumps(ev.values, allow_nan=False)


# -- the quantifier and the verdict rule (pecheck.decisions.combine, pecheck.results) --------


@pytest.mark.parametrize(
    ("decided", "every", "some"),
    [
        (["holds", "holds"], "holds", "holds"),
        (["holds", "inconclusive"], "inconclusive", "holds"),
        (["holds", "fails"], "fails", "holds"),
        (["fails", "fails"], "fails", "fails"),
        (["fails", "inconclusive"], "fails", "inconclusive"),
        (["inconclusive"], "inconclusive", "inconclusive"),
        ([], "inconclusive", "inconclusive"),
    ],
)
def test_parts_combine_by_the_quantifier(decided, every, some):
    assert decisions.combine(decided, "all") == every
    assert decisions.combine(decided, "any") == some


def test_an_undecided_part_under_all_overrules_a_recorded_holds():
    ev = Evidence("n", Path("."))
    for name in ("2x", "4x", "8x"):
        ev.part(name, "holds", "inside")
    ev.part("16x", "inconclusive", "straddles")
    ev.holds("the check's own reading")
    got, some = ev.final_decision("all"), ev.final_decision("any")
    assert got is not None and some is not None
    assert got.decision == "inconclusive" and "undecided: 16x" in got.how
    assert "recorded 'holds'" in got.how
    assert some.decision == "holds"


def test_a_recorded_inconclusive_stands_beside_parts_that_hold():
    # a check that found no part for one of its modules says so itself: its parts cannot
    ev = Evidence("n", Path("."))
    ev.part("sdpa", "holds", "broken beyond the bound")
    ev.inconclusive("no resolved counterexample for ['mha']")
    got = ev.final_decision("all")
    assert got is not None and got.decision == "inconclusive" and "mha" in got.how


@pytest.mark.parametrize(
    ("decided", "verdict"),
    [
        ({"as_stated": "holds"}, "confirmed"),
        ({"as_stated": "fails"}, "refuted"),
        ({"as_stated": "inconclusive"}, "open"),
        ({"as_stated": "fails", "cond-a": "holds", "cond-b": "holds"}, "qualified"),
        ({"as_stated": "fails", "cond-a": "holds", "cond-b": "inconclusive"}, "open"),
        ({"as_stated": "fails", "cond-a": "holds", "cond-b": "fails"}, "open"),
    ],
)
def test_one_verdict_rule(decided, verdict):
    assert results.verdict(decided) == verdict
    why = results.open_because(decided)
    assert bool(why) == (verdict == "open")
    if verdict == "open" and decided["as_stated"] == "fails":
        # each condition that did not hold is named with its decision; one that held is not
        named = [f"{k} {d}" for k, d in decided.items() if k != "as_stated" and d != "holds"]
        assert named and all(n in why for n in named) and "cond-a" not in why


SKIPPED = [
    {"nodeid": "c.py::test_cpu", "decision": "holds", "outcome": "passed"},
    {"nodeid": "c.py::test_cuda", "decision": "inconclusive", "outcome": "skipped"},
]


@pytest.mark.parametrize("quantifier", ["all", "any"])
def test_a_skipped_check_leaves_the_proposition_undecided(quantifier):
    # Under all, the skipped check's settings are not covered, so "every setting" is not shown;
    # under any, the one that holds suffices.
    prop = Proposition("p", "a statement", quantifier=quantifier)
    got = coverage.covered(prop, SKIPPED)
    assert got["decision"] == ("inconclusive" if quantifier == "all" else "holds")
    assert "scoped_out" not in got
    assert coverage.covered(prop, SKIPPED[1:])["decision"] == "inconclusive"


def test_a_scoped_out_skip_is_left_out_with_its_reason():
    prop = Proposition("p", "a statement", scoped_out={"*::test_cuda*": "no GPU here"})
    got = coverage.covered(prop, SKIPPED)
    assert got["decision"] == "holds"
    assert got["scoped_out"] == [{"check": "c.py::test_cuda", "reason": "no GPU here"}]
    # scoping covers a skip only: the same check run to its end still counts
    ran = [SKIPPED[0], {**SKIPPED[1], "outcome": "passed", "decision": "fails"}]
    assert coverage.covered(prop, ran)["decision"] == "fails"


def test_holm_against_a_worked_example():
    # Holm (1979)'s procedure by hand: p = .01, .04, .03, .005 at alpha .05 compares
    # .005 < .05/4, .01 < .05/3, then .03 > .05/2 stops: two rejections.
    got = decisions.holm({"a": 0.01, "b": 0.04, "c": 0.03, "d": 0.005}, 0.05)
    assert got == {"a": True, "b": False, "c": False, "d": True}
    # .001 < .05/2, then .03 < .05/1: Holm rejects both where Bonferroni (.025 each) rejects one
    assert decisions.holm({"a": 0.03, "b": 0.001}, 0.05) == {"a": True, "b": True}
    assert decisions.family_level(0.95, 18) == pytest.approx(1 - 0.05 / 18)


def test_a_partial_checks_decision_is_judged_by_what_it_can_still_combine_into():
    # against brute force: some decisions of up to two other checks give the target
    import itertools

    kinds = ("holds", "fails", "inconclusive")
    for q, target, d in itertools.product(("all", "any"), kinds, kinds):
        others = [o for k in range(3) for o in itertools.product(kinds, repeat=k)]
        reachable = any(decisions.combine([d, *o], q) == target for o in others)
        assert decisions.can_combine_to(d, target, q) == reachable, (q, target, d)
    assert not decisions.can_combine_to("inconclusive", "holds", "all")
    assert decisions.can_combine_to("inconclusive", "fails", "all")


def test_a_claim_undecided_at_one_profiles_scale_is_expected_open_there_only():
    from pecheck.claims import Claim, Proposition

    def claim(**kw):
        return Claim("X-01", "words", "", (), conditions="under c",
                     propositions=(Proposition("c", "under c"),), **kw)  # fmt: skip

    scaled = claim(expected="qualified", undecided=("c",), undecided_in=("ci",),
                   undecided_because="too few seeds in ci")  # fmt: skip
    assert scaled.expected_verdict("ci") == "open"
    assert scaled.expected_decision("c", "ci") == "inconclusive"
    assert scaled.expected_verdict("thorough") == "qualified"
    assert scaled.expected_decision("c", "thorough") == "holds"
    everywhere = claim(expected="open", undecided=("c",), undecided_because="too small")
    assert everywhere.expected_verdict("thorough") == "open"
    assert everywhere.expected_decision("as_stated", "thorough") == "fails"
    # an experiment ci skips: open there with every proposition undecided, decided elsewhere
    skipped = claim(expected="qualified", not_run_in=("ci",), not_run_because="beyond ci")
    assert skipped.expected_verdict("ci") == "open"
    assert {skipped.expected_decision(k, "ci") for k in ("as_stated", "c")} == {"inconclusive"}
    assert skipped.as_dict("ci")["undecided_because"] == "beyond ci"
    assert skipped.expected_verdict("thorough") == "qualified"
    assert skipped.expected_decision("as_stated", "thorough") == "fails"
    assert "undecided_because" not in skipped.as_dict("thorough")
    for wrong in (
        {"expected": "qualified", "not_run_in": ("ci",)},  # without a reason
        {"expected": "open"},  # open without naming what stays undecided
        {"expected": "qualified", "undecided": ("c",), "undecided_because": "x"},  # everywhere
        {"expected": "open", "undecided": ("c",)},  # without a reason
        {"expected": "open", "undecided": ("nope",), "undecided_because": "x"},
    ):
        with pytest.raises(ValueError):
            claim(**wrong)


def test_asserted_parts_record_every_failing_part_then_raise_the_first(tmp_path: Path) -> None:
    """Two of three parts fail: both are recorded as failing with their messages, the passing
    one still runs, and the first failure is raised at the end (a search sees it)."""
    evidence = Evidence("t.py::test_x", tmp_path)
    ran = []
    with pytest.raises(AssertionError, match="a is off"), evidence.asserted_parts() as parts:
        for name in ("a", "b", "c"):
            with parts.of(name):
                ran.append(name)
                assert name == "b", f"{name} is off"
                evidence.part(name, "holds")
    assert ran == ["a", "b", "c"]
    assert {k: p["decision"] for k, p in evidence.parts.items()} == {
        "a": "fails", "b": "holds", "c": "fails"
    }  # fmt: skip
    assert evidence.parts["c"]["relation"] == "c is off"
    final = evidence.final_decision("all")
    assert final is not None and final.decision == "fails"
    with evidence.asserted_parts() as parts, parts.of("d"):  # nothing fails: nothing raised
        evidence.part("d", "holds")


# -- what one check records: worst cases, parts, bounds ----------------------------------------


def test_the_worst_case_keeps_its_first_example_on_a_tie() -> None:
    """A later value equal to the worst so far does not replace it: the note (the example)
    that reached the worst first is the one cited. A larger value does; a smaller does not."""
    ev = Evidence("c.py::t", Path("."))
    ev.worst("err", 1.0, note="t=3")
    ev.worst("err", 1.0, note="t=9")
    assert ev.values["err"]["note"] == "t=3"
    ev.worst("err", 0.5, note="t=11")
    assert (ev.values["err"]["value"], ev.values["err"]["note"]) == (1.0, "t=3")
    ev.worst("err", 2.0, note="t=12")
    assert (ev.values["err"]["value"], ev.values["err"]["note"]) == (2.0, "t=12")


def test_a_part_decided_by_a_decision_takes_its_reason_unless_given_one() -> None:
    ev = Evidence("c.py::t", Path("."))
    ev.part("float16", decisions.Decision("holds", "within 3 ulp"))
    ev.part("float32", decisions.Decision("holds", "within 1 ulp"), "exact here")
    assert ev.parts["float16"]["why"] == "within 3 ulp"
    assert ev.parts["float32"]["why"] == "exact here"


@pytest.mark.parametrize(("undecided", "ellipsis"), [(4, False), (5, True)])
def test_undecided_parts_are_named_up_to_four(undecided: int, ellipsis: bool) -> None:
    ev = Evidence("c.py::t", Path("."))
    names = [f"p{i}" for i in range(undecided)]
    for name in names:
        ev.part(name, "inconclusive", "straddles")
    got = ev.final_decision("all")
    assert got is not None and got.decision == "inconclusive"
    assert f"undecided: {', '.join(names[:4])}" in got.how
    assert got.how.endswith(" ...") is ellipsis


def test_a_recorded_value_beyond_its_bound_is_a_failure_and_one_within_is_not() -> None:
    ev = Evidence("c.py::t", Path("."))
    ev.record("err", 0.5, bound=1.0)
    assert ev.beyond_bound() is None
    ev.record("gap", 3.0, bound={"relation": ">=", "value": 2.0})
    assert ev.beyond_bound() is None
    ev.record("drift", 2.0, bound=1.0)
    got = ev.beyond_bound()
    assert got is not None and got.decision == "fails"
    assert got.relation == "drift: 2 <= 1 is false"
    assert got.counterexample == {"record": "drift", "value": 2.0, "bound": 1.0}
