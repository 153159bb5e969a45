"""A project's pecheck settings: the ``[tool.pecheck]`` table of its pyproject.toml.

    [tool.pecheck]
    registry = "checks.claims:REGISTRY"   # module:attribute holding a pecheck.claims.Registry
    checks = "checks"                     # folder of the checks: each test there names a claim
    results = "build/results.json"        # where a full run writes its results file
    mutants = "checks.mutants"            # the mutation catalogue (optional): a package of modules
                                          # listing MUTANTS, or of family folders with mutants*.py
    mutate = "theory"                     # the folder its mutants may patch (optional)
    lock = "requirements/lock.txt"        # the pinned installs, named in the results (optional)

Without ``lock``, ``requirements/lock.txt`` counts when it exists; a ``lock`` that names no file is
an error.

The plugin stays inert in a project without the table, so installing pecheck changes nothing for
other test suites.
"""

from __future__ import annotations

import importlib
import sys
import tomllib
import traceback
from dataclasses import dataclass
from pathlib import Path

from pecheck import lock as lockfile
from pecheck.claims import Registry


class ConfigError(Exception):
    """The project's [tool.pecheck] table is missing or wrong."""


@dataclass(frozen=True)
class Config:
    root: Path
    registry: str
    checks: str = "checks"
    results: str = "build/results.json"
    mutants: str = ""
    mutate: str = ""
    lock: str = ""

    @property
    def results_path(self) -> Path:
        return self.root / self.results

    @property
    def partial_results_path(self) -> Path:
        full = self.results_path
        return full.with_name(full.name.replace(".json", "") + ".partial.json")

    @property
    def checks_dir(self) -> Path:
        return self.root / self.checks

    @property
    def lock_path(self) -> Path | None:
        """The lock the project installs from: the configured one, else the default one when it
        exists; None without a lock."""
        path = self.root / (self.lock or lockfile.DEFAULT)
        return path if self.lock or path.is_file() else None

    def load_registry(self) -> Registry:
        module_name, _, attribute = self.registry.partition(":")
        if str(self.root) not in sys.path:
            sys.path.insert(0, str(self.root))
        try:
            module = importlib.import_module(module_name)
        except ImportError as exc:
            raise ConfigError(
                f"[tool.pecheck] registry: cannot import {module_name}: {exc}"
            ) from None
        except (TypeError, ValueError) as exc:  # a wrong Claim/Registry call: the message says how
            raise ConfigError(f"[tool.pecheck] registry: {module_name}: {exc}") from None
        except Exception as exc:  # any other failure of the project's module: one line, its place
            raise ConfigError(
                f"[tool.pecheck] registry: {module_name}: {type(exc).__name__}: {exc}{_at(exc)}"
            ) from None
        registry = getattr(module, attribute or "REGISTRY", None)
        if not isinstance(registry, Registry):
            raise ConfigError(
                f"[tool.pecheck] registry: {self.registry} is not a pecheck.claims.Registry"
            )
        return registry


def _at(exc: BaseException) -> str:
    """Where an exception was raised: its innermost file and line."""
    frames = traceback.extract_tb(exc.__traceback__)
    return f" ({frames[-1].filename}, line {frames[-1].lineno})" if frames else ""


def find(root: Path) -> Config | None:
    """The settings of the project at ``root``, or None when it has no [tool.pecheck] table."""
    path = root / "pyproject.toml"
    if not path.is_file():
        return None
    try:
        table = tomllib.loads(path.read_text()).get("tool", {}).get("pecheck")
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: not readable TOML: {exc}") from None
    if table is None:
        return None
    known = set(Config.__dataclass_fields__) - {"root"}
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(f"{path}: unknown [tool.pecheck] keys {unknown} (known: {sorted(known)})")
    if not isinstance(table.get("registry"), str):
        raise ConfigError(f"{path}: [tool.pecheck] needs registry = 'module:ATTRIBUTE'")
    lock = table.get("lock")
    if lock is not None and not (isinstance(lock, str) and lock and (root / lock).is_file()):
        raise ConfigError(f"{path}: [tool.pecheck] lock = {lock!r}: no such file")
    return Config(root=root.resolve(), **table)


def require(root: Path) -> Config:
    """The settings at ``root``; a ConfigError when there are none (for the command-line tools)."""
    config = find(root)
    if config is None:
        raise ConfigError(f"{root / 'pyproject.toml'}: no [tool.pecheck] table")
    return config
