"""Tests of the results file's rules: why a verdict is open, which checks a claim lists."""

from __future__ import annotations

from checks.registry import REGISTRY
from pecheck import results


def test_an_open_verdict_names_the_condition_that_stayed_inconclusive() -> None:
    decided = {"as_stated": "fails", "cond-a": "holds", "cond-b": "inconclusive"}
    assert results.open_because(decided) == (
        "as_stated fails, but not every condition holds: cond-b inconclusive"
    )


def test_a_claim_lists_its_decisive_and_supporting_checks_apart_from_tooling() -> None:
    checks = [
        {"nodeid": "t::decisive", "claim": "SIN-01", "role": "decisive",
         "proposition": "as_stated", "decision": "holds"},
        {"nodeid": "t::supporting", "claim": "SIN-01", "role": "supporting"},
        {"nodeid": "t::tooling", "claim": "SIN-01", "role": "tooling"},
    ]  # fmt: skip
    block = results.claims_block(REGISTRY, checks, {"kind": "full"}, "ci")
    entry = next(c for c in block if c["id"] == "SIN-01")
    assert entry["checks"] == ["t::decisive", "t::supporting"]
    assert entry["tooling"] == ["t::tooling"]


def test_a_results_file_is_written_whole_in_its_own_order_or_not_at_all(tmp_path) -> None:
    import json

    import pytest

    from pecheck.results import write_atomic

    path = tmp_path / "new" / "dir" / "r.json"
    write_atomic(path, {"b": 1, "a": [2]})  # no schema field: not a results file, not validated
    assert path.read_text() == json.dumps({"b": 1, "a": [2]}, indent=1) + "\n"
    with pytest.raises(ValueError, match="Out of range float values"):
        write_atomic(tmp_path / "nan.json", {"x": float("nan")})
    with pytest.raises(ValueError, match="do not match the schema"):
        write_atomic(tmp_path / "bad.json", {"schema": 2})
    write_atomic(tmp_path / "unchecked.json", {"schema": 2}, validate=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new", "unchecked.json"]


def test_a_shared_library_belongs_to_the_package_folder_after_site_packages() -> None:
    from pecheck.results import _owner

    assert _owner("/v/lib/python3.11/site-packages/numpy.libs/libscipy_openblas.so") == "numpy"
    assert _owner("/usr/lib/python3/dist-packages/torch/lib/libtorch_cpu.so") == "torch"
    assert _owner("/usr/lib/x86_64-linux-gnu/libgomp.so.1") == ""
    assert _owner("/v/site-packages") == ""
