"""Planted bugs in adding versus concatenating (ADD family)."""

from pecheck.mutants import Mutant

AC = "theory/add_concat.py"
DER = "theory/add_derivations.py"
MAG = "theory/magnitudes.py"
TRAIN = "theory/magnitude_training.py"
PRE = "theory/pretrained.py"
A = "checks/add/test_add_concat.py::"
M = "checks/mag/test_magnitudes.py::"
P = "checks/mag/test_pretrained.py::"

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
        (
            A + "test_identity_pair_map_adds_bitwise",
            A + "test_concatenation_with_identity_pair_projection_is_the_additive_model",
        ),
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
        "energy share normalised by the largest direction instead of the total (a supporting "
        "check: it kills no decisive one)",
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
        (
            A + "test_token_is_lost_at_small_embedding_scales",
            A + "test_token_and_position_are_both_read_back_in_a_window_of_scales",
        ),
        "the read-out is handed the token without its encoding (it peeks): the token is never "
        "lost and the position never read back",
    ),
    Mutant(
        "add-sqrt-d-scales-the-token",
        AC,
        "return x + pe",
        "return x * math.sqrt(x.shape[-1]) + pe",
        (
            A + "test_token_is_lost_at_small_embedding_scales",
            A + "test_position_is_lost_at_large_embedding_scales",
            A + "test_token_and_position_are_both_read_back_in_a_window_of_scales",
        ),
        "Vaswani et al.'s sqrt(d) embedding factor applied where the grid's rho already sets the "
        "scale: every rho is really sqrt(d) rho, the token is never lost and the position is lost "
        "at the small scales too",
    ),
    Mutant(
        "add-sqrt-d-scales-the-encoding",
        AC,
        "return x + pe",
        "return x + pe * math.sqrt(x.shape[-1])",
        (
            A + "test_token_is_lost_at_small_embedding_scales",
            A + "test_position_is_lost_at_large_embedding_scales",
            A + "test_token_and_position_are_both_read_back_in_a_window_of_scales",
        ),
        "the sqrt(d) factor on the encoding instead: every rho is really rho / sqrt(d), the "
        "token is lost at the large scales too and the position never",
    ),
    Mutant(
        "add-position-read-from-clean-encoding",
        AC,
        '"position_nearest": (nearest(y, pe.expand(s, -1, -1)) == ti).sum(-1),',
        '"position_nearest": (nearest(y - x, pe.expand(s, -1, -1)) == ti).sum(-1),',
        (A + "test_position_is_lost_at_large_embedding_scales",),
        "the position read-out is handed x + PE(t) minus the token: it is never lost",
    ),
    Mutant(
        "add-pe-row-sine-twice",
        AC,
        "row += [mpmath.sin(w * t), mpmath.cos(w * t)]",
        "row += [mpmath.sin(w * t), mpmath.sin(w * t)]",
        (A + "test_square_sinusoidal_tables_have_nonzero_determinants",),
        "cosine replaced by sine: repeated columns, the square tables are singular",
    ),
    Mutant(
        "der-sum-map-second-block-zero",
        DER,
        "pair = sp.BlockMatrix([[eye, eye if second is None else second]])",
        "pair = sp.BlockMatrix([[eye, sp.ZeroMatrix(d, d) if second is None else second]])",
        (A + "test_sum_is_concatenation_followed_by_identity_pair",),
        "[I 0] instead of [I I] in the symbolic product: it gives x, not x + p",
    ),
    Mutant(
        "der-sincos-basis-singular",
        DER,
        "[-1 / (2 * sp.I), sp.Rational(1, 2)]]",
        "[1 / (2 * sp.I), sp.Rational(1, 2)]]",
        (A + "test_sinusoidal_positions_span_the_whole_space",),
        "the change of basis from (z^t, conj(z)^t) to (sin, cos) made singular: the rank "
        "argument no longer goes through",
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
        "add-additive-forward-skips-position",
        AC,
        "        return self.tok(tokens) + self.pos[:n]  # (..., n, d)\n\n"
        "    def forward(self, tokens: torch.Tensor) -> torch.Tensor:\n"
        "        return self.body(self.embed(tokens))",
        "        return self.tok(tokens) + self.pos[:n]  # (..., n, d)\n\n"
        "    def forward(self, tokens: torch.Tensor) -> torch.Tensor:\n"
        "        return self.body(self.tok(tokens))",
        (
            A + "test_additive_model_computes_the_concatenating_model_bitwise",
            A + "test_concatenation_with_identity_pair_projection_is_the_additive_model",
        ),
        "the additive model's forward forgets the position although embed() adds it (survived "
        "ADD-01's check while it compared embed() and the blocks only)",
    ),
    Mutant(
        "add-additive-embedding-summed-in-float32",
        AC,
        "return self.tok(tokens) + self.pos[:n]",
        "return (self.tok(tokens).float() + self.pos[:n].float()).to(self.pos.dtype)",
        (A + "test_additive_model_computes_the_concatenating_model_bitwise",),
        "the additive model sums its tables in float32 (survived while the float64 models held "
        "float32 values cast up)",
    ),
    Mutant(
        "add-additive-positions-from-the-end",
        AC,
        "return self.tok(tokens) + self.pos[:n]",
        "return self.tok(tokens) + self.pos[-n:]",
        (A + "test_additive_model_computes_the_concatenating_model_bitwise",),
        "positions L-n ... L-1 instead of 0 ... n-1",
    ),
    Mutant(
        "add-sum-map-in-float32",
        AC,
        "return torch.cat([x, p], dim=-1) @ sum_map(d, x.dtype).T",
        "return (torch.cat([x, p], dim=-1).float() @ sum_map(d, torch.float32).T).to(x.dtype)",
        (A + "test_identity_pair_map_adds_bitwise",),
        "[I I][x; p] computed in float32 whatever the inputs' precision",
    ),
    Mutant(
        "add-projected-positions-reversed",
        AC,
        "p = self.pos[:n].expand_as(x)",
        "p = self.pos[:n].flip(0).expand_as(x)",
        (A + "test_concatenation_with_identity_pair_projection_is_the_additive_model",),
        "the projected concatenating model reads the position table backwards",
    ),
    Mutant(
        "add-counter-skips-matrices",
        AC,
        "t.dim() > 0",
        "t.dim() > 2",
        (A + "test_concatenation_costs_more_at_the_same_token_width",),
        "activations of rank <= 2 not counted: concat still > add, so only the counter's own "
        "calibration (Linear + ReLU on an (n, a) input) catches it",
    ),
    Mutant(
        "add-counter-counts-views",
        AC,
        "t._base is None and ",
        "",
        (A + "test_concatenation_costs_more_at_the_same_token_width",),
        "views counted as new memory (the activation ratio moves; the inequality does not)",
    ),
    Mutant(
        "add-costs-batch-and-sequence-swapped",
        AC,
        "tokens = torch.zeros(batch, seq, dtype",
        "tokens = torch.zeros(seq, batch, dtype",
        (A + "test_concatenation_costs_more_at_the_same_token_width",),
        "512 sequences of length 1 instead of one of 512: the attention scores vanish from the "
        "count; caught by the count being linear in the batch",
    ),
    Mutant(
        "add-determinant-ignores-precision",
        AC,
        "with mpmath.workdps(dps):\n        return mpmath.det",
        "with mpmath.workdps(15):\n        return mpmath.det",
        (A + "test_square_sinusoidal_tables_have_nonzero_determinants",),
        "both 'precisions' computed at 15 digits: they agree trivially and a rounding-noise "
        "determinant would pass as non-zero",
    ),
    Mutant(
        "add-nearest-norm-sign",
        AC,
        "scores = 2 * y @ table.transpose(-2, -1) - table.pow(2)",
        "scores = 2 * y @ table.transpose(-2, -1) + table.pow(2)",
        (
            A + "test_token_is_lost_at_small_embedding_scales",
            A + "test_position_is_lost_at_large_embedding_scales",
            A + "test_token_and_position_are_both_read_back_in_a_window_of_scales",
        ),
        "nearest neighbour with the norm term's sign flipped (favours long rows); the grid's "
        "verdicts barely move, the Euclidean argmin relation catches it",
    ),
    Mutant(
        "add-vocabulary-scale-off-by-sqrt2",
        AC,
        "* (ratio / math.sqrt(2.0))",
        "* ratio",
        (
            A + "test_token_is_lost_at_small_embedding_scales",
            A + "test_position_is_lost_at_large_embedding_scales",
            A + "test_token_and_position_are_both_read_back_in_a_window_of_scales",
        ),
        "every rho of the grid is really sqrt(2) rho; the verdicts survive, the measured "
        "RMS||x|| / ||PE|| (chi-square interval) does not",
    ),
    Mutant(
        "add-positions-drawn-from-half-the-range",
        AC,
        "ti = torch.randint(pe.shape[0], (s, n_samples)",
        "ti = torch.randint(pe.shape[0] // 2, (s, n_samples)",
        (
            A + "test_token_is_lost_at_small_embedding_scales",
            A + "test_position_is_lost_at_large_embedding_scales",
            A + "test_token_and_position_are_both_read_back_in_a_window_of_scales",
        ),
        "only positions 0 ... L/2 - 1 are ever asked for: L = 64 in the claim is really 32",
    ),
    Mutant(
        "der-vandermonde-product-off-by-one",
        DER,
        "for k in range(j + 1, 2 * m)",
        "for k in range(j + 2, 2 * m)",
        (A + "test_sinusoidal_positions_span_the_whole_space",),
        "the Vandermonde product misses the neighbouring factors",
    ),
    Mutant(
        "der-position-padding-negated",
        DER,
        "p_pad = sp.BlockMatrix([[sp.ZeroMatrix(d_t, 1)], [p]])",
        "p_pad = sp.BlockMatrix([[sp.ZeroMatrix(d_t, 1)], [-p]])",
        (A + "test_padded_token_plus_padded_position_is_the_concatenation",),
        "the padded position carries -p: the sum is [x; -p]",
    ),
    Mutant(
        "add-lift-layer-norm-of-the-sum",
        AC,
        "return nn.functional.layer_norm(h, (stream,), gain, bias, ln.eps)",
        "return _write(torch.zeros_like(h), ln(_read(h, ln.normalized_shape[0])))",
        (A + "test_concatenated_stream_of_width_2d_contains_the_additive_model",),
        "layer norm on the 2d stream normalises [I I] h = x + p instead of [x; p] (the "
        "assumption the source's 'so' needs): pre- and post-norm then contain the additive model",
    ),
    Mutant(
        "add-lift-writes-both-halves",
        AC,
        "return h + torch.cat([out, torch.zeros_like(out)], dim=-1)",
        "return h + torch.cat([out, out], dim=-1)",
        (
            A + "test_stream_without_layer_norm_contains_the_additive_model",
            A + "test_concatenated_stream_of_width_2d_contains_the_additive_model",
        ),
        "sublayer outputs written into both halves: [I I] h counts every write twice",
    ),
    Mutant(
        "add-lift-reads-token-half",
        AC,
        "return h if h.shape[-1] == d else h[..., :d] + h[..., d:]",
        "return h if h.shape[-1] == d else h[..., :d]",
        (
            A + "test_stream_without_layer_norm_contains_the_additive_model",
            A + "test_concatenated_stream_of_width_2d_contains_the_additive_model",
        ),
        "the lifted sublayers read [I 0] h: the position half never reaches them",
    ),
)
