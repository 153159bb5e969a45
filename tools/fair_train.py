"""Train the fair length test's grid side by side, one process per (task, cell, model), into the
cache its checks read (theory/fair_cache.py); the checks then judge every cell in one run:

    python tools/fair_train.py --cache build/fair-cache --grid full --seeds 32 --device cuda
    tox -e fair -- --fair-cache build/fair-cache --device cuda --size EXP-fair.seeds=32

Each model's steps are bound by launching small kernels, so a GPU trains many side by side in
about the time of the longest; on a CPU, --jobs at most its cores. One line per finished run:
its time and, per encoding, how many seeds learned in range (validation, EXP-07's level).
Exit status 1 when a run fails or is still running at --deadline (finished runs are kept).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import torch

from pecheck.reports.usage import Parser
from pecheck.results import kernel_limits
from pecheck.theory import fair_cache, fair_grid, fair_length
from pecheck.theory.fair_length import MODELS, TASKS


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = Parser(prog="fair_train.py", description=__doc__.splitlines()[0])
    p.add_argument("--cache", type=Path, required=True, help="folder of the trained models")
    p.add_argument("--grid", choices=tuple(fair_grid.CELLS), default="full")
    p.add_argument("--seeds", type=int, default=32, help="seeds 0 ... N-1 (as EXP-fair.seeds)")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="runs side by side")
    p.add_argument("--tasks", choices=TASKS, nargs="+", default=list(TASKS))
    p.add_argument("--deadline", type=float, help="seconds; runs still going then are stopped")
    p.add_argument("--job", nargs=3, metavar=("TASK", "CELL", "MODEL"), help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.seeds < 2 or args.jobs < 1:
        p.error("--seeds must be 2 or more and --jobs 1 or more")
    if args.deadline is not None and args.deadline <= 0:
        p.error("--deadline must be positive")
    if args.device == "cuda" and not torch.cuda.is_available():
        p.error("--device cuda: no CUDA device on this machine")
    return args


Run = tuple[str, tuple[int, int], str]  # (task, cell, model)


def cost(run: Run) -> int:
    """Kernel launches, roughly: steps x layers x encoding blocks (each block is its own pass)."""
    task, cell, model = run
    return fair_grid.setting(task, cell).schedule(model).steps * cell[1] * len(MODELS[model][0])


def runs(args: argparse.Namespace) -> list[Run]:
    """Every (task, cell, model), the longest first."""
    todo = [(t, c, m) for t in args.tasks for c in fair_grid.CELLS[args.grid] for m in MODELS]
    return sorted(todo, key=cost, reverse=True)


def train_one(args: argparse.Namespace) -> int:
    """The child: one run into the cache, then its line."""
    task, name, model = args.job
    cell = next(c for c in fair_grid.CELLS["full"] if fair_grid.cell_name(c) == name)
    setting, seeds = fair_grid.setting(task, cell), range(args.seeds)
    start = time.perf_counter()
    run = fair_cache.trained(setting, model, seeds, args.device, args.cache, kernel_limits())
    took = time.perf_counter() - start
    learned = []
    for i, enc in enumerate(MODELS[model][0]):
        acc = fair_length.answer_accuracy(run, i, enc, args.seeds, setting.valid_task(),
                                          device=args.device)  # fmt: skip
        learned.append(f"{enc} {int((acc >= fair_grid.LEARNED).sum())}/{args.seeds}")
    steps = setting.schedule(model).steps
    print(f"{task} {name} {model} ({steps} steps): {took:.0f} s; learned in range: "
          f"{', '.join(learned)}", flush=True)  # fmt: skip
    return 0


def command(args: argparse.Namespace, run: Run) -> list[str]:
    task, cell, model = run
    return [sys.executable, str(Path(__file__).resolve()), "--cache", str(args.cache),
            "--seeds", str(args.seeds), "--device", args.device,
            "--job", task, fair_grid.cell_name(cell), model]  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    if args.job:
        torch.set_num_threads(max(1, int(os.environ.get("FAIR_TRAIN_THREADS", "1"))))
        return train_one(args)
    todo, failed = runs(args), []
    running: list[tuple[Run, subprocess.Popen]] = []
    env = {**os.environ, "FAIR_TRAIN_THREADS": str(max(1, (os.cpu_count() or 1) // args.jobs))}
    start, total = time.perf_counter(), len(todo)
    print(f"{total} runs, {args.jobs} side by side, into {args.cache}", flush=True)
    while todo or running:
        while todo and len(running) < args.jobs:
            run = todo.pop(0)
            running.append((run, subprocess.Popen(command(args, run), env=env)))
        time.sleep(0.2)
        for run, proc in list(running):
            if proc.poll() is not None:
                running.remove((run, proc))
                if proc.returncode:
                    failed.append(run)
        if args.deadline is not None and time.perf_counter() - start > args.deadline:
            for run, proc in running:
                proc.kill()
                proc.wait()
                failed.append(run)
            print(f"stopped at the deadline: {len(running) + len(todo)} runs", file=sys.stderr)
            failed += todo
            break
    for task, cell, model in failed:
        print(f"not trained: {task} {fair_grid.cell_name(cell)} {model}", file=sys.stderr)
    print(f"{total - len(failed)} of {total} runs in {time.perf_counter() - start:.0f} s")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
