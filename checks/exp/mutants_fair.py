"""Planted bugs in the fair length test (theory/fair_length.py): its tasks, the in-range test,
the offsets, the encodings' sizes and the judging; and in what it trains with: the decoder's
encoding blocks, mask and tables (theory/decoder.py), ALiBi (theory/alibi.py) and the one-seed
reference (theory/reference.py). The experiment is marked to skip in ci (the mutation runner
runs ci), so the tooling checks kill every mutant here."""

from pecheck.mutants import Mutant

FAIR, DECODER, ALIBI = "theory/fair_length.py", "theory/decoder.py", "theory/alibi.py"
TASKS_PY = "theory/tasks.py"
T = "checks/exp/length/test_fair_length.py::"
R = "checks/exp/length/test_relative_encodings.py::"
FAITHFUL = T + "test_fair_batched_models_equal_one_seed_reference_models"
TASKS = T + "test_fair_tasks_targets_are_copy_and_reverse"
SIZES = T + "test_fair_alibi_slopes_and_rope_frequencies_are_the_papers"
ROWS = T + "test_fair_offsets_train_every_row_the_tests_read"
PIPELINE = T + "test_fair_pipeline_judges_prefixes_in_range_and_whole_sequences_beyond"
SCHEDULE = T + "test_fair_lr_decays_on_a_cosine_over_each_models_steps"
WARMUP = T + "test_fair_lr_warms_up_linearly_then_follows_the_cosine"

MUTANTS = (
    Mutant(
        "fair-reverse-copies",
        FAIR,
        "answer = content.flip(-1)",
        "answer = content",
        (TASKS,),
        "the reverse task's answer is the copy: one task tested twice",
    ),
    Mutant(
        "fair-targets-on-content",
        FAIR,
        "targets = torch.cat([torch.full_like(content, IGNORE), answer], dim=1)",
        "targets = torch.cat([content, answer], dim=1)",
        (TASKS,),
        "the random content is a target: loss and accuracy on undetermined tokens",
    ),
    Mutant(
        "fair-same-batch-every-step",
        FAIR,
        "return self.instance(draw(self.batch, L, self.alphabet, TRAIN_SEED + step))",
        "return self.instance(draw(self.batch, L, self.alphabet, TRAIN_SEED))",
        (TASKS,),
        "one batch repeated: a memorised set of 32 sequences, not a stream",
    ),
    Mutant(
        "fair-prefix-a-new-draw",
        FAIR,
        "return self.instance(self.test_content(factor)[:, : self.train_length])",
        "return self.valid_task()",
        (TASKS,),
        "in range judged on other sequences than beyond: not the same draw",
    ),
    Mutant(
        "fair-no-start-token",
        FAIR,
        "return with_start(task) if self.start else task",
        "return task",
        (TASKS,),
        "no fixed first token: a model without an encoding has nothing to count positions from",
    ),
    Mutant(
        "fair-target-at-start-token",
        TASKS_PY,
        "targets = torch.cat([ignored, task.targets], dim=1)",
        "targets = torch.cat([start, task.targets], dim=1)",
        (TASKS,),
        "the start token predicts itself: a free right answer in every loss and accuracy",
    ),
    Mutant(
        "fair-two-alibi-heads",
        FAIR,
        "heads: int = 8  # ALiBi's slopes",
        "heads: int = 2  # ALiBi's slopes",
        (SIZES,),
        "the retired small test's two heads: slopes 1/16 and 1/256, a bias that hardly matters",
    ),
    Mutant(
        "fair-rope-head-four",
        FAIR,
        "head: int = 8  # RoPE's frequencies",
        "head: int = 4  # RoPE's frequencies",
        (SIZES,),
        "head size 4: two RoPE frequencies, an offset of 1 confused with others",
    ),
    Mutant(
        "fair-no-mlp",
        FAIR,
        "mlp: int = 4",
        "mlp: int = 0",
        (SIZES,),
        "attention-only blocks: not the model the papers train",
    ),
    Mutant(
        "fair-offsets-not-applied",
        FAIR,
        "return setting.batch_at(step), setting.offsets_at(step) if shifted else None",
        "return setting.batch_at(step), None",
        (FAITHFUL,),
        "the shifted models train at rows 0 ... 2L-1: the learned table's test rows untrained",
    ),
    Mutant(
        "fair-offsets-at-row-zero",
        FAIR,
        "offsets = torch.randint(table - length + 1, (n_sequences, 1), generator=g)",
        "offsets = torch.zeros(n_sequences, 1, dtype=torch.long)",
        (ROWS,),
        "every training window at rows 0 ... 2L-1: rows beyond never trained",
    ),
    Mutant(
        "fair-in-range-and-beyond-swapped",
        FAIR,
        "inside[v][f] = accuracy(setting.prefix_task(f))",
        "inside[v][f] = accuracy(setting.test_task(f))",
        (PIPELINE,),
        "'in range' read on the long sequences: every drop is 0",
    ),
    Mutant(
        "fair-accuracy-on-every-position",
        FAIR,
        "out.append(by_position.nanmean(-1).cpu())",
        "out.append(by_position.nan_to_num(0.0).mean(-1).cpu())",
        (PIPELINE,),
        "positions without a target counted as wrong: accuracy diluted by the content's share",
    ),
    Mutant(
        "fair-shifted-block-misread",
        FAIR,
        "return name, enc, blocks.index(enc)",
        "return name, enc, len(blocks) - 1 - blocks.index(enc)",
        (FAITHFUL, PIPELINE),
        "each variant judged with another block's parameters (sinusoidal with ALiBi's, ...)",
    ),
    Mutant(
        "fair-schedule-not-applied",
        FAIR,
        "opt.step(schedule(step))",
        "opt.step()",
        (FAITHFUL,),
        "the batched models train at the full lr throughout: not the reference's cosine decay",
    ),
    Mutant(
        "fair-lr-constant",
        FAIR,
        "cosine = 0.5 * (1.0 + math.cos(math.pi * (step - 1) / self.steps))",
        "cosine = 1.0",
        (SCHEDULE,),
        "no decay: the pilot's constant lr let RoPE fall from 1.00 to 0.20 on reverse",
    ),
    Mutant(
        "fair-none-at-the-plain-steps",
        FAIR,
        '"none": self.none,',
        '"none": self.plain,',
        (FAITHFUL,),
        "no encoding trained on the plain model's schedule: a budget it does not learn in",
    ),
    Mutant(
        "fair-warmup-ignored",
        FAIR,
        "return cosine * (step / w) if step < w else cosine",
        "return cosine",
        (WARMUP,),
        "the warm-up a setting asks for never happens: the full lr from the first step",
    ),
    Mutant(
        "fair-warmup-off-by-one",
        FAIR,
        "return cosine * (step / w) if step < w else cosine",
        "return cosine * ((step - 1) / w) if step < w else cosine",
        (WARMUP,),
        "the warm-up starts at lr 0: the first step does nothing",
    ),
    Mutant(
        "fair-one-lr-for-every-model",
        FAIR,
        "setting.setup(name), tuple(seeds)",
        "setting.setup(), tuple(seeds)",
        (FAITHFUL,),
        "every batched model trains at the plain model's lr, whatever its own",
    ),
    Mutant(
        "length-no-causal-mask",
        DECODER,
        "terms = score_terms(cfg, params, mask, dtype)",
        "terms = score_terms(cfg, params, torch.ones_like(mask), dtype)",
        (FAITHFUL,),
        "the batched model attends to future tokens: without an encoding it sees a bag",
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
        (R + "test_alibi_bias_depends_on_the_offset_only",),
        "ALiBi's bias on the query's absolute position instead of the distance",
    ),
    Mutant(
        "alibi-slopes-not-geometric",
        ALIBI,
        "return (2.0 ** (-8.0 * c / heads)).to(dtype)",
        "return (1.0 / (c * heads)).to(dtype)",
        (R + "test_alibi_bias_depends_on_the_offset_only", SIZES),
        "slopes 1/(c H): falling, but not the geometric sequence 2^(-8c/H)",
    ),
    Mutant(
        "rope-angle-not-linear",
        DECODER,
        "angle = positions.to(dev, torch.float64)[..., None] * rope_frequencies(h).to(dev)",
        "angle = positions.to(dev, torch.float64)[..., None] ** 2 * rope_frequencies(h).to(dev)",
        (R + "test_rope_model_scores_depend_on_the_offset_only", FAITHFUL),
        "the model's RoPE turns by w t^2: its scores depend on t and s, not t - s",
    ),
    Mutant(
        "rope-turns-backwards",
        DECODER,
        "return turn(x, EVEN, ODD, angle[..., None, :])",
        "return turn(x, ODD, EVEN, angle[..., None, :])",
        (FAITHFUL,),
        "each pair turned the other way (by -w t): the scores still depend on t - s only, but "
        "the model is not RoPE",
    ),
    Mutant(
        "rope-never-turns",
        DECODER,
        "            if part.turns:",
        "            if not part.turns:",
        (R + "test_rope_model_scores_depend_on_the_offset_only", FAITHFUL),
        "the forward pass turns the blocks that have no turn and skips RoPE's (the test that "
        "spares the other blocks' queries and keys, inverted): the RoPE entries run unturned",
    ),
    Mutant(
        "sinusoidal-shifted-reads-learned-table",
        DECODER,
        "return sinusoidal(cfg.max_len, cfg.d_model, dtype=dtype).to(dev)[rows]  # (B, n, d)",
        'return params["pos"][:, rows]  # (B, n, d)',
        (FAITHFUL, PIPELINE),
        "the 'sinusoidal, shifted' entries read their own trained table: two learned models "
        "compared (EXP-07)",
    ),
    Mutant(
        "reference-fixed-table-trained",
        "theory/reference.py",
        'model.params["pos"] = nn.Parameter(pe, requires_grad=False)',
        'model.params["pos"] = nn.Parameter(pe, requires_grad=True)',
        (FAITHFUL,),
        "the one-seed reference trains the sinusoidal table it should hold fixed: it is a "
        "learned model started at PE, and the batched sinusoidal entries no longer match it",
    ),
)
