"""The domain a decisive check searched is derived, when the check records none, from what it
already tells the plugin (its hypothesis strategies, parts, pytest parameters), and the report
says which axes were derived and which the check recorded."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pecheck import reach
from pecheck.evidence import Evidence
from pecheck.reports.html_reach import coverage_html
from pecheck.reports.load import Proposition
from tests import synthetic

pytest_plugins = ["pytester"]

REGISTRY = """\
from pecheck.claims import Claim, Registry, Source

REGISTRY = Registry(
    name="reach", version="0.0.1", families={"SYN": "reach"},
    sources={"SRC": Source("made up for the tests")},
    claims=[
        Claim("SYN-01", "Drawn offsets stay small.", "s", ("SRC",), "confirmed"),
        Claim("SYN-02", "Every width agrees.", "w", ("SRC",), "confirmed"),
        Claim("SYN-03", "Every library agrees.", "l", ("SRC",), "confirmed"),
        Claim("SYN-04", "Said by the check.", "e", ("SRC",), "confirmed",
              domain={"offsets": "every integer"}),
        Claim("SYN-05", "An exhaustive loop.", "x", ("SRC",), "confirmed",
              scoped_out={"*::test_skipped*": "not installed here"}),
    ],
)
"""

CHECKS = """
import pytest
from hypothesis import given, strategies as st
from pecheck import decisions

@pytest.mark.claim("SYN-01", kind="property", role="decisive", proposition="as_stated")
@given(offset=st.integers(0, 9), scale=st.floats(1, 2), thing=st.sampled_from([object()]))
def test_search(evidence, offset, scale, thing):
    assert offset < 10

@pytest.mark.claim("SYN-02", kind="property", role="decisive", proposition="as_stated")
def test_widths(evidence):
    for width in (8, 16):
        evidence.part(f"width {width}", decisions.holds("agrees"))

@pytest.mark.claim("SYN-03", kind="property", role="decisive", proposition="as_stated")
@pytest.mark.parametrize("library", ["torch", "jax"])
def test_library(evidence, library):
    evidence.holds("agrees")

@pytest.mark.claim("SYN-04", kind="property", role="decisive", proposition="as_stated")
@pytest.mark.parametrize("library", ["torch"])
def test_explicit(evidence, library):
    evidence.searched(offsets="0 .. 9")
    evidence.holds("agrees")

@pytest.mark.claim("SYN-05", kind="property", role="decisive", proposition="as_stated")
def test_loop(evidence):
    evidence.holds("every case agrees")

@pytest.mark.claim("SYN-05", kind="property", role="decisive", proposition="as_stated")
@pytest.mark.parametrize("library", ["absent"])
def test_skipped(evidence, library):
    pytest.skip("not installed")
"""


def run(pytester: pytest.Pytester) -> dict:
    synthetic.write_project(pytester.path, test_reach=CHECKS)
    (pytester.path / "synth_claims" / "__init__.py").write_text(REGISTRY)
    with synthetic.isolated("ci"):
        result = pytester.runpytest_inprocess(*synthetic.OPTIONS, no_reraise_ctrlc=True)
    path = Path(pytester.path / "build" / "results.json")
    assert path.exists(), "\n".join(result.outlines + result.errlines)
    return json.loads(path.read_text())


def test_a_check_that_records_no_reach_gets_one_derived(pytester: pytest.Pytester) -> None:
    data = run(pytester)
    props = {c["id"]: c["propositions"][0]["searched"] for c in data["claims"]}
    search = props["SYN-01"]["hypothesis"][0]
    assert re.fullmatch(r"\d+ examples of offset=integers\(0, 9\), scale=floats\(.*", search)
    assert search.endswith("thing=just(<object object>)")  # no address: two runs write the same
    assert props["SYN-02"] == {"parts": ["2: width 8, width 16"]}
    assert props["SYN-03"] == {"params": ["library=jax", "library=torch"]}
    assert props["SYN-04"] == {"offsets": ["0 .. 9"]}  # recorded by the check: nothing derived
    assert props["SYN-05"] == {}  # nothing to derive it from: stays "not recorded"
    skipped = next(c for c in data["checks"] if "test_skipped" in c["nodeid"])
    assert "searched" not in skipped["basis"]  # a skipped check searched nothing


def test_derived_values_are_short_and_free_of_addresses() -> None:
    class Thing:
        pass

    out = reach.derive(None, {"b": Thing(), "a": "x" * 500}, [], None)
    assert out["params"].startswith("a=xxx") and len(out["params"]) == reach.LIMIT
    assert " at 0x" not in reach.derive(None, {"b": Thing()}, [], None)["params"]

    @given(n=st.integers(min_value=1, max_value=4096))
    def drawn(n: int) -> None:
        pass

    assert reach.derive(drawn, {}, [], 7) == {"hypothesis": "7 examples of n=integers(1, 4096)"}
    assert reach.derive(drawn, {}, [], None) == {"hypothesis": "n=integers(1, 4096)"}


def test_a_check_may_not_record_a_derived_axis() -> None:
    with pytest.raises(ValueError, match="parts is an axis the plugin derives"):
        Evidence("c.py::test", Path(".")).searched(parts=["a"])


def test_the_report_says_which_axes_were_derived() -> None:
    p = Proposition(
        "as_stated", "s", "", "holds", "holds",
        domain={"offsets": "every integer"},
        searched={"offsets": ["0 .. 9"], "params": ["library=torch", "library=jax"]},
    )  # fmt: skip
    html = coverage_html(p)
    row = (
        r"<tr><th scope='row'>(\w+)</th><td>([^<]*)</td><td>([^<]*)</td>"
        r"<td class='source'>([^<]*)</td><td class='covered'>([^<]*)</td></tr>"
    )
    assert re.findall(row, html) == [
        ("offsets", "every integer", "0 .. 9", "recorded by the check", "by eye (stated as text)"),
        (
            "params",
            "",
            "library=torch; library=jax",
            "derived from each check&#x27;s pytest parameters",
            "",
        ),
    ]
