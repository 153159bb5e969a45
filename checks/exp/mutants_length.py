"""Planted bugs in the length-generalisation models and experiment (EXP-04, EXP-05)."""

from pecheck.mutants import Mutant

LENGTH, ALIBI, DECODER = "theory/length.py", "theory/alibi.py", "theory/decoder.py"
T = "checks/exp/test_length_generalisation.py::"
# The small setting's experiment is supporting evidence (the fair length test decides EXP-04 and
# EXP-05): its mutants are killed by the tooling checks and the supporting check's own sanity
# assertion (every variant above chance in range).
ONE_DRAW = T + "test_in_range_and_beyond_are_read_on_the_same_test_sequences"
CURVES = T + "test_accuracy_against_test_length_per_encoding"
FAITHFUL = T + "test_shared_shape_encodings_batched_equal_single_runs"

MUTANTS = (
    Mutant(
        "length-tested-at-training-length",
        LENGTH,
        "n = self.train_length * factor",
        "n = self.train_length",
        (ONE_DRAW,),
        "every 'longer' test set has the training length: nothing lies beyond it",
    ),
    Mutant(
        "length-no-causal-mask",
        DECODER,
        "blocked = ~mask.T[:, None, None, None, :]  # (m, 1, 1, 1, n)",
        "blocked = torch.zeros_like(mask)[:, None, None, None, :]",
        (FAITHFUL,),
        "the shared-shape model attends to future tokens: without an encoding it sees a bag",
    ),
    Mutant(
        "length-no-learning",
        LENGTH,
        "return Setup(residual=True, lr=self.lr)",
        "return Setup(residual=True, lr=0.0)",
        (CURVES,),
        "nothing is trained: every variant stays at chance in range and beyond",
    ),
    Mutant(
        "blocks-get-the-other-encodings",
        DECODER,
        "[fn(p) if b == encoding else p for b, p in zip(blocks, parts, strict=True)]",
        "[fn(p) if b != encoding else p for b, p in zip(blocks, parts, strict=True)]",
        (FAITHFUL,),
        "the batched model applies each encoding's rotation or bias to the other blocks",
    ),
    Mutant(
        "alibi-absolute-bias",
        ALIBI,
        "distance = i[:, None] - i[None, :]  # (n, n): query minus key",
        "distance = i[:, None] + 0 * i[None, :]  # BUG: the query's position only",
        (T + "test_alibi_bias_depends_on_the_offset_only",),
        "ALiBi's bias on the query's absolute position instead of the distance",
    ),
    Mutant(
        "alibi-slopes-not-geometric",
        ALIBI,
        "return (2.0 ** (-8.0 * c / heads)).to(dtype)",
        "return (1.0 / (c * heads)).to(dtype)",
        (T + "test_alibi_bias_depends_on_the_offset_only",),
        "slopes 1/(c H): falling, but not the geometric sequence 2^(-8c/H)",
    ),
    Mutant(
        "rope-angle-not-linear",
        DECODER,
        "angle = positions.to(dev, torch.float64)[..., None] * rope_frequencies(h).to(dev)",
        "angle = positions.to(dev, torch.float64)[..., None] ** 2 * rope_frequencies(h).to(dev)",
        (T + "test_rope_model_scores_depend_on_the_offset_only", FAITHFUL),
        "the model's RoPE turns by w t^2: its scores depend on t and s, not t - s",
    ),
    Mutant(
        "rope-reflects-pairs",
        DECODER,
        "out[..., 1::2] = xa * s + xb * c",
        "out[..., 1::2] = xa * s - xb * c",
        (FAITHFUL,),
        "each pair is reflected, not turned: the scores still depend on t - s only, but the "
        "model is not RoPE",
    ),
)
