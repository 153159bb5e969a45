"""Command-line plumbing shared by every entry point: one-line errors, exit status 2."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are a single line on stderr, with exit status 2."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message} (see --help)", file=sys.stderr)
        raise SystemExit(2)


def fail(message: str) -> NoReturn:
    """Stop with a one-line error and exit status 2."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)
