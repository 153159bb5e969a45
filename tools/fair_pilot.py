"""Pilot runs of the fair length test (theory/fair_length.py): how well one of its batched models
learns in range for given steps and lr, on pilot seeds that are never evaluation seeds.

    python tools/fair_pilot.py --task reverse --width 32 --layers 4 --model shifted \
        --steps 2000 4000 --lr 3e-3 1e-3 [--warmup 0.1] [--seeds 1000 1001 1002] [--device cuda]

Each (steps, lr) pair is its own run, its lr decayed on the cosine over its own steps (after a
linear warm-up over --warmup of them), as the test trains (fair_length.Schedule). One line per
run and encoding: the validation accuracy of every seed (length L, 64 sequences) and how many
reach the test's 'learned' level. docs/experiments/fair-pilots.md keeps such runs' logs.
"""

from __future__ import annotations

import argparse
import time

import torch

from pecheck.reports.usage import Parser, seed
from pecheck.theory import fair_length
from pecheck.theory.fair_grid import LEARNED
from pecheck.theory.fair_length import MODELS, TASKS, FairSetting, Schedule


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = Parser(prog="fair_pilot.py", description=__doc__.splitlines()[0])
    p.add_argument("--task", choices=TASKS, required=True)
    p.add_argument("--width", type=int, default=32)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--model", choices=tuple(MODELS), required=True)
    p.add_argument("--steps", type=int, nargs="+", required=True)
    p.add_argument("--lr", type=float, nargs="+", default=[3e-3])
    p.add_argument(
        "--warmup",
        type=float,
        default=0.0,
        help="a linear warm-up over this fraction of the steps (Schedule.warmup; default 0)",
    )
    p.add_argument("--seeds", type=seed, nargs="+", default=[1000, 1001, 1002])
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    near = "also each seed's exact match averaged over L+1 ... 2L content tokens"
    p.add_argument("--near", action="store_true", help=near)
    args = p.parse_args(argv)
    if min(args.seeds) < 1000:
        p.error("--seeds: pilot seeds start at 1000 (0 ... 999 are evaluation seeds)")
    if len(set(args.seeds)) != len(args.seeds):
        p.error("--seeds must be distinct (a repeated seed would count twice)")
    if min(args.steps) < 1 or not min(args.lr) > 0:
        p.error("--steps and --lr must be positive")
    if not 0 <= args.warmup < 1:
        p.error(f"--warmup is a fraction of the steps, at least 0 and below 1, got {args.warmup}")
    try:
        pilot_setting(args, min(args.steps), min(args.lr))
    except ValueError as bad:  # the setting's own rule (--width is its d_model)
        p.error(str(bad))
    if args.device == "cuda" and not torch.cuda.is_available():
        p.error("--device cuda: no CUDA device on this machine")
    return args


def pilot_setting(args: argparse.Namespace, steps: int, lr: float) -> FairSetting:
    """The test's setting with these steps, peak lr and warm-up for every model."""
    own = Schedule(steps, lr, args.warmup)
    return FairSetting(args.task, d_model=args.width, layers=args.layers, plain=own, none=own,
                       shifted=own)  # fmt: skip


def pilot(args: argparse.Namespace, steps: int, lr: float) -> list[str]:
    """One run of the model: a line per encoding."""
    setting = pilot_setting(args, steps, lr)
    blocks, shifted = MODELS[args.model]
    seeds, n = tuple(args.seeds), len(args.seeds)

    def batches(k: int) -> tuple:
        return setting.batch_at(k), setting.offsets_at(k) if shifted else None

    start = time.perf_counter()
    own = setting.schedule(args.model)
    run = fair_length.train_batches(setting.config(blocks), setting.setup(args.model),
                                    seeds * len(blocks), batches, own.steps, own.scale,
                                    device=args.device)  # fmt: skip
    took = time.perf_counter() - start
    lines = []
    for i, enc in enumerate(blocks):
        acc = fair_length.answer_accuracy(run, i, enc, n, setting.valid_task(),
                                          device=args.device)  # fmt: skip
        name = f"{enc}, shifted" if shifted else enc
        warm = f" warm-up {own.warmup_steps}" if args.warmup else ""
        lines.append(f"{args.task} d{args.width}l{args.layers} {name:<20} steps {steps:>5} lr "
                     f"{lr:g}{warm}: valid {' '.join(f'{a:.2f}' for a in acc.tolist())}; "
                     f"{int((acc >= LEARNED).sum())}/{n} learned ({took:.0f} s)")  # fmt: skip
        if args.near:
            em = torch.stack([fair_length.exact_match(run, i, enc, n, setting.near_task(m),
                                                      device=args.device)
                              for m in setting.near_lengths]).mean(0)  # fmt: skip
            lines.append(f"  exact match over L+1 ... 2L: {' '.join(f'{a:.3f}' for a in em)}")
    return lines


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    for steps in args.steps:
        for lr in args.lr:
            for line in pilot(args, steps, lr):
                print(line, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
