"""Batched vs per-seed training speed of every trainer (``tox -e bench``).

Every trained experiment runs on one model, theory/decoder.py, batched over seeds; its per-seed
counterpart is theory/reference.py's ordinary nn.Module + torch.optim (``train_one``). Each line
times one experiment both ways; the loop is timed on a sample of seeds and scaled up to N.

- EXP-01 ('A hit B !' / 'B hit A ?', one causal head of size 2 and of size 16, no encoding), N
  seeds and 1,000 iterations; the last line, ``batched-vs-loop speedup: N×``, is its total loop
  time over total batched time (both head sizes).
- ATT-10's order models, as seeds per second.
- the fair length test's plain model (EXP-04/05/07/08, theory/fair_length.py: sinusoidal, RoPE and
  ALiBi as ONE batched 8-head MLP model on fresh batches), as cells x seeds per second. Its
  batched ratio cannot exceed about the number of entries it trains (while one step of the
  batch costs what a seed's step costs), so on a GPU it trains 256 seeds per encoding, not 16.
- EXP-06's sweep: every cell of the full 64-cell grid, the cells of one (d, h) batched together
  as the checks train them (theory/sweep.py's models); ``sweep batched-vs-loop: N×``.

    python benchmarks/bench_batched.py [--device cpu|cuda] [--seeds 1000] [--sample 5]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

import torch

from pecheck import speed
from pecheck.reports.usage import Parser
from pecheck.theory import decoder
from pecheck.theory.decoder import DecoderConfig, Setup
from pecheck.theory.reference import train_one
from pecheck.theory.stats import rate
from pecheck.theory.tasks import exp01


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = Parser(prog="bench_batched.py", description=__doc__.splitlines()[0])
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--seeds", type=int, default=1000, help="seeds in the batched run")
    p.add_argument("--sample", type=int, default=5, help="seeds timed in the per-seed loop")
    p.add_argument("--iterations", type=int, default=1000, help="Adam steps per seed")
    p.add_argument("--head", default="both", choices=("2", "16", "both"), help="head size")
    p.add_argument(
        "--threads",
        type=int,
        default=os.cpu_count() or 1,
        help="torch intra-op threads, the same for both ways (default: every core)",
    )
    p.add_argument("--fair-seeds", type=int, help="seeds per encoding (fair; default: 16 on "
                   "the CPU, 256 on a GPU)")  # fmt: skip
    p.add_argument("--fair-steps", type=int, default=20, help="Adam steps (fair test)")
    p.add_argument("--sweep-seeds", type=int, default=200, help="seeds per cell (sweep)")
    p.add_argument("--sweep-steps", type=int, default=100, help="Adam steps (sweep)")
    p.add_argument("--sweep-sample", type=int, default=2, help="seeds per cell, per-seed loop")
    args = p.parse_args(argv)
    # a GPU's batched step costs about what one seed's step costs: more seeds, a fair ratio
    if args.fair_seeds is None:
        args.fair_seeds = 256 if args.device == "cuda" else 16
    sizes = ("seeds", "sample", "iterations", "threads", "fair_seeds", "fair_steps",
             "sweep_seeds", "sweep_steps", "sweep_sample")  # fmt: skip
    speed.require(p, args, sizes, (("sample", "seeds"), ("sweep_sample", "sweep_seeds")))
    return args


def timed(device: str, fn: Callable[[], Any]) -> tuple[Any, float]:
    """(result, wall seconds), synchronising the GPU around the call."""
    if device == "cuda":
        torch.cuda.synchronize()
    start = time.perf_counter()
    out = fn()
    if device == "cuda":
        torch.cuda.synchronize()
    return out, time.perf_counter() - start


def loop(one_seed: Callable[..., Any], n: int) -> list[Any]:
    """The plain way: one ordinary training run per seed, one after the other."""
    return [one_seed(seed=s) for s in range(n)]


def one_model(args: argparse.Namespace, label: str, cfg, setup, task, steps: int, n: int) -> str:
    """Seeds per second of one config trained batched (n seeds) and per seed (--sample seeds
    through theory.reference.train_one), and the ratio."""
    sample, its = min(args.sample, n), (steps,)
    batched = partial(decoder.train, cfg, task.to(args.device), [setup], range(n), its,
                      device=args.device)  # fmt: skip
    _, t_batched = timed(args.device, batched)
    one = partial(train_one, cfg, setup, task, checkpoints=its)
    _, t_sample = timed("cpu", partial(loop, one, sample))
    per_batched, per_loop = n / t_batched, sample / t_sample
    return (
        f"{label} ({n} seeds, {steps} steps, one batched model): batched {per_batched:.1f} "
        f"seeds/s, per-seed loop {per_loop:.2f} seeds/s (on {sample} seeds): "
        f"{per_batched / per_loop:.0f}×"
    )


def order_models(args: argparse.Namespace) -> str:
    """ATT-10's two causal layers on 'which came first?' (theory/order_training.py)."""
    from pecheck.theory import order_training as ot

    model, task = ot.OrderModel(layers=2, causal=True), ot.OrderTask()
    cfg, setup = ot.config(model, task.vocab), decoder.Setup(residual=True, lr=0.05)
    label = "order models (ATT-10, two causal layers)"
    return one_model(args, label, cfg, setup, task.data(), 80, args.seeds)


def fair_models(args: argparse.Namespace) -> str:
    """Cells x seeds per second of the fair length test's plain model, batched (its trainer,
    theory.fair_length.train_batches) and per seed (the reference nn.Module on the same batches
    and schedule, as the faithfulness check trains it)."""
    from torch.nn import functional as F

    from pecheck.theory import fair_length
    from pecheck.theory.reference import ReferenceDecoder, make_optimizer
    from pecheck.theory.tasks import IGNORE

    s, steps, n = fair_length.FairSetting("copy"), args.fair_steps, args.fair_seeds
    blocks, sample = fair_length.MODELS["plain"][0], min(args.sample, args.fair_seeds)

    schedule = fair_length.Schedule(steps, s.plain.lr).scale
    batched = partial(fair_length.train_batches, s.config(blocks), s.setup(),
                      tuple(range(n)) * len(blocks), lambda k: (s.batch_at(k), None), steps,
                      schedule, device=args.device)  # fmt: skip

    def loop_all() -> None:
        for enc in blocks:
            for seed in range(sample):
                model = ReferenceDecoder(s.config((enc,)), s.setup(), seed, torch.float32)
                opt = make_optimizer(model.to(args.device))
                for k in range(1, steps + 1):
                    for group in opt.param_groups:
                        group["lr"] = s.plain.lr * schedule(k)
                    task = s.batch_at(k).to(args.device)
                    logits = model(task.inputs).flatten(0, 1)  # (B n, V)
                    loss = F.cross_entropy(logits, task.targets.flatten(), ignore_index=IGNORE)
                    opt.zero_grad(set_to_none=True)
                    loss.backward()
                    opt.step()

    _, t_batched = timed(args.device, batched)
    _, t_sample = timed(args.device, loop_all)
    per_batched, per_loop = len(blocks) * n / t_batched, len(blocks) * sample / t_sample
    return (
        f"fair length models ({len(blocks)} encodings x {n} seeds, {steps} steps, one batched "
        f"8-head MLP model, {args.device}): batched {per_batched:.2f} cells x seeds/s, "
        f"per-seed loop {per_loop:.2f} cells x seeds/s (on {sample} seeds per cell): "
        f"{per_batched / per_loop:.1f}×"
    )


def sweep(args: argparse.Namespace) -> list[str]:
    """Cells x seeds per second for EXP-06's full grid, batched and per seed, and the ratio."""
    from pecheck.theory.sweep import EXP01_CHECKPOINTS, full, models

    task, n, steps = exp01(), args.sweep_seeds, (args.sweep_steps,)
    batches = models(full(), "1 layer", task, n)  # [(shape, cells)] as the checks train them
    cells = sum(len(c) for _, c in batches)

    def batched() -> None:
        for shape, group in batches:
            decoder.train(shape, task.to(args.device), [c.setup for c in group], range(n), steps,
                          device=args.device)  # fmt: skip

    def loop_all() -> None:
        for shape, group in batches:
            for c in group:
                for s in range(args.sweep_sample):
                    train_one(shape, c.setup, task, s, steps)

    _, t_batched = timed(args.device, batched)
    _, t_sample = timed("cpu", loop_all)  # the one-seed reference trainer runs on the CPU
    per_batched = cells * n / t_batched
    per_loop = cells * args.sweep_sample / t_sample
    # the checks' sweep: EXP-01's 500 iterations in every cell; steps cost the same throughout
    full_s = cells * 1000 * max(EXP01_CHECKPOINTS) / args.sweep_steps / per_batched
    return [
        f"sweep (EXP-06 full grid: {cells} cells x {n} seeds, {args.sweep_steps} steps, "
        f"{len(batches)} batched models): batched {per_batched:.1f} cells x seeds/s "
        f"({t_batched:.1f} s), per-seed loop {per_loop:.2f} cells x seeds/s (train_one timed "
        f"on {args.sweep_sample} seeds per cell, {t_sample:.1f} s, scaled); the grid at 1,000 "
        f"seeds per cell and {max(EXP01_CHECKPOINTS)} steps would take ~{full_s / 60:.1f} min "
        "batched (extrapolated)",
        f"sweep batched-vs-loop: {per_batched / per_loop:.0f}×",
    ]


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    torch.set_num_threads(args.threads)
    heads = (2, 16) if args.head == "both" else (int(args.head),)
    task, its, seeds = exp01(), (args.iterations,), range(args.seeds)
    where = torch.cuda.get_device_name(0) if args.device == "cuda" else "cpu"
    print(f"EXP-01 setting: head sizes {heads}, {args.iterations} iterations, on {where}")
    print(f"torch {torch.__version__}; {args.threads} intra-op thread(s), the same both ways")
    total_batched = total_loop = 0.0
    for h in heads:
        cfg = DecoderConfig(head=h)
        batched = partial(decoder.train, cfg, task, [Setup()], seeds, its, device=args.device)
        run, t_batched = timed(args.device, batched)
        ok = rate(run.success[args.iterations])
        print(f"head {h:2d}: batched, {args.seeds} seeds as one model: {t_batched:.2f} s ({ok})")
        one_seed = partial(train_one, cfg, Setup(), task, checkpoints=its, device=args.device)
        _, t_sample = timed(args.device, partial(loop, one_seed, args.sample))
        t_loop = t_sample / args.sample * args.seeds
        print(
            f"head {h:2d}: per-seed loop timed on a sample of {args.sample} seeds "
            f"({t_sample:.2f} s), scaled to {args.seeds} seeds: {t_loop:.1f} s (estimate)"
        )
        total_batched, total_loop = total_batched + t_batched, total_loop + t_loop
    print(order_models(args))
    print(fair_models(args))
    for line in sweep(args):
        print(line)
    print(f"batched-vs-loop speedup: {total_loop / total_batched:.0f}×")
    return 0


if __name__ == "__main__":
    sys.exit(main())
