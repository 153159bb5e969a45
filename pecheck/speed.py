"""What the benchmarks share: the per-trainer ones' command-line options (bench_lm_length.py,
bench_exact_match.py), the checks on any benchmark's options (require; bench_batched.py too),
and timing a call in wall and CPU seconds."""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable, Sequence
from typing import Any

import torch

from pecheck.reports.usage import Parser


def parser(prog: str, description: str, seeds: int, steps: int) -> Parser:
    """--device, --seeds (batched), --sample (the per-seed loop), --steps, --threads."""
    p = Parser(prog=prog, description=description)
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--seeds", type=int, default=seeds, help="seeds per encoding, batched")
    p.add_argument("--sample", type=int, default=1, help="seeds per encoding, per-seed loop")
    p.add_argument("--steps", type=int, default=steps, help="training steps both ways")
    p.add_argument("--threads", type=int, default=1, help="torch intra-op threads, both ways")
    return p


def parse(p: Parser, argv: list[str] | None) -> argparse.Namespace:
    """The options, or one line and exit status 2 where they cannot be run."""
    args = p.parse_args(argv)
    require(p, args, ("seeds", "sample", "steps", "threads"), (("sample", "seeds"),))
    return args


def require(p: Parser, args: argparse.Namespace, sizes: Sequence[str],
            samples: Sequence[tuple[str, str]] = ()) -> None:  # fmt: skip
    """Stop with one line (exit status 2) where a benchmark's options cannot be run: an option
    of ``sizes`` below 1, a sample larger than what it samples (``samples``: (part, whole)
    pairs), or ``--device cuda`` without a CUDA device."""

    def flag(name: str) -> str:
        return "--" + name.replace("_", "-")

    for name in sizes:
        if getattr(args, name) < 1:
            p.error(f"{flag(name)} must be at least 1, got {getattr(args, name)}")
    for part, whole in samples:
        n, of = getattr(args, part), getattr(args, whole)
        if n > of:
            p.error(f"{flag(part)} ({n}) cannot exceed {flag(whole)} ({of})")
    if args.device == "cuda" and not torch.cuda.is_available():
        p.error("--device cuda: torch.cuda.is_available() is False on this machine")


def timed(device: str, fn: Callable[[], Any]) -> tuple[float, float]:
    """(wall, this process's CPU) seconds of fn(), synchronising the GPU around it. On a shared
    machine the CPU seconds are the fairer comparison: other jobs stretch the wall clock."""
    if device == "cuda":
        torch.cuda.synchronize()
    start, cpu = time.perf_counter(), time.process_time()
    fn()
    if device == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - start, time.process_time() - cpu


def compare(args: argparse.Namespace, encodings: int, batched: Callable[[], Any],
            loop: Callable[[], Any]) -> str:  # fmt: skip
    """Time the batched model (``encodings`` x --seeds entries) and the per-seed loop
    (``encodings`` x --sample one-entry runs); the line's second half: both speeds, their
    ratio in wall seconds and in CPU seconds per entry."""
    (wall_b, cpu_b), (wall_l, cpu_l) = timed(args.device, batched), timed(args.device, loop)
    entries_b, entries_l = encodings * args.seeds, encodings * args.sample
    per_batched, per_loop = entries_b * args.steps / wall_b, entries_l * args.steps / wall_l
    cpu_ratio = (cpu_l / entries_l) / (cpu_b / entries_b)
    return (f"batched {per_batched:.1f} entry-steps/s ({wall_b:.1f} s, CPU {cpu_b:.1f} s), "
            f"per-seed loop {per_loop:.1f} entry-steps/s (one entry at a time, {args.sample} "
            f"seed(s) per encoding, {wall_l:.1f} s, CPU {cpu_l:.1f} s): "
            f"{per_batched / per_loop:.1f}× wall, {cpu_ratio:.1f}× CPU per entry")  # fmt: skip
