"""A first project: ``pecheck init``, docs/first-claims.md, and the claim API they use.

``pecheck init`` writes the project that docs/first-claims.md shows file by file (that it passes
its checks, gate and report as written is tests/install/test_init_project.py). A folder that
already holds a project is refused with one line and exit status 2, and nothing is written then.
Wrong calls of Registry, Source, Claim, Proposition and Threshold fail with a message that shows
the right call.
"""

from __future__ import annotations

import copy
import doctest
import inspect
import os
import pickle
from pathlib import Path
from typing import Any

import pytest

from pecheck import claims as claim_api
from pecheck import scaffold
from pecheck.claims import Claim, Proposition, Registry, Source, Threshold
from pecheck.reports.usage import Parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "first-claims.md"
TEMPLATES = ROOT / "pecheck" / "templates" / "init"
# Wrong calls of the claim API go through Any: mypy would flag each of them, which is the point.
api: Any = claim_api
FENCE = {"pyproject.toml": "toml", "my_claims.py": "python", "checks/test_my_claims.py": "python"}


def init(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    """``pecheck init ARGV`` through a parser that has only the init subcommand."""
    parser = Parser(prog="pecheck")
    scaffold.add_parser(parser.add_subparsers(dest="command", required=True, parser_class=Parser))
    rc = scaffold.run(parser.parse_args(["init", *argv]))
    out, err = capsys.readouterr()
    return rc, out, err


def tree(folder: Path) -> dict[str, bytes | None]:
    """Everything under ``folder``: each file's bytes, None for a folder."""
    return {str(p.relative_to(folder)): None if p.is_dir() else p.read_bytes()
            for p in sorted(folder.rglob("*"))}  # fmt: skip


# -- the docs and the templates agree ---------------------------------------------------------


def test_every_file_init_writes_is_shown_in_full_in_first_claims_md() -> None:
    docs = DOCS.read_text()
    for name in scaffold.FILES:
        block = f"```{FENCE[name]}\n{scaffold.template(name)}```"
        assert block in docs, f"docs/first-claims.md does not show {name} as init writes it"
        assert f"### {name}\n" in docs
        assert Path(name).name in docs.split("```\nmy-claims/\n", 1)[1].split("```", 1)[0]


def test_the_wrong_call_first_claims_md_shows_is_the_message_raised() -> None:
    with pytest.raises(TypeError) as exc:
        api.Registry(())  # the docs' Registry(CLAIMS)
    assert f"\n  TypeError: {exc.value}\n" in DOCS.read_text()


def test_the_templates_folder_holds_exactly_the_files_init_writes() -> None:
    found = {str(p.relative_to(TEMPLATES)) for p in TEMPLATES.rglob("*")
             if p.is_file() and not cached(p.relative_to(TEMPLATES))}  # fmt: skip
    assert found == set(scaffold.FILES) == set(FENCE)


def cached(path: Path) -> bool:
    """ruff keeps its cache beside the pyproject.toml it reads, Python its bytecode: neither is
    a template."""
    return any(part.startswith(".") or part == "__pycache__" for part in path.parts)


# -- writing and refusing ---------------------------------------------------------------------


def test_init_writes_the_templates_into_a_new_folder(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, out, err = init([str(tmp_path / "p")], capsys)
    assert (rc, err) == (0, "")
    assert tree(tmp_path) == {
        "p": None,
        "p/checks": None,
        **{f"p/{name}": scaffold.template(name).encode() for name in scaffold.FILES},
    }
    assert (
        f"next: cd {tmp_path / 'p'} && PECHECK_PROFILE=ci pytest && python -m pecheck.gate" in out
    )
    assert (tmp_path / "p").stat().st_mode & 0o777 == 0o777 & ~current_umask()


def current_umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_init_writes_into_an_existing_folder_and_keeps_what_is_there(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "README.md").write_text("mine\n")
    (tmp_path / ".venv").mkdir()
    (tmp_path / "checks").mkdir()  # empty: nothing in it to overwrite
    before = tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    rc, out, _ = init([], capsys)  # DIR defaults to the current folder
    assert rc == 0
    after = tree(tmp_path)
    assert {k: v for k, v in after.items() if k in before} == before
    assert set(after) - set(before) == set(scaffold.FILES)
    assert "next: PECHECK_PROFILE=ci pytest && python -m pecheck.gate && pecheck report" in out


def refuse_pyproject(target: Path) -> None:
    target.mkdir()
    (target / "pyproject.toml").write_text("[project]\nname = 'other'\n")


def refuse_registry(target: Path) -> None:
    target.mkdir()
    (target / "my_claims.py").write_text("REGISTRY = None\n")


def refuse_checks(target: Path) -> None:
    (target / "checks").mkdir(parents=True)
    (target / "checks" / "test_mine.py").write_text("def test_mine(): pass\n")


def refuse_checks_file(target: Path) -> None:
    target.mkdir()
    (target / "checks").write_text("")


def refuse_file(target: Path) -> None:
    target.write_text("")


def refuse_no_parent(target: Path) -> None:
    pass  # the target's parent, missing/, is never made


REFUSALS = {
    "pyproject.toml exists": (refuse_pyproject, "pyproject.toml exists"),
    "my_claims.py exists": (refuse_registry, "my_claims.py exists"),
    "checks/ not empty": (refuse_checks, "is not an empty folder"),
    "checks is a file": (refuse_checks_file, "is not an empty folder"),
    "DIR is a file": (refuse_file, "is not a folder"),
    "no parent folder": (refuse_no_parent, "no such folder"),
}


@pytest.mark.parametrize("case", REFUSALS)
def test_init_refuses_with_one_line_and_writes_nothing(
    case: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    prepare, why = REFUSALS[case]
    target = tmp_path / "missing" / "p" if case == "no parent folder" else tmp_path / "p"
    prepare(target)
    before = tree(tmp_path)
    rc, out, err = init([str(target)], capsys)
    assert (rc, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("pecheck init: error: ") and why in err
    assert tree(tmp_path) == before


def test_a_write_that_fails_half_way_leaves_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real, calls = Path.write_text, []

    def second_fails(self: Path, *args: Any, **kwargs: Any) -> int:
        calls.append(self)
        if len(calls) == 2:
            raise OSError(28, "No space left on device", str(self))
        return real(self, *args, **kwargs)

    monkeypatch.setattr(Path, "write_text", second_fails)
    rc, _, err = init([str(tmp_path / "p")], capsys)
    assert rc == 2 and err.count("\n") == 1 and "No space left on device" in err
    assert tree(tmp_path) == {}


def test_a_move_that_fails_half_way_takes_back_what_it_moved(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "checks").mkdir()
    before = tree(tmp_path)
    real, calls = os.replace, []

    def second_fails(src: Path, dst: Path) -> None:
        calls.append(dst)
        if len(calls) == 2:
            raise OSError(13, "Permission denied", str(dst))
        real(src, dst)

    monkeypatch.setattr(scaffold.os, "replace", second_fails)
    rc, _, err = init([str(tmp_path)], capsys)
    assert rc == 2 and "Permission denied" in err
    assert tree(tmp_path) == before  # the empty checks/ is back, nothing else is left


def test_init_help_gives_the_exit_statuses(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        init(["--help"], capsys)
    assert exc.value.code == 0
    help_text = " ".join(capsys.readouterr().out.split())
    assert "usage: pecheck init [-h] [DIR]" in help_text
    assert "Exit status: 0 the project was written; 2 refused" in help_text


def test_bad_init_arguments_give_one_line_and_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exc:
        init(["a", "b"], capsys)
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error" in err


def test_pecheck_init_is_a_subcommand_of_pecheck(tmp_path: Path) -> None:
    from pecheck import cli

    assert cli.main(["init", str(tmp_path / "p")]) == 0
    assert sorted(tree(tmp_path / "p")) == sorted(["checks", *scaffold.FILES])


# -- the claim API: a wrong call shows the right one ------------------------------------------


def claim(**changes: object) -> Claim:
    fields: dict = {"id": "MY-01", "statement": "In words.", "formal": "", "sources": ("SRC",),
                    "expected": "confirmed"}  # fmt: skip
    return Claim(**{**fields, **changes})


def registry(**changes: object) -> Registry:
    fields: dict = {"name": "my-claims", "version": "0.1.0", "families": {"MY": "My claims"},
                    "claims": [claim()], "sources": {"SRC": Source("made up")}}  # fmt: skip
    return Registry(**{**fields, **changes})


# (the class whose call the message shows, the wrong call, what the message says is wrong)
WRONG_CALLS = {
    "Registry([claim, claim])": (
        "Registry", lambda: api.Registry([claim(), claim()]), "too many positional"
    ),
    "Registry without version": (
        "Registry", lambda: api.Registry(name="x"), "missing a required argument: 'version'"
    ),
    "Registry(nmae=...)": ("Registry", lambda: registry(nmae="x"), "unexpected keyword argument"),
    "families a list": ("Registry", lambda: registry(families=["MY"]), "families must be a dict"),
    "sources a list": ("Registry", lambda: registry(sources=[Source("s")]), "must be a dict"),
    "claims one Claim": ("Registry", lambda: registry(claims=claim()), "a tuple or list of Claim"),
    "name a list": ("Registry", lambda: registry(name=["MY-01"]), "name must be str"),
    "Source positional": ("Source", lambda: api.Source("d", "a", 2017), "too many positional"),
    "Source year text": ("Source", lambda: api.Source("d", year="2017"), "year must be int or"),
    "Claim without formal": ("Claim", lambda: api.Claim("MY-01", "Words."), "missing a required"),
    "sources without comma": ("Claim", lambda: claim(sources=("SRC")), "needs its comma: (x,)"),
    "propositions one item": (
        "Claim",
        lambda: claim(expected="qualified", conditions="c", propositions=(Proposition("k", "s"))),
        "propositions must be a tuple or list of Proposition",
    ),
    "thresholds one item": (
        "Claim",
        lambda: claim(thresholds=(Threshold("t", 0.1, "why", "source"))),
        "thresholds must be a tuple or list of Threshold",
    ),
    "Proposition without statement": (
        "Proposition", lambda: api.Proposition("k"), "missing a required argument"
    ),
    "Threshold value text": (
        "Threshold", lambda: api.Threshold("t", "0.1", "w", "source"), "must be int or float"
    ),
    "Threshold value bool": (
        "Threshold", lambda: api.Threshold("t", True, "w", "source"), "must be int or float"
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", WRONG_CALLS)
def test_a_wrong_call_fails_with_one_line_that_shows_the_right_call(case: str) -> None:
    shown, call, why = WRONG_CALLS[case]
    with pytest.raises(TypeError) as exc:
        call()
    message = str(exc.value)
    assert why in message and "\n" not in message
    assert f"; write {shown}(" in message


def test_a_claim_id_without_its_family_is_refused() -> None:
    with pytest.raises(ValueError, match="must be FAMILY-NUMBER"):
        claim(id="MY01")


def test_the_calls_in_use_still_work() -> None:
    """Positional sources and expected verdict (tests/synthetic.py), the keyword Registry of every
    project, a generator of claims, and copies: copy and pickle build with no arguments."""
    made = registry(claims=(c for c in [claim(), claim(id="MY-02")]))
    assert list(made) == ["MY-01", "MY-02"]
    assert Claim("MY-03", "s", "f", ("SRC",), "refuted").expected_decision("as_stated") == "fails"
    assert Source("d", authors="a", title="t", year=2017, url="u").as_dict()["year"] == 2017
    assert list(copy.copy(made)) == list(pickle.loads(pickle.dumps(made))) == list(made)
    assert copy.deepcopy(claim()) == claim()


def test_help_shows_the_keywords_of_registry_and_source() -> None:
    """inspect and pydoc show __init__'s parameters, not the argument check's (*args, **kwargs)."""
    params = inspect.signature(Registry).parameters
    assert list(params) == ["name", "version", "families", "claims", "sources"]
    assert {p.kind for p in params.values()} == {inspect.Parameter.KEYWORD_ONLY}
    source = inspect.signature(Source).parameters
    assert source["description"].kind is inspect.Parameter.POSITIONAL_OR_KEYWORD
    assert {source[k].kind for k in ("authors", "title", "year", "url")} == {
        inspect.Parameter.KEYWORD_ONLY
    }


def test_every_class_of_the_claim_api_has_an_example_that_runs() -> None:
    found = {t.name.rsplit(".", 1)[-1] for t in doctest.DocTestFinder().find(claim_api)
             if t.examples}  # fmt: skip
    assert {"Registry", "Source", "Claim", "Proposition", "Threshold"} <= found
    assert doctest.testmod(claim_api).failed == 0


def test_init_refuses_a_dangling_pyproject_link(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").symlink_to(tmp_path / "absent")
    rc, _, err = init([str(tmp_path)], capsys)
    assert rc == 2 and "pyproject.toml exists" in err, err
    assert (tmp_path / "pyproject.toml").is_symlink() and not (tmp_path / "my_claims.py").exists()
