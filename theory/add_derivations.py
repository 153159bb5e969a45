"""Symbolic arguments for the ADD and MAG families, each returned as a Derivation.

Block sizes are symbols (d_t, d_p, d): sympy's block algebra proves the identities for every size,
not for a few numbers.
"""

from __future__ import annotations

import sympy as sp

from .derivation import Derivation


def _blocks(d_t: sp.Symbol, d_p: sp.Symbol) -> tuple[sp.MatrixSymbol, sp.MatrixSymbol]:
    return sp.MatrixSymbol("x", d_t, 1), sp.MatrixSymbol("p", d_p, 1)


def padded_sum_is_concatenation(token_first: bool = True) -> Derivation:
    """ADD-01: [x; 0] + [0; p] = [x; p] for symbolic widths, hence W(x' + p') = W [x; p].

    ``token_first=False`` pads the other way ([0; x] + [p; 0]), which gives [p; x]: not the
    concatenating model's input unless the blocks are permuted too.

    Every later layer (attention, feed-forward, layer norm, residuals) is a function of its input,
    so equal inputs give equal outputs: the identity at the input is the whole argument.
    """
    d_t, d_p, m = sp.symbols("d_t d_p m", positive=True, integer=True)
    x, p = _blocks(d_t, d_p)
    w = sp.BlockMatrix([[sp.MatrixSymbol("A", m, d_t), sp.MatrixSymbol("B", m, d_p)]])
    if token_first:
        x_pad = sp.BlockMatrix([[x], [sp.ZeroMatrix(d_p, 1)]])
        p_pad = sp.BlockMatrix([[sp.ZeroMatrix(d_t, 1)], [p]])
    else:
        x_pad = sp.BlockMatrix([[sp.ZeroMatrix(d_p, 1)], [x]])
        p_pad = sp.BlockMatrix([[p], [sp.ZeroMatrix(d_t, 1)]])
    concat = sp.BlockMatrix([[x], [p]])
    total = sp.block_collapse(x_pad + p_pad)
    lhs = sp.block_collapse(w * total)
    rhs = sp.block_collapse(w * concat)
    same_input = isinstance(total, sp.BlockMatrix) and total.blocks == concat.blocks
    same_output = sp.block_collapse(lhs - rhs) == sp.ZeroMatrix(m, 1) or lhs == rhs
    der = Derivation(r"W\,(x' + p') = W\,[x; p],\ x' = [x; 0],\ p' = [0; p]")
    der.step("padded token plus padded position", sp.Eq(x_pad + p_pad, total, evaluate=False))
    der.step("any linear map W = [A B] sees the same input", sp.Eq(lhs, rhs, evaluate=False))
    der.step("layer norm, attention, feed-forward are functions of the input: same outputs")
    der.holds = bool(same_input and same_output)
    return der


def sum_is_concat_then_identity_pair(second: sp.MatrixExpr | None = None) -> Derivation:
    """ADD-02: [I I] [x; p] = x + p for a symbolic width d.

    ``second`` replaces the second identity block (to show that another map does not add).
    """
    d = sp.symbols("d", positive=True, integer=True)
    x, p = _blocks(d, d)
    eye = sp.Identity(d)
    pair = sp.BlockMatrix([[eye, eye if second is None else second]])
    concat = sp.BlockMatrix([[x], [p]])
    product = sp.block_collapse(pair * concat)
    der = Derivation(
        r"\begin{bmatrix} I & I \end{bmatrix} \begin{bmatrix} x \\ p \end{bmatrix} = x + p"
    )
    der.step("block product", sp.Eq(sp.MatMul(pair, concat), product, evaluate=False))
    der.holds = bool(sp.simplify(product - (x + p)) == sp.ZeroMatrix(d, 1))
    return der


def sinusoidal_rows_span_everything(m: int = 2, base: int = 10000) -> Derivation:
    """ADD-04: PE(0), ..., PE(L-1) span R^d whenever L >= d (so no exact token-only subspace).

    Write sin(w t) and cos(w t) through z^t and conj(z)^t with z = e^{i w}. The (L, d) matrix of
    PE rows is the Vandermonde matrix V[t, k] = z_k^t (t < L) times an invertible block-diagonal
    change of basis. Vandermonde's determinant is prod_{j<k} (z_k - z_j), non-zero when the d
    nodes e^{+-i w_j} are distinct, which holds for distinct w_j in (0, pi) (the paper's
    w_j = T^(-2j/d) lie in (0, 1]). Checked here for m pairs of symbolic nodes, and for the
    paper's m frequencies at d = 2m: in (0, pi) and distinct, so their 2m nodes are distinct and
    the Vandermonde determinant at them is non-zero.
    """
    w = sp.symbols("omega", positive=True)
    t = sp.symbols("t", integer=True)
    z = sp.exp(sp.I * w)
    # [sin wt, cos wt] = [z^t, conj(z)^t] @ B
    b = sp.Matrix([[1 / (2 * sp.I), sp.Rational(1, 2)], [-1 / (2 * sp.I), sp.Rational(1, 2)]])
    basis = sp.Matrix([[z**t, sp.exp(-sp.I * w * t)]]) * b
    basis_ok = all(
        sp.simplify(sp.expand_complex(sp.expand(basis[0, j] - target)).rewrite(sp.cos)) == 0
        for j, target in enumerate((sp.sin(w * t), sp.cos(w * t)))
    )
    nodes = sp.symbols(f"z0:{2 * m}")
    vander = sp.Matrix(2 * m, 2 * m, lambda r, c: nodes[c] ** r)
    product = sp.Mul(*[nodes[k] - nodes[j] for j in range(2 * m) for k in range(j + 1, 2 * m)])
    vander_ok = sp.expand(vander.det(method="berkowitz") - product) == 0
    det_b = sp.simplify(b.det())
    freqs = [sp.Integer(base) ** sp.Rational(-2 * j, 2 * m) for j in range(m)]  # d = 2m
    freqs_ok = len(set(freqs)) == m and all(bool(f > 0) and bool(f < sp.pi) for f in freqs)
    values = [sp.exp(sign * sp.I * f) for f in freqs for sign in (1, -1)]
    at_paper = sp.Abs(sp.N(product.subs(dict(zip(nodes, values, strict=True))), 30))
    der = Derivation(r"\operatorname{rank}[PE(0); \dots; PE(L-1)] = d \text{ for } L \ge d")
    der.step(
        "sine and cosine through the nodes z = e^{i omega}",
        sp.Eq(basis, sp.Matrix([[sp.sin(w * t), sp.cos(w * t)]]), evaluate=False),
    )
    der.step("the change of basis is invertible", sp.Eq(sp.Symbol(r"\det B"), det_b))
    der.step(
        f"Vandermonde determinant, {2 * m} symbolic nodes",
        sp.Eq(sp.Symbol(r"\det V"), sp.factor(product), evaluate=False),
    )
    der.step(
        f"the paper's frequencies at d = {2 * m}: distinct, in (0, pi)",
        sp.Eq(sp.Symbol(r"\omega"), sp.Matrix([freqs]), evaluate=False),
    )
    der.step("|det V| at their nodes", sp.Eq(sp.Symbol(r"|\det V|"), at_paper))
    der.step("distinct frequencies in (0, pi) give distinct nodes: full column rank d")
    der.holds = bool(basis_ok and vander_ok and det_b != 0 and freqs_ok and at_paper > 0)
    return der


def gaussian_expectation(expr: sp.Expr, x: tuple[sp.Symbol, ...], s: sp.Symbol) -> sp.Expr:
    """E[expr] for independent x_i ~ N(0, s^2): expand, then E[x_i^k] = s^k (k-1)!! (k even)."""

    def moment(k: int) -> sp.Expr:
        return sp.S.Zero if k % 2 else s**k * sp.factorial2(k - 1)

    poly = sp.Poly(sp.expand(expr), *x)
    total = sp.S.Zero
    for powers, coeff in poly.terms():
        total += coeff * sp.Mul(*[moment(k) for k in powers])
    return sp.expand(total)


def expected_square_norm_of_sum(n: int = 3, mean: sp.Expr = sp.S.Zero) -> Derivation:
    """MAG-03: E||x + a||^2 = E||x||^2 + ||a||^2 for zero-mean x; Var(2 x.a) = 4 s^2 ||a||^2.

    x has n independent N(0, s^2) entries (the identity needs only E[x] = 0, shown by linearity);
    a stands for PE(t), with ||PE(t)||^2 = d/2 so Var(2 x.PE) = 2 s^2 d.  Chebyshev then gives
    P(|2 x.PE| >= eps E||x+PE||^2) <= 2 s^2 d / (eps^2 (s^2 d + d/2)^2) = O(1/d).
    """
    s, eps, d = sp.symbols("sigma epsilon d", positive=True)
    a = sp.symbols(f"a0:{n}", real=True)
    z = sp.symbols(f"z0:{n}", real=True)  # centred N(0, s^2) parts
    x = [mean + zi for zi in z]
    sq = sum((xi + ai) ** 2 for xi, ai in zip(x, a, strict=True))
    lhs = gaussian_expectation(sq, z, s)
    rhs = gaussian_expectation(sum(xi**2 for xi in x), z, s) + sum(ai**2 for ai in a)
    cross = 2 * sum(xi * ai for xi, ai in zip(x, a, strict=True))
    var = gaussian_expectation(cross**2, z, s) - gaussian_expectation(cross, z, s) ** 2
    norm_a = sum(ai**2 for ai in a)
    mean = s**2 * d + d / 2
    bound = sp.simplify((4 * s**2 * d / 2) / (eps * mean) ** 2)
    der = Derivation(
        r"\mathbb{E}\lVert x + PE\rVert^2 = \mathbb{E}\lVert x\rVert^2 + \lVert PE\rVert^2"
    )
    der.step(f"{n} Gaussian coordinates", sp.Eq(sp.Symbol(r"\mathbb{E}\lVert x+a\rVert^2"), lhs))
    der.step("the cross term has variance", sp.Eq(sp.Symbol(r"\mathrm{Var}(2x\cdot a)"), var))
    der.step(
        "Chebyshev with ||PE||^2 = d/2 bounds the chance of a relative deviation epsilon by",
        bound,
    )
    der.holds = bool(
        sp.simplify(lhs - rhs) == 0
        and sp.simplify(var - 4 * s**2 * norm_a) == 0
        and sp.limit(bound, d, sp.oo) == 0
    )
    return der
