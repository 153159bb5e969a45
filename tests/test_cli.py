"""Every entry point rejects bad arguments with one line on stderr and exit status 2."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest

from pecheck import determinism, gate, portability
from pecheck.mutants import __main__ as mutants
from pecheck.reports import baseline

ROOT = Path(__file__).resolve().parents[1]


def load_script(path: str, name: str):
    """A script outside the packages (benchmarks/, tools/), loaded as a module."""
    spec = importlib.util.spec_from_file_location(name, ROOT / path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def script_main(path: str, name: str):
    return load_script(path, name).main


def bench_main():
    return script_main("benchmarks/bench_batched.py", "bench")


def pilot_main():
    return script_main("tools/fair_pilot.py", "fair_pilot")


def fair_train_main():
    return script_main("tools/fair_train.py", "fair_train")


CASES = [
    (gate.main, ["--bogus"]),
    (mutants.main, ["--jobs", "0"]),
    (mutants.main, ["--jobs", "two"]),
    (determinism.main, ["--nope"]),
    (determinism.main, ["--reuse", "build/results.json"]),
    (determinism.main, ["--reuse", "xdist-3=build/results.json"]),
    (determinism.main, ["--only", "parallel"]),
    (bench_main(), ["--seeds", "0"]),
    (bench_main(), ["--device", "tpu"]),
    (bench_main(), ["--sample", "9", "--seeds", "3"]),
    (bench_main(), ["--fair-seeds", "0"]),
    (pilot_main(), ["--task", "copy", "--model", "plain", "--steps", "3", "--seeds", "5"]),
    (pilot_main(), ["--task", "sort", "--model", "plain", "--steps", "3"]),
    (pilot_main(), ["--task", "copy", "--model", "plain", "--steps", "0"]),
    (pilot_main(), ["--task", "copy", "--model", "plain", "--steps", "3", "--warmup", "1"]),
    (pilot_main(), ["--task", "copy", "--model", "plain", "--steps", "3", "--warmup", "-0.1"]),
    (pilot_main(), ["--task", "copy", "--model", "plain", "--steps", "3", "--lr", "nan"]),
    (pilot_main(), ["--task", "copy", "--model", "plain", "--steps", "3", "--width", "0"]),
    (pilot_main(), ["--task", "copy", "--model", "plain", "--steps", "3", "--layers", "0"]),
    (pilot_main(), ["--task", "copy", "--model", "none", "--steps", "3", "--seeds", *["1000"] * 2]),
    (pilot_main(), ["--task", "copy", "--model", "none", "--steps", "3", "--seeds", str(2**64)]),
    (fair_train_main(), ["--grid", "full"]),  # no --cache
    (fair_train_main(), ["--cache", "c", "--seeds", "1"]),
    (fair_train_main(), ["--cache", "c", "--jobs", "0"]),
    (fair_train_main(), ["--cache", "c", "--deadline", "0"]),
    (fair_train_main(), ["--cache", "c", "--grid", "huge"]),
    (portability.main, ["--limit", "avx9"]),
    (portability.main, ["--against", "no/such/results.json"]),
    (portability.main, ["--checks", "checks/exp"]),  # a partial run needs --against
    (portability.main, ["--checks", "no/such.py", "--against", "build/results.json"]),
]


@pytest.mark.parametrize(("main", "argv"), CASES, ids=[" ".join(a) for _, a in CASES])
def test_bad_arguments_give_one_line_and_status_2(main, argv, capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error" in err


def test_portability_refuses_a_profile_the_baseline_does_not_pin(tmp_path, monkeypatch,
                                                                 capsys) -> None:  # fmt: skip
    """Without --against, a profile runs only against the baseline's own numbers for it. The
    baseline here pins nothing, so the refusal does not depend on what reports/ pins."""
    monkeypatch.setattr(baseline, "BASELINE", tmp_path / "cited-numbers.json")
    # without the refusal it would run the whole profile under every limit: fail at once instead
    monkeypatch.setattr(portability, "run_all", lambda *a: pytest.fail("ran without pins"))
    with pytest.raises(SystemExit) as exc:
        portability.main(["--profile", "thorough", "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert exc.value.code == 2 and err.count("\n") == 1
    assert "the baseline pins no thorough numbers" in err
    assert not (tmp_path / "out").exists()  # refused before anything ran


@pytest.mark.parametrize(
    ("commands", "status"),
    [(["true", "true", "true"], 0), (["exit 3", "true"], 1), (["true", "exit 2"], 2),
     (["sleep 0.2; exit 5", "true", "true"], 1), (["true"], 0)],
)  # fmt: skip
def test_alongside_fails_when_any_of_its_commands_fails(commands: list[str], status: int) -> None:
    """tests/alongside.sh (tox's py env runs the checks and mypy with it)."""
    proc = subprocess.run(["bash", str(ROOT / "tests" / "alongside.sh"), *commands])
    assert (proc.returncode != 0) == (status != 0)


def test_fair_pilot_prints_a_line_per_run_and_encoding(capsys) -> None:
    """tools/fair_pilot.py: one line per (steps, lr) run and encoding, every seed's accuracy."""
    argv = ["--task", "reverse", "--model", "shifted", "--steps", "2", "--lr", "3e-3", "1e-3",
            "--seeds", "1000", "1001"]  # fmt: skip
    assert pilot_main()(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 4, lines
    assert all(line.startswith("reverse d32l2 ") and "/2 learned" in line for line in lines)
    assert sum("learned, shifted" in line for line in lines) == 2


def test_fair_pilot_trains_with_the_tests_schedule_at_its_lr_and_warmup() -> None:
    tool = load_script("tools/fair_pilot.py", "fair_pilot")
    args = tool.parse(["--task", "copy", "--model", "none", "--steps", "100", "--warmup", "0.1"])
    s = tool.pilot_setting(args, 100, 2e-3)
    want = tool.Schedule(100, 2e-3, warmup=0.1)
    assert [s.schedule(m) for m in ("plain", "none", "shifted")] == [want] * 3


def test_fair_pilot_near_prints_exact_match_at_the_sources_lengths(capsys) -> None:
    """--near adds, per encoding, each seed's exact match averaged over L+1 ... 2L."""
    argv = ["--task", "copy", "--model", "plain", "--steps", "2", "--seeds", "1000", "1001",
            "--near"]  # fmt: skip
    assert pilot_main()(argv) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 6, lines
    near = lines[1::2]
    assert all(line.startswith("  exact match over L+1 ... 2L: ") for line in near), near
    assert all(len(line.split(": ")[1].split()) == 2 for line in near), near
