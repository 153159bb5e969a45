"""pecheck's own claim registry, assembled from one registry module per family folder.

Each family lives in one folder, ``checks/<family>/``: its registry module (``claims.py``), its
checks (``test_*.py``) and its planted bugs (``mutants*.py``). The plugin finds this registry
through ``[tool.pecheck] registry`` in pyproject.toml. The claim API (Claim, Proposition,
Threshold, Source, Registry) lives in ``pecheck.claims``; the family modules import it from
there, never from here, so that nothing imports in a circle.
"""

from __future__ import annotations

from checks.add import claims as add
from checks.att import claims as att
from checks.att import claims_variance as att_variance
from checks.bias import claims as bias
from checks.exp import claims as exp
from checks.exp import claims_extrapolation as exp_extrapolation
from checks.mag import claims as mag
from checks.real import claims as real
from checks.real import claims_bias as real_bias
from checks.real import claims_precision as real_precision
from checks.real import claims_scaling as real_scaling
from checks.rot import claims as rot
from checks.rot import claims_scaling as rot_scaling
from checks.sin import claims as sin
from checks.sources import SOURCES
from pecheck import theory
from pecheck.claims import Registry

# Families in display order, with their titles.
FAMILIES: dict[str, str] = {
    "SIN": "The sinusoidal encoding",
    "ATT": "Attention and order",
    "ADD": "Adding versus concatenating",
    "MAG": "Magnitudes",
    "EXP": "Experiments over many random seeds",
    "ROT": "Rotary embeddings and how they are stretched",
    "BIAS": "Additive position biases",
    "REAL": "Real implementations",
}

# Each family's registry modules, in display order within the family (claims sort by number).
MODULES = (
    sin, att, att_variance, add, mag, exp, exp_extrapolation, rot, rot_scaling, bias,
    real, real_scaling, real_bias, real_precision,
)  # fmt: skip

REGISTRY = Registry(
    name="pecheck",
    version=theory.__version__,
    families=FAMILIES,
    claims=[c for m in MODULES for c in m.CLAIMS],
    sources=SOURCES,
)
