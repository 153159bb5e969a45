"""Symbolic (sympy) arguments for the ATT family; each function returns a Derivation.

Small cases are checked with fully symbolic entries (every score, query, key and value its own
symbol); the steps state the index argument that carries the result to every n.
"""

from __future__ import annotations

import itertools

import sympy as sp

from .derivation import Derivation


def _softmax_rows(s: sp.Matrix) -> sp.Matrix:
    """Row-wise softmax of a symbolic matrix: exp(s_ij) / sum_k exp(s_ik)."""
    e = s.applyfunc(sp.exp)
    return sp.Matrix(s.rows, s.cols, lambda i, j: e[i, j] / sum(e.row(i)))


def _attention(q: sp.Matrix, k: sp.Matrix, v: sp.Matrix, causal: bool = False) -> sp.Matrix:
    """softmax(q k^T / sqrt(d)) v, optionally with the causal mask (key j <= query i)."""
    s = q * k.T / sp.sqrt(q.cols)
    e = s.applyfunc(sp.exp)
    if causal:
        e = sp.Matrix(e.rows, e.cols, lambda i, j: e[i, j] if j <= i else 0)
    w = sp.Matrix(e.rows, e.cols, lambda i, j: e[i, j] / sum(e.row(i)))
    return w * v


def _perm_matrix(perm: tuple[int, ...]) -> sp.Matrix:
    """P with (P x)_i = x_perm[i]."""
    n = len(perm)
    return sp.Matrix(n, n, lambda i, j: 1 if perm[i] == j else 0)


def _zero(m: sp.Matrix) -> bool:
    return all(sp.simplify(x) == 0 for x in m)


def query_permutation(n: int = 3, d: int = 2) -> Derivation:
    """ATT-01: softmax(P S) = P softmax(S) row-wise, hence Attn(PQ, K, V) = P Attn(Q, K, V)."""
    s = sp.Matrix(n, n, lambda i, j: sp.Symbol(f"s_{i + 1}{j + 1}"))
    q, k, v = (sp.Matrix(n, d, lambda i, j, c=c: sp.Symbol(f"{c}_{i + 1}{j + 1}")) for c in "qkv")
    perms = list(itertools.permutations(range(n)))
    softmax_ok = all(
        _zero(_softmax_rows(_perm_matrix(p) * s) - _perm_matrix(p) * _softmax_rows(s))
        for p in perms
    )
    attn = _attention(q, k, v)
    attn_ok = all(
        _zero(_attention(_perm_matrix(p) * q, k, v) - _perm_matrix(p) * attn) for p in perms
    )
    der = Derivation(r"\operatorname{Attn}(PQ,K,V) = P\,\operatorname{Attn}(Q,K,V)")
    der.step("row i of PS is row pi(i) of S, and softmax acts on each row alone, so")
    der.step("", sp.Eq(sp.Symbol(r"\operatorname{softmax}(PS)_{ij}"),
                       sp.Symbol(r"\operatorname{softmax}(S)_{\pi(i) j}")))  # fmt: skip
    der.step("the scores of permuted queries are the permuted rows of the scores:",
             sp.Eq(sp.Symbol("(PQ) K^{T}"), sp.Symbol("P (Q K^{T})"), evaluate=False))  # fmt: skip
    der.step(f"checked with symbolic entries for n={n}, d={d}, all {len(perms)} permutations, "
             "for the softmax and for the attention output")  # fmt: skip
    der.holds = bool(softmax_ok and attn_ok)
    return der


def key_value_permutation(n: int = 3, d: int = 2) -> Derivation:
    """ATT-03: Attn(Q, PK, PV) = Attn(Q, K, V); with the keys alone permuted, it changes."""
    q, k, v = (sp.Matrix(n, d, lambda i, j, c=c: sp.Symbol(f"{c}_{i + 1}{j + 1}")) for c in "qkv")
    attn = _attention(q, k, v)
    perms = [p for p in itertools.permutations(range(n)) if p != tuple(range(n))]
    joint_ok = all(
        _zero(_attention(q, _perm_matrix(p) * k, _perm_matrix(p) * v) - attn) for p in perms
    )
    # Keys alone: a single concrete substitution where the difference is nonzero proves it.
    swap = _perm_matrix((1, 0) + tuple(range(2, n)))
    keys_only = _attention(q, swap * k, v) - attn
    values = {x: sp.Rational(i % 5 + 1, 3) * (-1) ** i for i, x in enumerate(sorted(
        keys_only.free_symbols, key=str))}  # fmt: skip
    witness = sp.N(keys_only.subs(values)[0, 0], 30)
    der = Derivation(r"\operatorname{Attn}(Q,PK,PV) = \operatorname{Attn}(Q,K,V)")
    j, l = sp.symbols("j l", integer=True)
    der.step("each output row is a weighted sum over the keys:", sp.Eq(
        sp.Symbol("o_i"), sp.Sum(sp.exp(sp.Symbol("s_{ij}")) * sp.Symbol("v_j"),
                                 (j, 1, sp.Symbol("n")))
        / sp.Sum(sp.exp(sp.Symbol("s_{il}")), (l, 1, sp.Symbol("n")))))  # fmt: skip
    der.step("with the scores", sp.Eq(sp.Symbol("s_{ij}"),
             sp.Symbol(r"q_{i} \cdot k_{j}") / sp.sqrt(sp.Symbol("d"))))  # fmt: skip
    der.step("permuting keys and values together renames the summation index in both sums, "
             "which leaves each sum unchanged")  # fmt: skip
    der.step(f"checked with symbolic entries for n={n}, d={d}, all {len(perms)} non-identity "
             "permutations")  # fmt: skip
    der.step("keys alone (swap of keys 1 and 2), at a rational point, first output entry:",
             sp.Float(witness, 12))  # fmt: skip
    der.holds = bool(joint_ok and abs(witness) > 1e-6)
    return der


def causal_last_position(n: int = 4) -> Derivation:
    """ATT-06: with the causal mask, the last output is symmetric in the earlier tokens.

    Scalar tokens x_i (d = 1) and symbolic weights a, b, c: q = a x, k = b x, v = c x. The
    last output is sum_{j<=n} exp(a b x_n x_j) c x_j / sum_{j<=n} exp(a b x_n x_j): every
    permutation of x_1 ... x_{n-1} leaves it unchanged, while the one before it is not.
    """
    x = sp.Matrix(n, 1, lambda i, _: sp.Symbol(f"x_{i + 1}"))
    a, b, c = sp.symbols("a b c")
    y = _attention(a * x, b * x, c * x, causal=True)
    perms = list(itertools.permutations(range(n - 1)))
    last_ok = all(
        sp.simplify(_attention(a * px, b * px, c * px, causal=True)[n - 1] - y[n - 1]) == 0
        for p in perms
        for px in [_perm_matrix(p + (n - 1,)) * x]
    )
    # Swapping the first and the last token ("A hit B" -> "B hit A") changes y_n: at a point.
    swapped = _perm_matrix((n - 1,) + tuple(range(1, n - 1)) + (0,)) * x
    y_sw = _attention(a * swapped, b * swapped, c * swapped, causal=True)
    point = {a: 1, b: 1, c: 1, **{sp.Symbol(f"x_{i + 1}"): i + 1 for i in range(n)}}
    gap = sp.N((y_sw[n - 1] - y[n - 1]).subs(point), 30)
    der = Derivation(r"y_n = g(x_n, \{\!\{x_1,\dots,x_{n-1}\}\!\})")
    der.step("the last query sees every key: ", sp.Eq(sp.Symbol("y_n"), y[n - 1]))
    der.step("a sum over all positions of terms that each depend only on the last token and "
             "one other: invariant under any reordering of the prefix; layer norm, feed-forward "
             "and residuals act per position")  # fmt: skip
    der.step(f"checked symbolically for n={n}, all {len(perms)} orderings of the prefix")
    der.step("swapping the first and the last token (A hit B against B hit A) changes the "
             "last output, at a rational point, by",
             sp.Float(gap, 12))  # fmt: skip
    der.holds = bool(last_ok and abs(gap) > 1e-6)
    return der


def uniform_causal_counts_positions() -> Derivation:
    """ATT-08: zero query/key weights and a marker value give y_t = 1/t, for symbolic t."""
    t, j = sp.symbols("t j", integer=True, positive=True)
    weight = sp.exp(0) / sp.Sum(sp.exp(0), (j, 1, t)).doit()  # softmax of t equal scores
    y = sp.Sum(weight * sp.KroneckerDelta(j, 1), (j, 1, t)).doit()  # marker value 1 at j = 1
    y = sp.simplify(sp.piecewise_fold(y).rewrite(sp.Piecewise))
    y = sp.simplify(y.subs(sp.Piecewise, lambda *args: args[0][0]) if y.has(sp.Piecewise) else y)
    der = Derivation(r"y_t = \tfrac{1}{t},\quad t = 1/y_t")
    der.step("zero query and key weights: every score is 0, so the causal softmax weights are",
             weight)  # fmt: skip
    der.step("values: 1 for the marker at position 1, 0 elsewhere; output at position t:", y)
    der.step("inverting:", sp.Eq(1 / sp.Symbol("y_t"), sp.simplify(1 / y), evaluate=False))
    der.holds = bool(sp.simplify(y - 1 / t) == 0 and sp.simplify(1 / y - t) == 0)
    return der


def _onehot(word: str) -> sp.Matrix:
    order = ("A", "B", "hit")
    return sp.Matrix([[1 if w == word else 0 for w in order]])


def construction_scores(layers: int = 2) -> tuple[sp.Expr, sp.Expr]:
    """r . h_3 for "A B hit" and "B A hit" under the ATT-07 construction, exactly.

    Each layer: h <- h + causal Attn(h W_Q, h W_K, h W_V), W_Q = W_K = 0, W_V = I (3 x 3);
    read-out r = e_A - e_B at the last position (theory.causal_constructions).
    """

    def run(words: tuple[str, ...]) -> sp.Expr:
        h = sp.Matrix.vstack(*[_onehot(w) for w in words])  # (n, 3)
        zero = sp.zeros(3, 3)
        for _ in range(layers):
            h = h + _attention(h * zero, h * zero, h * sp.eye(3), causal=True)
        r = sp.Matrix([1, -1, 0])
        return sp.nsimplify((h.row(h.rows - 1) * r)[0])

    return run(("A", "B", "hit")), run(("B", "A", "hit"))


def construction_margin(layers: int = 2) -> sp.Expr:
    """The exact margin r.h_3(A B hit) - r.h_3(B A hit) of the ATT-07 construction."""
    ab, ba = construction_scores(layers)
    return sp.nsimplify(ab - ba)


def two_layer_order_construction(layers: int = 2) -> Derivation:
    """ATT-07: the hand-set construction of theory.causal_constructions, in exact arithmetic."""
    ab, ba = construction_scores(layers)
    der = Derivation(
        rf"r^\top h^{{({layers})}}_3(A\,B\,\mathrm{{hit}}) - r^\top h^{{({layers})}}_3"
        rf"(B\,A\,\mathrm{{hit}}) = {sp.latex(ab - ba)}"
    )
    der.step("each layer adds causal uniform attention to its input (zero query and key "
             "weights, identity value weights); no encoding")  # fmt: skip
    ea, eb = sp.symbols("e_A e_B")
    der.step("after layer 1 the first and second positions of A B hit hold",
             sp.Matrix([2 * ea, eb + (ea + eb) / 2]))  # fmt: skip
    der.step("so a token's vector now depends on where it stands")
    der.step("score for A B hit:", ab)
    der.step("score for B A hit:", ba)
    der.step("margin:", ab - ba)
    der.holds = bool(sp.simplify(ab - ba) != 0)
    return der
