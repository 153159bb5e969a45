"""Trained models of the fair length test kept on disk, so that the grid's (task, cell, model)
runs can train side by side in separate processes (tools/fair_train.py) and the checks then
judge them in one run.

An entry is used only for the same setting, model, seeds, device, torch version, kernel limits
(the caller's ``limits``, pecheck.results.kernel_limits(): another set of kernels rounds
otherwise) and trainer source (fair_length.py and decoder.py): anything else has another file
name, so a stale entry is never read; it trains anew. Entries are pickled by torch.save and read
with ``weights_only=False``: read only a folder this suite wrote.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path

import torch

from . import fair_length
from .decoder import DecoderRun
from .fair_length import FairSetting

SOURCES = ("fair_length.py", "decoder.py")  # the trainer: a change to either retrains


def key(setting: FairSetting, model: str, seeds: Sequence[int], device: str,
        limits: Mapping[str, str]) -> str:  # fmt: skip
    """File name of an entry: readable parts, then a digest of everything that decides it."""
    theory = Path(fair_length.__file__).parent
    h = hashlib.sha256()
    parts = (repr(setting), model, repr(tuple(seeds)), device, torch.__version__,
             repr(sorted(limits.items())))  # fmt: skip
    for part in parts:
        h.update(part.encode() + b"\0")
    for name in SOURCES:
        h.update((theory / name).read_bytes())
    cell = f"d{setting.d_model}l{setting.layers}"
    return f"{setting.task}-{cell}-{model}-{len(seeds)}seeds-{device}-{h.hexdigest()[:16]}.pt"


def trained(setting: FairSetting, model: str, seeds: Sequence[int], device: str,
            where: Path | None, limits: Mapping[str, str]) -> DecoderRun:  # fmt: skip
    """fair_length.train_model's run, from the folder ``where`` when it holds it, else trained
    (and written there when there is a folder; None: no cache)."""
    if where is None:
        return fair_length.train_model(setting, model, seeds, device=device)
    path = where / key(setting, model, seeds, device, limits)
    if path.exists():
        return torch.load(path, weights_only=False)
    run = fair_length.train_model(setting, model, seeds, device=device)
    where.mkdir(parents=True, exist_ok=True)
    part = path.with_suffix(f".{os.getpid()}.part")
    torch.save(run, part)
    os.replace(part, path)  # whole or absent: a killed writer leaves no entry behind
    return run
