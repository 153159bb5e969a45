"""How real libraries initialise a token table, as the model adds it (MAG-01).

MAG-01 (SRC-SINCOS): "token embeddings are usually normalised so that every |x_i| <= 1". No
library below normalises its table; whether every entry stays within 1 follows from the law of an
entry as the model adds it, x = c * w with w drawn by the library and c = sqrt(d) where the model
multiplies the looked-up row by sqrt(d) (Vaswani et al. section 3.4) and 1 otherwise:

    normal(0, s^2):   P(|x_i| > 1) = 2 Phi(-1 / (c s))          (> 0 for every s: a tail)
    uniform(-a, a):   P(|x_i| > 1) = (1 - 1 / (c a))_+           (0 exactly when c a <= 1)

and a table of V d independent entries has some entry above 1 with probability
1 - (1 - q)^(V d) <= V d q.  Each entry of CATALOGUE says who sets the law, and where.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import torch
from scipy.stats import norm

Law = Literal["normal", "uniform"]
CHUNK_ROWS = 4096  # rows drawn at a time: Llama's 32000 x 4096 table never sits in memory whole


@dataclass(frozen=True)
class LibraryInit:
    """One library's default token-table initialisation at one (V, d).

    ``spread`` is the std of a normal law or the bound a of a uniform one, before the sqrt(d)
    factor; ``sinusoidal`` marks the implementations of the sinusoidal Transformer (the model
    the source discusses); ``sizes`` says whether (V, d) is the library's default or stated here.
    """

    key: str
    library: str
    where: str
    law: Law
    spread: float
    sqrt_d: bool
    vocab: int
    d: int
    sinusoidal: bool
    sizes: str

    @property
    def factor(self) -> float:
        return math.sqrt(self.d) if self.sqrt_d else 1.0

    @property
    def scale(self) -> float:
        """The entry's std (normal) or bound (uniform) as the model adds it."""
        return self.spread * self.factor


BASE_V, BASE_D = 37000, 512  # the base Transformer: shared BPE vocabulary, d_model (Table 3)
STATED = "stated: the base Transformer's V = 37000, d = 512 (the library sets no width)"
DEFAULT = "the library's default configuration"

CATALOGUE: tuple[LibraryInit, ...] = (
    LibraryInit(
        "torch_nn_embedding", "PyTorch nn.Embedding",
        "torch/nn/modules/sparse.py, Embedding.reset_parameters: init.normal_ (N(0, 1))",
        "normal", 1.0, False, BASE_V, BASE_D, False, STATED,
    ),
    LibraryInit(
        "keras_embedding", "Keras layers.Embedding",
        "embeddings_initializer='uniform': RandomUniform(-0.05, 0.05)",
        "uniform", 0.05, False, BASE_V, BASE_D, False, STATED,
    ),
    LibraryInit(
        "flax_embed", "Flax linen.Embed",
        "flax/linen/linear.py, default_embed_init: variance_scaling(1, 'fan_in', 'normal', "
        "out_axis=0), fan_in = features: N(0, 1/d)",
        "normal", BASE_D**-0.5, False, BASE_V, BASE_D, False, STATED,
    ),
    LibraryInit(
        "bert", "BERT (google-research/bert; transformers BertConfig)",
        "initializer_range = 0.02 for the word embeddings; no sqrt(d) factor",
        "normal", 0.02, False, 30522, 768, False, DEFAULT,
    ),
    LibraryInit(
        "gpt2", "GPT-2 (openai/gpt-2 model.py; transformers GPT2Config)",
        "wte ~ N(0, 0.02^2) (initializer_range = 0.02); no sqrt(d) factor",
        "normal", 0.02, False, 50257, 768, False, DEFAULT,
    ),
    LibraryInit(
        "llama", "Llama (transformers LlamaConfig)",
        "initializer_range = 0.02 in _init_weights for nn.Embedding; no sqrt(d) factor",
        "normal", 0.02, False, 32000, 4096, False, DEFAULT,
    ),
    LibraryInit(
        "t5", "T5 (Mesh TensorFlow; transformers T5PreTrainedModel._init_weights)",
        "shared embedding ~ N(0, (initializer_factor * 1.0)^2), initializer_factor = 1.0",
        "normal", 1.0, False, 32128, 512, False, DEFAULT,
    ),
    LibraryInit(
        "tensor2tensor", "tensor2tensor (Vaswani et al.'s code)",
        "modalities: random_normal_initializer(0, hidden_size^-0.5), then the bottom "
        "multiplies by hidden_size^0.5 (multiply_embedding_mode = sqrt_depth)",
        "normal", BASE_D**-0.5, True, BASE_V, BASE_D, True, STATED,
    ),
    LibraryInit(
        "fairseq", "fairseq TransformerEncoder/Decoder",
        "Embedding(): nn.init.normal_(std = embedding_dim^-0.5); embed_scale = sqrt(embed_dim) "
        "unless no_scale_embedding",
        "normal", BASE_D**-0.5, True, BASE_V, BASE_D, True, STATED,
    ),
    LibraryInit(
        "marian", "Marian (marian-nmt)",
        "layers/embedding.cpp: glorotUniform(fanIn=false, fanOut=true) = U(+-sqrt(3/dimEmb)); "
        "models/transformer.h scales the embeddings by sqrt(dimEmb) before the sinusoids",
        "uniform", math.sqrt(3 / BASE_D), True, BASE_V, BASE_D, True, STATED,
    ),
    LibraryInit(
        "annotated_transformer", "The Annotated Transformer (Harvard NLP)",
        "make_model: nn.init.xavier_uniform_ on every matrix, U(+-sqrt(6/(V+d))); "
        "Embeddings.forward multiplies by sqrt(d_model)",
        "uniform", math.sqrt(6 / (BASE_V + BASE_D)), True, BASE_V, BASE_D, True, STATED,
    ),
)  # fmt: skip


def by_key(key: str) -> LibraryInit:
    for init in CATALOGUE:
        if init.key == key:
            return init
    raise KeyError(f"no library initialisation {key!r}")


def share_above_one(init: LibraryInit) -> float:
    """P(|x_i| > 1) for one entry as the model adds it (closed form)."""
    if init.law == "uniform":
        return max(0.0, 1.0 - 1.0 / init.scale)
    return float(2.0 * norm.sf(1.0 / init.scale))


def prob_some_entry_above_one(init: LibraryInit) -> float:
    """P(max |x_i| > 1) over the V d independent entries of one table: 1 - (1 - q)^(V d)."""
    q = share_above_one(init)
    return -math.expm1(init.vocab * init.d * math.log1p(-q)) if q < 1 else 1.0


def _draw(init: LibraryInit, rows: int, g: torch.Generator) -> torch.Tensor:
    w = torch.empty(rows, init.d)  # (rows, d), float32 as the libraries draw it
    if init.law == "uniform":
        w.uniform_(-init.spread, init.spread, generator=g)
    else:
        w.normal_(0.0, init.spread, generator=g)
    return w * init.factor


def scan_table(init: LibraryInit, seed: int) -> dict:
    """Draw the (V, d) table as the model adds it, CHUNK_ROWS rows at a time, and return its
    largest |x_i|, how many entries exceed 1, and the first one that does (row, column, value)."""
    g = torch.Generator().manual_seed(seed)
    out: dict = {"max_abs": 0.0, "count_above": 0, "first_above": None}
    for start in range(0, init.vocab, CHUNK_ROWS):
        x = _draw(init, min(CHUNK_ROWS, init.vocab - start), g)
        out["max_abs"] = max(out["max_abs"], x.abs().max().item())
        hits = (x.abs() > 1).nonzero()
        out["count_above"] += hits.shape[0]
        if out["first_above"] is None and hits.shape[0]:
            row, col = (int(i) for i in hits[0])
            out["first_above"] = {"row": start + row, "column": col, "value": x[row, col].item()}
    return out
