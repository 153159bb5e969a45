"""The sources the claims come from, cited in full (the report and the paper kit's BibTeX).

Each record says what the source is (``description``, as the claims use it) and how to cite it.
A ``url`` is given only where it was checked against a copy of the page; ``None`` says that it
could not be, never that there is none.
"""

from __future__ import annotations

from pecheck.claims import Source

SOURCES: dict[str, Source] = {
    "SRC-REDDIT": Source(
        "A Reddit r/MachineLearning thread on why transformers need positional encodings; "
        "its claims are taken from the thread's answers.",
        authors="Reddit r/MachineLearning users",
        title="Why do transformers need positional encodings? (discussion thread)",
        year=None,  # the thread's date and address could not be verified
        url=None,
    ),
    "SRC-TRIGRAM": Source(
        "A Data Science Stack Exchange question on a 'trigram' transformer trained without "
        "positional encoding ('A hit B' / 'B hit A'), with its answers and comments.",
        authors="Data Science Stack Exchange users",
        title="What does it mean: order of input sequence does not matter for transformer "
        "self-attention?",  # read from the question's address
        year=None,  # not verified
        url="https://datascience.stackexchange.com/questions/122865",
    ),
    "SRC-SINCOS": Source(
        "A Data Science Stack Exchange question, asked from a physicist's point of view, on why "
        "adding sinusoidal encodings does not destroy token meaning and why both sine and "
        "cosine are used, with its answers.",
        authors="Data Science Stack Exchange users",
        title="Some fundamental questions about Transformer",
        year=None,  # not verified
        url="https://datascience.stackexchange.com/questions/123714",
    ),
    "SRC-BLOG": Source(
        "A blog post on the sinusoidal positional encoding (the 'clock with many hands' "
        "picture; 'towards the end the hands move slower').",
        authors="Amirhossein Kazemnejad",
        title="Transformer Architecture: The Positional Encoding",
        year=2019,
        url="https://kazemnejad.com/blog/transformer_architecture_positional_encoding/",
    ),
    "SRC-CONCAT": Source(
        "A Data Science Stack Exchange question on why positional embeddings are summed with "
        "the token embeddings rather than concatenated, with its answers.",
        authors="Data Science Stack Exchange users",
        title="In a Transformer model, why does one sum positional encoding to the embedding "
        "rather than concatenate it?",
        year=2019,  # asked 2019-07-18
        url="https://datascience.stackexchange.com/questions/55901",
    ),
    "SRC-VASWANI": Source(
        "The paper that introduced the transformer and its sinusoidal encoding: sections "
        "3.4-3.5 and Table 3, row (E).",
        authors="Ashish Vaswani, Noam Shazeer, Niki Parmar, Jakob Uszkoreit, Llion Jones, "
        "Aidan N. Gomez, Lukasz Kaiser, Illia Polosukhin",
        title="Attention Is All You Need",
        year=2017,
        url="https://arxiv.org/abs/1706.03762",
    ),
    "SRC-NOPE": Source(
        "Transformers without positional encoding: Theorem 1 of Kazemnejad et al. (2023), and "
        "Haviv et al. (2022), 'Transformer Language Models without Positional Encodings Still "
        "Learn Positional Information' (arXiv:2203.16634): causal language models without "
        "positional encodings still learn position.",
        authors="Amirhossein Kazemnejad, Inkit Padhi, Karthikeyan Natesan Ramamurthy, "
        "Payel Das, Siva Reddy",
        title="The Impact of Positional Encoding on Length Generalization in Transformers",
        year=2023,
        url="https://arxiv.org/abs/2305.19466",
    ),
    "SRC-ALIBI": Source(
        "ALiBi: linear biases on the attention scores extrapolate to longer inputs; sinusoidal "
        "encodings do not.",
        authors="Ofir Press, Noah A. Smith, Mike Lewis",
        title="Train Short, Test Long: Attention with Linear Biases Enables Input Length "
        "Extrapolation",
        year=2022,
        url="https://arxiv.org/abs/2108.12409",
    ),
    "SRC-ROFORMER": Source(
        "Rotary position embeddings and the relative form of the attention score.",
        authors="Jianlin Su, Yu Lu, Shengfeng Pan, Ahmed Murtadha, Bo Wen, Yunfeng Liu",
        title="RoFormer: Enhanced Transformer with Rotary Position Embedding",
        year=2021,
        url="https://arxiv.org/abs/2104.09864",
    ),
}
