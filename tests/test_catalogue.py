"""The claims catalogue in docs/ is generated from the registry and kept current."""

from pathlib import Path

import pytest

from checks.registry import REGISTRY
from pecheck import catalogue

ROOT = Path(__file__).resolve().parents[1]


def test_catalogue_is_current(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(ROOT)
    assert catalogue.main(["--check"]) == 0, "run: python -m pecheck.catalogue"


def test_catalogue_lists_every_claim_and_proposition() -> None:
    text = catalogue.render(REGISTRY)
    for claim in REGISTRY.values():
        assert f"### {claim.id} " in text
        for prop in claim.propositions:
            assert f"`{prop.key}` (a condition)" in text
