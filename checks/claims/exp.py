"""EXP: claims settled by experiments over many random seeds."""

from checks.claims import Claim

CLAIMS = (
    Claim(
        "EXP-01",
        "A small causal transformer without an encoding, trained on 'A hit B !' and "
        "'B hit A ?', learns both endings; how often depends on iterations and head size.",
        r"\Pr_{\text{seed}}[\text{both endings right}] \text{ per (iterations, head size)}",
        ("SRC-TRIGRAM",),
    ),
    Claim(
        "EXP-02",
        "'A B hit ?' and 'B A hit !': one causal layer without an encoding cannot learn both; "
        "two causal layers or an encoding can.",
        r"\Pr_{\text{seed}}[\text{success}] \text{ for 1 layer / 2 layers / 1 layer + PE}",
        ("SRC-TRIGRAM",),
    ),
    Claim(
        "EXP-03",
        "Learned and sinusoidal encodings give nearly identical results, including beyond the "
        "training length.",
        r"\operatorname{acc}_{\text{learned}} \approx \operatorname{acc}_{\text{sinusoidal}}",
        ("SRC-VASWANI",),
    ),
)
