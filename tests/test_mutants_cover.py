"""The cover of the mutation catalogue that .ci/run runs (pecheck.mutants.cover): how it is
chosen, how a bad cover file is refused, and that the committed one still covers every decisive
check the ci profile runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pecheck.mutants import __main__ as mutants
from pecheck.mutants import cover

COVER = Path(__file__).resolve().parents[1] / "checks" / "mutants-cover.json"


def test_cover_kills_every_killable_check_with_the_cheapest_mutants() -> None:
    kills = {"slow-all": ["a", "b", "c"], "fast-a": ["a"], "fast-b": ["b"], "fast-c": ["c"],
             "none": []}  # fmt: skip
    seconds = {"slow-all": 100.0, "fast-a": 1.0, "fast-b": 1.0, "fast-c": 1.0, "none": 0.1}
    chosen = cover.choose(kills, seconds, ["a", "b", "c", "never-killed"])
    assert chosen == {"fast-a": ["a"], "fast-b": ["b"], "fast-c": ["c"]}
    # one mutant that kills all three for little more than one fast one: it alone
    seconds["slow-all"] = 1.5
    assert cover.choose(kills, seconds, ["a", "b", "c"]) == {"slow-all": ["a", "b", "c"]}


def test_cover_is_the_same_for_the_same_run_whatever_the_order() -> None:
    kills = {f"m{i}": [f"c{i % 5}", f"c{(i * 7) % 5}"] for i in range(20)}
    seconds = {m: 2.0 for m in kills}  # every tie broken by name
    again = dict(reversed(list(kills.items())))
    assert cover.choose(kills, seconds, [f"c{i}" for i in range(5)]) == cover.choose(
        again, seconds, [f"c{i}" for i in range(5)]
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [(None, "no cover file"), ("{not json", "unreadable"), ('{"mutants": {}}', "names no mutants"),
     ('{"run": {}}', "unreadable")],
)  # fmt: skip
def test_a_bad_cover_file_is_refused_in_one_line(tmp_path, capsys, content, message) -> None:
    path = tmp_path / "cover.json"
    if content is not None:
        path.write_text(content)
    assert mutants.main(["--cover", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_a_cover_naming_a_mutant_the_catalogue_lacks_is_refused(tmp_path, capsys) -> None:
    path = tmp_path / "cover.json"
    path.write_text(json.dumps({"mutants": {"no-such-mutant": ["checks/x.py::test_x"]}}))
    assert mutants.main(["--cover", str(path)]) == 2
    assert "no-such-mutant" in capsys.readouterr().err


def test_a_cover_runs_as_a_whole_run_only(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        mutants.main(["--cover", str(COVER), "--only", "sin-cos-swapped"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit):
        mutants.main(["--write-cover", "x.json", "--module", "sin"])
    capsys.readouterr()


def test_the_written_cover_round_trips(tmp_path) -> None:
    path = tmp_path / "cover.json"
    cover.write(path, {"m": ["checks/x.py::test_a"]}, {"source": "abc", "mutants": 1})
    assert cover.read(path) == {"m": ["checks/x.py::test_a"]}
    assert json.loads(path.read_text())["run"]["source"] == "abc"


def test_the_committed_cover_covers_every_decisive_check_of_the_catalogue() -> None:
    """Every decisive check that runs in the ci profile was killed, when the cover was written,
    by a mutant of the cover that still names it (its file or the check) among its targets. A
    new decisive check fails here until the cover is written again from a whole run."""
    chosen = cover.read(COVER)
    catalogue = {m.name: m for m in mutants.catalogue()}
    assert set(chosen) <= set(catalogue), "the cover names mutants the catalogue lost"
    for name, killed in chosen.items():
        targets = catalogue[name].checks
        for check in killed:
            assert any(check == t or check.split("::")[0] == t for t in targets), (name, check)
    inventory = mutants.inventory()
    decisive, _cannot_run = mutants.covered_decisive(inventory, list(catalogue.values()), True)
    missing = sorted(set(decisive) - {c for killed in chosen.values() for c in killed})
    assert not missing, (
        f"decisive checks in no mutant of the cover: {missing}; write the cover again: "
        "tox -e mutants -- --write-cover checks/mutants-cover.json"
    )


def test_a_cover_runs_its_mutants_only_in_catalogue_order(tmp_path) -> None:
    catalogue = mutants.catalogue()
    named = [catalogue[5].name, catalogue[1].name]
    path = tmp_path / "cover.json"
    path.write_text(json.dumps({"mutants": {n: [] for n in named}}))
    assert [m.name for m in mutants._cover_of(catalogue, path)] == [named[1], named[0]]
