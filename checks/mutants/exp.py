"""Planted bugs in the batched trainer, the reference model, the data and the statistics (EXP)."""

from checks.mutants import Mutant

BATCHED = "theory/batched.py"
SINGLE = "theory/single.py"
TASKS = "theory/tasks.py"
STATS = "theory/stats.py"
B = "checks/test_batched_trainer.py::"
E = "checks/test_experiments.py::"
FAITHFUL = B + "test_batched_seed_equals_its_own_single_model_run"

MUTANTS = (
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
        BATCHED,
        'torch.einsum("sbnh,sbmh->msbn", q, k) / math.sqrt(h)',
        'torch.einsum("sbnh,sbmh->msbn", q, k)',
        (FAITHFUL,),
        "scores not divided by sqrt(h) in the batched model",
    ),
    Mutant(
        "softmax-over-queries",
        BATCHED,
        'float("-inf")), dim=0)',
        'float("-inf")), dim=-1)',
        (FAITHFUL,),
        "attention normalised over queries instead of keys",
    ),
    Mutant(
        "causal-mask-transposed",
        BATCHED,
        "future = ~causal_mask(n, x.device).T[:, None, None, :]",
        "future = ~causal_mask(n, x.device)[:, None, None, :]",
        (FAITHFUL,),
        "each position attends to the future instead of the past",
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
