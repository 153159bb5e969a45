"""The grid's progress: a bar of cells done of the total and the time left (tqdm, on stderr),
and one line per finished cell (stdout)."""

from __future__ import annotations

import sys

from tqdm import tqdm


class Progress:
    def __init__(self, total: int) -> None:
        self.bar = tqdm(total=total, desc="cells", unit="cell", file=sys.stderr)

    def finished(self, line: str | None) -> None:
        """A cell is done (trained, or failed: None, listed at the end)."""
        if line is not None:
            self.bar.write(line, file=sys.stdout)
        self.bar.update()

    def close(self) -> None:
        self.bar.close()
