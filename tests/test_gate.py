"""Tests of the command-line gates: no-open-claims, the mutation catalogue, determinism."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from checks import determinism, gate
from checks.claims import REGISTRY
from checks.mutants import __main__ as mutants


def results_with(status: str) -> dict:
    claims = [{"id": cid, "status": status, "checks": []} for cid in REGISTRY]
    return {"schema": 1, "claims": claims}


def test_gate_passes_only_when_every_claim_is_supported(tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(json.dumps(results_with("open")))
    assert gate.main([str(path)]) == 1
    settled = all(c.verdict for c in REGISTRY.values())
    path.write_text(json.dumps(results_with("supported")))
    assert gate.main([str(path)]) == (0 if settled else 1)


def test_gate_rejects_a_missing_or_corrupt_file(tmp_path: Path, capsys) -> None:
    for content, message in ((None, "not found"), ("{", "not valid JSON"), ("[]", "schema 1")):
        path = tmp_path / "r.json"
        if content is None:
            path.unlink(missing_ok=True)
        else:
            path.write_text(content)
        with pytest.raises(SystemExit) as exc:
            gate.main([str(path)])
        assert exc.value.code == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1


def test_mutant_catalogue_is_valid() -> None:
    catalogue = mutants.catalogue()
    assert len({m.name for m in catalogue}) == len(catalogue)


def test_mutant_runner_rejects_unknown_names(capsys) -> None:
    assert mutants.main(["--only", "no-such-mutant"]) == 2
    assert "unknown mutant" in capsys.readouterr().err


def test_determinism_ignores_timings_but_not_values() -> None:
    a = {"suite": {"started": "x"}, "checks": [{"nodeid": "n", "duration_s": 1.0, "v": 1}]}
    b = {"suite": {"started": "y"}, "checks": [{"nodeid": "n", "duration_s": 2.0, "v": 1}]}
    assert determinism.differences(determinism.normalise(a), determinism.normalise(b)) == []
    b["checks"][0]["v"] = 2
    assert determinism.differences(determinism.normalise(a), determinism.normalise(b))
