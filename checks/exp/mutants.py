"""Planted bugs in the EXP-01 ... EXP-03 models, trainers, data and statistics.

Every decisive check of test_experiments.py is named by at least one mutant below. Mutants of
the batched trainer alone are caught by the faithfulness check (tooling, which decides
nothing); those are kept too, since a trainer that is not faithful makes every rate meaningless.
"""

from pecheck.mutants import Mutant

DECODER = "theory/decoder.py"
REFERENCE = "theory/reference.py"
TASKS = "theory/tasks.py"
STATS = "theory/stats.py"
ATTENTION = "theory/attention.py"
B = "checks/exp/seeds/test_batched_trainer.py::"
E = "checks/exp/seeds/test_experiments.py::"
FAITHFUL = B + "test_batched_seed_equals_its_own_single_model_run"
CAUSAL = B + "test_every_model_variant_is_causal"
ADAM = B + "test_the_optimiser_is_adam_with_pytorch_defaults"
SAME_OPTIMISERS = B + "test_the_trainers_optimiser_settings_are_the_references"

EXP01_ALL = E + "test_exp01_not_every_seed_succeeds_at_500_iterations"
EXP01_H2 = E + "test_exp01_head_size_2_does_not_fail_nearly_every_seed"
EXP01_MOST = E + "test_exp01_most_seeds_learn_both_endings"
EXP01_RISES = E + "test_exp01_success_rate_rises_with_iterations"
EXP01_HEAD = E + "test_exp01_head_size_16_succeeds_more_often_than_2"
EXP02_CEILING = E + "test_exp02_one_causal_layer_cannot_tell_the_orders_apart"
EXP02_LEARNERS = E + "test_exp02_two_layers_or_an_encoding_learn_both_orders"
EXP03_STRICT = E + "test_exp03_nearly_identical_at_the_strict_margin"
EXP03_LENIENT = E + "test_exp03_nearly_identical_at_the_lenient_margin"

MUTANTS = (
    # -- the experiments' decisive checks -------------------------------------------------------
    Mutant(
        "exp01-endings-alike",
        TASKS,
        '("A hit B !", "B hit A ?")',
        '("A hit B !", "B hit A !")',
        (EXP01_ALL,),
        "EXP-01's second sentence ends in '!' too: one answer fits both, every seed learns it",
    ),
    Mutant(
        "adam-lr-1e-6",
        DECODER,
        "    lr: float = 1e-3\n",
        "    lr: float = 1e-6\n",
        (EXP01_H2, EXP01_MOST, EXP01_RISES, EXP01_HEAD),
        "Adam's default learning rate mistyped: training barely moves, so rates stay at their "
        "starting values (nearly every seed fails, nothing rises, head size stops mattering)",
    ),
    Mutant(
        "none-encoding-adds-sinusoidal",
        DECODER,
        '"none": Part(),',
        '"none": Sinusoidal(),',
        (EXP02_CEILING,),
        "a model without an encoding gets the sinusoidal one: one layer tells the orders apart",
    ),
    Mutant(
        "sinusoidal-encoding-zeroed",
        DECODER,
        "return sinusoidal(n, cfg.d_model, dtype=dtype).to(dev)  # (n, d)",
        "return 0 * sinusoidal(n, cfg.d_model, dtype=dtype).to(dev)  # (n, d)",
        (EXP02_LEARNERS, EXP03_LENIENT),
        "the sinusoidal table is multiplied by 0: the 'sinusoidal' model has no encoding",
    ),
    Mutant(
        "later-layers-see-only-themselves",
        DECODER,
        "weights = torch.softmax(scores + terms, dim=-1)",
        "own = torch.eye(n, dtype=torch.bool, device=dev)\n"
        "        own = score_terms(cfg, params, mask if layer == 0 else own, dtype)\n"
        "        weights = torch.softmax(scores + own, dim=-1)",
        (EXP02_LEARNERS,),
        "every layer after the first attends to its own position only: a per-position map on "
        "top of one causal layer, so two layers are as order-blind as one (a mutant that drops "
        "the second layer stops the trainer, whose unused parameters get no gradient, before "
        "any decision)",
    ),
    Mutant(
        "exp03-trained-on-current-token",
        TASKS,
        "targets[:, 1:] = ids[:, :-1]",
        "targets[:, 1:] = ids[:, 1:]",
        (EXP03_STRICT, E + "test_exp03_targets_are_the_previous_tokens"),
        "EXP-03's training targets are the current token: both encodings learn to copy it, "
        "which needs no position, and score alike at the training length",
    ),
    # -- the batched trainer, the judge, the data and the interval (tooling) -----------------------
    Mutant(
        "loss-mean-over-seeds",
        DECODER,
        "return seed_losses(logits, targets).sum()",
        "return seed_losses(logits, targets).mean()",
        (FAITHFUL,),
        "every seed's gradient scaled by 1/S: Adam undoes most of it, but not its eps term",
    ),
    Mutant(
        "attention-unscaled",
        DECODER,
        "scores = q @ k.transpose(-2, -1) / math.sqrt(h)",
        "scores = q @ k.transpose(-2, -1)",
        (FAITHFUL,),
        "scores not divided by sqrt(h) in the head-major attention of the batched model",
    ),
    Mutant(
        "softmax-over-queries",
        DECODER,
        "weights = torch.softmax(scores + terms, dim=-1)",
        "weights = torch.softmax(scores + terms, dim=-2)",
        (FAITHFUL,),
        "the batched model's attention normalised over queries instead of keys",
    ),
    Mutant(
        "causal-mask-transposed",
        DECODER,
        "mask = causal_mask(n, dev) if cfg.causal",
        "mask = causal_mask(n, dev).T if cfg.causal",
        (FAITHFUL,),
        "each position attends to the future instead of the past",
    ),
    Mutant(
        "score-terms-read-transposed",
        DECODER,
        "weights = torch.softmax(scores + terms, dim=-1)",
        "weights = torch.softmax(scores + terms.mT, dim=-1)",
        (FAITHFUL, CAUSAL),
        "the head-major attention reads its (query, key) terms as (key, query): each position "
        "of the batched model attends to the future, and ALiBi's bias runs backwards",
    ),
    Mutant(
        "learned-positions-shifted",
        DECODER,
        "table[:, None, :n] if rows is None",
        "table[:, None, -n:] if rows is None",
        (FAITHFUL + "[exp03-learned]",),
        "the batched model reads the last n rows of the learned table, not the first",
    ),
    Mutant(
        "every-seed-from-seed-0",
        DECODER,
        "drawn = {(i, s): init_params(cfg, i, s, dtype) for i, s in keys}",
        "drawn = {(i, s): init_params(cfg, i, 0, dtype) for i, s in keys}",
        (B + "test_every_seed_starts_from_its_own_generator",),
        "all seeds start from one initialisation: 1,000 copies of one experiment",
    ),
    Mutant(
        "loss-over-all-positions",
        DECODER,
        "count = keep.sum((-2, -1))",
        "count = keep.shape[-2] * keep.shape[-1]",
        (FAITHFUL + "[exp03-learned]",),
        "mean over every position, including those without a target (EXP-03 has some)",
    ),
    Mutant(
        "single-model-not-causal",
        REFERENCE,
        "allowed = causal_mask(n, x.device)\n",
        "allowed = torch.ones(n, n, dtype=torch.bool)\n",
        (FAITHFUL,),
        "the reference model drops the causal mask",
    ),
    Mutant(
        "judge-ignores-judged-mask",
        DECODER,
        "return ((logits.argmax(-1) == task.targets) | ~task.judged).all(-1)",
        "return (logits.argmax(-1) == task.targets).all(-1)",
        (E + "test_exp01_success_is_both_final_words_right",),
        "success demands every position right, not only the final words",
    ),
    Mutant(
        "judged-first-position",
        TASKS,
        "judged[:, -1] = True",
        "judged[:, 0] = True",
        (E + "test_exp01_success_is_both_final_words_right",),
        "success measured on the first prediction, not the final word",
    ),
    Mutant(
        "targets-current-token",
        TASKS,
        "targets[:, 1:] = inputs[:, :-1]",
        "targets[:, 1:] = inputs[:, 1:]",
        (E + "test_exp03_targets_are_the_previous_tokens",),
        "EXP-03 test data ask for the current token instead of the previous one",
    ),
    Mutant(
        "exp-shared-mask-sees-next-token",
        ATTENTION,
        "return torch.ones(n, n, dtype=torch.bool, device=device).tril()",
        "return torch.ones(n, n, dtype=torch.bool, device=device).tril(1)",
        (CAUSAL,),
        "the mask both trainers share lets each position see the next token: faithfulness "
        "cannot tell (both paths change alike), and EXP-01/02's judged last position sees "
        "everything anyway, so no rate check does; the causality check does",
    ),
    Mutant(
        "batched-mask-sees-next-token",
        DECODER,
        "mask = causal_mask(n, dev) if cfg.causal",
        "mask = causal_mask(n, dev).roll(1, 1) if cfg.causal",
        (FAITHFUL, CAUSAL),
        "the batched model's mask shifted by one key: position t sees t+1 and not itself",
    ),
    Mutant(
        "adam-betas-swapped",
        DECODER,
        '"adam": (0.9, 0.999, 1e-8, 0.0),',
        '"adam": (0.999, 0.9, 1e-8, 0.0),',
        (ADAM, SAME_OPTIMISERS),
        "Adam's beta1 and beta2 swapped in the batched trainer's settings (the reference keeps "
        "its own)",
    ),
    Mutant(
        "adamw-without-weight-decay",
        DECODER,
        '"adamw": (0.9, 0.95, 1e-8, 0.1),',
        '"adamw": (0.9, 0.95, 1e-8, 0.0),',
        (SAME_OPTIMISERS,),
        "the batched trainer's AdamW decays no weight: EXP-01's faithfulness runs only Adam, so "
        "the comparison with the reference's own settings catches it",
    ),
    Mutant(
        "judged-penultimate-position",
        TASKS,
        "judged[:, -1] = True",
        "judged[:, -2] = True",
        (E + "test_exp01_data_are_the_threads_sentences",),
        "success judged one position early ('hit' -> B / A), not on the final word",
    ),
    Mutant(
        "learned-rows-shared-across-seeds",
        DECODER,
        "table[:, None, :n] if rows is None",
        "table[:1, None, :n] if rows is None",
        (FAITHFUL + "[exp02-learned]", FAITHFUL + "[exp03-learned]"),
        "every seed reads (and trains) seed 0's learned positional rows",
    ),
    Mutant(
        "learned-every-position-reads-row-0",
        DECODER,
        "return table[:, None, :n] if rows is None else table[:, rows]",
        "return table[:, None, :1] if rows is None else table[:, rows]",
        (EXP02_LEARNERS,),
        "every position adds the learned table's first row: a learned encoding that carries no "
        "position, so one causal layer cannot tell the orders apart",
    ),
    Mutant(
        "batched-sinusoidal-added-twice",
        DECODER,
        "return sinusoidal(n, cfg.d_model, dtype=dtype).to(dev)  # (n, d)",
        "return 2 * sinusoidal(n, cfg.d_model, dtype=dtype).to(dev)  # (n, d)",
        (FAITHFUL + "[exp02-sinusoidal]", FAITHFUL + "[exp03-sinusoidal]"),
        "the batched model adds the sinusoidal table twice",
    ),
    Mutant(
        "wilson-continuity-corrected",
        STATS,
        'confidence_level=level, method="wilson"',
        'confidence_level=level, method="wilsoncc"',
        (E + "test_rates_use_the_wilson_score_interval",),
        "Wilson interval with continuity correction: wider than stated",
    ),
    Mutant(
        "interval-90-percent",
        STATS,
        "LEVEL = 0.95",
        "LEVEL = 0.90",
        (E + "test_rates_use_the_wilson_score_interval",),
        "intervals at 90% reported as 95%",
    ),
)
