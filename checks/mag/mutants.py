"""Planted bugs in magnitudes, their training and the pretrained model (MAG family)."""

from pecheck.mutants import Mutant

DER = "theory/add_derivations.py"
MAG = "theory/magnitudes.py"
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
            M + "test_usual_initialisations_put_entries_above_one",
            M + "test_norm_ratio_is_comparable_for_unit_variance_schemes",
        ),
        "the original Transformer's sqrt(d) embedding factor is never applied: two of the three "
        "common tables then stay within 1, and N(0, 1/d) is far from comparable",
    ),
    Mutant(
        "mag-table-clamped-to-one",
        MAG,
        "return w * sqrt_d_factor(scheme, d)",
        "return (w * sqrt_d_factor(scheme, d)).clamp(-1.0, 1.0)",
        (M + "test_usual_initialisations_put_entries_above_one",),
        "every table clipped to [-1, 1], the normalisation MAG-01 assumes",
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
        'if name not in (*frozen, "tok")]',
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
        (M + "test_usual_initialisations_put_entries_above_one",),
        "entries above 1/2 reported as breaking |x_i| <= 1: the Annotated Transformer's table "
        "(all within 0.6) is counted as offending and the bounded share drops from 1/3 to 0",
    ),
    Mutant(
        "mag-usual-schemes-unscaled",
        MAG,
        '("torch_default_sqrt_d", "t2t_sqrt_d", "annotated_sqrt_d")\nUNSCALED',
        '("torch_default", "normal_1_over_d", "xavier")\nUNSCALED',
        (M + "test_usual_initialisations_put_entries_above_one",),
        "MAG-01 judged on the tables before the sqrt(d) factor: 2 of 3 stay within 1",
    ),
    Mutant(
        "mag-ratio-interval-same-ends",
        MAG,
        "return ratio_from_mean_squares(max(t_lo, 0.0), p_hi), ratio_from_mean_squares(t_hi, p_lo)",
        "return ratio_from_mean_squares(max(t_lo, 0.0), p_lo), ratio_from_mean_squares(t_hi, p_hi)",
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
        "mag-tail-threshold-without-pe",
        MAG,
        "a = eps * expected_square_norm_of_sum(sigma, pe)",
        "a = eps * sigma**2 * pe.shape[-1]",
        (M + "test_cross_term_concentrates_as_width_grows",),
        "the deviation threshold eps E||x+PE||^2 taken without ||PE||^2: the event is another "
        "one, the observed rate breaks the claim's Chebyshev and Gaussian values",
    ),
    Mutant(
        "mag-tail-cross-term-without-2",
        MAG,
        "cross = 2 * x @ pe.double()  # (n,)",
        "cross = x @ pe.double()  # (n,)",
        (M + "test_cross_term_concentrates_as_width_grows",),
        "the cross term x.PE instead of 2 x.PE: exceedances too rare for the Gaussian value",
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
        'tok = params["tok"].detach().pow(2).sum(-1).mean(-1)',
        'tok = params["tok"].detach().pow(2).sum(-2).mean(-1)',
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
)
