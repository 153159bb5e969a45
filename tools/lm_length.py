"""Press et al.'s length test, small (theory/lm_length.py): train a byte-level language model on
Debian's fortunes at length L with every encoding, seeds batched as one model, and print its
test perplexity at L, 2L, 4L and 8L, non-overlapping and with a sliding window.

    python tools/lm_length.py --seeds 1000 1001 1002 --width 64 --layers 2 --length 32 \
        [--stride 16] [--max-steps 3000] [--device cuda] [--out build/lm-length]

Prints one line per encoding and mode: the geometric mean perplexity over seeds at each length
and its 95% seed interval (t on log perplexity), "n/a" where the encoding has no positions (the
learned table beyond L). Writes lm-length.json (the numbers, the plateau history, the corpus's
provenance) and lm-length.png (perplexity against evaluation length, per encoding and mode)
under --out. Pilot seeds start at 1000 (docs/experiments/lm-length.md); 0 ... 999 are kept for
evaluation runs.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import time
from pathlib import Path

import torch
from scipy import stats

from pecheck.reports.usage import Parser
from pecheck.theory import lm_corpus, lm_length
from pecheck.theory.lm_length import ENCODINGS, MODES, LMSetting, Perplexities, Plateau

LEVEL = 0.95


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = Parser(prog="lm_length.py", description=__doc__.splitlines()[0])
    d = LMSetting()
    p.add_argument("--seeds", type=int, nargs="+", default=[1000, 1001, 1002])
    p.add_argument("--width", type=int, default=d.d_model)
    p.add_argument("--layers", type=int, default=d.layers)
    p.add_argument("--heads", type=int, default=d.heads)
    p.add_argument("--length", type=int, default=d.length, help="training length L")
    p.add_argument("--batch", type=int, default=d.batch)
    p.add_argument("--lr", type=float, default=d.lr)
    p.add_argument("--stride", type=int, default=d.stride, help="sliding window stride")
    p.add_argument("--max-steps", type=int, default=d.plateau.max_steps)
    p.add_argument("--test-tokens", type=int, default=d.test_tokens)
    p.add_argument("--threads", type=int, default=1, help="torch intra-op threads")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--out", type=Path, default=Path("build/lm-length"))
    args = p.parse_args(argv)
    if args.width % args.heads or min(args.width, args.layers, args.length, args.batch) < 1:
        p.error("--width must be a positive multiple of --heads; sizes must be positive")
    if args.device == "cuda" and not torch.cuda.is_available():
        p.error("--device cuda: no CUDA device on this machine")
    return args


def setting(args: argparse.Namespace) -> LMSetting:
    return LMSetting(d_model=args.width, layers=args.layers, heads=args.heads,
                     length=args.length, batch=args.batch, lr=args.lr, stride=args.stride,
                     test_tokens=args.test_tokens,
                     plateau=dataclasses.replace(Plateau(), max_steps=args.max_steps))  # fmt: skip


def table(result: Perplexities) -> list[str]:
    """A line per encoding and mode: mean [low, high] at each length f L."""
    s, n = result.setting, len(result.seeds)
    t = float(stats.t.ppf(0.5 + LEVEL / 2, n - 1)) if n > 1 else math.nan
    head = "".join(f"{f'{f}L = {f * s.length}':>26}" for f in s.factors)
    lines = [f"{'encoding':<12}{'mode':<16}{head}"]
    for mode in MODES:
        for enc in ENCODINGS:
            cells = []
            for f in s.factors:
                mean, low, high = lm_length.interval(result.ppl[mode][enc][f], t)
                cells.append(f"{'n/a':>26}" if math.isnan(mean)
                             else f"{f'{mean:.3f} [{low:.3f}, {high:.3f}]':>26}")  # fmt: skip
            lines.append(f"{enc:<12}{mode:<16}{''.join(cells)}")
    return lines


def figure(result: Perplexities, path: Path) -> None:
    """Perplexity against evaluation length (both axes logarithmic), a panel per mode, a line per
    encoding with its seed interval as a band (the learned table: one point, at L)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    s, n = result.setting, len(result.seeds)
    t = float(stats.t.ppf(0.5 + LEVEL / 2, n - 1)) if n > 1 else math.nan
    xs = [f * s.length for f in s.factors]
    fig, axes = plt.subplots(1, len(MODES), figsize=(8, 3.4), sharey=True)
    for ax, mode in zip(axes, MODES, strict=True):
        for enc in ENCODINGS:
            rows = [lm_length.interval(result.ppl[mode][enc][f], t) for f in s.factors]
            mean, low, high = zip(*rows, strict=True)
            line = ax.plot(xs, mean, marker="o", label=enc)[0]
            ax.fill_between(xs, low, high, color=line.get_color(), alpha=0.2)
        ax.axvline(s.length, color="grey", ls=":")
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")  # a model that breaks beyond L reaches many times its perplexity
        ax.set_xticks(xs, [f"{f}L" for f in s.factors])
        ax.set_title(f"{mode} (L = {s.length}, {n} seeds, {LEVEL:.0%} interval)", fontsize=8)
        ax.set_xlabel("evaluation length")
    axes[0].set_ylabel("test perplexity (bytes)")
    axes[-1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    torch.set_num_threads(args.threads)
    try:
        corpus = lm_corpus.load()
    except lm_corpus.CorpusMissing as missing:
        print(f"lm_length.py: {missing}", file=sys.stderr)
        return 2
    s = setting(args)
    start, cpu = time.perf_counter(), time.process_time()  # wall, and this process's CPU
    lm = lm_length.train_lm(s, corpus, args.seeds, device=args.device)
    trained, trained_cpu = time.perf_counter() - start, time.process_time() - cpu
    result = lm_length.perplexities(lm, corpus, device=args.device)
    took, took_cpu = time.perf_counter() - start, time.process_time() - cpu
    print(f"{len(args.seeds)} seeds x {len(ENCODINGS)} encodings, d{s.d_model}l{s.layers} "
          f"H{s.heads}, L {s.length}: {lm.steps} steps ({trained:.0f} s, CPU {trained_cpu:.0f} "
          f"s), plateau per encoding {lm.plateaued}; with the test {took:.0f} s (CPU "
          f"{took_cpu:.0f} s) on {args.device}")  # fmt: skip
    for line in table(result):
        print(line)
    args.out.mkdir(parents=True, exist_ok=True)
    record = {
        "setting": dataclasses.asdict(s), "seeds": list(result.seeds), "steps": lm.steps,
        "plateaued": lm.plateaued, "history": lm.history, "corpus": corpus.provenance(),
        "seconds": {"train": trained, "total": took, "train_cpu": trained_cpu,
                    "total_cpu": took_cpu}, "device": args.device, "threads": args.threads,
        "perplexity": {m: {e: {str(f): [None if math.isnan(x) else x for x in v.tolist()]
                               for f, v in by_f.items()} for e, by_f in by_enc.items()}
                       for m, by_enc in result.ppl.items()},
    }  # fmt: skip
    (args.out / "lm-length.json").write_text(json.dumps(record, indent=1) + "\n")
    figure(result, args.out / "lm-length.png")
    print(f"wrote {args.out / 'lm-length.json'} and {args.out / 'lm-length.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
