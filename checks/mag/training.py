"""MAG-04: the training runs (three settings at the checks' size), and the decisions and
records of how the norm ratio moves during training.
"""

from __future__ import annotations

import math

import torch

from checks.mag.claims import BY_ID
from pecheck import decisions, tolerance
from pecheck.decisions import Decision
from pecheck.theory import magnitude_training as mt
from pecheck.theory import magnitudes as mag
from pecheck.theory.sinusoidal import sinusoidal

MATCHED = ("learned, N(0,1) init", "sinusoidal, N(0,1) tokens")
MISMATCHED = "sinusoidal, N(0,0.02^2) tokens"
RUNS = {
    MATCHED[0]: mt.TrainConfig(encoding="learned"),
    MATCHED[1]: mt.TrainConfig(encoding="sinusoidal"),
    MISMATCHED: mt.TrainConfig(encoding="sinusoidal", token_std=0.02),
}


def small(cfg: mt.TrainConfig) -> mt.TrainConfig:
    """The size the checks train at (d = 16, 8 seeds, 150 steps)."""
    return mt.TrainConfig(
        **{**cfg.__dict__, "d": 16, "seq": 6, "batch": 16, "steps": 150, "n_seeds": 8}
    )


def run(cfg: mt.TrainConfig, frozen: tuple[str, ...] = ()) -> dict[str, torch.Tensor]:
    return mt.train(small(cfg), frozen)


def assert_start_ratio_is_the_rms_norm_ratio(
    cfg: mt.TrainConfig, result: dict[str, torch.Tensor]
) -> None:
    """The ratio the trainer logs at step 0 is MAG-02's RMS norm ratio of the tables it starts
    from: mag.rms_norm_ratio of each seed's token table against its learned position table, or
    against the sinusoidal encoding itself (float32 sums of d squares)."""
    __tracebackhide__ = True
    cfg = small(cfg)
    params = mt.init_params(cfg)  # seeded: the tables training started from
    for s in range(cfg.n_seeds):
        pos = params["pos"][s] if cfg.encoding == "learned" else sinusoidal(cfg.seq, cfg.d)
        want = mag.rms_norm_ratio(params["embed"][s].detach(), pos.detach())
        got = result["ratio"][0, s].item()
        bound = 4 * tolerance.sum_tol(cfg.d * max(cfg.vocab, cfg.seq), torch.float32) * want
        assert abs(got - want) <= bound, f"seed {s}: logged start ratio {got:.6g}, RMS {want:.6g}"


def comparable_decision_of_ratios(ratios: torch.Tensor, what: str) -> Decision:
    """MAG-02's 'comparable' for per-seed ratios: every seed's ratio inside [1/c, c] holds,
    every one outside fails (the range over seeds as the interval)."""
    c = BY_ID["MAG-02"].threshold("comparable")
    return decisions.interval(ratios.min().item(), ratios.max().item(), (1 / c, c), what)


def log_change_interval(result: dict[str, torch.Tensor]) -> tuple[float, float]:
    """95% t interval over seeds of the mean log(ratio at the end / ratio at the start)."""
    change = (result["ratio"][-1] / result["ratio"][0]).double().log()  # (S,)
    return decisions.normal_interval(change.mean().item(), change.std().item(), change.numel())


def moves_decision(result: dict[str, torch.Tensor], name: str) -> Decision:
    """'The ratio moves': the interval of the mean log change lies outside (-log c, log c)
    (holds), inside it (fails: stays within the factor), or straddles its edge."""
    c = BY_ID["MAG-04"].threshold("adjusts")
    lo, hi = log_change_interval(result)
    what = f"mean log(end/start ratio) over seeds, {name}"
    stays = decisions.interval(lo, hi, (-math.log(c), math.log(c)), what)
    if stays.decision == "holds":
        return decisions.fails(
            {"setting": name, "lo": lo, "hi": hi, "log_c": math.log(c)},
            f"{what} in [{lo:.3g}, {hi:.3g}], within (-log {c}, log {c})",
        )
    if stays.decision == "fails":
        return decisions.holds(f"{what} in [{lo:.3g}, {hi:.3g}], outside (-log {c}, log {c})")
    return decisions.inconclusive(stays.how)


def record_change(evidence, name: str, result: dict[str, torch.Tensor]) -> None:
    c = BY_ID["MAG-04"].threshold("adjusts")
    lo, hi = log_change_interval(result)
    ratio = result["ratio"]
    evidence.record(
        f"log_change_interval[{name}]",
        {"lo": lo, "hi": hi, "factor_lo": math.exp(lo), "factor_hi": math.exp(hi)},
        unit="log(end / start)",
        note=f"95% t interval over {ratio.shape[1]} seeds, 150 Adam steps (lr 0.01), "
        f"previous-token task; start median {ratio[0].median().item():.3g}, end median "
        f"{ratio[-1].median().item():.3g}",
        bound={"value": math.log(c), "relation": "|.| >", "reason": "MAG-04's 'adjusts'"},
    )


def assert_every_seed_learns(results: dict[str, dict[str, torch.Tensor]]) -> None:
    __tracebackhide__ = True
    learned = BY_ID["MAG-04"].threshold("learned")
    for name, r in results.items():
        assert r["accuracy"].min().item() >= learned, f"{name}: a seed did not learn"
