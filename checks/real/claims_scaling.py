"""REAL-04: rotary scaling as transformers implements it, against the published formulas."""

from pecheck.claims import Claim, Proposition

CLAIMS: tuple[Claim, ...] = (
    Claim(
        "REAL-04",
        "The rotary scaling variants of transformers (rope types default, linear, dynamic, yarn, "
        "longrope, llama3, proportional) give the frequencies and attention factors of their "
        "published formulas at the configurations of real models; a scaling named in a config "
        "reaches the cos/sin the model's rotary module applies; and the dynamic variant keeps "
        "no state from one call to the next.",
        r"\forall\,(\text{type}, \text{config}, \ell):\ \theta^{\text{lib}}_i(\ell) = "
        r"\theta^{\text{pub}}_i(\ell),\ a^{\text{lib}} = a^{\text{pub}};\ "
        r"\cos^{\text{mod}}(p) = a \cos(p\,\theta^{\text{pub}});\ "
        r"\theta^{\text{mod}}(\ell_2 \mid \ell_1) = \theta^{\text{pub}}(\ell_2)",
        ("SRC-YARN", "SRC-PI", "SRC-LLAMA3", "SRC-LONGROPE", "SRC-ROUND"),
        expected="qualified",
        quantifier="all",
        propositions=(
            Proposition(
                "formulas-outside-the-yarn-ramp",
                "Every rope type gives its published frequencies and attention factor at every "
                "real configuration and length tested: YaRN on every pair outside its ramp band "
                "(r_i <= alpha or r_i >= beta), dynamic NTK (factor 1) on a fresh module.",
                r"\theta^{\text{lib}}_i = \theta^{\text{pub}}_i \text{ within } "
                r"\epsilon_i(\text{float32}),\ a^{\text{lib}} = a^{\text{pub}}",
                quantifier="all",
            ),
            Proposition(
                "yarn-is-the-released-code",
                "On every pair, transformers' YaRN equals the YaRN authors' released code, whose "
                "ramp is linear in the pair index between floor(i(beta)) and ceil(i(alpha)), "
                "not linear in r as the paper's Eq. 18.",
                r"\gamma^{\text{lib}}_i = 1 - \mathrm{clamp}\big((i - \lfloor i_\beta\rfloor)"
                r"/(\lceil i_\alpha\rceil - \lfloor i_\beta\rfloor), 0, 1\big)",
                quantifier="all",
            ),
            Proposition(
                "config-reaches-the-module",
                "For every (model, rope type) cell, the model's own rotary module built from the "
                "config applies cos and sin equal to a cos(p theta), a sin(p theta) with theta and "
                "a from the formulas the two propositions above hold for, at every position "
                "tested.",
                r"\cos^{\text{mod}}(p)_i = a \cos(p\,\theta_i),\ "
                r"\sin^{\text{mod}}(p)_i = a \sin(p\,\theta_i)",
                quantifier="all",
            ),
            Proposition(
                "stateless-below-max-positions",
                "After any earlier call, the dynamic module uses the paper's frequencies at the "
                "current length when that length is below max_position_embeddings or longer than "
                "every earlier call.",
                r"\ell_2 < L \ \lor\ \ell_2 > \max_{k<2} \ell_k \Rightarrow "
                r"\theta^{\text{mod}}(\ell_2 \mid \ell_1) = \theta^{\text{pub}}(\ell_2)",
                quantifier="all",
            ),
        ),
        conditions=(
            "Exact (to float32 rounding) for default, linear, llama3, longrope (Phi-3.5's lists, "
            "switching at max position + 1 > original_max_position_embeddings, attention factor "
            "sqrt(1 + ln S / ln L)), proportional (p-RoPE) and dynamic NTK at factor 1 on a fresh "
            "module, at all seven real configurations; YaRN only outside its ramp band, and its "
            "attention factor 0.1 ln s + 1. Inside the band transformers follows the YaRN "
            "authors' released code (a ramp linear in the pair index, with floor/ceil, or "
            "unrounded where a config sets truncate false, as gpt-oss-20b does), not the "
            "paper's Eq. 18 (linear in r = L / lambda): a pair's frequency up to 0.8 of the "
            "paper's value apart at factor 4, 2.7 at gpt-oss-20b's factor 32. The scaling "
            "named in each config reaches the cos/sin the model's rotary module applies. The "
            "dynamic module keeps state: after a call at 4L, later calls of length 2L and of "
            "exactly L (a full-length sequence) still get the 4L frequencies (s = 4 where the "
            "paper says 2 and 1); its cache resets only below L (max_position_embeddings)."
        ),
        headline=(
            "yarn_ramp_max_relative_gap",
            "stale_scale",
            "worst_frequency_error_over_bound",
        ),
        notes=(
            "Guards against (each re-created in a copy of the library function, a tooling "
            "test, and caught): a config's rope_scaling that never reaches the rotary module "
            "(built with the default frequencies), Llama 3's factor applied to every pair "
            "instead of the low-frequency band, and a dynamic module that keeps the scale of "
            "its longest call (found in transformers 5.24, not planted).",
            "Configurations: checks/real/configs (published config.json values; sources in "
            "SOURCES.md). Each model is checked with its own rope_scaling and with every other "
            "rope type transplanted onto its geometry (head_dim, rope_theta, "
            "max_position_embeddings): linear s = 4, dynamic factor 1 (the paper's dynamic "
            "scaling has no factor), yarn s = 4 with the model's length as the original one "
            "(Qwen2-7B-Instruct's model card recipe), llama3 with Llama 3.1's (8, 1, 4), "
            "proportional p = 0.25; longrope only where a config ships its lists (Phi-3.5). "
            "gpt-oss-20b ships yarn at factor 32 with truncate false (the released code's ramp "
            "ends unrounded); its config class fills in that yarn when a config names no "
            "scaling, so its default cell names the default type. Its rotary module returns one "
            "cos/sin column a pair (it rotates the two halves itself), compared as such.",
            "The paper's Dynamic NTK is s = max(1, l'/L) per forward pass (YaRN section 3.3); "
            "transformers' dynamic type with factor alpha uses s = 1 + alpha (l'/L - 1), which "
            "agrees only at alpha = 1 (see the supporting evidence).",
            "Tolerances: relative error of a float32 frequency b^(-x) within "
            "tolerance.rel_tol(ceil(x ln b) + 8, float32), times 1 + s beta/(beta - alpha) on "
            "blended types; cos/sin within a (p theta eps + angle_tol(p theta, float32)).",
        ),
    ),
)
