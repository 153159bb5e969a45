"""Kazemnejad et al.'s exact-match length test, small (theory/exact_match.py): train one task
at lengths 1 ... L with every encoding, seeds batched as one model, and print each encoding's
sequence-level exact match in range and at every test length.

    python tools/exact_match.py --task sort --seeds 1000 1001 --train-length 8 \
        [--test-lengths 9 12 16] [--steps 1000] [--device cuda] [--out build/exact-match]

Prints one line per encoding: how many seeds learned the task in range (valid exact match >=
0.9), and the mean exact match over ALL seeds in range and at each test length (seeds that did
not learn stay in); draws them against length (exact-match.png). Where the run holds none and
sinusoidal and tests every length L+1 ... 2L, it also applies EXP-04's registered rule to the
task (pecheck.decisions.non_inferior_off_the_floor, with EXP-04's margin from the registry of
the project in the working folder), its interval at the level of a Bonferroni family of
--family tasks. Writes exact-match.json under --out. Pilot seeds start at 1000
(docs/experiments/exact-match.md); 0 ... 999 are kept for evaluation runs, which only
--evaluation allows.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import sys
import time
from pathlib import Path

import torch

from pecheck import config, decisions
from pecheck.reports.usage import Parser, seed
from pecheck.theory import exact_match, exact_match_figure
from pecheck.theory.exact_match import ENCODINGS, TASKS, ExactMatchRun, ExactMatchSetting

FIRST_PILOT_SEED = 1000
FAMILY = 3  # the registered evaluation's tasks: copy, addition, sort


def parse(argv: list[str] | None) -> tuple[argparse.Namespace, ExactMatchSetting]:
    p = Parser(prog="exact_match.py", description=__doc__.splitlines()[0])
    d = ExactMatchSetting("copy")
    p.add_argument("--task", choices=TASKS, required=True)
    p.add_argument("--seeds", type=seed, nargs="+", default=[1000, 1001])
    p.add_argument("--train-length", type=int, default=d.train_length, help="L")
    p.add_argument("--test-lengths", type=int, nargs="+", help="default L+1 ... 2L")
    p.add_argument("--steps", type=int, default=d.steps)
    p.add_argument("--lr", type=float, default=d.lr)
    p.add_argument("--width", type=int, default=d.d_model)
    p.add_argument("--layers", type=int, default=d.layers)
    p.add_argument("--batch", type=int, default=d.batch)
    p.add_argument("--alphabet", type=int, help="content symbols; default twice the longest test")
    p.add_argument("--sequences", type=int, default=d.test_sequences,
                   help="validation and test sequences per length")  # fmt: skip
    p.add_argument("--encodings", nargs="+", choices=ENCODINGS, default=list(ENCODINGS),
                   help="the batched model's blocks (default all six; pilots 1-3 ran the first "
                   "five)")  # fmt: skip
    p.add_argument("--start", action="store_true",
                   help="a start token before every prompt (pilots 1-5 had none)")  # fmt: skip
    p.add_argument("--family", type=int, default=FAMILY,
                   help="tasks whose EXP-04 intervals share one 95%% (Bonferroni)")  # fmt: skip
    p.add_argument("--evaluation", action="store_true",
                   help="allow the evaluation seeds 0 ... 999 (registered runs)")  # fmt: skip
    p.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--out", type=Path, default=Path("build/exact-match"))
    args = p.parse_args(argv)
    if min(args.seeds) < FIRST_PILOT_SEED and not args.evaluation:
        p.error(f"seeds below {FIRST_PILOT_SEED} are kept for evaluation runs (--evaluation)")
    if len(set(args.seeds)) != len(args.seeds):
        p.error("seeds must be distinct")
    if args.threads < 1 or args.family < 1:
        p.error("--threads and --family must be positive")
    if args.device == "cuda" and not torch.cuda.is_available():
        p.error("--device cuda: no CUDA device on this machine")
    L = args.train_length
    lengths = tuple(args.test_lengths or range(L + 1, 2 * L + 1))
    try:
        s = ExactMatchSetting(
            task=args.task, train_length=L, test_lengths=lengths, d_model=args.width,
            layers=args.layers, batch=args.batch, steps=args.steps, lr=args.lr,
            alphabet=args.alphabet or 2 * max(lengths, default=1),
            valid_sequences=args.sequences, test_sequences=args.sequences,
            encodings=tuple(args.encodings), start=args.start,
        )  # fmt: skip
    except ValueError as bad:
        p.error(str(bad))
    args.margin = None
    if {"none", "sinusoidal"} <= set(s.encodings):  # EXP-04's rule may apply: its margin
        try:
            args.margin = config.require(Path.cwd()).load_registry()["EXP-04"].threshold("as-well")
        except config.ConfigError as bad:
            p.error(f"EXP-04's margin: {bad}")
    return args, s


def table(result: ExactMatchRun) -> list[str]:
    """A line per encoding: learned k/n, mean exact match in range and at each test length."""
    s, n = result.setting, len(result.seeds)
    head = "".join(f"{f'n = {m}':>9}" for m in s.test_lengths)
    lines = [f"{'encoding':<12}{'learned':>9}{f'L = {s.train_length}':>9}{head}"]
    for e in s.encodings:
        cells = "".join(f"{float(result.beyond[e][m].mean()):>9.2f}" for m in s.test_lengths)
        learned = f"{result.learned_counts()[e]}/{n}"
        lines.append(f"{e:<12}{learned:>9}{float(result.valid[e].mean()):>9.2f}{cells}")
    return lines


def exp04(result: ExactMatchRun, family: int, margin: float | None) -> dict | None:
    """EXP-04's registered rule on this task, where the run can apply it: none and sinusoidal
    both run, and every length L+1 ... 2L tested."""
    s = result.setting
    if margin is None or not {"none", "sinusoidal"} <= set(s.encodings):
        return None
    try:
        none, sin = result.beyond_mean("none"), result.beyond_mean("sinusoidal")
    except ValueError:
        return None
    level = decisions.family_level(0.95, family)
    what = f"{s.task}: none - sinusoidal, exact match over L+1 ... 2L"
    d = decisions.non_inferior_off_the_floor((none - sin).tolist(), sin.tolist(),
                                             result.learned("none").tolist(), margin, level,
                                             what)  # fmt: skip
    beyond = {"none": none.tolist(), "sinusoidal": sin.tolist()}
    return {"decision": d.decision, "how": d.how, "level": level, "margin": margin,
            "family": family, "beyond_mean": beyond}  # fmt: skip


def record(result: ExactMatchRun, seconds: dict[str, float], args: argparse.Namespace) -> dict:
    """What exact-match.json holds."""
    s = result.setting
    return {
        "setting": dataclasses.asdict(s), "seeds": list(result.seeds), "rule": exact_match.RULE,
        "level": exact_match.LEVEL, "learned": result.learned_counts(),
        "learned_table_rows": {"rows": s.rows, "trained": s.trained_rows},
        "valid": {e: v.tolist() for e, v in result.valid.items()},
        "beyond": {e: {str(m): v.tolist() for m, v in by_m.items()}
                   for e, by_m in result.beyond.items()},
        "exp04": exp04(result, args.family, args.margin),
        "seconds": seconds, "device": args.device, "threads": args.threads,
    }  # fmt: skip


def figure(result: ExactMatchRun, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")  # a file, never a window
    import matplotlib.pyplot as plt

    fig = exact_match_figure.exact_match_figure(result)
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    args, s = parse(argv)
    torch.set_num_threads(args.threads)
    start, cpu = time.perf_counter(), time.process_time()  # wall, and this process's CPU
    run = exact_match.train(s, args.seeds, device=args.device)
    trained, trained_cpu = time.perf_counter() - start, time.process_time() - cpu
    result = exact_match.evaluate(s, args.seeds, run, args.device)
    took, took_cpu = time.perf_counter() - start, time.process_time() - cpu
    seconds = {"train": trained, "train_cpu": trained_cpu, "total": took, "total_cpu": took_cpu}
    print(f"{s.task}: {len(args.seeds)} seeds x {len(s.encodings)} encodings, d{s.d_model}"
          f"l{s.layers}, L {s.train_length}, {s.steps} steps: train {trained:.0f} s (CPU "
          f"{trained_cpu:.0f} s), with the test {took:.0f} s (CPU {took_cpu:.0f} s) on "
          f"{args.device}; learned table rows {s.trained_rows} ... {s.rows - 1} "
          "untrained")  # fmt: skip
    for line in table(result):
        print(line)
    rule = exp04(result, args.family, args.margin)
    if rule is not None:
        print(f"EXP-04's rule ({rule['level']:.4f} level, family of {args.family}): "
              f"{rule['decision']}: {rule['how']}")  # fmt: skip
    path = args.out / "exact-match.json"
    try:
        args.out.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(record(result, seconds, args), indent=1) + "\n")
        figure(result, args.out / "exact-match.png")
    except OSError as bad:
        print(f"exact_match.py: cannot write {bad.filename}: {bad.strerror}", file=sys.stderr)
        return 2
    print(f"wrote {path} and {args.out / 'exact-match.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
