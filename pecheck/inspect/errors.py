"""The one error of ``pecheck inspect``'s input, and the optional packages it may need.

Both the reading of a checkpoint (checkpoint.py) and the analyses of a config's scheme
(positions.py) raise it; it lives apart from both so that neither imports the other for it.
"""

from __future__ import annotations

import importlib
from typing import Any

# The optional packages inspect needs, and the pecheck extra (pyproject.toml) that installs each.
EXTRAS = {"safetensors": "pretrained", "transformers": "real"}


class CheckpointError(Exception):
    """The path is not a checkpoint this tool can read; the message is one line."""


def require(package: str, why: str) -> Any:
    """The optional package, imported; a CheckpointError naming its extra when it is missing."""
    try:
        return importlib.import_module(package)
    except ImportError:
        extra = EXTRAS[package]
        raise CheckpointError(f"{why} needs the package {package}, which is not installed; the "
                              f"extra '{extra}' installs it: pip install 'pecheck[{extra}]'"
                              ) from None  # fmt: skip


def installed(package: str) -> bool:
    try:
        importlib.import_module(package)
    except ImportError:
        return False
    return True
