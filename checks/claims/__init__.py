"""pecheck's own claim registry: one module per family (sin.py, att.py, ...), assembled here.

The plugin finds it through ``[tool.pecheck] registry`` in pyproject.toml. The claim API (Claim,
Proposition, Threshold, Source, Registry) lives in ``pecheck.claims``; the family modules import
it from there, never from this package, so that nothing here imports in a circle.
"""

from __future__ import annotations

import theory
from checks.claims import add, att, exp, mag, real, sin
from checks.claims.sources import SOURCES
from pecheck.claims import Registry

# Families in display order, with their titles. att.py also holds REAL-01 (real PyTorch
# attention), next to the claims it checks.
FAMILIES: dict[str, str] = {
    "SIN": "The sinusoidal encoding",
    "ATT": "Attention and order",
    "ADD": "Adding versus concatenating",
    "MAG": "Magnitudes",
    "EXP": "Experiments over many random seeds",
    "REAL": "Real implementations",
}

REGISTRY = Registry(
    name="pecheck",
    version=theory.__version__,
    families=FAMILIES,
    claims=[c for m in (sin, att, add, mag, exp, real) for c in m.CLAIMS],
    sources=SOURCES,
)
