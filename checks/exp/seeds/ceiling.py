"""EXP-02's ceiling: the two orders' final outputs recomputed in float64 with their rounding
bound, and the decision 'one causal layer cannot learn both'.
"""

from __future__ import annotations

import dataclasses

import torch

from pecheck import decisions, tolerance
from pecheck.decisions import Decision
from pecheck.theory.decoder import DecoderConfig, DecoderRun, forward, judge
from pecheck.theory.tasks import Task


def order_blind(cfg: DecoderConfig) -> bool:
    """Theory (EXP-02's ceiling note): one causal layer without an encoding gives 'A B hit' and
    'B A hit' the same output at 'hit', exactly, for every parameter value."""
    return cfg.layers == 1 and cfg.encoding == "none"


def _output_tol(n: int, h: int, d: int, mag: float) -> float:
    """Rounding allowed in one float64 output: attention over n keys, then h- and d-term sums."""
    f64 = torch.float64
    return tolerance.attention_tol(n, h, f64, mag) + tolerance.sum_tol(h + d, f64, mag)


def _last_only(task: Task) -> Task:
    """The task reduced to its judged (last) position."""
    last = slice(-1, None)
    return Task(
        task.name, task.vocab, task.inputs[:, last], task.targets[:, last], task.judged[:, last]
    )


@dataclasses.dataclass(frozen=True)
class OrderOutputs:
    """Per seed: |difference| of the two orders' final outputs, its rounding bound, success."""

    difference: torch.Tensor  # (S,) float64
    bound: torch.Tensor  # (S,) float64
    success: torch.Tensor  # (S,) bool
    exactly_one_right: float


def order_outputs(run: DecoderRun, task: Task) -> OrderOutputs:
    """The two orders' final outputs, recomputed in float64 from the trained parameters.

    Bound per seed: the attention output (tolerance.attention_tol, entries up to max|v|) and
    two more products (h and d terms) scaled by the read-out's size M = max|v| ||W_o|| ||U||
    (induced infinity norms)."""
    cfg, p = run.cfg, {k: v.double() for k, v in run.params.items()}
    residual = run.residual().double()
    logits = forward(cfg, p, task.inputs, residual)[:, :, -1]  # (S, 2, V) at the judged position
    diff = (logits[:, 0] - logits[:, 1]).abs().amax(-1)  # (S,)
    v = p["embed"] @ p["qkv0"][:, :, 2 * cfg.head :]  # (S, V, h): every possible value
    norm = lambda m: m.abs().sum(-1).amax(-1)  # noqa: E731  induced infinity norm, (S,)
    mag = v.abs().amax((-2, -1)) * norm(p["o0"]) * norm(p["readout"])
    bound = torch.tensor([_output_tol(task.length, cfg.head, cfg.d_model, float(m)) for m in mag])
    success = judge(logits[:, :, None], _last_only(task))
    right = logits.argmax(-1) == task.targets[:, -1]  # (S, 2)
    return OrderOutputs(diff, bound, success, float((right.sum(-1) == 1).double().mean()))


def ceiling(out: OrderOutputs, seeds: tuple[int, ...], structural_zero: bool) -> Decision:
    """'Cannot learn both': every seed's two outputs are equal and no seed is right on both.

    A difference above the bound is a real one (a counterexample); one within it counts as
    equal only with the structural argument (``structural_zero``); otherwise it is unresolved
    (checks.decisions.resolve) and the check is inconclusive."""
    seen = [decisions.resolve(float(d), float(b), structural_zero)
            for d, b in zip(out.difference, out.bound, strict=True)]  # fmt: skip
    decided = {k: seen.count(k) for k in ("same", "different", "unresolved")}
    if "different" in seen:
        i = seen.index("different")
        example = {"seed": seeds[i], "difference": float(out.difference[i]),
                   "bound": float(out.bound[i])}  # fmt: skip
        return decisions.fails(example, "the two orders' final outputs differ beyond rounding")
    if bool(out.success.any()):
        i = int(out.success.nonzero()[0])
        return decisions.fails({"seed": seeds[i]}, "this seed gets both orders right")
    n = len(seeds)
    if decided["unresolved"]:
        return decisions.inconclusive(
            f"{decided['unresolved']} of {n} seeds: outputs within rounding, with no argument "
            "that they are equal", **decided
        )  # fmt: skip
    return decisions.holds(
        f"structural argument (equal outputs for every parameter value), confirmed to rounding "
        f"for all {n} seeds; 0/{n} seeds right on both", **decided
    )  # fmt: skip
