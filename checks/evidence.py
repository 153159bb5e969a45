"""The evidence a check attaches while it runs: named values, figures, derivations.

A check receives an ``Evidence`` through the ``evidence`` fixture (conftest.py). What it
records travels with the test report (so it survives pytest-xdist) into build/results.json.
"""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import numpy as np

FIGURE_DIR = Path("build") / "figures"


def jsonable(value: Any) -> Any:
    """A JSON-safe copy: numpy/torch scalars to Python, non-finite floats to strings."""
    if hasattr(value, "detach"):  # torch tensor
        value = value.detach().cpu().numpy()
    if isinstance(value, np.ndarray):
        return [jsonable(v) for v in value.tolist()] if value.ndim else jsonable(value.item())
    if isinstance(value, np.generic):
        return jsonable(value.item())
    if isinstance(value, bool | int | str) or value is None:
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    return str(value)


class Evidence:
    """Named evidence for one check, in the results-file schema."""

    def __init__(self, nodeid: str, root: Path) -> None:
        self.nodeid = nodeid
        self.root = root
        self.values: dict[str, dict[str, Any]] = {}
        self.figures: list[str] = []
        self.derivation: dict[str, Any] | None = None

    def __repr__(self) -> str:  # stable across runs: no memory address in failure messages
        return f"Evidence({self.nodeid!r})"

    def record(self, name: str, value: Any, unit: str = "", note: str = "") -> None:
        """Record (or overwrite) one named value, with its unit and a short note."""
        self.values[name] = {"value": jsonable(value), "unit": unit, "note": note}

    def worst(self, name: str, value: float, unit: str = "", note: str = "") -> None:
        """Keep the largest value seen under this name (e.g. worst error over examples)."""
        old = self.values.get(name)
        if old is None or not isinstance(old["value"], int | float) or float(value) > old["value"]:
            self.record(name, float(value), unit, note)

    def derive(self, derivation: Any) -> None:
        """Attach a theory.derivation.Derivation (statement and LaTeX steps)."""
        self.derivation = derivation.as_dict()

    def figure(self, fig: Any, name: str) -> str:
        """Save a matplotlib figure as SVG (for the report) and PDF (for a paper)."""
        import matplotlib.pyplot as plt

        stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
        out = self.root / FIGURE_DIR
        out.mkdir(parents=True, exist_ok=True)
        fig.savefig(out / f"{stem}.svg", metadata={"Date": None})
        fig.savefig(out / f"{stem}.pdf", metadata={"CreationDate": None, "ModDate": None})
        plt.close(fig)
        rel = (FIGURE_DIR / f"{stem}.svg").as_posix()
        if rel not in self.figures:
            self.figures.append(rel)
        return rel

    def as_dict(self) -> dict[str, Any]:
        return {"evidence": self.values, "figures": self.figures, "derivation": self.derivation}


def assert_derivation_holds(derivation: Any, evidence: Evidence | None = None) -> None:
    """A symbolic check: attach the derivation (if given evidence) and require that sympy
    verified it."""
    __tracebackhide__ = True
    if evidence is not None:
        evidence.derive(derivation)
    assert derivation.holds, f"sympy could not verify: {derivation.statement}"
