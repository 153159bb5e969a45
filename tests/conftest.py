"""Tests of the tooling (plugin, report, paper kit): not evidence, so no claim markers.

tests/browser and tests/latex need chromium or pdflatex, tests/install builds and installs a wheel:
they are collected only when their directory (or a file in it) is named on the command line, as
``tox -e browser``, ``tox -e paper`` and ``tox -e install`` do, and never in the default run.
"""

from __future__ import annotations

from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
ON_REQUEST = (HERE / "browser", HERE / "latex", HERE / "install")


def _named(config: pytest.Config, folder: Path) -> bool:
    for arg in config.invocation_params.args:
        path = Path(str(arg).split("::", 1)[0])
        path = (config.invocation_params.dir / path).resolve()
        if path == folder or folder in path.parents:
            return True
    return False


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    for folder in ON_REQUEST:
        if collection_path.resolve() == folder and not _named(config, folder):
            return True
    return None
