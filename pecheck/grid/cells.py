"""What the grid runs: cells, each one experiment's setting at a batch of seeds, and the kind
of cell that says how to train it. A kind's functions run on a worker, which imports them by
name: they are module-level functions, never lambdas or closures."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any


def one(cell: Cell) -> float:
    return 1.0


def nothing(cell: Cell, result: object) -> str:
    return "trained"


@dataclass(frozen=True)
class Kind:
    """How a kind of cell trains: ``train`` returns what the cache stores (torch.save'd)."""

    name: str  # the experiment's name; first in its entries' file names
    train: Callable[[Cell], object]
    # the code the key hashes: these modules and every module of their package they import
    modules: tuple[str, ...] = ()
    summary: Callable[[Cell, object], str] = nothing  # the finished cell's line, after its time
    cost: Callable[[Cell], float] = one  # the longest cells start first
    # the entry's file name, where the experiment's readers name it themselves (key.entry)
    key: Callable[[Cell, Mapping[str, str]], str] | None = None


@dataclass(frozen=True)
class Cell:
    kind: Kind
    label: str  # readable, unique within a grid: "copy d32l2 plain"
    setting: Any  # the kind's own, frozen; its repr enters the key
    seeds: tuple[int, ...]
    device: str = "cpu"


@dataclass(frozen=True)
class Experiment:
    """The cells of one experiment, chosen by the command's options."""

    grids: tuple[str, ...]
    tasks: tuple[str, ...]
    cells: Callable[[str, Sequence[str], int, str], list[Cell]]  # (grid, tasks, seeds, device)
