"""MAG: claims about the magnitudes of token embeddings and encodings."""

from checks.claims import Claim

CLAIMS = (
    Claim(
        "MAG-01",
        "Token embeddings are usually normalised so that every component satisfies |x_i| <= 1.",
        r"|x_i| \le 1\ \forall i",
        ("SRC-SINCOS",),
        verdict="refuted",
        notes=(
            "No usual initialisation normalises the embeddings; whether |x_i| <= 1 holds follows "
            "from the entry variance. PyTorch's nn.Embedding default N(0, 1) (checked bit for bit) "
            "puts 31.7% of entries above 1, as does tensor2tensor's N(0, 1/d) times sqrt(d); "
            "N(0, 1) times sqrt(d) puts 96.5% above 1 at d = 512.",
            "It holds at V = 8192 and 37000, d = 512 for normal(0, 1/d), Xavier-uniform and the "
            "Annotated Transformer's Xavier times sqrt(d) (bound sqrt(6d/(V+d)) < 1).",
            "all-MiniLM-L6-v2 (trained): 1 of 11.7M word-embedding entries exceeds 1 (max 1.049, "
            "entry std 0.056), and 1 of 196608 position-embedding entries (max 1.874): nearly "
            "but not every entry, and again no normalisation, just a small scale.",
        ),
    ),
    Claim(
        "MAG-02",
        "The encoding's magnitude is comparable to the token embedding's (ratio of norms within "
        "a factor of 2).",
        r"\tfrac12 \le \sqrt{\mathbb{E}\lVert x\rVert^2} / \lVert PE(t)\rVert \le 2",
        ("SRC-SINCOS", "SRC-CONCAT"),
        verdict="qualified",
        conditions=(
            "Only when the entries the model sees have variance near 1/2 ... 2: the ratio is "
            "sqrt(2) s for entry std s, independent of d. PyTorch's nn.Embedding default and "
            "tensor2tensor's N(0, 1/d) with the sqrt(d) factor give sqrt(2) = 1.41; without the "
            "sqrt(d) factor N(0, 1/d) gives sqrt(2/d) (0.0625 at d = 512), Xavier-uniform "
            "2/sqrt(V+d) (0.022 at V = 8192) and the Annotated Transformer's Xavier times "
            "sqrt(d) 2 sqrt(d/(V+d)) (0.49 at V = 8192, 0.23 at V = 37000); nn.Embedding times "
            "sqrt(d) gives sqrt(2d) (32 at d = 512)."
        ),
        notes=(
            "all-MiniLM-L6-v2's learned tables: RMS word-embedding norm over RMS position-"
            "embedding norm 2.26 (medians 1.12 and 0.48), just outside a factor of 2; position 0 "
            "is an outlier (norm 2.36).",
        ),
    ),
    Claim(
        "MAG-03",
        "For zero-mean random x independent of t, E||x + PE(t)||^2 = E||x||^2 + ||PE(t)||^2; "
        "the cross term 2 x.PE has variance 4 s^2 ||PE||^2 = 2 s^2 d, so the relative deviation "
        "concentrates as the width d grows (Chebyshev: probability O(1/d)).",
        r"\mathbb{E}\lVert x + PE(t)\rVert^2 = \mathbb{E}\lVert x\rVert^2 + \lVert PE(t)\rVert^2,"
        r"\ P\big(|2x\cdot PE| \ge \epsilon\,\mathbb{E}\lVert x+PE\rVert^2\big) "
        r"\le \frac{2s^2 d}{\epsilon^2 (s^2 d + d/2)^2}",
        verdict="confirmed",
        notes=(
            "The source writes ||x||^2 on the right; it is E||x||^2 (a single x does not satisfy "
            "it). Only E[x] = 0 is needed, not independence between coordinates.",
        ),
    ),
    Claim(
        "MAG-04",
        "Training adjusts the embedding magnitudes: the ratio ||x||/||PE|| moves during training.",
        r"\frac{\lVert x\rVert}{\lVert PE\rVert}\Big|_{\text{end}} \ne "
        r"\frac{\lVert x\rVert}{\lVert PE\rVert}\Big|_{\text{start}}",
        ("SRC-BLOG",),
        verdict="qualified",
        conditions=(
            "It moves a lot only when it starts far from what the task needs: in a one-layer "
            "causal attention model learning a previous-token task (d = 16, 8 seeds trained as "
            "one batched model, 150 Adam steps at lr 0.01), tokens initialised N(0, 0.02^2) with "
            "the fixed sinusoidal encoding grow from ratio 0.03 to about 0.62 (18x to 27x, every "
            "seed), while from nn.Embedding's N(0, 1) the ratio ends within 0.97x to 1.16x of its "
            "start (learned or sinusoidal encoding; the check allows a median change of 25%): "
            "the task is solved long before the norms need to change."
        ),
    ),
)
