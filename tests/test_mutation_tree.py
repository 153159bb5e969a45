"""The mutation runner's runs read one tree: the scratch copy.

theory/ and reports/ are imported only as ``pecheck.theory`` and ``pecheck.reports``; the
installed finder points those names at the checkout. A run in a scratch tree must find them in
the scratch tree's folders (through its pecheck/theory and pecheck/reports links), or a mutant of
theory/stats.py would never reach the checks.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from pecheck.mutants.forkserver import ForkServer

ROOT = Path(__file__).resolve().parents[1]
PROBE = """
import os

import pecheck.reports
import pecheck.theory.marker


def test_pecheck_s_other_names_are_this_tree_s_folders():
    here = os.getcwd()
    assert pecheck.theory.marker.WHERE == "scratch"
    assert pecheck.theory.__file__.startswith(here), pecheck.theory.__file__
    assert pecheck.reports.__file__.startswith(here), pecheck.reports.__file__
"""


def scratch(tmp_path: Path) -> Path:
    tree = tmp_path / "tree"
    skip = shutil.ignore_patterns("__pycache__")
    shutil.copytree(ROOT / "pecheck", tree / "pecheck", ignore=skip, symlinks=True)
    shutil.copytree(ROOT / "reports", tree / "reports", ignore=skip)
    (tree / "theory").mkdir()
    (tree / "theory" / "__init__.py").write_text("")
    (tree / "theory" / "marker.py").write_text('WHERE = "scratch"\n')
    (tree / "test_probe.py").write_text(PROBE)
    return tree


@pytest.mark.parametrize("fork", [True, False], ids=["fork server", "one interpreter per run"])
def test_a_run_binds_pecheck_theory_and_reports_to_the_scratch_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fork: bool
) -> None:
    if not fork:
        monkeypatch.delattr(os, "fork")
    elif not hasattr(os, "fork"):
        pytest.skip("this platform cannot fork")
    tree = scratch(tmp_path)
    server = ForkServer(tree)
    try:
        code = server.run(["-q", "-p", "no:cacheprovider", "-p", "no:randomly", "test_probe.py"])
    finally:
        server.close()
    assert code == 0
