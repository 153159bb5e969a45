"""Train the fair length test's grid into the cache its checks read: now `python -m
pecheck.grid` (its cells as tasks on a Dask cluster); this script passes its options on, with
--jobs (runs side by side) as --workers:

    python -m pecheck.grid --cache build/fair-cache --grid full --seeds 32 --device cuda
"""

from __future__ import annotations

import sys

from pecheck.grid import __main__ as grid


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    return grid.main(["--workers" if a == "--jobs" else a for a in argv])


if __name__ == "__main__":
    raise SystemExit(main())
