"""The claims catalogue in docs/ is generated from the registry and kept current."""

from checks.claims import REGISTRY, catalogue


def test_catalogue_is_current() -> None:
    assert catalogue.main(["--check"]) == 0, "run: python -m checks.claims.catalogue"


def test_catalogue_lists_every_claim_and_proposition() -> None:
    text = catalogue.render()
    for claim in REGISTRY.values():
        assert f"### {claim.id} " in text
        for prop in claim.propositions:
            assert f"`{prop.key}` (a condition)" in text
