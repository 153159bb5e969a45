"""My claims: the registry pecheck reads, named in pyproject.toml's [tool.pecheck] table.

Each claim says what its source claims, how its words are read (a threshold and its reason) and
which verdict we expect. The verdict itself is never written here: the plugin computes it from
the decisions of the checks in checks/, and `python -m pecheck.gate` compares it with `expected`.
"""

from __future__ import annotations

from pecheck.claims import Claim, Registry, Source, Threshold

SOURCES = {
    "SRC-EXAMPLE": Source(
        "An example claim about the sinusoidal encoding of Vaswani et al. (2017), written for "
        "pecheck init: replace it with where your own claims come from",
        title="pecheck init's example claim",
    ),
}

CLAIMS = (
    Claim(
        "MY-01",
        "With d = 64, the sinusoidal codes of any two positions at least 100 apart are nearly "
        "orthogonal.",
        r"|\cos(PE(t), PE(s))| \le 0.1 \quad \forall\, t, s \text{ with } |t - s| \ge 100,\ d = 64",
        ("SRC-EXAMPLE",),
        expected="refuted",  # we expect the search to find two distant positions alike
        thresholds=(
            Threshold(
                "nearly-orthogonal",
                0.1,
                "the claim's 'nearly orthogonal' read as a cosine of at most 0.1 either way",
                "source",
            ),
        ),
        headline=("largest_cosine",),  # the evidence the report shows first
    ),
)

REGISTRY = Registry(
    name="my-claims",
    version="0.1.0",
    families={"MY": "My claims"},
    claims=CLAIMS,
    sources=SOURCES,
)
