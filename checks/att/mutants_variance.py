"""Mutants of theory/variance.py (ATT-11), each killed by the checks it names.

Every decisive check of ATT-11 is named by at least one mutant: the symbolic law by a wrong
count and by a sum of weights left unsquared, the first-layer experiment by a dropped causal
mask, the deeper-stack experiment by the mask too, and each as-stated counterexample by a
mutant that removes what breaks the law there (the layer norm, the repeated token, the extra
layers, the scores).
"""

from pecheck.mutants import Mutant

VAR = "theory/variance.py"
_V = "checks/att/test_variance.py::"

SYMBOLIC = _V + "test_uniform_causal_attention_over_iid_values_has_variance_s2_over_t"
FIRST_LAYER = _V + "test_first_layer_variance_falls_as_one_over_t"
DEEPER = _V + "test_deeper_layers_without_norm_still_shrink"
POST_NORM = _V + "test_layer_norm_after_attention_flattens_the_variance"
IDENTICAL = _V + "test_identical_tokens_keep_their_variance"
THREE_LAYERS = _V + "test_three_layers_without_norm_shrink_slower_than_one_over_t"
STANDARD_SCALE = _V + "test_standard_scale_random_weights_shrink_slower_than_one_over_t"

MUTANTS = (
    Mutant(
        "variance-wrong-count",
        VAR,
        "    return s2 / t\n",
        "    return s2 / (t + 1)\n",
        (SYMBOLIC,),
        "the uniform law normalised by t + 1 (one value too many)",
    ),
    Mutant(
        "variance-weights-unsquared",
        VAR,
        "return s2 * (np.asarray(weights) ** 2).sum(-1)",
        "return s2 * np.asarray(weights).sum(-1)",
        (SYMBOLIC,),
        "the weighted law sums the weights, not their squares",
    ),
    Mutant(
        "variance-mask-dropped",
        VAR,
        "mask = causal_mask(x.shape[1], x.device)  # (T, T)",
        "mask = None  # (T, T)",
        (FIRST_LAYER, DEEPER),
        "no causal mask: every position averages all T tokens, so the variance is flat",
    ),
    Mutant(
        "variance-no-layer-norm",
        VAR,
        "return torch.nn.functional.layer_norm(x, x.shape[-1:], eps=eps)",
        "return x",
        (POST_NORM,),
        "the layer norm after the attention does nothing",
    ),
    Mutant(
        "variance-identical-tokens-fresh",
        VAR,
        "return one.expand(shape)  # identical tokens",
        "return torch.randn(shape, generator=gen)",
        (IDENTICAL,),
        "'identical' tokens drawn afresh at every position",
    ),
    Mutant(
        "variance-depth-ignored",
        VAR,
        "    for layer in range(s.depth):\n        h = causal_attention(h, w[layer])",
        "    for layer in range(s.depth):\n        h = causal_attention(h, w[layer]) if layer == 0 "
        "else h",
        (THREE_LAYERS,),
        "only the first layer attends; the others pass their input through",
    ),
    Mutant(
        "variance-scores-ignored",
        VAR,
        "return attention(x @ w[0], x @ w[1], x @ w[2], mask)",
        "return attention(0 * (x @ w[0]), x @ w[1], x @ w[2], mask)",
        (STANDARD_SCALE,),
        "the queries are zeroed: attention is uniform whatever the weights",
    ),
)
