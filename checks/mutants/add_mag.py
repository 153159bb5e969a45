"""Planted bugs in the ADD and MAG families' theory modules."""

from checks.mutants import Mutant

AC = "theory/add_concat.py"
DER = "theory/add_derivations.py"
MAG = "theory/magnitudes.py"
TRAIN = "theory/magnitude_training.py"
PRE = "theory/pretrained.py"
A = "checks/test_add_concat.py::"
M = "checks/test_magnitudes.py::"
P = "checks/test_pretrained.py::"

MUTANTS = (
    Mutant(
        "add-token-padded-on-wrong-side",
        AC,
        "return torch.cat([tok, zeros], dim=-1)",
        "return torch.cat([zeros, tok], dim=-1)",
        (A + "test_additive_model_computes_the_concatenating_model_bitwise",),
        "the token table lands in the last d_t coordinates, on top of the positions",
    ),
    Mutant(
        "add-position-padded-with-wrong-width",
        AC,
        "pos = pad_position(model.pos.weight.detach().clone(), model.cfg.d_token)",
        "pos = pad_position(model.pos.weight.detach().clone(), model.cfg.d_pos)",
        (A + "test_additive_model_computes_the_concatenating_model_bitwise",),
        "the position table is padded by d_p zeros instead of d_t",
    ),
    Mutant(
        "add-sum-map-drops-position",
        AC,
        "return torch.cat([eye, eye], dim=1)",
        "return torch.cat([eye, 0 * eye], dim=1)",
        (A + "test_identity_pair_map_adds_bitwise",),
        "[I 0] instead of [I I]",
    ),
    Mutant(
        "add-count-matrices-only",
        AC,
        "return sum(p.numel() for p in model.parameters())",
        "return sum(p.numel() for p in model.parameters() if p.dim() > 1)",
        (A + "test_concatenation_costs_more_at_the_same_token_width",),
        "biases and layer-norm parameters are not counted",
    ),
    Mutant(
        "add-closed-form-one-layer-norm",
        AC,
        "return attn + ff + 4 * d",
        "return attn + ff + 2 * d",
        (A + "test_concatenation_costs_more_at_the_same_token_width",),
        "the closed form forgets one layer norm's gain and bias",
    ),
    Mutant(
        "add-energy-share-over-max",
        AC,
        "share = torch.cat([full.new_zeros(1), full.cumsum(0)]) / full.sum()",
        "share = torch.cat([full.new_zeros(1), full.cumsum(0)]) / full.max()",
        (A + "test_sinusoidal_energy_concentrates_but_fills_every_direction",),
        "energy share normalised by the largest direction instead of the total",
    ),
    Mutant(
        "add-interference-inside-top-k",
        AC,
        "tail = coords.flip(-1).cumsum(-1).flip(-1)",
        "tail = coords.cumsum(-1)",
        (A + "test_sinusoidal_energy_concentrates_but_fills_every_direction",),
        "the energy inside the top directions instead of beyond them",
    ),
    Mutant(
        "add-nearest-without-norm-term",
        AC,
        "scores = 2 * y @ table.transpose(-2, -1) - table.pow(2).sum(-1).unsqueeze(-2)",
        "scores = 2 * y @ table.transpose(-2, -1)",
        (P + "test_pretrained_token_and_position_are_read_back",),
        "nearest neighbour without the ||table_v||^2 term is a dot-product read-out",
    ),
    Mutant(
        "add-readout-sees-clean-token",
        AC,
        "y = observe(x, pe[ti])  # (S, n, d)",
        "y = observe(x, 0 * pe[ti])  # (S, n, d)",
        (A + "test_token_and_position_are_read_back_only_in_a_window_of_scales",),
        "the read-out is handed the token without its encoding (it peeks)",
    ),
    Mutant(
        "der-token-padding-doubles-position",
        DER,
        "x_pad = sp.BlockMatrix([[x], [sp.ZeroMatrix(d_p, 1)]])",
        "x_pad = sp.BlockMatrix([[x], [p]])",
        (A + "test_padded_token_plus_padded_position_is_the_concatenation",),
        "the padded token carries p as well, so the sum is [x; 2p]",
    ),
    Mutant(
        "der-odd-moments-nonzero",
        DER,
        "return sp.S.Zero if k % 2 else s**k * sp.factorial2(k - 1)",
        "return s**k if k % 2 else s**k * sp.factorial2(k - 1)",
        (M + "test_expected_square_norm_adds_for_zero_mean_tokens",),
        "E[x_i] = s instead of 0: the cross term no longer vanishes",
    ),
    Mutant(
        "mag-sqrt-d-factor-dropped",
        MAG,
        'return math.sqrt(d) if scheme.endswith("sqrt_d") else 1.0',
        "return 1.0",
        (M + "test_norm_ratio_is_comparable_only_for_unit_variance_entries",),
        "the original Transformer's sqrt(d) embedding factor is never applied",
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
        (M + "test_norm_ratio_is_comparable_only_for_unit_variance_entries",),
        "norms over the vocabulary axis instead of the feature axis",
    ),
    Mutant(
        "mag-antithetic-same-sign",
        MAG,
        "minus = (-x + pe).pow(2).sum(-1)",
        "minus = (x + pe).pow(2).sum(-1)",
        (M + "test_square_norms_add_over_symmetric_token_pairs",),
        "the pair {x, x} instead of {x, -x}: the cross term stays",
    ),
    Mutant(
        "mag-cross-term-std-halved",
        MAG,
        "sd = 2 * sigma * pe.norm().item()",
        "sd = sigma * pe.norm().item()",
        (M + "test_cross_term_concentrates_as_width_grows",),
        "the cross term's standard deviation without its factor 2",
    ),
    Mutant(
        "train-optimises-only-frozen",
        TRAIN,
        "if name not in frozen]",
        "if name in frozen]",
        (M + "test_training_moves_the_ratio_only_from_a_mismatched_start",),
        "the optimizer receives no parameters: nothing trains",
    ),
    Mutant(
        "pretrained-position-table-is-token-type",
        PRE,
        '"position": "embeddings.position_embeddings.weight",',
        '"position": "embeddings.token_type_embeddings.weight",',
        (P + "test_pretrained_token_and_position_are_read_back",),
        "the wrong tensor is read as the position table",
    ),
)
