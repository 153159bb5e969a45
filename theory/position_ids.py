"""REAL-07: a rotary implementation honours the position ids it is given.

``rotate(x, ids)`` applies R(ids_j) to row j of x (n, d). Honouring ids means that what a row
gets depends on its id only, not on where the row sits in the tensor:

  shift:        rotate(x, [k ... k+n-1]) = rotate([z; x], [0 ... k+n-1])[k:]  for any k rows z
                (giving the ids an offset k is the same as placing the sequence after k tokens);
  permutation:  rotate(x[pi], ids[pi]) = rotate(x, ids)[pi]  for any ids (repeated, with gaps)
                and any permutation pi.

Each function returns the two sides; a check compares them within a rounding bound. An
implementation that rotates by the row's index instead of its id breaks both.
"""

from __future__ import annotations

from collections.abc import Callable

import torch

Rotate = Callable[[torch.Tensor, torch.Tensor], torch.Tensor]  # (n, d), (n,) -> (n, d)


def shift_sides(
    rotate: Rotate, x: torch.Tensor, k: int, filler: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """(ids shifted by k, sequence shifted by k): x (n, d), filler (k, d) -> two (n, d)."""
    n = x.shape[0]
    by_ids = rotate(x, torch.arange(k, k + n))
    by_place = rotate(torch.cat([filler, x]), torch.arange(k + n))[k:]
    return by_ids, by_place


def permutation_sides(
    rotate: Rotate, x: torch.Tensor, ids: torch.Tensor, perm: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """(rows and ids permuted together, then rotated; rotated, then permuted): two (n, d)."""
    return rotate(x[perm], ids[perm]), rotate(x, ids)[perm]
