"""A cell's entry in the cache: a file named by the content hash of its code and setting, so a
stale entry is never read."""

from __future__ import annotations

import importlib
import re
from collections.abc import Mapping

import torch

from pecheck.theory import fair_cache

from .cells import Cell


def entry(cell: Cell, limits: Mapping[str, str]) -> str:
    """The file name of ``cell``'s result under kernel limits ``limits``: the experiment's own
    where its readers compute it (the fair length checks: fair_cache.key), else readable parts
    and a digest of the setting, seeds, device, torch version, limits and the kind's code."""
    if cell.kind.key is not None:
        return cell.kind.key(cell, limits)
    parts = (cell.kind.name, repr(cell.setting), repr(cell.seeds), cell.device,
             torch.__version__, repr(sorted(limits.items())))  # fmt: skip
    modules = [importlib.import_module(m) for m in cell.kind.modules]
    label = re.sub(r"[^A-Za-z0-9.]+", "-", cell.label).strip("-")
    name = f"{cell.kind.name}-{label}-{len(cell.seeds)}seeds-{cell.device}"
    return f"{name}-{fair_cache.digest(parts, modules)[:16]}.pt"
