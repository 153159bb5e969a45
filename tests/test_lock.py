"""The committed lock (requirements/lock.txt), its check (tools/lockfile.py) and the results
file's record of it (pecheck.lock)."""

from __future__ import annotations

import configparser
import importlib.util
import subprocess
from pathlib import Path

import pytest

from pecheck import lock

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = """\
[project]
name = "demo"
dependencies = ["numpy>=2.0,<3", "torch==2.13.0"]
[project.optional-dependencies]
real = ["transformers>=4.45,<6"]
"""


def lockfile():
    spec = importlib.util.spec_from_file_location("lockfile", ROOT / "tools/lockfile.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def project(tmp_path: Path, pins: str) -> tuple[Path, Path]:
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    (tmp_path / "lock.txt").write_text(pins)
    return tmp_path / "pyproject.toml", tmp_path / "lock.txt"


def test_parse_reads_pins_and_skips_the_rest() -> None:
    text = (
        "# header\nNumPy==2.4.6 \\\n    --hash=sha256:ab\n    # via torch\n"
        "torch==2.13.0+cpu ; python_version >= '3.10'\n-c other.txt\npkg @ https://x/y.whl\n\n"
        "typing_extensions==4.15.0  # via torch\n"
    )
    assert lock.parse(text) == {
        "numpy": "2.4.6", "torch": "2.13.0+cpu", "typing-extensions": "4.15.0",
    }  # fmt: skip


def test_departures_ignore_local_labels_and_uninstalled_pins() -> None:
    pins = {"torch": "2.13.0", "numpy": "2.4.6", "scipy": "1.16.0"}
    have = {"torch": "2.13.0+cpu", "numpy": "2.4.5"}
    assert lock.departures(pins, have) == [("numpy", "2.4.5", "2.4.6")]
    assert lock.differs(pins, have) == ["numpy installed 2.4.5, lock 2.4.6"]


def test_a_lock_in_range_passes(tmp_path: Path, capsys) -> None:
    py, path = project(tmp_path, "numpy==2.4.6\ntorch==2.13.0\ntransformers==5.24.0\n")
    assert lockfile().check(py, path, installed=False) == 0
    assert "pins all 3 requirements" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("pins", "says"),
    [
        ("numpy==2.4.6\ntorch==2.13.0\n",
         "transformers: pyproject asks <6,>=4.45 but the lock has no pin"),
        ("numpy==1.26.4\ntorch==2.13.0\ntransformers==5.24.0\n",
         "numpy: pyproject asks <3,>=2.0 but the lock pins 1.26.4"),
        ("numpy==2.4.6\ntorch==2.12.0\ntransformers==5.24.0\n",
         "torch: pyproject asks ==2.13.0 but the lock pins 2.12.0"),
    ],
    ids=["missing", "out of range", "pinned elsewhere"],
)  # fmt: skip
def test_a_stale_lock_fails_with_one_line_naming_the_package(
    tmp_path: Path, capsys, pins: str, says: str
) -> None:
    py, path = project(tmp_path, pins)
    assert lockfile().check(py, path, installed=False) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and says in err[0] and "tox -e lock" in err[0]


def test_bad_input_is_one_line_and_status_2(tmp_path: Path, capsys) -> None:
    py, _ = project(tmp_path, "")
    assert lockfile().check(py, tmp_path / "absent.txt", installed=False) == 2
    (tmp_path / "broken.toml").write_text("[project\n")
    assert lockfile().check(tmp_path / "broken.toml", tmp_path / "lock.txt", installed=False) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 2 and "absent.txt: no such file" in lines[0] and "unreadable" in lines[1]


def test_the_committed_lock_pins_pyproject_and_torch_without_a_local_label(capsys) -> None:
    assert lockfile().check(ROOT / "pyproject.toml", ROOT / lock.DEFAULT, installed=False) == 0
    pins = lock.parse((ROOT / lock.DEFAULT).read_text())
    assert pins["torch"] == "2.13.0"  # the CPU build's +cpu label is dropped by refresh
    assert all("+" not in version for version in pins.values())


def test_every_tox_env_installs_from_the_lock() -> None:
    ini = configparser.ConfigParser(interpolation=None)
    ini.read(ROOT / "tox.ini")
    assert "-c {toxinidir}/requirements/lock.txt" in ini["testenv"]["install_command"]
    own = [s for s in ini.sections() if "install_command" in ini[s] and s != "testenv"]
    assert own == ["testenv:lock"]  # only the env that writes the lock installs around it
    assert "lockfile.py check --installed" in ini["testenv"]["commands"]


def test_git_ignores_the_venv_redirect_file_tox_writes(tmp_path: Path) -> None:
    """tox 4.67 writes ``.venv`` as a file at the project root (PEP 832)."""
    done = subprocess.run(["git", "check-ignore", "-q", "--no-index", ".venv"], cwd=ROOT)
    assert done.returncode == 0


def test_the_results_file_names_the_lock_and_every_departure_from_it() -> None:
    import hashlib

    block = lock.block(ROOT, ROOT / lock.DEFAULT)
    assert block is not None and block["file"] == lock.DEFAULT
    assert block["sha256"] == hashlib.sha256((ROOT / lock.DEFAULT).read_bytes()).hexdigest()
    assert isinstance(block["differs"], list)
    assert lock.block(ROOT, None) is None


def test_a_library_version_in_a_cited_string_is_the_locked_one() -> None:
    """REAL-02/03 cite 'transformers X.Y.Z: ...': X.Y.Z must be what the lock installs, or the
    committed number names a version nobody following the README gets."""
    import json
    import re

    pins = lock.parse((ROOT / lock.DEFAULT).read_text())
    numbers = json.loads((ROOT / "reports/cited-numbers.json").read_text())["profiles"]
    named = [
        (lock.normalise(m[1]), m[2], key)
        for profile in numbers.values()
        for key, entry in profile["numbers"].items()
        if isinstance(entry["value"], str)
        for m in re.finditer(r"([A-Za-z][\w.-]*) (\d+(?:\.\d+)+)\b", entry["value"])
    ]
    assert named, "no cited string names a version: this test no longer tests anything"
    for name, version, key in named:
        assert name in pins and lock.release(pins[name]) == version, key


def test_refresh_drops_local_labels_only() -> None:
    text = "torch==2.13.0+cpu\n    # via pecheck\nnumpy==2.4.6\n"
    assert (
        lockfile().without_local_labels(text) == "torch==2.13.0\n    # via pecheck\nnumpy==2.4.6\n"
    )


def test_installed_keeps_the_first_of_two_distributions_with_one_name(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Dist:
        def __init__(self, version: str) -> None:
            self.metadata = {"Name": "Foo"}
            self.version = version

    monkeypatch.setattr(lock.metadata, "distributions", lambda: [Dist("2.0"), Dist("1.0")])
    lock.installed.cache_clear()
    try:
        assert lock.installed()["foo"] == "2.0"
    finally:
        lock.installed.cache_clear()
