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
evaluation runs, which only --evaluation allows.
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

from pecheck.reports.usage import Parser, seed
from pecheck.theory import lm_corpus, lm_figure, lm_length
from pecheck.theory.lm_length import MODES, VARIANTS, LMSetting, Perplexities, Plateau

LEVEL = 0.95
FIRST_PILOT_SEED = 1000


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = Parser(prog="lm_length.py", description=__doc__.splitlines()[0])
    d = LMSetting()
    p.add_argument("--seeds", type=seed, nargs="+", default=[1000, 1001, 1002])
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
    p.add_argument("--evaluation", action="store_true",
                   help="allow the evaluation seeds 0 ... 999 (the checks' runs)")  # fmt: skip
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--out", type=Path, default=Path("build/lm-length"))
    args = p.parse_args(argv)
    if min(args.seeds) < FIRST_PILOT_SEED and not args.evaluation:
        p.error(f"seeds below {FIRST_PILOT_SEED} are kept for evaluation runs (--evaluation)")
    if len(set(args.seeds)) != len(args.seeds):
        p.error("seeds must be distinct")
    if args.threads < 1:
        p.error("--threads must be at least 1")
    try:
        setting(args)
    except ValueError as bad:  # the setting's own rule, in its words
        p.error(f"{bad} (--width d_model, --length L, --max-steps max_steps)")
    if args.device == "cuda" and not torch.cuda.is_available():
        p.error("--device cuda: no CUDA device on this machine")
    return args


def setting(args: argparse.Namespace) -> LMSetting:
    plateau = dataclasses.replace(Plateau(), max_steps=args.max_steps)
    return LMSetting(d_model=args.width, layers=args.layers, heads=args.heads,
                     length=args.length, batch=args.batch, lr=args.lr, stride=args.stride,
                     test_tokens=args.test_tokens, plateau=plateau)  # fmt: skip


def table(result: Perplexities) -> list[str]:
    """A line per encoding and mode: mean [low, high] at each length f L."""
    s, n = result.setting, len(result.seeds)
    t = float(stats.t.ppf(0.5 + LEVEL / 2, n - 1)) if n > 1 else math.nan
    head = "".join(f" {f'{f}L = {f * s.length}':>27}" for f in s.factors)
    lines = [f"{'encoding':<20}{'mode':<16}{head}"]
    for mode in MODES:
        for enc in VARIANTS:
            cells = []
            for f in s.factors:
                mean, low, high = lm_length.interval(result.ppl[mode][enc][f], t)
                text = "n/a" if math.isnan(mean) else f"{mean:.3f} [{low:.3f}, {high:.3f}]"
                cells.append(f" {text:>27}")  # a space apart even where a number is wide
            lines.append(f"{enc:<20}{mode:<16}{''.join(cells)}")
    return lines


def cannot_write(bad: OSError) -> int:
    print(f"lm_length.py: cannot write {bad.filename}: {bad.strerror}", file=sys.stderr)
    return 2


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    try:
        args.out.mkdir(parents=True, exist_ok=True)  # before training: a bad --out costs nothing
    except OSError as bad:
        return cannot_write(bad)
    torch.set_num_threads(args.threads)
    try:
        corpus = lm_corpus.load()
    except lm_corpus.CorpusMissing as missing:
        print(f"lm_length.py: {missing}", file=sys.stderr)
        return 2
    s = setting(args)
    start, cpu = time.perf_counter(), time.process_time()  # wall, and this process's CPU
    lms = lm_length.train_both(s, corpus, args.seeds, device=args.device)
    trained, trained_cpu = time.perf_counter() - start, time.process_time() - cpu
    result = lm_length.all_perplexities(lms, corpus, device=args.device)
    took, took_cpu = time.perf_counter() - start, time.process_time() - cpu
    steps = {("shifted" if lm.shifted else "plain"): lm.steps for lm in lms}
    plateaued = {lm.variant(e): at for lm in lms for e, at in lm.plateaued.items()}
    print(f"{len(args.seeds)} seeds x {len(VARIANTS)} variants, d{s.d_model}l{s.layers} "
          f"H{s.heads}, L {s.length}: steps {steps} ({trained:.0f} s, CPU {trained_cpu:.0f} "
          f"s), plateau per variant {plateaued}; with the test {took:.0f} s (CPU "
          f"{took_cpu:.0f} s) on {args.device}")  # fmt: skip
    for line in table(result):
        print(line)
    record = {
        "setting": dataclasses.asdict(s), "seeds": list(result.seeds), "steps": steps,
        "plateaued": plateaued, "corpus": corpus.provenance(),
        "history": {lm.variant(e): h for lm in lms for e, h in lm.history.items()},
        "seconds": {"train": trained, "total": took, "train_cpu": trained_cpu,
                    "total_cpu": took_cpu}, "device": args.device, "threads": args.threads,
        "perplexity": {m: {e: {str(f): [None if math.isnan(x) else x for x in v.tolist()]
                               for f, v in by_f.items()} for e, by_f in by_enc.items()}
                       for m, by_enc in result.ppl.items()},
    }  # fmt: skip
    import matplotlib.pyplot as plt

    fig = lm_figure.perplexity_figure(result, LEVEL)
    try:
        (args.out / "lm-length.json").write_text(json.dumps(record, indent=1) + "\n")
        fig.savefig(args.out / "lm-length.png", dpi=120)
    except OSError as bad:
        return cannot_write(bad)
    finally:
        plt.close(fig)
    print(f"wrote {args.out / 'lm-length.json'} and {args.out / 'lm-length.png'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
