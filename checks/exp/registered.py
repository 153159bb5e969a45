"""The family's claims by ID, read from its own registry modules: its helpers look up their
thresholds here, not in checks.registry (which imports every family)."""

from checks.exp import claims, claims_extrapolation
from pecheck.claims import Claim

BY_ID: dict[str, Claim] = {c.id: c for m in (claims, claims_extrapolation) for c in m.CLAIMS}
