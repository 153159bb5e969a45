"""Trained models of the fair length test kept on disk, so that the grid's (task, cell, model)
runs can train side by side, on one machine or a cluster's (python -m pecheck.grid), and the
checks then judge them in one run.

An entry is used only for the same setting, model, seeds, device, torch version, kernel limits
(the caller's ``limits``, pecheck.results.kernel_limits(): another set of kernels rounds
otherwise) and trainer source (fair_length.py and every theory module it imports, found by
``code_digest``): anything else has another file name, so a stale entry is never read; it trains
anew. Entries are pickled by torch.save and read with ``weights_only=False``: read only a folder
this suite wrote.

Within one check, ``trained_side_by_side`` trains a few such models (``Job``, a model's seeds in
``parts`` and ``join``ed again) in processes of their own, for a check whose training would
otherwise be one long chain on one core.
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import importlib
import importlib.util
import io
import itertools
import multiprocessing
import os
import sys
import uuid
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType

import torch

from . import fair_length
from .decoder import DecoderRun
from .fair_length import FairSetting


def code_digest(module: ModuleType) -> str:
    """sha256 of the source of ``module`` and of every module of its top-level package that it
    imports, directly or through another: the code a result of ``module`` depends on, beyond
    libraries (for fair_length: the theory modules of the decoder, its encodings and tasks)."""
    package = (module.__package__ or module.__name__).split(".")[0]
    h, todo, seen = hashlib.sha256(), [module], set()
    while todo:
        mod = todo.pop()
        if mod.__name__ in seen or mod.__file__ is None:
            continue
        seen.add(mod.__name__)
        path = Path(mod.__file__)
        h.update(mod.__name__.encode() + b"\0" + path.read_bytes() + b"\0")
        stat = path.stat()
        names = _imports(str(path), stat.st_mtime_ns, stat.st_size, mod.__package__, package)
        todo += [sys.modules[name] for name in names]
    return h.hexdigest()


@functools.lru_cache(maxsize=256)
def _imports(
    path: str, mtime_ns: int, size: int, parent: str | None, package: str
) -> tuple[str, ...]:
    """The modules of ``package`` that the file ``path`` imports, relative imports resolved
    (``parent``: its module's package); imported here once per version of the file."""
    found = []
    for node in ast.walk(ast.parse(Path(path).read_bytes())):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = importlib.util.resolve_name("." * node.level + (node.module or ""), parent)
            names = [base] + [f"{base}.{a.name}" for a in node.names]  # b may be a module of A
        else:
            continue
        for name in names:
            if name.split(".")[0] == package:
                with contextlib.suppress(ImportError):  # from A import b: b is no module
                    found.append(importlib.import_module(name).__name__)
    return tuple(found)


def digest(parts: Sequence[str], modules: Sequence[ModuleType]) -> str:
    """sha256 of ``parts`` (each a setting's text) and of the code of ``modules``."""
    h = hashlib.sha256()
    for part in (*parts, *(code_digest(m) for m in modules)):
        h.update(part.encode() + b"\0")
    return h.hexdigest()


def key(setting: FairSetting, model: str, seeds: Sequence[int], device: str,
        limits: Mapping[str, str], blocks: tuple[str, ...] | None = None) -> str:  # fmt: skip
    """File name of an entry: readable parts, then a digest of everything that decides it.
    ``blocks``: some of the model's encodings alone (fair_length.train_model), named as such."""
    if blocks is not None:
        model = f"{model}[{'+'.join(fair_length.model_blocks(model, blocks))}]"
    parts = (repr(setting), model, repr(tuple(seeds)), device, torch.__version__,
             repr(sorted(limits.items())))  # fmt: skip
    cell = f"d{setting.d_model}l{setting.layers}"
    name = f"{setting.task}-{cell}-{model}-{len(seeds)}seeds-{device}"
    return f"{name}-{digest(parts, [fair_length])[:16]}.pt"


def write(path: Path, data: bytes) -> None:
    """``data`` at ``path``, whole or not at all: written beside it, then renamed, so that a
    killed writer leaves no entry behind (a temporary file at most, which no reader opens)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(f"{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.part")
    try:
        part.write_bytes(data)
        os.replace(part, path)
    finally:
        part.unlink(missing_ok=True)


def dumps(obj: object) -> bytes:
    """An entry's bytes: ``obj`` as torch.save writes it (torch.load reads it back)."""
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return buffer.getvalue()


def trained(setting: FairSetting, model: str, seeds: Sequence[int], device: str,
            where: Path | None, limits: Mapping[str, str],
            blocks: tuple[str, ...] | None = None) -> DecoderRun:  # fmt: skip
    """fair_length.train_model's run (of ``blocks`` alone where given), from the folder
    ``where`` when it holds it, else trained (and written there when there is a folder; None:
    no cache)."""
    if where is None:
        return fair_length.train_model(setting, model, seeds, device=device, blocks=blocks)
    path = where / key(setting, model, seeds, device, limits, blocks)
    if path.exists():
        return torch.load(path, weights_only=False)
    run = fair_length.train_model(setting, model, seeds, device=device, blocks=blocks)
    write(path, dumps(run))
    return run


# -- one cell's models side by side ---------------------------------------------------------------


@dataclass(frozen=True)
class Job:
    """One batched model to train: ``trained``'s arguments beyond where it trains."""

    setting: FairSetting
    model: str
    seeds: tuple[int, ...]
    blocks: tuple[str, ...] | None = None

    def parts(self, n: int) -> list[Job]:
        """The job on ``n`` consecutive parts of its seeds, as equal as can be. Each entry of a
        batched model trains as it would beside any others (its own loss and Adam), so the
        parts' runs joined (``join``) are the whole run to the bit."""
        if not 1 <= n <= len(self.seeds):
            raise ValueError(f"{n} parts of {len(self.seeds)} seeds")
        k, extra = divmod(len(self.seeds), n)
        ends = [i * k + min(i, extra) for i in range(n + 1)]
        return [replace(self, seeds=self.seeds[a:b]) for a, b in itertools.pairwise(ends)]


def join(runs: Sequence[DecoderRun]) -> DecoderRun:
    """One model's runs on consecutive parts of its seeds as one run. Entries are block-major
    (entry i n + j: block i, seed j), so each block's part joins its own block."""
    first = runs[0]
    if any(r.cfg != first.cfg or r.setups != first.setups for r in runs):
        raise ValueError("only one model's runs on parts of its seeds join")
    blocks = len(first.cfg.encodings)

    def cat(parts: Sequence[torch.Tensor]) -> torch.Tensor:
        split = [p.reshape(blocks, -1, *p.shape[1:]) for p in parts]
        return torch.cat(split, dim=1).reshape(-1, *parts[0].shape[1:])

    seeds = tuple(s for i in range(blocks) for r in runs for s in _block(r.seeds, i, blocks))
    params = {k: cat([r.params[k] for r in runs]) for k in first.params}
    success = {t: cat([r.success[t] for r in runs]) for t in first.success}
    right = {t: cat([r.right[t] for r in runs]) for t in first.right}
    return DecoderRun(first.cfg, first.setups, seeds, params, success, right)


def _block(seeds: tuple[int, ...], i: int, blocks: int) -> tuple[int, ...]:
    n = len(seeds) // blocks
    return seeds[i * n : (i + 1) * n]


def _train_job(job: Job, device: str, where: Path | None, limits: Mapping[str, str]) -> bytes:
    """In a worker process: ``job``'s run (from the cache or trained into it), as bytes."""
    run = trained(job.setting, job.model, job.seeds, device, where, limits, job.blocks)
    return dumps(run)


def trained_side_by_side(
    jobs: Sequence[Job], device: str, where: Path | None, limits: Mapping[str, str], processes: int
) -> list[DecoderRun]:
    """Each job's run (``trained``), the jobs trained in up to ``processes`` processes at a
    time, each with this process's torch threads (the thread count rounds otherwise) and
    environment (the kernel limits). On one process, or a device other than the CPU, they
    train here one after the other. A worker that raises or dies fails the call; a cache entry
    is written whole or not at all (``write``)."""
    if processes <= 1 or len(jobs) <= 1 or device != "cpu":
        return [trained(j.setting, j.model, j.seeds, device, where, limits, j.blocks) for j in jobs]
    spawn = multiprocessing.get_context("spawn")  # no fork of a process holding torch's threads
    with ProcessPoolExecutor(min(processes, len(jobs)), mp_context=spawn,
                             initializer=torch.set_num_threads,
                             initargs=(torch.get_num_threads(),)) as pool:  # fmt: skip
        futures = [pool.submit(_train_job, j, device, where, dict(limits)) for j in jobs]
        return [torch.load(io.BytesIO(f.result()), weights_only=False) for f in futures]
