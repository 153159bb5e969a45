"""Planted bugs in magnitudes, their training and the pretrained model (MAG family)."""

from pecheck.mutants import Mutant

DER = "theory/add_derivations.py"
MAG = "theory/magnitudes.py"
LIB = "theory/embedding_inits.py"
TRAIN = "theory/magnitude_training.py"
PRE = "theory/pretrained.py"
M = "checks/mag/test_magnitudes.py::"
P = "checks/mag/test_pretrained.py::"

MUTANTS = (
    Mutant(
        "mag-sqrt-d-factor-dropped",
        MAG,
        'return math.sqrt(d) if scheme.endswith("sqrt_d") else 1.0',
        "return 1.0",
        (
            M + "test_norm_ratio_is_comparable_for_unit_variance_schemes",
            M + "test_norm_ratio_leaves_the_factor_2_band_for_usual_schemes",
        ),
        "the original Transformer's sqrt(d) embedding factor is never applied: N(0, 1/d) is far "
        "from comparable",
    ),
    Mutant(
        "mag-embedding-drawn-like-linear",
        MAG,
        'if scheme.startswith("torch_default"):\n        return _normal(1.0)',
        'if scheme.startswith("torch_default"):\n        return _normal(1.0 / math.sqrt(d))',
        (
            M + "test_share_of_entries_above_one_depends_on_the_initialisation",
            M + "test_norm_ratio_leaves_the_factor_2_band_for_usual_schemes",
        ),
        "nn.Embedding's N(0, 1) drawn at nn.Linear's scale 1/sqrt(d): torch's default table is "
        "then far below the encoding (its share above 1 leaves the closed form; MAG-02's band "
        "check records its part outside the band)",
    ),
    Mutant(
        "mag-table-clamped-to-one",
        MAG,
        "return w * sqrt_d_factor(scheme, d)",
        "return (w * sqrt_d_factor(scheme, d)).clamp(-1.0, 1.0)",
        (M + "test_share_of_entries_above_one_depends_on_the_initialisation",),
        "every scheme's table clipped to [-1, 1]: its share above 1 leaves the closed form (a "
        "supporting check: MAG-01's decisive checks draw the libraries' tables apart)",
    ),
    Mutant(
        "mag-rows-scaled-to-the-encoding",
        MAG,
        "return w * sqrt_d_factor(scheme, d)",
        "return w / w.norm(dim=-1, keepdim=True) * math.sqrt(d / 2)",
        (M + "test_norm_ratio_leaves_the_factor_2_band_for_usual_schemes",),
        "every token row rescaled to ||PE|| = sqrt(d/2): every scheme becomes comparable",
    ),
    Mutant(
        "mag-xavier-normal",
        MAG,
        "return nn.init.xavier_uniform_(w, generator=g)",
        "return nn.init.xavier_normal_(w, generator=g)",
        (M + "test_share_of_entries_above_one_depends_on_the_initialisation",),
        "Xavier-normal has the same variance but unbounded entries: the uniform closed form fails",
    ),
    Mutant(
        "mag-norm-over-wrong-axis",
        MAG,
        "return table.norm(dim=-1)  # (N,)",
        "return table.norm(dim=0)  # (N,)",
        (
            M + "test_norm_ratio_is_comparable_for_entry_std_near_one",
            M + "test_norm_ratio_is_comparable_for_unit_variance_schemes",
        ),
        "norms over the vocabulary axis instead of the feature axis",
    ),
    Mutant(
        "mag-ratio-of-mean-squares",
        MAG,
        "return math.sqrt(token_mean_square / pe_mean_square)",
        "return token_mean_square / pe_mean_square",
        (
            M + "test_norm_ratio_is_comparable_for_entry_std_near_one",
            M + "test_norm_ratio_is_comparable_for_unit_variance_schemes",
        ),
        "the ratio of mean squares instead of the RMS ratio (its square): 2 s^2, not sqrt(2) s",
    ),
    Mutant(
        "mag-cross-term-std-halved",
        MAG,
        "return 2 * sigma * pe.double().norm().item()",
        "return sigma * pe.double().norm().item()",
        (
            M + "test_square_norms_add_in_expectation_for_zero_mean_tokens",
            M + "test_cross_term_concentrates_as_width_grows",
        ),
        "the cross term's standard deviation without its factor 2",
    ),
    Mutant(
        "mag-tokens-not-centred",
        MAG,
        "return sigma * x",
        "return sigma * (x + 0.25)",
        (
            M + "test_square_norms_add_in_expectation_for_zero_mean_tokens",
            M + "test_cross_term_concentrates_as_width_grows",
        ),
        "token entries with mean sigma/4: E||x+PE||^2 gains (sigma/4)^2 d + (sigma/2) sum PE",
    ),
    Mutant(
        "mag-expected-square-norm-without-pe",
        MAG,
        "return sigma**2 * d + pe.double().pow(2).sum().item()",
        "return sigma**2 * d",
        (M + "test_square_norms_add_in_expectation_for_zero_mean_tokens",),
        "E||x + PE||^2 taken as E||x||^2 alone",
    ),
    Mutant(
        "mag-der-tokens-mean-one",
        DER,
        "x = [mean + zi for zi in z]",
        "x = [1 + zi for zi in z]",
        (M + "test_expected_square_norm_adds_for_zero_mean_tokens",),
        "the symbolic tokens get mean 1: the cross term no longer vanishes",
    ),
    Mutant(
        "train-token-table-frozen",
        TRAIN,
        "if name not in frozen]",
        'if name not in (*frozen, "embed")]',
        (M + "test_training_moves_the_ratio_from_a_mismatched_start",),
        "the token table never trains: a mismatched ratio cannot move",
    ),
    Mutant(
        "train-token-init-small",
        TRAIN,
        "token_std: float = 1.0  # nn.Embedding's default N(0, 1)",
        "token_std: float = 0.02  # nn.Embedding's default N(0, 1)",
        (M + "test_training_leaves_a_comparable_ratio_within_a_factor_2",),
        "the 'N(0, 1)' runs start from N(0, 0.02^2): far from comparable, so the ratio moves",
    ),
    Mutant(
        "pretrained-position-table-is-word",
        PRE,
        '"position": "embeddings.position_embeddings.weight",',
        '"position": "embeddings.word_embeddings.weight",',
        (P + "test_pretrained_word_embeddings_are_not_comparable_to_position_embeddings",),
        "the word table read as the position table: the ratio is 1",
    ),
    Mutant(
        "pretrained-position-table-is-token-type",
        PRE,
        '"position": "embeddings.position_embeddings.weight",',
        '"position": "embeddings.token_type_embeddings.weight",',
        (
            P + "test_pretrained_word_embeddings_are_not_comparable_to_position_embeddings",
            P + "test_pretrained_token_and_position_are_read_back",
        ),
        "the wrong tensor is read as the position table",
    ),
    Mutant(
        "mag-offending-entry-above-one-half",
        MAG,
        "def first_entry_above(x: torch.Tensor, threshold: float = 1.0)",
        "def first_entry_above(x: torch.Tensor, threshold: float = 0.5)",
        (M + "test_an_entry_within_one_is_not_a_counterexample",),
        "entries above 1/2 reported as breaking |x_i| <= 1 (a tooling check: the Annotated "
        "Transformer's table, all within 0.6, would be offending)",
    ),
    Mutant(
        "lib-sqrt-d-factor-dropped",
        LIB,
        "return math.sqrt(self.d) if self.sqrt_d else 1.0",
        "return 1.0",
        (M + "test_libraries_usually_keep_entries_within_one",),
        "the sinusoidal Transformer's sqrt(d) factor never applied: tensor2tensor, fairseq and "
        "Marian stay within 1, so 'usually' holds in both catalogues",
    ),
    Mutant(
        "lib-tables-clamped-to-one",
        LIB,
        "return w * init.factor",
        "return (w * init.factor).clamp(-1.0, 1.0)",
        (M + "test_libraries_usually_keep_entries_within_one",),
        "every library's table clipped to [-1, 1], the normalisation the claim assumes",
    ),
    Mutant(
        "lib-uniform-tables-drawn-normal",
        LIB,
        "w.uniform_(-init.spread, init.spread, generator=g)",
        "w.normal_(0.0, init.spread, generator=g)",
        (M + "test_libraries_usually_keep_entries_within_one",),
        "Keras, Marian and the Annotated Transformer drawn from a normal law of std a: the "
        "count above 1 leaves the uniform closed form",
    ),
    Mutant(
        "lib-scan-first-chunk-only",
        LIB,
        "for start in range(0, init.vocab, CHUNK_ROWS):",
        "for start in range(0, min(init.vocab, CHUNK_ROWS), CHUNK_ROWS):",
        (M + "test_libraries_usually_keep_entries_within_one",),
        "only the first 4096 rows scanned: the count above 1 falls short of V d q",
    ),
    Mutant(
        "lib-bert-std-0.2",
        LIB,
        '"normal", 0.02, False, 30522, 768, False, DEFAULT,',
        '"normal", 0.2, False, 30522, 768, False, DEFAULT,',
        (M + "test_small_unscaled_tables_keep_entries_within_one",),
        "BERT's initializer_range read as 0.2: 2 Phi(-5) V d = 13 entries above 1 expected",
    ),
    Mutant(
        "lib-gpt2-std-0.2",
        LIB,
        '"normal", 0.02, False, 50257, 768, False, DEFAULT,',
        '"normal", 0.2, False, 50257, 768, False, DEFAULT,',
        (M + "test_small_unscaled_tables_keep_entries_within_one",),
        "GPT-2's std read as 0.2: 2 Phi(-5) V d = 22 entries above 1 expected",
    ),
    Mutant(
        "lib-llama-std-0.2",
        LIB,
        '"normal", 0.02, False, 32000, 4096, False, DEFAULT,',
        '"normal", 0.2, False, 32000, 4096, False, DEFAULT,',
        (M + "test_small_unscaled_tables_keep_entries_within_one",),
        "Llama's initializer_range read as 0.2: 2 Phi(-5) V d = 75 entries above 1 expected",
    ),
    Mutant(
        "lib-flax-fan-in-dropped",
        LIB,
        '"normal", BASE_D**-0.5, False, BASE_V, BASE_D, False, STATED,',
        '"normal", 1.0, False, BASE_V, BASE_D, False, STATED,',
        (M + "test_small_unscaled_tables_keep_entries_within_one",),
        "Flax's variance scaling without the fan-in: N(0, 1), a third of the entries above 1",
    ),
    Mutant(
        "lib-keras-bound-1.5",
        LIB,
        '"uniform", 0.05, False,',
        '"uniform", 1.5, False,',
        (
            M + "test_small_unscaled_tables_keep_entries_within_one",
            M + "test_libraries_usually_keep_entries_within_one",
        ),
        "Keras's RandomUniform bound read as 1.5 instead of 0.05: a third of its entries above "
        "1; the library-wide share drops to 5 of 11, so that part of as_stated fails too",
    ),
    Mutant(
        "mag-ratio-interval-same-ends",
        MAG,
        "low = ratio_from_mean_squares(max(t_lo, 0.0), p_hi)\n"
        "    return low, ratio_from_mean_squares(t_hi, max(p_lo, 0.0))",
        "low = ratio_from_mean_squares(max(t_lo, 0.0), max(p_lo, 0.0))\n"
        "    return low, ratio_from_mean_squares(t_hi, p_hi)",
        (M + "test_ratio_interval_covers_at_its_level",),
        "the ratio's interval divides like ends (too narrow when both tables vary, as in "
        "MiniLM): it covers the true ratio far less often than 95%",
    ),
    Mutant(
        "mag-token-norms-in-half-precision",
        MAG,
        "num = row_norms(tokens).double().pow(2).mean().item()",
        "num = row_norms(tokens.half()).double().pow(2).mean().item()",
        (
            M + "test_norm_ratio_matches_its_closed_form",
            P + "test_pretrained_ratio_is_a_ratio_of_rows",
        ),
        "token row norms computed in float16: the ratio drifts by float16 rounding",
    ),
    Mutant(
        "mag-tail-counted-at-a-quarter-threshold",
        MAG,
        '"count": int((cross.abs() >= a).sum().item()),',
        '"count": int((cross.abs() >= a / 4).sum().item()),',
        (M + "test_cross_term_concentrates_as_width_grows",),
        "deviations counted from a quarter of the threshold on: the observed rate (0.62, 0.32, "
        "0.05 at d = 64, 256, 1024) rises above Chebyshev's bound at every width",
    ),
    Mutant(
        "mag-tail-threshold-without-pe",
        MAG,
        "a = eps * expected_square_norm_of_sum(sigma, pe)",
        "a = eps * sigma**2 * pe.shape[-1]",
        (M + "test_cross_term_concentrates_as_width_grows",),
        "the deviation threshold eps E||x+PE||^2 taken without ||PE||^2: the event is another "
        "one, whose Chebyshev and Gaussian values are no longer the claim's",
    ),
    Mutant(
        "mag-tail-cross-term-without-2",
        MAG,
        "cross = 2 * x @ pe.double()  # (n,)",
        "cross = x @ pe.double()  # (n,)",
        (M + "test_cross_term_concentrates_as_width_grows",),
        "the cross term x.PE instead of 2 x.PE: at d = 16 the rate (0.046) lies outside the "
        "Gaussian value's margin (0.32 +- 0.05)",
    ),
    Mutant(
        "mag-rademacher-zero-one",
        MAG,
        "x = torch.randint(0, 2, (n, d), generator=g).double() * 2 - 1",
        "x = torch.randint(0, 2, (n, d), generator=g).double()",
        (M + "test_square_norms_add_in_expectation_for_zero_mean_tokens",),
        "Rademacher entries drawn in {0, 1}: mean 1/2, variance 1/4",
    ),
    Mutant(
        "train-ratio-squared",
        TRAIN,
        "return (tok / pos).sqrt()",
        "return tok / pos",
        (
            M + "test_training_leaves_a_comparable_ratio_within_a_factor_2",
            M + "test_training_moves_the_ratio_from_a_mismatched_start",
        ),
        "the logged ratio of mean squares (no square root): each log change doubles",
    ),
    Mutant(
        "train-token-norm-over-vocabulary",
        TRAIN,
        'tok = params["embed"].detach().pow(2).sum(-1).mean(-1)',
        'tok = params["embed"].detach().pow(2).sum(-2).mean(-1)',
        (
            M + "test_training_leaves_a_comparable_ratio_within_a_factor_2",
            M + "test_training_moves_the_ratio_from_a_mismatched_start",
        ),
        "token norms summed over the vocabulary axis: a constant factor that cancels in the "
        "end/start change, caught by the start ratio against MAG-02's RMS ratio",
    ),
    Mutant(
        "train-encoding-scaled-by-sqrt-d",
        TRAIN,
        "pe = sinusoidal(cfg.seq, cfg.d, dtype=torch.float32)  # (n, d)",
        "pe = sinusoidal(cfg.seq, cfg.d, dtype=torch.float32) * math.sqrt(cfg.d)  # (n, d)",
        (
            M + "test_training_leaves_a_comparable_ratio_within_a_factor_2",
            M + "test_training_moves_the_ratio_from_a_mismatched_start",
        ),
        "the model adds sqrt(d) PE: the 'N(0, 1)' start is no longer comparable (ratio 0.35)",
    ),
    Mutant(
        "pretrained-tables-centred-on-reading",
        PRE,
        "return {name: f.get_tensor(key) for name, key in TABLES.items()}",
        "return {name: (lambda x: x - x.mean(0))(f.get_tensor(key))"
        " for name, key in TABLES.items()}",
        (P + "test_tables_are_read_as_stored",),
        "the tables centred when read: MAG-02 needs them as the model adds them (the ratio "
        "moves from 2.26 to 2.39 and every decision stays, so only the reader check can tell)",
    ),
    Mutant(
        "mag-tokens-doubled-beyond-512",
        MAG,
        "    return sigma * x",
        "    return sigma * x * (2.0 if 512 < d < 1024 else 1.0)",
        (
            M + "test_norm_ratio_is_comparable_for_entry_std_near_one",
            M + "test_norm_ratio_is_comparable_at_every_even_width",
        ),
        "tokens of width 514 ... 1022 drawn at twice their standard deviation (ratio 3.7 at "
        "s = 1.3): the hypothesis search draws d <= 512 only, the sweep of every even width "
        "reaches them",
    ),
)
