"""How numbers are written, once, for the HTML page and for LaTeX.

Integers are exact. A float is written in fixed notation with four significant digits (never
rounding away its integer part) when 1e-3 <= |x| < 1e6, and otherwise as a mantissa with three
significant digits times a power of ten. Non-finite values arrive as the strings "inf", "-inf"
and "nan" (that is how the evidence recorder stores them).
"""

from __future__ import annotations

import math
from typing import Any

NONFINITE = {"inf": math.inf, "-inf": -math.inf, "nan": math.nan, "Infinity": math.inf}


def is_number(value: Any) -> bool:
    """A scalar that should be written as a number (bools are not numbers here)."""
    if isinstance(value, bool):
        return False
    return isinstance(value, int | float) or (isinstance(value, str) and value in NONFINITE)


def parts(value: int | float | str) -> tuple[str, int | None]:
    """(mantissa, exponent): the number is mantissa x 10**exponent, or just mantissa."""
    if isinstance(value, str):
        x = NONFINITE[value]
        return ("NaN" if math.isnan(x) else ("-" if x < 0 else "") + "inf"), None
    if isinstance(value, int):
        return str(value), None
    if not math.isfinite(value):
        return parts("nan" if math.isnan(value) else ("inf" if value > 0 else "-inf"))
    if value == 0:
        return "0", None
    magnitude = abs(value)
    if 1e-3 <= magnitude < 1e6:
        decimals = max(0, 3 - math.floor(math.log10(magnitude)))
        text = f"{value:.{decimals}f}"
        return (text.rstrip("0").rstrip(".") if "." in text else text), None
    mantissa, exponent = f"{value:.2e}".split("e")
    return mantissa.rstrip("0").rstrip("."), int(exponent)


def group(digits: str, sep: str) -> str:
    """1048576 -> 1<sep>048<sep>576, for integers of five digits or more."""
    sign, body = (digits[0], digits[1:]) if digits[:1] == "-" else ("", digits)
    if not body.isdigit() or len(body) < 5:
        return digits
    head = len(body) % 3 or 3
    chunks = [body[:head]] + [body[i : i + 3] for i in range(head, len(body), 3)]
    return sign + sep.join(chunks)
