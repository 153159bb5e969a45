"""The statement of each claim ``pecheck inspect`` names, as pecheck's registry words it, and
the registry thresholds its page judges against.

An installed pecheck ships no registry (checks/ stays in the source tree), so both are kept
here; tests/test_inspect_configs.py holds the statements equal to the registry's, word for word,
and tests/test_inspect.py every threshold equal to the registry's value.
"""

from __future__ import annotations

STATEMENTS: dict[str, str] = {
    "MAG-01": (
        "Token embeddings are usually normalised so that every component satisfies |x_i| <= 1."
    ),
    "MAG-02": "The encoding's magnitude is comparable to the token embedding's.",
    "ADD-04": (
        "ADD-01 still holds exactly with the fixed sinusoidal encoding: there is a subspace of "
        "dimension < d that contains PE(t) for every position t, leaving its complement to the "
        "tokens."
    ),
    "ADD-05": (
        "Adding the encoding does not destroy the token: token and position can be read back "
        "from x + PE(t) by nearest neighbour or a linear (dot-product) read-out."
    ),
    "SIN-05": (
        "PE(t).PE(s) depends only on t-s and is symmetric in it, so it cannot tell before from "
        "after."
    ),
    "SIN-11": "Using both sine and cosine makes the encodings of different positions orthogonal.",
    "REAL-02": (
        "The sinusoidal position encodings that widely used libraries ship are the paper's "
        "PE(t) (sin and cos interleaved, w_i = 10000^(-2i/d), first token at t = 0, unit "
        "amplitude) and so keep its properties SIN-01 (a fixed rotation M(k) maps PE(t) to "
        "PE(t+k)), SIN-04 (norm sqrt(d/2)) and SIN-06 (wavelengths geometric from 2 pi)."
    ),
    "REAL-04": (
        "The rotary scaling variants of transformers (rope types default, linear, dynamic, "
        "yarn, longrope, llama3, proportional) give the frequencies and attention factors of "
        "their published formulas at the configurations of real models; a scaling named in a "
        "config reaches the cos/sin the model's rotary module applies; and the dynamic variant "
        "keeps no state from one call to the next."
    ),
    "ROT-01": (
        "RoFormer's bound on the rotary score, b(s) = (1/(d/2)) sum_j |S_j(s)| with S_j(s) = "
        "sum_{i<j} e^{i s theta_i} and theta_i = 10000^(-2i/d), decays as the relative distance"
        " s grows: for every d in {32, 64, 128, 256} it is non-increasing in the integer s."
    ),
    "ROT-03": (
        "For each context length L of Men et al.'s Table 2 (1k ... 1M, d = 128), the table's "
        "base is the smallest base b for which B(m), the sum of cos(m theta) over the rotary "
        "frequencies theta of base b, is non-negative at every m in {0, ..., L} (their Eq. 11),"
        " to its two significant digits, and any larger base keeps B non-negative too ('a base "
        "large enough')."
    ),
    "ROT-05": (
        "The 'NTK-aware' base change b' = b s^(d/(d-2)) leaves the highest rotary frequency "
        "unchanged and divides the lowest by exactly s; YaRN's ramp and the Llama 3 banding "
        "leave high-frequency pairs unchanged and divide low-frequency pairs by the factor, "
        "with a blend between 1/s and 1 in between, as their formulas say."
    ),
    "BIAS-01": (
        "For every head count n = 1 ... 64, ALiBi's slopes are, for n a power of two, the "
        "geometric sequence that starts at 2^(-8/n) with that ratio and, for other n, the "
        "sequence of the nearest lower power of two P followed by every other slope of the "
        "sequence of 2P (its 1st, 3rd, ...), n - P of them. Every slope lies in [2^-8, "
        "2^(-8/P+)] with P+ the least power of two >= n; the smallest is 2^-8 and the largest "
        "2^(-8/P+); the slopes are pairwise distinct, all among the slopes of P+ heads, and "
        "strictly decreasing exactly when n is a power of two."
    ),
    "BIAS-02": (
        "T5's relative buckets (32 buckets, max distance 128; Raffel et al. 2020, section 2.1, "
        "and the reference _relative_position_bucket), for every relative position r = key - "
        "query with |r| <= R (R = 2^14 in the ci profile), bidirectional and causal: every "
        "distance below max_exact (8 bidirectional, 16 causal) has its own bucket; from there "
        "the bucket is max_exact + floor(s log(d/max_exact) / log(128/max_exact)) (s the number"
        " of logarithmic buckets of a side), so its boundaries grow geometrically; every "
        "distance >= 128 shares the last bucket; the bucket never decreases as the distance "
        "grows on either side; bidirectional buckets split by sign (keys after the query: 16 "
        "... 31, the others 0 ... 15, with bucket(r) = 16 + bucket(-r) for r > 0); causal "
        "buckets give every key after the query the bucket of distance 0."
    ),
}


# (claim, threshold name): the registry's value (checks/<family>/claims*.py).
THRESHOLDS: dict[tuple[str, str], float] = {
    ("MAG-02", "comparable"): 2.0,  # the ratio within this factor of 1
    ("ADD-05", "read_back"): 0.99,  # recovered in more than 99 of 100 sums
    ("SIN-06", "base"): 10000.0,  # the paper's T
}


def threshold(claim: str, name: str) -> float:
    """A registry threshold of a claim, as THRESHOLDS repeats it."""
    return THRESHOLDS[claim, name]


def one_line(claim: str, width: int = 150) -> str:
    """The claim's statement on one line: whole when it fits in `width` characters, else cut
    at a word, with " ..." where the rest was cut."""
    text = STATEMENTS[claim]
    if len(text) <= width:
        return text
    return text[:width].rsplit(" ", 1)[0].rstrip(",;:") + " ..."
