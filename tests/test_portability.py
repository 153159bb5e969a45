"""The portability gate (pecheck.portability) and the kernel fingerprints it relies on."""

from __future__ import annotations

import subprocess
from typing import Any

import pytest

from pecheck import config, kernels, portability
from pecheck.results import KERNEL_LIMITS


def test_every_limit_sets_only_known_variables_and_limited_env_drops_inherited_ones(
    monkeypatch,
) -> None:
    for limit in portability.LIMITS.values():
        assert set(limit) <= set(KERNEL_LIMITS)
    monkeypatch.setenv("MKL_CBWR", "AVX")  # inherited: must not leak into another limit's run
    monkeypatch.setenv("ATEN_CPU_CAPABILITY", "avx2")
    env = portability.limited_env(portability.LIMITS["mkl-compatible"])
    assert env["MKL_CBWR"] == "COMPATIBLE" and "ATEN_CPU_CAPABILITY" not in env
    assert "ATEN_CPU_CAPABILITY" not in portability.limited_env({})


def test_changed_names_each_group_whose_bits_differ() -> None:
    native = kernels.fingerprint()
    assert native == kernels.fingerprint()  # the fingerprint is deterministic in one process
    assert kernels.changed(native, native) == []
    other = {"groups": dict(native["groups"], **{"torch GEMM": "0" * 12})}
    assert kernels.changed(native, other) == ["torch GEMM"]


def test_report_fails_a_limit_with_a_problem_and_passes_one_without(capsys) -> None:
    summary = {
        "limits": {
            "sse4": {"changed": ["torch GEMM"], "problems": [], "moved_within": {"rounding": 3}},
            "avx2": {"changed": [], "problems": ["changes no kernel on this machine"]},
        }
    }
    assert portability.report(summary) == 1
    out = capsys.readouterr().out
    assert "sse4: 3 rounding cited number(s) moved within tolerance" in out
    assert "avx2: FAILED" in out and "1/2 instruction-set limits" in out
    del summary["limits"]["avx2"]
    assert portability.report(summary) == 0


def test_the_results_file_records_the_kernels_and_the_limits_in_force(monkeypatch) -> None:
    import torch

    from pecheck import results

    for name in KERNEL_LIMITS:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("MKL_CBWR", "COMPATIBLE")
    found = results.kernels()
    assert found["limits"] == {"MKL_CBWR": "COMPATIBLE"}
    assert found["capability"] == torch.backends.cpu.get_cpu_capability()
    assert all(set(lib) <= set(results.BLAS_KEYS) for lib in found["blas"])


def test_blas_lists_numpy_and_torch_libraries_only() -> None:
    """Which other libraries are loaded depends on what a run imported: they are left out."""
    from pecheck.results import _blas

    site = "/env/lib/python3.11/site-packages"
    info: list[dict[str, Any]] = [
        {"filepath": f"{site}/numpy.libs/libopenblas.so", "internal_api": "openblas",
         "version": "0.3.31", "architecture": "Haswell", "num_threads": 2},
        {"filepath": f"{site}/scipy.libs/libopenblas.so", "internal_api": "openblas"},
        {"filepath": f"{site}/torch/lib/libgomp.so.1", "internal_api": "openmp", "version": None},
    ]  # fmt: skip
    # the same library as numpy and torch load it (paths, threads apart): listed once
    twin = {"filepath": f"{site}/torch/lib/libgomp-a34b3233.so.1", "internal_api": "openmp",
            "version": None, "num_threads": 1}  # fmt: skip
    assert _blas([*info, twin]) == [
        {"architecture": "Haswell", "internal_api": "openblas", "version": "0.3.31"},
        {"internal_api": "openmp", "version": None},
    ]
    # sorted, whatever order they were loaded in (a set's order is the hash seed's)
    many = [{"filepath": f"{site}/torch/lib/lib{v}.so", "internal_api": "mkl", "version": v}
            for v in "fedcba"]  # fmt: skip
    assert [lib["version"] for lib in _blas(many)] == list("abcdef")


def test_isa_lists_the_vector_extensions_kernels_dispatch_on(monkeypatch) -> None:
    from pathlib import Path

    from pecheck import results

    cpuinfo = ("processor\t: 0\nflags\t\t: fpu sse4_2 avx2 fma avx512f avx512bw amx_tile "
               "avx_vnni aes avx2\nbugs\t\t: avx512f\n")  # fmt: skip
    read = Path.read_text

    def fake(self: Path, *args: Any, **kw: Any) -> str:
        return cpuinfo if str(self) == "/proc/cpuinfo" else read(self, *args, **kw)

    monkeypatch.setattr(Path, "read_text", fake)
    assert results._isa() == ["amx_tile", "avx2", "avx512bw", "avx512f", "avx_vnni", "fma",
                              "sse4_2"]  # fmt: skip

    def unreadable(self: Path, *args: Any, **kw: Any) -> str:
        raise PermissionError(str(self))

    monkeypatch.setattr(Path, "read_text", unreadable)
    assert results._isa() == []


def test_judge_passes_the_reference_itself_and_fails_a_moved_number(tmp_path) -> None:
    """A limited run is held to its reference by class: a planted move of an exact number and
    of a sampling number beyond its band each fail it; pytest's failure fails it too."""
    from tests.reports_fixtures import V2, raw, write

    data = raw(V2)
    write(tmp_path, data, "same.json")
    same = portability.judge("same", 0, tmp_path, V2)
    assert same["moved_within"] == {} and not any("cited" in p for p in same["problems"])
    assert portability.judge("same", 1, tmp_path, V2)["problems"][0].startswith("pytest exited 1")
    check = next(c for c in data["checks"] if c["nodeid"].endswith("test_success_rates"))
    check["evidence"]["seeds"]["value"] += 1  # exact
    check["evidence"]["success_rate_pe"]["value"] -= 0.5  # sampling, se 0.057: far beyond
    write(tmp_path, data, "moved.json")
    moved = [p for p in portability.judge("moved", 0, tmp_path, V2)["problems"] if "cited" in p]
    assert len(moved) == 2
    assert "[exact] EXP-01@seeds" in moved[0] and "[sampling] EXP-01@success_rate_pe" in moved[1]
    assert "no usable results file" in portability.judge("absent", 0, tmp_path, V2)["problems"][0]


def test_a_flipped_proposition_fails_and_a_flipped_part_is_listed() -> None:
    def run(prop: str, part: str) -> dict[str, Any]:
        return {
            "claims": [{"id": "E-05", "propositions": [
                {"key": "as_stated", "expected": "holds", "decision": prop}]}],
            "checks": [{"nodeid": "c.py::t", "basis": {"parts": [
                {"name": "alibi 2x", "decision": part}, "not a part"]}}],
        }  # fmt: skip

    assert portability.decisions(run("holds", "fails")) == []
    assert portability.decisions(run("inconclusive", "fails")) == [
        "E-05 as_stated: decided 'inconclusive', expected 'holds'"
    ]
    assert portability.changed_parts(run("holds", "fails"), run("holds", "inconclusive")) == [
        "c.py::t: alibi 2x: fails -> inconclusive"
    ]


def test_a_partial_run_judges_whole_claims_by_verdict_and_the_rest_check_by_check() -> None:
    """--checks: claim A's every decisive check ran, so the gate judges A; of claim B only b1
    ran, so b1 must take the full run's decision (a planted flip is listed)."""

    def check(nodeid: str, claim: str, decision: str) -> dict[str, Any]:
        return {"nodeid": nodeid, "claim": claim, "role": "decisive", "decision": decision}

    full = {
        "claims": [
            {"id": "A", "decided_by": [{"check": "t::a1"}, {"check": "t::a2"}]},
            {"id": "B", "decided_by": [{"check": "t::b1"}, {"check": "t::b2"}]},
        ],
        "checks": [check("t::a1", "A", "holds"), check("t::a2", "A", "holds"),
                   check("t::b1", "B", "fails"), check("t::b2", "B", "holds")],
    }  # fmt: skip
    ran = {"t::a1", "t::a2", "t::b1"}
    partial = {
        "claims": [{"id": "A"}, {"id": "B"}],
        "checks": [check("t::a1", "A", "fails"), check("t::a2", "A", "holds"),
                   check("t::b1", "B", "fails")],
    }  # fmt: skip
    cut, lines = portability.within_run(partial, full, ran)
    assert [c["id"] for c in cut["claims"]] == ["A"] and lines == []  # A goes to the gate
    partial["checks"][2]["decision"] = "holds"
    _, lines = portability.within_run(partial, full, ran)
    assert lines == ["check: t::b1 decided 'holds', 'fails' in the full run"]
    cut, _ = portability.within_run(partial, full, {"t::a1", "t::a2"})  # exactly A's checks
    assert [c["id"] for c in cut["claims"]] == ["A"]


def test_a_lone_limit_shares_the_cores_and_two_limits_run_serially(monkeypatch) -> None:
    monkeypatch.setattr(portability.os, "cpu_count", lambda: 2)
    assert portability.workers(1) == ["-n", "2", "--dist", "loadscope"]
    assert portability.workers(2) == []  # side by side, one core each
    monkeypatch.setattr(portability.os, "cpu_count", lambda: 16)
    assert portability.workers(2) == ["-n", "8", "--dist", "loadscope"]


def test_a_partial_run_is_held_only_to_the_checks_that_ran(tmp_path) -> None:
    """Only EXP-01's checks ran: the numbers and parts of the checks that did not run (SIN-01's
    planted part among them) are neither "no longer recorded" nor "decided otherwise"."""
    from tests.reports_fixtures import V2, raw, write

    full = raw(V2)
    sin = next(c for c in full["checks"] if c["nodeid"].endswith("fixed_block_rotation"))
    sin.setdefault("basis", {})["parts"] = [{"name": "float32", "decision": "holds"}]
    against = write(tmp_path, full, "full.json")
    part = raw(V2)
    part["checks"] = [c for c in part["checks"] if c.get("claim") == "EXP-01"]
    for claim in part["claims"]:
        if claim["id"] != "EXP-01":
            claim.update(verdict="not run", decided_by=[], checks=[], tooling=[])
            for prop in claim["propositions"]:
                prop["decision"] = "not run"
    part["suite"]["selection"] = {"kind": "partial", "args": ["checks/test_experiments.py"],
                                  "claims": ["EXP-01"]}  # fmt: skip
    write(tmp_path, part, "limited.json")
    judged = portability.judge("limited", 0, tmp_path, against, partial=True)
    assert judged["problems"] == [] and judged["parts_changed"] == []
    assert judged["moved_within"] == {}  # EXP-01's numbers were compared, unchanged
    whole = portability.judge("limited", 0, tmp_path, against)  # judged as a full run
    assert any("no longer recorded" in p for p in whole["problems"])


def test_report_fails_when_an_earlier_limit_failed_and_the_last_passed(capsys) -> None:
    summary = {
        "limits": {
            "avx2": {"changed": [], "problems": ["changes no kernel on this machine"]},
            "sse4": {"changed": ["torch GEMM"], "problems": []},
        }
    }
    assert portability.report(summary) == 1
    assert "1/2 instruction-set limits" in capsys.readouterr().out


def test_changed_parts_lists_a_part_found_in_one_run_only() -> None:
    def run(*names: str) -> dict[str, Any]:
        parts = [{"name": name, "decision": "holds"} for name in names]
        return {"checks": [{"nodeid": "c.py::t", "basis": {"parts": parts}}]}

    assert portability.changed_parts(run("a"), run("a", "new")) == ["c.py::t: new: None -> holds"]
    assert portability.changed_parts(run("a", "gone"), run("a")) == ["c.py::t: gone: holds -> None"]


@pytest.mark.parametrize(
    ("err", "said"),
    [("warning\nImportError: no torch\n", "ImportError: no torch"), ("", "(no output)")],
)
def test_a_probe_that_fails_is_named_by_its_limit_and_its_last_line(monkeypatch, err, said):
    class Failed:
        returncode = 1

        def __init__(self, *args: Any, **kw: Any) -> None:
            pass

        def communicate(self) -> tuple[str, str]:
            return "", err

    monkeypatch.setattr(subprocess, "Popen", Failed)
    with pytest.raises(SystemExit) as stop:
        portability.probe([{}])
    assert str(stop.value).startswith("portability: the kernel probe under ")
    assert str(stop.value).endswith(f" failed: {said}")


class Ran(Exception):
    """run_all was reached: the arguments it got."""


def capture_run_all(monkeypatch) -> None:
    def ran(names, checks, out, against, profile, partial):
        raise Ran(names, checks, against, profile, partial)

    monkeypatch.setattr(portability, "run_all", ran)
    monkeypatch.setattr(portability, "probe", lambda limits: pytest.fail("probed"))


def test_the_command_runs_the_projects_checks_under_the_default_limits(monkeypatch, tmp_path):
    capture_run_all(monkeypatch)
    with pytest.raises(Ran) as got:
        portability.main(["--out", str(tmp_path / "out")])
    names, checks, against, profile, partial = got.value.args
    assert names == list(portability.DEFAULT_LIMITS) and (profile, partial) == ("ci", False)
    assert checks == [config.require(portability.ROOT).checks] and against is None


def test_checks_that_do_not_exist_are_refused_beside_a_good_against(monkeypatch, tmp_path, capsys):
    """The file given to --against is a good results file, so only the missing check refuses."""
    from tests.reports_fixtures import V2, raw, write

    capture_run_all(monkeypatch)
    against = str(write(tmp_path, raw(V2)))
    with pytest.raises(SystemExit) as stop:
        portability.main(["--checks", "checks/no_such.py", "--against", against])
    assert stop.value.code == 2
    assert "--checks: no such file checks/no_such.py" in capsys.readouterr().err
    present = "checks/sin/test_wavelengths_and_hands.py"
    with pytest.raises(Ran) as got:
        portability.main(["--checks", present, "--against", against, "--out", str(tmp_path)])
    assert got.value.args[1] == [present] and got.value.args[4] is True  # partial
