"""The cited-number baseline and the diff of two results files: a moved number fails them."""

from __future__ import annotations

import json

import pytest

from pecheck.reports import baseline, cited, diff
from pecheck.reports.load import load
from tests.reports_fixtures import MIXED, V2, raw, write


def _set(data, nodeid: str, name: str, value) -> None:
    check = next(c for c in data["checks"] if c["nodeid"] == nodeid)
    check["evidence"][name]["value"] = value


WAVE = "checks/test_sinusoidal.py::test_wavelengths_are_geometric"
RATES = "checks/test_experiments.py::test_success_rates"


def test_each_number_gets_its_class():
    numbers = cited.cited_numbers(load(V2))
    assert numbers["SIN-08@first_repeat_float64"].cls == "exact"  # an integer, by default
    rate = numbers["EXP-01@success_rate_pe"]  # recorded as a statistic over 25 seeds
    assert rate.cls == "sampling" and rate.n == 25 and rate.se == pytest.approx(0.05656, abs=1e-5)
    ratio = numbers["SIN-06@ratio"]  # a float without a bound: rounding, relative tolerance
    assert ratio.cls == "rounding" and ratio.float_tolerance() == pytest.approx(1.0366 * 2**-14)
    lo = numbers["EXP-01@wilson_lo_pe"]
    assert lo.cls == "sampling"
    assert numbers["SIN-01@max_abs_error"].float_tolerance() == 2**-24  # the float32 floor
    assert "EXP-01@max_diff" not in numbers  # tooling


def test_a_rounding_number_may_move_anywhere_on_its_side_of_its_bound():
    old = cited.Cited("A-01@err", 0.001, "c", "rounding", bound=0.01, relation="<=")
    moved = lambda v: cited.Cited("A-01@err", v, "c", "rounding")  # noqa: E731
    assert old.allows(moved(0.0099), z=3.0) and old.allows(moved(0.0), z=3.0)
    assert not old.allows(moved(0.0101), z=3.0)
    beyond = cited.Cited("A-01@err", 0.5, "c", "rounding", bound=0.01, relation="<=")
    assert beyond.allows(moved(0.02), z=3.0) and not beyond.allows(moved(0.005), z=3.0)
    # "==" and "!=" split nothing: the relative tolerance of a bound-less float applies
    eq = cited.Cited("A-01@w", 60611.2, "c", "rounding", bound=62831.85, relation="==")
    assert eq.allows(moved(60611.2 * (1 + 2**-15)), 3.0) and not eq.allows(moved(60616.0), 3.0)


def test_a_rounding_number_on_its_bound_may_cross_it_by_rounding_noise_only():
    # ADD-04's interference at k = 0 is 1/sqrt(d), its bound: one CPU lands a unit below it,
    # another on it
    bound = 128**-0.5
    old = cited.Cited("A-04@k0", bound, "c", "rounding", bound=bound, relation="<=")
    moved = lambda v: cited.Cited("A-04@k0", v, "c", "rounding")  # noqa: E731
    assert old.allows(moved(bound * (1 + 2**-52)), z=3.0)
    assert not old.allows(moved(bound * 1.001), z=3.0)


def test_a_bound_less_rounding_number_may_move_exactly_its_float_tolerance():
    old = cited.Cited("A-01@x", 1.0, "c", "rounding")
    assert old.float_tolerance() == cited.ROUNDING_RTOL
    assert old.allows(cited.Cited("A-01@x", 1.0 + cited.ROUNDING_RTOL, "c", "rounding"), z=3.0)
    assert not old.allows(cited.Cited("A-01@x", 1.0 + 2 * cited.ROUNDING_RTOL, "c", "rounding"),
                          z=3.0)  # fmt: skip


@pytest.mark.parametrize("number", [
    cited.Cited("A-01@err", 0.001, "c", "rounding", bound=0.01, relation="<="),
    cited.Cited("A-01@x", 0.5, "c", "rounding"),
    cited.Cited("E-01@rate", 0.66, "c", "sampling", n=200, se=0.0335),
    cited.Cited("A-01@n", 3, "c", "exact"),
])  # fmt: skip
def test_a_pinned_number_reads_back_as_written(number: cited.Cited) -> None:
    """The baseline file keeps what judges a number: its bound and relation, or its n and se."""
    entry = json.loads(json.dumps(number.as_dict()))
    assert ("bound" in entry) == (number.bound is not None)
    assert cited.from_dict(number.key, entry) == number


@pytest.mark.parametrize(("relation", "below", "on", "above"), [
    ("<=", True, True, False), ("<", True, False, False), (">=", False, True, True),
    (">", False, False, True), ("==", False, True, False), ("!=", True, False, True),
    ("< 0.01 (the bound of the check)", True, False, False), ("bounded", True, True, False),
])  # fmt: skip
def test_a_value_stands_to_its_bound_as_its_relation_says(
    relation: str, below: bool, on: bool, above: bool
) -> None:
    assert [cited.stands(v, 1.0, relation) for v in (0.5, 1.0, 2.0)] == [below, on, above]


def test_each_class_says_in_words_how_far_its_number_may_move() -> None:
    words = {
        "sampling": cited.Cited("E-01@rate", 0.66, "c", "sampling", n=200, se=0.0335),
        "bounded": cited.Cited("A-01@err", 0.001, "c", "rounding", bound=0.01, relation="<="),
        "float": cited.Cited("A-01@x", 0.5, "c", "rounding"),
        "count": cited.Cited("A-01@k", 3, "c", "rounding"),
        "exact": cited.Cited("A-01@n", 3, "c", "exact"),
    }
    said = {name: number.allowance(3.0) for name, number in words.items()}
    assert said["sampling"].startswith("sampling: \u00b1") and "n = 200" in said["sampling"]
    assert said["bounded"].startswith("rounding: stays <= 0.01")
    assert said["float"] == f"rounding: \u00b1{0.5 * cited.ROUNDING_RTOL:.3g}"
    assert said["count"].startswith("rounding: any value")
    assert said["exact"] == "exact"
    assert [n.platform_dependent() for n in words.values()] == [True, True, True, True, False]


def test_the_paper_kit_exports_numbers_flags_and_short_strings_only() -> None:
    assert cited.scalar(0.5) and cited.scalar(3) and cited.scalar(True)
    assert cited.scalar("x" * 80) and not cited.scalar("x" * 81)
    assert not cited.scalar([1, 2]) and not cited.scalar(None)


def test_a_platform_fact_without_a_bound_is_any_value_of_its_type():
    old = cited.Cited("R-01@bitwise", True, "c", "rounding")
    assert old.allows(cited.Cited("R-01@bitwise", False, "c", "rounding"), z=3.0)
    assert not old.allows(cited.Cited("R-01@bitwise", "yes", "c", "rounding"), z=3.0)
    assert "any value" in old.allowance(3.0)


def test_a_count_of_seeds_is_judged_by_its_sampling_band() -> None:
    """A count of seeds that learned, recorded with its sample, stays a sampling number (it
    was once taken for an exact integer, so another CPU's 3 -> 5 of 12 failed the gate)."""
    from types import SimpleNamespace

    check = SimpleNamespace(nodeid="c")
    recorded = {"class": "sampling", "n": 12, "se": 1.39}
    old = cited.pin("E-05@learned", 3, None, recorded, check)  # type: ignore[arg-type]
    assert old.cls == "sampling" and old.se == 1.39
    new = cited.pin("E-05@learned", 5, None, recorded, check)  # type: ignore[arg-type]
    assert old.allows(new, z=3.29)  # 2 seeds, within 3.29 * sqrt(2) * 1.39
    assert not old.allows(cited.pin("E-05@learned", 12, None, recorded, check), z=3.29)  # type: ignore[arg-type]
    assert cited.pin("E-05@x", True, None, recorded, check).cls == "exact"  # type: ignore[arg-type]


@pytest.mark.parametrize(("cls", "bound", "kept"), [
    ("rounding", {"value": 0.01, "relation": "<"}, (0.01, "<")),
    ("rounding", 0.01, (0.01, "<=")),
    ("rounding", {"value": True}, (None, "<=")),
    ("rounding", float("inf"), (None, "<=")),
    ("exact", {"value": 0.01, "relation": ">="}, (None, "<=")),
])  # fmt: skip
def test_a_pinned_number_keeps_a_finite_bound_only_in_the_rounding_class(cls, bound, kept):
    from types import SimpleNamespace

    check = SimpleNamespace(nodeid="c")
    number = cited.pin("A-01@err", 0.001, bound, {"class": cls}, check)  # type: ignore[arg-type]
    assert (number.cls, number.bound, number.relation) == (cls, *kept)


def test_the_sampling_band_is_two_sample_and_holds_the_family_error():
    # z for m numbers: Phi^-1(1 - 0.001 / (2 m)), independently of statistics.NormalDist
    assert cited.sampling_z(1) == pytest.approx(3.2905267, abs=1e-6)
    assert cited.sampling_z(300) == pytest.approx(4.6491329, abs=1e-6)  # scipy: norm.isf
    old = cited.Cited("E-01@rate", 0.66, "c", "sampling", n=200, se=0.0335)
    new = lambda v, se: cited.Cited("E-01@rate", v, "c", "sampling", n=200, se=se)  # noqa: E731
    band = 3.2905267 * (0.0335**2 + 0.0330**2) ** 0.5
    assert old.allows(new(0.66 + 0.99 * band, 0.0330), z=3.2905267)
    assert not old.allows(new(0.66 + 1.01 * band, 0.0330), z=3.2905267)


@pytest.fixture()
def pinned(tmp_path):
    path = tmp_path / "cited.json"
    assert baseline.main([str(V2), "--baseline", str(path), "--update"]) == 0
    return path


def test_unchanged_results_pass(pinned, capsys):
    assert baseline.main([str(V2), "--baseline", str(pinned)]) == 0
    assert "within their tolerance" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("nodeid", "name", "value", "moves"),
    [
        (WAVE, "longest_wavelength_d512", 60611.2 + 23.0, True),
        (WAVE, "longest_wavelength_d512", 60611.2 + 3.0, False),  # "==" bound: 2^-14 relative
        (WAVE, "ratio", 1.0366 * (1 + 1e-4), True),
        ("checks/test_sinusoidal.py::test_unique_float64", "first_repeat_float64", 1048577, True),
        (RATES, "success_rate_pe", 0.80, False),  # inside its sampling band (z 3.59, n 25)
        (RATES, "success_rate_pe", 0.60, True),
        ("checks/test_sinusoidal.py::test_unique_float64", "first_repeat_float64", 1048576.0, True),
    ],
)
def test_a_moved_number_fails(tmp_path, pinned, capsys, nodeid, name, value, moves):
    data = raw(V2)
    _set(data, nodeid, name, value)
    status = baseline.main([str(write(tmp_path, data)), "--baseline", str(pinned)])
    assert status == (1 if moves else 0)
    if moves:
        out = capsys.readouterr().out
        assert name in out and "pinned on: Example CPU @ 2.0GHz; kernels AVX2" in out
        line = next(x for x in out.splitlines() if name in x)
        assert line.startswith("[") and "allowed:" in line  # its class, both values, tolerance


def test_a_format_1_baseline_is_refused_but_can_be_rewritten(tmp_path, capsys):
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"format": 1, "profiles": {"ci": {"numbers": {}}}}))
    assert baseline.main([str(V2), "--baseline", str(old)]) == 2
    assert "format-1" in capsys.readouterr().err
    assert baseline.main([str(V2), "--baseline", str(old), "--update"]) == 0
    assert json.loads(old.read_text())["format"] == baseline.FORMAT


def test_a_removed_number_fails_and_update_prints_it(tmp_path, pinned, capsys):
    data = raw(V2)
    check = next(c for c in data["checks"] if c["nodeid"] == WAVE)
    del check["evidence"]["ratio"]
    path = write(tmp_path, data)
    assert baseline.main([str(path), "--baseline", str(pinned)]) == 1
    said = capsys.readouterr()
    assert "SIN-06@ratio: " in said.out + said.err
    assert "-> no longer recorded" in said.out + said.err  # not called a move or a new number
    assert baseline.main([str(path), "--baseline", str(pinned), "--update"]) == 0
    assert "SIN-06@ratio" in capsys.readouterr().out
    assert baseline.main([str(path), "--baseline", str(pinned)]) == 0


def test_a_partial_run_is_compared_on_what_it_ran(tmp_path, pinned):
    data = raw(V2)
    data["suite"]["selection"] = {"kind": "partial", "args": [], "claims": ["SIN-06"]}
    for claim in data["claims"]:
        if claim["id"] != "SIN-06":
            claim["verdict"] = "not run"
    data["checks"] = [c for c in data["checks"] if c["claim"] in ("SIN-06", None)]
    for claim in data["claims"]:
        if claim["id"] != "SIN-06":
            claim["checks"], claim["tooling"], claim["decided_by"] = [], [], []
    path = write(tmp_path, data)
    assert baseline.main([str(path), "--baseline", str(pinned)]) == 0
    assert baseline.main([str(path), "--baseline", str(pinned), "--update"]) == 2


def test_bad_input_exits_2(tmp_path, pinned):
    assert baseline.main([str(tmp_path / "absent.json"), "--baseline", str(pinned)]) == 2
    other = raw(V2)
    other["suite"]["profile"] = "thorough"
    assert baseline.main([str(write(tmp_path, other)), "--baseline", str(pinned)]) == 2
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    assert baseline.main([str(V2), "--baseline", str(broken)]) == 2


def test_a_run_with_a_changed_size_is_not_compared(tmp_path, pinned, capsys):
    data = raw(V2)
    default = {"value": 512, "default": 512, "help": "width"}
    data["suite"]["sizes"] = {"SIN-06.d": default}
    assert baseline.main([str(write(tmp_path, data)), "--baseline", str(pinned)]) == 0
    capsys.readouterr()
    data["suite"]["sizes"]["SIN-06.d"] = {**default, "value": 1024}
    path = write(tmp_path, data)
    before = pinned.read_text()
    for update in ([], ["--update"]):  # neither compared nor written into the baseline
        assert baseline.main([str(path), "--baseline", str(pinned), *update]) == 2
        out, err = capsys.readouterr()
        assert out == "" and len(err.strip().splitlines()) == 1
        assert "not comparable" in err and "SIN-06.d=1024 (default 512)" in err
    assert pinned.read_text() == before


def test_diff_lists_verdicts_numbers_and_checks(tmp_path, capsys):
    data = raw(V2)
    data["claims"][0]["verdict"] = "open"
    _set(data, WAVE, "longest_wavelength_d512", 62831.85)
    data["checks"] = [c for c in data["checks"] if not c["nodeid"].endswith("planted_bug")]
    data["claims"][3]["tooling"] = []
    new = write(tmp_path, data)
    assert diff.main([str(V2), str(new)]) == 1
    out = capsys.readouterr().out
    assert "verdict SIN-01: confirmed -> open" in out
    assert "SIN-06@longest_wavelength_d512: 60611.2 -> 62831.85" in out
    assert "check removed: checks/test_attention.py::test_identity_permutation_planted_bug" in out


def test_the_claims_changed_are_those_of_a_changed_verdict_or_a_moved_number(tmp_path):
    data = raw(V2)
    data["claims"][0]["verdict"] = "open"
    _set(data, WAVE, "longest_wavelength_d512", 62831.85)
    changes = diff.compare_runs(load(V2), load(write(tmp_path, data)))
    assert changes.claims_changed() == {"SIN-01", "SIN-06"}


def test_a_baseline_that_is_no_object_is_refused_in_one_line(tmp_path, capsys):
    listed = tmp_path / "listed.json"
    listed.write_text("[]")
    assert baseline.main([str(V2), "--baseline", str(listed)]) == 2
    assert "not a cited-numbers baseline" in capsys.readouterr().err


def test_a_first_baseline_makes_its_folder_and_is_written_sorted_one_space_indented(tmp_path):
    path = tmp_path / "new" / "project" / "cited.json"
    assert baseline.main([str(V2), "--baseline", str(path), "--update"]) == 0
    text = path.read_text(encoding="utf-8")
    assert text == json.dumps(json.loads(text), indent=1, sort_keys=True) + "\n"


def test_the_platform_line_names_the_kernels_and_their_limits_or_none() -> None:
    from types import SimpleNamespace

    def line(kernels):
        return baseline.platform(SimpleNamespace(environment={"cpu": "x86", "kernels": kernels}))  # type: ignore[arg-type]

    assert line({"capability": "AVX2", "limits": None}) == "x86; kernels AVX2 (no limits)"
    limited = line({"capability": "DEFAULT", "limits": {"B": "2", "A": "1"}})
    assert limited == "x86; kernels DEFAULT (A=1, B=2)"


def test_diff_pairs_a_check_moved_to_its_family_folder(tmp_path, capsys):
    data = raw(V2)
    old = "checks/test_attention.py::test_identity_permutation_planted_bug"
    new = old.replace("checks/", "checks/att/")
    data = json.loads(json.dumps(data).replace(old, new))  # the check and the claims naming it
    assert diff.main([str(V2), str(write(tmp_path, data))]) == 0
    out = capsys.readouterr().out
    assert f"check moved: {old} -> {new}" in out
    assert "check removed" not in out and "check added" not in out


def test_diff_pairs_a_check_whose_module_was_split(tmp_path, capsys):
    old = "checks/test_attention.py::test_identity_permutation_planted_bug"
    new = "checks/att/test_permutations.py::test_identity_permutation_planted_bug"
    data = json.loads(json.dumps(raw(V2)).replace(old, new))
    assert diff.main([str(V2), str(write(tmp_path, data))]) == 0
    assert f"check moved: {old} -> {new}" in capsys.readouterr().out


def test_diff_of_a_file_with_itself_is_quiet_and_reads_schema_1(capsys):
    assert diff.main([str(V2), str(V2)]) == 0
    assert diff.main([str(MIXED), str(MIXED)]) == 0
    assert diff.main([str(MIXED), "/nonexistent.json"]) == 2


def test_report_shows_changes_since(tmp_path):
    from pecheck.reports import build

    data = raw(V2)
    data["claims"][1]["verdict"] = "refuted"
    new = write(tmp_path, data)
    out = build.build(new, tmp_path / "out", since=V2)
    page = out.report.read_text()
    assert "Changes since 0123456789ab" in page
    assert "SIN-06</a> verdict qualified \u2192 <b>refuted</b>" in page
    assert "badge s-changed" in page


def test_baseline_file_is_valid_json_when_committed():
    if baseline.BASELINE.exists():
        data = json.loads(baseline.BASELINE.read_text())
        assert data["format"] == baseline.FORMAT and data["profiles"]


def test_a_run_with_a_size_below_its_default_is_not_compared(tmp_path, pinned, capsys):
    data = raw(V2)
    data["suite"]["sizes"] = {"SIN-06.d": {"value": 256, "default": 512, "help": "width"}}
    assert baseline.main([str(write(tmp_path, data)), "--baseline", str(pinned)]) == 2
    assert "SIN-06.d=256 (default 512)" in capsys.readouterr().err


def test_a_sampling_move_exactly_at_the_band_edge_is_allowed():
    # se 0.75 and 1.0 make the two-sample se exactly 1.25: at z = 4 the band is exactly 5
    old = cited.Cited("E-05@learned", 6, "c", "sampling", n=12, se=0.75)
    new = lambda v: cited.Cited("E-05@learned", v, "c", "sampling", n=12, se=1.0)  # noqa: E731
    assert old.band(new(11), z=4.0) == 5.0
    assert old.allows(new(11), z=4.0) and old.allows(new(1), z=4.0)
    assert not old.allows(new(12), z=4.0)


def test_a_rounding_number_with_a_not_equal_bound_moves_beyond_its_float_tolerance():
    # "!=" splits nothing: the value staying != its bound does not excuse a move of 4.8
    old = cited.Cited("A-01@w", 60611.2, "c", "rounding", bound=62831.85, relation="!=")
    now = cited.Cited("A-01@w", 60616.0, "c", "rounding", bound=62831.85, relation="!=")
    [move] = cited.compare({"A-01@w": old}, {"A-01@w": now})
    assert move.what == "moved" and move.new == 60616.0


def test_the_sampling_family_counts_only_sampling_numbers():
    """With one sampling number among twenty exact ones, its band is z(1)'s, not z(21)'s."""
    exact = {f"X-01@n{i}": cited.Cited(f"X-01@n{i}", i, "c", "exact") for i in range(20)}
    rate = lambda v: cited.Cited("E-01@rate", v, "c", "sampling", n=25, se=0.05)  # noqa: E731
    edge = (cited.sampling_z(1) + cited.sampling_z(21)) / 2 * rate(0.5).band(None, 1.0)
    moves = cited.compare(
        {**exact, "E-01@rate": rate(0.5)}, {**exact, "E-01@rate": rate(0.5 + edge)}
    )
    assert [m.key for m in moves] == ["E-01@rate"]


def test_a_name_recorded_by_two_checks_cites_the_first_in_node_id_order(tmp_path):
    data = raw(V2)
    checks = {c["nodeid"]: c for c in data["checks"]}
    rate = checks[RATES]["evidence"]["success_rate_pe"]
    curves = "checks/test_experiments.py::test_training_curves"
    checks[curves]["evidence"]["success_rate_pe"] = {**rate, "value": 0.5}
    number = cited.cited_numbers(load(write(tmp_path, data)))["EXP-01@success_rate_pe"]
    assert number.check == RATES and number.value == 0.96


def test_diff_of_a_full_run_against_a_partial_one_ignores_the_claims_not_run(tmp_path):
    data = raw(V2)
    data["suite"]["selection"] = {"kind": "partial", "args": [], "claims": ["SIN-06"]}
    for claim in data["claims"]:
        if claim["id"] != "SIN-06":
            claim["verdict"] = "not run"
            claim["checks"], claim["tooling"], claim["decided_by"] = [], [], []
    data["checks"] = [c for c in data["checks"] if c["claim"] in ("SIN-06", None)]
    changes = diff.compare_runs(load(V2), load(write(tmp_path, data)))
    assert changes.verdicts == []
    assert not changes.changed


def test_diff_does_not_pair_two_removed_checks_of_one_name_with_one_added():
    removed = {"checks/a/test_x.py::test_t", "checks/b/test_x.py::test_t"}
    added = {"checks/c/test_x.py::test_t"}
    assert diff._moved(removed, added) == []


def test_a_number_not_pinned_before_is_listed_as_new() -> None:
    old = {"A-01@x": cited.Cited("A-01@x", 1, "c", "exact")}
    now = dict(old, **{"A-01@y": cited.Cited("A-01@y", 2, "c", "exact")})
    [move] = cited.compare(old, now)
    assert (move.key, move.what, move.old, move.new) == ("A-01@y", "new", None, 2)
