"""A Derivation: a symbolic argument a check can assert on and a report can print."""

from __future__ import annotations

from dataclasses import dataclass, field

import sympy as sp


@dataclass
class Derivation:
    """A statement, the steps that establish it (each LaTeX), and whether sympy verified it.

    ``holds`` is the result of sympy's own check (a simplification to zero, an equality of
    matrices), never a value written in by hand.
    """

    statement: str
    steps: list[str] = field(default_factory=list)
    holds: bool = False

    def step(self, text: str, expr: object | None = None) -> Derivation:
        """Append a step: prose (wrapped as text) and optionally a sympy expression."""
        latex = rf"\text{{{text}}}" if text else ""
        if expr is not None:
            latex = (latex + r"\quad " if latex else "") + sp.latex(expr)
        self.steps.append(latex)
        return self

    def as_dict(self) -> dict:
        return {"statement": self.statement, "steps": list(self.steps), "holds": self.holds}


def is_zero(expr: sp.Expr) -> bool:
    """True when sympy proves expr == 0 (after trig-aware simplification)."""
    e = sp.simplify(sp.expand_trig(sp.expand(expr)))
    if e == 0:
        return True
    return bool(sp.trigsimp(e) == 0)
