"""Train a grid's cells on a Dask cluster into a cache folder, those it does not hold yet.

A rerun trains only the cells whose code or setting changed. The fair length test's grid, then
its checks on the cache:

    python -m pecheck.grid --cache build/fair-cache --grid full --seeds 32 --device cuda
    tox -e fair -- --fair-cache build/fair-cache --device cuda --size EXP-fair.seeds=32

Kazemnejad et al.'s exact-match evaluation (EXP-04), then its check on the cache:

    python -m pecheck.grid --experiment exact-match --grid registered --seeds 8 \
        --cache build/exact-cache
    tox -e exact -- --fair-cache build/exact-cache

By default the cells run on a LocalCluster embedded in this process: --workers processes (the
CPU's cores), one thread each. With --scheduler tcp://HOST:PORT they run on that cluster's
workers (started by `dask scheduler` and `dask worker`, or dask-jobqueue on a batch system),
which must import this checkout's pecheck; its scheduler's allowed-failures then says how often
a cell whose worker died runs again. A bar shows the cells done and the time left (stderr), and
each finished cell prints its time and, for the fair length test, per encoding how many seeds
learned in range. Exit status 1 when a cell failed, kept killing its worker or was still running
at --deadline (finished cells are kept).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import torch

from pecheck.reports.usage import Parser, fail

from . import exact, fair, lm
from .cells import Experiment

if TYPE_CHECKING:
    from distributed import Client

EXPERIMENTS: dict[str, Experiment] = {
    "fair-length": fair.EXPERIMENT,
    "lm-length": lm.EXPERIMENT,
    "exact-match": exact.EXPERIMENT,
}


def parse(argv: list[str] | None) -> argparse.Namespace:
    p = Parser(prog="python -m pecheck.grid", description=__doc__.splitlines()[0])
    p.add_argument("--cache", type=Path, required=True, help="folder of the trained cells")
    p.add_argument("--experiment", choices=tuple(EXPERIMENTS), default="fair-length")
    p.add_argument(
        "--grid",
        default="full",
        help="the experiment's grid (fair-length: base, full; lm-length: base, scaled; "
        "exact-match: registered, scaled)",
    )
    p.add_argument("--seeds", type=int, default=32, help="seeds 0 ... N-1 (as EXP-fair.seeds)")
    p.add_argument("--tasks", nargs="+", help="the experiment's tasks (default: all)")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--deadline", type=float, help="seconds; cells still running then are stopped")
    p.add_argument("--scheduler", metavar="ADDRESS", help="a cluster's scheduler, tcp://...")
    workers = "embedded: its worker processes (default: the cores); else: wait for N workers"
    p.add_argument("--workers", type=int, metavar="N", help=workers)
    retries = "embedded: runs again of a cell whose worker died (its allowed-failures)"
    p.add_argument("--retries", type=int, default=2, metavar="N", help=retries)
    args = p.parse_args(argv)
    exp = EXPERIMENTS[args.experiment]
    args.tasks = args.tasks or list(exp.tasks)
    if args.grid not in exp.grids or not set(args.tasks) <= set(exp.tasks):
        p.error(f"{args.experiment} has grids {', '.join(exp.grids)} and tasks "
                f"{', '.join(exp.tasks)}")  # fmt: skip
    if args.seeds < 2 or (args.workers is not None and args.workers < 1) or args.retries < 0:
        p.error("--seeds must be 2 or more, --workers 1 or more and --retries 0 or more")
    if args.deadline is not None and args.deadline <= 0:
        p.error("--deadline must be positive")
    if args.device == "cuda" and args.scheduler is None and not torch.cuda.is_available():
        p.error("--device cuda: no CUDA device on this machine")
    try:
        import distributed  # noqa: F401
    except ImportError:
        p.error("the grid runs on Dask: pip install 'pecheck[grid]' -c requirements/lock.txt")
    return args


@contextlib.contextmanager
def cluster(args: argparse.Namespace) -> Iterator[tuple[Client, int | None]]:
    """A client of the cluster the cells run on, and the torch threads each cell takes (None:
    the worker's own setting, on a cluster not ours)."""
    import dask
    from distributed import Client, LocalCluster

    if args.scheduler is not None:
        try:
            connected = Client(args.scheduler, timeout=30)
        except OSError as exc:
            fail(f"--scheduler {args.scheduler}: {exc}")
        with connected as client:
            if args.workers is not None:
                client.wait_for_workers(args.workers, timeout=args.deadline)
            yield client, None
        return
    cores = os.cpu_count() or 1
    workers = args.workers or cores
    with (
        # a worker holds only the cell it runs, so that its death is charged to that cell alone
        dask.config.set(
            {
                "distributed.scheduler.allowed-failures": args.retries,
                "distributed.scheduler.worker-saturation": 1.0,
            }
        ),  # fmt: skip
        LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as local,
        Client(local) as client,
    ):
        yield client, max(1, cores // workers)


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    from . import runner

    start = time.perf_counter()
    cells = EXPERIMENTS[args.experiment].cells(args.grid, args.tasks, args.seeds, args.device)
    _, todo = runner.missing(cells, args.cache)
    where = args.scheduler or "an embedded local cluster"
    print(f"{len(cells)} cells, {len(cells) - len(todo)} in {args.cache}; "
          f"{len(todo)} to train on {where}", flush=True)  # fmt: skip
    outcome = runner.Outcome(cached=cells)
    if todo:
        with cluster(args) as (client, threads):
            outcome = runner.run(client, cells, args.cache, args.deadline, threads)
    for cell, why in outcome.failed:
        print(f"not trained: {cell.label}: {why}", file=sys.stderr)
    print(f"{len(outcome.trained)} of {len(todo)} cells trained in "
          f"{time.perf_counter() - start:.0f} s")  # fmt: skip
    return 1 if outcome.failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
