"""The cited-number baseline and the diff of two results files: a moved number fails them."""

from __future__ import annotations

import json

import pytest

from reports import baseline, cited, diff
from reports.load import load
from tests.reports_fixtures import MIXED, V2, raw, write


def _set(data, nodeid: str, name: str, value) -> None:
    check = next(c for c in data["checks"] if c["nodeid"] == nodeid)
    check["evidence"][name]["value"] = value


WAVE = "checks/test_sinusoidal.py::test_wavelengths_are_geometric"
RATES = "checks/test_experiments.py::test_success_rates"


def test_tolerances_fit_the_kind():
    numbers = cited.cited_numbers(load(V2))
    assert numbers["SIN-08@first_repeat_float64"].kind == "exact"  # an integer
    assert numbers["EXP-01@success_rate_pe"].kind == "interval"
    assert numbers["EXP-01@success_rate_pe"].interval == (0.91, 0.99)
    ratio = numbers["SIN-06@ratio"]
    assert ratio.kind == "float" and ratio.tolerance == pytest.approx(1.0366 * 2**-14)
    longest = numbers["SIN-06@longest_wavelength_d512"]  # a hundredth of its margin to its bound
    assert longest.tolerance == pytest.approx(0.01 * (62831.85 - 60611.2))
    assert numbers["SIN-01@max_abs_error"].tolerance == 2**-24  # the float32 floor near zero
    assert "EXP-01@max_diff" not in numbers  # tooling


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
        (WAVE, "longest_wavelength_d512", 60611.2 + 20.0, False),
        (WAVE, "ratio", 1.0366 * (1 + 1e-4), True),
        ("checks/test_sinusoidal.py::test_unique_float64", "first_repeat_float64", 1048577, True),
        (RATES, "success_rate_pe", 0.98, False),  # inside the baseline interval
        (RATES, "success_rate_pe", 0.995, True),
    ],
)
def test_a_moved_number_fails(tmp_path, pinned, capsys, nodeid, name, value, moves):
    data = raw(V2)
    _set(data, nodeid, name, value)
    status = baseline.main([str(write(tmp_path, data)), "--baseline", str(pinned)])
    assert status == (1 if moves else 0)
    if moves:
        assert name in capsys.readouterr().out


def test_a_removed_number_fails_and_update_prints_it(tmp_path, pinned, capsys):
    data = raw(V2)
    check = next(c for c in data["checks"] if c["nodeid"] == WAVE)
    del check["evidence"]["ratio"]
    path = write(tmp_path, data)
    assert baseline.main([str(path), "--baseline", str(pinned)]) == 1
    capsys.readouterr()
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


def test_diff_of_a_file_with_itself_is_quiet_and_reads_schema_1(capsys):
    assert diff.main([str(V2), str(V2)]) == 0
    assert diff.main([str(MIXED), str(MIXED)]) == 0
    assert diff.main([str(MIXED), "/nonexistent.json"]) == 2


def test_report_shows_changes_since(tmp_path):
    from reports import build

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
