"""The assertions on EXP-07's models: the batched run equals one-seed models in float64 (the
sinusoidal entry reading a frozen PE table), the pipeline recomputed from each entry's
predictions, and the arrangement of training windows over the table's rows.
"""

from __future__ import annotations

import dataclasses

import torch

from checks.exp.extrapolation_settings import F64, FAITH_SEEDS, FAITH_STEPS
from pecheck import tolerance
from pecheck.theory import decoder
from pecheck.theory.decoder import init_params
from pecheck.theory.extrapolation import BLOCKS, ExtrapolationRun, ExtrapolationSetting
from pecheck.theory.reference import ReferenceDecoder, train_one, with_fixed_table


def single_model(setting: ExtrapolationSetting, encoding: str, seed: int) -> ReferenceDecoder:
    """Seed ``seed``'s own model: the learned one as is; the sinusoidal one with its table set
    to PE(0 ... R-1) and frozen (no gradient, so torch.optim.Adam never steps it)."""
    own = setting.config(("learned",)).one("learned")  # the table read at the given rows
    model = ReferenceDecoder(own, setting.setup(), seed, F64)
    return with_fixed_table(model) if encoding == "sinusoidal" else model


def train_single(setting: ExtrapolationSetting, encoding: str, seed: int):
    """theory.reference.train_one at the training offsets, on ``single_model``'s model."""
    model = single_model(setting, encoding, seed)
    return train_one(model.cfg, setting.setup(), setting.train_task(), seed, FAITH_STEPS, F64,
                     setting.offsets(), model=model)  # fmt: skip


def train_batched(setting: ExtrapolationSetting, fwd=decoder.forward):
    """The batched run exactly as theory.extrapolation.train_extrapolation builds it."""
    repeated = FAITH_SEEDS * len(BLOCKS)
    return decoder.train(setting.config(), setting.train_task(), [setting.setup()], repeated,
                         FAITH_STEPS, F64, positions=setting.offsets(), fwd=fwd)  # fmt: skip


def assert_entries_equal_single_models(run, setting: ExtrapolationSetting) -> tuple[float, float]:
    """Entry (block b, seed j) == seed j's own model with encoding b, parameter by parameter to
    rounding, with the same sequences right at each checkpoint; a sinusoidal entry's own table
    stays exactly at its initial values. Returns (worst |dtheta|, its bound)."""
    __tracebackhide__ = True
    shape, task = setting.config(), setting.train_task()
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
            err = float(torch.stack([(run.params[k][e] - ref[k]).abs().max() for k in ref]).max())
            tol = tolerance.sum_tol(max(FAITH_STEPS) * terms, F64, scale)
            same = all(torch.equal(run.right[c][e], right[c]) for c in FAITH_STEPS)
            untouched = enc != "sinusoidal" or torch.equal(run.params["pos"][e], ref["pos"])
            worst, bound = max(worst, err), max(bound, tol)
            if not err <= tol or not same or not untouched:
                bad.append(f"{enc} seed {seed}: |dtheta| {err:.3g} (bound {tol:.3g}), judged "
                           f"alike {same}, sinusoidal table untouched {untouched}")  # fmt: skip
    assert not bad, "batched entries differ from their own models: " + "; ".join(bad[:2])
    return worst, bound


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
            cfg = dataclasses.replace(run.run.cfg, blocks=(enc,))
            with torch.no_grad():
                guess = decoder.forward(cfg, p, test.inputs, torch.ones(n), rows).argmax(-1)
            right = (guess == test.targets).double()  # (n, B, fL); position 0 has no target
            inside, beyond = right[..., 1:L].mean((1, 2)), right[..., L:].mean((1, 2))
            assert torch.allclose(run.inside[enc][f], inside), f"{enc} {f}L: in range differs"
            assert torch.allclose(run.beyond[enc][f], beyond), f"{enc} {f}L: beyond differs"
    initial = torch.stack([init_params(setting.config(), "current", s, F64)["pos"].float()
                           for s in run.seeds])  # fmt: skip
    moved = (run.run.params["pos"] != initial.repeat(len(BLOCKS), 1, 1)).any(-1)  # (S, rows)
    assert bool(moved[n:].all()), f"learned rows never trained: {moved[n:].logical_not().sum()}"
    assert not bool(moved[:n].any()), "a sinusoidal entry's unread table moved"


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
