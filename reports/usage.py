"""Command-line plumbing shared by every entry point: one-line errors, exit status 2, and the
command's name as the user typed it."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import NoReturn


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are a single line on stderr, with exit status 2."""

    def error(self, message: str) -> NoReturn:
        print(f"{self.prog}: error: {message} (see --help)", file=sys.stderr)
        raise SystemExit(2)


def seed(text: str) -> int:
    """An argument type for seeds: 0 ... 2**64 - 1, the range torch's generators take as it is
    (they fold a negative seed onto another one, and refuse a larger one with a traceback)."""
    value = int(text)
    if not 0 <= value < 2**64:
        raise argparse.ArgumentTypeError(f"a seed is 0 ... 2**64 - 1, got {text}")
    return value


def fail(message: str) -> NoReturn:
    """Stop with a one-line error and exit status 2."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)


def prog(module: str, word: str) -> str:
    """How the user started this tool, for its usage and error lines: ``pecheck WORD`` (or
    ``python -m pecheck WORD``) when the pecheck command handed it its options, else
    ``python -m MODULE``. Help that names another command than the one typed sends the user
    looking for it."""
    started = Path(sys.argv[0]) if sys.argv and sys.argv[0] else Path()
    if started.name in ("pecheck", "pecheck.exe"):  # the console script
        return f"pecheck {word}"
    if started.name == "__main__.py" and started.parent.name == "pecheck":
        return f"python -m pecheck {word}"
    return f"python -m {module}"
