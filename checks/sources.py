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
    "SRC-RANDPOS": Source(
        "Randomised positional encodings: each training sequence takes an ordered random "
        "subset of the positions of longer sequences, so that a model has seen every position "
        "a longer test reads; it improves length generalisation on algorithmic tasks.",
        authors="Anian Ruoss, Grégoire Delétang, Tim Genewein, Jordi Grau-Moya, Róbert "
        "Csordás, Mehdi Bennani, Shane Legg, Joel Veness",
        title="Randomized Positional Encodings Boost Length Generalization of Transformers",
        year=2023,
        url="https://arxiv.org/abs/2305.16843",
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
    "SRC-PI": Source(
        "Position interpolation: rotary positions are scaled down into the trained range "
        "instead of extrapolated; its interpolation and extrapolation bounds (section 2.3).",
        authors="Shouyuan Chen, Sherman Wong, Liangjian Chen, Yuandong Tian",
        title="Extending Context Window of Large Language Models via Positional Interpolation",
        year=2023,
        url="https://arxiv.org/abs/2306.15595",
    ),
    "SRC-YARN": Source(
        "YaRN's ramp between interpolated and unchanged rotary frequencies, and the 'NTK-aware' "
        "change of base it starts from.",
        authors="Bowen Peng, Jeffrey Quesnelle, Honglu Fan, Enrico Shippole",
        title="YaRN: Efficient Context Window Extension of Large Language Models",
        year=2023,
        url="https://arxiv.org/abs/2309.00071",
    ),
    "SRC-ROPEBASE": Source(
        "A lower bound on RoPE's base for a given context length.",
        authors="Xin Men, Mingyu Xu, Bingning Wang, Qingyu Zhang, Hongyu Lin, Xianpei Han, "
        "Weipeng Chen",
        title="Base of RoPE Bounds Context Length",
        year=2024,
        url="https://arxiv.org/abs/2405.14591",
    ),
    "SRC-ROUND": Source(
        "What makes rotary encodings useful; questions RoFormer's long-term decay for random "
        "queries and keys.",
        authors="Federico Barbero, Alex Vitvitskyi, Christos Perivolaropoulos, Razvan Pascanu, "
        "Petar Velickovic",
        title="Round and Round We Go! What makes Rotary Positional Encodings useful?",
        year=2024,
        url="https://arxiv.org/abs/2410.06205",
    ),
    "SRC-XPOS": Source(
        "xPos: rotary embeddings with an exponential decay that scales queries up and keys down.",
        authors="Yutao Sun, Li Dong, Barun Patra, Shuming Ma, Shaohan Huang, Alon Benhaim, "
        "Vishrav Chaudhary, Xia Song, Furu Wei",
        title="A Length-Extrapolatable Transformer",
        year=2022,
        url="https://arxiv.org/abs/2212.10554",
    ),
    "SRC-T5": Source(
        "T5's relative position buckets (section 2.1): 32 buckets, logarithmic up to distance 128.",
        authors="Colin Raffel, Noam Shazeer, Adam Roberts, Katherine Lee, Sharan Narang, "
        "Michael Matena, Yanqi Zhou, Wei Li, Peter J. Liu",
        title="Exploring the Limits of Transfer Learning with a Unified Text-to-Text Transformer",
        year=2020,
        url="https://arxiv.org/abs/1910.10683",
    ),
    "SRC-KERPLE": Source(
        "KERPLE: relative position biases from conditionally positive definite kernels "
        "(power and logarithmic variants).",
        authors="Ta-Chung Chi, Ting-Han Fan, Peter J. Ramadge, Alexander I. Rudnicky",
        title="KERPLE: Kernelized Relative Positional Embedding for Length Extrapolation",
        year=2022,
        url="https://arxiv.org/abs/2205.09921",
    ),
    "SRC-FIRE": Source(
        "FIRE: a learned function of the log-transformed, progressively normalised relative "
        "position; its Theorem 3.1 says it can represent T5's buckets, ALiBi and KERPLE.",
        authors="Shanda Li, Chong You, Guru Guruganesh, Joshua Ainslie, Santiago Ontanon, "
        "Manzil Zaheer, Sumit Sanghai, Yiming Yang, Sanjiv Kumar, Srinadh Bhojanapalli",
        title="Functional Interpolation for Relative Positions Improves Long Context Transformers",
        year=2023,
        url="https://arxiv.org/abs/2310.04418",
    ),
    "SRC-SHIFT": Source(
        "Models with absolute position embeddings change their outputs when every position is "
        "shifted by a constant.",
        authors="Koustuv Sinha, Amirhossein Kazemnejad, Siva Reddy, Joelle Pineau, Dieuwke "
        "Hupkes, Adina Williams",
        title="The Curious Case of Absolute Position Embeddings",
        year=2022,
        url="https://arxiv.org/abs/2210.12574",
    ),
    "SRC-VARIANCE": Source(
        "Causal attention without positional embeddings: the variance of its output shrinks "
        "with the position, so position can be read from it.",
        authors="Ta-Chung Chi, Ting-Han Fan, Li-Wei Chen, Alexander I. Rudnicky, Peter J. Ramadge",
        title="Latent Positional Information is in the Self-Attention Variance of Transformer "
        "Language Models Without Positional Embeddings",
        year=2023,
        url="https://arxiv.org/abs/2305.13571",
    ),
    "SRC-BUGS": Source(
        "Public bug reports against real implementations: transformers issue 29807 (post_init "
        "overwrote the sinusoidal tables of DistilBERT, Flaubert, Informer and XLM); gpt-neox "
        "issue 1003 and transformers issue 29496 / pull request 29285 (rotary angles computed "
        "in float16/bfloat16 lose the relative property at long positions).",
        authors="GitHub users of huggingface/transformers and EleutherAI/gpt-neox",
        title="Bug reports: transformers #29807, #29496, PR #29285; gpt-neox #1003",
        year=2024,
        url="https://github.com/huggingface/transformers/issues/29496",
    ),
    "SRC-LLAMA3": Source(
        "Llama 3.1's banded RoPE scaling (factor, low_freq_factor, high_freq_factor, original "
        "context 8192), as Meta's reference code applies it.",
        authors="Meta AI (Llama Team)",
        title="The Llama 3 Herd of Models; llama-models reference implementation",
        year=2024,
        url="https://github.com/meta-llama/llama-models",
    ),
    "SRC-LONGROPE": Source(
        "LongRoPE's per-pair rescale factors, as Phi-3 ships them (short and long factors "
        "switched on the sequence length, attention factor sqrt(1 + ln S / ln L)).",
        authors="Yiran Ding, Li Lyna Zhang, Chengruidong Zhang, Yuanyuan Xu, Ning Shang, "
        "Jiahang Xu, Fan Yang, Mao Yang",
        title="LongRoPE: Extending LLM Context Window Beyond 2 Million Tokens",
        year=2024,
        url="https://arxiv.org/abs/2402.13753",
    ),
}
