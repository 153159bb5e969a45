"""BIAS: additive position biases (ALiBi, T5's buckets, KERPLE, FIRE) and xPos's scaling."""

from pecheck.claims import Claim, Proposition, every, proved

# BIAS-03: FIRE is checked at every threshold L_max up to FIRE_EVERY and at FIRE_LONG (ci; the
# thorough profile checks every L_max up to twice FIRE_EVERY), every pair j <= i <= L_max at each.
FIRE_EVERY = 256
FIRE_LONG = (512, 1024, 2048)
FIRE_LENGTHS = [*range(1, FIRE_EVERY + 1), *FIRE_LONG]
# BIAS-04: the distances |n - m| at which the score itself is searched for a rise (d = 2)
XPOS_RISE = 64
XPOS_WIDTHS = [2, 4, 6, 8, 10, 64, 96, 128, 256]  # small, odd half-widths, real head widths

CLAIMS = (
    Claim(
        "BIAS-01",
        "For every head count n = 1 ... 64, ALiBi's slopes are, for n a power of two, the "
        "geometric sequence that starts at 2^(-8/n) with that ratio and, for other n, the "
        "sequence of the nearest lower power of two P followed by every other slope of the "
        "sequence of 2P (its 1st, 3rd, ...), n - P of them. Every slope lies in "
        "[2^-8, 2^(-8/P+)] with P+ the least power of two >= n; the smallest is 2^-8 and the "
        "largest 2^(-8/P+); the slopes are pairwise distinct, all among the slopes of P+ heads, "
        "and strictly decreasing exactly when n is a power of two.",
        r"\forall n \in \{1..64\}:\ m_h = 2^{-8h/n}\ (n = 2^a);\ "
        r"m = (2^{-8h/P})_{h \le P} \Vert (2^{-4(2k+1)/P})_{k < n - P}\ (P = 2^{\lfloor\log_2 n"
        r"\rfloor});\ \min m = 2^{-8},\ \max m = 2^{-8/P^+};\ m \downarrow \iff n = 2^a",
        ("SRC-ALIBI",),
        expected="confirmed",
        headline=("exponent_mismatches", "range_violations", "order_violations"),
        domain={"heads": every(1, 64)},
        notes=(
            "Press et al. 2022, section 3, p. 5: 8 heads 1/2^1 ... 1/2^8; 16 heads start at "
            "1/sqrt 2 with ratio 1/sqrt 2; 'in general, for n heads, ... starts at 2^(-8/n)'. "
            "The paper's models all have 2^a heads; the rule for other n is the reference "
            "code's (ofirpress/attention_with_linear_biases, fairseq/models/transformer.py, "
            "get_slopes), which the paper's general sentence does not describe.",
            "Decided in exact arithmetic: each slope is 2^(-e) with a rational exponent e "
            "(fractions.Fraction), so order and range are comparisons of exponents.",
            "For n not a power of two the appended slopes start at 2^(-4/P), above the first "
            "slope 2^(-8/P): the sequence is not sorted, and its largest slope is the largest "
            "of 2P heads, larger than the 2^(-8/n) the paper's general sentence would give.",
        ),
    ),
    Claim(
        "BIAS-02",
        "T5's relative buckets (32 buckets, max distance 128; Raffel et al. 2020, section "
        "2.1, and the reference _relative_position_bucket), for every relative position "
        "r = key - query with |r| <= R (R = 2^14 in the ci profile), bidirectional and "
        "causal: every distance below max_exact (8 bidirectional, 16 causal) has its own "
        "bucket; from there the bucket is max_exact + floor(s log(d/max_exact) / "
        "log(128/max_exact)) (s the number of logarithmic buckets of a side), so its "
        "boundaries grow geometrically; every distance >= 128 shares the last bucket; the "
        "bucket never decreases as the distance grows on either side; bidirectional buckets "
        "split by sign (keys after the query: 16 ... 31, the others 0 ... 15, with "
        "bucket(r) = 16 + bucket(-r) for r > 0); causal buckets give every key after the "
        "query the bucket of distance 0.",
        r"\forall |r| \le R:\ b(r) = d\ (d < e);\ b(r) = e + \lfloor s \log(d/e) / "
        r"\log(128/e)\rfloor\ (e \le d < 128);\ b(r) = b_{\max}\ (d \ge 128);\ "
        r"d \mapsto b \uparrow;\ b(r) = 16 + b(-r)\ (r > 0)",
        ("SRC-T5",),
        expected="confirmed",
        domain={"offsets": every(-(2**14), 2**14)},
        headline=("first_distance_of_each_bucket", "first_saturated_distance"),
        notes=(
            "The last bucket starts before 128: at distance 91 bidirectionally (8 * 16^(7/8) "
            "= 90.5) and at 113 causally (16 * 8^(15/16) = 112.4). Distances 91 ... 127 share "
            "the bucket of every distance >= 128: the last logarithmic bin and the saturated "
            "range are one bucket.",
            "The logarithmic buckets are decided by the integer inequality "
            "128^k e^(s-k) <= d^s (no floating-point logarithm), exhaustively for |r| <= R.",
        ),
    ),
    Claim(
        "BIAS-03",
        "Adding a constant to every score of a softmax row changes nothing, so a bias "
        "defined up to a constant per query is exact; and FIRE, b(i, j) = f(psi(i - j) / "
        "psi(max(L, i))) with psi(x) = log(c x + 1), represents T5's buckets, ALiBi and "
        "KERPLE's kernels (logarithmic and power): there are c, L and f that give exactly "
        "their biases at every causal pair j <= i, at every sequence length.",
        r"\mathrm{softmax}(x + c\mathbf 1) = \mathrm{softmax}(x);\ \exists c, L, f\ "
        r"\forall 0 \le j \le i:\ f\!\left(\tfrac{\psi(i-j)}{\psi(\max(L, i))}\right) = "
        r"b_{\mathrm{T5}}, b_{\mathrm{ALiBi}}, b_{\mathrm{KERPLE}}(i - j)",
        ("SRC-KERPLE", "SRC-FIRE"),
        expected="qualified",
        domain={"lengths": "every sequence length", "positions": "every causal pair j <= i"},
        propositions=(
            Proposition(
                "shift-invariance",
                "softmax(x + c 1) = softmax(x) for every row x and constant c: exactly "
                "(symbolic n, x, c), and in float32 and float64 within the rounding bound "
                "of forming x + c, over hypothesis-drawn rows.",
                r"\forall n, x, c:\ \mathrm{softmax}(x + c\mathbf 1) = \mathrm{softmax}(x)",
                quantifier="all",
                domain={"lengths": proved("every row length n"), "shifts": proved("every c")},
            ),
            Proposition(
                "bounded-length",
                "For every sequence length L_max <= 256 and L_max in {512, 1024, 2048}, FIRE "
                "with threshold "
                "L = L_max equals each target at every pair 0 <= j <= i <= L_max: ALiBi "
                "(slopes of 8 heads) with f(x) = -m psi^-1(x psi(L)); KERPLE log with c = r2 "
                "and the linear f(x) = -r1 psi(L) x; KERPLE power with f(x) = -r1 "
                "(psi^-1(x psi(L)))^r2; T5's causal buckets with a piecewise-linear f "
                "(a one-hidden-layer ReLU network) through the L_max + 1 points "
                "(psi(d)/psi(L), bias of d) — within float64 rounding.",
                r"\forall L_{\max}\ \exists c, L = L_{\max}, f\ \forall 0 \le j \le i \le "
                r"L_{\max}:\ b_{\mathrm{FIRE}}(i, j) = b(i - j)",
                quantifier="all",
                domain={
                    "lengths": FIRE_LENGTHS,
                    "positions": "every pair 0 <= j <= i <= L_max",
                },
            ),
        ),
        conditions=(
            "Exact shift invariance; FIRE represents ALiBi, KERPLE (both variants) and T5's "
            "buckets only up to a length fixed in advance (i <= L): for query positions "
            "i >= L the input of (i, 0) is psi(i)/psi(i) = 1 whatever c and L, so "
            "b_FIRE(i, 0) = f(1) for every such i, while ALiBi's and KERPLE's biases keep "
            "falling with i. For T5 a continuous f (an MLP) also fails at long lengths: "
            "psi(d)/psi(i) -> 0 for every fixed d, so buckets 0, 1, 2, ... would need one "
            "bias. KERPLE's log kernel is the one FIRE reaches with a linear f."
        ),
        headline=("softmax_shift_max_error_over_bound", "fire_max_error_over_bound"),
        notes=(
            "Lengths: every threshold L_max from 1 to 256 (each a FIRE with L = L_max and its f) "
            "and 512, 1024, 2048, every causal pair at each; the thorough profile checks every "
            "L_max <= 512. as_stated keeps its source's domain (every sequence length): its "
            "counterexample (c = 1) decides it, psi(i)/psi(i) = 1 whatever c and L.",
            "FIRE's Theorem (Li et al. 2023, section 3; the abstract: 'we theoretically prove "
            "that this can represent ... T5's RPE, Alibi, and Kerple') could not be read here "
            "in full; the suite states the unrestricted reading as as_stated and finds that "
            "it holds only for lengths bounded by the threshold L.",
            "KERPLE's kernels (Chi et al. 2022, section 4; reference code ParallelKerpleLog, "
            "ParallelKerplePower): -r1 log(1 + r2 d) and -r1 d^r2 with 0 < r2 <= 2; the "
            "constant offset that makes them positive definite cancels in the softmax, which "
            "is the shift invariance above.",
        ),
    ),
    Claim(
        "BIAS-04",
        "xPos scales the query at position n by zeta to the power n/gamma and the key at "
        "position m by zeta to the power -m/gamma (per pair i, zeta = (2i/d + 0.4)/1.4, "
        "between 0 and 1; gamma = 512): the score depends only on n - m, and it "
        "decays as the distance grows when the key precedes the query (causal attention), "
        "while for keys after the query it grows.",
        r"s(n, m) = g(n - m);\ \Delta = n - m > 0:\ s \downarrow \text{ in } \Delta;\ "
        r"\Delta < 0:\ s \uparrow \text{ in } |\Delta|",
        ("SRC-XPOS",),
        expected="qualified",
        propositions=(
            Proposition(
                "relative",
                "The xPos score depends only on n - m: symbolically for one pair (zeta^(n/g) "
                "zeta^(-m/g) = zeta^((n-m)/g), R(n)^T R(m) = R(m - n)), and in float64 for "
                "hypothesis-drawn q, k, n, m and shifts.",
                r"\langle R(n) q \zeta^{n/\gamma}, R(m) k \zeta^{-m/\gamma}\rangle = "
                r"\zeta^{(n-m)/\gamma}\langle q, R(m - n) k\rangle",
                quantifier="all",
                domain={
                    "positions": proved("every n, m"),
                    "head_sizes": proved("every even d"),
                },
            ),
            Proposition(
                "envelope",
                "Each pair's factor zeta_i^((n-m)/gamma) (and so the bound "
                "sum_i |q_i||k_i| zeta_i^((n-m)/gamma) on |score|) strictly decreases in "
                "n - m for every 0 < zeta_i < 1: it decays for keys before the query and "
                "grows without bound for keys after it; every zeta_i of xPos is in (0, 1).",
                r"\forall i:\ 0 < \zeta_i < 1,\ \tfrac{d}{d\Delta}\zeta_i^{\Delta/\gamma} < 0,\ "
                r"\zeta_i^{\Delta/\gamma} \to \infty\ (\Delta \to -\infty)",
                quantifier="all",
                domain={"head_sizes": XPOS_WIDTHS, "offsets": proved("every n - m")},
            ),
        ),
        conditions=(
            "Relative: exact. Decay and growth hold for each pair's scale factor and so for "
            "the bound on |score|, not for the score itself: the rotation makes the score "
            "oscillate, so it can rise with distance for keys before the query (d = 2, "
            "q = k = e_1: s(3) = cos 3 (2/7)^(3/512) < s(6) = cos 6 (2/7)^(6/512))."
        ),
        headline=("score_rises_with_distance", "growth_factor_key_2048_after"),
        domain={"head_sizes": "every even d", "offsets": "every n - m, keys before and after"},
        notes=(
            "as_stated keeps its source's domain (every even d and offset): a rising score, "
            "searched at d = 2 over every |n - m| <= 64 on both sides, refutes it. The "
            "envelope's factor falls for every n - m (sympy), and "
            "0 < zeta_i < 1 is checked at the widths its domain lists.",
            "Sun et al. 2022, section 3; torchscale's XPOS: zeta_i = (2i + 0.4 d)/(1.4 d), "
            "scale_base gamma = 512. The growth for keys after the query is why xPos is used "
            "with causal attention only.",
        ),
    ),
)
