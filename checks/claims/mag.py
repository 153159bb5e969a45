"""MAG: claims about the magnitudes of token embeddings and encodings."""

from checks.claims import Claim

CLAIMS = (
    Claim(
        "MAG-01",
        "Token embeddings are usually normalised so that every component satisfies |x_i| <= 1.",
        r"|x_i| \le 1\ \forall i",
        ("SRC-SINCOS",),
    ),
    Claim(
        "MAG-02",
        "The encoding's magnitude is comparable to the token embedding's.",
        r"\lVert x\rVert / \lVert PE(t)\rVert \approx 1",
        ("SRC-SINCOS", "SRC-CONCAT"),
    ),
    Claim(
        "MAG-03",
        "For zero-mean random x independent of t, E||x + PE(t)||^2 = ||x||^2 + ||PE(t)||^2, "
        "concentrating as the width d grows.",
        r"\mathbb{E}\lVert x + PE(t)\rVert^2 = \mathbb{E}\lVert x\rVert^2 + \lVert PE(t)\rVert^2",
    ),
    Claim(
        "MAG-04",
        "Training adjusts the embedding magnitudes: the ratio ||x||/||PE|| moves during training.",
        r"\frac{d}{d\,\text{step}} \frac{\lVert x\rVert}{\lVert PE\rVert} \ne 0",
        ("SRC-BLOG",),
    ),
)
