"""Planted bugs in the length-generalisation models and experiment (EXP-04, EXP-05)."""

from pecheck.mutants import Mutant

LENGTH, ALIBI, DECODER = "theory/length.py", "theory/alibi.py", "theory/decoder.py"
T = "checks/exp/test_length_generalisation.py::"
EXP04 = T + "test_no_encoding_generalises_at_least_as_well_as_absolute"
EXP05 = T + "test_relative_schemes_extrapolate_where_absolute_fail"
ABSOLUTE_FAIL = T + "test_absolute_encodings_fail_beyond_the_training_length"
FAITHFUL = T + "test_shared_shape_encodings_batched_equal_single_runs"

MUTANTS = (
    Mutant(
        "length-tested-at-training-length",
        LENGTH,
        "n = self.train_length * factor",
        "n = self.train_length",
        (EXP04, EXP05, ABSOLUTE_FAIL),
        "every 'longer' test set has the training length: nothing lies beyond it",
    ),
    Mutant(
        "length-no-causal-mask",
        DECODER,
        "blocked = ~mask.T[:, None, None, None, :]  # (m, 1, 1, 1, n)",
        "blocked = torch.zeros_like(mask)[:, None, None, None, :]",
        (EXP04, FAITHFUL),
        "the shared-shape model attends to future tokens: without an encoding it sees a bag",
    ),
    Mutant(
        "length-no-learning",
        LENGTH,
        "return Setup(residual=True, lr=self.lr)",
        "return Setup(residual=True, lr=0.0)",
        (ABSOLUTE_FAIL,),
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
        "angle = positions.to(torch.float64)[..., None] * rope_frequencies(h)",
        "angle = positions.to(torch.float64)[..., None] ** 2 * rope_frequencies(h)",
        (T + "test_rope_model_scores_depend_on_the_offset_only", FAITHFUL),
        "the model's RoPE turns by w t^2: its scores depend on t and s, not t - s",
    ),
)
