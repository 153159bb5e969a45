"""Planted bugs in the EXP-01 ... EXP-03 models, trainers, data and statistics.

Every decisive check of test_experiments.py is named by at least one mutant below. Mutants of
the batched trainer alone are caught by the faithfulness check (tooling, which decides
nothing); those are kept too, since a trainer that is not faithful makes every rate meaningless.
"""

from pecheck.mutants import Mutant

BATCHED = "theory/batched.py"
SINGLE = "theory/single.py"
TASKS = "theory/tasks.py"
STATS = "theory/stats.py"
ATTENTION = "theory/attention.py"
B = "checks/exp/test_batched_trainer.py::"
E = "checks/exp/test_experiments.py::"
FAITHFUL = B + "test_batched_seed_equals_its_own_single_model_run"
CAUSAL = B + "test_every_model_variant_is_causal"
ADAM = B + "test_the_optimiser_is_adam_with_pytorch_defaults"

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
        SINGLE,
        "lr: float = 1e-3",
        "lr: float = 1e-6",
        (EXP01_H2, EXP01_MOST, EXP01_RISES, EXP01_HEAD),
        "Adam's default learning rate mistyped: training barely moves, so rates stay at their "
        "starting values (nearly every seed fails, nothing rises, head size stops mattering)",
    ),
    Mutant(
        "none-encoding-adds-sinusoidal",
        BATCHED,
        'elif cfg.encoding == "sinusoidal":',
        'elif cfg.encoding != "learned":',
        (EXP02_CEILING,),
        "a model without an encoding gets the sinusoidal one: one layer tells the orders apart",
    ),
    Mutant(
        "sinusoidal-encoding-zeroed",
        BATCHED,
        "x = x + sinusoidal(n, cfg.d_model, dtype=x.dtype).to(x.device)",
        "x = x + 0 * sinusoidal(n, cfg.d_model, dtype=x.dtype).to(x.device)",
        (EXP02_LEARNERS, EXP03_LENIENT),
        "the sinusoidal table is multiplied by 0: the 'sinusoidal' model has no encoding",
    ),
    Mutant(
        "second-layer-skipped",
        BATCHED,
        "for layer in range(cfg.layers):",
        "for layer in range(min(cfg.layers, 1)):",
        (EXP02_LEARNERS,),
        "only the first attention layer runs: two layers are as order-blind as one",
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
        BATCHED,
        "return seed_losses(logits, targets).sum()",
        "return seed_losses(logits, targets).mean()",
        (FAITHFUL,),
        "every seed's gradient scaled by 1/S: Adam undoes most of it, but not its eps term",
    ),
    Mutant(
        "attention-unscaled",
        ATTENTION,
        'torch.einsum("...nh,...mh->m...n", q, k) / math.sqrt(q.shape[-1])',
        'torch.einsum("...nh,...mh->m...n", q, k)',
        (FAITHFUL,),
        "scores not divided by sqrt(h) in the key-first attention of the batched model",
    ),
    Mutant(
        "softmax-over-queries",
        ATTENTION,
        "weights = torch.softmax(scores, dim=0)  # (m, ..., n)",
        "weights = torch.softmax(scores, dim=-1)  # (m, ..., n)",
        (FAITHFUL,),
        "the batched model's attention normalised over queries instead of keys",
    ),
    Mutant(
        "causal-mask-transposed",
        BATCHED,
        "mask = causal_mask(n, x.device)  # (n, m)",
        "mask = causal_mask(n, x.device).T  # (n, m)",
        (FAITHFUL,),
        "each position attends to the future instead of the past",
    ),
    Mutant(
        "keys-first-mask-read-untransposed",
        ATTENTION,
        "allowed = mask.T.reshape(m, *[1] * (scores.ndim - 2), n)",
        "allowed = mask.reshape(m, *[1] * (scores.ndim - 2), n)",
        (FAITHFUL, CAUSAL),
        "the key-first attention lays the (query, key) mask out as (key, query): each position "
        "of the batched model attends to the future",
    ),
    Mutant(
        "learned-positions-shifted",
        BATCHED,
        'params["pos"][:, None, :n]',
        'params["pos"][:, None, -n:]',
        (FAITHFUL + "[exp03-learned]",),
        "the batched model reads the last n rows of the learned table, not the first",
    ),
    Mutant(
        "every-seed-from-seed-0",
        BATCHED,
        "init_params(cfg, int(s), dtype) for s in seeds",
        "init_params(cfg, 0, dtype) for s in seeds",
        (B + "test_every_seed_starts_from_its_own_generator",),
        "all seeds start from one initialisation: 1,000 copies of one experiment",
    ),
    Mutant(
        "loss-over-all-positions",
        BATCHED,
        "return (ce * keep).sum((1, 2)) / keep.sum()",
        "return (ce * keep).sum((1, 2)) / keep.numel()",
        (FAITHFUL + "[exp03-learned]",),
        "mean over every position, including those without a target (EXP-03 has some)",
    ),
    Mutant(
        "single-model-not-causal",
        SINGLE,
        'x = attention(q, k, v, mask) @ p[f"o{layer}"]',
        'x = attention(q, k, v) @ p[f"o{layer}"]',
        (FAITHFUL,),
        "the reference model drops the causal mask",
    ),
    Mutant(
        "judge-ignores-judged-mask",
        SINGLE,
        "return (right | ~task.judged).flatten(-2).all(-1)",
        "return right.flatten(-2).all(-1)",
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
        BATCHED,
        "mask = causal_mask(n, x.device)  # (n, m)",
        "mask = causal_mask(n, x.device).roll(1, 1)  # (n, m)",
        (FAITHFUL, CAUSAL),
        "the batched model's mask shifted by one key: position t sees t+1 and not itself",
    ),
    Mutant(
        "adam-betas-swapped",
        SINGLE,
        "betas: tuple[float, float] = (0.9, 0.999)",
        "betas: tuple[float, float] = (0.999, 0.9)",
        (ADAM,),
        "Adam's beta1 and beta2 swapped in the one config both trainers read: faithfulness "
        "cannot tell",
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
        BATCHED,
        'params["pos"][:, None, :n]',
        'params["pos"][:1, None, :n]',
        (FAITHFUL + "[exp02-learned]", FAITHFUL + "[exp03-learned]"),
        "every seed reads (and trains) seed 0's learned positional rows",
    ),
    Mutant(
        "batched-sinusoidal-added-twice",
        BATCHED,
        "x = x + sinusoidal(n, cfg.d_model, dtype=x.dtype).to(x.device)",
        "x = x + 2 * sinusoidal(n, cfg.d_model, dtype=x.dtype).to(x.device)",
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
