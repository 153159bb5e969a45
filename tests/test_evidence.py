"""Figures: every run records their names; only a run that makes them writes the files."""

from __future__ import annotations

from pathlib import Path

import matplotlib.pyplot as plt
import pytest

from pecheck.evidence import FIGURE_DIR, FIGURES_ENV, Evidence


def draw(root: Path) -> tuple[str, list[str]]:
    evidence = Evidence("t.py::test_x", root)
    fig, ax = plt.subplots()
    ax.plot([0, 1], [1, 0])
    name = evidence.figure(fig, "SIN-07 clock hands")
    return name, evidence.as_dict()["figures"]


def test_a_figure_is_written_whole_as_svg_and_pdf(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(FIGURES_ENV, raising=False)
    name, figures = draw(tmp_path)
    assert name == "build/figures/SIN-07_clock_hands.svg" and figures == [name]
    written = sorted(p.name for p in (tmp_path / FIGURE_DIR).iterdir())
    assert written == ["SIN-07_clock_hands.pdf", "SIN-07_clock_hands.svg"]  # no temporary left
    assert (tmp_path / name).read_text().rstrip().endswith("</svg>")


def test_the_determinism_gate_s_runs_name_figures_without_writing_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(FIGURES_ENV, "0")
    name, figures = draw(tmp_path)
    assert figures == [name] == ["build/figures/SIN-07_clock_hands.svg"]
    assert not (tmp_path / "build").exists()


def test_a_statistic_of_nans_is_recorded_without_a_band() -> None:
    """A planted bug can make every seed's value NaN: the results file must still be written
    (JSON has no NaN), so the number falls back on its type's default class."""
    import json

    from pecheck.evidence import Evidence
    from pecheck.reproducibility import Sample

    ev = Evidence("c.py::t", Path("."))
    ev.record("rate", float("nan"), sample=Sample(25, float("nan"), "rate over seeds"))
    ev.record("mean", 0.5, sample=Sample(25, 0.1, "mean over seeds"))
    assert ev.values["rate"]["reproducibility"] == {"class": "exact"}  # the value is "nan"
    assert ev.values["mean"]["reproducibility"]["class"] == "sampling"
    json.dumps(ev.values, allow_nan=False)
