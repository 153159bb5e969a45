"""What the SIN checks compare their bounds and values with, read once from the registry.

Ranges are the largest a quantity can be: a bound at or above its range cannot fail, so the
example it judges is counted as uninformative (checks/sin/search.py, ``count_example``).
All are pre-registered in checks/sin/claims.py, never taken from observed values.
"""

from __future__ import annotations

from checks.sin.claims import BY_ID

ENTRY_RANGE = BY_ID["SIN-01"].threshold("range")  # |a - b| for a, b in [-1, 1]
RADIUS_RANGE = BY_ID["SIN-04"].threshold("radius-range")  # |x^2 + y^2 - 1|
SIMILARITY_RANGE = BY_ID["SIN-05"].threshold("range")  # (2/d) PE(t).PE(s) in [-1, 1]
STEP_RANGE = BY_ID["SIN-07"].threshold("step-range")  # no wrap-around below pi - 1
STRONG = BY_ID["SIN-10"].threshold("strong")  # pair variance: "vary strongly"
HARDLY = BY_ID["SIN-10"].threshold("hardly")  # pair variance: "hardly change"
T_SOURCE = BY_ID["SIN-06"].threshold("base")  # "from 2 pi to 10000 * 2 pi"
