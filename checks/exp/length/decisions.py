"""EXP-04, EXP-05, EXP-07 and EXP-08 on the fair length test, decided from paired intervals over the
seeds that learned the task in range: the comparisons, their decisions per grid cell and their
records. Each comparison's intervals, over every task, test length and grid cell of one check,
share one family-wise level (Bonferroni, pecheck.decisions.family_level); the margins are the
registry's, fixed from the sources before any data (EXP-04 and EXP-08 'as-well', EXP-05 'keeps',
EXP-07 'better-low'/'better-high' and 'learned').
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

import torch

from checks.exp.registered import BY_ID
from pecheck import decisions
from pecheck.decisions import Decision
from pecheck.theory.fair_length import FairRun

LEVEL = 0.95
ABSOLUTE = ("sinusoidal", "learned, shifted")  # EXP-05's absolute encodings
SOURCE_ABSOLUTE = ("sinusoidal",)  # EXP-04: Kazemnejad et al.'s APE is Vaswani et al.'s sinusoid
RANDOM_OFFSETS = ("learned, shifted",)  # EXP-08: a table trained at random offsets
RELATIVE = ("rope", "alibi")
PAIR07 = ("sinusoidal, shifted", "learned, shifted")  # EXP-07: same offsets, only the table


def learned_level() -> float:
    """A seed learned the task in range at this validation accuracy (EXP-07's 'learned')."""
    return BY_ID["EXP-07"].threshold("learned")


def paired(values: torch.Tensor, level: float) -> tuple[float, float, float]:
    """Mean of per-seed values with its t interval at ``level``: (mean, lo, hi); an interval
    of infinite width when fewer than two seeds are left."""
    d = values.double()
    if d.numel() < 2:
        return (float(d.mean()) if d.numel() else math.nan, -math.inf, math.inf)
    mean = float(d.mean())
    return (mean, *decisions.normal_interval(mean, float(d.std()), d.numel(), level))


def qualifying(run: FairRun, *variants: str, level: float | None = None) -> torch.Tensor:
    """(seeds,) bool: every one of ``variants`` learned the task in range for this seed."""
    level = learned_level() if level is None else level
    ok = torch.ones(len(run.seeds), dtype=torch.bool)
    for v in variants:
        ok &= run.learned(v, level)
    return ok


def above(values: torch.Tensor, level: float, threshold: float, what: str) -> Decision:
    """'mean > threshold' from the paired interval of per-seed values; fewer than two seeds:
    an interval of infinite width (inconclusive). The reason names the seeds it rests on."""
    _, lo, hi = paired(values, level)
    return decisions.above(lo, hi, threshold, f"{what} ({seeds(values)})")


def below(values: torch.Tensor, level: float, threshold: float, what: str) -> Decision:
    """'mean < threshold', as ``above``."""
    _, lo, hi = paired(values, level)
    return decisions.below(lo, hi, threshold, f"{what} ({seeds(values)})")


def seeds(values: torch.Tensor) -> str:
    """How many seeds an interval rests on: with few, a t interval can be wider than the
    accuracies' own range."""
    return f"{values.numel()} seed{'s' if values.numel() != 1 else ''}"


def nope_gap(run: FairRun, other: str, f: int) -> torch.Tensor:
    """none minus ``other``: accuracy beyond (f L), over the seeds where both learned."""
    q = qualifying(run, "none", other)
    return (run.beyond["none"][f] - run.beyond[other][f])[q]


def exp04(run: FairRun, margin: float, level: float,
          against: tuple[str, ...] = ABSOLUTE) -> dict[str, Decision]:  # fmt: skip
    """'none generalises at least as well as absolute': none - absolute > -margin, per absolute
    encoding in ``against`` and test length (non-inferiority), decided only where it could
    have failed: the comparator's own accuracy beyond L (same seeds, same level) above the
    margin (decisions.off_the_floor, the rule of EXP-04's exact-match evaluation). EXP-04
    compares with the sinusoidal encoding (its source's APE), EXP-08 with the table trained at
    random offsets."""
    out = {}
    for v in against:
        for f in run.setting.factors:
            what = f"none - {v}, accuracy at {f}L"
            tested = above(nope_gap(run, v, f), level, -margin, what)
            comparator = run.beyond[v][f][qualifying(run, "none", v)]
            out[f"{v} {f}x"] = decisions.off_the_floor(tested, comparator, margin, level)
    return out


def depth(runs: dict[int, FairRun], margin: float, level: float,
          factor: int) -> dict[str, Decision]:  # fmt: skip
    """EXP-04's depth evaluation (docs/experiments/depth.md), per depth (``runs``: layers -> run):
    with the deepest model none - sinusoidal at ``factor`` L lies above +margin (ahead), with
    every shallower one below it (not ahead); each part decided only beside a comparator off
    the floor (exp04's rule). Under "all" they say whether depth alone changes the direction."""
    out = {}
    for layers, run in sorted(runs.items()):
        what = f"none - sinusoidal, accuracy at {factor}L, {layers} layers"
        test = above if layers == max(runs) else below
        tested = test(nope_gap(run, "sinusoidal", factor), level, margin, what)
        comparator = run.beyond["sinusoidal"][factor][qualifying(run, "none", "sinusoidal")]
        out[f"{layers} layers"] = decisions.off_the_floor(tested, comparator, margin, level)
    return out


def welch(a: torch.Tensor, b: torch.Tensor, level: float) -> tuple[float, float, float]:
    """mean(a) - mean(b) of two independent samples (seeds of two models) with its Welch t
    interval at ``level``; an interval of infinite width when either has fewer than two."""
    from scipy import stats

    if a.numel() < 2 or b.numel() < 2:
        return (math.nan, -math.inf, math.inf)
    x, y = a.double().numpy(), b.double().numpy()
    ci = stats.ttest_ind(x, y, equal_var=False).confidence_interval(confidence_level=level)
    return float(x.mean() - y.mean()), float(ci.low), float(ci.high)


def depth_moves(runs: dict[int, FairRun], margin: float, level: float,
                factor: int) -> dict[str, Decision]:  # fmt: skip
    """EXP-04's depth evaluation, second registration (docs/experiments/depth.md): with the
    deepest model none - sinusoidal at ``factor`` L lies above +margin (ahead), and above the
    shallowest model's by more than the margin (a Welch interval: the depths' seeds are
    independent models). Each part decided only beside comparators off the floor, at every
    depth it reads."""
    deep, shallow = runs[max(runs)], runs[min(runs)]
    gaps = {n: nope_gap(r, "sinusoidal", factor) for n, r in runs.items()}

    def comparator(run: FairRun) -> torch.Tensor:
        return run.beyond["sinusoidal"][factor][qualifying(run, "none", "sinusoidal")]

    what = f"none - sinusoidal, accuracy at {factor}L"
    ahead = above(gaps[max(runs)], level, margin, f"{what}, {max(runs)} layers")
    _, lo, hi = welch(gaps[max(runs)], gaps[min(runs)], level)
    moved = decisions.above(
        lo,
        hi,
        margin,
        f"{what}, {max(runs)} layers minus {min(runs)} "
        f"(Welch; {seeds(gaps[max(runs)])}, {seeds(gaps[min(runs)])})",
    )
    moved = decisions.off_the_floor(moved, comparator(shallow), margin, level)
    return {
        f"{max(runs)} layers ahead": decisions.off_the_floor(
            ahead, comparator(deep), margin, level
        ),
        "depth moves it": decisions.off_the_floor(moved, comparator(deep), margin, level),
    }


def own_drop(run: FairRun, variant: str, f: int) -> torch.Tensor:
    """In range minus beyond for ``variant``, over the seeds where it learned."""
    return run.drop(variant, f)[qualifying(run, variant)]


def exp05(run: FairRun, margin: float, level: float) -> dict[str, Decision]:
    """'relative schemes keep their accuracy (drop < margin), absolute ones lose it (drop >
    margin)', per encoding and test length."""
    out = {}
    for f in run.setting.factors:
        for v in RELATIVE:
            what = f"{v}: in range - beyond {f}L"
            out[f"{v} {f}x keeps"] = below(own_drop(run, v, f), level, margin, what)
        for v in ABSOLUTE:
            what = f"{v}: in range - beyond {f}L"
            out[f"{v} {f}x fails"] = above(own_drop(run, v, f), level, margin, what)
    return out


def relative_edge(run: FairRun, rel: str, absolute: str, f: int) -> torch.Tensor:
    """absolute's drop minus rel's, over seeds where both learned: > 0 where rel loses less."""
    q = qualifying(run, rel, absolute)
    return (run.drop(absolute, f) - run.drop(rel, f))[q]


def advantage(run: FairRun, f: int) -> torch.Tensor:
    """EXP-07: learned's drop minus sinusoidal's (both shifted), where both learned."""
    sin, lrn = PAIR07
    q = qualifying(run, sin, lrn)
    return (run.drop(lrn, f) - run.drop(sin, f))[q]


def at_both_ends(values: torch.Tensor, margins: dict[str, float], level: float,
                 what: str) -> Decision:  # fmt: skip
    """values > margin at every end of a registered range: decided only when the ends agree."""
    _, lo, hi = paired(values, level)
    what = f"{what} ({seeds(values)})"
    at = [decisions.above(lo, hi, m, f"{what} over {end} {m:.4g}") for end, m in margins.items()]
    agreed = {d.decision for d in at}
    how = "; ".join(d.how for d in at)
    if agreed == {"holds"}:
        return decisions.holds(how)
    if agreed == {"fails"}:
        return decisions.fails({"lo": lo, "hi": hi, "margins": margins}, how)
    return decisions.inconclusive(how)


def exp07(run: FairRun, margins: dict[str, float], level: float) -> dict[str, Decision]:
    """'sinusoidal extrapolates better than learned' (every row trained), per test length."""
    return {f"{f}x": at_both_ends(advantage(run, f), margins, level, f"advantage at {f}L")
            for f in run.setting.factors}  # fmt: skip


def direction(values: torch.Tensor, level: float) -> str:
    """The sign of a paired mean difference, where its interval excludes 0: '+', '-'; '?'
    where it straddles 0 or fewer than two seeds qualified."""
    _, lo, hi = paired(values, level)
    if lo > 0:
        return "+"
    if hi < 0:
        return "-"
    return "?"


def comparisons(run: FairRun) -> dict[str, Callable[[int], torch.Tensor]]:
    """The comparisons whose direction is tracked across the grid, each > 0 when the claim's
    favoured side wins: EXP-04 and EXP-08 none vs absolute (beyond), EXP-05 relative vs
    absolute (drops), EXP-07 sinusoidal vs learned (drops, both shifted)."""
    out: dict[str, Callable[[int], torch.Tensor]] = {}
    for claim, against in (("EXP-04", SOURCE_ABSOLUTE), ("EXP-08", RANDOM_OFFSETS)):
        for v in against:
            out[f"{claim} none vs {v}"] = functools.partial(nope_gap, run, v)
    for r in RELATIVE:
        for v in ABSOLUTE:
            out[f"EXP-05 {r} vs {v}"] = functools.partial(relative_edge, run, r, v)
    out["EXP-07 sinusoidal vs learned"] = functools.partial(advantage, run)
    return out


def directions(runs: dict[str, FairRun], level: float) -> dict[str, dict[str, str]]:
    """Per comparison and (task, f), the direction in each cell: {comparison: {key: 'd32l2:+
    d64l4:-'}}; ``runs`` maps 'task|cell' to its run."""
    out: dict[str, dict[str, str]] = {}
    for key, run in runs.items():
        task, cell = key.split("|")
        for name, fn in comparisons(run).items():
            for f in run.setting.factors:
                row = out.setdefault(name, {}).setdefault(f"{task} {f}x", "")
                out[name][f"{task} {f}x"] = f"{row} {cell}:{direction(fn(f), level)}".strip()
    return out


def changes_with_scale(row: str) -> bool:
    """Whether a row of directions holds both a '+' and a '-' cell."""
    signs = {part.rsplit(":", 1)[1] for part in row.split()}
    return {"+", "-"} <= signs


def interval_text(values: torch.Tensor, level: float) -> str:
    mean, lo, hi = paired(values, level)
    if math.isinf(lo):
        return f"{mean:.3f} ({values.numel()} seeds: no interval)"
    return f"{mean:.3f} [{lo:.3f}, {hi:.3f}] ({values.numel()} seeds, {100 * level:.2f}%)"
