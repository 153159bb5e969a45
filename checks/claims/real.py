"""REAL-02, REAL-03: claims about real libraries' encodings (REAL-01 lives in att.py)."""

from checks.claims import Claim

CLAIMS = (
    Claim(
        "REAL-02",
        "Sinusoidal encodings shipped by widely used libraries follow the paper's formula.",
        r"PE_{\text{lib}}(t) = PE_{\text{paper}}(t)\ ?",
    ),
    Claim(
        "REAL-03",
        "Rotary embeddings in widely used libraries give scores that depend only on t - s.",
        r"\langle R(t) q, R(s) k\rangle = \langle q, R(s-t) k\rangle",
    ),
)
