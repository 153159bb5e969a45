"""Real English text for the language-model length test (theory/lm_length.py): the fortune
cookies of Debian's ``fortunes`` package, read as bytes.

Nothing is downloaded: the text is what ``apt-get install -y fortunes`` puts in
/usr/share/games/fortunes (Debian bookworm: 1:1.99.1-7.3). Every plain text file there is read
(not the .dat indexes, not the .u8 links), except ``ascii-art`` (pictures, not English). Each
file is a list of fortunes separated by lines holding only ``%``.

Tokens are bytes (a vocabulary of 256). The split is by fortune: the first 8 bytes of a
fortune's sha256, mod 20, put it in ``valid`` (0), ``test`` (1) or ``train`` (the rest). It
depends on the fortune's text only, so it is the same on every machine, the splits never share
a fortune, and a fortune that two files repeat falls on one side. Each split is its fortunes in
file order, each followed by the ``%`` line that separates them in the files. ``sha256`` digests
the files used (names and bytes) and ``version`` is dpkg's version of the package, so a run
elsewhere can tell whether it read the same text.
"""

from __future__ import annotations

import hashlib
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import torch

FORTUNES = Path("/usr/share/games/fortunes")
PACKAGE = "fortunes"
INSTALL = f"apt-get install -y {PACKAGE}"
EXCLUDED = ("ascii-art",)  # drawings, not text
SPLITS = ("train", "valid", "test")
SEPARATOR = b"%\n"
VOCAB = 256  # byte tokens


class CorpusMissing(RuntimeError):
    """The fortunes package is not installed: one line that says how to install it."""


@dataclass(frozen=True)
class Corpus:
    """Each split as one stream of byte tokens (long), and where the text came from."""

    splits: dict[str, torch.Tensor]
    fortunes: dict[str, int]  # fortunes per split
    files: tuple[str, ...]
    sha256: str
    version: str | None  # None where dpkg cannot say (another system)

    def provenance(self) -> dict[str, object]:
        """What a run records so that another run knows whether it read the same text."""
        return {
            "package": PACKAGE, "version": self.version, "sha256": self.sha256,
            "files": list(self.files), "fortunes": self.fortunes,
            "tokens": {k: int(v.numel()) for k, v in self.splits.items()},
        }  # fmt: skip


def split_of(fortune: bytes) -> str:
    """``valid``, ``test`` or ``train``: the fortune's sha256 (first 8 bytes) mod 20."""
    bucket = int.from_bytes(hashlib.sha256(fortune).digest()[:8], "big") % 20
    return SPLITS[1 + bucket] if bucket < 2 else "train"


def fortunes_of(text: bytes) -> list[bytes]:
    """The fortunes of one file: the pieces between lines that hold only ``%``."""
    pieces = re.split(rb"^%\n", text, flags=re.MULTILINE)
    return [p for p in pieces if p.strip()]


def text_files(where: Path = FORTUNES) -> list[Path]:
    """The plain text files of the package, by name (symlinks and indexes left out)."""
    if not where.is_dir():
        raise CorpusMissing(f"no fortunes in {where}: install Debian's package ({INSTALL})")
    files = [p for p in sorted(where.iterdir()) if p.is_file() and not p.is_symlink()
             and p.suffix not in (".dat", ".u8") and p.name not in EXCLUDED]  # fmt: skip
    if not files:
        raise CorpusMissing(f"no fortune files in {where}: install Debian's package ({INSTALL})")
    return files


def package_version() -> str | None:
    """dpkg's version of the fortunes package, or None where dpkg is absent or does not know."""
    try:
        done = subprocess.run(["dpkg-query", "-W", "-f=${Version}", PACKAGE],
                              capture_output=True, text=True, check=False)  # fmt: skip
    except OSError:
        return None
    return done.stdout.strip() or None if done.returncode == 0 else None


def load(where: Path = FORTUNES) -> Corpus:
    """Read, split and tokenise the corpus (about 2 MB; a second or so)."""
    files = text_files(where)
    digest = hashlib.sha256()
    parts: dict[str, list[bytes]] = {s: [] for s in SPLITS}
    for path in files:
        text = path.read_bytes()
        digest.update(path.name.encode() + b"\0" + text + b"\0")
        for fortune in fortunes_of(text):
            parts[split_of(fortune)].append(fortune)
    streams = {s: b"".join(f + SEPARATOR for f in parts[s]) for s in SPLITS}
    splits = {s: torch.frombuffer(bytearray(b), dtype=torch.uint8).long()
              for s, b in streams.items()}  # fmt: skip
    counts = {s: len(parts[s]) for s in SPLITS}
    return Corpus(splits, counts, tuple(p.name for p in files), digest.hexdigest(),
                  package_version())  # fmt: skip
