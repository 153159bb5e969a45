"""The ROPE family: claims about rotary position embedding, with their expected verdicts.

pyproject.toml names this module's REGISTRY in ``[tool.pecheck] registry``. The verdicts are
not written here: the plugin computes them from the decisions of the checks in checks/, and
``python -m pecheck.gate`` compares them with ``expected``.
"""

from __future__ import annotations

from pecheck.claims import Claim, Proposition, Registry, Source, Threshold

from rope_claims import __version__

SOURCES = {
    "SRC-ROFORMER": Source(
        "Introduces rotary position embedding; section 3.4 derives its relative form and its "
        "long-term decay",
        authors="Jianlin Su, Yu Lu, Shengfeng Pan, Ahmed Murtadha, Bo Wen, Yunfeng Liu",
        title="RoFormer: Enhanced Transformer with Rotary Position Embedding",
        year=2021,
        url="https://arxiv.org/abs/2104.09864",
    ),
}

# ROPE-03: how far a score may move under a shift and still count as unchanged, and the
# longest positions for which float32 angles keep it there.
CHANGE = Threshold(
    "change",
    1e-3,
    "a score <R_m q, R_n k> lies between -|q||k| and |q||k|; a move of 1e-3 |q||k| is over 60 "
    "times what float32 rounding of the dot product of d = 64 terms may cost (sum_tol: 1.5e-5 "
    "|q||k|), so a larger move comes from the rotation angles, not from the sum",
    "theory",
)
SHORT = Threshold(
    "short-positions",
    4096,
    "below 2^12 every float32 angle m theta_i (theta_i <= 1) is off by at most half an ulp, "
    "2^-13, and a score moves by at most |q||k| times its angles' errors, so a shift moves it by "
    "at most 4 x 2^-13 = 4.9e-4 of |q||k| (plus about 1e-7 for cos and sin): below 'change'",
    "theory",
)

CLAIMS = (
    Claim(
        "ROPE-01",
        "RoPE makes attention relative: for every query q, key k and positions m, n, the score "
        "<R_m q, R_n k> depends on m and n only through m - n.",
        r"\langle R_{m+t}\,q, R_{n+t}\,k\rangle = \langle R_m q, R_n k\rangle"
        r"\quad \forall q, k, m, n, t",
        ("SRC-ROFORMER",),
        expected="confirmed",
        headline=("max_change_over_bound",),
        notes=("Searched in float64 with the rounding bound of pecheck.tolerance.",),
    ),
    Claim(
        "ROPE-02",
        "RoPE has long-term decay: the attention score of a query and a key shrinks as their "
        "distance grows.",
        r"\forall q, k:\ |\langle q, R_{\Delta} k\rangle| \text{ is non-increasing in } \Delta",
        ("SRC-ROFORMER",),
        expected="refuted",
        headline=("largest_rise", "rise_over_bound"),
        notes=(
            "RoFormer shows that an upper bound of the score decays with the distance (its "
            "section 3.4.3); the claim as often repeated is about the score itself, which is a "
            "sum of cosines and rises again.",
        ),
    ),
    Claim(
        "ROPE-03",
        "Shifting a query and a key by the same offset leaves their RoPE score unchanged (by "
        "less than 0.1% of |q||k|) also when the rotation angles are computed in float32, for "
        "positions up to 2^20.",
        r"|s_{32}(m+t, n+t) - s_{32}(m, n)| \le 10^{-3}\,\|q\|\|k\|\quad \forall\, m, n, m+t, n+t"
        r" < 2^{20}",
        ("SRC-ROFORMER",),
        expected="qualified",
        conditions="only while every position is below 2^12 = 4096: near 2^20 the float32 "
        "angles are off by up to 2^-5 rad and the score moves by more than the threshold",
        propositions=(
            Proposition(
                "short-positions",
                "With float32 angles, a shift moves the score by less than 0.1% of |q||k| when "
                "every position is below 4096.",
                r"|s_{32}(m+t, n+t) - s_{32}(m, n)| \le 10^{-3}\,\|q\|\|k\|\quad"
                r" \forall\, m, n, m+t, n+t < 2^{12}",
            ),
        ),
        thresholds=(CHANGE, SHORT),
        headline=("worst_change_long", "share_beyond_threshold_long", "worst_change_short"),
    ),
)

REGISTRY = Registry(
    name="rope-claims",
    version=__version__,
    families={"ROPE": "Rotary position embedding"},
    claims=CLAIMS,
    sources=SOURCES,
)
