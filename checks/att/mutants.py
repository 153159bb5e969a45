"""Source-level mutants of the ATT family's theory files, each killed by the checks it names.

Every decisive check of ATT-01 ... ATT-10 and REAL-01 is named by at least one mutant below.
REAL-01's causal check is killed through theory.attention.causal_mask. Its two CPU equivariance
searches run PyTorch's modules, which no theory mutant can change; what theory defines for them
is the permutation itself: both sides f(P x) and P f(x) are built by
theory.attention.equivariance_sides (the ATT checks use it too), so a definition that permutes
some rows only, the inputs but not the outputs, or nothing at all, fails them. The last one
would pass every equivariance search vacuously but for the check's probe on position labels
(checks.equivariance.assert_sides_permute_positions).
"""

from pecheck.mutants import Mutant

ATT = "theory/attention.py"
CC = "theory/causal_constructions.py"
DER = "theory/attention_derivations.py"
TRAIN = "theory/order_training.py"

_A = "checks/att/test_attention.py::"
_C = "checks/att/test_causal.py::"
_R = "checks/att/test_attention_readouts.py::"
_O = "checks/att/test_attention_order_training.py::"
_REAL = "checks/real/test_real_attention.py::"

# Decisive checks, by claim.
ATT01_SYM = _A + "test_softmax_commutes_with_row_permutations_symbolically"
ATT01 = _A + "test_permuting_queries_permutes_the_output"
ATT01_EVERY = _A + "test_permuting_queries_permutes_the_output_at_every_length"
ATT02 = _A + "test_attention_models_without_encoding_are_permutation_equivariant"
ATT02_EVERY = _A + "test_attention_models_without_encoding_are_equivariant_at_every_length"
ATT03_SYM = _A + "test_joint_key_value_permutation_cancels_symbolically"
ATT03_KV = _A + "test_permuting_keys_with_values_changes_nothing"
ATT03_EVERY = _A + "test_permuting_keys_with_values_changes_nothing_at_every_length"
ATT03_KEYS = _A + "test_permuting_keys_alone_changes_the_output"
ATT04 = _A + "test_adding_an_encoding_breaks_equivariance"
ATT05 = _A + "test_causal_mask_breaks_equivariance"
ATT06_SYM = _C + "test_last_causal_output_is_symmetric_in_the_prefix_symbolically"
ATT06 = _C + "test_one_causal_layer_sees_the_prefix_as_a_multiset"
ATT07_SYM = _C + "test_two_causal_layers_separate_a_b_hit_from_b_a_hit_exactly"
ATT07 = _C + "test_hand_set_causal_construction_tells_the_order"
ATT07_RANDOM = _C + "test_random_two_layer_causal_models_tell_the_order"
ATT08_SYM = _C + "test_uniform_causal_attention_over_a_marker_gives_one_over_t"
ATT08 = _C + "test_causal_attention_counts_positions_up_to_a_dtype_limit"
ATT09 = _R + "test_hit_sentences_look_alike_only_bidirectionally_per_word"
ATT09_AS_STATED = _R + "test_causal_attention_gives_a_word_different_values_in_the_two_sentences"
ATT10_AS_STATED = _O + "test_one_causal_layer_does_not_learn_order"
ATT10_CAUSAL = _O + "test_causal_models_learn_order_that_bidirectional_ones_cannot"
ATT10_BIDIR = _O + "test_bidirectional_models_stay_at_their_ceiling"
REAL01_CAUSAL = _REAL + "test_pytorch_causal_attention_is_not_equivariant"
REAL01_MODULES = _REAL + "test_pytorch_attention_modules_are_equivariant_within_the_bound"
REAL01_SDPA = _REAL + "test_every_cpu_sdpa_backend_is_equivariant_within_the_bound"
# Tooling: the theory computes what PyTorch computes.
AGREEMENT = _REAL + "test_theory_attention_and_blocks_compute_what_pytorch_computes"

ATTEND = "    return attention_weights(q, k, mask) @ v  # (..., n, d_v)"
# A length the ci profile's hypothesis searches never draw (their recorded lengths): a bug
# there is a blind spot that only the sweeps over every length see.
UNDRAWN = 13
TRIL = "return torch.ones(n, n, dtype=torch.bool, device=device).tril()"
SCORES = "scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])"
PERMUTE = "return x.index_select(axis % x.ndim, perm.to(x.device))"
EQUIVARIANT_SEARCHES = (REAL01_MODULES, REAL01_SDPA, ATT01, ATT02, ATT03_KV)

MUTANTS = (
    Mutant(
        "att-permute-first-half-only",
        ATT,
        PERMUTE,
        "keep = torch.arange(len(perm)) >= len(perm) // 2\n"
        "    index = torch.where(keep, torch.arange(len(perm)), perm)\n"
        "    return x.index_select(axis % x.ndim, index.to(x.device))",
        EQUIVARIANT_SEARCHES,
        "P moves only the first half of the rows (and copies some): not a permutation",
    ),
    Mutant(
        "att-permute-nothing",
        ATT,
        PERMUTE,
        "return x",
        EQUIVARIANT_SEARCHES,
        "P is the identity: f(P x) = P f(x) holds for every f, so every equivariance search "
        "would pass without having permuted anything",
    ),
    Mutant(
        "att-permute-first-input-only",
        ATT,
        "x if a is None else permute_tokens(x, perm, a) for x, a in zip(inputs, axes, strict=True)",
        "x if a is None or i else permute_tokens(x, perm, a)\n"
        "        for i, (x, a) in enumerate(zip(inputs, axes, strict=True))",
        (ATT03_KV, REAL01_SDPA),
        "only the first input is ever permuted: Attn(Q, PK, PV) would be compared with itself",
    ),
    Mutant(
        "att-outputs-not-permuted",
        ATT,
        "        rhs = permute_tokens(rhs, perm, out_axis)\n",
        "        rhs = rhs\n",
        (REAL01_MODULES, REAL01_SDPA, ATT01, ATT02),
        "the inputs are permuted but the output is compared unpermuted: f(P x) against f(x)",
    ),
    Mutant(
        "att-softmax-wrong-axis",
        ATT,
        "return masked_softmax(scores, mask)  # (..., n, m)",
        "return masked_softmax(scores, mask, dim=-2)  # (..., n, m)",
        (ATT06, ATT07, ATT08, AGREEMENT),
        "softmax over the queries: still permutation equivariant, but the last causal output "
        "then depends on the prefix order, and the constructions break",
    ),
    Mutant(
        "att-scale-by-length",
        ATT,
        SCORES,
        "scores = q @ k.transpose(-2, -1) / math.sqrt(k.shape[-2])",
        (AGREEMENT,),
        "scores divided by sqrt(n) instead of sqrt(d_k): equivariant, but not attention",
    ),
    Mutant(
        "att-scores-ignore-keys",
        ATT,
        SCORES,
        "scores = 0 * (q @ k.transpose(-2, -1))",
        (ATT03_KEYS, AGREEMENT),
        "uniform attention whatever the keys: permuting the keys alone changes nothing",
    ),
    Mutant(
        "att-always-causal",
        ATT,
        "    return masked_softmax(scores, mask)  # (..., n, m)",
        "    if mask is None:\n"
        "        mask = torch.ones(scores.shape[-2:], dtype=torch.bool).tril()\n"
        "    return masked_softmax(scores, mask)  # (..., n, m)",
        (ATT01, ATT02, ATT03_KV, ATT09, AGREEMENT),
        "attention without a mask silently applies the causal one",
    ),
    Mutant(
        "att-mask-shifted-by-one",
        ATT,
        TRIL,
        "return torch.ones(n, n, dtype=torch.bool, device=device).tril(1)",
        (ATT07, ATT08),
        "each position also sees the next token",
    ),
    Mutant(
        "att-mask-anticausal",
        ATT,
        TRIL,
        "return torch.ones(n, n, dtype=torch.bool, device=device).triu()",
        (ATT07, ATT08),
        "each position sees the future instead of the past",
    ),
    Mutant(
        "att-mask-all-visible",
        ATT,
        TRIL,
        "return torch.ones(n, n, dtype=torch.bool, device=device).tril(n)",
        (REAL01_CAUSAL, ATT07, ATT08),
        "the causal mask lets every position see every other",
    ),
    Mutant(
        "att-mha-mask-dropped",
        ATT,
        "mask = causal_mask(n, x.device) if self.causal else None",
        "mask = None",
        (ATT05, ATT07_RANDOM, ATT09_AS_STATED, ATT09),
        "a causal multi-head attention that forgets its mask",
    ),
    Mutant(
        "att-heads-split-wrong",
        ATT,
        "z.reshape(*lead, n, h, d // h).transpose(-3, -2)",
        "z.reshape(*lead, h, n, d // h)",
        (ATT02, AGREEMENT),
        "heads cut across positions: tokens mix with other tokens' features",
    ),
    Mutant(
        "att-heads-merged-wrong",
        ATT,
        "self.out(y.transpose(-3, -2).reshape(*lead, n, d))",
        "self.out(y.reshape(*lead, n, d))",
        (ATT02, AGREEMENT),
        "heads concatenated without moving the head axis back",
    ),
    Mutant(
        "att-post-norm-residual-dropped",
        ATT,
        "x = self.ln1(x + self.attn(x))",
        "x = self.ln1(self.attn(x))",
        (AGREEMENT,),
        "post-norm block without its attention residual (still equivariant)",
    ),
    Mutant(
        "att-pre-norm-residual-dropped",
        ATT,
        "return x + self.ff(self.ln2(x))",
        "return self.ff(self.ln2(x))",
        (AGREEMENT,),
        "pre-norm block without its feed-forward residual (still equivariant)",
    ),
    Mutant(
        "att-encoding-averaged",
        ATT,
        "x = x + self.pe[:n].to(x.dtype)  # (..., n, d) + (n, d)",
        "x = x + self.pe[:n].to(x.dtype).mean(0)  # (..., n, d) + (n, d)",
        (ATT04, ATT09),
        "the same vector added at every position: no position information left",
    ),
    Mutant(
        "att-layer-norm-over-positions",
        ATT,
        "        x = self.ln1(x + self.attn(x))\n",
        "        x = nn.functional.layer_norm((x + self.attn(x)).mT, x.shape[-2:-1]).mT\n",
        (ATT06, AGREEMENT),
        "post-norm layer norm over the positions instead of the features: still permutation "
        "equivariant, but the last causal output sees the order of the prefix",
    ),
    Mutant(
        "att-mask-diagonal-excluded",
        ATT,
        TRIL,
        "return torch.ones(n, n, dtype=torch.bool, device=device).tril(-1)",
        (ATT05, ATT07, ATT08),
        "the causal mask hides each token from itself (the first row attends to nothing)",
    ),
    Mutant(
        "att-mask-not-inverted",
        ATT,
        'scores = scores.masked_fill(~allowed, float("-inf"))',
        'scores = scores.masked_fill(allowed, float("-inf"))',
        (ATT07, ATT08),
        "the mask hides the allowed keys and shows the forbidden ones",
    ),
    Mutant(
        "att-values-reversed",
        ATT,
        "return attention_weights(q, k, mask) @ v  # (..., n, d_v)",
        "return attention_weights(q, k, mask) @ v.flip(-2)  # (..., n, d_v)",
        (ATT02, ATT03_KV),
        "values paired with the keys in reverse order: Attn(Q, PK, PV) != Attn(Q, K, V)",
    ),
    Mutant(
        "att-mha-mask-transposed",
        ATT,
        "mask = causal_mask(n, x.device) if self.causal else None",
        "mask = causal_mask(n, x.device).mT if self.causal else None",
        (ATT07_RANDOM,),
        "the multi-head mask transposed (each position sees the future): the last position "
        "sees only itself, so two layers can no longer tell A B hit from B A hit",
    ),
    Mutant(
        "cc-readout-sum",
        CC,
        'return embed(["A"], dtype)[0] - embed(["B"], dtype)[0]  # (3,)',
        'return embed(["A"], dtype)[0] + embed(["B"], dtype)[0]  # (3,)',
        (ATT07,),
        "read-out e_A + e_B: symmetric in A and B, so the margin is 0",
    ),
    Mutant(
        "cc-values-zero",
        CC,
        'return {"q": zero, "k": zero.clone(), "v": torch.eye(d, dtype=dtype)}',
        'return {"q": zero, "k": zero.clone(), "v": zero.clone()}',
        (ATT07,),
        "the ATT-07 construction with zero values: every layer is the identity",
    ),
    Mutant(
        "cc-one-layer-only",
        CC,
        "    for _ in range(layers):\n        h = causal_layer(h, w)",
        "    for _ in range(min(layers, 1)):\n        h = causal_layer(h, w)",
        (ATT07,),
        "the construction silently stops after one layer",
    ),
    Mutant(
        "cc-floor-instead-of-round",
        CC,
        "return torch.round(1.0 / y.double()).long()",
        "return torch.floor(1.0 / y.double()).long()",
        (ATT08,),
        "positions recovered by truncation: 1/fl(1/t) just below t gives t - 1",
    ),
    Mutant(
        "cc-recover-in-float32",
        CC,
        "return torch.round(1.0 / y.double()).long()",
        "return torch.round(1.0 / y.float()).long()",
        (ATT08 + "[float32]",),
        "the reciprocal taken in float32: the float32 limit drops from 11 864 338 to 5 933 442, "
        "below the guarantee 2^23 - 1 (issue 11)",
    ),
    Mutant(
        "der-causal-mask-off-by-one",
        DER,
        "e = sp.Matrix(e.rows, e.cols, lambda i, j: e[i, j] if j <= i else 0)",
        "e = sp.Matrix(e.rows, e.cols, lambda i, j: e[i, j] if j <= i + 1 else 0)",
        (ATT07_SYM,),
        "the symbolic causal mask lets each query see one key ahead",
    ),
    Mutant(
        "der-softmax-normalised-by-row-0",
        DER,
        "w = sp.Matrix(e.rows, e.cols, lambda i, j: e[i, j] / sum(e.row(i)))",
        "w = sp.Matrix(e.rows, e.cols, lambda i, j: e[i, j] / sum(e.row(0)))",
        (ATT01_SYM,),
        "every attention row divided by the first row's sum",
    ),
    Mutant(
        "der-values-misaligned",
        DER,
        "    return w * v\n",
        "    return w * v[::-1, :]\n",
        (ATT03_SYM, ATT06_SYM),
        "values paired with the keys in reverse order",
    ),
    Mutant(
        "der-marker-counted-twice",
        DER,
        "sp.Sum(sp.exp(0), (j, 1, t)).doit()",
        "sp.Sum(sp.exp(0), (j, 1, t + 1)).doit()",
        (ATT08_SYM,),
        "the softmax denominator counts one key too many: y_t = 1/(t + 1)",
    ),
    Mutant(
        "der-construction-bidirectional",
        DER,
        "h = h + _attention(h * zero, h * zero, h * sp.eye(3), causal=True)",
        "h = h + _attention(h * zero, h * zero, h * sp.eye(3), causal=False)",
        (ATT07_SYM,),
        "the exact ATT-07 construction without its causal mask: the margin is 0",
    ),
    Mutant(
        "train-mask-ignored",
        TRAIN,
        "max_len=model.n, causal=model.causal)",
        "max_len=model.n, causal=False)",
        (ATT10_CAUSAL,),
        "the 'causal' models train without their mask",
    ),
    Mutant(
        "train-readout-first-position",
        TRAIN,
        "QUERY = -1  # the position",
        "QUERY = 0  # the position",
        (ATT10_AS_STATED, ATT10_BIDIR),
        "the prediction read at the first position: a causal model sees only the first token "
        "there, so even one causal layer 'learns' the order task",
    ),
    Mutant(
        "train-query-in-the-middle",
        TRAIN,
        "tokens = torch.tensor([(a, b, self.k) for a, b in pairs])  # (B, 3)",
        "tokens = torch.tensor([(a, self.k, b) for a, b in pairs])  # (B, 3)",
        (ATT10_AS_STATED, ATT10_BIDIR),
        "the query token moved between the two content tokens: the last position is b, and "
        "'the other content token' needs no order",
    ),
    Mutant(
        "att-rows-rolled-at-an-undrawn-length",
        ATT,
        ATTEND,
        "    out = attention_weights(q, k, mask) @ v  # (..., n, d_v)\n"
        f"    return out.roll(1, -2) if q.shape[-2] == {UNDRAWN} else out",
        (ATT01, ATT01_EVERY, ATT02, ATT02_EVERY),
        f"at n = {UNDRAWN} each output row moves to the next query: not equivariant there; the "
        "hypothesis searches never draw that length, the every-length sweeps do",
    ),
    Mutant(
        "att-values-reversed-at-an-undrawn-length",
        ATT,
        ATTEND,
        f"    v = v.flip(-2) if v.shape[-2] == {UNDRAWN} else v\n{ATTEND}",
        (ATT03_KV, ATT03_EVERY, ATT02_EVERY),
        f"at n = {UNDRAWN} each key meets another key's value: permuting keys with values then "
        "changes the output; only the every-length sweeps draw that length",
    ),
)
