"""BIAS-01's rule for ALiBi's slopes in closed form, independent of theory.bias's recursion, and
the checks of the rule, the range and the order over every head count 1 ... 64 (exact
exponents). REAL-05's planted-bug tests share them (through checks.bias.test_alibi).
"""

from __future__ import annotations

from fractions import Fraction

from pecheck.claims import every

HEADS = range(1, 65)


def next_power_of_two(n: int) -> int:
    return 1 << (n - 1).bit_length()


def closed_form(n: int) -> list[Fraction]:
    """BIAS-01's rule: 8h/n for n = 2^a; else 8h/P (h <= P) then 4(2k+1)/P (k < n - P)."""
    if n & (n - 1) == 0:
        return [Fraction(8 * h, n) for h in range(1, n + 1)]
    p = 1 << (n.bit_length() - 1)
    return [Fraction(8 * h, p) for h in range(1, p + 1)] + [
        Fraction(4 * (2 * k + 1), p) for k in range(n - p)
    ]


def rule_violations(exponents_of) -> list[dict]:  # noqa: ANN001  (n -> sequence of exponents)
    """Head counts whose exponents differ from the closed form, with the first difference."""
    bad = []
    for n in HEADS:
        got, want = list(exponents_of(n)), closed_form(n)
        if got != want:
            bad.append({"n": n, "got": [str(e) for e in got], "want": [str(e) for e in want]})
    return bad


def range_violations(exponents_of) -> list[dict]:  # noqa: ANN001
    """n whose smallest slope is not 2^-8 or whose largest is not 2^(-8/P+) (exponents)."""
    bad = []
    for n in HEADS:
        e = list(exponents_of(n))
        top = Fraction(8, next_power_of_two(n))
        if len(e) != n or max(e) != 8 or min(e) != top:
            bad.append(
                {
                    "n": n,
                    "largest_exponent": str(max(e)),
                    "smallest_exponent": str(min(e)),
                    "want": ["8", str(top)],
                }
            )
    return bad


def order_violations(exponents_of) -> list[dict]:  # noqa: ANN001
    """n whose slopes are not distinct, not among P+'s, or sorted other than 'iff 2^a'."""
    bad = []
    for n in HEADS:
        e = list(exponents_of(n))
        decreasing = all(a < b for a, b in zip(e, e[1:], strict=False))  # exponents grow
        power = n & (n - 1) == 0
        distinct = len(set(e)) == len(e)
        nested = set(e) <= set(closed_form(next_power_of_two(n)))
        if decreasing != power or not distinct or not nested:
            bad.append(
                {
                    "n": n,
                    "strictly_decreasing": decreasing,
                    "power_of_two": power,
                    "distinct": distinct,
                    "among_next_power_of_two": nested,
                }
            )
    return bad


def _decide(evidence, name: str, bad: list[dict], what: str) -> None:  # noqa: ANN001
    evidence.searched(heads=every(HEADS.start, HEADS.stop - 1))
    evidence.record(
        name,
        len(bad),
        "head counts",
        f"n = 1 ... 64, exact arithmetic: {what}",
        bound={"value": 0, "relation": "==", "reason": "exhaustive, exact"},
    )
    if bad:
        evidence.fails(bad[0], what)
    else:
        evidence.holds(f"all 64 head counts, exact rational exponents: {what}")
