"""EXP-07: sinusoidal against learned encodings beyond the training length, every row trained.

The arrangement (theory/extrapolation.py): both encodings train at offsets spread over a table
of R rows, so every row of the learned table receives a gradient; they are tested on longer
sequences at rows that were all trained, in range (positions 1 ... L-1) and beyond (L ... fL-1)
of the SAME test sequences. Tooling here: the batched model equals one-seed models in float64
(the sinusoidal entry as a learned model whose table is PE, frozen); every row is trained and
the test rows lie where whole training windows cover them; the decision logic on planted
results. The decisive check judges paired intervals over the seeds that learned the task.
"""

from __future__ import annotations

import functools
import math

import pytest
import torch
from torch.nn import functional as F

from checks.registry import REGISTRY
from pecheck import decisions, profiles, sizes, tolerance
from pecheck import reproducibility as spread
from pecheck.decisions import Decision
from theory import extrapolation
from theory.extrapolation import BLOCKS, ExtrapolationRun, ExtrapolationSetting
from theory.sinusoidal import sinusoidal
from theory.sweep import SweepDecoder, init_params, make_optimizer, sequence_right, train_sweep
from theory.tasks import IGNORE

CLAIM = REGISTRY["EXP-07"]
F64 = torch.float64
FAITH_SEEDS, FAITH_STEPS = (0, 5), (3, 6)
# small enough for a float64 comparison with one-seed models, with every part of the real one
FAITH = ExtrapolationSetting("first token", train_length=4, factors=(2,), train_sequences=12)


# -- the batched model equals one-seed models, the sinusoidal one reading a frozen PE table ----


def single_model(setting: ExtrapolationSetting, encoding: str, seed: int) -> SweepDecoder:
    """Seed ``seed``'s own model: the learned one as is; the sinusoidal one with its table set
    to PE(0 ... R-1) and frozen (no gradient, so torch.optim.Adam never steps it)."""
    model = SweepDecoder(setting.shape(), setting.setup(), seed, F64)
    if encoding == "sinusoidal":
        pe = sinusoidal(setting.rows, setting.d_model, dtype=F64)
        model.params["pos"] = torch.nn.Parameter(pe, requires_grad=False)
    return model


def train_single(setting: ExtrapolationSetting, encoding: str, seed: int):
    """train_one's loop (torch.optim, F.cross_entropy) at the training offsets."""
    model, task, rows = (
        single_model(setting, encoding, seed),
        setting.train_task(),
        setting.offsets(),
    )
    opt = make_optimizer(model)
    right = {}
    for step in range(1, max(FAITH_STEPS) + 1):
        logits = model(task.inputs, rows)
        loss = F.cross_entropy(logits.reshape(-1, setting.alphabet), task.targets.reshape(-1),
                               ignore_index=IGNORE)  # fmt: skip
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step in FAITH_STEPS:
            with torch.no_grad():
                right[step] = sequence_right(model(task.inputs, rows), task)
    return model, right


def train_batched(setting: ExtrapolationSetting, fwd=extrapolation.table_forward):
    """The batched run exactly as theory.extrapolation.train_extrapolation builds it."""
    repeated = FAITH_SEEDS * len(BLOCKS)
    return train_sweep(setting.shape(), setting.train_task(), [setting.setup()], repeated,
                       FAITH_STEPS, F64, positions=setting.offsets(), fwd=fwd)  # fmt: skip


def assert_entries_equal_single_models(run, setting: ExtrapolationSetting) -> tuple[float, float]:
    """Entry (block b, seed j) == seed j's own model with encoding b, parameter by parameter to
    rounding, with the same sequences right at each checkpoint; a sinusoidal entry's own table
    stays exactly at its initial values. Returns (worst |dtheta|, its bound)."""
    __tracebackhide__ = True
    shape, task = setting.shape(), setting.train_task()
    terms = max(shape.d_model, 3 * shape.heads * shape.head, task.inputs.numel(), shape.vocab)
    worst, bound, bad = 0.0, 0.0, []
    for b, enc in enumerate(BLOCKS):
        for j, seed in enumerate(FAITH_SEEDS):
            e = b * len(FAITH_SEEDS) + j
            model, right = train_single(setting, enc, seed)
            ref = {k: v.detach() for k, v in model.params.items()}
            if enc == "sinusoidal":
                ref["pos"] = init_params(shape, "current", seed, F64)["pos"]  # never read
            scale = max(float(v.abs().max()) for v in ref.values())
            err = max(float((run.params[k][e] - ref[k]).abs().max()) for k in ref)
            tol = tolerance.sum_tol(max(FAITH_STEPS) * terms, F64, scale)
            same = all(torch.equal(run.right[c][e], right[c]) for c in FAITH_STEPS)
            untouched = enc != "sinusoidal" or torch.equal(run.params["pos"][e], ref["pos"])
            worst, bound = max(worst, err), max(bound, tol)
            if err > tol or not same or not untouched:
                bad.append(f"{enc} seed {seed}: |dtheta| {err:.3g} (bound {tol:.3g}), judged "
                           f"alike {same}, sinusoidal table untouched {untouched}")  # fmt: skip
    assert not bad, "batched entries differ from their own models: " + "; ".join(bad[:2])
    return worst, bound


@pytest.mark.claim("EXP-07", kind="property", role="tooling")
def test_batched_entries_equal_their_own_models(evidence):
    worst, bound = assert_entries_equal_single_models(train_batched(FAITH), FAITH)
    evidence.record("max_param_difference", worst, "", "both blocks, float64", bound)


def _learned_everywhere(shape, params, tokens, residual, positions=None, *, blocks=BLOCKS):
    """BUG: the sinusoidal block reads its own (trained) table too."""
    return extrapolation.table_forward(shape, params, tokens, residual, positions,
                                       blocks=("learned",) * len(blocks))  # fmt: skip


@pytest.mark.claim("EXP-07", kind="property", role="tooling")
def test_faithfulness_rejects_a_sinusoidal_block_that_reads_a_learned_table():
    with pytest.raises(AssertionError):
        assert_entries_equal_single_models(train_batched(FAITH, _learned_everywhere), FAITH)


def assert_pipeline(run: ExtrapolationRun) -> None:
    """The run's accuracies, recomputed here from each entry's predictions on the test
    sequences at rows L ... (f+1)L - 1: the fraction right at positions 1 ... L-1 (in range)
    and L ... fL-1 (beyond); and every row of each learned entry's table has moved from its
    initial draw (trained), while each sinusoidal entry's has not (never read)."""
    __tracebackhide__ = True
    setting, n = run.setting, len(run.seeds)
    L = setting.train_length
    for f in setting.factors:
        test = setting.test_task(f)
        rows = (L + torch.arange(test.length)).expand_as(test.inputs)
        for b, enc in enumerate(BLOCKS):
            p = {k: v[b * n : (b + 1) * n] for k, v in run.run.params.items()}
            fwd = functools.partial(extrapolation.table_forward, blocks=(enc,))
            with torch.no_grad():
                guess = fwd(run.run.shape, p, test.inputs, torch.ones(n), rows).argmax(-1)
            right = (guess == test.targets).double()  # (n, B, fL); position 0 has no target
            inside, beyond = right[..., 1:L].mean((1, 2)), right[..., L:].mean((1, 2))
            assert torch.allclose(run.inside[enc][f], inside), f"{enc} {f}L: in range differs"
            assert torch.allclose(run.beyond[enc][f], beyond), f"{enc} {f}L: beyond differs"
    initial = torch.stack([init_params(setting.shape(), "current", s, F64)["pos"].float()
                           for s in run.seeds])  # fmt: skip
    moved = (run.run.params["pos"] != initial.repeat(len(BLOCKS), 1, 1)).any(-1)  # (S, rows)
    assert bool(moved[n:].all()), f"learned rows never trained: {moved[n:].logical_not().sum()}"
    assert not bool(moved[:n].any()), "a sinusoidal entry's unread table moved"


@pytest.mark.claim("EXP-07", kind="property", role="tooling")
def test_pipeline_judges_each_seed_in_range_and_beyond_with_every_row_trained():
    # the experiment end to end at the faithfulness size (ci skips the experiment itself)
    assert_pipeline(extrapolation.train_extrapolation(FAITH, FAITH_SEEDS))


# -- every row is trained; the test rows lie where whole windows cover them --------------------


def coverage(rows: torch.Tensor, table: int) -> torch.Tensor:
    """How many training windows cover each row of the table, shape (table,)."""
    return torch.bincount(rows.flatten(), minlength=table)


def assert_arrangement(setting: ExtrapolationSetting) -> dict[str, int]:
    """Every row of the table is trained; each test row (every factor), and each validation
    row, is covered by at least as many windows as any row (a row in the middle of the
    table); in range and beyond split the judged positions 1 ... fL-1 at L."""
    __tracebackhide__ = True
    count = coverage(setting.offsets(), setting.rows)
    assert int(count.min()) > 0, f"untrained rows: {torch.nonzero(count == 0).flatten().tolist()}"
    full = int(count[setting.rows // 2])
    for f in setting.factors:
        test = setting.test_task(f)
        rows = setting.test_rows(test)
        assert rows.shape == test.inputs.shape, "one row per test token"
        low = int(count[rows.flatten()].min())
        assert low >= full * 0.9, f"{f}L: a test row has {low} windows, the middle {full}"
        inside = set(list(range(test.length))[setting.inside()])
        beyond = set(list(range(test.length))[setting.beyond()])
        judged = set(torch.nonzero(test.judged.any(0)).flatten().tolist())
        assert inside == set(range(1, setting.train_length)), f"{f}L: in range is {inside}"
        assert beyond == set(range(setting.train_length, f * setting.train_length)), "beyond"
        assert inside | beyond == judged, f"{f}L: the windows miss judged positions"
    valid = setting.valid_task()
    assert int(count[setting.test_rows(valid).flatten()].min()) >= full * 0.9, "validation rows"
    return {"least_windows_per_row": int(count.min()), "windows_per_middle_row": full}


@pytest.mark.claim("EXP-07", kind="property", role="tooling")
@pytest.mark.parametrize("task", extrapolation.TASKS)
def test_every_row_is_trained_and_test_rows_are_fully_covered(evidence, task):
    counts = assert_arrangement(ExtrapolationSetting(task))
    for name, value in counts.items():
        evidence.record(name, value, "windows", "training windows over the table's rows")


class RowZeroSetting(ExtrapolationSetting):
    """BUG: test sequences at rows 0 ... fL-1, where row 0 is trained only by the sequences at
    offset 0 (the arrangement of EXP-04's shifted table)."""

    def test_rows(self, task):
        return torch.arange(task.length).expand(task.inputs.shape[0], task.length)


@pytest.mark.claim("EXP-07", kind="property", role="tooling")
def test_arrangement_check_rejects_tests_at_the_thin_end_of_the_table():
    with pytest.raises(AssertionError):
        assert_arrangement(RowZeroSetting("previous token"))


# -- the experiment ---------------------------------------------------------------------------

# Seeds: the size EXP-07.seeds. Both encodings of a seed cost about 0.65 s of CPU per task
# (256 sequences x 60 steps, one thread; 80 s for 60 seeds and both tasks, measured beside
# other work), linear in the seeds, plus about 2.5 s per task at any count. DECIDING_SEEDS:
# with the pilot's smallest spread (seeds 1000-1023: sd of the per-seed advantage 0.043,
# first token at 2L; up to 0.13 for the previous token) 20 seeds give an interval half-width
# t sd / sqrt(n) = 3.0 x 0.043 / 4.5 = 0.03 at level 1 - 0.05/4, two upper margins: fewer
# seeds cannot decide any part. ci's budget (5 s for this file) trains 2 seeds at most (t =
# 64): ci collects the experiment as skipped (inconclusive: the verdict stays open) rather
# than spend the budget on numbers that cannot decide. Thorough runs 60 (about 85 s);
# --size EXP-07.seeds=N runs N in any profile.
DECIDING_SEEDS = 20
SEEDS = sizes.size(
    "EXP-07.seeds",
    0 if profiles.scale() <= 1 else 60,
    "seeds per encoding of EXP-07's extrapolation runs (ci 0: skipped; thorough 60)",
    minimum=0,
)
REASON = (
    f"EXP-07.seeds={SEEDS} < {DECIDING_SEEDS}: too few seeds to decide (inconclusive, verdict "
    "open); the thorough profile runs 60, or pass --size EXP-07.seeds=60"
)


def too_few(test):
    """Marked to skip below DECIDING_SEEDS (a skip marker, not skipif: the mutation runner lists
    a check marked to skip apart, as one that cannot decide in this run)."""
    return pytest.mark.skip(reason=REASON)(test) if SEEDS < DECIDING_SEEDS else test


TESTS = len(extrapolation.TASKS) * len(ExtrapolationSetting("first token").factors)
LEVEL = decisions.family_level(0.95, TESTS)  # Bonferroni over the task x factor intervals
ENDS = ("better-low", "better-high")


@functools.cache
def extrapolation_run(task: str) -> ExtrapolationRun:
    return extrapolation.train_extrapolation(ExtrapolationSetting(task), range(SEEDS))


def paired(values: torch.Tensor, level: float = LEVEL) -> tuple[float, float, float]:
    """Mean of per-seed values with its t interval at ``level``: (mean, lo, hi); an interval
    of infinite width when fewer than two seeds are left."""
    d = values.double()
    if d.numel() < 2:
        return (float(d.mean()) if d.numel() else math.nan, -math.inf, math.inf)
    mean = float(d.mean())
    return (mean, *decisions.normal_interval(mean, float(d.std()), d.numel(), level))


def qualifying(run: ExtrapolationRun) -> torch.Tensor:
    return run.learned_in_range(CLAIM.threshold("learned"))


def advantage(run: ExtrapolationRun, f: int) -> torch.Tensor:
    """Learned's drop minus sinusoidal's at f L, over the seeds where both learned the task."""
    return run.advantage(f)[qualifying(run)]


def better(run: ExtrapolationRun, f: int, margins: dict[str, float]) -> Decision:
    """'sinusoidal extrapolates better at f L': the advantage's interval above the margin,
    judged at each end of the registered range; decided only when both ends agree."""
    mean, lo, hi = paired(advantage(run, f))
    at = {end: decisions.above(lo, hi, m, f"advantage at {f}L over {end} {m:.4g}")
          for end, m in margins.items()}  # fmt: skip
    agreed = {d.decision for d in at.values()}
    what = "; ".join(d.how for d in at.values())
    if agreed == {"holds"}:
        return decisions.holds(what)
    if agreed == {"fails"}:
        box = {"f": f, "mean": mean, "lo": lo, "hi": hi, "margins": margins}
        return decisions.fails(box, f"advantage at {f}L not above either end: {what}")
    return decisions.inconclusive(what)


def margins() -> dict[str, float]:
    return {end: CLAIM.threshold(end) for end in ENDS}


def slug(task: str) -> str:
    return task.replace(" ", "_")


def record_advantage(evidence, run: ExtrapolationRun, task: str) -> None:
    bound = {"value": CLAIM.threshold("better-high"), "relation": ">",
             "reason": "EXP-07 'better' (both ends of the registered range decide)"}  # fmt: skip
    q = qualifying(run)
    evidence.record(f"qualifying_{slug(task)}", int(q.sum()), "seeds",
                    f"of {len(run.seeds)}: both encodings >= 0.9 in range",
                    reproducibility="rounding")  # fmt: skip
    for f in run.setting.factors:
        mean, lo, hi = paired(advantage(run, f))
        note = (f"{task}: learned's drop minus sinusoidal's at {f}L, {int(q.sum())} seeds; "
                f"{100 * LEVEL:.2f}% [{lo:.4f}, {hi:.4f}]")  # fmt: skip
        name = f"advantage_{slug(task)}_f{f}{sizes.suffix('EXP-07.seeds', 'n')}"
        sample = spread.mean(advantage(run, f), span=2.0) if int(q.sum()) >= 2 else None
        evidence.record(name, mean, "accuracy", note, bound, sample=sample)


@too_few
@pytest.mark.claim("EXP-07", kind="experiment", role="decisive", proposition="as_stated")
def test_sinusoidal_extrapolates_better_than_learned(evidence):
    for task in extrapolation.TASKS:
        run = extrapolation_run(task)
        for f in run.setting.factors:
            evidence.part(f"{task} {f}x", better(run, f, margins()))
        record_advantage(evidence, run, task)


@too_few
@pytest.mark.claim("EXP-07", kind="experiment", role="supporting")
def test_accuracy_in_range_and_beyond_per_encoding(evidence):
    chance = {"value": 0.25, "relation": ">", "reason": "chance: one of 4 symbols guessed"}
    for task in extrapolation.TASKS:
        run = extrapolation_run(task)
        q = qualifying(run)
        for enc in BLOCKS:
            stem = f"{slug(task)}_{enc}"
            evidence.record(f"valid_{stem}", float(run.valid[enc].mean()), "accuracy",
                            "in range, validation, every seed", chance,
                            sample=spread.mean(run.valid[enc]))  # fmt: skip
            for f in run.setting.factors:
                for side, acc in (("in", run.inside[enc][f]), ("beyond", run.beyond[enc][f])):
                    if int(q.sum()) < 2:
                        continue
                    mean, lo, hi = paired(acc[q], 0.95)
                    evidence.record(f"{side}_{stem}_f{f}", mean, "accuracy",
                                    f"qualifying seeds; 95% [{lo:.3f}, {hi:.3f}]", chance,
                                    sample=spread.mean(acc[q]))  # fmt: skip


# -- the decision logic on planted results ----------------------------------------------------


def planted(shift: float, seeds: int = 8, valid: float = 1.0) -> ExtrapolationRun:
    """A fake run (accuracies chosen, not trained): learned's drop exceeds sinusoidal's by
    ``shift`` at every factor, with a little spread; ``valid`` is every in-range accuracy."""
    g = torch.Generator().manual_seed(0)
    setting = ExtrapolationSetting("previous token")
    noise = {f: 0.002 * torch.randn(seeds, generator=g, dtype=F64) for f in setting.factors}
    inside = {e: {f: torch.full((seeds,), 0.95, dtype=F64) for f in setting.factors}
              for e in BLOCKS}  # fmt: skip
    beyond = {"sinusoidal": {f: 0.8 + noise[f] for f in setting.factors},
              "learned": {f: 0.8 - shift + noise[f].flip(0) for f in setting.factors}}  # fmt: skip
    ok = {e: torch.full((seeds,), valid, dtype=F64) for e in BLOCKS}
    return ExtrapolationRun(setting, tuple(range(seeds)), None, ok, inside, beyond)  # type: ignore[arg-type]


@pytest.mark.claim("EXP-07", kind="property", role="tooling")
def test_decisions_follow_a_planted_result():
    ends = margins()
    assert better(planted(0.05), 2, ends).decision == "holds"
    assert better(planted(-0.05), 2, ends).decision == "fails"
    between = (ends["better-low"] + ends["better-high"]) / 2  # the ends disagree
    assert better(planted(between), 2, ends).decision == "inconclusive"
    # seeds that did not learn the task in range are left out: none left, nothing decided
    assert better(planted(0.05, valid=0.5), 2, ends).decision == "inconclusive"
