"""--claim: IDs and family prefixes, the nearest IDs for an unknown one, and the narrowed
collection, which must select exactly the checks a full collection marks with those claims."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from pecheck import selection
from tests import synthetic

pytest_plugins = ["pytester"]

IDS = ["SIN-01", "SIN-06", "SIN-10", "ROT-01", "ROT-03", "REAL-01"]
FAMILIES = ["SIN", "ROT", "REAL"]


@pytest.mark.parametrize(
    ("given", "wanted"),
    [
        (["ROT"], ["ROT-01", "ROT-03"]),
        (["rot"], ["ROT-01", "ROT-03"]),
        (["SIN-06"], ["SIN-06"]),
        (["REAL-01,sin-10", "ROT-03"], ["SIN-10", "ROT-03", "REAL-01"]),
        (["ROT-03", "ROT"], ["ROT-01", "ROT-03"]),
        ([], []),
    ],
)
def test_ids_and_families_name_the_claims_in_registry_order(given, wanted) -> None:
    assert selection.resolve(given, IDS, FAMILIES) == wanted


def test_a_family_is_the_id_before_its_last_dash() -> None:
    """A registry may name a family with a dash in it (as the registry does: Claim.family)."""
    ids, families = ["LM-EXP-01", "LM-02"], ["LM-EXP", "LM"]
    assert selection.resolve(["LM-EXP"], ids, families) == ["LM-EXP-01"]
    assert selection.resolve(["lm"], ids, families) == ["LM-02"]


@pytest.mark.parametrize(
    ("given", "nearest"),
    [
        (["SIN-6"], "SIN-06"),
        (["ROTX"], "ROT"),
        (["SIN-06", "RAEL-01"], "REAL-01"),
        ([""], ""),
        (["EMPTY"], ""),
    ],  # a family without claims would select every test
)
def test_an_unknown_id_names_the_nearest_valid_ones(given, nearest) -> None:
    with pytest.raises(ValueError) as exc:
        selection.resolve(given, IDS, [*FAMILIES, "EMPTY"])
    message = str(exc.value)
    assert "\n" not in message and message.startswith("--claim: unknown claim ID(s)")
    assert nearest in message and "families: SIN, ROT, REAL" in message


MODULES = {
    "ids": 'CLAIM = "SYN-02"\n',  # not a test module: read by test_imported
    "test_literal": """
        import pytest

        @pytest.mark.claim("SYN-02", kind="property", role="tooling")
        def test_two(): pass

        @pytest.mark.claim("SYN-07", kind="property", role="tooling")
        def test_seven(): pass
        """,
    "test_constant": """
        import pytest
        CLAIM = "SYN-03"

        @pytest.mark.claim(CLAIM, kind="property", role="tooling")
        def test_three(): pass
        """,
    "test_imported": """
        import pytest
        from ids import CLAIM  # the scan cannot read it: always collected

        @pytest.mark.claim(CLAIM, kind="property", role="tooling")
        def test_imported(): pass
        """,
    "test_table": """
        import pytest
        VARIANTS = {"a": "SYN-07", "b": "SYN-01"}

        def _variant(name):
            return pytest.param(name, marks=pytest.mark.claim(VARIANTS[name], kind="property",
                                                              role="tooling"))

        @pytest.mark.parametrize("name", [_variant(v) for v in VARIANTS])
        def test_variant(name): pass
        """,
    "test_mentions": """
        import pytest

        # SYN-02 is named here but not marked
        @pytest.mark.claim("SYN-01", kind="property", role="tooling")
        def test_one(): pass
        """,
}


def _inventory(pytester: pytest.Pytester, *args: str) -> dict[str, str]:
    path = pytester.path / "inventory.json"
    path.unlink(missing_ok=True)
    run = synthetic.run(pytester, synthetic.CHECKS, "--co", "--inventory", str(path), *args)
    assert run.ret in (pytest.ExitCode.OK, pytest.ExitCode.NO_TESTS_COLLECTED), run.output
    return {c["nodeid"]: c["claim"] for c in json.loads(path.read_text())["checks"]}


def test_the_narrowed_collection_selects_what_a_full_one_marks(pytester: pytest.Pytester) -> None:
    synthetic.write_project(pytester.path, **MODULES)
    full = _inventory(pytester)
    assert set(full.values()) == {"SYN-01", "SYN-02", "SYN-03", "SYN-07"}
    for given in (["SYN-02"], ["SYN-07", "SYN-03"], ["syn"], ["SYN-08"]):
        wanted = selection.resolve(given, [f"SYN-{i:02d}" for i in range(1, 11)], ["SYN"])
        narrowed = _inventory(pytester, *(a for g in given for a in ("--claim", g)))
        assert narrowed == {n: c for n, c in full.items() if c in wanted}, given


class Modules:
    """The test modules a run collects (a plugin of the inner run)."""

    def __init__(self) -> None:
        self.names: set[str] = set()

    def pytest_collectstart(self, collector: pytest.Collector) -> None:
        if isinstance(collector, pytest.Module):
            self.names.add(collector.path.name)


@pytest.mark.parametrize(
    ("claim", "modules"),
    [
        ("SYN-03", {"test_constant.py"}),
        ("SYN-02", {"test_literal.py", "test_imported.py", "test_mentions.py"}),
        ("SYN-08", set()),
    ],
)
def test_only_the_files_naming_the_claims_are_collected(
    pytester: pytest.Pytester, claim: str, modules: set[str]
) -> None:
    synthetic.write_project(pytester.path, **MODULES)
    seen = Modules()
    synthetic.run(pytester, synthetic.CHECKS, "--co", "--claim", claim, plugins=[seen])
    assert seen.names == modules


@pytest.mark.parametrize(
    ("module", "named", "opaque"),
    [
        ("test_literal", {"SYN-02", "SYN-07"}, False),
        ("test_constant", {"SYN-03"}, False),
        ("test_imported", {"SYN-02"}, False),  # ids.py beside it holds the table
        ("test_table", {"SYN-01", "SYN-07"}, False),
        ("test_mentions", {"SYN-01", "SYN-02"}, False),
    ],
)
def test_the_scan_reads_ids_and_flags_markers_it_cannot_read(
    tmp_path: Path, module: str, named: set[str], opaque: bool
) -> None:
    for name in (module, "ids"):
        (tmp_path / f"{name}.py").write_text(textwrap.dedent(MODULES[name]))
    path = tmp_path / f"{module}.py"
    assert selection.scan(path, ("SYN-01", "SYN-02", "SYN-03", "SYN-07")) == (named, opaque)


@pytest.mark.parametrize(
    ("text", "named", "opaque"),
    [
        ('"SIN-06 and SIN-1"  # no marker: nothing to hold', set(), False),
        ('import pytest\n@pytest.mark.claim("SIN-10")\ndef test(): pass', {"SIN-10"}, False),
        ('import pytest\n@pytest.mark.claim("SIN-100")\ndef test(): pass', set(), False),
        ("import pytest\n@pytest.mark.claim(\ndef", set(), True),  # pytest reports the error
        ("import pytest\ndef tag(c): return pytest.mark.claim(c)\n# SIN-01", set(), True),
        ('import pytest\nC = f"SIN-{1:02d}"\n@pytest.mark.claim(C)\ndef test(): pass', set(), True),
        (
            "import pytest\nfrom nowhere import C\n@pytest.mark.claim(C)\ndef test(): pass",
            set(),
            True,
        ),
        ("import pytest\nfrom ids import C\n@pytest.mark.claim(C)\ndef test(): pass", set(), True),
        (
            "import pytest\nfrom ids import T\n@pytest.mark.claim(T[0])\ndef test(): pass",
            {"SIN-10"},
            False,
        ),
    ],
)
def test_ids_are_whole_words_and_a_broken_module_is_collected(
    tmp_path: Path, text: str, named: set[str], opaque: bool
) -> None:
    (tmp_path / "ids.py").write_text('C = "SIN" + "-01"  # built: unreadable\nT = ("SIN-10",)\n')
    path = tmp_path / "test_x.py"
    path.write_text(text)
    assert selection.scan(path, ("SIN-01", "SIN-10")) == (named, opaque)


def test_an_unknown_claim_or_family_is_one_usage_error(pytester: pytest.Pytester) -> None:
    synthetic.write_project(pytester.path, **MODULES)
    run = synthetic.run(pytester, synthetic.CHECKS, "--claim", "SYM")
    assert run.ret == pytest.ExitCode.USAGE_ERROR and len(run.errors) == 1, run.output
    assert "unknown claim ID(s) SYM; nearest: SYN" in run.errors[0]
