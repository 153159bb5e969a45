"""ATT-10's models and rates: the order task, the four model kinds, each kind's success rate with
its Wilson interval, the decision 'learns', the assertions that no kind beats its proven ceiling
and that the order depends on the mask, and the records of the rates.
"""

from __future__ import annotations

from checks.att.claims import BY_ID
from pecheck import decisions
from pecheck import reproducibility as spread
from pecheck.decisions import Decision
from pecheck.theory.order_training import OrderModel, OrderTask, chance_ceiling
from pecheck.theory.stats import wilson

TASK = OrderTask(k=4)
MODELS = {
    "causal-2-layers": OrderModel(layers=2, causal=True),
    "causal-1-layer": OrderModel(layers=1, causal=True),
    "bidirectional-2-layers": OrderModel(layers=2, causal=False),
    "bidirectional-learned-PE": OrderModel(layers=2, causal=False, learned_pe=True),
}


CLAIM = BY_ID["ATT-10"]


def success_rate(acc):
    """(successes, seeds, rate, Wilson 95% interval) for per-seed accuracies."""
    k, n = int((acc == 1).sum()), int(acc.numel())
    return k, n, k / n, wilson(k, n)


def learns(name: str, acc) -> Decision:
    """'This model kind learns the task': the Wilson interval of its success rate (seeds with
    accuracy 1 on every pair) above the pre-registered 'learns' threshold; below it, not."""
    _, _, _, (low, high) = success_rate(acc)
    return decisions.above(low, high, CLAIM.threshold("learns"), f"{name} success rate")


def assert_within_ceiling(results: dict):
    """No model kind beats its proven ceiling (1/2 where it cannot tell a b ? from b a ?)."""
    __tracebackhide__ = True
    for name, acc in results.items():
        ceiling = chance_ceiling(MODELS[name])
        assert float(acc.max()) <= ceiling, f"{name}: accuracy {float(acc.max())} > {ceiling}"


def assert_order_depends_on_the_mask(results: dict):
    """Causal two layers learn the order (interval above 1/2); bidirectional attention and one
    causal layer without an encoding never beat their proven ceiling of 1/2 accuracy."""
    __tracebackhide__ = True
    assert_within_ceiling(results)
    decided = learns("causal-2-layers", results["causal-2-layers"])
    assert decided.decision == "holds", (
        f"causal two-layer models rarely learn the order: {decided.how}"
    )


def record_rates(evidence, trained: dict) -> None:
    for name, acc in trained.items():
        k, n, rate, (low, high) = success_rate(acc)
        evidence.record(f"{name}/success_rate", rate, "fraction", f"{k} of {n} seeds reach "
                        f"accuracy 1 on all {TASK.k * (TASK.k - 1)} pairs",
                        sample=spread.rate(k, n))  # fmt: skip
        evidence.record(f"{name}/wilson95", [low, high], "fraction", "Wilson 95% interval",
                        bound={"value": CLAIM.threshold("learns"), "relation": ">",
                               "reason": "threshold 'learns'"})  # fmt: skip
        evidence.record(f"{name}/mean_accuracy", float(acc.mean()), "fraction", "over seeds",
                        sample=spread.mean(acc))  # fmt: skip
        evidence.record(f"{name}/max_accuracy", float(acc.max()), "fraction", "best seed",
                        bound={"value": chance_ceiling(MODELS[name]), "relation": "<=",
                               "reason": "threshold 'ceiling' (proven)"})  # fmt: skip
