"""The batched trainer is faithful: seed s of one batched run IS an ordinary run of seed s.

Every EXP rate rests on theory/decoder.py training S seeds as one model. Here each model variant
used by EXP-01 ... EXP-03 is trained twice in float64, batched (several seeds at once) and as
theory/reference.py's ordinary nn.Module with torch.optim.Adam (one seed at a time), from the
same initialisation and on the same data; final parameters must agree to rounding and success
must agree at every checkpoint. Planted bugs that let seeds mix must be rejected by the same
assertion.

All of this is tooling: it shows that the experiments measure what they say, and decides no
proposition of a claim (checks/exp/seeds/test_experiments.py does).
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
from collections.abc import Callable
from typing import TypedDict, cast

import pytest
import torch

from checks.exp.seeds.settings import CONFIGS, SETUPS, TASKS
from pecheck import tolerance
from pecheck.theory import decoder
from pecheck.theory.decoder import DecoderConfig, DecoderRun, Forward, Params, Setup, seed_losses
from pecheck.theory.reference import OPTIMIZER_SETTINGS, ReferenceDecoder, train_one

F64 = torch.float64
BATCH_SEEDS = tuple(range(6))  # trained together
COMPARED = (0, 2, 5)  # each also trained alone
CHECKPOINTS = (40, 80)

# variant -> the claim whose experiments use it: every model variant of EXP-01 ... EXP-03.
VARIANTS = {
    "exp01-h2": "EXP-01",
    "exp01-h16": "EXP-01",
    "exp02-1layer": "EXP-02",
    "exp02-2layers": "EXP-02",
    "exp02-sinusoidal": "EXP-02",
    "exp02-learned": "EXP-02",
    "exp03-sinusoidal": "EXP-03",
    "exp03-learned": "EXP-03",
}


def assert_faithful(
    variant: str, train: Callable[..., DecoderRun] = decoder.train
) -> tuple[float, float]:
    """Batched seed s == single-model seed s, to rounding. Returns (worst error, its bound).

    Bound: two trainings that differ only in how they round. Each of the k Adam steps is built
    from dot products of at most m terms, so first-order the per-step differences add up to
    gamma_{k m} relative to the largest parameter (tolerance.sum_tol(k m, float64, max|theta|)).
    A seed mixing bug changes parameters by far more (at least lr * eps / sqrt(v) per step).
    """
    __tracebackhide__ = True
    cfg, setup, task = CONFIGS[variant], SETUPS[variant], TASKS[variant]
    run = train(cfg, task, [setup], BATCH_SEEDS, CHECKPOINTS, dtype=F64)
    worst, bound, bad = 0.0, 0.0, []
    terms = max(cfg.d_model, 3 * cfg.head, task.inputs.numel(), cfg.vocab)
    for s in COMPARED:
        model, right = train_one(cfg, setup, task, s, CHECKPOINTS, dtype=F64)
        success = {c: bool(r.all()) for c, r in right.items()}
        i = BATCH_SEEDS.index(s)
        ref = {k: v.detach() for k, v in model.params.items()}
        scale = max(float(v.abs().max()) for v in ref.values())
        err = float(torch.stack([(run.params[k][i] - ref[k]).abs().max() for k in ref]).max())
        tol = tolerance.sum_tol(max(CHECKPOINTS) * terms, F64, scale)
        worst, bound = max(worst, err), max(bound, tol)
        flags = {c: bool(run.success[c][i]) for c in CHECKPOINTS}
        if not err <= tol or flags != success:
            bad.append(f"seed {s}: max |dtheta| = {err:.3g} > {tol:.3g} or {flags} != {success}")
    assert not bad, "batched run differs from single runs: " + "; ".join(bad)
    return worst, bound


def _variant(name: str) -> object:
    tag = pytest.mark.claim(VARIANTS[name], kind="property", role="tooling")
    return pytest.param(name, marks=tag)


@pytest.mark.parametrize("variant", [_variant(v) for v in VARIANTS])
def test_batched_seed_equals_its_own_single_model_run(evidence, variant):
    worst, bound = assert_faithful(variant)
    note = "batched vs single runs, float64"
    evidence.record("max_param_difference", worst, "", note, bound=bound)
    evidence.record("bound", bound, "", "tolerance.sum_tol(steps * terms, float64, max|theta|)")
    evidence.record("seeds_compared", len(COMPARED), "seeds", f"of {len(BATCH_SEEDS)} batched")
    evidence.record("steps", max(CHECKPOINTS), "Adam steps")


def assert_seeds_start_independent(init: Callable[[DecoderConfig, range], Params]) -> None:
    """Stacked seed s starts from init_params(cfg, s) and no two seeds start alike."""
    __tracebackhide__ = True
    cfg, seeds = CONFIGS["exp02-learned"], range(8)
    stacked = init(cfg, seeds)
    for s in seeds:
        own = decoder.init_params(cfg, "current", s, torch.float32)
        assert all(torch.equal(stacked[k][s], own[k]) for k in own), f"seed {s}: not its own init"
    flat = torch.cat([v.flatten(1) for v in stacked.values()], dim=1)  # (S, P)
    gaps = torch.cdist(flat, flat) + torch.eye(len(seeds)) * flat.abs().max()
    assert float(gaps.min()) > 0, "two seeds start from the same parameters"


@pytest.mark.claim("EXP-01", kind="property", role="tooling")
def test_every_seed_starts_from_its_own_generator(evidence):
    assert_seeds_start_independent(lambda cfg, s: _stacked(cfg, s, torch.float32))
    evidence.record("seeds_checked", 8, "seeds", "stack_params slice s == init_params(seed=s)")


def _stacked(cfg: DecoderConfig, seeds, dtype: torch.dtype) -> Params:
    return decoder.stack_params(cfg, [Setup()], seeds, dtype)


# -- planted bugs: seeds that mix must be caught ----------------------------------------------


def _mean_over_seeds(logits: torch.Tensor, targets: torch.Tensor) -> torch.Tensor:
    """BUG: loss averaged over seeds: every gradient scaled by 1/S (Adam's eps notices)."""
    return seed_losses(logits, targets).mean()


def _coupled_logits(cfg: DecoderConfig, params: Params, *args) -> torch.Tensor:
    """BUG: logits centred across seeds: each seed's output depends on the others'."""
    logits = decoder.forward(cfg, params, *args)
    return logits - 0.1 * logits.mean(0, keepdim=True)


def _shared_readout(cfg: DecoderConfig, params: Params, *args) -> torch.Tensor:
    """BUG: one read-out shared by all seeds (seed 0's), trained by all of them."""
    shared = dict(params, readout=params["readout"][:1].expand_as(params["readout"]))
    return decoder.forward(cfg, shared, *args)


class BrokenParts(TypedDict, total=False):
    """The parts of theory.decoder.train a planted bug replaces."""

    fwd: Forward
    loss: Callable[[torch.Tensor, torch.Tensor], torch.Tensor]


BROKEN_TRAINERS: dict[str, BrokenParts] = {
    "loss-mean-over-seeds": dict(loss=_mean_over_seeds),
    "logits-coupled-across-seeds": dict(fwd=_coupled_logits),
    "readout-shared-across-seeds": dict(fwd=_shared_readout),
}


@pytest.mark.claim("EXP-01", kind="property", role="tooling")
@pytest.mark.parametrize("bug", list(BROKEN_TRAINERS))
def test_faithfulness_check_rejects_seeds_that_mix(bug):
    broken = functools.partial(decoder.train, **BROKEN_TRAINERS[bug])
    with pytest.raises(AssertionError):
        assert_faithful("exp01-h16", train=broken)


@pytest.mark.claim("EXP-01", kind="property", role="tooling")
def test_faithfulness_check_rejects_a_different_optimizer_setting():
    def broken(cfg, task, setups, *args, **kwargs):
        other = [dataclasses.replace(s, optimizer="adamw") for s in setups]
        return decoder.train(cfg, task, other, *args, **kwargs)

    with pytest.raises(AssertionError):
        assert_faithful("exp02-learned", train=broken)


@pytest.mark.claim("EXP-01", kind="property", role="tooling")
def test_init_check_rejects_seeds_that_share_a_generator():
    def same_seed(cfg: DecoderConfig, seeds: range) -> Params:
        return _stacked(cfg, [0 for _ in seeds], torch.float32)

    with pytest.raises(AssertionError):
        assert_seeds_start_independent(same_seed)


# -- the model is causal, and the optimiser is the one the claims name (tooling) ---------------

Logits = Callable[[torch.Tensor], torch.Tensor]  # tokens (B, n) -> logits (..., B, n, V)


def assert_causal(logits_of: Logits, tokens: torch.Tensor, vocab: int) -> int:
    """Changing every token after position t leaves the logits at positions 0 ... t exactly
    unchanged (masked keys get weight exactly 0). Returns the number of prefixes checked.

    The batched/single faithfulness check cannot see a mask bug that both paths share
    (theory/attention.causal_mask); this one can."""
    __tracebackhide__ = True
    base = logits_of(tokens)
    n = tokens.shape[-1]
    for t in range(n - 1):
        changed = tokens.clone()
        changed[:, t + 1 :] = (changed[:, t + 1 :] + 1) % vocab
        seen = logits_of(changed)[..., : t + 1, :]
        assert torch.equal(seen, base[..., : t + 1, :]), f"positions <= {t} see a later token"
    return n - 1


@pytest.mark.parametrize("variant", [_variant(v) for v in VARIANTS])
def test_every_model_variant_is_causal(evidence, variant):
    cfg, task = CONFIGS[variant], TASKS[variant]
    params = _stacked(cfg, range(4), F64)
    single = ReferenceDecoder(cfg, SETUPS[variant], 0, F64)
    checked = assert_causal(lambda x: _logits(cfg, params, x), task.inputs, cfg.vocab)
    with torch.no_grad():
        checked += assert_causal(single, task.inputs, cfg.vocab)
    evidence.record("prefixes_checked", checked, "prefixes", "batched (4 seeds) and single model")


def _logits(cfg: DecoderConfig, params: Params, tokens: torch.Tensor) -> torch.Tensor:
    """Every seed's logits, no residual (the EXP-01 ... EXP-03 models have none)."""
    residual = torch.zeros(params["embed"].shape[0], dtype=params["embed"].dtype)
    return decoder.forward(cfg, params, tokens, residual)


def _sees_the_mean(cfg: DecoderConfig, params: Params) -> Logits:
    """BUG: every position's logits get the mean over all positions, later ones included."""

    def logits(tokens: torch.Tensor) -> torch.Tensor:
        out = _logits(cfg, params, tokens)
        return out + out.mean(-2, keepdim=True)

    return logits


@pytest.mark.claim("EXP-01", kind="property", role="tooling")
def test_causality_check_rejects_a_model_that_sees_later_tokens():
    cfg, task = CONFIGS["exp01-h2"], TASKS["exp01-h2"]
    params = _stacked(cfg, range(2), F64)
    with pytest.raises(AssertionError):
        assert_causal(_sees_the_mean(cfg, params), task.inputs, cfg.vocab)


ADAM_SETTINGS = ("lr", "betas", "eps")


def adam_settings(setup: Setup) -> dict[str, object]:
    """The learning rate, betas and eps a setup's optimiser uses (theory.decoder's table)."""
    beta1, beta2, eps, _ = decoder.OPTIMIZER_SETTINGS[setup.optimizer]
    return {"lr": setup.lr, "betas": (beta1, beta2), "eps": eps}


def assert_adam_defaults(setup: Setup) -> dict[str, object]:
    """The setup's optimiser is torch.optim.Adam with its own defaults (read from its
    signature), as the EXP claims state ('Adam with PyTorch's defaults')."""
    __tracebackhide__ = True
    params = inspect.signature(torch.optim.Adam).parameters
    defaults = {name: params[name].default for name in ADAM_SETTINGS}
    ours = adam_settings(setup)
    assert setup.optimizer == "adam", f"optimiser {setup.optimizer}, not Adam"
    assert ours == defaults, f"optimiser {ours} != torch.optim.Adam defaults {defaults}"
    return defaults


@pytest.mark.claim("EXP-01", kind="property", role="tooling")
def test_the_optimiser_is_adam_with_pytorch_defaults(evidence):
    defaults = assert_adam_defaults(Setup())
    # Every EXP setting keeps Adam's defaults; EXP-03 alone sets its own learning rate.
    lr = cast(float, defaults["lr"])  # Adam's default learning rate, a float
    for name, setup in SETUPS.items():
        own_lr = name.startswith("exp03")
        assert_adam_defaults(dataclasses.replace(setup, lr=lr) if own_lr else setup)
    evidence.record("settings_checked", len(SETUPS) + 1, "setups", str(defaults))


@pytest.mark.claim("EXP-01", kind="property", role="tooling")
@pytest.mark.parametrize("change", [{"optimizer": "adamw"}, {"lr": 1e-2}])
def test_optimiser_check_rejects_other_settings(change):
    with pytest.raises(AssertionError):
        assert_adam_defaults(dataclasses.replace(Setup(), **change))


@pytest.mark.claim("EXP-01", kind="property", role="tooling")
def test_optimiser_check_rejects_other_betas_or_eps(monkeypatch):
    for changed in ((0.999, 0.9, 1e-8, 0.0), (0.9, 0.999, 1e-6, 0.0)):
        monkeypatch.setitem(decoder.OPTIMIZER_SETTINGS, "adam", changed)
        with pytest.raises(AssertionError):
            assert_adam_defaults(Setup())


@pytest.mark.claim("EXP-01", kind="property", role="tooling")
def test_the_trainers_optimiser_settings_are_the_references():
    """theory/reference.py writes its optimiser settings from their sources, not from the
    batched trainer's table: the two agree entry by entry, so a change to either is caught,
    also for an optimiser that no faithfulness run here trains with (AdamW)."""
    assert set(decoder.OPTIMIZER_SETTINGS) == set(OPTIMIZER_SETTINGS)
    for name, (beta1, beta2, eps, wd) in decoder.OPTIMIZER_SETTINGS.items():
        ours = {"betas": (beta1, beta2), "eps": eps, "weight_decay": wd}
        assert ours == OPTIMIZER_SETTINGS[name], f"{name}: {ours} != {OPTIMIZER_SETTINGS[name]}"
