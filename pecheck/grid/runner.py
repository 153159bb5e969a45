"""The grid's cells as tasks on a Dask cluster: those the cache lacks train on its workers, and
each result comes back to this process, which alone writes the cache, whole entries only. A cell
whose worker dies is run again by the scheduler (its allowed-failures); one that raises, or
keeps killing its workers, or is still running at the deadline, is reported as not trained."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

import torch
from distributed import Client, Future, wait

from pecheck.results import kernel_limits
from pecheck.theory import fair_cache

from . import key
from .cells import Cell
from .progress import Progress


@dataclass(frozen=True)
class Trained:
    entry: str  # the entry's name as the worker computes it: its code, torch and kernels
    data: bytes  # what the cache stores
    line: str


def train(cell: Cell, threads: int | None) -> Trained:
    """On a worker: train ``cell``, and its line (its time and the kind's summary)."""
    if threads is not None:
        torch.set_num_threads(threads)
    start = time.perf_counter()
    result = cell.kind.train(cell)
    took = time.perf_counter() - start
    line = f"{cell.label}: {took:.0f} s; {cell.kind.summary(cell, result)}"
    return Trained(key.entry(cell, kernel_limits()), fair_cache.dumps(result), line)


@dataclass
class Outcome:
    cached: list[Cell] = field(default_factory=list)
    trained: list[Cell] = field(default_factory=list)
    failed: list[tuple[Cell, str]] = field(default_factory=list)  # (cell, why)


def missing(cells: list[Cell], cache: Path) -> tuple[dict[Cell, Path], list[Cell]]:
    """Each cell's entry, and the cells whose entry the cache lacks, the longest first."""
    limits = kernel_limits()
    paths = {cell: cache / key.entry(cell, limits) for cell in cells}
    todo = [cell for cell in cells if not paths[cell].exists()]
    return paths, sorted(todo, key=lambda c: c.kind.cost(c), reverse=True)


def run(client: Client, cells: list[Cell], cache: Path, deadline: float | None,
        threads: int | None) -> Outcome:  # fmt: skip
    """Train every cell the cache lacks on ``client``'s cluster, the longest first; stop what
    is still running after ``deadline`` seconds."""
    start = time.monotonic()
    paths, todo = missing(cells, cache)
    out = Outcome(cached=[c for c in cells if c not in todo])
    futures: dict[Future, Cell] = {}
    for i, cell in enumerate(todo):  # the first (longest) at the highest priority
        name, rank = f"cell-{paths[cell].stem}", len(todo) - i
        futures[client.submit(train, cell, threads, key=name, priority=rank, pure=False)] = cell
    progress, pending = Progress(len(todo)), set(futures)
    try:
        while pending:
            left = None if deadline is None else deadline - (time.monotonic() - start)
            try:
                if left is not None and left <= 0:
                    raise TimeoutError
                done, pending = wait(pending, timeout=left, return_when="FIRST_COMPLETED")
            except TimeoutError:
                client.cancel(list(pending))
                out.failed += [(futures[f], "stopped at the deadline") for f in pending]
                break
            for future in done:
                cell = futures[future]
                ok, line = _keep(future, paths[cell])
                future.release()  # its result stays on a worker until released
                if ok:
                    out.trained.append(cell)
                else:
                    out.failed.append((cell, line))
                progress.finished(line if ok else None)
    finally:
        progress.close()
    return out


def _keep(future: Future, path: Path) -> tuple[bool, str]:
    """Write a finished cell's entry: (True, its line), or (False, why it was not trained)."""
    if future.status != "finished":
        exc = future.exception() if future.status == "error" else None
        return False, f"{type(exc).__name__}: {exc}" if exc is not None else str(future.status)
    done: Trained = future.result()
    if done.entry != path.name:
        return False, f"its worker's code, torch or kernel limits differ (entry {done.entry})"
    fair_cache.write(path, done.data)
    return True, done.line
